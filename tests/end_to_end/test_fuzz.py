"""A seeded mutation fuzzer over every reader and the config (the mutator of benchmarks/fuzz.py,
a few hundred cases): damaged inputs never raise anything but the documented exceptions, and
what is read is usable (printable, bounded messages; finite positive values). A failing case is
reproduced alone by ``python benchmarks/fuzz.py --case N``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from speeduptest.inputs.readers import parse_source, select

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "fuzz.py"
BLOCKS = 8
CASES_PER_BLOCK = 80  # 640 cases in all, a few seconds


def _load_fuzzer():
    spec = importlib.util.spec_from_file_location("speeduptest_fuzz", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


fuzz = _load_fuzzer()


def test_every_seed_input_is_read_cleanly_before_damage(tmp_path):
    """Damage starts from inputs that read without error (else every case is trivially an
    error), and covers every reader."""
    formats = set()
    for seed in fuzz.seeds():
        if seed.kind == "config":
            continue
        source = parse_source(seed.files[seed.target], seed.target, seed.target)
        assert source.problem is None, (seed.name, source.problem)
        formats.add(source.format)
        if "aggregates" in seed.name:  # an error by design: aggregates only, no repetitions
            continue
        for sample in source.samples:
            assert sample.ok and sample.data is not None, (seed.name, sample.errors)
        assert select(source, None if len(source.samples) == 1 else source.samples[0].label).ok
    assert formats == {"pyperf", "hyperfine", "Google Benchmark", "JMH", "ReBench", "long CSV",
                       "sample", "Go", "pytest-benchmark", "asv", "Criterion", "Catch2"}
    folder = tmp_path / "config"
    folder.mkdir()
    config = next(seed for seed in fuzz.seeds() if seed.kind == "config")
    assert fuzz.run_files(config, config.files, folder) == []


def test_the_mutator_is_deterministic():
    seeds = fuzz.seeds()
    assert fuzz.case(0, 123, seeds) == fuzz.case(0, 123, seeds)
    assert fuzz.case(0, 123, seeds) != fuzz.case(1, 123, seeds)


@pytest.mark.parametrize("block", range(BLOCKS))
def test_mutated_inputs_never_raise(block):
    report = fuzz.run(CASES_PER_BLOCK, seed_value=0, first=block * CASES_PER_BLOCK)
    failures = [f"{count} × {place} (e.g. `python benchmarks/fuzz.py --case {number}`: {detail})"
                for place, count in report.failures.most_common()
                for number, detail in [report.examples[place]]]
    assert not failures, "\n".join(failures)

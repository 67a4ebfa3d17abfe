"""Transforms of an experiment: functions from Experiment to Experiment, run by the analysis
over the samples as they are read (the unit conversion, the measurement checks, and any step
a library user adds)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from speeduptest.analysis.resolution import TimerResolution
from speeduptest.analysis.run import analyse
from speeduptest.analysis.transforms import (
    InSeconds,
    MeasurementChecks,
    ReadPair,
    prepared,
    with_transform,
)
from speeduptest.inputs.forms import read_experiment
from speeduptest.model.results import Settings

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ROOT / "samples" / "compiler-flags"
TRUFFLE = ROOT / "samples" / "trufflesom-splitting"
SETTINGS = Settings(bootstrap=200)


def _write(folder: Path, name: str, values) -> None:
    (folder / name).write_text("\n".join(f"{v:.17g}" for v in values) + "\n")


def _first(pairs):
    return list(pairs)


def _second(pairs):
    return list(pairs)


def test_a_transform_gives_a_new_experiment_and_leaves_the_old_one() -> None:
    experiment = read_experiment(FLAGS / "O2-vs-O0.csv")
    both = with_transform(with_transform(experiment, _first), _second)
    assert experiment.transforms == ()
    assert both.transforms == (_first, _second)  # (two plain functions: both kept)
    assert both.benchmarks == experiment.benchmarks
    with pytest.raises(ValueError, match="set it through Settings"):
        with_transform(experiment, MeasurementChecks("3", "batch"))


def test_the_run_prepares_its_experiment_with_its_settings() -> None:
    """The run's own steps come from its settings, around the user's: the unit conversion,
    the measurement checks, the user's steps, the timer's resolution last."""
    experiment = with_transform(read_experiment(FLAGS / "O2-vs-O0.csv"), _first)
    run = prepared(experiment, Settings(alpha=0.01, warmup="none", dependence="ignore",
                                        resolution=1e-6, resolution_unit="s"))
    assert run.transforms == (InSeconds(), MeasurementChecks("none", "ignore"), _first,
                              TimerResolution(1e-6, "s"))
    assert {b.alpha for b in run.benchmarks} == {0.01}
    assert prepared(run, Settings()).transforms[2:3] == (_first,)  # (prepared twice: once)


class _Doubled:
    """A user's step: the optimized times doubled, except for one benchmark it refuses."""

    def __init__(self, refused: str) -> None:
        self.refused = refused

    def __call__(self, pairs):
        changed = []
        for pair in pairs:
            if self.refused in pair.paths[0]:
                changed.append("refused by the user's transform")
                continue
            pair.optimized = pair.optimized.times(2.0)
            changed.append(pair)
        return changed


def test_a_users_step_runs_after_the_standard_ones(tmp_path: Path) -> None:
    """The analysis runs every step over the samples as read: a step that doubles the
    optimized times halves the speedups, and a benchmark it refuses gets the step's message
    as its error, with its config line, while the others are analysed."""
    experiment = read_experiment(FLAGS / "O2-vs-O0.csv")
    plain = analyse(experiment, SETTINGS)
    refused = plain.pair.benchmarks[1].name
    doubled = analyse(with_transform(experiment, _Doubled(f"/{refused}.")), SETTINGS)
    for before, after in zip(plain.pair.benchmarks, doubled.pair.benchmarks, strict=True):
        if before.name == refused:
            assert after.status == "error"
            assert after.errors[0].message == "refused by the user's transform"
            assert after.errors[0].line == before.config_line
            continue
        assert after.status == "ok"
        assert np.isclose(after.analysis.speedup.mean, before.analysis.speedup.mean / 2)


def test_the_unit_column_is_a_transform(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(2.0, 0.02, 30)
    _write(tmp_path, "ms.txt", values * 1000)
    _write(tmp_path, "s.txt", values)
    (tmp_path / "config.csv").write_text(
        "benchmark,initial,optimized,unit\nb,ms.txt,ms.txt,ms\n")
    results = analyse(read_experiment(tmp_path / "config.csv"), SETTINGS)
    (benchmark,) = results.pair.benchmarks
    assert benchmark.unit == "s"
    assert np.isclose(benchmark.analysis.initial.mean, values.mean())


def test_a_tool_file_against_a_plain_sample_of_no_unit_is_the_benchmarks_error(
        tmp_path: Path) -> None:
    tool = ROOT / "tests" / "data" / "tools" / "hyperfine"
    tool_file = next(tool.glob("*.json"))
    _write(tmp_path, "plain.txt", np.linspace(1.0, 1.1, 20))
    pair = ReadPair(1, 1.0, 0.05, None, None, paths=(str(tool_file), "plain.txt"),  # type: ignore[arg-type]
                    units=("s", None))
    (message,) = InSeconds()([pair])
    assert isinstance(message, str)
    assert message.startswith(f"{tool_file} states its time unit")
    assert "plain.txt is a plain sample without a unit" in message


def test_the_warmups_are_left_out_by_the_transform_of_the_settings() -> None:
    experiment = read_experiment(TRUFFLE / "config.csv")
    kept = analyse(experiment, dataclasses.replace(SETTINGS, warmup="none"))
    cut = analyse(experiment, SETTINGS)
    dropped = [b.validity[0].dropped + b.validity[1].dropped for b in cut.pair.benchmarks
               if b.validity is not None]
    assert sum(dropped) > 0
    assert all(side.dropped == 0 for b in kept.pair.benchmarks if b.validity is not None
               for side in b.validity)


def test_the_guides_example_step(tmp_path: Path) -> None:
    """The user guide's step (a generator), as written there."""
    from speeduptest.stats.hierarchy import Hierarchy

    def without_first(pairs):  # each side's first value left out (a cold cache)
        for pair in pairs:
            if pair.initial.depth > 1 or pair.optimized.depth > 1:
                yield "only plain samples are trimmed"
                continue
            pair.initial, pair.optimized = (Hierarchy.flat(side.values()[1:])
                                            for side in (pair.initial, pair.optimized))
            yield pair

    experiment = read_experiment(FLAGS / "O2-vs-O0.csv")
    trimmed = analyse(with_transform(experiment, without_first),
                      dataclasses.replace(SETTINGS, warmup="none", dependence="ignore"))
    assert all(b.analysis.initial.n == b.analysis.optimized.n == 30
               for b in trimmed.pair.benchmarks)
    # (Batch means of dependent values are a level of their own: no longer plain.)
    batched = analyse(with_transform(experiment, without_first),
                      dataclasses.replace(SETTINGS, warmup="none"))
    assert {error.message for error in batched.errors} <= {"only plain samples are trimmed"}
    guide = (ROOT / "docs" / "guide" / "ci-and-papers.md").read_text()
    assert "def without_first(pairs):" in guide
    assert "with_transform(experiment, without_first)" in guide


def test_a_step_that_leaves_too_few_values_is_the_benchmarks_error() -> None:
    """Not a crash: the analysis checks what a user's step leaves."""
    from speeduptest.stats.hierarchy import Hierarchy

    def two_left(pairs):
        for pair in pairs:
            pair.initial = Hierarchy.flat(pair.initial.values()[:2])
            yield pair

    experiment = read_experiment(FLAGS / "O2-vs-O0.csv")
    results = analyse(with_transform(experiment, two_left),
                      dataclasses.replace(SETTINGS, warmup="none", dependence="ignore"))
    assert all(b.status == "error" for b in results.pair.benchmarks)
    assert results.pair.benchmarks[0].errors[0].message == (
        "initial sample: 2 values left after the step two_left; at least 3 independent "
        "observations are needed")

"""A/A tests on real pyperf files: the same build, split in two, must call nothing.

tests/data/tools/pyperf-aa/same-build.json.gz was written by pyperf on the project machine
(40 worker processes × 3 values per benchmark, see its README). Its worker processes are split
by parity (1st, 3rd, … against 2nd, 4th, …): both halves measure the same interpreter and code,
interleaved in time, so every difference between them is noise. Before the calls, the
Speedup-Test verdicts in both directions flagged several benchmarks of such a split; the calls
must flag none, and --fail-on-slowdown must not fail the job.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest

from speeduptest.cli import main

AA = Path(__file__).parents[1] / "data" / "tools" / "pyperf-aa"


def split_by_process_parity(source: Path, folder: Path) -> tuple[Path, Path]:
    """Two pyperf files holding the odd and the even worker processes of ``source`` (runs
    without values, pyperf's loop calibration, stay in both: the reader leaves them out)."""
    suite = json.loads(gzip.decompress(source.read_bytes()))
    halves = []
    for parity in (0, 1):
        half = copy.deepcopy(suite)
        for benchmark in half["benchmarks"]:
            measured = [run for run in benchmark["runs"] if "values" in run]
            others = [run for run in benchmark["runs"] if "values" not in run]
            benchmark["runs"] = others + measured[parity::2]
        path = folder / f"{source.name.split('.')[0]}-{'odd' if parity == 0 else 'even'}.json"
        path.write_text(json.dumps(half))
        halves.append(path)
    return halves[0], halves[1]


@pytest.mark.parametrize("correction", ["bonferroni", "fcr"])
def test_same_build_split_by_process_calls_nothing(tmp_path, correction, capsys):
    odd, even = split_by_process_parity(AA / "same-build.json.gz", tmp_path)
    status = main(["compare", str(odd), str(even), "--fail-on-slowdown", "--correction",
                   correction, "-o", str(tmp_path / "out"), "--format", "json",
                   "--bootstrap", "1000", "--quiet"])
    assert status == 0, capsys.readouterr().err
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert len(data["benchmarks"]) >= 15
    for benchmark in data["benchmarks"]:
        assert benchmark["status"] == "ok"
        assert benchmark["initial"]["n"] == benchmark["optimized"]["n"] == 20  # processes
        assert benchmark["change"]["call"] in ("unchanged", "uncertain"), benchmark["name"]
    calls = data["overall"]["calls"]
    assert calls["faster"] == calls["slower"] == 0


def test_a_real_two_fold_speedup_is_called_faster_where_the_book_is_inconclusive(tmp_path):
    """pyperf-aa/faster.json.gz makes logging_silent about 2× faster (lazy logging
    arguments), everything else identical. With 20 processes per side and one disturbed
    process, Shapiro–Wilk rejects normality: the Speedup-Test verdict of the mean is
    inconclusive (small and not normal) while the samples do not overlap. The call says
    faster, and results.json keeps both with their reasons."""
    status = main(["compare", str(AA / "same-20.json.gz"), str(AA / "faster.json.gz"),
                   "-o", str(tmp_path / "out"), "--format", "json", "--bootstrap", "1000",
                   "--quiet"])
    assert status == 0
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    benchmark = next(b for b in data["benchmarks"] if b["name"] == "logging_silent")
    assert benchmark["mean"]["verdict"] == "inconclusive"
    assert benchmark["mean"]["reason"] == "small samples; normality rejected"
    assert benchmark["change"]["call"] == "faster"
    assert "lies above 1.01" in benchmark["change"]["reason"]
    assert benchmark["change"]["interval"]["low"] > 1.5
    assert benchmark["probability_faster"] == 1.0

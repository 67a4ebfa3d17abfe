"""A large run analyses its benchmarks a batch at a time as they are read (planned for the
benchmarks the config lets through): it writes the same results.json as a run that reads
them all first, whatever benchmarks fail to read."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import speeduptest.analysis.benchmarks as analysis
from speeduptest.analysis.run import analyse_config
from speeduptest.cli import main

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config


def _results_json(config: Path, folder: Path, monkeypatch, streamed: bool, *options: str
                  ) -> bytes:
    monkeypatch.setattr(analysis, "STREAMED_FROM", 0 if streamed else 1 << 60)
    status = main([str(config), "--format", "json", "--quiet", "-o", str(folder), *options])
    assert status in (0, 1, 2)
    return (folder / "results.json").read_bytes()


def _same_streamed_or_not(config: Path, tmp_path: Path, monkeypatch, *options: str) -> None:
    streamed = _results_json(config, tmp_path / "streamed", monkeypatch, True, *options)
    whole = _results_json(config, tmp_path / "whole", monkeypatch, False, *options)
    assert streamed == whole


def _spy_on_redone(monkeypatch) -> list[tuple[int, int, int]]:
    """(benchmarks planned, benchmarks analysed, benchmarks redone) of each streamed run."""
    seen = []
    redone = analysis._Plan.redone

    def spy(plan, final, pairs, collected):
        again = redone(plan, final, pairs, collected)
        seen.append((plan.benchmarks, final.benchmarks, len(again)))
        return again

    monkeypatch.setattr(analysis._Plan, "redone", spy)
    return seen


def test_streamed_with_unreadable_benchmarks_and_heavy_ones(tmp_path, monkeypatch):
    """Benchmarks lost to errors change the levels of the calls, which are made once all
    benchmarks are analysed: no benchmark is analysed again (n = 3, noisy: many of them with
    open call intervals); the heavy ones (own random streams) are analysed at the end, as in
    a whole run."""
    monkeypatch.setattr(analysis, "SERIAL_BATCH", 32)
    config = make_config(tmp_path, 400, 3, seed=3)
    rng = np.random.default_rng(3)
    for index in range(400):
        for role in ("initial", "optimized"):
            values = rng.lognormal(0, 1.5, 200 if index in (7, 300) else 3)
            (tmp_path / f"b{index}-{role}.txt").write_text(
                "\n".join(f"{v:.6g}" for v in values) + "\n")
    for index in range(0, 400, 3):  # lost: missing, or not a number
        if index % 2:
            (tmp_path / f"b{index}-initial.txt").unlink()
        else:
            (tmp_path / f"b{index}-optimized.txt").write_text("1 2 x\n")
    seen = _spy_on_redone(monkeypatch)
    _same_streamed_or_not(config, tmp_path, monkeypatch, "--bootstrap", "300")
    ((planned, analysed, redone),) = seen
    assert (planned, analysed) == (400, 266)
    assert redone == 0


def test_streamed_run_that_loses_enough_benchmarks_to_change_its_resamples(
        tmp_path, monkeypatch):
    """Default resamples depend on the benchmarks analysed (150: 6,666; 140: 7,142): the
    streamed batches are analysed again."""
    monkeypatch.setattr(analysis, "SERIAL_BATCH", 32)
    config = make_config(tmp_path, 150, 5, seed=4)
    for index in range(0, 150, 15):
        (tmp_path / f"b{index}-optimized.txt").write_text("")
    seen = _spy_on_redone(monkeypatch)
    _same_streamed_or_not(config, tmp_path, monkeypatch)
    ((planned, analysed, redone),) = seen
    assert (planned, analysed) == (150, 140)
    assert redone == 128  # every benchmark of the four whole batches of 32 streamed


def test_streamed_run_without_errors_redoes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis, "SERIAL_BATCH", 64)
    config = make_config(tmp_path, 300, 8, seed=6)
    seen = _spy_on_redone(monkeypatch)
    _same_streamed_or_not(config, tmp_path, monkeypatch, "--correction", "bonferroni")
    assert seen == [(300, 300, 0)]


def test_progress_never_goes_back_and_ends_at_the_benchmarks_analysed(tmp_path, monkeypatch):
    """Told while streamed batches are analysed (out of the config's benchmarks), then out of
    those read without error, though some are analysed again."""
    from speeduptest.model.results import Settings

    monkeypatch.setattr(analysis, "SERIAL_BATCH", 32)
    monkeypatch.setattr(analysis, "STREAMED_FROM", 0)
    config = make_config(tmp_path, 150, 5, seed=4)
    for index in range(0, 150, 15):
        (tmp_path / f"b{index}-optimized.txt").write_text("")
    told: list[tuple[int, int]] = []
    analyse_config(config, Settings(),
                            progress=lambda done, total, name: told.append((done, total)))
    assert [done for done, _ in told] == sorted(done for done, _ in told)
    assert told[0] == (32, 150) and told[-1] == (140, 140)

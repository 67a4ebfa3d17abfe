"""A streamed batch's effect sizes wait for its bootstrap while the next batch is read and
checked (analysis.benchmarks._complete_deferred): with the batch child, runs streamed that way
write the results.json of a run that reads every benchmark first, and each batch is
finished once the next one is read and checked. (A batch is checked once the next is read:
the batch child does its checks' array work meanwhile.)"""

from __future__ import annotations

import sys
from pathlib import Path

import speeduptest.analysis.benchmarks as analysis
from speeduptest.cli import main

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config


def _results_json(config: Path, folder: Path, monkeypatch, streamed: bool) -> bytes:
    monkeypatch.setattr(analysis, "STREAMED_FROM", 0 if streamed else 1 << 60)
    assert main([str(config), "--format", "json", "--quiet", "-o", str(folder),
                 "--bootstrap", "200"]) in (0, 1, 2)
    return (folder / "results.json").read_bytes()


def test_batches_finished_once_the_next_is_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(analysis, "SERIAL_BATCH", 128)
    config = make_config(tmp_path, 700, 12, seed=8)  # (a batch child from 500 on)
    events: list[tuple[str, int]] = []
    steps, finish, done = (analysis._analysis_steps, analysis._complete_deferred,
                           analysis._Checking.done)

    def started(settings, forced, pairs, helper=None):
        assert helper is not None
        events.append(("started", pairs[0].index))
        return steps(settings, forced, pairs, helper)

    def finished(deferred, collected):
        if deferred is not None:
            events.append(("finished", deferred[0][0].index))
        return finish(deferred, collected)

    def checked(self, *arguments):
        if self.pairs:
            events.append(("checked", self.pairs[0].index))
        return done(self, *arguments)

    monkeypatch.setattr(analysis._Checking, "done", checked)
    monkeypatch.setattr(analysis, "_analysis_steps", started)
    monkeypatch.setattr(analysis, "_complete_deferred", finished)
    streamed = _results_json(config, tmp_path / "streamed", monkeypatch, True)
    whole = _results_json(config, tmp_path / "whole", monkeypatch, False)
    assert streamed == whole
    assert events[:7] == [("checked", 1), ("started", 1), ("checked", 129), ("finished", 1),
                          ("started", 129), ("checked", 257), ("finished", 129)]

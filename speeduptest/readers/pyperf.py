"""pyperf and pyperformance result files (``.json``, ``.json.gz``).

A file is a suite: ``{"version", "metadata", "benchmarks": [{"metadata", "runs": [...]}]}``.
Each run is one worker process; its ``values`` are per-loop times in the benchmark's ``unit``
(``second`` unless stated), its ``warmups`` are ``[loops, value]`` pairs that pyperf itself
leaves out of every statistic, and so does speeduptest. A run with warm-ups only is pyperf's
loop calibration. Metadata shared by all benchmarks is stored once, at the suite level, so a
benchmark's name and unit are looked up there too. Levels: process › value.

Reference: pyperf documentation, "pyperf JSON format"; ``pyperf/_bench.py``.
"""

from __future__ import annotations

from .common import ErrorList, SourceFile, make_sample, mark_duplicates, time_factor, value_problem


def _benchmark(entry: object, position: int, suite_metadata: dict, path: str):
    errors = ErrorList(path)
    metadata = entry.get("metadata", {}) if isinstance(entry, dict) else {}
    metadata = {**suite_metadata, **(metadata if isinstance(metadata, dict) else {})}
    name = metadata.get("name")
    name = name if isinstance(name, str) and name else f"benchmark #{position}"
    where = f"benchmark '{name}'"
    runs = entry.get("runs") if isinstance(entry, dict) else None
    if not isinstance(runs, list):
        errors.add(f"{where}: no 'runs' list")
        runs = []
    factor = time_factor(metadata.get("unit", "second"), errors, where)
    processes, warmups, calibration = [], 0, 0
    for number, run in enumerate(runs, start=1):
        if not isinstance(run, dict):
            errors.add(f"{where}, run {number}: not a JSON object")
            continue
        values = run.get("values")
        if values is None:  # pyperf's loop calibration: warm-ups only
            calibration += 1
            continue
        warmups += len(run.get("warmups") or ())
        if not isinstance(values, list):
            errors.add(f"{where}, run {number}: 'values' is not a list")
            continue
        for index, value in enumerate(values, start=1):
            problem = value_problem(value)
            if problem:
                errors.add(f"{where}, run {number}, value {index}: {problem}")
        if not errors and factor is not None:
            processes.append([value * factor for value in values])
    notes = [f"{len(processes)} worker processes"]
    if warmups:
        notes.append(f"{warmups} warm-up values left out")
    if calibration:
        notes.append(f"{calibration} calibration run(s) left out")
    return make_sample(path, name, processes, ("process", "value"), errors, notes)


def parse(document: dict, path: str) -> SourceFile:
    suite_metadata = document.get("metadata", {})
    suite_metadata = suite_metadata if isinstance(suite_metadata, dict) else {}
    samples = [_benchmark(entry, position, suite_metadata, path)
               for position, entry in enumerate(document["benchmarks"], start=1)]
    return SourceFile(path, "pyperf", tuple(mark_duplicates(samples, "benchmark")))

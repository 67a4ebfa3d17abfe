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

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    in_seconds,
    json_repr,
    make_sample,
    mark_duplicates,
    named,
    time_factor,
    value_problem,
)
from speeduptest.notices import InputError


def _benchmark(entry: object, position: int, suite_metadata: dict, path: str):
    errors = ErrorList(path)
    if not isinstance(entry, dict):
        errors.add(f"benchmark #{position}: {json_repr(entry)} is not a JSON object")
        return make_sample(path, f"benchmark #{position}", [], ("process", "value"), errors)
    metadata = entry.get("metadata", {})
    if not isinstance(metadata, dict):
        errors.add(f"benchmark #{position}: its metadata {json_repr(metadata)} is not a JSON "
                   "object")
        metadata = {}
    metadata = {**suite_metadata, **metadata}
    name = metadata.get("name")
    name = name if isinstance(name, str) and name else f"benchmark #{position}"
    where = f"benchmark {named(name)}"
    runs = entry.get("runs")
    if not isinstance(runs, list):
        errors.add(f"{where}: no 'runs' list")
        runs = []
    unit = metadata.get("unit", "second")
    factor = time_factor(unit, errors, where)
    processes, warmups, calibration = [], 0, 0
    for number, run in enumerate(runs, start=1):
        if not isinstance(run, dict):
            errors.add(f"{where}, run {number}: not a JSON object")
            continue
        run_warmups = run.get("warmups")
        if run_warmups is not None and not isinstance(run_warmups, list):
            errors.add(f"{where}, run {number}: 'warmups' {json_repr(run_warmups)} is not a list")
            run_warmups = None
        values = run.get("values")
        if values is None:  # pyperf's loop calibration: warm-ups only
            calibration += 1
            continue
        warmups += len(run_warmups or ())
        if not isinstance(values, list):
            errors.add(f"{where}, run {number}: 'values' {json_repr(values)} is not a list")
            continue
        process = []
        for index, value in enumerate(values, start=1):
            problem = value_problem(value)
            if problem is None and factor is not None:
                seconds, problem = in_seconds(value, factor)
                if seconds is not None:
                    process.append(seconds)
            if problem:
                errors.add(f"{where}, run {number}, value {index}: {problem}")
        if not errors and factor is not None:
            processes.append(process)
    notes = [f"{len(processes)} worker processes"]
    if warmups:
        notes.append(f"{warmups} warm-up values left out")
    if calibration:
        notes.append(f"{calibration} calibration run(s) left out")
    return make_sample(path, name, processes, ("process", "value"), errors, notes)


def parse(document: dict, path: str) -> SourceFile:
    suite_metadata = document.get("metadata", {})
    file_errors = []
    if not isinstance(suite_metadata, dict):
        # The name and unit of every benchmark may be there: none can be trusted.
        file_errors.append(InputError(path, None, f"the file's metadata "
                                      f"{json_repr(suite_metadata)} is not a JSON object"))
        suite_metadata = {}
    samples = [_benchmark(entry, position, suite_metadata, path)
               for position, entry in enumerate(document["benchmarks"], start=1)]
    return SourceFile(path, "pyperf", tuple(mark_duplicates(samples, "benchmark")),
                      errors=tuple(file_errors))

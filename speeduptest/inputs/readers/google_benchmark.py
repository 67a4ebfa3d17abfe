"""Google Benchmark result files (``--benchmark_format=json`` or ``--benchmark_out=FILE``).

``{"context": {...}, "benchmarks": [...]}``: with ``--benchmark_repetitions=N`` each repetition
is an entry with ``"run_type": "iteration"`` and the benchmark's name in ``run_name``; the
entries with ``"run_type": "aggregate"`` (mean, median, stddev, cv, BigO, RMS) summarise them
and are left out. ``real_time`` (wall clock) and ``cpu_time`` are per-iteration times in
``time_unit``. The repetitions run one after the other in one process. Levels: repetition.

Reference: Google Benchmark, ``docs/user_guide.md`` (output formats, repetitions) and
``src/json_reporter.cc``.
"""

from __future__ import annotations

from typing import Literal

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

_COMPLEXITY = ("BigO", "RMS")
_AGGREGATES = ("mean", "median", "stddev", "cv", *_COMPLEXITY)


def parse(document: dict, path: str, time: Literal["real", "cpu"] = "real") -> SourceFile:
    field = f"{time}_time"
    order: list[str] = []
    repetitions: dict[str, list[dict]] = {}
    aggregated: set[str] = set()
    errors: dict[str, ErrorList] = {}
    file_errors = ErrorList(path)  # entries that belong to no benchmark known
    for position, entry in enumerate(document["benchmarks"], start=1):
        if not isinstance(entry, dict):
            file_errors.add(f"entry #{position} of 'benchmarks' is not a JSON object")
            continue
        name = entry.get("run_name") or entry.get("name") or f"entry #{position}"
        if not isinstance(name, str):
            file_errors.add(f"entry #{position} of 'benchmarks': its name {json_repr(name)} is "
                            "not a string")
            continue
        kind = entry.get("aggregate_name")
        if "run_name" not in entry:  # older versions: an aggregate is named NAME_mean
            base, _, suffix = name.rpartition("_")
            if kind is not None and suffix == kind:
                name = base
            elif "run_type" not in entry and (
                    suffix in _COMPLEXITY or (suffix in _AGGREGATES and base in repetitions)):
                name, kind = base, suffix
        if kind in _COMPLEXITY:
            continue  # the fit of a complexity family (->Complexity()), not a benchmark
        if name not in repetitions:
            order.append(name)
            repetitions[name], errors[name] = [], ErrorList(path)
        if entry.get("run_type") == "aggregate" or kind is not None:
            aggregated.add(name)
        elif entry.get("error_occurred"):
            index = entry.get("repetition_index")
            number = index + 1 if isinstance(index, int) and not isinstance(index, bool) else "?"
            message = entry.get("error_message", "no message")
            message = json_repr(message, 120) if isinstance(message, str) else json_repr(message)
            errors[name].add(f"benchmark {named(name)} failed in repetition {number}: {message}")
        else:
            repetitions[name].append(entry)
    samples = []
    for name in order:
        errors_of = errors[name]
        times = []
        for number, entry in enumerate(repetitions[name], start=1):
            where = f"benchmark {named(name)}, repetition {number}"
            factor = time_factor(entry.get("time_unit", "ns"), errors_of, where)
            problem = value_problem(entry.get(field))
            if problem is None and factor is not None:
                seconds, problem = in_seconds(entry[field], factor)
                if seconds is not None:
                    times.append(seconds)
            if problem:
                errors_of.add(f"{where}: {field} {problem}")
        if not repetitions[name] and not errors_of:
            errors_of.add(f"benchmark {named(name)} has aggregate rows only (mean, median, …), no "
                          "repetitions: run it with --benchmark_repetitions=N (N ≥ 3) and "
                          "without --benchmark_report_aggregates_only")
        notes = [f"{len(times)} repetitions, {time} time"]
        if name in aggregated:
            notes.append("aggregate rows left out")
        samples.append(make_sample(path, name, times, ("repetition",), errors_of, notes))
    return SourceFile(path, "Google Benchmark", tuple(mark_duplicates(samples, "benchmark")),
                      errors=file_errors.result())

"""pytest-benchmark result files (``pytest --benchmark-json FILE``, and the files of
``--benchmark-save``/``--benchmark-autosave`` under ``.benchmarks/``).

``{"machine_info", "commit_info", "benchmarks": [{"name", "fullname", "params", "options",
"stats": {"min", "mean", …, "rounds", "iterations", "data": [...]}}], "datetime",
"version"}``: one entry per benchmarked test. ``stats.data`` holds the time of each round in
seconds, already divided by the round's ``iterations`` (a mean per call); all rounds run one
after the other in the pytest process, after calibration and the warm-up rounds, which are
not written. Levels: round.

``--benchmark-json`` always writes ``data``; the files of ``--benchmark-save`` hold it only
with ``--benchmark-save-data``: without it there are summary statistics only, which cannot be
analysed (an error that says so).

A benchmark is named by its test's name (``test_sort[100]``); a name that two test files
share is qualified by its file: ``test_sort [tests/test_a.py]``.

Reference: pytest-benchmark's documentation ("Usage": ``--benchmark-json``,
``--benchmark-save-data``) and ``pytest_benchmark/stats.py``.
"""

from __future__ import annotations

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    disambiguate,
    json_repr,
    make_sample,
    mark_duplicates,
    named,
    value_problem,
)


def looks_like(document: dict) -> bool:
    benchmarks = document.get("benchmarks")
    return isinstance(benchmarks, list) and (
        "machine_info" in document or "commit_info" in document
        or any(isinstance(b, dict) and "fullname" in b and "stats" in b for b in benchmarks[:8]))


def _benchmark(entry: object, position: int, path: str):
    errors = ErrorList(path)
    if not isinstance(entry, dict):
        errors.add(f"benchmark #{position}: {json_repr(entry)} is not a JSON object")
        return make_sample(path, f"benchmark #{position}", [], ("round",), errors)
    name = entry.get("name")
    name = name if isinstance(name, str) and name else f"benchmark #{position}"
    where = f"benchmark {named(name)}"
    stats = entry.get("stats")
    if not isinstance(stats, dict):
        errors.add(f"{where}: no 'stats' object")
        return make_sample(path, name, [], ("round",), errors)
    data = stats.get("data")
    if data is None:
        errors.add(f"{where}: the file holds summary statistics only (mean, stddev, …), not the "
                   "time of each round: write it with pytest --benchmark-json FILE, or add "
                   "--benchmark-save-data to --benchmark-save/--benchmark-autosave")
        return make_sample(path, name, [], ("round",), errors)
    if not isinstance(data, list):
        errors.add(f"{where}: 'data' {json_repr(data)} is not a list")
        return make_sample(path, name, [], ("round",), errors)
    for index, value in enumerate(data, start=1):
        problem = value_problem(value)
        if problem:
            errors.add(f"{where}, round {index}: {problem}")
    iterations = stats.get("iterations")
    notes = [f"{len(data)} rounds"
             + (f", each a mean over {iterations:,} iterations"
                if isinstance(iterations, int) and not isinstance(iterations, bool)
                and iterations > 1 else "")]
    return make_sample(path, name, data, ("round",), errors, notes)


def _test_file(entry: object) -> str:
    """What tells apart tests of the same name: the file of ``fullname``."""
    if not isinstance(entry, dict) or not isinstance(entry.get("fullname"), str):
        return ""
    return entry["fullname"].partition("::")[0]


def parse(document: dict, path: str) -> SourceFile:
    entries = document["benchmarks"]
    samples = [_benchmark(entry, position, path)
               for position, entry in enumerate(entries, start=1)]
    samples = disambiguate(samples, [_test_file(entry) for entry in entries])
    return SourceFile(path, "pytest-benchmark", tuple(mark_duplicates(samples, "benchmark")))

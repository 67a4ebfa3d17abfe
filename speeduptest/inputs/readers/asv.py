"""asv (airspeed velocity) result files: ``.asv/results/MACHINE/COMMIT-ENVIRONMENT.json``, one
per commit and environment, written by ``asv run --record-samples``.

``{"commit_hash", "env_name", "params", "result_columns": ["result", "params", "version",
"started_at", "duration", "stats_ci_99_a", …, "stats_number", "stats_repeat", "samples",
…], "results": {NAME: [one value per column]}, "version": 2}``. For a parameterised
benchmark ``params`` lists the values of each parameter, and ``result``, ``samples`` and the
statistics hold one entry per combination, in the order of their Cartesian product. Each
sample is a time in seconds, already divided by ``stats_number`` (the calls timed together);
asv takes them in several processes (``rounds``) and does not write which process took
which, so they are read as independent samples. Warm-up runs are not written. Levels:
sample.

A benchmark is named as ``asv compare`` names it: ``benchmarks.TimeSort.time_sorted`` and,
per combination of parameters, ``benchmarks.TimeSort.time_sorted(100, 'list')``. Only timing
benchmarks (``time_*``, ``timeraw_*``) are read; ``mem_*``, ``peakmem_*`` and ``track_*``
benchmarks hold one value each, no samples, and are left out (a warning lists them).
Without ``--record-samples`` only the summaries are written: an error that says so. The
older format (version 1: ``results`` of objects with ``result``, ``params``, ``samples``) is
read as well.

Reference: asv's documentation ("Benchmark types and attributes", "asv run
--record-samples") and ``asv/results.py``.
"""

from __future__ import annotations

import itertools

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    json_repr,
    make_sample,
    mark_duplicates,
    named,
    value_problem,
)
from speeduptest.notices import Notice, counted, first_names

_TIMING = ("time_", "timeraw_")


def looks_like(document: dict) -> bool:
    return isinstance(document.get("results"), dict) and (
        "commit_hash" in document or "env_name" in document or "result_columns" in document)


def is_benchmark_list(document: dict) -> bool:
    """asv's ``results/benchmarks.json``: what each benchmark is, no result."""
    entries = [value for key, value in document.items() if key != "version"]
    return bool(entries) and all(isinstance(v, dict) and "code" in v and "type" in v
                                 for v in entries[:8])


def _columns(document: dict, name: str, entry: object) -> tuple[dict, str | None]:
    """A benchmark's results as {column: value}, or why they cannot be read."""
    if isinstance(entry, dict):  # version 1
        return entry, None
    columns = document.get("result_columns")
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        return {}, "the file has no 'result_columns' list"
    if not isinstance(entry, list):
        return {}, f"its results {json_repr(entry)} are not a list"
    return dict(zip(columns, entry, strict=False)), None


def _combinations(params: object) -> list[str] | None:
    """The shown parameters of each combination, in asv's order; None when not a list of
    lists."""
    if params in (None, []):
        return [""]
    if not isinstance(params, list) or not all(isinstance(p, list) for p in params):
        return None
    return ["(" + ", ".join(str(value) for value in values) + ")"
            for values in itertools.product(*params)]


def _benchmark(document: dict, name: str, entry: object, path: str) -> list:
    errors = ErrorList(path)
    where = f"benchmark {named(name)}"
    results, problem = _columns(document, name, entry)
    if problem:
        errors.add(f"{where}: {problem}")
        return [make_sample(path, name, [], ("sample",), errors)]
    combinations = _combinations(results.get("params"))
    if combinations is None:
        errors.add(f"{where}: its 'params' {json_repr(results.get('params'))} are not lists of "
                   "values")
        return [make_sample(path, name, [], ("sample",), errors)]
    samples_of = results.get("samples")
    if samples_of is None:
        errors.add(f"{where}: the file holds its summary only (the median and quartiles), not "
                   "its samples: run asv with --record-samples")
        return [make_sample(path, name + shown, [], ("sample",), errors)
                for shown in combinations[:1]]
    if not isinstance(samples_of, list) or len(samples_of) != len(combinations):
        errors.add(f"{where}: 'samples' {json_repr(samples_of)} is not a list of one entry per "
                   f"combination of parameters ({len(combinations)})")
        return [make_sample(path, name, [], ("sample",), errors)]
    numbers = results.get("stats_number")
    built = []
    for position, (shown, samples) in enumerate(zip(combinations, samples_of, strict=True)):
        label = name + shown
        errors_of = ErrorList(path)
        here = f"benchmark {named(label)}"
        if samples is None:
            errors_of.add(f"{here}: no samples (the benchmark failed or was skipped in this "
                          "run)")
            built.append(make_sample(path, label, [], ("sample",), errors_of))
            continue
        if not isinstance(samples, list):
            errors_of.add(f"{here}: its samples {json_repr(samples)} are not a list")
            built.append(make_sample(path, label, [], ("sample",), errors_of))
            continue
        for index, value in enumerate(samples, start=1):
            problem = value_problem(value)
            if problem:
                errors_of.add(f"{here}, sample {index}: {problem}")
        number = numbers[position] if isinstance(numbers, list) and len(numbers) > position \
            else None
        notes = [f"{len(samples)} samples"
                 + (f", each a mean over {number:,} calls" if isinstance(number, int)
                    and not isinstance(number, bool) and number > 1 else "")]
        built.append(make_sample(path, label, samples, ("sample",), errors_of, notes))
    return built


def parse(document: dict, path: str) -> SourceFile:
    samples, untimed = [], []
    for name, entry in document["results"].items():
        if not name.rpartition(".")[2].startswith(_TIMING):
            untimed.append(name)
            continue
        samples += _benchmark(document, name, entry, path)
    notices = (Notice(
        "untimed-benchmarks-left-out",
        f"{path}: {counted(len(untimed), 'benchmark')} of asv that time nothing (mem_, "
        f"peakmem_, track_) {'was' if len(untimed) == 1 else 'were'} left out: "
        f"{first_names(untimed, 12)}.",
        "Only timing benchmarks (time_*) have samples to compare."),) if untimed else ()
    if not samples:
        return SourceFile(path, "asv", (), problem=(
            "holds no timing benchmark (time_*) of asv" + (f"; only {first_names(untimed, 6)}"
                                                           if untimed else "")))
    return SourceFile(path, "asv", tuple(mark_duplicates(samples, "benchmark")),
                      notices=notices)

"""JMH result files (``-rf json -rff FILE``).

A list with one entry per benchmark and parameter combination: ``benchmark`` (the method's
full name), ``params``, ``mode`` and ``primaryMetric`` with ``scoreUnit`` and ``rawData``, one
list per fork of the measurement iterations' scores (warm-up iterations are not in it). In
sample-time mode the scores are in ``rawDataHistogram`` instead (per fork, per iteration,
``[value, count]`` pairs): an iteration's score is then the mean of its histogram. Throughput
scores (``ops/s``) are turned into the time per operation (``1 / score``), so that every mode
gives execution times. Levels: fork › iteration.

Reference: JMH, ``org.openjdk.jmh.results.format.JSONResultFormat``.
"""

from __future__ import annotations

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    disambiguate,
    in_seconds,
    json_repr,
    make_sample,
    mark_duplicates,
    named,
    value_problem,
)
from speeduptest.inputs.readers.units import seconds_per
from speeduptest.inputs.samples import shortened

#: The largest count of a histogram bin taken (beyond it, counts lose precision as floats).
MAX_COUNT = 2**53


def _text(value: object) -> str:
    return value if isinstance(value, str) else json_repr(value)


def _name(entry: dict, position: int) -> str:
    name = entry.get("benchmark")
    name = name if isinstance(name, str) and name else f"entry #{position}"
    params = entry.get("params")
    if isinstance(params, dict) and params:
        name += " [" + ", ".join(f"{key}={_text(value)}" for key, value in params.items()) + "]"
    return name


def _conversion(unit: object) -> tuple[float, bool] | None:
    """(seconds per unit of time, is a rate) for ``ms/op`` or ``ops/ms``; None if neither."""
    if not isinstance(unit, str) or "/" not in unit:
        return None
    numerator, denominator = (part.strip() for part in unit.split("/", 1))
    if denominator == "op" and seconds_per(numerator):
        return seconds_per(numerator), False
    if numerator == "ops" and seconds_per(denominator):
        return seconds_per(denominator), True
    return None


def _histogram_mean(histogram: object) -> tuple[float | None, str | None]:
    """The mean of one iteration's ``[[value, count], …]`` histogram, or what is wrong."""
    if not isinstance(histogram, list) or not histogram:
        return None, f"{json_repr(histogram)} is not a list of [value, count] pairs"
    total = weight = 0.0
    for pair in histogram:
        if not isinstance(pair, list) or len(pair) != 2:
            return None, f"{json_repr(pair)} is not a [value, count] pair"
        value, count = pair
        problem = value_problem(value)
        if problem:
            return None, problem
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_COUNT:
            return None, f"count {json_repr(count)} is not a whole number ≥ 0"
        total += value * count
        weight += count
    if weight == 0:
        return None, "its counts are all 0"
    return total / weight, None


def _iterations(metric: dict, where: str, errors: ErrorList) -> list[list[float]]:
    """The raw score of every measurement iteration, per fork."""
    if isinstance(metric.get("rawData"), list):
        forks = metric["rawData"]
    elif isinstance(metric.get("rawDataHistogram"), list):
        forks = []
        for number, fork in enumerate(metric["rawDataHistogram"], start=1):
            if not isinstance(fork, list):
                errors.add(f"{where}: rawDataHistogram fork {number} is not a list")
                continue
            scores = []
            for index, histogram in enumerate(fork, start=1):
                score, problem = _histogram_mean(histogram)
                if problem:
                    errors.add(f"{where}, fork {number}, iteration {index}: rawDataHistogram "
                               f"{problem}")
                else:
                    scores.append(score)
            forks.append(scores)
    else:
        errors.add(f"{where}: no rawData (the per-iteration scores) in primaryMetric")
        return []
    if not all(isinstance(fork, list) for fork in forks):
        errors.add(f"{where}: rawData is not a list of forks")
        return []
    for number, fork in enumerate(forks, start=1):
        for index, score in enumerate(fork, start=1):
            problem = value_problem(score)
            if problem:
                errors.add(f"{where}, fork {number}, iteration {index}: {problem}")
    return forks


def _benchmark(entry: object, position: int, path: str):
    errors = ErrorList(path)
    if not isinstance(entry, dict) or not isinstance(entry.get("primaryMetric"), dict):
        errors.add(f"entry #{position}: not a JMH result (no primaryMetric)")
        return make_sample(path, f"entry #{position}", [], ("fork", "iteration"), errors)
    name = _name(entry, position)
    where = f"benchmark {named(name)}"
    metric = entry["primaryMetric"]
    conversion = _conversion(metric.get("scoreUnit"))
    if conversion is None:
        errors.add(f"{where}: score unit {json_repr(metric.get('scoreUnit'))} is neither a "
                   "time per operation nor operations per time")
    forks = _iterations(metric, where, errors)
    if errors:
        return make_sample(path, name, [], ("fork", "iteration"), errors)
    factor, rate = conversion
    times = []
    for number, fork in enumerate(forks, start=1):
        times.append([])
        for index, score in enumerate(fork, start=1):
            seconds, problem = in_seconds(score, factor, rate)
            if problem:
                errors.add(f"{where}, fork {number}, iteration {index}: {problem}")
            else:
                times[-1].append(seconds)
    mode = entry.get("mode", "?")
    shown = shortened(mode) if isinstance(mode, str) else _text(mode)
    notes = [f"{len(times)} forks, mode {shown}"]
    if rate:
        notes.append(f"throughput ({metric['scoreUnit']}) turned into time per operation")
    return make_sample(path, name, times, ("fork", "iteration"), errors, notes)


def parse(document: list, path: str) -> SourceFile:
    samples = [_benchmark(entry, position, path)
               for position, entry in enumerate(document, start=1)]
    modes = [entry.get("mode") if isinstance(entry, dict) else "" for entry in document]
    samples = disambiguate(samples, [mode if isinstance(mode, str) else "" for mode in modes])
    return SourceFile(path, "JMH", tuple(mark_duplicates(samples, "benchmark")))

"""Go benchmark results: the text ``go test -bench`` prints (the Go benchmark format, which
benchstat reads).

A result line is ``BenchmarkName[/sub…][-P] ITERATIONS VALUE UNIT [VALUE UNIT …]``: one run of
the benchmark (``-count N`` gives N lines per benchmark, all in one process). Each value is
already a mean over the run's ITERATIONS calls. The pairs are metrics: ``ns/op`` (time per
call), ``MB/s`` (``b.SetBytes``), ``B/op`` and ``allocs/op`` (``-benchmem``,
``b.ReportAllocs``) and any unit of ``b.ReportMetric``. One metric is read (``--metric``):
by default the time per call, converted to seconds; ``MB/s`` is read as the time per MB
(1/value, as a throughput of JMH); any other metric as written, without a unit. Levels: run.

Configuration lines (``key: value``, a key in lower case: ``goos:``, ``goarch:``, ``pkg:``,
``cpu:``) apply to the result lines after them; a ``pkg:`` line starts a new package (``go
test ./...`` prints one block per package). They are kept as a note of each benchmark.

Names, as benchstat pairs them:
- the ``-P`` suffix (GOMAXPROCS, left out by Go when it is 1) is left out of every name when
  all the result lines of the file carry the same one, so that runs on machines with a
  different number of cores pair; when they differ (``-cpu 1,2,4``) each name keeps its
  suffix, as written;
- a benchmark name that two packages of the file share is qualified by its package:
  ``BenchmarkParse [example.com/m/pkg]``; a name of one package only is not.

Every other line (``PASS``, ``ok``, the benchmarks' own output, ``--- BENCH:`` logs) is
left out; a ``--- FAIL:`` line makes its benchmark an error.

Reference: the Go benchmark data format (Go proposal 14313), ``golang.org/x/perf/benchfmt``.
"""

from __future__ import annotations

import dataclasses
import re

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    cut_last_line,
    in_seconds,
    make_sample,
    named,
    quote,
)
from speeduptest.inputs.readers.units import SECONDS, seconds_per
from speeduptest.inputs.samples import MAX_NAME, decimal, physical_lines, shortened
from speeduptest.notices import Notice, counted, first_names

#: The metric read when none is chosen: the time per call (``ns/op``, or ``sec/op`` as
#: benchstat writes it).
TIME_PER_OP = "ns/op"

# "Benchmark" then the end of the name or a character that is not lower case (Go's testing
# runs BenchmarkX and Benchmark_x, not Benchmarkx), then the iteration count.
_RESULT = re.compile(r"Benchmark(?![a-z])\S*[ \t]+[0-9]+(?:[ \t]|$)")
_NAME = re.compile(r"Benchmark(?![a-z])\S*")
_CONFIG = re.compile(r"([a-z][^\sA-Z:]*):(?:[ \t]+(.*))?$")
_PROCS = re.compile(r"-([0-9]+)$")
_FAILED = re.compile(r"--- FAIL: (Benchmark\S*)")
#: Configuration keys that only Go's tools write at the start of a file: one of them first
#: makes a file Go results even before its first result line.
_GO_KEYS = ("goos", "goarch", "pkg", "cpu")
#: Characters of a configuration value kept in a note.
_VALUE_SHOWN = 60


def looks_like(text: str) -> bool:
    """Whether the text is Go benchmark results: a result line, or a first line that is one
    of the configuration lines ``go test`` writes, within its first 64 KiB."""
    first = True
    for line in text[:65536].splitlines():
        if not line.strip():
            continue
        if first:
            match = _CONFIG.match(line)
            if match and match.group(1) in _GO_KEYS:
                return True
            first = False
        if _RESULT.match(line):
            return True
    return False


def _is_time(unit: str) -> bool:
    return unit.endswith("/op") and seconds_per(unit[:-3]) is not None


def _is_rate(unit: str) -> bool:
    """A throughput: an amount per second (``MB/s``)."""
    amount, slash, per = unit.rpartition("/")
    return bool(slash and amount) and seconds_per(per) is not None


def _wanted(unit: str, metric: str | None) -> bool:
    if metric is None or _is_time(metric):
        return _is_time(unit)
    return unit == metric


class _Benchmark:
    """The result lines of one benchmark (name as written, package) read so far."""

    def __init__(self, name: str, package: str, config: dict[str, str], path: str) -> None:
        self.name = name
        self.package = package
        self.config = dict(config)
        self.values: list[float] = []
        self.iterations: list[int] = []
        self.units: set[str] = set()
        self.lacking = 0  # result lines without the metric
        self.zeros = 0  # result lines whose metric is 0 (allocs/op of code that allocates none)
        self.errors = ErrorList(path)


def _metric_value(benchmark: _Benchmark, pairs: list[str], number: int,
                  metric: str | None) -> None:
    """Record the chosen metric of a result line's VALUE UNIT pairs, or why it cannot be."""
    where = f"benchmark {named(benchmark.name)}"
    found = False
    for value_text, unit in zip(pairs[0::2], pairs[1::2], strict=True):
        benchmark.units.add(unit)
        if found or not _wanted(unit, metric):
            continue
        found = True
        value = decimal(value_text)
        if value is None:
            benchmark.errors.add(f"{where}: {quote(value_text)} {quote(unit)} is not a number",
                                 number)
            continue
        if _is_time(unit):
            seconds, problem = in_seconds(value, seconds_per(unit[:-3])) if value > 0 else (
                None, f"{value_text} {unit} is not a valid time (it must be > 0)")
        elif _is_rate(unit):
            seconds, problem = in_seconds(value, 1.0, rate=True) if value > 0 else (
                None, f"{value_text} {unit} is not a valid throughput (it must be > 0)")
        elif value > 0 and value < float("inf"):
            seconds, problem = value, None
        elif value == 0:
            benchmark.zeros += 1
            continue
        else:
            seconds, problem = None, (f"{value_text} {unit} cannot be compared as a ratio (it "
                                      "must be > 0)")
        if problem is not None:
            benchmark.errors.add(f"{where}: {problem}", number)
        else:
            benchmark.values.append(seconds)
    if not found:
        benchmark.lacking += 1


def _names(benchmarks: list[_Benchmark]) -> tuple[list[str], str | None]:
    """Each benchmark's name as shown (see the module's docstring), and the GOMAXPROCS left
    out of them (None when kept)."""
    suffixes = {match.group(1) if (match := _PROCS.search(b.name)) else None
                for b in benchmarks}
    procs = next(iter(suffixes)) if len(suffixes) == 1 else None
    bare = [b.name[: -len(procs) - 1] if procs else b.name for b in benchmarks]
    packages: dict[str, set[str]] = {}
    for name, benchmark in zip(bare, benchmarks, strict=True):
        packages.setdefault(name, set()).add(benchmark.package)
    return [f"{name} [{benchmark.package}]" if len(packages[name]) > 1 else name
            for name, benchmark in zip(bare, benchmarks, strict=True)], procs


def _config_note(config: dict[str, str]) -> str | None:
    if not config:
        return None
    return "configuration: " + ", ".join(
        f"{key} {shortened(value, _VALUE_SHOWN)}" for key, value in config.items())


def _metric_name(metric: str | None, units: set[str]) -> str:
    if metric is not None and not _is_time(metric):
        return metric
    return next((unit for unit in sorted(units) if _is_time(unit)), TIME_PER_OP)


def parse(text: str, path: str, metric: str | None = None) -> SourceFile:
    """The benchmarks of a Go benchmark text; ``metric``: the unit of the metric read (None:
    the time per call)."""
    lines = physical_lines(text)
    complete = text.endswith(("\n", "\r"))
    config: dict[str, str] = {}
    package = ""
    benchmarks: dict[tuple[str, str], _Benchmark] = {}
    failed: dict[tuple[str, str], int] = {}
    notices: list[Notice] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        match = _CONFIG.match(line)
        if match and not line.startswith("Benchmark"):
            key, value = match.group(1), (match.group(2) or "").strip()
            if key == "pkg":
                package = value
            config[key] = value
            continue
        failure = _FAILED.match(line.strip())
        if failure:
            failed.setdefault((failure.group(1), package), number)
            continue
        if not _RESULT.match(line):
            continue
        fields = line.split()
        name, iterations, pairs = fields[0], fields[1], fields[2:]
        if number == len(lines) and not complete and (len(pairs) < 2 or len(pairs) % 2):
            notices.append(cut_last_line(path, number, f"benchmark {named(name)}"))
            continue
        key = (name, package)
        if key not in benchmarks:
            benchmarks[key] = _Benchmark(name, package, config, path)
        benchmark = benchmarks[key]
        if len(pairs) < 2 or len(pairs) % 2:
            benchmark.errors.add(
                f"benchmark {named(name)}: {len(fields)} fields; a result line is NAME "
                "ITERATIONS then pairs VALUE UNIT (the line is cut?)", number)
            continue
        count = int(iterations) if len(iterations) <= 18 else 0
        if count == 0:
            benchmark.errors.add(f"benchmark {named(name)}: {quote(iterations)} is not a "
                                 "count of iterations (1 or more)", number)
            continue
        benchmark.iterations.append(count)
        _metric_value(benchmark, pairs, number, metric)
    for (name, package), number in failed.items():
        key = next((k for k in benchmarks if k[1] == package and (
            k[0] == name or _PROCS.sub("", k[0]) == _PROCS.sub("", name))), None)
        if key is None:
            key = (name, package)
            benchmarks[key] = _Benchmark(name, package, config, path)
        benchmarks[key].errors.add(
            f"benchmark {named(benchmarks[key].name)} failed (--- FAIL): its results are "
            "not used", number)
    if not benchmarks:
        return SourceFile(path, "Go", (), problem=(
            "holds no Go benchmark result line (BenchmarkName ITERATIONS VALUE ns/op …): was "
            "it written by go test -bench?"))
    names, procs = _names(list(benchmarks.values()))
    shown = {id(b): name for b, name in zip(benchmarks.values(), names, strict=True)}
    chosen = metric or TIME_PER_OP
    measured, lacking, zero = [], [], []
    for benchmark in benchmarks.values():
        if benchmark.errors or (benchmark.values and not benchmark.zeros):
            measured.append(benchmark)
        elif benchmark.zeros and not benchmark.values:
            zero.append(shown[id(benchmark)])
        elif benchmark.zeros:
            benchmark.errors.add(f"benchmark {named(benchmark.name)}: {chosen} is 0 in "
                                 f"{benchmark.zeros} of its runs: no ratio can be formed")
            measured.append(benchmark)
        elif not benchmark.lacking:
            measured.append(benchmark)
        else:
            lacking.append(shown[id(benchmark)])
    if not measured:
        units = sorted({unit for b in benchmarks.values() for unit in b.units})
        zeros = f"; it is 0 in every run of {first_names(zero, 12)}" if zero else ""
        return SourceFile(path, "Go", (), problem=(
            f"no benchmark reports the metric {quote(chosen, MAX_NAME)} with values > 0 "
            f"(the file holds: {', '.join(units[:12])}){zeros}; choose one with --metric"))
    if lacking:
        notices.append(Notice(
            "metric-not-reported",
            f"{path}: {counted(len(lacking), 'benchmark')} do not report "
            f"{quote(chosen, MAX_NAME)} and were left out: {first_names(lacking, 12)}.",
            "Choose another metric with --metric, or report this one in every benchmark."))
    if zero:
        notices.append(Notice(
            "metric-zero",
            f"{path}: {counted(len(zero), 'benchmark')} report {quote(chosen, MAX_NAME)} = 0 in "
            f"every run and were left out (a ratio to 0 is not defined): "
            f"{first_names(zero, 12)}.",
            "Nothing to compare there: both sides at 0 are the same."))
    samples = []
    for benchmark in measured:
        unit = _metric_name(metric, benchmark.units)
        if benchmark.lacking and not benchmark.errors:
            benchmark.errors.add(f"benchmark {named(benchmark.name)}: {benchmark.lacking} of "
                                 f"its result lines do not report {unit}")
        rate = _is_rate(unit)
        what = f"{unit} read as seconds per {unit.rpartition('/')[0]} (1/value)" if rate else (
            f"{unit} in seconds" if _is_time(unit) else f"{unit}, not a time: as written")
        low, high = min(benchmark.iterations, default=0), max(benchmark.iterations, default=0)
        mean_over = f"{low:,}" + (f"–{high:,}" if high > low else "")
        notes = [f"{counted(len(benchmark.values), 'run')} of {what}, each a mean over its "
                 f"{mean_over} iterations"]
        if procs:
            notes.append(f"GOMAXPROCS {procs}: the -{procs} suffix of the names left out")
        config_note = _config_note(benchmark.config)
        if config_note:
            notes.append(config_note)
        sample = make_sample(path, shown[id(benchmark)], benchmark.values, ("run",),
                             benchmark.errors, notes)
        samples.append(sample if _is_time(unit) or rate
                       else dataclasses.replace(sample, unit=None))
    return SourceFile(path, "Go", tuple(samples), notices=tuple(notices))


__all__ = ["SECONDS", "TIME_PER_OP", "looks_like", "parse"]

"""Catch2 XML reports (``--reporter xml``) of benchmarks (``BENCHMARK`` with
``CATCH_CONFIG_ENABLE_BENCHMARKING``), one report per run of the test program.

Each benchmark of a report is a ``<BenchmarkResults name samples resamples iterations …>``
element whose children are the *summary* of its samples: ``<mean value lowerBound upperBound
ci>``, ``<standardDeviation …>`` and ``<outliers …>`` (times in nanoseconds), or ``<failed
message>``. The samples themselves are never written, in Catch2 2.x (the root element
``<Catch>``) as in 3.x (``<Catch2TestRun>``; its JSON reporter writes no benchmark at all).

So each run of the test program is one measurement, as each ``-count`` run of a Go benchmark
is (Kalibera & Jones's level of executions): the benchmark's ``mean value`` in that run,
converted to seconds. Levels: run. Catch2's mean is the plain mean of the run's samples, with
or without ``--benchmark-no-analysis`` (which only skips Catch2's bootstrap).

Several runs are given either as one file holding their reports one after the other (what
``for i in $(seq 10); do ./bench --reporter xml; done > initial.xml`` writes: each report
starts with its ``<?xml …?>`` declaration), or as a folder of files, one report per file
(``--out DIR/run-$i.xml``): its ``*.xml`` files are read in the order of their names, numbers
compared as numbers (``run-2`` before ``run-10``). Runs are numbered in that order.

A file of fewer than 3 runs is refused with the command that writes enough. Within a file:

- a benchmark that failed (``<failed message>``), whose mean is not a time, that a run reports
  twice, or whose result a damaged report lost, is an error located at its line;
- a report that ends early is the last run cut (the loop interrupted): a warning, and its
  unfinished benchmark left out; a report that ends early followed by another (the program
  stopped mid-run) is damage;
- a benchmark missing from some runs, and runs with different numbers of samples
  (``--benchmark-samples``), are warnings; the number of iterations per sample, which Catch2
  calibrates in each run, is noted.

Names are as Catch2 writes them; a name that several test cases (or sections) share is
qualified by its test case: ``sort [sorting / large]``. The program's name (the root's
``name``) and Catch2's version (``catch2-version``, 3.x only) are kept as a note.

The XML is read by expat without any DTD processing: a document that declares entities is
refused (no entity expansion, no external entity fetched).

Reference: Catch2's documentation ("Authoring benchmarks", "Reporters", "Command line":
``--benchmark-samples``, ``--benchmark-no-analysis``, ``--out``) and its XML reporter
(``XmlReporter::benchmarkPreparing``, ``benchmarkStarting``, ``benchmarkEnded``,
``benchmarkFailed``); Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013).
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import os
import re
import shlex
import xml.parsers.expat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from speeduptest.inputs.readers.common import (
    MIN_GROUPS,
    ErrorList,
    SourceFile,
    in_seconds,
    make_sample,
    named,
    quote,
)
from speeduptest.inputs.samples import MAX_NAME, decimal, shortened
from speeduptest.notices import Notice, counted, first_names

FORMAT = "Catch2"
_ROOTS = ("<Catch ", "<Catch>", "<Catch2TestRun")
_ROOT_TAGS = ("Catch", "Catch2TestRun")
#: Where a report starts: its XML declaration (Catch2 always writes one).
_DECLARATION = re.compile(r"<\?xml(?=[ \t\r\n])")
_LINE_END = re.compile(r"\r\n|\r|\n")
#: Errors that expat raises only at the end of its input: the report ends early.
_ENDS_EARLY = frozenset(xml.parsers.expat.errors.codes[message] for message in (
    xml.parsers.expat.errors.XML_ERROR_NO_ELEMENTS,
    xml.parsers.expat.errors.XML_ERROR_UNCLOSED_TOKEN,
    xml.parsers.expat.errors.XML_ERROR_PARTIAL_CHAR,
    xml.parsers.expat.errors.XML_ERROR_UNCLOSED_CDATA_SECTION))
#: Runs advised in the messages (fewer than MIN_GROUPS are refused).
ADVISED_RUNS = 10
#: Files looked at in a folder, at most.
MAX_ENTRIES = 100_000


def looks_like(text: str) -> bool:
    head = text[:4096]
    return head.lstrip().startswith("<") and any(root in head for root in _ROOTS)


class _Refused(Exception):
    """A report that is not read at all (it declares entities)."""


class _NotCatch2(Exception):
    """A report whose root element is not Catch2's."""

    def __init__(self, line: int, tag: str) -> None:
        super().__init__(line, tag)
        self.line, self.tag = line, tag


@dataclass(slots=True)
class _Result:
    """One ``<BenchmarkResults>`` of one run, as written."""

    name: str
    place: tuple[str, ...]  # its test case, then its sections
    line: int
    samples: str | None
    iterations: str | None
    mean: str | None = None
    mean_line: int | None = None
    failed: str | None = None
    failed_line: int | None = None
    ended: bool = False  # its end tag was read

    @property
    def key(self) -> tuple[tuple[str, ...], str]:
        return self.place, self.name


@dataclass(slots=True)
class _Damage:
    """Where a report stops being well-formed XML."""

    line: int
    column: int
    message: str
    ends_early: bool  # the input ended inside the report


@dataclass(slots=True)
class _Run:
    """One report: one run of the test program."""

    number: int
    path: str  # its file (a folder's runs each have their own)
    line: int  # the line where it starts
    last: bool = False  # the last run of the source
    root: str | None = None  # Catch (2.x) or Catch2TestRun (3.x)
    program: str | None = None
    version: str | None = None
    results: list[_Result] = field(default_factory=list)
    damage: _Damage | None = None

    @property
    def cut(self) -> bool:
        """The source ends inside this run: the loop that wrote it was interrupted."""
        return self.last and self.damage is not None and self.damage.ends_early


def _read_report(text: str, run: _Run) -> None:
    """Fill ``run`` from the text of its report (lines counted from ``run.line``)."""
    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    place: list[str] = []
    opened: list[bool] = []  # per open element: whether it added to ``place``
    offset = run.line - 1

    def start(tag: str, attributes: dict[str, str]) -> None:
        line = offset + parser.CurrentLineNumber
        if not opened and tag not in _ROOT_TAGS:
            raise _NotCatch2(line, tag)
        if not opened:
            run.root = tag
            run.program = attributes.get("name") or None
            run.version = attributes.get("catch2-version") or None
        pushed = tag in ("TestCase", "Section")
        if pushed:
            place.append(attributes.get("name", ""))
        opened.append(pushed)
        current = run.results[-1] if run.results and not run.results[-1].ended else None
        if tag == "BenchmarkResults":
            run.results.append(_Result(attributes.get("name", ""), tuple(place), line,
                                       attributes.get("samples"), attributes.get("iterations")))
        elif tag == "mean" and current is not None and current.mean is None:
            current.mean, current.mean_line = attributes.get("value", ""), line
        elif tag == "failed" and current is not None and current.failed is None:
            current.failed, current.failed_line = attributes.get("message", ""), line

    def end(tag: str) -> None:
        if opened.pop():
            place.pop()
        if tag == "BenchmarkResults" and run.results and not run.results[-1].ended:
            run.results[-1].ended = True

    def no_entities(*_: object) -> None:
        raise _Refused

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.EntityDeclHandler = no_entities
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as error:
        run.damage = _Damage(offset + error.lineno, error.offset + 1,
                             xml.parsers.expat.ErrorString(error.code),
                             error.code in _ENDS_EARLY)
    except _NotCatch2 as error:
        run.damage = _Damage(error.line, 1, f"its root element is <{shortened(error.tag)}>, "
                             "not Catch2's <Catch> or <Catch2TestRun>", False)


def _reports(text: str) -> list[tuple[int, str]]:
    """The reports of a text, one after the other: (line where each starts, its text). Each
    starts at its XML declaration; text before the first one is a report of its own unless
    it is blank."""
    starts = [match.start() for match in _DECLARATION.finditer(text)]
    if not starts or text[: starts[0]].strip():
        starts.insert(0, 0)
    reports, line, previous = [], 1, starts[0]
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        line += len(_LINE_END.findall(text, previous, start))
        reports.append((line, text[start:end]))
        previous = start
    return reports


def _runs(texts: list[tuple[str, str]]) -> list[_Run]:
    """Every run of the (path, text) given, in order; raises ``_Refused``."""
    runs: list[_Run] = []
    for path, text in texts:
        for line, report in _reports(text):
            run = _Run(len(runs) + 1, path, line)
            _read_report(report, run)
            runs.append(run)
    if runs:
        runs[-1].last = True
    return runs


def parse(text: str, path: str) -> SourceFile:
    """The benchmarks of a file of Catch2 XML reports, one per run."""
    try:
        runs = _runs([(path, text)])
    except _Refused:
        return SourceFile(path, FORMAT, (), problem="is not read: entity declarations are not "
                          "read")
    return _source(path, runs, folder=False)


def _natural(name: str) -> list[tuple[int, str | int]]:
    """A file name's sort key: its numbers compared as numbers (``run-2`` before ``run-10``)."""
    parts = re.split(r"([0-9]+)", name)  # text, number, text, …
    return [(1, int(part)) if index % 2 else (0, part) for index, part in enumerate(parts)]


def read_folder(folder: Path, display: str, read: Callable[[Path], bytes | None]
                ) -> SourceFile | None:
    """The runs of the Catch2 reports of a folder, one or more per ``*.xml`` file directly in
    it (``--out DIR/run-$i.xml``), in the order of the files' names; None when none of its
    ``.xml`` files is a Catch2 report. ``read``: a file's bytes (None when too large), raising
    ``OSError`` when it cannot be read."""
    try:
        with os.scandir(folder) as entries:
            names = []
            for count, entry in enumerate(entries, start=1):
                if count > MAX_ENTRIES:
                    return SourceFile(display, FORMAT, (), problem=(
                        f"is a folder of more than {MAX_ENTRIES:,} files: give a folder that "
                        "holds the Catch2 reports of one version"))
                if entry.name.lower().endswith(".xml") and entry.is_file():
                    names.append(entry.name)
    except OSError as error:
        return None if not os.path.isdir(folder) else SourceFile(
            display, FORMAT, (), problem=f"cannot be read ({error.strerror or error})")
    digest = hashlib.sha256()
    texts, left_out = [], []
    for name in sorted(names, key=_natural):
        shown = f"{display}/{name}"
        try:
            raw = read(folder / name)
        except OSError as error:
            left_out.append(f"{name} (cannot be read: {error.strerror or error})")
            continue
        if raw is None:
            left_out.append(f"{name} (too large)")
            continue
        try:
            text = raw.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            left_out.append(f"{name} (not a text file: bad byte at line {line})")
            continue
        if not looks_like(text):
            left_out.append(f"{name} (not a Catch2 report)")
            continue
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + raw + b"\0")
        texts.append((shown, text))
    if not texts:
        return None
    try:
        runs = _runs(texts)
    except _Refused:
        return SourceFile(display, FORMAT, (), problem="is not read: a report in it declares "
                          "entities, which are not read")
    source = _source(display, runs, folder=True)
    notices = source.notices
    if left_out:
        notices = (*notices, Notice(
            "catch2-files-left-out",
            f"{display}: {counted(len(left_out), 'file')} ending in .xml left out: "
            f"{first_names(left_out, 6)}.",
            "The folder should hold the Catch2 reports of one version only, one per run."))
    return dataclasses.replace(source, sha256=digest.hexdigest(), notices=notices)


# ------------------------------------------------------------------ from runs to samples


@dataclass(slots=True)
class _Benchmark:
    """One benchmark across the runs: its value per run, and what went wrong."""

    name: str
    place: tuple[str, ...]
    errors: ErrorList
    values: list[float] = field(default_factory=list)
    samples: dict[str, list[tuple[int, str, int]]] = field(default_factory=dict)
    iterations: list[int] = field(default_factory=list)
    missing: list[int] = field(default_factory=list)  # runs without it
    cut: _Run | None = None  # the last run, interrupted before its end


def _program_names(runs: list[_Run]) -> list[str]:
    return list(dict.fromkeys(run.program for run in runs if run.program))


def _too_few(display: str, runs: list[_Run], results: list[_Result], folder: bool) -> str:
    """Why a source of fewer than MIN_GROUPS runs is not read, with the command that writes
    enough runs."""
    first = results[0]
    where = (f"{Path(runs[0].path).name}, line {first.line}" if folder
             else f"line {first.line}")
    programs = _program_names(runs)
    program = shlex.quote(f"./{programs[0]}") if programs else "./bench"
    names = first_names([named(name) for name in dict.fromkeys(r.name for r in results)], 4)
    output = shlex.quote(os.path.basename(display) or "initial.xml")
    many = "a single run" if len(runs) == 1 else counted(len(runs), "run")
    return (
        f"{where}: holds {many} of the Catch2 test program: a Catch2 XML report gives one "
        f"mean per benchmark ({names}), not its samples, so each run of the program is one "
        f"measurement, and the Speedup-Test needs {MIN_GROUPS} or more (better "
        f"{ADVISED_RUNS}). Run it {ADVISED_RUNS} times into one file: for i in $(seq "
        f"{ADVISED_RUNS}); do {program} --reporter xml --benchmark-no-analysis; done > "
        f"{output} (--benchmark-no-analysis skips Catch2's bootstrap, not needed here; or "
        "write each run with --out DIR/run-$i.xml and give the folder DIR)")


def _damage_text(run: _Run) -> str:
    damage = run.damage
    return (f"the report of run {run.number} is damaged at line {damage.line}, column "
            f"{damage.column} ({damage.message})")


def _take(benchmark: _Benchmark, run: _Run, result: _Result) -> None:
    """Record one run's result of a benchmark: its value, or why it has none."""
    where = f"benchmark {named(benchmark.name)}, run {run.number}"
    if result.failed is not None:
        benchmark.errors.add(f"{where}: failed ({quote(result.failed, MAX_NAME)}): its results "
                             "are not used", result.failed_line, run.path)
        return
    if not result.ended:
        if run.cut:
            benchmark.cut = run
        else:
            benchmark.errors.add(f"{where}: {_damage_text(run)} inside this benchmark's "
                                 "result: not read", result.line, run.path)
        return
    if result.mean is None:
        benchmark.errors.add(f"{where}: its result holds no <mean>", result.line, run.path)
        return
    nanoseconds = decimal(result.mean)
    if nanoseconds is None or not nanoseconds > 0:
        why = ("is not a number" if nanoseconds is None else
               "is not a valid time (it must be > 0: are its calls shorter than Catch2's "
               "clock can time?)")
        benchmark.errors.add(f"{where}: mean {quote(result.mean)} ns {why}", result.mean_line,
                             run.path)
        return
    seconds, problem = in_seconds(nanoseconds, 1e-9)
    if problem is not None:
        benchmark.errors.add(f"{where}: mean {problem}", result.mean_line, run.path)
        return
    benchmark.values.append(seconds)
    if result.samples is not None:
        benchmark.samples.setdefault(result.samples, []).append(
            (run.number, run.path, result.line))
    if result.iterations is not None and result.iterations.isdecimal():
        benchmark.iterations.append(int(result.iterations))


def _gather(display: str, runs: list[_Run]) -> list[_Benchmark]:
    """Each benchmark's values across the runs, in the order they first appear."""
    benchmarks: dict[tuple[tuple[str, ...], str], _Benchmark] = {}
    for run in runs:
        for result in run.results:
            if result.key not in benchmarks:
                benchmarks[result.key] = _Benchmark(result.name, result.place,
                                                    ErrorList(display))
    for run in runs:
        by_key: dict[tuple[tuple[str, ...], str], list[_Result]] = {}
        for result in run.results:
            by_key.setdefault(result.key, []).append(result)
        for key, benchmark in benchmarks.items():
            found = by_key.get(key, [])
            if len(found) > 1:
                lines = ", ".join(str(result.line) for result in found[:4])
                benchmark.errors.add(
                    f"benchmark {named(benchmark.name)}: run {run.number} reports it "
                    f"{len(found)} times (lines {lines}): which result is which cannot be "
                    "told; give each BENCHMARK a name of its own", found[0].line, run.path)
            elif found:
                _take(benchmark, run, found[0])
            elif run.cut:
                benchmark.cut = run
            elif run.damage is not None:
                benchmark.errors.add(
                    f"benchmark {named(benchmark.name)}: {_damage_text(run)}, before any "
                    f"result of this benchmark: the rest of run {run.number} is not read",
                    run.damage.line, run.path)
            else:
                benchmark.missing.append(run.number)
    return list(benchmarks.values())


def _shown_names(benchmarks: list[_Benchmark]) -> list[str]:
    """Names as written; a name that several test cases or sections share is qualified by
    its place."""
    places: dict[str, set[tuple[str, ...]]] = {}
    for benchmark in benchmarks:
        places.setdefault(benchmark.name, set()).add(benchmark.place)
    return [f"{b.name} [{' / '.join(b.place)}]" if len(places[b.name]) > 1 else b.name
            for b in benchmarks]


def _runs_text(numbers: list[int]) -> str:
    """"run 3", "runs 3, 7 and 9" (the first few)."""
    shown = [str(number) for number in numbers[:8]]
    more = f" and {len(numbers) - 8} more" if len(numbers) > 8 else ""
    if len(shown) == 1:
        return f"run {shown[0]}"
    return (f"runs {', '.join(shown[:-1])} and {shown[-1]}" if not more
            else f"runs {', '.join(shown)}{more}")


def _benchmark_notices(display: str, benchmark: _Benchmark, name: str, total: int
                       ) -> list[Notice]:
    notices = []
    if benchmark.missing:
        notices.append(Notice(
            "catch2-missing-runs",
            f"{display}: benchmark {named(name)} has no result in "
            f"{_runs_text(benchmark.missing)} of {total}: it was analysed on the other "
            f"{counted(total - len(benchmark.missing), 'run')}.",
            "A run lacks a benchmark when a test filter left it out or its test case stopped "
            "before it (a failed REQUIRE): check those runs."))
    if benchmark.cut is not None:
        run = benchmark.cut
        notices.append(Notice(
            "catch2-last-run-cut",
            f"{run.path}:{run.damage.line}: the file ends inside run {run.number} (a run "
            f"interrupted while writing its report?); its result of benchmark {named(name)} "
            "was not used.",
            "Check that the last run finished; rerun it if values are missing."))
    if len(benchmark.samples) > 1:
        common = max(benchmark.samples, key=lambda count: len(benchmark.samples[count]))
        others = [(count, places) for count, places in benchmark.samples.items()
                  if count != common]
        number, path, line = others[0][1][0]
        notices.append(Notice(
            "catch2-samples-differ",
            f"{path}:{line}: benchmark {named(name)} took {quote(common)} samples in "
            f"{counted(len(benchmark.samples[common]), 'run')} but "
            + ", ".join(f"{quote(count)} in {_runs_text([p[0] for p in places])}"
                        for count, places in others[:3])
            + f" (first: run {number}): its runs' means are over different numbers of "
            "samples.",
            "Run every run with the same options (--benchmark-samples), so that each run's "
            "mean has the same precision."))
    return notices


def _notes(benchmark: _Benchmark, runs: list[_Run]) -> list[str]:
    counts = sorted(benchmark.samples, key=lambda count: len(benchmark.samples[count]),
                    reverse=True)
    samples = f"{'/'.join(counts[:3])} samples" if counts else "its samples"
    low, high = min(benchmark.iterations, default=0), max(benchmark.iterations, default=0)
    iterations = ("" if not high else f" of {low:,}" + (f"–{high:,}" if high > low else "")
                  + f" iteration{'s' if high > 1 else ''}")
    notes = [f"{counted(len(benchmark.values), 'run')} of the test program, each a mean over "
             f"{samples}{iterations} (Catch2's <mean>, read in seconds)"]
    programs = _program_names(runs)
    versions = list(dict.fromkeys(run.version for run in runs if run.version))
    about = [f"test program {', '.join(quote(p, MAX_NAME) for p in programs[:3])}"
             ] if programs else []
    if versions:
        about.append(f"Catch2 {', '.join(shortened(v) for v in versions[:3])}")
    else:  # (2.x writes no version; nor did 3.x before its XML format version 3)
        roots = {run.root for run in runs if run.root}
        about.append("Catch2 2.x (<Catch>)" if roots == {"Catch"} else
                     "Catch2 3.x (<Catch2TestRun>)" if roots == {"Catch2TestRun"} else "Catch2")
    notes.append(", ".join(about))
    return notes


def _source(display: str, runs: list[_Run], folder: bool) -> SourceFile:
    """The samples of a source's runs, or why it is not read."""
    results = [result for run in runs for result in run.results]
    damaged = next((run for run in runs if run.damage is not None), None)
    if not results or len(runs) < MIN_GROUPS:
        # (Too few runs, one of them damaged: the damage first, the report rewritten anyway.)
        if damaged is not None:
            where = f" ({damaged.path})" if folder else ""
            return SourceFile(display, FORMAT, (), problem=(
                f"is not valid XML: {damaged.damage.message} (line {damaged.damage.line}, "
                f"column {damaged.damage.column}){where}; was it truncated?"))
        if not results:
            return SourceFile(display, FORMAT, (), problem=(
                "is a Catch2 XML report without benchmark results (BENCHMARK, with "
                "CATCH_CONFIG_ENABLE_BENCHMARKING)"))
        return SourceFile(display, FORMAT, (), problem=_too_few(display, runs, results, folder))
    benchmarks = _gather(display, runs)
    samples = []
    for benchmark, name in zip(benchmarks, _shown_names(benchmarks), strict=True):
        notices = _benchmark_notices(display, benchmark, name, len(runs))
        samples.append(make_sample(display, name, benchmark.values, ("run",), benchmark.errors,
                                   _notes(benchmark, runs), notices=notices))
    return SourceFile(display, FORMAT, tuple(samples), notices=tuple(_run_notices(display,
                                                                                  runs)))


def _run_notices(display: str, runs: list[_Run]) -> list[Notice]:
    """Warnings about runs as a whole: a report damaged after its benchmarks (their results
    were read), runs of different programs."""
    notices = []
    for run in runs:
        if run.damage is None or run.cut:
            continue
        if all(result.ended for result in run.results) and run.results and \
                run.damage.line > run.results[-1].line:
            notices.append(Notice(
                "catch2-report-damaged",
                f"{run.path}:{run.damage.line}: {_damage_text(run)}, after its last benchmark "
                "result: its results were read.",
                "Did something else write into the report (a program's output, 2>&1)?"))
    programs = _program_names(runs)
    if len(programs) > 1:
        counts = collections.Counter(run.program for run in runs if run.program)
        notices.append(Notice(
            "catch2-programs-differ",
            f"{display}: its runs are of {len(programs)} test programs: "
            + first_names([f"{quote(p, MAX_NAME)} ({counted(counts[p], 'run')})"
                           for p in programs], 4) + ".",
            "Give one version's runs only: runs of another program are another version."))
    return notices


__all__ = ["ADVISED_RUNS", "FORMAT", "looks_like", "parse", "read_folder"]

"""What every reader shares: the source-file type and the checks on the values read."""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from speeduptest.inputs.readers.units import SECONDS, seconds_per
from speeduptest.inputs.samples import (
    MAX_NAME,
    MAX_QUOTE,
    ErrorList,
    Sample,
    csv_rows,
    hierarchy_from_rows,
    parse_sample_csv,
    quote,
    visible,
)
from speeduptest.notices import InputError, Notice, counted, plural
from speeduptest.stats.hierarchy import MAX_GROUPING_LEVELS, Hierarchy

__all__ = ["MAX_NAME", "ErrorList", "quote", "visible"]

#: Fewer top-level units (processes, forks, invocations) than this are not enough to analyse
#: as independent observations; their measurements are then taken as the observations.
MIN_GROUPS = 3


@dataclass
class SourceFile:
    """A file read: its samples, or the problem that made it unreadable."""

    path: str
    format: str  # "sample", "pyperf", "hyperfine", "Google Benchmark", "JMH", "ReBench", …
    samples: tuple[Sample, ...]
    problem: str | None = None
    errors: tuple[InputError, ...] = ()  # problems no single benchmark can be blamed for
    sha256: str | None = None
    notices: tuple[Notice, ...] = ()  # warnings for every benchmark of the file

    @functools.cached_property
    def by_label(self) -> dict[str, list[int]]:
        """Positions of the samples by name and by label (``variant/name``), built once: a
        config or a compare that selects each of 10,000 benchmarks of a file by name would
        otherwise scan the file 10,000 times."""
        index: dict[str, list[int]] = {}
        for position, sample in enumerate(self.samples):
            for key in dict.fromkeys((sample.name, sample.label)):
                if key is not None:
                    index.setdefault(key, []).append(position)
        return index


def cut_last_line(path: str, line: int, benchmark: str | None = None) -> Notice:
    """The file ends in the middle of a line: a run interrupted while writing it."""
    whose = f" of {benchmark}" if benchmark else ""
    return Notice(
        "input-last-line-cut",
        f"{path}:{line}: the file ends in the middle of this line (a run interrupted while "
        f"writing it?); its measurement{whose} was not used.",
        "Check that the benchmark run finished; rerun it if values are missing.",
    )


def value_problem(value: object) -> str | None:
    """Why a value taken from a JSON document is not an execution time, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{json_repr(value)} is not a number"
    if isinstance(value, int) and value.bit_length() > 1000:  # float() would overflow
        return f"{json_repr(value)} is too large for a float"
    if not math.isfinite(value):
        return f"{value} is not a finite number"
    if value <= 0:
        return f"{json_repr(value)} is not a valid execution time (it must be > 0)"
    return None


def named(name: str) -> str:
    """A benchmark's name in a message: quoted, printable, not too long."""
    return quote(name, MAX_NAME)


def json_repr(value: object, limit: int = MAX_QUOTE) -> str:
    """A JSON value in a message, at most about ``limit`` characters whatever its size or
    depth; strings quoted with their control characters escaped."""
    if isinstance(value, str):
        return quote(value, limit)
    text = _preview(value, 0)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _preview(value: object, depth: int) -> str:
    """A bounded rendering: a few items of a few levels (never the whole of a deep or huge
    document, which ``repr`` would render, or fail to)."""
    if isinstance(value, str):
        return quote(value, 12)
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, int):
        digits = value.bit_length() * 0.30103
        return str(value) if digits < 60 else f"(a number of about {digits:.0f} digits)"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, dict)):
        if depth >= 3:
            return "[…]" if isinstance(value, list) else "{…}"
        items = list(value.items())[:4] if isinstance(value, dict) else value[:4]
        if isinstance(value, dict):
            shown = [f"{_preview(k, depth + 1)}: {_preview(v, depth + 1)}" for k, v in items]
        else:
            shown = [_preview(item, depth + 1) for item in items]
        more = ", …" if len(value) > 4 else ""
        opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
        return opening + ", ".join(shown) + more + closing
    return type(value).__name__


def in_seconds(value: float, factor: float, rate: bool = False) -> tuple[float | None, str | None]:
    """A time converted to seconds (``factor`` seconds per unit; a rate is inverted), or why
    it cannot be: converted, it must still be a finite number > 0."""
    try:
        seconds = factor / value if rate else value * factor
    except (OverflowError, ZeroDivisionError):
        seconds = math.inf
    if math.isfinite(seconds) and seconds > 0:
        return seconds, None
    what = "overflows" if not math.isfinite(seconds) else "underflows to 0"
    return None, f"{json_repr(value)} {what} once converted to seconds"


def time_factor(unit: object, errors: ErrorList, where: str) -> float | None:
    """Seconds per ``unit``; records an error when it is not a unit of time."""
    factor = seconds_per(unit) if isinstance(unit, str) else None
    if factor is None:
        errors.add(f"{where}: unit {json_repr(unit)} is not a unit of time")
    return factor


def with_enough_units(sample: Sample) -> Sample:
    """Fewer than MIN_GROUPS top-level units (one JMH fork, one ReBench invocation) cannot be
    analysed as independent observations: the level below is used instead, with a warning."""
    data = sample.data
    if data is None or data.depth == 1 or data.top_level_means.size >= MIN_GROUPS:
        return sample
    upper, lower = data.level_names[:2]
    if data.depth == 2:
        root = np.concatenate([np.asarray(unit, dtype=float) for unit in data.root])
    else:
        root = [child for unit in data.root for child in unit]
    merged = Hierarchy(root, data.level_names[1:])
    notice = Notice(
        "few-top-level-units",
        f"{sample.path}: {named(sample.label)} has only "
        f"{counted(data.top_level_means.size, upper)}: "
        f"its {counted(merged.top_level_means.size, lower)} were taken as the independent "
        "measurements.",
        f"Variation between {plural(upper)} is not captured, so the tests and intervals may be "
        f"too optimistic. Measure at least {MIN_GROUPS} {plural(upper)} (better 10 or more).",
    )
    return with_enough_units(dataclasses.replace(
        sample, data=merged, notices=(*sample.notices, notice)))


def grouped_sample(
    path: str,
    name: str,
    variant: str | None,
    unit: str | None,
    measurements: list[tuple[tuple[str, ...], float]],
    levels: list[str],
    errors: ErrorList,
    notes: Sequence[str] = (),
) -> Sample:
    """A named sample from rows of a text format (grouping keys, value), as a ``.csv``
    sample groups them."""
    if errors or not measurements:
        return Sample(path, None, errors.result(), name=name, variant=variant, unit=unit)
    return with_enough_units(Sample(path, hierarchy_from_rows(measurements, levels), name=name,
                                    variant=variant, unit=unit, notes=tuple(notes)))


def make_sample(
    path: str,
    name: str,
    groups: Sequence[Sequence[float]] | Sequence[float],
    level_names: tuple[str, ...],
    errors: ErrorList,
    notes: Sequence[str] = (),
    variant: str | None = None,
    notices: Sequence[Notice] = (),
) -> Sample:
    """A named sample from values already in seconds: ``groups`` is a flat list of values
    (one level) or a list of groups of values (two levels, e.g. process › value)."""
    if errors:
        return Sample(path, None, errors.result(), name=name, variant=variant, unit=SECONDS)
    data = None
    if len(level_names) == 2:
        nested = [list(group) for group in groups if len(group)]
        if nested and all(len(group) == 1 for group in nested):
            # One value per group: the groups are the independent measurements.
            data = Hierarchy(np.array([group[0] for group in nested]), level_names[:1])
        elif nested:
            data = Hierarchy.from_nested(nested, level_names)
    elif len(groups):
        data = Hierarchy(np.asarray(groups, dtype=float), level_names)
    return with_enough_units(Sample(path, data, name=name, variant=variant, unit=SECONDS,
                                    notes=tuple(notes), notices=tuple(notices)))


def disambiguate(samples: list[Sample], qualifiers: list[str]) -> list[Sample]:
    """Qualify names that appear more than once (a JMH benchmark run in several modes, a
    hyperfine command named once for a parameter scan) with what tells them apart."""
    counts: dict[str | None, int] = {}
    for sample in samples:
        counts[sample.name] = counts.get(sample.name, 0) + 1
    return [dataclasses.replace(sample, name=f"{sample.name} [{qualifier}]")
            if counts[sample.name] > 1 and qualifier else sample
            for sample, qualifier in zip(samples, qualifiers, strict=True)]


def mark_duplicates(samples: list[Sample], kind: str) -> list[Sample]:
    """A name that appears twice cannot be told apart: both get an error, neither is used."""
    counts: dict[str, int] = {}
    for sample in samples:
        counts[sample.label] = counts.get(sample.label, 0) + 1
    return [
        sample if counts[sample.label] == 1 else Sample(
            sample.path, None, (InputError(sample.path, None, (
                f"{kind} {named(sample.label)} appears {counts[sample.label]} times in the "
                "file: "
                "speeduptest cannot tell which one to use")),),
            name=sample.name, variant=sample.variant, unit=sample.unit)
        for sample in samples
    ]


_LINE_END = re.compile(r"\r\n|\r|\n")


def too_many_levels(columns: int) -> str | None:
    """Why a CSV header with ``columns`` grouping columns is not read, or None."""
    if columns <= MAX_GROUPING_LEVELS:
        return None
    return (f"the header has {columns:,} grouping columns; at most {MAX_GROUPING_LEVELS} are "
            "read (the levels above the measurements, e.g. build, invocation)")


def csv_sample(text: str, path: str) -> Sample:
    """A hierarchical ``.csv`` sample (:func:`speeduptest.inputs.samples.parse_sample_csv`); one
    whose header has more grouping columns than ``MAX_GROUPING_LEVELS`` is an error at its
    header line, found before any row is grouped (a thousand levels would nest beyond
    Python's recursion limit)."""
    start, number = 0, 1
    while start < len(text):  # the header: the first line neither blank nor a comment
        end = _LINE_END.search(text, start)
        line = text[start:end.start() if end else len(text)]
        if line.strip() and not line.lstrip().startswith("#"):
            cells = csv_rows(line)[0][1]
            problem = too_many_levels(len(cells) - 1) if isinstance(cells, list) else None
            if problem is not None:
                return Sample(path, None, (InputError(path, number, problem),))
            break
        if end is None:
            break
        start, number = end.end(), number + 1
    return parse_sample_csv(text, path)


def bounded(source: SourceFile) -> SourceFile:
    """The source with every sample too unbalanced for the hierarchical bootstrap
    (:meth:`Hierarchy.padding_problem`) replaced by that error: its resamples would take
    memory and time out of all proportion to its values."""
    replaced = list(source.samples)
    for position, sample in enumerate(source.samples):
        problem = None if sample.data is None else sample.data.padding_problem()
        if problem is not None:
            replaced[position] = dataclasses.replace(
                sample, data=None, errors=(InputError(sample.path, None, problem),))
    if all(new is old for new, old in zip(replaced, source.samples, strict=True)):
        return source
    return dataclasses.replace(source, samples=tuple(replaced))

"""What every reader shares: the source-file type and the checks on the values read."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..hierarchy import Hierarchy
from ..notices import InputError, Notice, counted, plural
from ..samples import Sample, hierarchy_from_rows
from .units import SECONDS, seconds_per

#: Bad values listed per benchmark before the rest are only counted.
MAX_ERRORS = 10
#: Fewer top-level units (processes, forks, invocations) than this are not enough to analyse
#: as independent observations; their measurements are then taken as the observations.
MIN_GROUPS = 3


@dataclass(frozen=True)
class SourceFile:
    """A file read: its samples, or the problem that made it unreadable."""

    path: str
    format: str  # "sample", "pyperf", "hyperfine", "Google Benchmark", "JMH", "ReBench", …
    samples: tuple[Sample, ...]
    problem: str | None = None
    errors: tuple[InputError, ...] = ()  # problems no single benchmark can be blamed for
    sha256: str | None = None
    notices: tuple[Notice, ...] = ()  # warnings for every benchmark of the file


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
    if not math.isfinite(value):
        return f"{value} is not a finite number"
    if value <= 0:
        return f"{value} is not a valid execution time (it must be > 0)"
    return None


def json_repr(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 40 else text[:37] + "…"


class ErrorList:
    """Errors of one benchmark, the first few listed and the rest counted."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.errors: list[InputError] = []
        self.skipped = 0

    def add(self, message: str, line: int | None = None) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(InputError(self.path, line, message))
        else:
            self.skipped += 1

    def result(self) -> tuple[InputError, ...]:
        more = [InputError(self.path, None, f"and {self.skipped} more bad values")
                ] if self.skipped else []
        return tuple(self.errors + more)

    def __bool__(self) -> bool:
        return bool(self.errors)


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
        f"{sample.path}: '{sample.label}' has only {counted(data.top_level_means.size, upper)}: "
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
                f"{kind} '{sample.label}' appears {counts[sample.label]} times in the file: "
                "speeduptest cannot tell which one to use")),),
            name=sample.name, variant=sample.variant, unit=sample.unit)
        for sample in samples
    ]

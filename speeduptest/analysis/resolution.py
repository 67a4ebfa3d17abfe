"""The timer's resolution of a benchmark's samples: which sides it bounds, by how much, and
what their warnings say (the statistics: :mod:`speeduptest.stats.resolution`).

A side whose values take at most three distinct values is limited by its timer. Its
resolution is ``--resolution`` when given, else the spacing of the distinct values of the
benchmark's limited sides taken together, counted from zero (a time is a whole number of
ticks; one timer measured both versions: two constant sides 1.000 and 1.001 ms show a 1 µs
step that neither shows alone). Each such side's mean then has a variance of at least r²/12
in the intervals and the call.

It is the last of the experiment's transforms (:class:`TimerResolution`): it looks at the
values as they are analysed, after the unit conversion, the warm-ups left out and any step
of the user's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from speeduptest.inputs.config import UNITS
from speeduptest.notices import Notice
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.resolution import (
    SideResolution,
    common_spacing,
    is_quantised,
)

if TYPE_CHECKING:
    from speeduptest.analysis.transforms import ReadPair

Resolutions = tuple[SideResolution | None, SideResolution | None]
ROLES = ("initial", "optimized")

#: Units in which a duration in seconds is shown, largest first.
_SHOWN_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


@dataclass(frozen=True)
class TimerResolution:
    """The step of :func:`speeduptest.analysis.transforms.prepared` that finds, last, the
    resolution that bounds each side's mean (``ReadPair.resolution``), and adds its
    warnings. ``resolution``, ``unit``: the run's ``--resolution`` (Settings)."""

    resolution: float | None = None
    unit: str | None = None

    def __call__(self, pairs: Sequence[ReadPair]) -> list[ReadPair]:
        for pair, maybe in zip(pairs, _maybe_limited(pairs), strict=True):
            if not maybe:  # (what timer_resolution finds for it: nothing)
                pair.resolution = (None, None)
                continue
            notices, pair.resolution = timer_resolution(pair, self.resolution, self.unit)
            if notices:
                pair.notices += notices
        return list(pairs)


def _maybe_limited(pairs: Sequence[ReadPair]) -> list[bool]:
    """Per pair, whether a side may be limited by its timer (:func:`_limited`): False only
    where both sides are known not to be. The one-level samples of float64 values, nearly
    all of them, are screened as the rows of one matrix per length: a sort and a count of
    the changes per row, the same comparisons as :func:`_limited` (10,000 pairs: 0.06 s one
    side at a time, a few ms so)."""
    limited = [False] * (2 * len(pairs))  # per side: initial, optimized of each pair
    by_length: dict[int, list[int]] = {}
    sides = [side.root for pair in pairs for side in (pair.initial, pair.optimized)]
    for position, side in enumerate(sides):
        if type(side) is np.ndarray and side.dtype == np.float64 and side.ndim == 1:
            if side.size >= 2:  # (a side of fewer values is not limited: _limited)
                by_length.setdefault(side.size, []).append(position)
        else:
            limited[position] = True  # (not screened: timer_resolution looks)
    for positions in by_length.values():
        _, changes = _sorted_changes(np.stack([sides[position] for position in positions]))
        distinct = 1 + np.count_nonzero(changes, axis=-1)
        for position in np.flatnonzero(is_quantised(distinct)).tolist():
            limited[positions[position]] = True
    return [initial or optimized for initial, optimized in zip(limited[::2], limited[1::2],
                                                                 strict=True)]


def timer_resolution(pair: ReadPair, given: float | None = None, given_unit: str | None = None
                     ) -> tuple[tuple[Notice, ...], Resolutions]:
    """The warnings of the sides of ``pair`` (as analysed) whose values take at most three
    distinct values, and the resolution that bounds each side's mean, in the unit of its
    values. ``given``: ``--resolution`` (None: detected; 0: the values are exact), in seconds
    when ``given_unit`` is "s", else a bare number in the unit the values were written in
    (the config's unit column, else their own). Each side is sorted once; the rest is done
    only for the few sides limited by their timer."""
    sides = (pair.initial, pair.optimized)
    distinct = [_limited(side) for side in sides]
    limited = [position for position in (0, 1) if distinct[position] is not None]
    if not limited:
        return (), (None, None)
    # (after the unit conversion both sides are in seconds, or both as written)
    label = "s" if pair.units[0] is not None else None
    written = UNITS[pair.declared_unit] if pair.declared_unit else 1.0
    pooled = sorted({value for position in limited for value in distinct[position].tolist()})
    found, how = _resolution(pooled, label is not None, written, given, given_unit)
    resolutions = tuple(SideResolution(found, how) if position in limited and found is not None
                        else None for position in (0, 1))
    notices = tuple(_notice(ROLES[position], pair.paths[position], distinct[position], found,
                            how, label, given) for position in limited)
    return notices, resolutions  # type: ignore[return-value]


def _limited(side: Hierarchy) -> np.ndarray | None:
    """The sorted distinct values of a side whose values take at most FEW_DISTINCT of them;
    None for any other (or one of fewer than 2 values). A sort and a comparison: 3 µs for 31
    values, where np.unique takes 7–11 µs (twice per benchmark, 10,000 benchmarks)."""
    values = side.values()
    if values.size < 2:
        return None
    ordered, changes = _sorted_changes(values)
    if not is_quantised(1 + np.count_nonzero(changes)):
        return None
    return ordered[np.concatenate(([True], changes))]


def _sorted_changes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values sorted along their last axis, and where each differs from the one before
    (the distinct values of a side, or of each row of sides of one length)."""
    ordered = np.sort(values, axis=-1)
    return ordered, ordered[..., 1:] != ordered[..., :-1]


def _resolution(pooled: list[float], unit_known: bool, written: float, given: float | None,
                given_unit: str | None) -> tuple[float | None, str]:
    """The resolution in the unit of the values and where it comes from ("given", or
    "detected": None when the values show none; given as 0: None, the values are exact). A
    duration given for plain samples without a unit cannot be converted to theirs: the
    values' own spacing is used instead."""
    if given == 0:  # the values are exact: no floor
        return None, "given"
    if given is not None and given_unit is None:
        return given * written, "given"
    if given is not None and unit_known:
        return given, "given"
    return detected_resolution(pooled), "detected"


def detected_resolution(pooled: list[float]) -> float | None:
    """The step of a timer that wrote the sorted distinct values ``pooled`` (at least two):
    the spacing of the values counted from zero, where they are whole numbers of a step
    (1.000 and 1.001 ms: 1 µs), else of their differences; at most the smallest value (a
    tick is no longer than a reading). None for a single value: it shows no step."""
    if len(pooled) < 2:
        return None
    spacing = common_spacing([0.0, *pooled]) if pooled[0] > 0 else None
    if spacing is None:
        spacing = common_spacing(pooled)
    return None if spacing is None else min(spacing, pooled[0]) if pooled[0] > 0 else spacing


def _shown(value: float, label: str | None) -> str:
    """A value as the warnings show it: a duration in a unit that suits it, or a bare number
    in the samples' own unit."""
    if label is None:
        return f"{value:.6g}"
    # (a detected step carries the floats' rounding: 0.001 ms is 9.999…e-7 s, shown 1 µs)
    name, size = next(((name, size) for name, size in _SHOWN_UNITS
                       if value >= size * (1 - 1e-9)), _SHOWN_UNITS[-1])
    return f"{value / size:.6g} {name}"


def _notice(role: str, path: str, distinct: np.ndarray, found: float | None, how: str,
            label: str | None, given: float | None) -> Notice:
    """A sample of identical values, or of only a few distinct ones: the timer's resolution,
    not the program, decides its spread, and no interval can be more precise than the timer
    (the floor used, or why there is none)."""
    shown = ", ".join(_shown(value, label) for value in distinct)
    what = (f"are all identical ({shown})" if distinct.size == 1 else
            f"take only {distinct.size} distinct values ({shown})")
    unusable = ("--resolution, a duration, does not apply to plain samples without a unit"
                if given is not None and how == "detected" else None)
    if found is not None:
        where = ("given by --resolution" if how == "given" else
                 "detected from the spacing of the values" + (f"; {unusable}" if unusable
                                                              else ""))
        floor = (f" The intervals and the call take its mean to be uncertain by at least "
                 f"the resolution ÷ √12 (resolution {_shown(found, label)}, {where}).")
    elif given == 0:
        floor = " With --resolution 0 the values are taken as exact: the intervals count none."
    elif unusable:
        floor = (f" {unusable}, and their values show no resolution: the intervals count "
                 "none.")
    else:
        floor = (" Their values show no resolution (a single value, or no common spacing): "
                 "the intervals count none unless it is given with --resolution.")
    return Notice(
        "timer-resolution",
        f"The {role} times of {path} {what}: the timer's resolution, not the program, "
        "sets their spread, and the interval cannot be more precise than the timer." + floor,
        "Measure with a finer timer, or time more work per value (more iterations per "
        "measurement) so that the resolution is small against the time.")

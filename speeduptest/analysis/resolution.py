"""The timer's resolution of a benchmark's samples: which sides it bounds, by how much, and
what their warnings say (the statistics: :mod:`speeduptest.stats.resolution`).

A side whose values take at most three distinct values is limited by its timer. Its
resolution is ``--resolution`` when given, else the spacing of the distinct values of the
benchmark's limited sides taken together (one timer measured both versions: two constant
sides 1.000 and 1.001 ms apart show a 1 µs step that neither shows alone). Each such side's
mean then has a variance of at least r²/12 in the intervals and the call.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from speeduptest.inputs.config import UNITS
from speeduptest.inputs.samples import Sample
from speeduptest.model.settings import Settings
from speeduptest.notices import Notice
from speeduptest.stats.resolution import SideResolution, common_spacing, is_quantised

Resolutions = tuple[SideResolution | None, SideResolution | None]

#: Units in which a duration in seconds is shown, largest first.
_SHOWN_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def timer_resolution(read: Mapping[str, Sample], unit: str | None, settings: Settings
                     ) -> tuple[tuple[Notice, ...], Resolutions]:
    """The warnings of a benchmark's samples ``read`` (initial, optimized, as read, before a
    config's ``unit`` converts them) whose values take at most three distinct values, and
    the resolution that bounds each side's mean (in the unit of the values as analysed:
    seconds where ``unit`` or the files state one). Each sample is sorted once; the rest is
    done only for the few samples limited by their timer."""
    distinct = {role: _limited(sample) for role, sample in read.items()}
    limited = [role for role, values in distinct.items() if values is not None]
    if not limited:
        return (), (None, None)
    stated = next(iter(read.values())).unit is not None  # (both sides alike: _unit_errors)
    factor = 1.0 if stated or unit is None else UNITS[unit]  # file's unit → as analysed
    label = "s" if stated else unit
    pooled = sorted({value for role in limited for value in distinct[role].tolist()})
    found, how = _resolution(pooled, factor, label is not None, settings)
    resolutions = tuple(SideResolution(found, how) if role in limited and found is not None
                        else None for role in read)
    notices = tuple(_notice(role, read[role], distinct[role], found, how, factor, label,
                            settings) for role in limited)
    return notices, resolutions  # type: ignore[return-value]


def _limited(sample: Sample) -> np.ndarray | None:
    """The sorted distinct values of a sample whose values take at most FEW_DISTINCT of
    them; None for any other (or one of fewer than 2 values). A sort and a comparison: 3 µs
    for 31 values, where np.unique takes 7–11 µs (twice per benchmark, 10,000 benchmarks)."""
    values = sample.data.values() if sample.data is not None else None
    if values is None or values.size < 2:
        return None
    ordered = np.sort(values)
    changes = ordered[1:] != ordered[:-1]
    if not is_quantised(1 + np.count_nonzero(changes)):
        return None
    return ordered[np.concatenate(([True], changes))]


def _resolution(pooled: list[float], factor: float, unit_known: bool, settings: Settings
                ) -> tuple[float | None, str]:
    """The resolution in the unit as analysed and where it comes from ("given", or
    "detected": None when the values show none; given as 0: None, the values are exact). A
    duration given for plain samples without a unit cannot be converted to theirs: the
    values' own spacing is used instead."""
    if settings.resolution == 0:  # the values are exact: no floor
        return None, "given"
    if settings.resolution is not None and (settings.resolution_unit is None or unit_known):
        return settings.resolution, "given"
    spacing = common_spacing(pooled)
    return (None if spacing is None else spacing * factor), "detected"


def _shown(value: float, label: str | None) -> str:
    """A resolution as the warning shows it: a duration in a unit that suits it, or a bare
    number in the samples' own unit."""
    if label is None:
        return f"{value:.6g}"
    seconds = value * UNITS[label]
    # (a detected step carries the floats' rounding: 0.001 ms is 9.999…e-7 s, shown 1 µs)
    name, size = next(((name, size) for name, size in _SHOWN_UNITS
                       if seconds >= size * (1 - 1e-9)), _SHOWN_UNITS[-1])
    return f"{seconds / size:.6g} {name}"


def _notice(role: str, sample: Sample, distinct: np.ndarray, found: float | None, how: str,
            factor: float, label: str | None, settings: Settings) -> Notice:
    """A sample of identical values, or of only a few distinct ones: the timer's resolution,
    not the program, decides its spread, and no interval can be more precise than the timer
    (the floor used, or why there is none)."""
    shown = ", ".join(f"{value:.6g}" for value in distinct)
    what = (f"are all identical ({shown})" if distinct.size == 1 else
            f"take only {distinct.size} distinct values ({shown})")
    unusable = ("--resolution, a duration, does not apply to plain samples without a unit"
                if settings.resolution is not None and how == "detected" else None)
    if found is not None:
        where = ("given by --resolution" if how == "given" else
                 "detected from the spacing of the values" + (f"; {unusable}" if unusable
                                                              else ""))
        floor = (f" The intervals and the call take its mean to be uncertain by at least "
                 f"the resolution ÷ √12 (resolution {_shown(found / factor, label)}, {where}).")
    elif settings.resolution == 0:
        floor = " With --resolution 0 the values are taken as exact: the intervals count none."
    elif unusable:
        floor = (f" {unusable}, and their values show no resolution: the intervals count "
                 "none.")
    else:
        floor = (" Their values show no resolution (a single value, or no common spacing): "
                 "the intervals count none unless it is given with --resolution.")
    return Notice(
        "timer-resolution",
        f"The {role} times of {sample.path} {what}: the timer's resolution, not the program, "
        "sets their spread, and the interval cannot be more precise than the timer." + floor,
        "Measure with a finer timer, or time more work per value (more iterations per "
        "measurement) so that the resolution is small against the time.")

"""The measurement checks between reading a benchmark's samples and analysing them.

Each side's series are checked (:func:`speeduptest.stats.steady.check_sides`): their warm-ups
are left out as ``--warmup`` asks, dependent values of a one-level sample become batch means,
and what was found becomes the benchmark's ``validity`` and its warnings, each with the advice
that follows from it. The run's summary of them is one notice (:func:`run_notice`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from speeduptest.notices import Notice, counted, first_names, tally
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.steady import (
    RowChecks,
    SeriesMatrix,
    SideValidity,
    WarmupError,
    check_sides,
    plain_series,
)

ROLES = ("initial", "optimized")


@dataclass(slots=True)
class CheckedSides:
    """Both sides as they are analysed, what the checks found, and the warnings. (Not
    frozen: one is made per benchmark, and read once.)"""

    initial: Hierarchy
    optimized: Hierarchy
    validity: tuple[SideValidity, SideValidity]
    notices: tuple[Notice, ...]


def check_pairs(pairs: Sequence[tuple[Hierarchy, Hierarchy]], warmup: str, dependence: str,
                min_values: int, tools: Sequence[tuple[str, str]] | None = None,
                checked: Sequence[tuple[SeriesMatrix, RowChecks]] | None = None,
                ) -> list[CheckedSides | str]:
    """Both sides of each pair (initial, optimized) checked, all of them together
    (:func:`speeduptest.stats.steady.check_sides`), or why a pair cannot be analysed after
    the check (``--warmup N`` leaves too few values). ``tools``: the formats of each pair's
    files, which some warnings take into account. ``checked``: each matrix of :func:`series_of`
    the pairs with its ``row_checks``, computed elsewhere; None: computed here."""
    unique = _unique_sides(pairs)
    checked_sides = dict(zip(unique, check_sides(list(unique.values()), warmup, dependence,
                                                 checked), strict=True))
    found: list[CheckedSides | str] = []
    for position, (initial, optimized) in enumerate(pairs):
        sides = (checked_sides[id(initial)], checked_sides[id(optimized)])
        found.append(_both(sides, warmup, min_values,
                           tools[position] if tools is not None else ("", "")))
    return found


def series_of(pairs: Sequence[tuple[Hierarchy, Hierarchy]]) -> list[SeriesMatrix]:
    """The matrices of series whose array work :func:`check_pairs` does (or takes as
    ``checked``): :func:`speeduptest.stats.steady.plain_series` of the pairs' sides."""
    return plain_series(list(_unique_sides(pairs).values()))


def _unique_sides(pairs: Sequence[tuple[Hierarchy, Hierarchy]]) -> dict[int, Hierarchy]:
    """The pairs' sides, each once: a sample in several pairs (the baseline of several
    versions) is checked once."""
    return {id(side): side for pair in pairs for side in pair}


def _both(sides: tuple, warmup: str, min_values: int, tools: tuple[str, str]
          ) -> CheckedSides | str:
    for role, side in zip(ROLES, sides, strict=True):
        if isinstance(side, WarmupError):
            return f"{role} sample: {side}"
        analysed, validity = side
        units = analysed.top_level_means.size
        if units < min_values:
            return (f"{role} sample: {counted(units, 'value')} left after leaving out "
                    f"{validity.dropped} warm-up values (--warmup {warmup}); at least "
                    f"{min_values} are needed")
    (initial, initial_validity), (optimized, optimized_validity) = sides
    found = initial_validity.findings, optimized_validity.findings
    notices = (() if not (found[0] or found[1]) else tuple(
        side_notices("initial", initial_validity, tools[0], found[0])
        + side_notices("optimized", optimized_validity, tools[1], found[1])))
    return CheckedSides(initial, optimized, (initial_validity, optimized_validity), notices)


def _invocations(validity: SideValidity, wanted: str | None = None,
                 count: int | None = None) -> str:
    """"its series", or "COUNT of its N invocations": those of class ``wanted``, or
    ``count``."""
    total = len(validity.classes)
    if count is None:
        count = validity.classes.count(wanted)
    return "its series" if total == 1 else f"{count} of its {total} invocations"


def side_notices(role: str, validity: SideValidity, tool: str = "",
                 findings: tuple[str, ...] | None = None) -> list[Notice]:
    """The warnings of one side's checks (its :attr:`SideValidity.findings`, or
    ``findings`` when already asked for), each with its advice; ``tool``: the format of its
    file (a drift in the runs of a tool that does not interleave the versions is confounded
    with the change, and the warning says so)."""
    notices = [_notice(code, role, validity) for code in (
        validity.findings if findings is None else findings)]
    consecutive = CONSECUTIVE.get(tool)
    if consecutive is None:
        return notices
    confounded = (f" The versions were not interleaved ({consecutive}): this drift during "
                  "the session is part of the difference between them.")
    return [dataclasses.replace(notice, message=notice.message + confounded)
            if notice.code in DRIFTS else notice for notice in notices]


#: The findings that are a drift of the times during the session.
DRIFTS = ("series-slowdown", "no-steady-state", "run-order-trend")


#: Tools that run all the runs of one version, then all those of the next: their versions
#: are never interleaved, so a drift during the session is confounded with the change.
CONSECUTIVE = {"hyperfine": "hyperfine runs all the runs of one command, then those of the "
                            "next"}


def _notice(code: str, role: str, validity: SideValidity) -> Notice:
    classes, dependence, order = validity.classes, validity.dependence, validity.order
    if code == "warmup-dropped":
        if validity.warmup == "auto":
            return Notice(code, (
                f"{role}: a warm-up was detected in {_invocations(validity, 'warmup')} and "
                f"left out ({counted(validity.dropped, 'value')}, from position(s) "
                f"{_positions([drop for drop in validity.drops if drop])})."),
                "The values analysed are the steady state; measure more iterations per "
                "invocation, or set --warmup N (or none) to choose what is left out.")
        return Notice(code, (
            f"{role}: the first {validity.warmup} values of each invocation were left out "
            f"(--warmup {validity.warmup}; {counted(validity.dropped, 'value')})."),
            "Check the run-sequence plot: --warmup auto leaves out each invocation's detected "
            "warm-up.")
    if code == "residual-warmup":
        left = ("all of their values were analysed" if validity.warmup == "none" else
                f"only the first {validity.warmup} values of each were left out")
        which = _invocations(validity, count=len(validity.residual))
        starts = [validity.starts[i] for i in validity.residual]
        return Notice(code, (
            f"{role}: {which} warm up: their steady state starts at position(s) "
            f"{_positions(starts)}, and {left} (--warmup {validity.warmup})."),
            "Leave the warm-up out (--warmup auto, or a larger --warmup N), or the result "
            "mixes warm-up and steady state.")
    if code == "series-slowdown":
        return Notice(code, (
            f"{role}: {_invocations(validity, 'slowdown')} get slower during the run (a "
            "slowdown, not a warm-up); all of their values were analysed."),
            "Look at the run-sequence plot: a slowdown often comes from the program (a "
            "growing heap, a cache filling) or the machine (throttling).")
    if code == "no-steady-state":
        return Notice(code, (
            f"{role}: {_invocations(validity, 'no steady state')} reach no steady state "
            "(they still change in their last quarter); all of their values were analysed."),
            "Run more iterations per invocation until the times settle.")
    if code == "inconsistent-invocations":
        return Notice(code, (
            f"{role}: the invocations behave differently ({tally(classes)})."),
            "The program's behaviour depends on the invocation: run more invocations, and "
            "look at the run-sequence plot for the odd ones.")
    if code in ("dependent-values", "dependent-values-ignored"):
        correlated = (f"{role}: successive values are correlated (lag-1 autocorrelation "
                      f"{dependence.lag1:.2f}, about {dependence.effective_n:.0f} independent "
                      f"values of {validity.values})")
        if code == "dependent-values":
            return Notice(code, (
                f"{correlated}: the analysis ran on means of batches of "
                f"{dependence.batch} values."),
                "Measure several invocations: their means are the independent units.")
        return Notice(code, (
            f"{correlated}, and were analysed as independent (--dependence ignore): the "
            "intervals and p-values are too narrow."),
            "Analyse batch means (--dependence batch), or measure several invocations.")
    if code == "run-order-trend":
        return Notice(code, (
            f"{role}: the values trend across the run order (Mann–Kendall τ = "
            f"{order.statistic:.2f}, p = {order.p_value:.2g})."),
            "Something changed during the runs (the machine's temperature, other load): "
            "interleave the versions' runs (A B A B …) and check the machine.")
    return Notice(code, (
        f"{role}: the values depend on their position within each invocation "
        f"(Friedman χ² = {order.statistic:.3g}, p = {order.p_value:.2g})."),
        "The protocol runs on the invocations' means, which this does not bias; to "
        "analyse the steady values only, leave out the first ones (--warmup N).")


def _positions(positions: Sequence[int]) -> str:
    """Positions from 0 as the messages count them (from 1), at most ten."""
    shown = [str(position + 1) for position in positions]
    return ", ".join(shown[:10]) + (", …" if len(shown) > 10 else "")


def run_notice(sides: Sequence[SideValidity]) -> Notice | None:
    """The run's one line on its measurements (``sides``: every benchmark's, once each):
    warm-ups left out, dependent values, series too short to judge."""
    if not sides:
        return None
    dropped = [side for side in sides if side.dropped]
    batched = [side for side in sides if side.dependence and side.dependence.batch > 1]
    short = [side for side in sides if not side.judged]
    parts = []
    if dropped:
        parts.append(f"warm-ups left out on {counted(len(dropped), 'side')} "
                     f"({counted(sum(side.dropped for side in dropped), 'value')})")
    if batched:
        parts.append(f"dependent values analysed as batch means on "
                     f"{counted(len(batched), 'side')}")
    if not parts:
        return None
    if short:
        parts.append(f"{counted(len(short), 'side')} too short to judge a steady state")
    return Notice("measurement-quality",
                  f"Measurements of {counted(len(sides), 'side')}: " + "; ".join(parts) + ".",
                  "See each benchmark's warnings and run-sequence plot; --warmup none keeps "
                  "every value.")


#: A speedup within this factor of 10³ᵏ (k = ±1, ±2, ±3) between plain samples looks like
#: a change of unit (seconds against milliseconds), not of speed.
UNIT_TOLERANCE = 0.05


def power_of_thousand(speedup: float) -> int | None:
    """The k ≠ 0 (−3 … 3) for which ``speedup`` is within UNIT_TOLERANCE of 1000ᵏ, if any."""
    if not speedup > 0 or not math.isfinite(speedup):
        return None
    k = round(math.log10(speedup) / 3)
    if k == 0 or abs(k) > 3:
        return None
    return k if abs(speedup / 10.0 ** (3 * k) - 1) <= UNIT_TOLERANCE else None


def units_notice(speedup: float) -> Notice:
    return Notice(
        "different-units",
        f"Different units? The speedup of the means is {speedup:.4g}×, within "
        f"{UNIT_TOLERANCE:.0%} of 10^{3 * power_of_thousand(speedup)}, between plain samples "
        "whose unit is not stated.",
        "Check that both samples are in the same unit, or state it: a unit column in the "
        "config (s, ms, us, ns), or the tools' own result files.")


def run_units_notice(names: Sequence[str]) -> Notice | None:
    if not names:
        return None
    shown = first_names(list(names), 5)
    return Notice(
        "different-units",
        f"Different units? {counted(len(names), 'benchmark')} of plain samples "
        f"{'has' if len(names) == 1 else 'have'} a speedup within {UNIT_TOLERANCE:.0%} of a "
        f"power of 1000 ({shown}).",
        "Check that both sides are in the same unit, or state it with a unit column in the "
        "config.")

"""The measurement checks between reading a benchmark's samples and analysing them.

Each side's series are checked (:func:`speeduptest.stats.steady.check_sides`): their warm-ups
are left out as ``--warmup`` asks, dependent values of a one-level sample become batch means,
and what was found becomes the benchmark's ``validity`` and its warnings, each with the advice
that follows from it. The run's summary of them is one notice (:func:`run_notice`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from speeduptest.notices import Notice, counted
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.steady import SideValidity, WarmupError, check_sides

ROLES = ("initial", "optimized")


@dataclass(frozen=True)
class CheckedSides:
    """Both sides as they are analysed, what the checks found, and the warnings."""

    initial: Hierarchy
    optimized: Hierarchy
    validity: tuple[SideValidity, SideValidity]
    notices: tuple[Notice, ...]


def check_pairs(pairs: Sequence[tuple[Hierarchy, Hierarchy]], warmup: str, dependence: str,
                min_values: int) -> list[CheckedSides | str]:
    """Both sides of each pair (initial, optimized) checked, all of them together
    (:func:`speeduptest.stats.steady.check_sides`), or why a pair cannot be analysed after
    the check (``--warmup N`` leaves too few values)."""
    checked = iter(check_sides([side for pair in pairs for side in pair], warmup, dependence))
    found: list[CheckedSides | str] = []
    for _ in pairs:
        sides = (next(checked), next(checked))
        found.append(_both(sides, warmup, min_values))
    return found


def _both(sides: tuple, warmup: str, min_values: int) -> CheckedSides | str:
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
    notices = tuple(side_notices("initial", initial_validity)
                    + side_notices("optimized", optimized_validity))
    return CheckedSides(initial, optimized, (initial_validity, optimized_validity), notices)


def _invocations(validity: SideValidity, wanted: str) -> str:
    count = sum(1 for c in validity.classes if c == wanted)
    total = len(validity.classes)
    return "its series" if total == 1 else f"{count} of its {total} invocations"


def side_notices(role: str, validity: SideValidity) -> list[Notice]:
    """The warnings of one side's checks, each with its advice."""
    notices: list[Notice] = []
    classes = validity.classes
    if validity.dropped and validity.warmup == "auto":
        notices.append(Notice(
            "warmup-dropped",
            f"{role}: a warm-up was detected in {_invocations(validity, 'warmup')} and left "
            f"out ({counted(validity.dropped, 'value')}, from position(s) "
            f"{_starts(validity)}).",
            "The values analysed are the steady state; measure more iterations per "
            "invocation, or set --warmup N (or none) to choose what is left out."))
    elif "warmup" in classes:
        left = ("all of their values were analysed" if validity.warmup == "none" else
                f"the first {validity.warmup} values of each were left out")
        notices.append(Notice(
            "residual-warmup",
            f"{role}: {_invocations(validity, 'warmup')} warm up: their steady state starts "
            f"at position(s) {_starts(validity)}, and {left} (--warmup {validity.warmup}).",
            "Leave the warm-up out (--warmup auto, or a larger --warmup N), or the result "
            "mixes warm-up and steady state."))
    if "slowdown" in classes:
        notices.append(Notice(
            "series-slowdown",
            f"{role}: {_invocations(validity, 'slowdown')} get slower during the run (a "
            "slowdown, not a warm-up); all of their values were analysed.",
            "Look at the run-sequence plot: a slowdown often comes from the program (a "
            "growing heap, a cache filling) or the machine (throttling)."))
    if "no steady state" in classes:
        notices.append(Notice(
            "no-steady-state",
            f"{role}: {_invocations(validity, 'no steady state')} reach no steady state "
            "(they still change in their last quarter); all of their values were analysed.",
            "Run more iterations per invocation until the times settle."))
    if validity.consistent is False:
        notices.append(Notice(
            "inconsistent-invocations",
            f"{role}: the invocations behave differently ({_classes(classes)}).",
            "The program's behaviour depends on the invocation: run more invocations and "
            "compare invocation means (a sample with an invocation column)."))
    dependence = validity.dependence
    if dependence is not None and dependence.batch > 1:
        notices.append(Notice(
            "dependent-values",
            f"{role}: successive values are correlated (lag-1 autocorrelation "
            f"{dependence.lag1:.2f}, about {dependence.effective_n:.0f} independent values of "
            f"{validity.values}): the analysis ran on means of batches of "
            f"{dependence.batch} values.",
            "Measure several invocations: their means are the independent units."))
    elif dependence is not None and dependence.dependent:
        notices.append(Notice(
            "dependent-values-ignored",
            f"{role}: successive values are correlated (lag-1 autocorrelation "
            f"{dependence.lag1:.2f}, about {dependence.effective_n:.0f} independent values of "
            f"{validity.values}), and were analysed as independent (--dependence ignore): "
            "the intervals and p-values are too narrow.",
            "Analyse batch means (--dependence batch), or measure several invocations."))
    order = validity.order
    if order is not None and order.significant:
        if order.test == "mann-kendall":
            notices.append(Notice(
                "run-order-trend",
                f"{role}: the values trend across the run order (Mann–Kendall τ = "
                f"{order.statistic:.2f}, p = {order.p_value:.2g}).",
                "Something changed during the runs (the machine's temperature, other load): "
                "interleave the versions' runs (A B A B …) and check the machine."))
        else:
            notices.append(Notice(
                "position-effect",
                f"{role}: the values depend on their position within each invocation "
                f"(Friedman χ² = {order.statistic:.3g}, p = {order.p_value:.2g}).",
                "The protocol runs on the invocations' means, which this does not bias; to "
                "analyse the steady values only, leave out the first ones (--warmup N)."))
    return notices


def _starts(validity: SideValidity) -> str:
    starts = [str(start + 1) for start, c in zip(validity.starts, validity.classes,
                                                 strict=True) if c == "warmup"]
    return ", ".join(starts[:10]) + (", …" if len(starts) > 10 else "")


def _classes(classes: Sequence[str]) -> str:
    counts = {c: sum(1 for other in classes if other == c) for c in dict.fromkeys(classes)}
    return ", ".join(f"{count} {name}" for name, count in counts.items())


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
    shown = ", ".join(names[:5]) + (f", … ({len(names) - 5} more)" if len(names) > 5 else "")
    return Notice(
        "different-units",
        f"Different units? {counted(len(names), 'benchmark')} of plain samples "
        f"{'has' if len(names) == 1 else 'have'} a speedup within {UNIT_TOLERANCE:.0%} of a "
        f"power of 1000 ({shown}).",
        "Check that both sides are in the same unit, or state it with a unit column in the "
        "config.")

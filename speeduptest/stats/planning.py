"""Experiment planning: how many repetitions at each level give the most precise result for
the time spent (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013, §9).

With T²ᵢ the variance that level i adds and Cᵢ the cost of one more unit at level i (level 1 =
one measurement, e.g. an iteration; level 2 e.g. starting an invocation; level 3 a build), the
optimal number of level-i units within each level-(i+1) unit is

    nᵢ = ⌈√((Cᵢ₊₁ / Cᵢ) · T²ᵢ / T²ᵢ₊₁)⌉      (so n₁ = ⌈√(C₂·T²₁/T²₂)⌉ when C₁ = 1).

A level whose T² ≤ 0 adds no measurable variance: it is repeated once (n = 1), and the level
below it is compared with the next level up that adds variance, whose cost then includes the
skipped level's (one unit of it is still made for every unit above).

Any times and costs a float holds give a plan: the variance components of times near 1e308 or
1e-320 are computed at a scale near 1 (:func:`speeduptest.stats.hierarchy.variance_components`), the
ratios of costs and variances that overflow are taken in logarithms, and no level is repeated
more than ``MAX_REPETITIONS`` times per unit above (the plan says where it capped one).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from speeduptest.stats.hierarchy import VarianceComponents, scaled_figure

#: Repetitions of a level per unit above, at most: beyond, the costs or the variances differ
#: by more than 10¹⁸ (a cost given in the wrong unit?), and no experiment would follow it.
MAX_REPETITIONS = 10**9


@dataclass(frozen=True)
class LevelPlan:
    name: str
    s2: float | None  # S² and T² of the times × 2**-scale_exponent (see ExperimentPlan)
    t2: float | None
    cost: float
    repetitions: int | None  # per unit of the level above; None for the top level (budget)
    adds_variance: bool
    capped: bool = False  # the optimum is beyond MAX_REPETITIONS, which was planned instead


@dataclass(frozen=True)
class ExperimentPlan:
    """Levels from the measurements (first) to the top level (last)."""

    levels: tuple[LevelPlan, ...]
    #: The cost of one top-level unit with the planned repetitions is
    #: scaled_unit_cost × 2**cost_exponent (in the unit of the costs: it may be beyond the
    #: floats, as may the budget it divides).
    scaled_unit_cost: float
    cost_exponent: int = 0
    budget: float | None = None
    #: The levels' S² and T² are those of the times × 2**-scale_exponent (0: in their unit).
    scale_exponent: int = 0

    @property
    def top_unit_cost(self) -> float:
        """The cost of one top-level unit; ``inf`` beyond the floats (see
        :meth:`top_unit_cost_text`)."""
        try:
            return math.ldexp(self.scaled_unit_cost, self.cost_exponent)
        except OverflowError:
            return math.inf

    def top_unit_cost_text(self) -> str:
        return scaled_figure(self.scaled_unit_cost, self.cost_exponent, 6)

    def variance_text(self, value: float | None) -> str:
        """A level's S² or T² in the unit of the times (squared), "—" for none."""
        return "—" if value is None else scaled_figure(value, 2 * self.scale_exponent)

    @property
    def affordable_top_units(self) -> int | None:
        if self.budget is None:
            return None
        units = self.budget / self.top_unit_cost
        if math.isfinite(units) and units < 2**53:
            return math.floor(units)
        # Beyond the floats, or where a float no longer holds every whole number: exact.
        return math.floor(Fraction(self.budget) / (Fraction(self.scaled_unit_cost)
                                                   * Fraction(2) ** self.cost_exponent))

    @property
    def capped(self) -> tuple[LevelPlan, ...]:
        """The levels whose repetitions were capped at MAX_REPETITIONS."""
        return tuple(level for level in self.levels if level.capped)


def optimal_repetitions(t2: Sequence[float | None], costs: Sequence[float]) -> list[int | None]:
    """nᵢ for every level below the top (the last entry, the top level, is None), each at
    most ``MAX_REPETITIONS``.

    ``t2`` and ``costs`` are per level, measurements first.
    """
    return _repetitions(t2, costs)[0]


def _repetitions(t2: Sequence[float | None], costs: Sequence[float]
                 ) -> tuple[list[int | None], list[bool]]:
    """:func:`optimal_repetitions`, and for every level whether it was capped."""
    depth = len(t2)
    adds = [value is not None and value > 0 for value in t2]
    repetitions: list[int | None] = [None] * depth
    capped = [False] * depth
    for level in range(depth - 1):
        if not adds[level]:
            repetitions[level] = 1
            continue
        above = next((j for j in range(level + 1, depth) if adds[j]), None)
        if above is None:  # nothing above adds variance: repeat the levels above once
            repetitions[level] = 1
            continue
        # Skipped levels included in the cost above.
        root = _root_ratio(costs[level + 1:above + 1], costs[level], t2[level], t2[above])
        if root > MAX_REPETITIONS:
            repetitions[level], capped[level] = MAX_REPETITIONS, True
        else:
            # Guard against 3.0000000000000004-style noise before rounding up.
            repetitions[level] = max(1, math.ceil(round(root, 9)))
    return repetitions, capped


def _root_ratio(costs_above: Sequence[float], cost: float, t2: float, t2_above: float) -> float:
    """√((C_above / C) · T² / T²_above), C_above the sum of ``costs_above``; in logarithms
    where it overflows or underflows (``inf`` beyond the floats)."""
    ratio = (costs_above[-1] + sum(costs_above[:-1])) / cost * t2 / t2_above
    if 0 < ratio < math.inf:
        return math.sqrt(ratio)
    largest = max(costs_above)
    log_cost_above = math.log(largest) + math.log(sum(c / largest for c in costs_above))
    half_log = (log_cost_above - math.log(cost) + math.log(t2) - math.log(t2_above)) / 2
    return math.inf if half_log > math.log(MAX_REPETITIONS) else math.exp(half_log)


def plan_experiment(components: VarianceComponents, costs: Sequence[float],
                    budget: float | None = None) -> ExperimentPlan:
    repetitions, capped = _repetitions(components.t2, costs)
    # The costs at the scale of the largest (a power of two: exact), so that the cost of a
    # top-level unit stays within the floats whatever costs are given.
    exponent = math.frexp(max(costs))[1] if costs else 0
    unit_cost = 0.0
    for level, cost in enumerate(costs):  # bottom-up: a unit costs itself + its children
        scaled = math.ldexp(cost, -exponent)
        below = repetitions[level - 1] if level > 0 else 0
        unit_cost = scaled + (below or 0) * unit_cost if level > 0 else scaled
    levels = tuple(
        LevelPlan(name, s2, t2, cost, n, t2 is not None and t2 > 0, cap)
        for name, s2, t2, cost, n, cap in zip(components.level_names, components.s2,
                                              components.t2, costs, repetitions, capped,
                                              strict=True))
    return ExperimentPlan(levels, unit_cost, exponent, budget, components.scale_exponent)

"""Experiment planning: how many repetitions at each level give the most precise result for
the time spent (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM 2013, §9).

With T²ᵢ the variance that level i adds and Cᵢ the cost of one more unit at level i (level 1 =
one measurement, e.g. an iteration; level 2 e.g. starting an invocation; level 3 a build), the
optimal number of level-i units within each level-(i+1) unit is

    nᵢ = ⌈√((Cᵢ₊₁ / Cᵢ) · T²ᵢ / T²ᵢ₊₁)⌉      (so n₁ = ⌈√(C₂·T²₁/T²₂)⌉ when C₁ = 1).

A level whose T² ≤ 0 adds no measurable variance: it is repeated once (n = 1), and the level
below it is compared with the next level up that adds variance, whose cost then includes the
skipped level's (one unit of it is still made for every unit above).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .hierarchy import VarianceComponents


@dataclass(frozen=True)
class LevelPlan:
    name: str
    s2: float | None
    t2: float | None
    cost: float
    repetitions: int | None  # per unit of the level above; None for the top level (budget)
    adds_variance: bool


@dataclass(frozen=True)
class ExperimentPlan:
    """Levels from the measurements (first) to the top level (last)."""

    levels: tuple[LevelPlan, ...]
    top_unit_cost: float  # cost of one top-level unit with the planned repetitions
    budget: float | None = None

    @property
    def affordable_top_units(self) -> int | None:
        if self.budget is None:
            return None
        return math.floor(self.budget / self.top_unit_cost)


def optimal_repetitions(t2: Sequence[float | None], costs: Sequence[float]) -> list[int | None]:
    """nᵢ for every level below the top (the last entry, the top level, is None).

    ``t2`` and ``costs`` are per level, measurements first.
    """
    depth = len(t2)
    adds = [value is not None and value > 0 for value in t2]
    repetitions: list[int | None] = [None] * depth
    for level in range(depth - 1):
        if not adds[level]:
            repetitions[level] = 1
            continue
        above = next((j for j in range(level + 1, depth) if adds[j]), None)
        if above is None:  # nothing above adds variance: repeat the levels above once
            repetitions[level] = 1
            continue
        cost_above = costs[above] + sum(costs[level + 1:above])  # skipped levels included
        ratio = (cost_above / costs[level]) * t2[level] / t2[above]
        # Guard against 3.0000000000000004-style noise before rounding up.
        repetitions[level] = max(1, math.ceil(round(math.sqrt(ratio), 9)))
    return repetitions


def plan_experiment(components: VarianceComponents, costs: Sequence[float],
                    budget: float | None = None) -> ExperimentPlan:
    repetitions = optimal_repetitions(components.t2, costs)
    unit_cost = 0.0
    for level, cost in enumerate(costs):  # bottom-up: a unit costs itself + its children
        below = repetitions[level - 1] if level > 0 else 0
        unit_cost = cost + (below or 0) * unit_cost if level > 0 else cost
    levels = tuple(
        LevelPlan(name, s2, t2, cost, n, t2 is not None and t2 > 0)
        for name, s2, t2, cost, n in zip(components.level_names, components.s2, components.t2,
                                         costs, repetitions, strict=True))
    return ExperimentPlan(levels, unit_cost, budget)

"""Fieller's confidence interval of a ratio of two means, θ = mean(initial) / mean(optimized),
from each side's relative variance of the mean (:class:`MeanRatio`), on arrays over the
benchmarks of a run: the interval (:func:`fieller_bounds`), the confidence set among the
positive speedups that a call uses (:func:`call_fieller_bounds`), and the p-value of θ = 1
that it inverts (:func:`fieller_p_value`).

References
----------
E. C. Fieller, "Some problems in interval estimation", JRSS B 16(2), 1954.
R. K. Banerjee, "On confidence interval for two-means problem based on separate estimates of
variances and tabulated values of t-table", Sankhyā A 23, 1961.
T. Kalibera, R. Jones, "Quantifying performance changes with effect size confidence
intervals", University of Kent TR 4-12, 2012.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from speeduptest.stats.rowwise import once_per_distinct

#: p-values below this are not resolved by the inversion of Fieller's interval.
SMALLEST_P = 1e-300

@dataclass(slots=True)
class MeanRatio:
    """What Fieller's interval of θ = mean(initial) / mean(optimized) needs, per benchmark.

    Arrays over benchmarks: the speedup θ̂, each side's relative variance of the mean
    u = Var(mean) / mean² (from the top-level units, S²ₖ / nₖ / mean²) and its degrees of
    freedom nₖ − 1. Relative quantities keep the interval independent of the time unit.
    """

    speedup: np.ndarray
    initial_relative_variance: np.ndarray
    optimized_relative_variance: np.ndarray
    initial_df: np.ndarray
    optimized_df: np.ndarray

    @classmethod
    def of(cls, rows: Sequence[tuple[float, float, float, float, float, float]]) -> MeanRatio:
        """From (mean_i, var_of_mean_i, df_i, mean_o, var_of_mean_o, df_o) per benchmark."""
        data = np.array(rows, dtype=float).reshape(-1, 6)
        mean_i, var_i, df_i, mean_o, var_o, df_o = data.T
        return cls(mean_i / mean_o, (np.sqrt(var_i) / mean_i) ** 2,
                   (np.sqrt(var_o) / mean_o) ** 2, df_i, df_o)

    def take(self, rows: np.ndarray | slice) -> MeanRatio:
        """The benchmarks at ``rows`` (indices, in their order; or a slice: views)."""
        # (Written out: taken for every benchmark, MeanRatio.row.)
        return MeanRatio(self.speedup[rows], self.initial_relative_variance[rows],
                         self.optimized_relative_variance[rows], self.initial_df[rows],
                         self.optimized_df[rows])

    def stacked(self) -> np.ndarray:
        """The fields as the rows of one array (``MeanRatio(*stacked)`` is this again)."""
        return np.array([getattr(self, name) for name in _RATIO_FIELDS])

    def floored(self, initial: np.ndarray | float, optimized: np.ndarray | float
                ) -> MeanRatio:
        """The same benchmarks with each side's relative variance at least ``initial`` and
        ``optimized``: the least a timer's resolution leaves to a mean
        (:func:`speeduptest.stats.resolution.relative_floor`)."""
        return MeanRatio(self.speedup,
                         np.maximum(self.initial_relative_variance, initial),
                         np.maximum(self.optimized_relative_variance, optimized),
                         self.initial_df, self.optimized_df)

    def row(self, index: int) -> MeanRatio:
        """The benchmark at ``index`` alone."""
        return self.take(slice(index, index + 1))

    @classmethod
    def concatenate(cls, ratios: Sequence[MeanRatio]) -> MeanRatio:
        """One MeanRatio over the benchmarks of several."""
        return cls(*(np.concatenate([getattr(r, name) for r in ratios])
                     for name in _RATIO_FIELDS))

_RATIO_FIELDS = ("speedup", "initial_relative_variance", "optimized_relative_variance",
                 "initial_df", "optimized_df")

def _t_quantile(df: np.ndarray, two_sided_p: np.ndarray) -> np.ndarray:
    """|t| such that P(|T_df| > |t|) = p, accurate for tiny p (lower tail, no 1 − p/2)."""
    from scipy import special  # here: the command line parses its options without scipy

    # (one quantile per sample size at one level: 10,000 pairs, ~15 ms less)
    return -once_per_distinct(special.stdtrit, df, np.asarray(two_sided_p) / 2)

def fieller_bounds(ratio: MeanRatio, confidence: np.ndarray | float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fieller's interval for θ at ``confidence`` (per benchmark): low, high, bounded.

    The set {θ : (Ȳᵢ − θȲₒ)² ≤ tᵢ²Vᵢ + θ²tₒ²Vₒ}, tₖ with nₖ − 1 degrees of freedom, written
    relative to the means: with r = θ̂ and uₖ = Vₖ/Ȳₖ², the bounds are
    r·(1 ∓ √D)/(1 − tₒ²uₒ), D = tᵢ²uᵢ + tₒ²uₒ − tᵢ²tₒ²uᵢuₒ. D is a sum of non-negative terms
    whenever the interval is bounded (1 − tₒ²uₒ > 0), so it never cancels the way
    b² − ac does for very precise data. Unbounded (NaN bounds) when 1 − tₒ²uₒ ≤ 0, i.e.
    when the optimized mean is not significantly different from 0.
    """
    c_i, c_o = _fieller_terms(ratio, confidence)
    a = 1 - c_o
    bounded = a > 0
    spread = np.sqrt(np.maximum(c_i * a + c_o, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(bounded, ratio.speedup * (1 - spread) / a, np.nan)
        high = np.where(bounded, ratio.speedup * (1 + spread) / a, np.nan)
    return low, high, bounded

def _fieller_terms(ratio: MeanRatio, confidence: np.ndarray | float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """cᵢ = tᵢ²uᵢ and cₒ = tₒ²uₒ at ``confidence``: each side's mean is significantly
    different from 0 at that level exactly when its c is below 1."""
    alpha = 1 - np.asarray(confidence, dtype=float)
    return (_t_quantile(ratio.initial_df, alpha) ** 2 * ratio.initial_relative_variance,
            _t_quantile(ratio.optimized_df, alpha) ** 2 * ratio.optimized_relative_variance)

def call_fieller_bounds(ratio: MeanRatio, confidence: np.ndarray | float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Fieller's confidence set as a call uses it: the speedups θ > 0 with
    (r − θ)² ≤ tᵢ²uᵢr² + θ²tₒ²uₒ (the set of :func:`fieller_bounds` among the positive
    speedups). It is an interval [low, high], 0 ≤ low ≤ r ≤ high ≤ ∞, per benchmark. With
    cₖ = tₖ²uₖ, a = 1 − cₒ and D = cᵢa + cₒ:

    - both means significantly different from 0 (cᵢ < 1, cₒ < 1): Fieller's bounded interval,
      r·(1 ∓ √D)/a;
    - the optimized mean not (cₒ ≥ 1 > cᵢ): the set is two rays, and the positive one is
      [r·(1 − cᵢ)/(1 + √D), ∞) (the lower bound r·(1 − √D)/a written without dividing by
      a ≤ 0);
    - the initial mean not (cᵢ ≥ 1 > cₒ): (0, r·(1 + √D)/a], the mirror image. Swapping the
      versions maps each set onto the other (θ ↦ 1/θ), so a call never depends on which
      version is named initial;
    - neither: every positive speedup (low 0, high ∞).

    The set grows with the level (larger t), so a stricter level never gives a stronger call,
    and it excludes 1 exactly when :func:`fieller_p_value` is at most 1 − level. With each
    side's own t quantile it is Banerjee's (1961) conservative set for the difference
    Ȳᵢ − θȲₒ: its coverage rests on the normality of the units' means, not on their number.
    """
    c_i, c_o = _fieller_terms(ratio, confidence)
    a = 1 - c_o
    # Each condition written the same way, so that swapping the versions swaps them exactly.
    optimized_significant, initial_significant = a > 0, 1 - c_i > 0
    spread = np.sqrt(np.maximum(c_i * a + c_o, 0.0))
    r = ratio.speedup
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(optimized_significant, r * (1 - spread) / a,
                       r * (1 - c_i) / (1 + spread))
        high = np.where(optimized_significant, r * (1 + spread) / a, math.inf)
    return np.where(initial_significant, low, 0.0), high

def fieller_p_value(ratio: MeanRatio) -> np.ndarray:
    """Two-sided p-value of θ = 1 that Fieller's interval inverts, per benchmark.

    The interval at level 1 − p excludes 1 exactly when this p-value is ≤ p: it is the p at
    which θ = 1 lies on the interval's boundary, (r − 1)² = tᵢ(p)²uᵢr² + tₒ(p)²uₒ. With equal
    degrees of freedom on both sides it is Student's 2·P(T > |r − 1|/√(uᵢr² + uₒ)); otherwise
    it is found by bisection on log p (to about 1e-15 relative).
    """
    from scipy import special

    r = ratio.speedup
    u_i, u_o = ratio.initial_relative_variance, ratio.optimized_relative_variance
    distance = (r - 1) ** 2
    scale_i, scale_o = u_i * r * r, u_o
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = np.sqrt(distance / (scale_i + scale_o))
        p_value = 2 * special.stdtr(ratio.initial_df, -statistic)
    unequal = np.flatnonzero(np.asarray(ratio.initial_df != ratio.optimized_df))
    if unequal.size:  # (bisected for those only: 110 steps over every benchmark took 0.7 s)
        p_value = np.array(p_value, dtype=float)
        p_value[unequal] = _bisect_p_value(
            *(np.broadcast_to(array, p_value.shape)[unequal] for array in (
                distance, scale_i, scale_o, ratio.initial_df, ratio.optimized_df)))
    p_value = np.where(distance == 0, 1.0, p_value)  # no change at all, whatever the noise
    # No variance on either side: any difference is certain.
    return np.where((scale_i + scale_o == 0) & (distance > 0), 0.0, np.clip(p_value, 0, 1))

def _bisect_p_value(distance, scale_i, scale_o, df_i, df_o) -> np.ndarray:
    def excess(log_p: np.ndarray) -> np.ndarray:  # decreasing in p
        p = np.exp(log_p)
        with np.errstate(invalid="ignore", over="ignore"):  # a side without variance: 0·∞
            terms = (np.nan_to_num(_t_quantile(df_i, p) ** 2 * scale_i)
                     + np.nan_to_num(_t_quantile(df_o, p) ** 2 * scale_o))
        return terms - distance

    low = np.full(np.shape(distance), np.log(SMALLEST_P))
    high = np.zeros(np.shape(distance))
    beyond = excess(low) < 0  # 1 is excluded even at level 1 − 1e-300
    for _ in range(110):  # the bracket shrinks from 690 to below 1e-30 in log p
        middle = (low + high) / 2
        above = excess(middle) > 0
        low = np.where(above, middle, low)
        high = np.where(above, high, middle)
    return np.where(beyond, 0.0, np.exp((low + high) / 2))

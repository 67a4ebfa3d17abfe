"""The five hypothesis tests of the Speedup-Test protocol.

Each function takes the initial sample ``x`` and the optimized sample ``y`` (or one sample) and
returns a small frozen result object in the manner of ``scipy.stats``: the statistic, the p-value,
the alternative that was tested and how the p-value was obtained. A test that is undefined for the
data (for example Shapiro–Wilk on a sample whose values are all identical) returns a result whose
``statistic`` and ``p_value`` are ``None`` and whose ``note`` says why; it never returns NaN.

The numbers agree with R's ``stats`` package (see ``tests/fixtures/generate_protocol_cases.R``).

References
----------
Touati, Worms, Briais, "The Speedup-Test: a statistical methodology for program speedup analysis
and computation", Concurrency and Computation: Practice and Experience 25(10), 2013.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import special

#: Shapiro–Wilk (Royston's AS R94 algorithm) is defined for 3 to 5000 values, as in R.
SHAPIRO_MAX_SIZE = 5000
#: R's wilcox.test uses the exact distribution below this size on both sides (and without ties).
WILCOXON_EXACT_LIMIT = 50
#: R's ks.test uses the exact two-sample distribution when n·m is below this.
KS_EXACT_PRODUCT = 10_000

Alternative = Literal["two-sided", "greater", "less"]


class _HypothesisTest:
    """Decision helpers shared by every result object (which all have ``p_value``)."""

    __slots__ = ()  # the results' own slots hold their fields (no instance dictionaries)
    p_value: float | None

    @property
    def computed(self) -> bool:
        return self.p_value is not None

    def rejects(self, alpha: float) -> bool:
        """Whether the null hypothesis is rejected at risk ``alpha`` (``p <= alpha``)."""
        return self.p_value is not None and self.p_value <= alpha


@dataclass(slots=True)
class ShapiroResult(_HypothesisTest):
    """Shapiro–Wilk test of normality of one sample (H0: the sample is normal)."""

    statistic: float | None
    p_value: float | None
    n: int
    note: str | None = None


@dataclass(slots=True)
class FTestResult(_HypothesisTest):
    """F-test of equal variances, F = var(x) / var(y) (H0: the variances are equal)."""

    statistic: float | None
    p_value: float | None
    df_numerator: int
    df_denominator: int
    alternative: Alternative = "two-sided"
    note: str | None = None


@dataclass(slots=True)
class TTestResult(_HypothesisTest):
    """Two-sample t-test of the means (Student's pooled or Welch's)."""

    variant: Literal["student", "welch"]
    statistic: float | None
    df: float | None
    p_value: float | None
    alternative: Alternative = "greater"
    note: str | None = None


@dataclass(slots=True)
class KSResult(_HypothesisTest):
    """Two-sample Kolmogorov–Smirnov test (H0: both samples come from the same distribution)."""

    statistic: float | None
    p_value: float | None
    method: Literal["exact", "asymptotic"]
    alternative: Alternative = "two-sided"
    note: str | None = None


@dataclass(slots=True)
class WilcoxonResult(_HypothesisTest):
    """Wilcoxon–Mann–Whitney rank-sum test, W = #{x_i > y_j} + ½ #{x_i = y_j}."""

    statistic: float | None
    p_value: float | None
    method: Literal["exact", "normal"]
    alternative: Alternative = "greater"
    note: str | None = None


def _is_constant(values: np.ndarray) -> bool:
    return bool(values.size == 0 or values.max() == values.min())


def _variance(values: np.ndarray) -> float:
    """Sample variance, exactly 0 for identical values (numpy's mean may leave 1e-31)."""
    return 0.0 if _is_constant(values) else float(np.var(values, ddof=1))


def _finite_or_none(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


#: Why a test is not computed (the same words per pair and batched): Shapiro–Wilk's sizes,
#: samples without a spread, and a W that is not a number (times spanning more than the floats,
#: 5e-324 to 1e300, against the other sample's scale).
SHAPIRO_SIZE_NOTE = f"defined for 3 to {SHAPIRO_MAX_SIZE} values"
IDENTICAL_NOTE = "all values are identical"
SHAPIRO_NOT_REPRESENTABLE = "not representable for these values, which span beyond the floats"


def shapiro_wilk(x: np.ndarray) -> ShapiroResult:
    """Shapiro–Wilk normality test, as R's ``shapiro.test`` (Royston 1995, AS R94).

    Not computed when the sample has fewer than 3 or more than 5000 values, or when all its
    values are identical.
    """
    x = np.asarray(x, dtype=float)
    n = int(x.size)
    if n < 3 or n > SHAPIRO_MAX_SIZE:
        return ShapiroResult(None, None, n, note=SHAPIRO_SIZE_NOTE)
    if _is_constant(x):
        return ShapiroResult(None, None, n, note=IDENTICAL_NOTE)
    # W is scale-invariant: at a scale near 1 (an exact power of two), scipy's zero-range
    # guard (range below 1e-19 gives W = 1, p = 1) cannot mistake tiny times for constants.
    x = np.ldexp(x, -int(np.frexp(np.max(np.abs(x)))[1]))
    # Imported here: scipy.stats costs ~0.8 s to import, and the batched path never needs it.
    from scipy import stats

    result = stats.shapiro(x)
    statistic, p_value = float(result.statistic), float(result.pvalue)
    if not (math.isfinite(statistic) and math.isfinite(p_value)):
        return ShapiroResult(None, None, n, note=SHAPIRO_NOT_REPRESENTABLE)
    return ShapiroResult(statistic, p_value, n)


def f_test(x: np.ndarray, y: np.ndarray) -> FTestResult:
    """Two-sided F-test of equal variances, F = s²(x) / s²(y), as R's ``var.test``.

    A zero variance on one side only gives F = 0 or ∞ and p = 0 (as R does); the statistic is
    then reported as ``None`` because it is not a finite number. Not computed when both
    variances are zero.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    df_num, df_den = x.size - 1, y.size - 1
    var_x, var_y = _variance(x), _variance(y)
    if var_x == 0 and var_y == 0:
        return FTestResult(None, None, df_num, df_den, note="both samples have zero variance")
    statistic = var_x / var_y if var_y > 0 else math.inf
    # Both tails straight from the F distribution: R's 1 - pf(F) cancels for tiny p-values.
    lower, upper = special.fdtr(df_num, df_den, statistic), special.fdtrc(df_num, df_den, statistic)
    p_value = min(1.0, 2.0 * min(lower, upper))
    return FTestResult(_finite_or_none(statistic), float(p_value), df_num, df_den)


def _upper_tail_t(statistic: float, df: float, alternative: Alternative) -> float:
    if alternative == "greater":
        return float(special.stdtr(df, -statistic))
    if alternative == "less":
        return float(special.stdtr(df, statistic))
    return float(min(1.0, 2.0 * special.stdtr(df, -abs(statistic))))


def t_test(
    x: np.ndarray,
    y: np.ndarray,
    *,
    equal_var: bool,
    alternative: Alternative = "greater",
) -> TTestResult:
    """Unpaired two-sample t-test, as R's ``t.test(x, y, alternative, var.equal)``.

    With ``alternative="greater"`` the alternative hypothesis is mean(x) > mean(y), i.e. the
    optimized program (y) is faster on average. Student's pooled-variance test when
    ``equal_var``, Welch's test (Welch–Satterthwaite degrees of freedom) otherwise. Not computed
    when the data are essentially constant (R's criterion: standard error below
    10 ε · max(|mean(x)|, |mean(y)|)).

    The statistic is computed here and the p-value from ``scipy.special.stdtr`` (what
    ``scipy.stats.ttest_ind`` uses), because the per-call overhead of ``ttest_ind`` (~0.8 ms)
    dominated the analysis of 1,000 benchmarks (see benchmarks/throughput.py).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    variant: Literal["student", "welch"] = "student" if equal_var else "welch"
    n, m = x.size, y.size
    var_x, var_y = _variance(x), _variance(y)
    if equal_var:
        df = n + m - 2.0
        pooled = ((n - 1) * var_x + (m - 1) * var_y) / df
        std_error = math.sqrt(pooled * (1 / n + 1 / m))
    else:
        part_x, part_y = var_x / n, var_y / m
        std_error = math.sqrt(part_x + part_y)
        try:
            denominator = part_x**2 / (n - 1) + part_y**2 / (m - 1)
            df = (part_x + part_y) ** 2 / denominator if denominator > 0 else math.nan
        except OverflowError:  # variances near 1e308 (times from 1e-320 to 1e300): no df
            df = math.nan
    mean_x, mean_y = float(x.mean()), float(y.mean())
    if std_error < 10 * np.finfo(float).eps * max(abs(mean_x), abs(mean_y)):
        return TTestResult(variant, None, None, None, alternative,
                           note="data are essentially constant")
    statistic = (mean_x - mean_y) / std_error
    if not (math.isfinite(statistic) and math.isfinite(df) and df > 0):
        return TTestResult(variant, None, None, None, alternative,
                           note="the statistic or its degrees of freedom are not representable "
                                "numbers for these data")
    return TTestResult(variant, statistic, df, _upper_tail_t(statistic, df, alternative),
                       alternative)


def _smirnov_statistic(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """D = max |F_x − F_y|, read only where a block of tied pooled values ends.

    Returns D and whether each sorted pooled value ends a tie block. Counts are integers, so
    D is exact: i values of x and j of y below a point give |i/m − j/n| = |i·n − j·m| / (m·n).
    """
    m, n = x.size, y.size
    pooled = np.concatenate([x, y])
    order = np.argsort(pooled, kind="mergesort")
    sorted_values = pooled[order]
    block_end = np.append(sorted_values[1:] != sorted_values[:-1], True)
    taken_x = np.cumsum(order < m)
    taken_y = np.arange(1, m + n + 1) - taken_x
    distance = np.abs(taken_x * n - taken_y * m)[block_end].max()
    return float(distance / (m * n)), block_end


def _smirnov_exact_upper(statistic: float, m: int, n: int, block_end: np.ndarray) -> float:
    """P(D ≥ statistic) under H0, exactly, conditional on the pooled ties (as R ≥ 4.2).

    Counts the lattice paths (i values of x and j of y taken after i + j pooled values) that
    reach |i/m − j/n| ≥ D at the end of a tie block, among all C(m + n, m) equally likely
    label assignments (Schröer and Trenkler 1995). Integer arithmetic decides the boundary;
    every row is scaled by i!·n!/(i + n)! so that the total at (m, n) is 1.
    """
    threshold = round(statistic * m * n)  # D·m·n is an integer: |i·n − j·m|
    crossed = [0.0] * (n + 1)  # scaled count of paths to (i, j) that reached the boundary
    total = [1.0] * (n + 1)  # scaled count of all paths to (i, j)
    for j in range(1, n + 1):
        if block_end[j - 1] and j * m >= threshold:
            crossed[j] = total[j]
        else:
            crossed[j] = crossed[j - 1]
    for i in range(1, m + 1):
        scale = i / (i + n)
        total[0] *= scale
        crossed[0] = total[0] if block_end[i - 1] and i * n >= threshold else crossed[0] * scale
        for j in range(1, n + 1):
            total[j] = scale * total[j] + total[j - 1]
            if block_end[i + j - 1] and abs(i * n - j * m) >= threshold:
                crossed[j] = total[j]
            else:
                crossed[j] = scale * crossed[j] + crossed[j - 1]
    return min(1.0, crossed[n])


def ks_test(x: np.ndarray, y: np.ndarray) -> KSResult:
    """Two-sided two-sample Kolmogorov–Smirnov test on the median-centred samples.

    The Speedup-Test applies it to X − med(X) and Y − med(Y): rejecting means the two
    distributions differ by more than a location shift, so the Wilcoxon–Mann–Whitney test cannot
    be read as a comparison of medians. As R's ``ks.test`` (R ≥ 4.2): the exact conditional
    distribution, which accounts for ties, when n·m < 10,000, and Kolmogorov's limiting
    distribution of √(nm/(n + m))·D otherwise. Centring on the median makes ties common (both
    centred samples contain 0 when their sizes are odd), and scipy's exact method ignores ties,
    hence the own implementation.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    m, n = x.size, y.size
    statistic, block_end = _smirnov_statistic(x - np.median(x), y - np.median(y))
    if m * n < KS_EXACT_PRODUCT:
        return KSResult(statistic, _smirnov_exact_upper(statistic, m, n, block_end), "exact")
    p_value = float(special.kolmogorov(math.sqrt(m * n / (m + n)) * statistic))
    return KSResult(statistic, p_value, "asymptotic")


@lru_cache(maxsize=128)
def _rank_sum_upper_tails(m: int, n: int) -> tuple[tuple[int, ...], int]:
    """Exact null distribution of the Mann–Whitney U for sizes m and n, without ties.

    Returns the counts of {U ≥ k} for k = 0 … m·n and the total C(m + n, m). The counts are the
    coefficients of the Gaussian binomial [m + n choose m]_q = Π (1 − q^(n+i)) / (1 − q^i),
    computed with Python integers, so they are exact (R's pwilcox counts the same way).
    """
    counts = [1]
    for i in range(1, m + 1):
        shift = n + i
        counts = [a - b for a, b in zip(counts + [0] * shift, [0] * shift + counts, strict=True)]
        for j in range(i, len(counts)):  # exact division by (1 − q^i)
            counts[j] += counts[j - i]
        del counts[i * n + 1:]
    tails = list(counts)
    for k in range(len(tails) - 2, -1, -1):
        tails[k] += tails[k + 1]
    return tuple(tails), tails[0]


def wilcoxon_mann_whitney(
    x: np.ndarray, y: np.ndarray, *, alternative: Alternative = "greater"
) -> WilcoxonResult:
    """Wilcoxon–Mann–Whitney rank-sum test, as R's ``wilcox.test(x, y, alternative)``.

    With ``alternative="greater"`` the alternative is that x tends to be greater than y,
    P(X > Y) > 1/2. Exact p-value when both samples have fewer than 50 values and the pooled
    sample has no ties; otherwise the normal approximation with tie and continuity correction
    (Hollander and Wolfe 1973, as R). Not computed when all pooled values are identical (the
    rank statistic then has no variance).

    Written out rather than calling ``scipy.stats.mannwhitneyu``, whose per-call overhead
    (~0.7 ms) dominated the analysis of many benchmarks; the exact distribution is cached
    per pair of sizes.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    m, n = x.size, y.size
    pooled = np.concatenate([x, y])
    _, inverse, ties = np.unique(pooled, return_inverse=True, return_counts=True)
    average_ranks = np.cumsum(ties) - (ties - 1) / 2.0
    statistic = float(average_ranks[inverse[:m]].sum() - m * (m + 1) / 2.0)
    exact = m < WILCOXON_EXACT_LIMIT and n < WILCOXON_EXACT_LIMIT and ties.size == pooled.size
    if exact:
        tails, total = _rank_sum_upper_tails(m, n)
        u = round(statistic)
        upper = tails[u] / total  # P(U ≥ u)
        lower = 1 - tails[u + 1] / total if u < m * n else 1.0  # P(U ≤ u)
        p_value = {"greater": upper, "less": lower,
                   "two-sided": min(1.0, 2 * min(upper, lower))}[alternative]
        return WilcoxonResult(statistic, float(p_value), "exact", alternative)
    if ties.size == 1:
        return WilcoxonResult(None, None, "normal", alternative, note=IDENTICAL_NOTE)
    centred = statistic - m * n / 2.0
    tie_term = float(np.sum(ties.astype(float) ** 3 - ties)) / ((m + n) * (m + n - 1))
    sigma = math.sqrt(m * n / 12.0 * ((m + n + 1) - tie_term))
    if alternative == "greater":
        p_value = special.ndtr(-(centred - 0.5) / sigma)
    elif alternative == "less":
        p_value = special.ndtr((centred + 0.5) / sigma)
    else:
        correction = math.copysign(0.5, centred) if centred else 0.0
        p_value = min(1.0, 2 * special.ndtr(-abs((centred - correction) / sigma)))
    return WilcoxonResult(statistic, float(p_value), "normal", alternative)

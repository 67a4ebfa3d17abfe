"""Wilcoxon–Mann–Whitney rank-sum test of two samples, over rows of pairs of samples.

W = #{x_i > y_j} + ½ #{x_i = y_j}, the Mann–Whitney U of x (Wilcoxon 1945, "Individual
comparisons by ranking methods", Biometrics Bulletin 1(6); Mann and Whitney 1947, "On a test of
whether one of two random variables is stochastically larger than the other", Annals of
Mathematical Statistics 18(1)). Its exact null distribution when both samples have fewer than
50 values and the pooled sample has no ties; otherwise the normal approximation with tie and
continuity correction (Hollander and Wolfe 1973, "Nonparametric statistical methods", section
4.1), as R's ``wilcox.test`` (tests/stats/test_against_r.py). The ranks come from the sorted
pooled rows in integer arithmetic; the exact tail probabilities are cached per pair of sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

import numpy as np
from scipy import special

from speeduptest.stats.hypothesis import IDENTICAL_NOTE, Alternative, HypothesisTest
from speeduptest.stats.rowwise import (
    LONG_ROW_SIZE,
    argsort_rows,
    frozen,
    paired_rows,
    python_min,
)

#: R's wilcox.test uses the exact distribution below this size on both sides (and without ties).
WILCOXON_EXACT_LIMIT = 50


@dataclass(slots=True)
class WilcoxonResult(HypothesisTest):
    """Wilcoxon–Mann–Whitney rank-sum test, W = #{x_i > y_j} + ½ #{x_i = y_j}."""

    statistic: float | None
    p_value: float | None
    method: Literal["exact", "normal"]
    alternative: Alternative = "greater"
    note: str | None = None


def wilcoxon_mann_whitney(x: np.ndarray, y: np.ndarray, *,
                          alternative: Alternative = "greater") -> WilcoxonResult:
    """Wilcoxon–Mann–Whitney test of one pair of samples: :func:`wilcoxon_mann_whitney_rows`
    of a batch of one."""
    return wilcoxon_mann_whitney_rows(np.asarray(x, dtype=float).reshape(1, -1),
                                      np.asarray(y, dtype=float).reshape(1, -1),
                                      alternative=alternative)[0]


def wilcoxon_mann_whitney_rows(x: np.ndarray, y: np.ndarray, *,
                               alternative: Alternative = "greater") -> list[WilcoxonResult]:
    """Wilcoxon–Mann–Whitney rank-sum test of every row of ``x`` and ``y`` (shapes (B, m) and
    (B, n)), as R's ``wilcox.test(x, y, alternative)``.

    With ``alternative="greater"`` the alternative is that x tends to be greater than y,
    P(X > Y) > 1/2. Exact p-value when both samples have fewer than 50 values and the pooled
    row has no ties; otherwise the normal approximation with tie and continuity correction.
    Not computed when all pooled values are identical (the rank statistic then has no
    variance). NaNs, as ``np.unique`` counts them, are one block of ties after every number.
    """
    _check_alternative(alternative)
    x, y = paired_rows(x, y)
    return _results(*_ranked(x, y), x.shape[1], y.shape[1], alternative)


def wilcoxon_arrays_both_ways(x: np.ndarray, y: np.ndarray, *,
                              alternative: Alternative = "greater"
                              ) -> tuple[WilcoxonArrays, WilcoxonArrays]:
    """``wilcoxon_mann_whitney_rows(x, y)`` and ``wilcoxon_mann_whitney_rows(y, x)`` as
    arrays, before their result objects (:func:`wilcoxon_objects`), the pooled rows ranked
    once: twice the rank sums of both samples add up to N·(N + 1), N = m + n (integers,
    exactly), and the ties are those of the same pooled rows."""
    _check_alternative(alternative)
    x, y = paired_rows(x, y)
    m, n = x.shape[1], y.shape[1]
    twice_rank_sum, ties, identical = _ranked(x, y)
    return (_arrays(twice_rank_sum, ties, identical, m, n, alternative),
            _arrays((m + n) * (m + n + 1) - twice_rank_sum, ties, identical, n, m,
                    alternative))


def _check_alternative(alternative: str) -> None:
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError("alternative must be 'two-sided', 'greater' or 'less', got "
                         f"{alternative!r}")


def _ranked(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: twice the rank sum of x in the pooled row, Σ (t³ − t) over its blocks of ties
    and whether all its values are identical."""
    if x.shape[1] + y.shape[1] < LONG_ROW_SIZE:
        return _rank_sums(x, y)
    return _rank_sums_long(np.sort(x, axis=1), np.sort(y, axis=1))


def _results(twice_rank_sum: np.ndarray, ties: np.ndarray, identical: np.ndarray, m: int,
             n: int, alternative: Alternative) -> list[WilcoxonResult]:
    """The test of every row from twice the rank sum of its first sample (of m values; n in
    the other) and the ties of the pooled row."""
    return wilcoxon_objects(_arrays(twice_rank_sum, ties, identical, m, n, alternative),
                            alternative)


class WilcoxonArrays(NamedTuple):
    """The tests of the rows as arrays: the statistic, the p-value (NaN where not
    computed), where the exact distribution was used and where all the pooled values are
    identical (not computed, unless exact)."""

    statistic: np.ndarray
    p_value: np.ndarray
    exact: np.ndarray
    identical: np.ndarray


def _arrays(twice_rank_sum: np.ndarray, ties: np.ndarray, identical: np.ndarray, m: int,
            n: int, alternative: Alternative) -> WilcoxonArrays:
    """:func:`_results` as arrays, before its result objects."""
    statistic = twice_rank_sum / 2 - m * (m + 1) / 2.0
    exact_sizes = m < WILCOXON_EXACT_LIMIT and n < WILCOXON_EXACT_LIMIT
    exact = (ties == 0) if exact_sizes else np.zeros(statistic.shape, dtype=bool)
    p_value = np.full(statistic.shape, np.nan)
    if exact.any():
        upper = _rank_sum_upper_probabilities(m, n)  # P(U ≥ u), and 0 past m·n
        u = np.rint(statistic[exact]).astype(np.int64)
        if alternative == "greater":
            p_value[exact] = upper[u]  # P(U ≥ u)
        elif alternative == "less":
            p_value[exact] = 1 - upper[u + 1]  # P(U ≤ u)
        else:
            p_value[exact] = python_min(1.0, 2 * python_min(upper[u], 1 - upper[u + 1]))
    normal = ~exact & ~identical
    if normal.any():
        if m * n == 0:  # no variance: the scalar formula divides by zero
            raise ZeroDivisionError("float division by zero")
        p_value[normal] = _normal_p_value(statistic[normal], ties[normal], m, n, alternative)
    return WilcoxonArrays(statistic, p_value, exact, identical)


def wilcoxon_objects(found: WilcoxonArrays, alternative: Alternative) -> list[WilcoxonResult]:
    """The result objects of :func:`_arrays`."""
    flat = WilcoxonResult(None, None, "normal", alternative, note=IDENTICAL_NOTE)
    return [(WilcoxonResult(s, p, "exact" if e else "normal", alternative)
             if not same or e else flat)
            for e, same, s, p in zip(found.exact.tolist(), found.identical.tolist(),
                                     found.statistic.tolist(), found.p_value.tolist(),
                                     strict=True)]


def _normal_p_value(statistic: np.ndarray, ties: np.ndarray, m: int, n: int,
                    alternative: Alternative) -> np.ndarray:
    """The normal approximation of the p-value, with the tie correction of the variance
    (``ties``: Σ (t³ − t) over the blocks of ties) and the continuity correction."""
    centred = statistic - m * n / 2.0
    tie_term = ties / ((m + n) * (m + n - 1))
    sigma = np.sqrt(m * n / 12.0 * ((m + n + 1) - tie_term))
    if alternative == "greater":
        return special.ndtr(-(centred - 0.5) / sigma)
    if alternative == "less":
        return special.ndtr((centred + 0.5) / sigma)
    correction = np.where(centred != 0, np.copysign(0.5, centred), 0.0)
    return python_min(1.0, 2 * special.ndtr(-np.abs((centred - correction) / sigma)))


def _rank_sum_upper_tails(m: int, n: int) -> tuple[tuple[int, ...], int]:
    """Exact null distribution of the Mann–Whitney U for sizes m and n, without ties.

    Returns the counts of {U ≥ k} for k = 0 … m·n and the total C(m + n, m). The counts are the
    coefficients of the Gaussian binomial [m + n choose m]_q = Π (1 − q^(n+i)) / (1 − q^i),
    exact integers (R's pwilcox counts the same way); [m + n choose m]_q = [m + n choose n]_q,
    so both orders of the sizes are one computation (the protocol asks for both).
    """
    return _gaussian_binomial_tails(min(m, n), max(m, n))


@lru_cache(maxsize=128)
def _gaussian_binomial_tails(m: int, n: int) -> tuple[tuple[int, ...], int]:
    """:func:`_rank_sum_upper_tails` for m ≤ n: in 64-bit integers where C(m + n, m) leaves
    room for the steps (every intermediate coefficient is at most twice a final one), each
    division by (1 − q^i) a cumulative sum along the coefficients' residues modulo i (31
    against 20 values: 0.05 ms, not 1 ms); in Python's integers otherwise. The same integers
    either way."""
    if math.comb(m + n, m) >= 1 << 61:
        return _python_integer_tails(m, n)
    counts = np.ones(1, dtype=np.int64)
    for i in range(1, m + 1):
        shift = n + i
        product = np.zeros(counts.size + shift, dtype=np.int64)  # times (1 − q^(n+i))
        product[:counts.size] = counts
        product[shift:] -= counts
        size = product.size
        chains = np.zeros(-(-size // i) * i, dtype=np.int64)  # divided by (1 − q^i)
        chains[:size] = product
        chains = np.cumsum(chains.reshape(-1, i), axis=0).ravel()
        counts = chains[:i * n + 1]
    tails = np.cumsum(counts[::-1])[::-1].tolist()
    return tuple(tails), tails[0]


def _python_integer_tails(m: int, n: int) -> tuple[tuple[int, ...], int]:
    """:func:`_rank_sum_upper_tails` in Python's integers (any sizes)."""
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


@lru_cache(maxsize=128)
def _rank_sum_upper_probabilities(m: int, n: int) -> np.ndarray:
    """P(U ≥ u) for u = 0 … m·n + 1 (the last 0), each the correctly rounded ratio of the
    exact counts."""
    tails, total = _rank_sum_upper_tails(m, n)
    return frozen(np.array([count / total for count in tails] + [0.0]))


def _equal_to_previous(ordered: np.ndarray) -> np.ndarray:
    """Per position of sorted rows but the first: whether the value equals the one before it,
    NaNs equal to each other (as ``np.unique`` counts them)."""
    same = ordered[..., 1:] == ordered[..., :-1]
    if np.isnan(ordered[..., -1:]).any():  # sorted: NaNs last
        same |= np.isnan(ordered[..., 1:]) & np.isnan(ordered[..., :-1])
    return same


def _tie_term_numerator(sizes: np.ndarray) -> float:
    """Σ (t³ − t) over the blocks of ties, summed as floats (as R and the formula do)."""
    return float(np.sum(sizes.astype(float) ** 3 - sizes))


def _rank_sums(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: twice the rank sum of x (an integer), Σ (t³ − t) over the tie blocks of the
    pooled row (as a float, equal to the floating sum of the same terms) and whether all
    values are identical."""
    m, n = x.shape[1], y.shape[1]
    assert m + n < LONG_ROW_SIZE <= 2**17  # so that Σ (t³ − t) < 2**53
    rows = x.shape[0]
    pooled = np.concatenate([x, y], axis=1)
    order = argsort_rows(pooled)  # ranks of tied values are averaged: any order will do
    ordered = np.take_along_axis(pooled, order, axis=1)
    from_x = order < m
    same = _equal_to_previous(ordered)
    has_ties = same.any(axis=1)
    # Twice the average rank of a value is first + last position of its block of ties:
    # integers, so the sums are exact (and equal to floating sums of the average ranks).
    twice_rank_sum = 2 * np.where(from_x, np.arange(1, m + n + 1), 0).sum(axis=1)
    ties = np.zeros(rows)
    identical = np.zeros(rows, dtype=bool)
    if has_ties.any():
        first, last = _blocks(same[has_ties])
        twice_rank_sum[has_ties] = np.where(from_x[has_ties], first + last, 0).sum(axis=1)
        size = last - first + 1
        # Σ over tie blocks of t³ − t, exactly; below 2**53 (rows are shorter than
        # LONG_ROW_SIZE), so a floating sum of the same terms is exact and equal.
        ties[has_ties] = (size * size - 1).sum(axis=1)
        identical[has_ties] = last[:, 0] == m + n
    return twice_rank_sum, ties, identical


def _blocks(same: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per position of sorted rows (``same``: whether each value but the first equals the one
    before it): the (1-based) first and last positions of its block of equal values."""
    rows, size = same.shape[0], same.shape[1] + 1
    block_end = np.ones((rows, size), dtype=bool)
    block_end[:, :-1] = ~same
    block_start = np.ones((rows, size), dtype=bool)
    block_start[:, 1:] = ~same
    position = np.arange(1, size + 1)
    first = np.maximum.accumulate(np.where(block_start, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(block_end, position, size + 1)[:, ::-1], axis=1)
    return first, last[:, ::-1]


def _rank_sums_long(x_sorted: np.ndarray,
                    y_sorted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_rank_sums` for long rows, one row at a time from the sorted samples: a stable
    sort of the two sorted runs is one merge, and the first and last positions of each x value's
    block are ``searchsorted`` left and right (which, as the sort, put NaNs together last)."""
    rows = x_sorted.shape[0]
    twice_rank_sum = np.empty(rows, dtype=np.int64)
    ties = np.zeros(rows)
    identical = np.zeros(rows, dtype=bool)
    for row in range(rows):
        pooled = np.sort(np.concatenate([x_sorted[row], y_sorted[row]]), kind="stable")
        twice_rank_sum[row] = (np.searchsorted(pooled, x_sorted[row], "left").sum()
                               + np.searchsorted(pooled, x_sorted[row], "right").sum()
                               + x_sorted.shape[1])
        starts = np.flatnonzero(~_equal_to_previous(pooled)) + 1
        sizes = np.diff(np.concatenate([[0], starts, [pooled.size]]))
        ties[row] = _tie_term_numerator(sizes) if sizes.size < pooled.size else 0.0
        identical[row] = sizes.size == 1
    return twice_rank_sum, ties, identical


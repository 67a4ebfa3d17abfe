"""Two-sample Kolmogorov–Smirnov test of the median-centred samples, over rows of pairs of
samples (Smirnov 1939, "On the estimation of the discrepancy between empirical curves of
distribution for two independent samples", Bulletin mathématique de l'Université de Moscou 2).

The Speedup-Test (Touati, Worms and Briais 2013, section 5) applies it to X − med(X) and
Y − med(Y): rejecting means that the two distributions differ by more than a location shift, so
that the Wilcoxon–Mann–Whitney test cannot be read as a comparison of medians. As R's
``ks.test`` (R ≥ 4.2): the exact distribution of D conditional on the ties of the pooled
sample when n·m < 10,000 (Schröer and Trenkler 1995, "Exact and randomization distributions of
Kolmogorov–Smirnov tests for two or three samples", Computational Statistics & Data Analysis
20(2)), Kolmogorov's limiting distribution of √(nm/(n + m))·D otherwise. Centring on the median
makes ties common (both centred samples contain 0 when their sizes are odd), and scipy's exact
method ignores ties, hence this implementation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import special

from speeduptest.stats.hypothesis import Alternative, HypothesisTest
from speeduptest.stats.rowwise import LONG_ROW_SIZE, argsort_rows, frozen, paired_rows, python_min

#: R's ks.test uses the exact two-sample distribution when n·m is below this.
KS_EXACT_PRODUCT = 10_000
#: The exact p-values of B rows are computed cell by cell (a scalar loop per row) when
#: B·m·n < CELLS_PAY·(m + n), along the anti-diagonals (m + n vectorised steps) otherwise: a
#: cell costs ~0.09 µs, a step ~3.7 µs for up to a few hundred rows. Measured, one row of 3
#: and 300 values: 0.11 ms cell by cell against 1.1 ms in steps; 60 and 60: 0.32 against
#: 0.45 ms; 99 and 99: 0.91 against 0.75 ms; four rows of 20 and 20: 0.17 against 0.19 ms.
CELLS_PAY = 40
#: ... and where the lattice of (m, n) is still to be built (~6.6 µs a step more: a pair of
#: sizes met once, such as a sample that lost its warm-up): 31 and 25 values, 0.07 ms a row
#: cell by cell against 0.74 ms for a batch's steps and lattice.
CELLS_PAY_UNBUILT = 110


@dataclass(slots=True)
class KSResult(HypothesisTest):
    """Two-sample Kolmogorov–Smirnov test (H0: both samples come from the same distribution)."""

    statistic: float | None
    p_value: float | None
    method: Literal["exact", "asymptotic"]
    alternative: Alternative = "two-sided"
    note: str | None = None


def ks_test(x: np.ndarray, y: np.ndarray) -> KSResult:
    """Kolmogorov–Smirnov test of one pair of samples: :func:`ks_test_rows` of a batch of
    one."""
    return ks_test_rows(np.asarray(x, dtype=float).reshape(1, -1),
                        np.asarray(y, dtype=float).reshape(1, -1))[0]


def ks_test_rows(x: np.ndarray, y: np.ndarray) -> list[KSResult]:
    """Two-sided two-sample Kolmogorov–Smirnov test of the median-centred samples, for every
    row of ``x`` and ``y`` (shapes (B, m) and (B, n)).

    D = max |F_x − F_y| is read where a block of tied pooled values ends, from integer
    counts (i values of x and j of y below a point give |i/m − j/n| = |i·n − j·m| / (m·n)),
    so it is exact. The exact p-value runs the lattice recursion of the counts of paths along
    the anti-diagonals of the lattice, m + n vectorised steps over the rows.
    """
    x, y = paired_rows(x, y)
    m, n = x.shape[1], y.shape[1]
    median_x, median_y = np.median(x, axis=1), np.median(y, axis=1)
    exact = m * n < KS_EXACT_PRODUCT
    if not exact and m + n >= LONG_ROW_SIZE:  # no pattern of ties needed: row by row
        distance = _smirnov_distance_long(x, y, median_x, median_y)
    else:
        distance, block_end = _smirnov_distance(x, y, median_x, median_y)
    statistic = distance / (m * n)
    if exact:
        pay = CELLS_PAY if (m, n) in _LATTICES_BUILT else CELLS_PAY_UNBUILT
        if statistic.size * m * n < pay * (m + n):
            # Too few rows for the m + n vectorised steps to pay: the recursion cell by cell.
            p_value = np.array([_smirnov_exact_upper(s, m, n, ends) for s, ends in
                                zip(statistic.tolist(), block_end.tolist(), strict=True)])
        else:
            threshold = np.rint(statistic * m * n).astype(np.int64)
            p_value = _smirnov_exact_distinct(threshold, m, n, block_end)
        method: Literal["exact", "asymptotic"] = "exact"
    else:
        p_value = special.kolmogorov(math.sqrt(m * n / (m + n)) * statistic)
        method = "asymptotic"
    return [KSResult(s, p, method) for s, p in zip(statistic.tolist(),
                                                   np.asarray(p_value, float).tolist(),
                                                   strict=True)]


def _smirnov_distance(x: np.ndarray, y: np.ndarray, median_x: np.ndarray,
                      median_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max |i·n − j·m| over the ends of tie blocks of the sorted pooled centred rows, and
    whether each sorted pooled position ends a block."""
    m, n = x.shape[1], y.shape[1]
    pooled = np.concatenate([x - median_x[:, None], y - median_y[:, None]], axis=1)
    # Counts are read only where a block of tied values ends, so the order within a block (an
    # unstable sort) does not matter; but every NaN is a block of its own, read in the order
    # of a stable sort (x's before y's).
    order = argsort_rows(pooled)
    with_nan = np.isnan(pooled).any(axis=1)
    if with_nan.any():
        order[with_nan] = np.argsort(pooled[with_nan], axis=1, kind="stable")
    ordered = np.take_along_axis(pooled, order, axis=1)
    block_end = np.ones(ordered.shape, dtype=bool)
    block_end[:, :-1] = ordered[:, 1:] != ordered[:, :-1]
    taken_x = np.cumsum(order < m, axis=1)
    taken_y = np.arange(1, m + n + 1) - taken_x
    distance = np.where(block_end, np.abs(taken_x * n - taken_y * m), 0).max(axis=1)
    return distance, block_end


def _smirnov_distance_long(x: np.ndarray, y: np.ndarray, median_x: np.ndarray,
                           median_y: np.ndarray) -> np.ndarray:
    """The same distance for long rows, one row at a time from the sorted samples: at every
    value v, i = #{x ≤ v} and j = #{y ≤ v} (all of v's ties, as at the end of its block).
    Subtracting the median keeps a sorted row sorted (rounding is monotone). Rows with a NaN
    (every NaN a block of its own) take the pooled rows' way."""
    m, n = x.shape[1], y.shape[1]
    x_sorted, y_sorted = np.sort(x, axis=1), np.sort(y, axis=1)
    distance = np.empty(x.shape[0], dtype=np.int64)
    for row in range(x.shape[0]):
        centred_x = x_sorted[row] - median_x[row]
        centred_y = y_sorted[row] - median_y[row]
        if np.isnan(centred_x).any() or np.isnan(centred_y).any():
            distance[row] = _smirnov_distance(x[row:row + 1], y[row:row + 1],
                                              median_x[row:row + 1], median_y[row:row + 1])[0][0]
            continue
        values = np.concatenate([centred_x, centred_y])
        taken_x = np.searchsorted(centred_x, values, "right")
        taken_y = np.searchsorted(centred_y, values, "right")
        distance[row] = np.abs(taken_x * n - taken_y * m).max()
    return distance


def _smirnov_exact_upper(statistic: float, m: int, n: int, block_end: list[bool]) -> float:
    """P(D ≥ statistic) under H0, exactly, conditional on the pooled ties (as R ≥ 4.2), for
    one pair: the recursion cell by cell.

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
        total[0] = left_total = total[0] * scale
        crossed[0] = left_crossed = (left_total if block_end[i - 1] and i * n >= threshold
                                     else crossed[0] * scale)
        distance = i * n  # i·n − j·m for j = 0, then one m less for each j
        for j, ends in enumerate(block_end[i:i + n], start=1):
            distance -= m
            total[j] = left_total = scale * total[j] + left_total
            if ends and abs(distance) >= threshold:
                crossed[j] = left_crossed = left_total
            else:
                crossed[j] = left_crossed = scale * crossed[j] + left_crossed
    return min(1.0, crossed[n])


#: The sizes whose lattice was built (some may have left the cache since: built again).
_LATTICES_BUILT: set[tuple[int, int]] = set()


@lru_cache(maxsize=16)
def _smirnov_lattice(m: int, n: int) -> tuple[tuple[int, int, np.ndarray, np.ndarray,
                                                     np.ndarray], ...]:
    """Per anti-diagonal k = 1 … m + n of the (m + 1) × (n + 1) lattice: the range of i, the
    row scales i / (i + n), |i·n − j·m| and the scaled count of all paths to each cell — the
    part of the exact recursion that does not depend on the data."""
    _LATTICES_BUILT.add((m, n))
    scale = np.array([0.0] + [i / (i + n) for i in range(1, m + 1)])
    total = np.zeros(m + 2)  # index i + 1 holds cell i of the current anti-diagonal
    total[1] = 1.0
    diagonals = []
    for k in range(1, m + n + 1):
        low, high = max(0, k - n), min(m, k)
        i = np.arange(low, high + 1)
        row_scale = scale[low:high + 1]
        total[low + 1:high + 2] = row_scale * total[low:high + 1] + total[low + 1:high + 2]
        distance = np.abs(i * n - (k - i) * m)
        cells = total[low + 1:high + 2, None].copy()
        diagonals.append((low, high, frozen(row_scale[:, None].copy()),
                          frozen(distance[:, None]), frozen(cells)))
    return tuple(diagonals)


def _smirnov_exact_distinct(threshold: np.ndarray, m: int, n: int,
                            block_end: np.ndarray) -> np.ndarray:
    """:func:`_smirnov_exact_rows`, computed once for each distinct (threshold, pattern of
    ties) among the rows: the p-value depends on nothing else, and a row's recursion on no
    other row, so the values are the same. Timing samples repeat them: with continuous
    values the only tie of the centred samples is their two medians, and 1,000 rows of
    31 against 31 values hold 30-50 distinct pairs (the recursion then takes a twentieth
    of the time)."""
    keys = np.concatenate([threshold[:, None],
                           np.packbits(block_end, axis=1).astype(np.int64)], axis=1)
    distinct, first, inverse = np.unique(keys, axis=0, return_index=True,
                                         return_inverse=True)
    if distinct.shape[0] == threshold.size:
        return _smirnov_exact_rows(threshold, m, n, block_end)
    return _smirnov_exact_rows(threshold[first], m, n, block_end[first])[inverse.ravel()]


def _smirnov_exact_rows(threshold: np.ndarray, m: int, n: int,
                        block_end: np.ndarray) -> np.ndarray:
    """:func:`_smirnov_exact_upper` for every row, along the anti-diagonals of the lattice.

    Cell (i, j) of the recursion is ``scale_i·C(i−1, j) + C(i, j−1)``, or the total count of
    paths to the cell when the path crosses the boundary there; both terms lie on the previous
    anti-diagonal, so each anti-diagonal is one vectorised step, with the same floating
    operations as the cell-by-cell loop. The arrays are (cell, row): a step reads and writes
    contiguous blocks. Two buffers alternate (the previous and the current anti-diagonal); an
    entry a step reads is either a cell of the previous anti-diagonal or one never written (0).
    The path totals do not depend on the data and are shared by all rows.
    """
    rows = threshold.size
    previous = np.zeros((m + 2, rows))  # index i + 1 holds cell i; index 0 stays 0
    current = np.zeros((m + 2, rows))
    limit = threshold[None, :]
    ends = np.ascontiguousarray(block_end.T)
    hit = np.empty((m + 1, rows), dtype=bool)
    for k, (low, high, row_scale, distance, total) in enumerate(_smirnov_lattice(m, n),
                                                                   start=1):
        out = current[low + 1:high + 2]
        np.multiply(previous[low:high + 1], row_scale, out=out)
        out += previous[low + 1:high + 2]
        crossing = hit[:high - low + 1]
        np.greater_equal(distance, limit, out=crossing)
        crossing &= ends[k - 1]
        np.copyto(out, total, where=crossing)
        previous, current = current, previous
    return python_min(1.0, previous[m + 1])

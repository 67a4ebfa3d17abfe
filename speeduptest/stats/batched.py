"""The tests of the protocol for many benchmarks of the same sample sizes at once.

:func:`run_tests_batched` returns, for every row of ``x`` (initial times, shape (B, n)) and ``y``
(optimized times, shape (B, m)), the :class:`~speeduptest.stats.protocol.ProtocolTests` that
:func:`speeduptest.stats.protocol.run_tests` returns for that row alone — the same result objects,
notes and methods, and the same numbers: every floating-point operation of the per-pair code is
repeated in the same order, only over a whole batch at once (issue 11). Concretely:

- the common power-of-two scale of :func:`~speeduptest.stats.protocol.common_scale` per row, and
  Shapiro–Wilk's own per-sample power-of-two scale;
- Shapiro–Wilk as scipy's translation of Royston's AS R94 (``scipy.stats.shapiro``): the
  coefficients, and the sums that depend only on them, once per n (cached); the sums over the
  data as sequential running sums (``np.cumsum``, the order of the C loop); the logarithms and
  exponentials of the p-value through ``math`` (the C library scipy calls; numpy's own SIMD
  ``log``/``exp``/``arccos`` differ from it in the last bit for a few per cent of arguments);
- F and t-tests from numpy's row-wise moments (bit-identical to the 1-D reductions for
  C-contiguous rows) and ``scipy.special`` on arrays;
- Wilcoxon–Mann–Whitney from average ranks of the sorted pooled rows (exact integer
  arithmetic), its exact tail probabilities cached per (m, n) as floats;
- Kolmogorov–Smirnov: the statistic from the sorted pooled rows, and the exact conditional
  p-value with ties (R ≥ 4.2) by the lattice recursion of
  :func:`speeduptest.stats.stattests._smirnov_exact_upper`, evaluated along the anti-diagonals
  i + j = k of the lattice (every cell of an anti-diagonal depends only on the previous one):
  m + n vectorised steps over the batch instead of m·n scalar ones per benchmark. The path
  totals do not depend on the data and are shared by the whole batch.

Rows that the per-pair code would treat through Python's float exceptions or that lie outside
the numerically safe domain (non-finite values, values more than 2**500 times the larger median,
all-zero data) are delegated to :func:`~speeduptest.stats.protocol.run_tests` itself, so that they
get exactly its behaviour (including its exceptions); so are samples of fewer than 3 values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import numpy as np
from scipy import special

from speeduptest.stats.protocol import ProtocolTests, run_tests
from speeduptest.stats.stattests import (
    IDENTICAL_NOTE,
    KS_EXACT_PRODUCT,
    SHAPIRO_MAX_SIZE,
    SHAPIRO_NOT_REPRESENTABLE,
    SHAPIRO_SIZE_NOTE,
    WILCOXON_EXACT_LIMIT,
    FTestResult,
    KSResult,
    ShapiroResult,
    TTestResult,
    WilcoxonResult,
    _rank_sum_upper_tails,
    _smirnov_exact_upper,
)

__all__ = ["run_tests_batched"]

#: Rows are processed in chunks of about this many values (both sides together): memory stays
#: bounded (a few MB per temporary) for any number of benchmarks, and the chunks are long
#: enough for the m + n steps of the exact KS recursion to be amortised over many rows even
#: for skewed sizes such as 3 against 3333.
CHUNK_VALUES = 1 << 19
#: Rows with a value above this (after the common scale) go to the per-pair code: squares of
#: such values may overflow where Python's float power raises instead of giving inf.
SAFE_MAGNITUDE = 2.0**500
#: Rows of at least this many values (both sides) are ranked one at a time from the sorted
#: samples (merge, searchsorted) rather than by an argsort and gather of the pooled rows:
#: measured for WMW + KS counts, 2 × 512 values: 0.058 s against 0.065 s per 600,000 values,
#: 2 × 10⁶ values: 0.26 s against 0.81 s; 2 × 256 values: 0.067 s against 0.061 s.
LONG_ROW_SIZE = 1024

_NOTE_ZERO_VARIANCE = "both samples have zero variance"
_NOTE_CONSTANT = "data are essentially constant"
_NOTE_NOT_REPRESENTABLE = ("the statistic or its degrees of freedom are not representable "
                           "numbers for these data")


# --------------------------------------------------------------------------------------------
# Helpers with the semantics of the per-pair code


def _libm(function: Callable[[float], float], values: np.ndarray, valid: np.ndarray,
          fallback: np.ndarray) -> np.ndarray:
    """``function`` (from ``math``, i.e. the C library) on ``values[valid]``; ``fallback``
    (numpy's result, for arguments where ``math`` raises instead of returning inf or NaN)
    elsewhere."""
    out = np.array(fallback, dtype=float, copy=True)
    if valid.any():
        out[valid] = np.fromiter(map(function, values[valid].tolist()), dtype=float)
    return out


def _log(values: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        fallback = np.log(values)
    return _libm(math.log, values, values > 0, fallback)


#: Below this magnitude a square cannot overflow (sqrt of the largest double is 1.34e154).
_SQUARE_SAFE = 1.3e154


def _py_square(values: np.ndarray) -> np.ndarray:
    """Python's ``value ** 2`` on floats: the C library's ``pow``, which differs from numpy's
    ``value * value`` in the last bit for a few arguments in ten thousand."""
    with np.errstate(over="ignore", invalid="ignore"):
        fallback = np.square(values)
    return _libm(lambda value: math.pow(value, 2.0), values, np.abs(values) < _SQUARE_SAFE,
                 fallback)


def _py_min(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Python's ``min(a, b)``: ``a`` unless ``b < a`` (so NaNs behave as in the scalar code)."""
    return np.where(np.less(b, a), b, a)


def _py_max(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Python's ``max(a, b)``: ``a`` unless ``b > a``."""
    return np.where(np.greater(b, a), b, a)


def _frozen(array: np.ndarray) -> np.ndarray:
    """A cached array, read-only."""
    array.flags.writeable = False
    return array


def _argsort_rows(values: np.ndarray) -> np.ndarray:
    """Argsort of each row. Stability is not needed (every use reads whole blocks of ties), and
    numpy's default sort is the fastest on short rows (10,000 rows of 62 values: 3 ms, against
    17 ms for the stable sort)."""
    return np.argsort(values, axis=1)


def _ends(sorted_values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per position of sorted rows: whether it ends its block of equal values, and the
    (1-based) first and last positions of that block."""
    rows, size = sorted_values.shape
    differs = sorted_values[:, 1:] != sorted_values[:, :-1]
    block_end = np.ones((rows, size), dtype=bool)
    block_end[:, :-1] = differs
    block_start = np.ones((rows, size), dtype=bool)
    block_start[:, 1:] = differs
    position = np.arange(1, size + 1)
    first = np.maximum.accumulate(np.where(block_start, position, 0), axis=1)
    last = np.minimum.accumulate(np.where(block_end, position, size + 1)[:, ::-1], axis=1)
    return block_end, first, last[:, ::-1]


# --------------------------------------------------------------------------------------------
# Shapiro–Wilk: scipy's AS R94 (scipy/stats/_ansari_swilk_statistics.pyx), operation by operation

_C1 = (0.0, 0.221157, -0.147981, -0.207119e1, 0.4434685e1, -0.2706056e1)
_C2 = (0.0, 0.42981e-1, -0.293762, -0.1752461e1, 0.5682633e1, -0.3582633e1)
_C3 = (0.5440, -0.39978, 0.25054e-1, -0.6714e-3)
_C4 = (0.13822e1, -0.77857, 0.62767e-1, -0.20322e-2)
_C5 = (-0.15861e1, -0.31082, -0.83751e-1, 0.38915e-2)
_C6 = (-0.4803, -0.82676e-1, 0.30302e-2)
_G = (-0.2273e1, 0.459)
_SMALL = 1e-19
_PI6 = 6 / np.pi


def _poly(c: tuple[float, ...], x: float) -> float:
    """AS 181's ``poly``: c[0] + c[1]·x + … evaluated as the C code does."""
    result = c[0]
    if len(c) == 1:
        return result
    p = x * c[-1]
    if len(c) == 2:
        return result + p
    for index in range(len(c) - 2, 0, -1):
        p = (p + c[index]) * x
    return result + p


def _ppnd(p: float) -> float:
    """AS 111: the normal quantile used for the Shapiro–Wilk coefficients."""
    q = p - 0.5
    if abs(q) <= 0.42:
        r = q * q
        temp = q * (((-25.44106049637 * r + 41.39119773534) * r + -18.61500062529) * r
                    + 2.50662823884)
        return temp / ((((3.13082909833 * r + -21.06224101826) * r + 23.08336743743) * r
                        + -8.47351093090) * r + 1.0)
    r = 1 - p if q > 0 else p
    if r <= 0:
        return 0.0
    r = math.sqrt(-math.log(r))
    temp = ((2.32121276858 * r + 4.85014127135) * r + -2.29796479134) * r + -2.78718931138
    temp /= (1.63706781897 * r + 3.54388924762) * r + 1.0
    return -temp if q < 0 else temp


@lru_cache(maxsize=64)
def _shapiro_constants(n: int) -> tuple[np.ndarray, float]:
    """The centred coefficient of every order statistic (ASA in the C code) and Σ ASA², for
    samples of n values; both depend on n only."""
    half = n // 2
    a = [0.0] * half
    if n == 3:
        a[0] = math.sqrt(2) / 2
    else:
        an = float(n)
        an25 = an + 0.25
        summ2 = 0.0
        for index in range(half):
            a[index] = _ppnd((index + 1 - 0.375) / an25)
            summ2 += a[index] ** 2
        summ2 *= 2.0
        ssumm2 = math.sqrt(summ2)
        rsn = 1 / math.sqrt(an)
        a1 = _poly(_C1, rsn) - (a[0] / ssumm2)
        if n > 5:
            first = 2
            a2 = -a[1] / ssumm2 + _poly(_C2, rsn)
            fac = math.sqrt((summ2 - (2 * a[0] ** 2) - 2 * a[1] ** 2)
                            / (1 - (2 * a1**2) - 2 * a2**2))
            a[1] = a2
        else:
            first = 1
            fac = math.sqrt((summ2 - 2 * a[0] ** 2) / (1 - 2 * a1**2))
        a[0] = a1
        for index in range(first, half):
            a[index] *= -1.0 / fac
    # The signed coefficient of the i-th order statistic (0 for the middle one of an odd n).
    signed = [0.0] * n
    for i in range(n):
        mirror = n - 1 - i
        if i != mirror:
            signed[i] = (-1 if i < mirror else 1) * a[min(i, mirror)]
    sa = -a[0]
    for i in range(1, n):
        if i != n - 1 - i:
            sa += signed[i]
    sa /= n
    asa = [(signed[i] - sa) if i != n - 1 - i else -sa for i in range(n)]
    ssa = 0.0
    for value in asa:
        ssa += value * value
    return _frozen(np.array(asa)), ssa


def _alnorm_upper(x: np.ndarray) -> np.ndarray:
    """AS 66 upper normal tail, as scipy's ``_alnorm(x, upper=True)``."""
    z = np.array(x, dtype=float, copy=True)
    upper = z > 0  # the negation catches NaN, as in the C code
    z[~upper] = -z[~upper]
    out_of_range = ~((z <= 7.0) | (upper & (z <= 38.0)))
    y = 0.5 * z * z
    temp = np.empty_like(z)
    near = ~out_of_range & (z <= 1.28)
    far = ~out_of_range & ~near
    zn, yn = z[near], y[near]
    temp[near] = 0.5 - zn * (0.398942280444 - 0.399903438504 * yn / (
        yn + 5.75885480458 - 29.8213557808 / (yn + 2.62433121679 + 48.6959930692 / (
            yn + 5.92885724438))))
    zf, yf = z[far], y[far]
    exp_minus_y = _libm(math.exp, -yf, np.ones(yf.shape, dtype=bool), yf)
    temp[far] = 0.398942280385 * exp_minus_y / (zf - 3.8052e-8 + 1.00000615302 / (
        zf + 3.98064794e-4 + 1.98615381364 / (zf - 0.151679116635 + 5.29330324926 / (
            zf + 4.8385912808 - 15.1508972451 / (zf + 0.742380924027 + 30.789933034 / (
                zf + 3.99019417011))))))
    temp[out_of_range] = 0.0
    return np.where(upper, temp, 1 - temp)


def _swilk(ordered: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """W and its p-value for rows of sorted values (already shifted by a middle value)."""
    asa, ssa = _shapiro_constants(n)
    value_range = ordered[:, -1] - ordered[:, 0]
    zero_range = value_range < _SMALL
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        scaled = ordered / value_range[:, None]
        sx = np.cumsum(scaled, axis=1)[:, -1] / n
        xsx = scaled - sx[:, None]
        ssx = np.cumsum(xsx * xsx, axis=1)[:, -1]
        sax = np.cumsum(asa * xsx, axis=1)[:, -1]
        ssassx = np.sqrt(ssa * ssx)
        w1 = (ssassx - sax) * (ssassx + sax) / (ssa * ssx)
        w = 1 - w1
        if n == 3:
            root = np.sqrt(w)
            with_acos = _libm(math.acos, root, np.abs(root) <= 1, np.arccos(root))
            p_value = np.where(w < 0.75, 0.0, 1.0 - _PI6 * with_acos)
            w = np.where(w < 0.75, 0.75, w)
        else:
            an = float(n)
            y = _log(w1)
            small = np.zeros(w.shape, dtype=bool)
            if n <= 11:
                gamma = _poly(_G, an)
                small = y >= gamma
                y = -_log(gamma - y)
                mean, sd = _poly(_C3, an), math.exp(_poly(_C4, an))
            else:
                log_n = math.log(an)
                mean, sd = _poly(_C5, log_n), math.exp(_poly(_C6, log_n))
            p_value = _alnorm_upper((y - mean) / sd)
            p_value[small] = _SMALL
    w = np.where(zero_range, 1.0, w)
    p_value = np.where(zero_range, 1.0, p_value)
    return w, p_value


def _shapiro_batch(values: np.ndarray, constant: np.ndarray) -> list[ShapiroResult]:
    """``shapiro_wilk`` of every row (already at the common scale)."""
    rows, n = values.shape
    if n < 3 or n > SHAPIRO_MAX_SIZE:
        return [ShapiroResult(None, None, n, note=SHAPIRO_SIZE_NOTE)] * rows
    computed = ~constant
    w = np.full(rows, np.nan)
    p_value = np.full(rows, np.nan)
    if computed.any():
        sample = values[computed]
        exponent = np.frexp(np.abs(sample).max(axis=1))[1]
        sample = np.ldexp(sample, -exponent[:, None])
        ordered = np.sort(sample, axis=1)
        ordered -= sample[:, n // 2, None]  # scipy subtracts x[n // 2] of the unsorted data
        w[computed], p_value[computed] = _swilk(ordered, n)
    not_computed = ShapiroResult(None, None, n, note=IDENTICAL_NOTE)
    not_representable = ShapiroResult(None, None, n, note=SHAPIRO_NOT_REPRESENTABLE)
    return [(ShapiroResult(wb, pb, n) if math.isfinite(wb) and math.isfinite(pb)
             else not_representable) if ok else not_computed
            for ok, wb, pb in zip(computed.tolist(), w.tolist(), p_value.tolist(), strict=True)]


# --------------------------------------------------------------------------------------------
# F and t-tests


def _f_batch(var_x: np.ndarray, var_y: np.ndarray, n: int, m: int) -> list[FTestResult]:
    df_num, df_den = n - 1, m - 1
    both_zero = (var_x == 0) & (var_y == 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        statistic = np.where(var_y > 0, var_x / np.where(var_y > 0, var_y, 1.0), np.inf)
    lower = special.fdtr(df_num, df_den, statistic)
    upper = special.fdtrc(df_num, df_den, statistic)
    p_value = _py_min(1.0, 2.0 * _py_min(lower, upper))
    finite = np.isfinite(statistic)
    not_computed = FTestResult(None, None, df_num, df_den, note=_NOTE_ZERO_VARIANCE)
    return [not_computed if zero else FTestResult(s if ok else None, p, df_num, df_den)
            for zero, ok, s, p in zip(both_zero.tolist(), finite.tolist(), statistic.tolist(),
                                      p_value.tolist(), strict=True)]


def _t_batch(mean_x: np.ndarray, mean_y: np.ndarray, var_x: np.ndarray, var_y: np.ndarray,
             n: int, m: int, equal_var: bool) -> tuple[list[TTestResult | None], np.ndarray]:
    """``t_test(x, y, equal_var=...)`` per row, and the rows where the per-pair code raises
    (a Python float division by zero or overflowing power) — those entries are None."""
    variant = "student" if equal_var else "welch"
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if equal_var:
            df = np.full(mean_x.shape, n + m - 2.0)
            pooled = ((n - 1) * var_x + (m - 1) * var_y) / (n + m - 2.0)
            std_error = np.sqrt(pooled * (1 / n + 1 / m))
            raises = np.zeros(mean_x.shape, dtype=bool)
        else:
            part_x, part_y = var_x / n, var_y / m
            std_error = np.sqrt(part_x + part_y)
            square_x, square_y = _py_square(part_x), _py_square(part_y)
            denominator = square_x / (n - 1) + square_y / (m - 1)
            total = part_x + part_y
            square_total = _py_square(total)
            df = np.where(denominator > 0, square_total / np.where(denominator > 0,
                                                                   denominator, 1.0), np.nan)
            # Python's float power raises OverflowError where numpy gives inf: those rows (and
            # the few just below the overflow) are left to the per-pair code.
            raises = ((np.isfinite(part_x) & (np.abs(part_x) >= _SQUARE_SAFE))
                      | (np.isfinite(part_y) & (np.abs(part_y) >= _SQUARE_SAFE))
                      | ((denominator > 0) & np.isfinite(total)
                         & (np.abs(total) >= _SQUARE_SAFE)))
        largest = _py_max(np.abs(mean_x), np.abs(mean_y))
        constant = std_error < 10 * np.finfo(float).eps * largest
        raises |= ~constant & (std_error == 0)
        statistic = (mean_x - mean_y) / std_error
    representable = np.isfinite(statistic) & np.isfinite(df) & (df > 0)
    p_value = special.stdtr(np.where(representable, df, 1.0), -statistic)
    flat = TTestResult(variant, None, None, None, "greater", note=_NOTE_CONSTANT)
    odd = TTestResult(variant, None, None, None, "greater", note=_NOTE_NOT_REPRESENTABLE)
    results: list[TTestResult | None] = []
    for bad, flat_row, ok, s, d, p in zip(raises.tolist(), constant.tolist(),
                                          representable.tolist(), statistic.tolist(),
                                          df.tolist(), p_value.tolist(), strict=True):
        if bad:
            results.append(None)
        elif flat_row:
            results.append(flat)
        elif not ok:
            results.append(odd)
        else:
            results.append(TTestResult(variant, s, d, p, "greater"))
    return results, raises


# --------------------------------------------------------------------------------------------
# Kolmogorov–Smirnov


@lru_cache(maxsize=16)
def _smirnov_lattice(m: int, n: int) -> tuple[tuple[int, int, np.ndarray, np.ndarray,
                                                     np.ndarray], ...]:
    """Per anti-diagonal k = 1 … m + n of the (m + 1) × (n + 1) lattice: the range of i, the
    row scales i / (i + n), |i·n − j·m| and the scaled count of all paths to each cell — the
    part of the exact recursion that does not depend on the data."""
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
        diagonals.append((low, high, _frozen(row_scale[:, None].copy()),
                          _frozen(distance[:, None]), _frozen(cells)))
    return tuple(diagonals)


def _smirnov_exact_batch(threshold: np.ndarray, m: int, n: int,
                         block_end: np.ndarray) -> np.ndarray:
    """``_smirnov_exact_upper`` for every row, along the anti-diagonals of the lattice.

    Cell (i, j) of the per-pair recursion is ``scale_i·C(i−1, j) + C(i, j−1)``, or the total
    count of paths to the cell when the path crosses the boundary there; both terms lie on the
    previous anti-diagonal, so each anti-diagonal is one vectorised step, with the same floating
    operations as the per-pair loop. The arrays are (cell, row): a step reads and writes
    contiguous blocks. Two buffers alternate (the previous and the current anti-diagonal); an
    entry a step reads is either a cell of the previous anti-diagonal or one never written (0).
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
    return _py_min(1.0, previous[m + 1])


def _ks_batch(x: np.ndarray, y: np.ndarray, median_x: np.ndarray, median_y: np.ndarray,
              ordered: tuple[np.ndarray, np.ndarray] | None) -> list[KSResult]:
    """``ks_test`` of every row (already at the common scale); ``ordered`` holds the sorted
    rows of x and y for long rows, which take the per-row path."""
    m, n = x.shape[1], y.shape[1]
    if ordered is not None and m * n >= KS_EXACT_PRODUCT:  # no tie pattern needed
        distance, block_end = _smirnov_distance_long(*ordered, median_x, median_y), None
    else:
        distance, block_end = _smirnov_distance(x, y, median_x, median_y)
    statistic = distance / (m * n)
    if block_end is not None and m * n < KS_EXACT_PRODUCT:
        if statistic.size * m * n < 16 * (m + n):
            # Too few rows for the m + n vectorised steps to pay (one pair of 3 and 3333 values:
            # 6 ms in the scalar loop, 30 ms in steps): the per-pair recursion itself.
            p_value = np.array([_smirnov_exact_upper(s, m, n, ends) for s, ends in
                                zip(statistic.tolist(), block_end, strict=True)])
        else:
            threshold = np.rint(statistic * m * n).astype(np.int64)
            p_value = _smirnov_exact_batch(threshold, m, n, block_end)
        method = "exact"
    else:
        p_value = special.kolmogorov(math.sqrt(m * n / (m + n)) * statistic)
        method = "asymptotic"
    return [KSResult(s, p, method) for s, p in zip(statistic.tolist(),
                                                   np.asarray(p_value, float).tolist(),
                                                   strict=True)]


def _smirnov_distance(x: np.ndarray, y: np.ndarray, median_x: np.ndarray,
                      median_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """max |i·n − j·m| over the ends of tie blocks of the sorted pooled centred rows, and
    whether each sorted pooled position ends a block (as ``_smirnov_statistic``)."""
    m, n = x.shape[1], y.shape[1]
    pooled = np.concatenate([x - median_x[:, None], y - median_y[:, None]], axis=1)
    # Counts are read only where a block of tied values ends, so the order within a block (an
    # unstable sort) does not matter.
    order = _argsort_rows(pooled)
    ordered = np.take_along_axis(pooled, order, axis=1)
    block_end = np.ones(ordered.shape, dtype=bool)
    block_end[:, :-1] = ordered[:, 1:] != ordered[:, :-1]
    taken_x = np.cumsum(order < m, axis=1)
    taken_y = np.arange(1, m + n + 1) - taken_x
    distance = np.where(block_end, np.abs(taken_x * n - taken_y * m), 0).max(axis=1)
    return distance, block_end


def _smirnov_distance_long(x_sorted: np.ndarray, y_sorted: np.ndarray, median_x: np.ndarray,
                           median_y: np.ndarray) -> np.ndarray:
    """The same distance for long rows, one row at a time from the sorted samples: at every
    value v, i = #{x ≤ v} and j = #{y ≤ v} (all of v's ties, as at the end of its block).
    Subtracting the median keeps a sorted row sorted (rounding is monotone)."""
    m, n = x_sorted.shape[1], y_sorted.shape[1]
    distance = np.empty(x_sorted.shape[0], dtype=np.int64)
    for row in range(x_sorted.shape[0]):
        centred_x = x_sorted[row] - median_x[row]
        centred_y = y_sorted[row] - median_y[row]
        values = np.concatenate([centred_x, centred_y])
        taken_x = np.searchsorted(centred_x, values, "right")
        taken_y = np.searchsorted(centred_y, values, "right")
        distance[row] = np.abs(taken_x * n - taken_y * m).max()
    return distance


# --------------------------------------------------------------------------------------------
# Wilcoxon–Mann–Whitney


@lru_cache(maxsize=128)
def _rank_sum_upper_probabilities(m: int, n: int) -> np.ndarray:
    """P(U ≥ u) for u = 0 … m·n, each the correctly rounded ratio of the exact counts."""
    tails, total = _rank_sum_upper_tails(m, n)
    return _frozen(np.array([count / total for count in tails]))


def _tie_term_numerator(sizes: np.ndarray) -> float:
    """Σ (t³ − t) over the tie blocks, exactly as the per-pair code sums it."""
    return float(np.sum(sizes.astype(float) ** 3 - sizes))


def _rank_sums(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: twice the rank sum of x (an integer), Σ (t³ − t) over the tie blocks of the
    pooled row (as a float, equal to the per-pair one) and whether all values are identical."""
    m, n = x.shape[1], y.shape[1]
    assert m + n < LONG_ROW_SIZE <= 2**17  # so that Σ (t³ − t) < 2**53
    rows = x.shape[0]
    pooled = np.concatenate([x, y], axis=1)
    order = _argsort_rows(pooled)  # ranks of tied values are averaged: any order will do
    ordered = np.take_along_axis(pooled, order, axis=1)
    from_x = order < m
    has_ties = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    # Twice the average rank of a value is first + last position of its block of ties:
    # integers, so the sums are exact (and equal to the per-pair floating sums).
    twice_rank_sum = 2 * np.where(from_x, np.arange(1, m + n + 1), 0).sum(axis=1)
    ties = np.zeros(rows)
    identical = np.zeros(rows, dtype=bool)
    if has_ties.any():
        _, first, last = _ends(ordered[has_ties])
        twice_rank_sum[has_ties] = np.where(from_x[has_ties], first + last, 0).sum(axis=1)
        size = last - first + 1
        # Σ over tie blocks of t³ − t, exactly; below 2**53 (rows are shorter than
        # LONG_ROW_SIZE), so the per-pair floating sum of the same terms is exact and equal.
        ties[has_ties] = (size * size - 1).sum(axis=1)
        identical[has_ties] = last[:, 0] == m + n
    return twice_rank_sum, ties, identical


def _rank_sums_long(x_sorted: np.ndarray,
                    y_sorted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_rank_sums` for long rows, one row at a time from the sorted samples: a stable
    sort of the two sorted runs is one merge, and the first and last positions of each x value's
    block are ``searchsorted`` left and right."""
    rows = x_sorted.shape[0]
    twice_rank_sum = np.empty(rows, dtype=np.int64)
    ties = np.zeros(rows)
    identical = np.zeros(rows, dtype=bool)
    for row in range(rows):
        pooled = np.sort(np.concatenate([x_sorted[row], y_sorted[row]]), kind="stable")
        twice_rank_sum[row] = (np.searchsorted(pooled, x_sorted[row], "left").sum()
                               + np.searchsorted(pooled, x_sorted[row], "right").sum()
                               + x_sorted.shape[1])
        starts = np.flatnonzero(pooled[1:] != pooled[:-1]) + 1
        sizes = np.diff(np.concatenate([[0], starts, [pooled.size]]))
        ties[row] = _tie_term_numerator(sizes) if sizes.size < pooled.size else 0.0
        identical[row] = sizes.size == 1
    return twice_rank_sum, ties, identical


def _wmw_batch(x: np.ndarray, y: np.ndarray,
               ordered: tuple[np.ndarray, np.ndarray] | None) -> list[WilcoxonResult]:
    """``wilcoxon_mann_whitney(x, y)`` (alternative "greater") of every row; ``ordered``
    holds the sorted rows of x and y for long rows, which take the per-row path."""
    m, n = x.shape[1], y.shape[1]
    twice_rank_sum, ties, identical = (_rank_sums(x, y) if ordered is None
                                       else _rank_sums_long(*ordered))
    statistic = twice_rank_sum / 2 - m * (m + 1) / 2.0
    exact_sizes = m < WILCOXON_EXACT_LIMIT and n < WILCOXON_EXACT_LIMIT
    exact = (ties == 0) if exact_sizes else np.zeros(statistic.shape, dtype=bool)
    p_value = np.full(statistic.shape, np.nan)
    if exact.any():
        upper = _rank_sum_upper_probabilities(m, n)
        p_value[exact] = upper[np.rint(statistic[exact]).astype(np.int64)]
    normal = ~exact & ~identical
    if normal.any():
        centred = statistic[normal] - m * n / 2.0
        tie_term = ties[normal] / ((m + n) * (m + n - 1))
        sigma = np.sqrt(m * n / 12.0 * ((m + n + 1) - tie_term))
        p_value[normal] = special.ndtr(-(centred - 0.5) / sigma)
    flat = WilcoxonResult(None, None, "normal", "greater", note=IDENTICAL_NOTE)
    return [(WilcoxonResult(s, p, "exact" if e else "normal", "greater")
             if not same or e else flat)
            for e, same, s, p in zip(exact.tolist(), identical.tolist(), statistic.tolist(),
                                     p_value.tolist(), strict=True)]


# --------------------------------------------------------------------------------------------
# The whole protocol


def _common_scale(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``common_scale`` per row; also the rows left to the per-pair code."""
    median_x, median_y = np.median(x, axis=1), np.median(y, axis=1)
    exponent = np.frexp(_py_max(median_x, median_y))[1]
    xs, ys = np.ldexp(x, -exponent[:, None]), np.ldexp(y, -exponent[:, None])
    unsafe = ~(np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)
               & (np.abs(xs).max(axis=1) <= SAFE_MAGNITUDE)
               & (np.abs(ys).max(axis=1) <= SAFE_MAGNITUDE))
    return xs, ys, unsafe


def _run_chunk(x: np.ndarray, y: np.ndarray, both_ways: bool
               ) -> tuple[list[ProtocolTests], list[ProtocolTests] | None]:
    """The tests of every row, initial vs optimized, and with ``both_ways`` also optimized vs
    initial (the common scale, the spreads and Shapiro–Wilk computed once for both: the same
    numbers as a second call with the roles swapped)."""
    n, m = x.shape[1], y.shape[1]
    xs, ys, unsafe = _common_scale(x, y)
    if unsafe.any():  # keep the arithmetic of the other rows free of inf and NaN
        xs[unsafe], ys[unsafe] = 1.0, 1.0
    constant_x = xs.max(axis=1) == xs.min(axis=1)
    constant_y = ys.max(axis=1) == ys.min(axis=1)
    var_x = np.where(constant_x, 0.0, np.var(xs, axis=1, ddof=1))
    var_y = np.where(constant_y, 0.0, np.var(ys, axis=1, ddof=1))
    mean_x, mean_y = xs.mean(axis=1), ys.mean(axis=1)
    shapiro_x = _shapiro_batch(xs, constant_x)
    shapiro_y = _shapiro_batch(ys, constant_y)
    median_x, median_y = np.median(xs, axis=1), np.median(ys, axis=1)
    ordered = (np.sort(xs, axis=1), np.sort(ys, axis=1)) if n + m >= LONG_ROW_SIZE else None
    forward_ks: list[KSResult] = []

    def one_way(forward: bool) -> list[ProtocolTests]:
        nonlocal unsafe
        if forward:
            a, b, size_a, size_b, mean_a, mean_b = xs, ys, n, m, mean_x, mean_y
            var_a, var_b, median_a, median_b = var_x, var_y, median_x, median_y
            shapiro_a, shapiro_b, sorted_ab = shapiro_x, shapiro_y, ordered
        else:
            a, b, size_a, size_b, mean_a, mean_b = ys, xs, m, n, mean_y, mean_x
            var_a, var_b, median_a, median_b = var_y, var_x, median_y, median_x
            shapiro_a, shapiro_b = shapiro_y, shapiro_x
            sorted_ab = None if ordered is None else ordered[::-1]
        student, raises_student = _t_batch(mean_a, mean_b, var_a, var_b, size_a, size_b,
                                           equal_var=True)
        welch, raises_welch = _t_batch(mean_a, mean_b, var_a, var_b, size_a, size_b,
                                       equal_var=False)
        unsafe = unsafe | raises_student | raises_welch
        f_tests = _f_batch(var_a, var_b, size_a, size_b)
        if forward or n != m:
            ks = _ks_batch(a, b, median_a, median_b, sorted_ab)
            forward_ks[:] = ks
        else:  # two-sided, on the same pooled values: the same numbers with the roles swapped
            ks = forward_ks
        wmw = _wmw_batch(a, b, sorted_ab)
        return [ProtocolTests(*fields) for fields in zip(shapiro_a, shapiro_b, f_tests,
                                                         student, welch, ks, wmw, strict=True)]

    forward = one_way(True)
    reverse = one_way(False) if both_ways else None
    for row in np.flatnonzero(unsafe).tolist():  # unsafe either way: both per pair
        forward[row] = run_tests(x[row], y[row])
        if reverse is not None:
            reverse[row] = run_tests(y[row], x[row])
    return forward, reverse


def run_tests_batched(x: np.ndarray, y: np.ndarray) -> list[ProtocolTests]:
    """:func:`~speeduptest.stats.protocol.run_tests` for every row of ``x`` and ``y`` at once.

    Parameters
    ----------
    x, y
        Initial and optimized times of B benchmarks, shapes (B, n) and (B, m): row b holds the
        samples of benchmark b (every benchmark of a batch has the same sizes n and m).

    Returns
    -------
    list of ProtocolTests
        ``run_tests(x[b], y[b])`` for b = 0 … B − 1: equal result objects, computed with the
        same floating-point operations.
    """
    return _run_rows(x, y, both_ways=False)[0]


def run_tests_both_ways(x: np.ndarray, y: np.ndarray
                        ) -> tuple[list[ProtocolTests], list[ProtocolTests]]:
    """``run_tests_batched(x, y)`` and ``run_tests_batched(y, x)`` (is the optimized version
    slower?), sharing what does not depend on the direction."""
    forward, reverse = _run_rows(x, y, both_ways=True)
    assert reverse is not None
    return forward, reverse


def _run_rows(x: np.ndarray, y: np.ndarray, both_ways: bool
              ) -> tuple[list[ProtocolTests], list[ProtocolTests] | None]:
    x = np.ascontiguousarray(x, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have shapes (B, n) and (B, m) with the same B, got "
                         f"{x.shape} and {y.shape}")
    rows, n = x.shape
    m = y.shape[1]
    if n < 3 or m < 3:
        return ([run_tests(x[row], y[row]) for row in range(rows)],
                [run_tests(y[row], x[row]) for row in range(rows)] if both_ways else None)
    chunk = max(1, CHUNK_VALUES // (n + m))
    forward: list[ProtocolTests] = []
    reverse: list[ProtocolTests] | None = [] if both_ways else None
    for start in range(0, rows, chunk):
        found, found_reverse = _run_chunk(x[start:start + chunk], y[start:start + chunk],
                                          both_ways)
        forward.extend(found)
        if reverse is not None and found_reverse is not None:
            reverse.extend(found_reverse)
    return forward, reverse

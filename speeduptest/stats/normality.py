"""Shapiro–Wilk test of normality, over rows of samples.

Royston's algorithm AS R94 (Royston 1995, "Remark AS R94: A remark on algorithm AS 181: the
W-test for normality", Applied Statistics 44(4)), as R's ``shapiro.test`` and as scipy's C
translation of it (``scipy.stats.shapiro``, scipy/stats/_ansari_swilk_statistics.pyx), repeated
operation by operation over the rows: the coefficients of the order statistics, and the sums
that depend only on them, once per sample size (cached); the sums over the data as sequential
running sums (``np.cumsum``, the order of the C loop); the logarithms and exponentials of the
p-value through ``math`` (the C library that scipy's code calls). The numbers are scipy's, bit
for bit (tests/stats/test_protocol_tests.py), and R's to 1e-6 (tests/stats/test_against_r.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from speeduptest.stats.hypothesis import IDENTICAL_NOTE, HypothesisTest
from speeduptest.stats.rowwise import as_rows, frozen, libm, libm_log

#: Shapiro–Wilk (Royston's AS R94 algorithm) is defined for 3 to 5000 values, as in R.
SHAPIRO_MAX_SIZE = 5000
#: Why the test is not computed: the sample's size, and a W that is not a number (times
#: spanning more than the floats, 5e-324 to 1e300, against the other sample's scale).
SHAPIRO_SIZE_NOTE = f"defined for 3 to {SHAPIRO_MAX_SIZE} values"
SHAPIRO_NOT_REPRESENTABLE = "not representable for these values, which span beyond the floats"


@dataclass(slots=True)
class ShapiroResult(HypothesisTest):
    """Shapiro–Wilk test of normality of one sample (H0: the sample is normal)."""

    statistic: float | None
    p_value: float | None
    n: int
    note: str | None = None


def shapiro_wilk(x: np.ndarray) -> ShapiroResult:
    """Shapiro–Wilk normality test of one sample: :func:`shapiro_wilk_rows` of a batch of
    one."""
    return shapiro_wilk_rows(np.asarray(x, dtype=float).reshape(1, -1))[0]


def shapiro_wilk_rows(samples: np.ndarray) -> list[ShapiroResult]:
    """Shapiro–Wilk normality test of every row of ``samples`` (shape (B, n)), as R's
    ``shapiro.test`` (Royston 1995, AS R94).

    Not computed when the samples have fewer than 3 or more than 5000 values, or when all the
    values of a row are identical. W is scale-invariant: each row is first brought to a scale
    near 1 (an exact power of two), so that the algorithm's zero-range guard (a range below
    1e-19 gives W = 1, p = 1) cannot mistake tiny times for constants.
    """
    samples = as_rows(samples)
    rows, n = samples.shape
    if n < 3 or n > SHAPIRO_MAX_SIZE:
        return [ShapiroResult(None, None, n, note=SHAPIRO_SIZE_NOTE)] * rows
    computed = samples.max(axis=1) != samples.min(axis=1)  # NaN rows too: not representable
    w = np.full(rows, np.nan)
    p_value = np.full(rows, np.nan)
    if computed.any():
        sample = samples[computed]
        exponent = np.frexp(np.abs(sample).max(axis=1))[1]
        sample = np.ldexp(sample, -exponent[:, None])
        ordered = np.sort(sample, axis=1)
        ordered -= sample[:, n // 2, None]  # scipy subtracts x[n // 2] of the unsorted data
        w[computed], p_value[computed] = _swilk(ordered, n)
    not_computed = ShapiroResult(None, None, n, note=IDENTICAL_NOTE)
    not_representable = ShapiroResult(None, None, n, note=SHAPIRO_NOT_REPRESENTABLE)
    finite = (np.isfinite(w) & np.isfinite(p_value)).tolist()
    return [(ShapiroResult(wb, pb, n) if representable else not_representable)
            if ok else not_computed
            for ok, representable, wb, pb in zip(computed.tolist(), finite, w.tolist(),
                                                 p_value.tolist(), strict=True)]


# --------------------------------------------------------------------------------------------
# AS R94, as scipy's C code computes it

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
    return frozen(np.array(asa)), ssa


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
    exp_minus_y = libm(math.exp, -yf, np.ones(yf.shape, dtype=bool), yf)
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
            with_acos = libm(math.acos, root, np.abs(root) <= 1, np.arccos(root))
            p_value = np.where(w < 0.75, 0.0, 1.0 - _PI6 * with_acos)
            w = np.where(w < 0.75, 0.75, w)
        else:
            an = float(n)
            y = libm_log(w1)
            small = np.zeros(w.shape, dtype=bool)
            if n <= 11:
                gamma = _poly(_G, an)
                small = y >= gamma
                y = -libm_log(gamma - y)
                mean, sd = _poly(_C3, an), math.exp(_poly(_C4, an))
            else:
                log_n = math.log(an)
                mean, sd = _poly(_C5, log_n), math.exp(_poly(_C6, log_n))
            p_value = _alnorm_upper((y - mean) / sd)
            p_value[small] = _SMALL
    w = np.where(zero_range, 1.0, w)
    p_value = np.where(zero_range, 1.0, p_value)
    return w, p_value

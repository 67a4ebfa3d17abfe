"""The tests on means and variances, over rows of pairs of samples: the F-test of equal
variances and the two-sample t-tests, Student's pooled one (Student 1908, "The probable error
of a mean", Biometrika 6(1)) and Welch's (Welch 1947, "The generalization of 'Student's'
problem when several different population variances are involved", Biometrika 34(1–2), with
Satterthwaite's degrees of freedom, 1946).

Both read the samples through their moments (:class:`Moments`: size, mean, variance), which the
protocol computes once for both tests and both directions (as ``scipy.stats.ttest_ind_from_stats``
reads them). The p-values come from ``scipy.special``'s F and t distributions (what
``scipy.stats`` uses); the statistics are computed here, with the rounding of the scalar formulas
(Python's ``**`` and ``min``/``max``), and agree with R's ``var.test`` and ``t.test``
(tests/stats/test_against_r.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np
from scipy import special

from speeduptest.stats.hypothesis import Alternative, HypothesisTest
from speeduptest.stats.rowwise import paired_rows, python_max, python_min, python_square

_NOTE_ZERO_VARIANCE = "both samples have zero variance"
_NOTE_CONSTANT = "data are essentially constant"
_NOTE_NOT_REPRESENTABLE = ("the statistic or its degrees of freedom are not representable "
                           "numbers for these data")


@dataclass(slots=True)
class FTestResult(HypothesisTest):
    """F-test of equal variances, F = var(x) / var(y) (H0: the variances are equal)."""

    statistic: float | None
    p_value: float | None
    df_numerator: int
    df_denominator: int
    alternative: Alternative = "two-sided"
    note: str | None = None


@dataclass(slots=True)
class TTestResult(HypothesisTest):
    """Two-sample t-test of the means (Student's pooled or Welch's)."""

    variant: Literal["student", "welch"]
    statistic: float | None
    df: float | None
    p_value: float | None
    alternative: Alternative = "greater"
    note: str | None = None


class Moments(NamedTuple):
    """The size of the samples and the mean and variance of each row (the variance exactly 0
    for a row of identical values, where numpy's mean may leave 1e-31)."""

    size: int
    mean: np.ndarray
    variance: np.ndarray

    @classmethod
    def of(cls, samples: np.ndarray) -> Moments:
        rows, size = samples.shape
        if size == 0:
            return cls(0, np.full(rows, np.nan), np.zeros(rows))
        if size == 1:  # no spread (but NaN for a NaN, not constant)
            return cls(1, samples[:, 0].copy(), np.where(np.isnan(samples[:, 0]), np.nan, 0.0))
        constant = samples.max(axis=1) == samples.min(axis=1)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            variance = np.where(constant, 0.0, np.var(samples, axis=1, ddof=1))
        return cls(size, samples.mean(axis=1), variance)


def f_test(x: np.ndarray, y: np.ndarray) -> FTestResult:
    """F-test of one pair of samples: :func:`f_test_rows` of a batch of one."""
    return f_test_rows(np.asarray(x, dtype=float).reshape(1, -1),
                       np.asarray(y, dtype=float).reshape(1, -1))[0]


def f_test_rows(x: np.ndarray, y: np.ndarray) -> list[FTestResult]:
    """Two-sided F-test of equal variances, F = s²(x) / s²(y), of every row of ``x`` and ``y``
    (shapes (B, n) and (B, m)), as R's ``var.test``: :func:`f_test_from_moments`."""
    x, y = paired_rows(x, y)
    return f_test_from_moments(Moments.of(x), Moments.of(y))


def f_test_from_moments(x: Moments, y: Moments) -> list[FTestResult]:
    """Two-sided F-test of equal variances, F = s²(x) / s²(y), on n − 1 and m − 1 degrees of
    freedom, per row of the moments.

    A zero variance on one side only gives F = 0 or ∞ and p = 0 (as R does); the statistic is
    then reported as ``None`` because it is not a finite number. Not computed when both
    variances are zero. Both tails come straight from the F distribution (R's 1 − pf(F)
    cancels for tiny p-values).
    """
    return _f_objects(f_test_arrays(x, y), x.size - 1, y.size - 1)


class FArrays(NamedTuple):
    """The F-tests of the rows as arrays: the statistic (inf where only y's variance is
    zero), the p-value, where both variances are zero (not computed) and where the
    statistic is finite."""

    statistic: np.ndarray
    p_value: np.ndarray
    both_zero: np.ndarray
    finite: np.ndarray


def f_test_arrays(x: Moments, y: Moments) -> FArrays:
    """:func:`f_test_from_moments` as arrays, before its result objects."""
    df_num, df_den = x.size - 1, y.size - 1
    var_x, var_y = x.variance, y.variance
    both_zero = (var_x == 0) & (var_y == 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        statistic = np.where(var_y > 0, var_x / np.where(var_y > 0, var_y, 1.0), np.inf)
    lower = special.fdtr(df_num, df_den, statistic)
    upper = special.fdtrc(df_num, df_den, statistic)
    p_value = python_min(1.0, 2.0 * python_min(lower, upper))
    return FArrays(statistic, p_value, both_zero, np.isfinite(statistic))


def _f_objects(found: FArrays, df_num: int, df_den: int) -> list[FTestResult]:
    not_computed = FTestResult(None, None, df_num, df_den, note=_NOTE_ZERO_VARIANCE)
    return [not_computed if zero else FTestResult(s if ok else None, p, df_num, df_den)
            for zero, ok, s, p in zip(found.both_zero.tolist(), found.finite.tolist(),
                                      found.statistic.tolist(), found.p_value.tolist(),
                                      strict=True)]


def t_test(x: np.ndarray, y: np.ndarray, *, equal_var: bool,
           alternative: Alternative = "greater") -> TTestResult:
    """t-test of one pair of samples: :func:`t_test_rows` of a batch of one."""
    return t_test_rows(np.asarray(x, dtype=float).reshape(1, -1),
                       np.asarray(y, dtype=float).reshape(1, -1), equal_var=equal_var,
                       alternative=alternative)[0]


def t_test_rows(x: np.ndarray, y: np.ndarray, *, equal_var: bool,
                alternative: Alternative = "greater") -> list[TTestResult]:
    """Unpaired two-sample t-test of every row of ``x`` and ``y`` (shapes (B, n) and (B, m)),
    as R's ``t.test(x, y, alternative, var.equal)``: :func:`t_test_from_moments`."""
    x, y = paired_rows(x, y)
    return t_test_from_moments(Moments.of(x), Moments.of(y), equal_var=equal_var,
                               alternative=alternative)


def t_test_from_moments(x: Moments, y: Moments, *, equal_var: bool,
                        alternative: Alternative = "greater") -> list[TTestResult]:
    """Unpaired two-sample t-test per row of the moments: Student's pooled-variance test when
    ``equal_var``, Welch's test (Welch–Satterthwaite degrees of freedom) otherwise.

    With ``alternative="greater"`` the alternative hypothesis is mean(x) > mean(y), i.e. the
    optimized program (y) is faster on average. Not computed when the data are essentially
    constant (R's criterion: standard error below 10 ε · max(|mean(x)|, |mean(y)|)), nor when
    the statistic or Welch's degrees of freedom are not finite numbers (variances near 1e308:
    times from 1e-320 to 1e300).

    Raises ``ZeroDivisionError`` where the scalar formula divides by zero: samples of one
    value for Welch's test, of no value, or a zero standard error of data that are not
    constant by R's criterion (all zero).
    """
    return _t_results(x, y, _t_spread(x, y, equal_var), equal_var, alternative)


def t_arrays_both_ways(x: Moments, y: Moments, *, equal_var: bool,
                       alternative: Alternative = "greater") -> tuple[TArrays, TArrays]:
    """``t_test_from_moments(x, y)`` and ``t_test_from_moments(y, x)`` as arrays, before
    their result objects (:func:`t_objects`): the standard error and the degrees of freedom
    computed once, as each direction computes them (their sums and products do not depend on
    the order of their terms), the rest per direction."""
    spread = _t_spread(x, y, equal_var)
    reverse = _t_spread(y, x, equal_var) if min(x.size, y.size) < 2 else spread
    return _t_arrays(x, y, spread, alternative), _t_arrays(y, x, reverse, alternative)


class _Spread(NamedTuple):
    """What a t-test's statistic is divided by, and its degrees of freedom, per row."""

    std_error: np.ndarray
    df: np.ndarray


def _t_spread(x: Moments, y: Moments, equal_var: bool) -> _Spread:
    """The standard error of the difference of the means and the degrees of freedom, per
    row; raises ``ZeroDivisionError`` as :func:`t_test_from_moments` says."""
    n, m = x.size, y.size
    var_x, var_y = x.variance, y.variance
    if n == 0 or m == 0 or (equal_var and n + m == 2) or (not equal_var and n == 1):
        raise ZeroDivisionError("float division by zero")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if equal_var:
            df = np.full(var_x.shape, n + m - 2.0)
            pooled = ((n - 1) * var_x + (m - 1) * var_y) / (n + m - 2.0)
            std_error = np.sqrt(pooled * (1 / n + 1 / m))
        else:
            part_x, part_y = var_x / n, var_y / m
            std_error = np.sqrt(part_x + part_y)
            # Python's float power raises OverflowError where numpy gives inf: no degrees
            # of freedom then (the scalar formula catches it).
            square_x, overflow_x = python_square(part_x)
            square_y, overflow_y = python_square(part_y)
            if m == 1 and not (overflow_x | overflow_y).all():
                raise ZeroDivisionError("float division by zero")
            denominator = square_x / (n - 1) + square_y / (m - 1)
            square_total, overflow_total = python_square(part_x + part_y)
            df = np.where(denominator > 0, square_total / np.where(denominator > 0,
                                                                   denominator, 1.0), np.nan)
            df[overflow_x | overflow_y | overflow_total] = np.nan
    return _Spread(std_error, df)


def _t_results(x: Moments, y: Moments, spread: _Spread, equal_var: bool,
               alternative: Alternative) -> list[TTestResult]:
    """The t-tests of the rows, mean(x) against mean(y), from their :func:`_t_spread`."""
    return t_objects(_t_arrays(x, y, spread, alternative), equal_var, alternative)


class TArrays(NamedTuple):
    """The t-tests of the rows as arrays: the statistic, the degrees of freedom, the
    p-value, where the data are essentially constant and where the statistic and degrees of
    freedom are representable (computed: not constant, representable)."""

    statistic: np.ndarray
    df: np.ndarray
    p_value: np.ndarray
    constant: np.ndarray
    representable: np.ndarray

    def note(self, row: int) -> str | None:
        """Why the test of ``row`` is not computed (None: it is)."""
        if self.constant[row]:
            return _NOTE_CONSTANT
        return None if self.representable[row] else _NOTE_NOT_REPRESENTABLE


def _t_arrays(x: Moments, y: Moments, spread: _Spread, alternative: Alternative) -> TArrays:
    """The t-tests of the rows as arrays, mean(x) against mean(y), from their
    :func:`_t_spread`."""
    std_error, df = spread
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        largest = python_max(np.abs(x.mean), np.abs(y.mean))
        constant = std_error < 10 * np.finfo(float).eps * largest
        if (~constant & (std_error == 0)).any():
            raise ZeroDivisionError("float division by zero")
        statistic = (x.mean - y.mean) / std_error
    representable = np.isfinite(statistic) & np.isfinite(df) & (df > 0)
    p_value = _t_tail(np.where(representable, df, 1.0), statistic, alternative)
    return TArrays(statistic, df, p_value, constant, representable)


def t_objects(found: TArrays, equal_var: bool, alternative: Alternative) -> list[TTestResult]:
    """The result objects of :func:`_t_arrays`."""
    variant: Literal["student", "welch"] = "student" if equal_var else "welch"
    flat = TTestResult(variant, None, None, None, alternative, note=_NOTE_CONSTANT)
    odd = TTestResult(variant, None, None, None, alternative, note=_NOTE_NOT_REPRESENTABLE)
    return [flat if flat_row else TTestResult(variant, s, d, p, alternative) if ok else odd
            for flat_row, ok, s, d, p in zip(found.constant.tolist(),
                                             found.representable.tolist(),
                                             found.statistic.tolist(), found.df.tolist(),
                                             found.p_value.tolist(), strict=True)]


def _t_tail(df: np.ndarray, statistic: np.ndarray, alternative: Alternative) -> np.ndarray:
    """The p-value of t on ``df`` degrees of freedom for ``alternative`` (Student's t
    distribution, ``scipy.special.stdtr``)."""
    if alternative == "greater":
        return special.stdtr(df, -statistic)
    if alternative == "less":
        return special.stdtr(df, statistic)
    if alternative == "two-sided":
        return python_min(1.0, 2.0 * special.stdtr(df, -np.abs(statistic)))
    raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}")


"""The per-benchmark Speedup-Test protocol: both decision trees and the highest confidence.

The tests are computed once (:func:`run_tests`); a decision tree only reads their p-values at a
given risk level, so evaluating the protocol at many risk levels (for ``max_confidence``) is cheap.

Reference: Touati, Worms, Briais, "The Speedup-Test", CCPE 2013, sections 4 and 5 (the
protocols for the mean and the median execution times).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np

from speeduptest.notices import Notice
from speeduptest.stats.defaults import DEFAULT_ALPHA, DEFAULT_LARGE_SAMPLE
from speeduptest.stats.hypothesis import IDENTICAL_NOTE
from speeduptest.stats.kolmogorov_smirnov import KSResult, ks_test_rows
from speeduptest.stats.normality import ShapiroResult, shapiro_wilk_rows
from speeduptest.stats.parametric import (
    FTestResult,
    Moments,
    TArrays,
    TTestResult,
    f_test_arrays,
    f_test_from_moments,
    t_arrays_both_ways,
    t_objects,
    t_test_from_moments,
)
from speeduptest.stats.rowwise import paired_rows, python_max
from speeduptest.stats.wilcoxon import (
    WilcoxonArrays,
    WilcoxonResult,
    wilcoxon_arrays_both_ways,
    wilcoxon_mann_whitney,
    wilcoxon_mann_whitney_rows,
    wilcoxon_objects,
)

# -- what the protocol makes of a pair: its results --------------------------------------

Verdict = Literal["significant", "not_significant", "inconclusive"]
Status = Literal["ok", "error"]


@dataclass(slots=True)
class SampleSummary:
    n: int
    mean: float
    median: float
    min: float
    max: float
    std: float | None


@dataclass(slots=True)
class Speedups:
    """ET(initial) / ET(optimized) for each execution-time estimator."""

    mean: float
    median: float
    min: float


@dataclass(slots=True)
class ProtocolTests:
    """Every test of the protocol, computed once; decisions at any risk level read them."""

    shapiro_initial: ShapiroResult
    shapiro_optimized: ShapiroResult
    f_test: FTestResult
    t_student: TTestResult
    t_welch: TTestResult
    ks: KSResult
    wilcoxon: WilcoxonResult

    def t_test_at(self, alpha: float) -> TTestResult:
        """Student's test unless the F-test rejects equal variances at ``alpha``."""
        return self.t_welch if self.f_test.rejects(alpha) else self.t_student

    def p_values(self) -> list[float]:
        tests = (self.shapiro_initial, self.shapiro_optimized, self.f_test, self.t_student,
                 self.t_welch, self.ks, self.wilcoxon)
        return [test.p_value for test in tests if test.p_value is not None]


@dataclass(slots=True)
class Decision:
    """The outcome of one decision tree at one risk level, with the path taken in words."""

    verdict: Verdict
    reason: str  # the deciding fact in a few words, e.g. "Welch's t-test p = 0.23 > α"
    steps: tuple[str, ...]
    notices: tuple[Notice, ...] = ()


@dataclass(slots=True)
class PairAnalysis:
    """The Speedup-Test protocol applied to one initial/optimized pair."""

    alpha: float
    large_sample: int
    small: bool
    initial: SampleSummary
    optimized: SampleSummary
    speedup: Speedups
    tests: ProtocolTests
    mean: Decision
    median: Decision
    mean_max_confidence: float | None
    median_max_confidence: float | None
    sample_notices: tuple[Notice, ...] = ()
    # The measurements themselves, for the distribution figures of the reports.
    initial_values: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False,
                                       compare=False)
    optimized_values: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False,
                                         compare=False)

    @property
    def notices(self) -> tuple[Notice, ...]:
        return self.sample_notices + self.mean.notices + self.median.notices

    @property
    def probability_faster(self) -> float | None:
        """P(optimized faster than initial) over all pairs of runs (ties count half): the
        Wilcoxon–Mann–Whitney statistic divided by n·m."""
        statistic = self.tests.wilcoxon.statistic
        return None if statistic is None else statistic / (self.initial.n * self.optimized.n)


@dataclass(slots=True)
class SlowdownCheck:
    """The protocol run with initial and optimized swapped, for every benchmark: is the
    optimized version significantly *slower*? Verdicts and reasons only (no steps or
    warnings: what reports show of the reverse protocol)."""

    mean: Decision
    median: Decision

    @property
    def significant(self) -> bool:
        return "significant" in (self.mean.verdict, self.median.verdict)


#: The verdict of a decision tree at a risk level, without its steps in words.
VerdictRule = Callable[[ProtocolTests, bool, float], Verdict]


def _p(value: float | None) -> str:
    """How a p-value reads after "p": "= 0.0312", "> 0.999" or "not computed"."""
    if value is None:
        return "not computed"
    return "> 0.999" if value > 0.999 else f"= {value:.3g}"


def summarise(values: np.ndarray) -> SampleSummary:
    return summarise_rows(np.asarray(values, dtype=float)[None, :])[0]


def summarise_rows(samples: np.ndarray) -> list[SampleSummary]:
    """The summary of every row of ``samples`` (samples of one size), computed together."""
    # The spread is computed at a scale near 1 (exact powers of two): squares of times near
    # 1e200 would overflow.
    largest = samples.max(axis=1)
    exponent = np.frexp(largest)[1][:, None]
    scaled = np.ldexp(samples, -exponent)
    size = samples.shape[1]
    mean = np.ldexp(scaled.mean(axis=1, keepdims=True), exponent)[:, 0]
    std = (np.ldexp(scaled.std(axis=1, ddof=1, keepdims=True), exponent)[:, 0] if size > 1
           else np.full(samples.shape[0], np.nan))
    # Identical values: their mean is that value and their spread 0, exactly (a sum of n
    # copies over n may be an ulp off, and the spread 1e-23 instead of 0).
    constant = samples.min(axis=1) == largest
    if constant.any():
        mean[constant] = largest[constant]
        std[constant] = 0.0
    median = np.median(samples, axis=1)
    overflowed = ~np.isfinite(median)  # the mean of the middle two of 1.7e308 and 1.7e308
    if overflowed.any():
        median[overflowed] = np.ldexp(np.median(scaled[overflowed], axis=1),
                                      exponent[overflowed, 0])
    return [SampleSummary(size, mean_, median_, low, high, None if size == 1 else spread)
            for mean_, median_, low, high, spread in zip(
                mean.tolist(), median.tolist(),
                samples.min(axis=1).tolist(), largest.tolist(), std.tolist(), strict=True)]


def common_scale(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both samples multiplied by the power of two that brings the larger median into
    [0.5, 1). Every test of the protocol is invariant to a common scale, and multiplying by a
    power of two is exact, so no p-value changes; but times of 1e200 no longer overflow their
    variance, and times of 1e-300 no longer underflow it (or fall below the zero-range guard
    of Shapiro–Wilk)."""
    xs, ys = common_scale_rows(np.asarray(x, dtype=float).reshape(1, -1),
                               np.asarray(y, dtype=float).reshape(1, -1))
    return xs[0], ys[0]


def common_scale_rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`common_scale` of every row of ``x`` and ``y``."""
    exponent = np.frexp(python_max(np.median(x, axis=1), np.median(y, axis=1)))[1][:, None]
    return np.ldexp(x, -exponent), np.ldexp(y, -exponent)


#: Rows are tested in chunks of about this many values (both sides together): memory stays
#: bounded (a few MB per temporary) for any number of benchmarks, and the chunks are long
#: enough for the m + n steps of the exact KS recursion to be amortised over many rows even
#: for skewed sizes such as 3 against 3333.
CHUNK_VALUES = 1 << 19


def run_tests(x: np.ndarray, y: np.ndarray) -> ProtocolTests:
    """Run every test of the protocol on initial sample ``x`` and optimized sample ``y``:
    :func:`run_tests_batched` of a batch of one."""
    return run_tests_batched(np.asarray(x, dtype=float).reshape(1, -1),
                             np.asarray(y, dtype=float).reshape(1, -1))[0]


def run_tests_batched(x: np.ndarray, y: np.ndarray) -> list[ProtocolTests]:
    """Every test of the protocol for every row of ``x`` and ``y`` at once.

    Parameters
    ----------
    x, y
        Initial and optimized times of B benchmarks, shapes (B, n) and (B, m): row b holds the
        samples of benchmark b (every benchmark of a batch has the same sizes n and m).

    Returns
    -------
    list of ProtocolTests
        The tests of row b, initial against optimized, for b = 0 … B − 1; each row at a
        common scale where its variances are representable (:func:`common_scale`). A row's
        results do not depend on the other rows.
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
    x, y = paired_rows(x, y)
    chunk = max(1, CHUNK_VALUES // max(1, x.shape[1] + y.shape[1]))
    forward: list[ProtocolTests] = []
    reverse: list[ProtocolTests] | None = [] if both_ways else None
    for start in range(0, x.shape[0], chunk):
        found, found_reverse = _run_chunk(x[start:start + chunk], y[start:start + chunk],
                                          both_ways)
        forward.extend(found)
        if reverse is not None and found_reverse is not None:
            reverse.extend(found_reverse)
    return forward, reverse


def _run_chunk(x: np.ndarray, y: np.ndarray, both_ways: bool
               ) -> tuple[list[ProtocolTests], list[ProtocolTests] | None]:
    """The tests of every row, initial vs optimized, and with ``both_ways`` also optimized vs
    initial: the common scale, the moments and Shapiro–Wilk computed once for both (the same
    numbers as a second call with the roles swapped), and so is the two-sided KS test with
    samples of equal sizes (on the same pooled values). Rows with a value that is not finite
    are tested again with the roles swapped: there the common scale (Python's ``max`` of a NaN
    median) and the KS statistic (every NaN a block of its own, read in the order of the
    samples) depend on the direction."""
    if not both_ways:
        xs, ys = common_scale_rows(x, y)
        moments_x, moments_y = Moments.of(xs), Moments.of(ys)
        return _one_way(xs, ys, moments_x, moments_y, shapiro_wilk_rows(xs),
                        shapiro_wilk_rows(ys), (
            t_test_from_moments(moments_x, moments_y, equal_var=True),
            t_test_from_moments(moments_x, moments_y, equal_var=False)),
            wilcoxon_mann_whitney_rows(xs, ys)), None
    found = _both_ways(x, y)
    reverse = _one_way(found.ys, found.xs, found.moments_y, found.moments_x, found.shapiro_y,
                       found.shapiro_x, (t_objects(found.student[1], True, "greater"),
                                         t_objects(found.welch[1], False, "greater")),
                       wilcoxon_objects(found.wilcoxon[1], "greater"), found.shared_ks())
    for row, tests in zip(*_odd_rows_reversed(x, y), strict=True):
        reverse[row] = tests
    return found.forward, reverse


def _one_way(a: np.ndarray, b: np.ndarray, moments_a: Moments, moments_b: Moments,
             shapiro_a: list[ShapiroResult], shapiro_b: list[ShapiroResult],
             t_tests: tuple[list[TTestResult], list[TTestResult]],
             wmw: list[WilcoxonResult], ks: list[KSResult] | None = None
             ) -> list[ProtocolTests]:
    """The tests of every row, ``a`` against ``b``, from what is already computed."""
    f_tests = f_test_from_moments(moments_a, moments_b)
    ks = ks_test_rows(a, b) if ks is None else ks
    return [ProtocolTests(*fields) for fields in zip(shapiro_a, shapiro_b, f_tests,
                                                     *t_tests, ks, wmw, strict=True)]


class _BothWays(NamedTuple):
    """What both directions of the protocol share over a chunk of rows: the rows at their
    common scale, their Shapiro–Wilk tests and moments, the t-tests and rank tests of both
    directions as arrays (forward, reverse), and the forward tests."""

    xs: np.ndarray
    ys: np.ndarray
    shapiro_x: list[ShapiroResult]
    shapiro_y: list[ShapiroResult]
    moments_x: Moments
    moments_y: Moments
    student: tuple[TArrays, TArrays]
    welch: tuple[TArrays, TArrays]
    wilcoxon: tuple[WilcoxonArrays, WilcoxonArrays]
    forward: list[ProtocolTests]

    def shared_ks(self) -> list[KSResult] | None:
        """The forward KS tests where the reverse ones are the same (equal sizes)."""
        return ([tests.ks for tests in self.forward]
                if self.xs.shape[1] == self.ys.shape[1] else None)


def _both_ways(x: np.ndarray, y: np.ndarray) -> _BothWays:
    """The forward tests of every row, and what the reverse ones share with them: Student's
    and Welch's spreads computed once, the rank test's pooled rows ranked once."""
    xs, ys = common_scale_rows(x, y)
    shapiro_x, shapiro_y = shapiro_wilk_rows(xs), shapiro_wilk_rows(ys)
    moments_x, moments_y = Moments.of(xs), Moments.of(ys)
    student, welch = (t_arrays_both_ways(moments_x, moments_y, equal_var=equal_var)
                      for equal_var in (True, False))
    wmw = wilcoxon_arrays_both_ways(xs, ys)
    forward = _one_way(xs, ys, moments_x, moments_y, shapiro_x, shapiro_y, (
        t_objects(student[0], True, "greater"), t_objects(welch[0], False, "greater")),
        wilcoxon_objects(wmw[0], "greater"))
    return _BothWays(xs, ys, shapiro_x, shapiro_y, moments_x, moments_y, student, welch, wmw,
                     forward)


def _odd_rows_reversed(x: np.ndarray, y: np.ndarray) -> tuple[list[int], list[ProtocolTests]]:
    """The rows with a value that is not finite, and their reverse tests computed with the
    roles swapped (see :func:`_run_chunk`)."""
    odd = np.flatnonzero(~(np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)))
    if not odd.size:
        return [], []
    return odd.tolist(), _run_chunk(y[odd], x[odd], False)[0]


def run_tests_and_slowdowns(x: np.ndarray, y: np.ndarray, small: bool,
                            alphas: Sequence[float]
                            ) -> tuple[list[ProtocolTests], list[SlowdownCheck]]:
    """``run_tests_batched(x, y)``, and for every row the :class:`SlowdownCheck` at its
    ``alphas`` that :func:`mean_outcome` and :func:`median_outcome` make of
    ``run_tests_batched(y, x)``, read from the reverse tests' arrays rather than from
    result objects made for it (the same numbers: :func:`run_tests_both_ways`'s; 10,000
    pairs: 50,000 objects fewer, ~35 ms)."""
    x, y = paired_rows(x, y)
    chunk = max(1, CHUNK_VALUES // max(1, x.shape[1] + y.shape[1]))
    alpha = np.asarray(alphas, dtype=float)
    forward: list[ProtocolTests] = []
    checks: list[SlowdownCheck] = []
    for start in range(0, x.shape[0], chunk):
        rows = slice(start, start + chunk)
        found = _both_ways(x[rows], y[rows])
        forward.extend(found.forward)
        found_checks = _slowdown_checks(found, small, alpha[rows])
        for row, tests in zip(*_odd_rows_reversed(x[rows], y[rows]), strict=True):
            level = float(alpha[rows][row])
            found_checks[row] = SlowdownCheck(mean_outcome(tests, small, level),
                                              median_outcome(tests, small, level))
        checks.extend(found_checks)
    return forward, checks


def _p_values(results: Sequence[ShapiroResult | KSResult]) -> np.ndarray:
    """The p-values of ``results`` (NaN where not computed: NaN ≤ α is False)."""
    return np.array([math.nan if result.p_value is None else result.p_value
                     for result in results], dtype=float)


def _slowdown_checks(found: _BothWays, small: bool, alpha: np.ndarray) -> list[SlowdownCheck]:
    """:func:`mean_outcome` and :func:`median_outcome` of the reverse tests of every row,
    from arrays: the same comparisons, and the same reasons from the same floats."""
    shapiro_x, shapiro_y = _p_values(found.shapiro_x), _p_values(found.shapiro_y)
    # Mean: small samples need both sides normal (NaN: not computed), then the t-test that
    # the reverse F-test chooses (Welch's where it rejects; NaN: not computed).
    not_normal = (small & (np.isnan(shapiro_x) | (shapiro_x <= alpha) | np.isnan(shapiro_y)
                           | (shapiro_y <= alpha))).tolist()
    rejected = ((shapiro_x <= alpha) | (shapiro_y <= alpha)).tolist()
    f_test = f_test_arrays(found.moments_y, found.moments_x)
    welch = (np.where(f_test.both_zero, np.nan, f_test.p_value) <= alpha).tolist()
    student_t, welch_t = found.student[1], found.welch[1]
    t_columns = [list(zip(t.statistic.tolist(), t.p_value.tolist(),
                          (~t.constant & t.representable).tolist(), strict=True))
                 for t in (student_t, welch_t)]
    # Median: KS (the forward one with equal sizes), then the rank test.
    ks = found.shared_ks()
    ks_p = _p_values(ks if ks is not None else ks_test_rows(found.ys, found.xs))
    shapes_differ = (small & (ks_p <= alpha)).tolist()
    wmw = found.wilcoxon[1]
    half = found.xs.shape[1] * found.ys.shape[1] / 2
    checks = []
    for row, (level, use_welch, p_ks, computed, p_wmw, statistic) in enumerate(zip(
            alpha.tolist(), welch, ks_p.tolist(), (~wmw.identical | wmw.exact).tolist(),
            wmw.p_value.tolist(), wmw.statistic.tolist(), strict=True)):
        if not_normal[row]:
            mean = Decision("inconclusive", "small samples; normality "
                            f"{'rejected' if rejected[row] else 'not checkable'}", ())
        else:
            mean = _mean_outcome_of(level, t_columns[use_welch][row], use_welch,
                                    welch_t if use_welch else student_t, row)
        checks.append(SlowdownCheck(mean, _median_outcome_of(
            level, shapes_differ[row], p_ks, computed, p_wmw, statistic, half)))
    return checks


def _mean_outcome_of(alpha: float, t_test: tuple[float, float, bool], welch: bool,
                     chosen: TArrays, row: int) -> Decision:
    """:func:`mean_outcome` of samples normal enough, from the chosen t-test's statistic,
    p-value and whether it is computed (``chosen``, ``row``: its arrays, for why not)."""
    statistic, p_value, computed = t_test
    if not computed:
        return Decision("inconclusive", f"t-test not computable ({chosen.note(row)})", ())
    name = "Welch's" if welch else "Student's"
    if p_value <= alpha:
        return Decision("significant", f"{name} t-test p {_p(p_value)} ≤\u00a0α", ())
    return Decision("not_significant", ("slower; " if statistic < 0 else "")
                    + f"{name} t-test p {_p(p_value)} >\u00a0α", ())


def _median_outcome_of(alpha: float, shapes_differ: bool, ks_p: float, computed: bool,
                       p_value: float, statistic: float, half: float) -> Decision:
    """:func:`median_outcome` from the KS p-value and the rank test's numbers (``half``:
    n·m / 2)."""
    if shapes_differ:
        return Decision("inconclusive", f"small samples; shapes differ (KS p {_p(ks_p)})", ())
    if not computed:
        return Decision("inconclusive", f"rank test not computable ({IDENTICAL_NOTE})", ())
    if p_value <= alpha:
        return Decision("significant", f"Wilcoxon p {_p(p_value)} ≤\u00a0α", ())
    return Decision("not_significant", ("slower; " if statistic < half else "")
                    + f"Wilcoxon p {_p(p_value)} >\u00a0α", ())


def is_small(n: int, m: int, large_sample: int) -> bool:
    """Whether a pair of samples of n and m values is small for the protocol: one side has
    at most ``large_sample`` values."""
    return n <= large_sample or m <= large_sample


@functools.lru_cache(maxsize=256, typed=True)  # (the same few sizes in every benchmark)
def _size_step(small: bool, n: int, m: int, large_sample: int) -> str:
    if small:
        return (f"Small samples: n = {n}, m = {m}; at least one side has at most "
                f"{large_sample} values.")
    return f"Large samples: n = {n} and m = {m}, both above {large_sample} values."


def _normality_step(side: str, result: ShapiroResult, alpha: float) -> tuple[str, bool | None]:
    """Describe the Shapiro–Wilk outcome; the flag is True (normal), False (not) or None."""
    if not result.computed:
        return f"Shapiro–Wilk on the {side} sample: not computed ({result.note}).", None
    if result.rejects(alpha):
        return (f"Shapiro–Wilk on the {side} sample: p {_p(result.p_value)} ≤ α = {alpha:g}, "
                "normality rejected.", False)
    return (f"Shapiro–Wilk on the {side} sample: p {_p(result.p_value)} > α = {alpha:g}, "
            "normality not rejected.", True)


#: Below this many values Shapiro–Wilk rarely rejects even clearly non-normal times: at α = 0.05
#: it rejected lognormal(σ = 0.5) / exponential / two-mode samples 6/7/6% of the time at n = 3,
#: 9/17/6% at n = 5 and 25/43/7% at n = 10 (benchmarks/shapiro_power.py, 2,000 replicates).
LOW_POWER_SIZE = 10
SLOWDOWN_ADVICE = ("Optimized times tend to be higher: the change slows this benchmark down. "
                   "The slowdown verdicts (the protocol in the other direction) and the call "
                   "say whether that is significant.")


def _decision(verdict: Verdict, reason: str, steps: list[str], notices: list[Notice]) -> Decision:
    return Decision(verdict, reason, tuple(steps), tuple(notices))


def decide_mean(tests: ProtocolTests, small: bool, alpha: float, large_sample: int) -> Decision:
    """Decision tree for the mean execution time (Speedup-Test, protocol for the mean).

    1. Small samples whose normality is rejected (or cannot be checked) → ``inconclusive``:
       the t-test needs normal data below the large-sample size.
    2. Otherwise the one-sided t-test (Student's if the F-test does not reject equal variances,
       Welch's otherwise) decides, H0: μ(initial) ≤ μ(optimized).
    """
    n, m = tests.shapiro_initial.n, tests.shapiro_optimized.n
    steps = [_size_step(small, n, m, large_sample)]
    notices: list[Notice] = []
    not_normal: list[str] = []
    unchecked: list[str] = []
    sides = (("initial", tests.shapiro_initial), ("optimized", tests.shapiro_optimized))
    for side, result in sides:
        text, normal = _normality_step(side, result, alpha)
        steps.append(text)
        if normal is False:
            not_normal.append(f"{side} (Shapiro–Wilk p {_p(result.p_value)})")
        elif normal is None:
            unchecked.append(f"{side} ({result.note})")

    if small and (not_normal or unchecked):
        reason = ("normality is rejected for the " + " and the ".join(not_normal) if not_normal
                  else "normality cannot be checked for the " + " and the ".join(unchecked))
        if not_normal and unchecked:
            reason += "; it cannot be checked for the " + " and the ".join(unchecked)
        steps.append("The t-test is not valid for small samples that are not normal: "
                     "the mean verdict is inconclusive.")
        notices.append(Notice(
            "mean-small-not-normal",
            f"Mean verdict inconclusive: the samples are small (n = {n}, m = {m}, at most "
            f"{large_sample} on one side) and {reason}, so the t-test cannot be trusted.",
            f"Collect more than {large_sample} runs on each side, or rely on the median verdict.",
        ))
        normality = "rejected" if not_normal else "not checkable"
        return _decision("inconclusive", f"small samples; normality {normality}", steps, notices)

    if small and min(n, m) < LOW_POWER_SIZE:
        notices.append(Notice(
            "mean-normality-unverified",
            f"Mean verdict: normality is not rejected, but with {min(n, m)} values on a side "
            "Shapiro–Wilk can hardly detect non-normal data, so the t-test's normality "
            "assumption is unverified.",
            f"Collect at least {LOW_POWER_SIZE} (better more than {large_sample}) runs per "
            "side, or weigh the median verdict and the effect-size interval too.",
        ))
    if not small and not_normal:
        notices.append(Notice(
            "mean-large-not-normal",
            f"Mean verdict: normality is rejected for the {' and the '.join(not_normal)}; "
            "the samples are large, so the t-test is applied anyway, but its risk level may "
            "not be preserved (nor that of the F-test that chose between Student and Welch).",
            "Look at the distribution plot for outliers or several modes (a mode switch such "
            "as frequency scaling or a JIT tier); the median verdict is more robust.",
        ))

    f = tests.f_test
    chosen = tests.t_test_at(alpha)
    if not f.computed:
        steps.append(f"F-test of equal variances: not computed ({f.note}).")
    elif f.rejects(alpha):
        steps.append(f"F-test of equal variances: p {_p(f.p_value)} ≤ α, variances differ: "
                     "Welch's t-test.")
    else:
        steps.append(f"F-test of equal variances: p {_p(f.p_value)} > α, equal variances "
                     "not rejected: Student's t-test.")
    name = "Student's" if chosen.variant == "student" else "Welch's"
    chosen_p = _p(chosen.p_value)
    if not chosen.computed:
        steps.append(f"{name} t-test: not computed ({chosen.note}): the mean verdict is "
                     "inconclusive.")
        notices.append(Notice(
            "mean-t-test-not-computed",
            f"Mean verdict inconclusive: the t-test cannot be computed ({chosen.note}).",
            "Check the timer resolution: identical times usually mean the timer is too coarse "
            "for this benchmark.",
        ))
        return _decision("inconclusive", f"t-test not computable ({chosen.note})", steps, notices)
    if chosen.rejects(alpha):
        steps.append(f"{name} t-test, H0: mean(initial) ≤ mean(optimized): p "
                     f"{chosen_p} ≤ α = {alpha:g}, rejected: the optimized mean is "
                     "significantly lower.")
        reason = f"{name} t-test p {chosen_p} ≤\u00a0α"
        return _decision("significant", reason, steps, notices)
    steps.append(f"{name} t-test, H0: mean(initial) ≤ mean(optimized): p {chosen_p} "
                 f"> α = {alpha:g}, not rejected.")
    slower = chosen.statistic is not None and chosen.statistic < 0
    notices.append(Notice(
        "mean-not-significant",
        f"Mean speedup not significant: {name} t-test p {chosen_p} > α = {alpha:g}; "
        + ("the optimized mean is higher: the data show a slowdown, not a speedup." if slower
           else "the data do not show that the optimized mean is lower than the initial one."),
        SLOWDOWN_ADVICE if slower else
        "If a small real speedup is expected, collect more runs to gain power; otherwise the "
        "change does not speed up this benchmark on average.",
    ))
    reason = ("slower; " if slower else "") + f"{name} t-test p {chosen_p} >\u00a0α"
    return _decision("not_significant", reason, steps, notices)


def decide_median(tests: ProtocolTests, small: bool, alpha: float, large_sample: int) -> Decision:
    """Decision tree for the median execution time (Speedup-Test, protocol for the median).

    1. Kolmogorov–Smirnov on the median-centred samples: if it rejects, the samples differ by
       more than a location shift, so the rank test is not a comparison of medians. Small
       samples → ``inconclusive``; large samples go on with a warning.
    2. The one-sided Wilcoxon–Mann–Whitney test decides, Ha: P(initial > optimized) > 1/2.
    """
    n, m = tests.shapiro_initial.n, tests.shapiro_optimized.n
    steps = [_size_step(small, n, m, large_sample)]
    notices: list[Notice] = []
    ks, wmw = tests.ks, tests.wilcoxon
    ks_p, wmw_p = _p(ks.p_value), _p(wmw.p_value)
    if ks.rejects(alpha):
        steps.append(f"Kolmogorov–Smirnov on the median-centred samples: p {ks_p} "
                     "≤ α, the distributions differ by more than a shift of location.")
        if small:
            steps.append("With small samples the rank test then says nothing about the "
                         "medians: the median verdict is inconclusive.")
            notices.append(Notice(
                "median-small-shape-differs",
                f"Median verdict inconclusive: the two distributions have different shapes "
                f"(Kolmogorov–Smirnov p {ks_p} ≤ α = {alpha:g}), and with small "
                f"samples (n = {n}, m = {m}) the Wilcoxon–Mann–Whitney test cannot be read as a "
                "comparison of medians.",
                f"Collect more than {large_sample} runs on each side, and check the data for a "
                "mode switch (several clusters of times) on one side only.",
            ))
            reason = f"small samples; shapes differ (KS p {ks_p})"
            return _decision("inconclusive", reason, steps, notices)
        notices.append(Notice(
            "median-large-shape-differs",
            f"Median verdict: the two distributions have different shapes (Kolmogorov–Smirnov "
            f"p {ks_p} ≤ α = {alpha:g}); the samples are large, so the "
            "Wilcoxon–Mann–Whitney test is applied anyway, but its risk level may not be "
            "preserved.",
            "Check the distribution plot for a mode switch or outliers on one side only.",
        ))
    else:
        steps.append(f"Kolmogorov–Smirnov on the median-centred samples: p {ks_p} "
                     "> α, a pure shift of location is not rejected.")

    if not wmw.computed:
        steps.append(f"Wilcoxon–Mann–Whitney: not computed ({wmw.note}): the median verdict "
                     "is inconclusive.")
        notices.append(Notice(
            "median-wilcoxon-not-computed",
            f"Median verdict inconclusive: the Wilcoxon–Mann–Whitney test cannot be computed "
            f"({wmw.note}).",
            "Check the timer resolution: identical times usually mean the timer is too coarse.",
        ))
        return _decision("inconclusive", f"rank test not computable ({wmw.note})", steps, notices)
    method = "exact" if wmw.method == "exact" else "normal approximation"
    if wmw.rejects(alpha):
        steps.append(f"Wilcoxon–Mann–Whitney ({method}), Ha: P(initial > optimized) > 1/2: "
                     f"p {wmw_p} ≤ α = {alpha:g}, rejected: optimized times tend "
                     "to be lower.")
        return _decision("significant", f"Wilcoxon p {wmw_p} ≤\u00a0α", steps, notices)
    steps.append(f"Wilcoxon–Mann–Whitney ({method}), Ha: P(initial > optimized) > 1/2: "
                 f"p {wmw_p} > α = {alpha:g}, not rejected.")
    slower = wmw.statistic is not None and wmw.statistic < n * m / 2
    notices.append(Notice(
        "median-not-significant",
        f"Median speedup not significant: Wilcoxon–Mann–Whitney p {wmw_p} > "
        f"α = {alpha:g}; the data do not show that optimized times tend to be lower than "
        "initial ones.",
        SLOWDOWN_ADVICE if slower else
        "If a small real speedup is expected, collect more runs; otherwise the change does not "
        "speed up this benchmark.",
    ))
    reason = ("slower; " if slower else "") + f"Wilcoxon p {wmw_p} >\u00a0α"
    return _decision("not_significant", reason, steps, notices)


def mean_verdict(tests: ProtocolTests, small: bool, alpha: float) -> Verdict:
    """The verdict of :func:`decide_mean` at ``alpha``, without its steps in words."""
    if small and any(not result.computed or result.rejects(alpha)
                     for result in (tests.shapiro_initial, tests.shapiro_optimized)):
        return "inconclusive"
    chosen = tests.t_test_at(alpha)
    if not chosen.computed:
        return "inconclusive"
    return "significant" if chosen.rejects(alpha) else "not_significant"


def median_verdict(tests: ProtocolTests, small: bool, alpha: float) -> Verdict:
    """The verdict of :func:`decide_median` at ``alpha``, without its steps in words."""
    if (small and tests.ks.rejects(alpha)) or not tests.wilcoxon.computed:
        return "inconclusive"
    return "significant" if tests.wilcoxon.rejects(alpha) else "not_significant"


def mean_outcome(tests: ProtocolTests, small: bool, alpha: float) -> Decision:
    """:func:`decide_mean`'s verdict and reason, without the steps and warnings (for the
    reverse protocol, of which only these are shown: 10,000 benchmarks, 0.15 s less)."""
    verdict = mean_verdict(tests, small, alpha)
    chosen = tests.t_test_at(alpha)
    name = "Student's" if chosen.variant == "student" else "Welch's"
    if verdict == "inconclusive":
        sides = (tests.shapiro_initial, tests.shapiro_optimized)
        if small and any(not side.computed or side.rejects(alpha) for side in sides):
            rejected = any(side.rejects(alpha) for side in sides)
            reason = f"small samples; normality {'rejected' if rejected else 'not checkable'}"
        else:
            reason = f"t-test not computable ({chosen.note})"
    elif verdict == "significant":
        reason = f"{name} t-test p {_p(chosen.p_value)} ≤\u00a0α"
    else:
        slower = chosen.statistic is not None and chosen.statistic < 0
        reason = ("slower; " if slower else "") + f"{name} t-test p {_p(chosen.p_value)} >\u00a0α"
    return Decision(verdict, reason, ())


def median_outcome(tests: ProtocolTests, small: bool, alpha: float) -> Decision:
    """:func:`decide_median`'s verdict and reason, without the steps and warnings."""
    verdict = median_verdict(tests, small, alpha)
    ks, wmw = tests.ks, tests.wilcoxon
    if verdict == "inconclusive":
        reason = (f"small samples; shapes differ (KS p {_p(ks.p_value)})"
                  if small and ks.rejects(alpha) else f"rank test not computable ({wmw.note})")
    elif verdict == "significant":
        reason = f"Wilcoxon p {_p(wmw.p_value)} ≤\u00a0α"
    else:
        n, m = tests.shapiro_initial.n, tests.shapiro_optimized.n
        slower = wmw.statistic is not None and wmw.statistic < n * m / 2
        reason = ("slower; " if slower else "") + f"Wilcoxon p {_p(wmw.p_value)} >\u00a0α"
    return Decision(verdict, reason, ())


def max_confidence(verdict: VerdictRule, tests: ProtocolTests, small: bool) -> float | None:
    """The highest confidence 1 − α* at which the whole protocol says ``significant``.

    Decisions only change where α crosses a p-value of the benchmark (a test rejects when
    p ≤ α), so the protocol is evaluated at each p-value, smallest first. The protocol is not
    monotone in α (a larger α also rejects normality more easily), hence the search. A p-value
    that underflowed to 0 stands for the smallest positive α, giving confidence 1.
    """
    for p_value in sorted(set(tests.p_values())):
        if p_value >= 1:
            break
        alpha = max(p_value, _SMALLEST_ALPHA)
        if verdict(tests, small, alpha) == "significant":
            return 1.0 - alpha
    return None


_SMALLEST_ALPHA = float(np.nextafter(0.0, 1.0))


def max_confidence_rows(tests: Sequence[ProtocolTests], small: Sequence[bool]
                        ) -> list[tuple[float | None, float | None]]:
    """``max_confidence`` of the mean and of the median protocol for many benchmarks at
    once: the same levels tried in the same order (each p-value below 1, smallest first) and
    the same rules (:func:`mean_verdict`, :func:`median_verdict`), written over arrays
    (10,000 benchmarks: 0.23 s one by one)."""
    if not tests:
        return []
    p = np.array([[np.nan if result.p_value is None else result.p_value for result in (
        row.shapiro_initial, row.shapiro_optimized, row.f_test, row.t_student, row.t_welch,
        row.ks, row.wilcoxon)] for row in tests])
    shapiro_x, shapiro_y, f_test, student, welch, ks, wilcoxon = p.T
    is_small = np.asarray(small, dtype=bool)
    levels = np.sort(p, axis=1)  # not computed (NaN) last
    tried = levels < 1  # from the first p-value ≥ 1 on, nothing is tried
    levels = np.maximum(levels, _SMALLEST_ALPHA)
    mean = np.zeros(levels.shape, dtype=bool)
    median = np.zeros(levels.shape, dtype=bool)
    for column in range(levels.shape[1]):
        alpha = levels[:, column]
        # NaN compares False: a test not computed never rejects.
        not_normal = is_small & (np.isnan(shapiro_x) | (shapiro_x <= alpha)
                                 | np.isnan(shapiro_y) | (shapiro_y <= alpha))
        chosen = np.where(f_test <= alpha, welch, student)
        mean[:, column] = ~not_normal & (chosen <= alpha)
        median[:, column] = ~(is_small & (ks <= alpha)) & (wilcoxon <= alpha)
    rows = np.arange(levels.shape[0])
    found = []
    for significant in (mean & tried, median & tried):
        first = significant.argmax(axis=1)
        confidence = (1.0 - levels[rows, first]).tolist()
        found.append([level if any_ else None
                      for level, any_ in zip(confidence, significant.any(axis=1).tolist(),
                                             strict=True)])
    return list(zip(found[0], found[1], strict=True))


def _sample_notices(side: str, values: np.ndarray, summary: SampleSummary) -> list[Notice]:
    if summary.max != summary.min:
        return []
    return [Notice(
        "identical-values",
        f"All {values.size} values of the {side} sample are identical ({values[0]:g}): tests "
        "that need a spread (Shapiro–Wilk, and the t-test if both sides are constant) are not "
        "computed.",
        "Check the timer resolution and that the benchmark really ran: identical times usually "
        "mean the timer is too coarse or the result was cached.",
    )]


def _rank_test_notices(speedup: Speedups, median: Decision) -> list[Notice]:
    """A significant rank test with a median speedup below 1: the distributions cross."""
    if median.verdict != "significant" or speedup.median >= 1:
        return []
    return [Notice(
        "median-significant-but-median-slower",
        f"Median verdict significant although the median speedup is {speedup.median:.3g} "
        "(below 1): Wilcoxon–Mann–Whitney finds that initial times tend to exceed optimized "
        "ones (P(X > Y) > ½), while the optimized median is higher. The two distributions "
        "cross.",
        "Read the distribution plot: part of the runs got faster and part slower (two modes, "
        "a long tail); the mean verdict and the effect-size interval say which dominates.",
    )]


def _rank_test_reach_notices(x: np.ndarray, y: np.ndarray, median: Decision,
                             alpha: float, tie_free: bool = False) -> list[Notice]:
    """Samples too small for the rank test ever to reject at α, whatever the times.
    ``tie_free``: the most favourable case is known to have no ties (:func:`tie_free_rows`)."""
    if median.verdict == "significant":
        return []
    if tie_free:
        best = _best_rank_p_value(x.size, y.size, (), ())
    else:
        x, y = _most_favourable(x, y)
        best = _best_rank_p_value(x.size, y.size, _tie_sizes(x), _tie_sizes(y))
    if best is None or best <= alpha:
        return []
    return [Notice(
        "median-rank-test-cannot-reject",
        f"Median verdict: with {x.size} and {y.size} values, even if every initial time "
        f"exceeded every optimized one, the Wilcoxon–Mann–Whitney p-value would be "
        f"{best:.3g} > α = {alpha:g}: the median verdict could not be significant.",
        "Collect more runs per side (4 against 4 distinct times can reach p = 0.014), or "
        "time with a finer resolution if ties come from the timer.",
    )]


def _most_favourable(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The most favourable case with these sizes and ties: every initial time above every
    optimized one (at a scale below 1, so that no time near 1e308 overflows; a power of two
    changes no tie). Rows of 2-D arrays each on their own, with the same operations."""
    exponent = np.frexp(np.maximum(x.max(axis=-1), y.max(axis=-1)))[1][..., None]
    x, y = np.ldexp(x, -exponent), np.ldexp(y, -exponent)
    return x - x.min(axis=-1, keepdims=True) + 2 * y.max(axis=-1, keepdims=True), y


def tie_free_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per row of ``x`` and ``y`` (B × n and B × m): whether the rank test's most favourable
    case (:func:`_rank_test_reach_notices`) has no ties on either side, for a whole batch
    (most timing samples have none; the sizes then give the best p-value, cached)."""
    def untied(values: np.ndarray) -> np.ndarray:
        ordered = np.sort(values, axis=1)
        return (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)

    favourable_x, favourable_y = _most_favourable(x, y)
    return untied(favourable_x) & untied(favourable_y)


def _tie_sizes(values: np.ndarray) -> tuple[int, ...]:
    """The sizes of the groups of equal values, largest first (() without ties)."""
    ordered = np.sort(values)
    if np.all(ordered[1:] != ordered[:-1]):
        return ()
    _, counts = np.unique(ordered, return_counts=True)
    return tuple(sorted(counts[counts > 1].tolist(), reverse=True))


@functools.lru_cache(maxsize=4096)
def _best_rank_p_value(n: int, m: int, x_ties: tuple[int, ...],
                       y_ties: tuple[int, ...]) -> float | None:
    """The Wilcoxon–Mann–Whitney p-value when all n initial times exceed all m optimized
    ones: it depends only on the sizes and on the ties within each side (built here as
    ranks with the same tie groups)."""
    def side(ties: tuple[int, ...], size: int, start: int) -> np.ndarray:
        groups = list(ties) + [1] * (size - sum(ties))
        return np.repeat(np.arange(start, start + len(groups), dtype=float), groups)

    return wilcoxon_mann_whitney(side(x_ties, n, 2 * (m + 1)), side(y_ties, m, 1)).p_value


def _slowdown_notices(speedup: Speedups) -> list[Notice]:
    slower = [f"{name} {value:.3g}" for name, value in
              (("mean", speedup.mean), ("median", speedup.median)) if value < 1]
    if not slower:
        return []
    return [Notice(
        "slowdown",
        f"The optimized version is slower: speedup of the {' and of the '.join(slower)} "
        "(below 1 means slower).",
        "Check that initial and optimized are not swapped (the config's columns, or the order "
        "of the files given to compare); otherwise the change "
        "slows this benchmark down.",
    )]


def analyse_pair(
    initial: np.ndarray, optimized: np.ndarray, *, alpha: float = DEFAULT_ALPHA,
    large_sample: int = DEFAULT_LARGE_SAMPLE,
    tests: ProtocolTests | None = None,
    summaries: tuple[SampleSummary, SampleSummary] | None = None,
    tie_free: bool = False,
    max_confidences: tuple[float | None, float | None] | None = None,
) -> PairAnalysis:
    """Apply the Speedup-Test protocol to one benchmark.

    Parameters
    ----------
    initial, optimized
        Execution times of the initial and of the optimized program (at least 3 each, > 0).
    alpha
        Risk level of every test.
    large_sample
        A sample is large when it has strictly more values than this.
    tests
        The protocol's tests of these samples when already run (by
        :func:`run_tests_batched` over many benchmarks at once).
    summaries
        The summaries of both samples when already computed (:func:`summarise_rows`).
    tie_free
        True when :func:`tie_free_rows` found no ties in the rank test's most favourable
        case (False: look for them here).
    max_confidences
        The highest confidences of the mean and median verdicts when already computed
        (:func:`max_confidence_rows`).
    """
    x = np.asarray(initial, dtype=float)
    y = np.asarray(optimized, dtype=float)
    if x.size < 3 or y.size < 3:
        raise ValueError("each sample needs at least 3 values")
    if summaries is None:
        if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))
                and x.min() > 0 and y.min() > 0):
            raise ValueError("execution times must be finite and > 0")
        summaries = summarise(x), summarise(y)
    # (Given summaries are checked instead: a NaN makes both comparisons false.)
    elif not all(summary.min > 0 and summary.max < math.inf for summary in summaries):
        raise ValueError("execution times must be finite and > 0")
    initial_summary, optimized_summary = summaries
    small = is_small(x.size, y.size, large_sample)
    tests = run_tests(x, y) if tests is None else tests
    speedup = Speedups(
        mean=initial_summary.mean / optimized_summary.mean,
        median=initial_summary.median / optimized_summary.median,
        min=initial_summary.min / optimized_summary.min,
    )
    median = decide_median(tests, small, alpha, large_sample)
    return PairAnalysis(
        alpha=alpha,
        large_sample=large_sample,
        small=small,
        initial=initial_summary,
        optimized=optimized_summary,
        speedup=speedup,
        tests=tests,
        mean=decide_mean(tests, small, alpha, large_sample),
        median=median,
        mean_max_confidence=(max_confidence(mean_verdict, tests, small)
                             if max_confidences is None else max_confidences[0]),
        median_max_confidence=(max_confidence(median_verdict, tests, small)
                               if max_confidences is None else max_confidences[1]),
        sample_notices=tuple(
            _sample_notices("initial", x, initial_summary)
            + _sample_notices("optimized", y, optimized_summary)
            + _slowdown_notices(speedup) + _rank_test_notices(speedup, median)
            + _rank_test_reach_notices(x, y, median, alpha, tie_free)
        ),
        initial_values=x,
        optimized_values=y,
    )

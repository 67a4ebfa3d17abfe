"""The protocol's five tests, one implementation each over rows of samples
(speeduptest.stats.normality, parametric, wilcoxon and kolmogorov_smirnov), and the protocol's
run of them over many benchmarks (speeduptest.stats.protocol.run_tests_batched):

- against R's numbers (tests/fixtures/protocol_cases.json), the cases batched by their sizes as
  the analysis batches them (one pair at a time: tests/stats/test_against_r.py);
- against ``scipy.stats`` where it computes the same thing: Shapiro–Wilk bit for bit (the same
  algorithm, AS R94), the t-tests, the F-test, the rank test (every alternative) and the exact
  KS test without ties to 1e-9;
- a row's results do not depend on its batch: alone (a batch of one), among others and split
  into chunks, the same bits;
- properties: swapping the samples mirrors every test, a scale by a power of two changes no
  bit, the tests both ways are two calls;
- degenerate rows: constant samples, ties, values spanning the floats, non-finite values.
"""

from __future__ import annotations

import json
import math
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from speeduptest.model.results import Decision, ProtocolTests
from speeduptest.stats import protocol
from speeduptest.stats.kolmogorov_smirnov import ks_test, ks_test_rows
from speeduptest.stats.normality import shapiro_wilk, shapiro_wilk_rows
from speeduptest.stats.parametric import f_test, f_test_rows, t_test, t_test_rows
from speeduptest.stats.protocol import (
    decide_mean,
    decide_median,
    max_confidence,
    max_confidence_rows,
    mean_outcome,
    mean_verdict,
    median_outcome,
    median_verdict,
    run_tests,
    run_tests_batched,
    run_tests_both_ways,
)
from speeduptest.stats.wilcoxon import wilcoxon_mann_whitney, wilcoxon_mann_whitney_rows

TESTS = ("shapiro_initial", "shapiro_optimized", "f_test", "t_student", "t_welch", "ks",
         "wilcoxon")
LARGE_SAMPLE = 30
ALPHAS = (0.001, 0.01, 0.05, 0.1, 0.2)
ALTERNATIVES = ("greater", "less", "two-sided")
FIXTURES = Path(__file__).parents[1] / "fixtures"


def benchmarks(rng: np.random.Generator, rows: int, n: int, m: int) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """Rows of many kinds: smooth, rounded (ties), coarse timer, constant on one or both
    sides, outliers, times of 1e200 or 1e-300, and sides 30 or 300 orders of magnitude
    apart."""
    base = rng.uniform(0.05, 5.0, (rows, 1))
    effect = rng.choice([0.8, 0.95, 1.0, 1.05, 1.3], (rows, 1))
    x = base * rng.lognormal(0, 0.3, (rows, n))
    y = base / effect * rng.lognormal(0, 0.3, (rows, m))
    kind = np.arange(rows) % 12
    for side in (x, y):
        side[kind == 1] = np.round(side[kind == 1], 1)  # ties from rounding
        side[kind == 2] = np.round(side[kind == 2] * 4) / 4 + 1  # a coarse timer
        side[kind == 3] = np.array([float(f"{v:.3g}") for v in side[kind == 3].ravel()]
                                   ).reshape(side[kind == 3].shape)
    x[kind == 4] = 2.5  # both sides constant (equal or not)
    y[kind == 4] = np.where(rng.random((np.sum(kind == 4), 1)) < 0.5, 2.5, 3.0)
    y[kind == 5] = 1.75  # one constant side
    x[kind == 6, 0] *= 1e6  # an outlier
    x[kind == 7] *= 1e200
    y[kind == 7] *= 1e200
    x[kind == 8] *= 1e-300
    y[kind == 8] *= 1e-300
    x[kind == 9] *= 1e200  # 300 orders of magnitude apart
    y[kind == 9] *= 1e-100
    x[kind == 10] = np.round(x[kind == 10], 2) * 1e-300
    y[kind == 10] = np.round(y[kind == 10], 2) * 1e-300
    y[kind == 11] *= 1e-30  # below the zero-range guard of Shapiro–Wilk but for its own scale
    return x, y


def quietly(function, *arguments, **keywords):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's, on rows with inf or NaN
        return function(*arguments, **keywords)


def bits(results: object) -> str:
    """The exact content of results: every float's repr is its bits (NaN included)."""
    return repr(results)


def assert_consistent_decisions(tests: list[ProtocolTests], small: bool, label: str) -> None:
    """The verdict-only rule (for max_confidence) and the verdict-and-reason one (for the
    reverse protocol) follow the decision trees in words, at several risk levels and at the
    p-values (where max_confidence evaluates the rules); and the highest confidences over the
    batch are those found pair by pair."""
    assert max_confidence_rows(tests, [small] * len(tests)) == [
        (max_confidence(mean_verdict, row, small), max_confidence(median_verdict, row, small))
        for row in tests], label
    for row, found in enumerate(tests):
        for decide, verdict, outcome in ((decide_mean, mean_verdict, mean_outcome),
                                         (decide_median, median_verdict, median_outcome)):
            for alpha in ALPHAS + tuple(p for p in found.p_values() if 0 < p < 1):
                decision = decide(found, small, alpha, LARGE_SAMPLE)
                assert verdict(found, small, alpha) == decision.verdict, f"{label} row {row}"
                assert outcome(found, small, alpha) == Decision(decision.verdict,
                                                                decision.reason, ())


def assert_rows_as_alone(x: np.ndarray, y: np.ndarray, label: str,
                         decisions: bool = True) -> list[ProtocolTests]:
    """Every row of a batch gets the bits it gets alone (a batch of one)."""
    got = quietly(run_tests_batched, x, y)
    alone = [quietly(run_tests, a, b) for a, b in zip(x, y, strict=True)]
    mismatched = [row for row, (a, b) in enumerate(zip(got, alone, strict=True))
                  if bits(a) != bits(b)]
    assert mismatched == [], f"{label}: rows {mismatched[:5]}"
    if decisions:
        assert_consistent_decisions(got, x.shape[1] <= LARGE_SAMPLE or y.shape[1] <= LARGE_SAMPLE,
                                    label)
    return got


SIZES = [(3, 3), (4, 6), (5, 8), (11, 12), (20, 20), (31, 31), (49, 49), (60, 60), (8, 120)]


@pytest.mark.parametrize(("n", "m"), SIZES)
def test_a_row_gets_in_a_batch_what_it_gets_alone(n: int, m: int) -> None:
    rng = np.random.default_rng(1000 * n + m)
    assert_rows_as_alone(*benchmarks(rng, 96, n, m), f"{n}x{m}")


# ------------------------------------------------------------------------------ against R


def close(actual: float | None, expected: float | None) -> bool:
    if expected is None:
        return actual is None
    return actual is not None and actual == pytest.approx(expected, rel=1e-6, abs=1e-300)


def assert_as_r(tests: ProtocolTests, case: dict) -> None:
    """The numbers of R's shapiro.test, var.test, t.test, ks.test and wilcox.test (as
    tests/stats/test_against_r.py checks them one pair at a time)."""
    name = case["name"]
    for side, result in (("initial", tests.shapiro_initial),
                         ("optimized", tests.shapiro_optimized)):
        expected = case[f"shapiro_{side}"]
        if expected is None:
            assert not result.computed, name
        else:
            assert close(result.statistic, expected["statistic"]), name
            assert close(result.p_value, expected["p_value"]), name
    expected = case["f_test"]
    if expected is not None:
        assert close(tests.f_test.p_value, expected["p_value"]) or (
            expected["p_value"] < 1e-10
            and close(tests.f_test.p_value, expected["p_value_accurate"])), name
    for variant, result in (("student", tests.t_student), ("welch", tests.t_welch)):
        expected = case[f"t_{variant}"]
        if expected is None:
            assert not result.computed, name
        else:
            assert all(close(getattr(result, field), expected[field])
                       for field in ("statistic", "df", "p_value")), f"{name} {variant}"
    expected = case["ks_test"]
    assert close(tests.ks.statistic, expected["statistic"]), name
    assert close(tests.ks.p_value, expected["p_value"]), name
    assert tests.ks.method == ("exact" if expected["exact"] else "asymptotic"), name
    expected = case["wilcoxon"]
    assert close(tests.wilcoxon.statistic, expected["statistic"]), name
    assert close(tests.wilcoxon.p_value, expected["p_value"]), name
    assert tests.wilcoxon.method == expected["method"], name


def test_r_fixture_cases_batched_by_size() -> None:
    """R's cases batched by their sample sizes as the analysis would batch them (with a second
    copy of each, so that every batch has several rows)."""
    cases = json.loads((FIXTURES / "protocol_cases.json").read_text(encoding="utf-8"))["cases"]
    groups: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for case in cases:
        groups[len(case["x"]), len(case["y"])].append(case)
    assert len(groups) > 1
    for (n, m), group in groups.items():
        x = np.array([case["x"] for case in group] * 2, dtype=float)
        y = np.array([case["y"] for case in group] * 2, dtype=float)
        for tests, case in zip(assert_rows_as_alone(x, y, f"R cases {n}x{m}"), group * 2,
                               strict=True):
            assert_as_r(tests, case)


# -------------------------------------------------------------------------- against scipy

times = st.lists(st.floats(0.5, 50.0, allow_nan=False, allow_infinity=False), min_size=3,
                 max_size=60)
decimals = st.sampled_from([1, 2, 6])  # many, some or few ties
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def at_unit_scale(values: np.ndarray) -> np.ndarray:
    """The values times the power of two that brings the largest into [0.5, 1): what
    Shapiro–Wilk computes on."""
    return np.ldexp(values, -int(np.frexp(np.abs(values).max())[1]))


def assert_shapiro_is_scipys(samples: np.ndarray) -> None:
    for result, sample in zip(shapiro_wilk_rows(samples), samples, strict=True):
        if result.note == "all values are identical":
            assert sample.max() == sample.min()
            continue
        expected = quietly(scipy_stats.shapiro, at_unit_scale(sample))
        if result.computed:
            assert (result.statistic, result.p_value) == (float(expected.statistic),
                                                          float(expected.pvalue))
        else:
            assert not (math.isfinite(expected.statistic) and math.isfinite(expected.pvalue))


@SETTINGS
@given(values=times, digits=decimals, scale=st.sampled_from([1e-300, 1e-9, 1.0, 3.7, 1e200]))
def test_shapiro_wilk_is_scipys_bit_for_bit(values, digits, scale):
    assert_shapiro_is_scipys(np.round(np.array([values]), digits) * scale)


def test_shapiro_wilk_branches_and_size_limits_are_scipys() -> None:
    """n = 3 (exact), 4 … 11 (including W below Royston's γ bound) and 12 (the other fit), and
    the largest sample it is defined for; not computed above."""
    rng = np.random.default_rng(10)
    for n in (3, 4, 5, 6, 7, 11, 12):
        x = rng.lognormal(0, 0.3, (40, n))
        x[:8, -1] = 1e6  # W far below the γ bound for n ≤ 11: p = 1e-19
        x[8:16] = np.linspace(1, 2, n)
        x[16:24, :2] = 7.0
        x[24:32] = [1.0] * (n - 1) + [1.0 + 2**-52]
        x[32:] *= 1e-30
        assert_shapiro_is_scipys(x)
    assert_shapiro_is_scipys(rng.lognormal(0, 0.3, (2, 5000)))
    result = shapiro_wilk(rng.lognormal(0, 0.3, 5001))
    assert not result.computed and result.note == "defined for 3 to 5000 values"
    assert shapiro_wilk([1.0, 2.0]).note == "defined for 3 to 5000 values"


def relatively_close(actual: float | None, expected: float) -> bool:
    return actual is not None and actual == pytest.approx(expected, rel=1e-9, abs=1e-300)


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # scipy's, nearly constant
@SETTINGS
@given(x=times, y=times, digits=decimals, effect=st.sampled_from([0.8, 1.0, 1.2]))
def test_two_sample_tests_agree_with_scipy(x, y, digits, effect):
    x = np.round(np.array(x), digits)
    y = np.round(np.array(y) * effect, digits)
    n, m = x.size, y.size
    for alternative in ALTERNATIVES:
        for equal_var in (True, False):
            result = t_test(x, y, equal_var=equal_var, alternative=alternative)
            expected = scipy_stats.ttest_ind(x, y, equal_var=equal_var, alternative=alternative)
            if result.computed:
                assert relatively_close(result.statistic, expected.statistic)
                assert relatively_close(result.df, expected.df)
                assert relatively_close(result.p_value, expected.pvalue)
        result = wilcoxon_mann_whitney(x, y, alternative=alternative)
        if result.computed:
            expected = scipy_stats.mannwhitneyu(
                x, y, alternative=alternative,
                method="exact" if result.method == "exact" else "asymptotic")
            assert result.statistic == expected.statistic
            assert relatively_close(result.p_value, expected.pvalue)
    result = f_test(x, y)
    if result.statistic is not None and np.ptp(x) > 0:
        # (identical values have a variance of exactly 0 here, numpy's may be 1e-30)
        statistic = np.var(x, ddof=1) / np.var(y, ddof=1)
        assert relatively_close(result.statistic, statistic)
        assert relatively_close(result.p_value, min(1.0, 2 * min(
            scipy_stats.f.cdf(statistic, n - 1, m - 1), scipy_stats.f.sf(statistic, n - 1, m - 1))))
    centred_x, centred_y = x - np.median(x), y - np.median(y)
    result = ks_test(x, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = scipy_stats.ks_2samp(centred_x, centred_y, method="exact")
    assert relatively_close(result.statistic, expected.statistic)
    exact = not any("Exact calculation unsuccessful" in str(w.message) for w in caught)
    if exact and np.unique(np.concatenate([centred_x, centred_y])).size == n + m:
        assert relatively_close(result.p_value, expected.pvalue)  # (scipy ignores ties)


def test_long_rows_agree_with_scipy() -> None:
    """Rows of 1,024 values or more are ranked one at a time from the sorted samples: the
    rank test (ties of ~300,000 values, Σ(t³ − t) above 2**53, included) and the KS statistic
    (Kolmogorov's limiting distribution: n·m ≥ 10,000)."""
    rng = np.random.default_rng(7)
    huge = np.ones((2, 150_000)), np.ones((2, 150_000))
    huge[1][0, -1] = 2.0
    huge[0][1, :10] = 0.5
    for x, y in ((np.round(rng.lognormal(0, 0.3, (3, 600)), 2),
                  np.round(rng.lognormal(0, 0.3, (3, 700)), 2)),
                 (rng.lognormal(0, 0.3, (2, 1300)), rng.lognormal(0, 0.3, (2, 8))), huge):
        for alternative in ALTERNATIVES:
            for result, a, b in zip(wilcoxon_mann_whitney_rows(x, y, alternative=alternative),
                                    x, y, strict=True):
                expected = scipy_stats.mannwhitneyu(a, b, alternative=alternative,
                                                    method="asymptotic")
                assert result.method == "normal" and result.statistic == expected.statistic
                assert relatively_close(result.p_value, expected.pvalue)
        for result, a, b in zip(ks_test_rows(x, y), x, y, strict=True):
            expected = scipy_stats.ks_2samp(a - np.median(a), b - np.median(b))
            assert relatively_close(result.statistic, expected.statistic)
            assert result.method == "asymptotic"


# -------------------------------------------------------------- rows, batches and chunks


def test_asymptotic_ks_and_long_rows() -> None:
    """n·m ≥ 10,000 (Kolmogorov's limiting distribution), once through the pooled ranks and
    once through the row-by-row path for long rows; and an exact KS with a long side."""
    rng = np.random.default_rng(7)
    for n, m, rows in ((100, 100, 24), (8, 1300, 12), (3, 3300, 12)):
        assert_rows_as_alone(*benchmarks(rng, rows, n, m), f"{n}x{m}")
    assert run_tests_batched(*benchmarks(rng, 2, 100, 100))[0].ks.method == "asymptotic"
    assert run_tests_batched(*benchmarks(rng, 2, 3, 3300))[0].ks.method == "exact"


def test_exact_ks_for_a_few_rows_of_skewed_sizes() -> None:
    """A single benchmark of 3 against 3300 values takes the recursion cell by cell, a batch of
    40 the vectorised one along the anti-diagonals: the same bits."""
    rng = np.random.default_rng(8)
    x, y = benchmarks(rng, 40, 3, 3300)
    assert bits(ks_test_rows(x, y)) == bits([ks_test(a, b) for a, b in zip(x, y, strict=True)])
    assert_rows_as_alone(x[:8], y[:8], "rows of 3x3300", decisions=False)


def test_exact_ks_of_repeated_thresholds_and_ties_is_the_recursion_of_every_row() -> None:
    """Rows that share their threshold and pattern of ties are computed once: the same bits
    as the recursion over every row (timing samples of odd sizes: the medians tie; values
    on a coarse grid: more ties)."""
    from speeduptest.stats.kolmogorov_smirnov import _smirnov_exact_distinct, _smirnov_exact_rows

    rng = np.random.default_rng(9)
    for n, m, rows, digits in ((31, 31, 400, 6), (15, 16, 300, 1), (7, 9, 200, 0)):
        x, y = benchmarks(rng, rows, n, m)
        x, y = np.round(x, digits), np.round(y, digits)
        statistic = np.array([result.statistic for result in ks_test_rows(x, y)])
        threshold = np.rint(statistic * m * n).astype(np.int64)
        patterns = rng.random((4, m + n)) < 0.9  # a few patterns of ties, and none
        patterns[0] = True
        patterns[:, -1] = True
        block_end = patterns[rng.integers(0, 4, rows)]
        expected = _smirnov_exact_rows(threshold, n, m, block_end)
        assert np.unique(threshold).size * 4 < rows  # (rows repeat)
        assert _smirnov_exact_distinct(threshold, n, m, block_end).tobytes() == expected.tobytes()


def test_the_exact_rank_sum_distribution_in_64_bits_is_the_one_in_python_integers() -> None:
    """The Mann–Whitney counts of every pair of sizes below the exact test's limit, either
    order of the sizes: the same integers as the recursion in Python's integers."""
    from speeduptest.stats.wilcoxon import _python_integer_tails, _rank_sum_upper_tails

    for m in range(1, 50, 2):
        for n in (*range(1, 50, 5), 31, 49):
            assert _rank_sum_upper_tails(m, n) == _python_integer_tails(m, n), (m, n)


def test_shapes_and_chunks() -> None:
    assert run_tests_batched(np.zeros((0, 5)), np.zeros((0, 7))) == []
    with pytest.raises(ValueError, match="shapes"):
        run_tests_batched(np.ones((3, 5)), np.ones((2, 5)))
    with pytest.raises(ValueError, match="shapes"):
        run_tests_batched(np.ones(5), np.ones(5))
    with pytest.raises(ValueError, match="shape"):
        shapiro_wilk_rows(np.ones(5))
    for bad in (lambda: t_test(np.ones(3), np.ones(3), equal_var=True, alternative="more"),
                lambda: wilcoxon_mann_whitney(np.ones(3), np.ones(3), alternative="more")):
        with pytest.raises(ValueError, match="alternative"):
            bad()
    rng = np.random.default_rng(12)
    assert_rows_as_alone(rng.lognormal(0, 0.3, (4, 2)), rng.lognormal(0, 0.3, (4, 5)), "2x5")
    # Rows split across chunks give the same results as a single chunk.
    x, y = benchmarks(rng, 50, 31, 31)
    whole = run_tests_batched(x, y)
    chunk, protocol.CHUNK_VALUES = protocol.CHUNK_VALUES, 62 * 7
    try:
        assert bits(run_tests_batched(x, y)) == bits(whole)
    finally:
        protocol.CHUNK_VALUES = chunk


# ----------------------------------------------------------------------------- properties

values = st.sampled_from([0.5, 0.75, 1.0, 1.0, 1.25, 1.5, 2.0, 3.0, 1.0 + 2**-52, 7.0])


def samples(rows: int, size: int) -> st.SearchStrategy:
    return st.lists(st.lists(values, min_size=size, max_size=size), min_size=rows,
                    max_size=rows).map(np.array)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(1, 4), st.data(),
       st.sampled_from([1e-300, 1e-9, 1.0, 1e200]))
def test_property_any_small_batch(n: int, m: int, rows: int, data: st.DataObject,
                                  unit: float) -> None:
    """Small batches drawn from few distinct values (many ties, constant rows) at any scale."""
    x = data.draw(samples(rows, n)) * unit
    y = data.draw(samples(rows, m)) * unit
    assert_rows_as_alone(x, y, "property")


def mirrored(a: float | None, b: float | None) -> bool:
    return (a is None) == (b is None) and (a is None or a == pytest.approx(b, rel=1e-9,
                                                                          abs=1e-300))


@SETTINGS
@given(x=times, y=times, digits=decimals)
def test_swapping_the_samples_mirrors_every_test(x, y, digits):
    """t(y, x) = −t(x, y) and W(y, x) = n·m − W(x, y), with the alternatives "greater" and
    "less" exchanged; F(y, x) = 1 / F(x, y) and D(y, x) = D(x, y), with the same two-sided
    p-values."""
    x, y = np.round(np.array(x), digits), np.round(np.array(y), digits)
    for equal_var in (True, False):
        for alternative, swapped in (("greater", "less"), ("less", "greater"),
                                     ("two-sided", "two-sided")):
            forward = t_test(x, y, equal_var=equal_var, alternative=alternative)
            backward = t_test(y, x, equal_var=equal_var, alternative=swapped)
            assert forward.p_value == backward.p_value and forward.df == backward.df
            assert forward.statistic is None or forward.statistic == -backward.statistic
    for alternative, swapped in (("greater", "less"), ("less", "greater"),
                                 ("two-sided", "two-sided")):
        forward = wilcoxon_mann_whitney(x, y, alternative=alternative)
        backward = wilcoxon_mann_whitney(y, x, alternative=swapped)
        assert mirrored(forward.p_value, backward.p_value)
        assert (forward.statistic is None
                or forward.statistic + backward.statistic == x.size * y.size)
    forward, backward = f_test(x, y), f_test(y, x)
    assert mirrored(forward.p_value, backward.p_value)
    if forward.statistic and backward.statistic:
        assert forward.statistic == pytest.approx(1 / backward.statistic, rel=1e-15)
    forward, backward = ks_test(x, y), ks_test(y, x)
    assert forward.statistic == backward.statistic
    assert mirrored(forward.p_value, backward.p_value)


@SETTINGS
@given(x=times, y=times, digits=decimals, exponent=st.integers(-900, 900))
def test_a_power_of_two_scale_changes_no_bit(x, y, digits, exponent):
    """Every test is scale-invariant, and a power of two scales every value and difference
    exactly: the same results, bit for bit (the protocol brings its pairs to a common scale
    first, so its tests do not even underflow or overflow)."""
    x, y = np.round(np.array([x]), digits), np.round(np.array([y]), digits)
    xs, ys = np.ldexp(x, exponent), np.ldexp(y, exponent)
    assert bits(shapiro_wilk_rows(xs)) == bits(shapiro_wilk_rows(x))
    assert bits(ks_test_rows(xs, ys)) == bits(ks_test_rows(x, y))
    for alternative in ALTERNATIVES:
        assert (bits(wilcoxon_mann_whitney_rows(xs, ys, alternative=alternative))
                == bits(wilcoxon_mann_whitney_rows(x, y, alternative=alternative)))
    assert bits(run_tests_batched(xs, ys)) == bits(run_tests_batched(x, y))
    if abs(exponent) < 200:  # Welch's fourth powers of the spread still normal floats
        assert bits(f_test_rows(xs, ys)) == bits(f_test_rows(x, y))
        for alternative in ALTERNATIVES:
            assert (bits(t_test_rows(xs, ys, equal_var=True, alternative=alternative))
                    == bits(t_test_rows(x, y, equal_var=True, alternative=alternative)))
            # Welch's degrees of freedom square with Python's ** (the C library's pow, as the
            # scalar formula did), which is not always the correctly rounded product: under a
            # scale its last bit may move (the protocol itself scales its pairs first, above).
            (scaled,), (plain,) = (t_test_rows(a, b, equal_var=False, alternative=alternative)
                                   for a, b in ((xs, ys), (x, y)))
            for field in ("statistic", "df", "p_value"):
                found, expected = getattr(scaled, field), getattr(plain, field)
                assert (found is None and expected is None) or found == pytest.approx(
                    expected, rel=1e-13, nan_ok=True)


odd_values = st.sampled_from([0.5, 1.0, 1.0, 1.5, 2.0, 7.0, math.nan, math.inf, -math.inf, 0.0,
                              -0.0, 1e-320, 1e300, 2.0**600, -1.0])


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(1, 4), st.data(),
       st.sampled_from([1e-300, 1e-9, 1.0, 1e200]))
def test_property_both_ways_is_two_calls(n: int, m: int, rows: int, data: st.DataObject,
                                         unit: float) -> None:
    """The tests both ways share the common scale, the moments and Shapiro–Wilk (and with
    equal sizes the KS test): the same results as two calls with the roles swapped (ties,
    constant rows, any scale, non-finite values)."""
    if data.draw(st.booleans()):
        m = n
    draw = samples if data.draw(st.booleans()) else (
        lambda rows, size: st.lists(st.lists(odd_values, min_size=size, max_size=size),
                                    min_size=rows, max_size=rows).map(np.array))
    with np.errstate(over="ignore"):
        x = data.draw(draw(rows, n)) * unit
        y = data.draw(draw(rows, m)) * unit
    try:
        both = quietly(run_tests_both_ways, x, y)
    except ZeroDivisionError:  # all-zero rows: as one way
        with pytest.raises(ZeroDivisionError):
            quietly(run_tests_batched, x, y)
        return
    assert bits(both) == bits((quietly(run_tests_batched, x, y),
                               quietly(run_tests_batched, y, x)))


@pytest.mark.parametrize(("n", "m"), [*SIZES, (3, 200), (400, 300), (700, 400)])
def test_both_ways_is_two_calls(n: int, m: int) -> None:
    """(700 against 400 values: the rank sums of long rows, from the sorted samples.)"""
    rng = np.random.default_rng(7 * n + m)
    x, y = benchmarks(rng, 64 if n * m < 10_000 else 4, n, m)
    assert bits(run_tests_both_ways(x, y)) == bits((run_tests_batched(x, y),
                                                    run_tests_batched(y, x)))


def test_the_tests_import_nothing_of_scipy_stats():
    """Shapiro–Wilk is AS R94 written out (scipy.stats.shapiro was the one reason to import
    scipy.stats, 0.35-0.45 s, for the protocol of a single pair through the Python API)."""
    import subprocess
    import sys

    check = ("import sys; import numpy as np; from speeduptest import analyse_pair; "
             "from speeduptest.stats.omnibus import choose_omnibus; "
             "x = np.linspace(1, 2, 12); analyse_pair(x, x[::-1] ** 1.1); "
             "choose_omnibus([x, x * 1.1, x ** 2]); print('scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["False"], done.stderr


# ------------------------------------------------------------------------ degenerate rows


def test_degenerate_rows() -> None:
    """Non-finite values, negative and zero times, subnormals, values spanning the floats:
    what each test says of them, in a batch as alone."""
    rng = np.random.default_rng(11)
    x = rng.lognormal(0, 0.3, (11, 12))
    y = rng.lognormal(0, 0.3, (11, 9))
    x[0, 3] = np.nan
    y[1, 2] = np.inf
    x[2, 0] = 1e308
    x[3] = -x[3]
    x[4, :6] = 0.0
    y[5] = 1e-320
    x[6] = 5e-324
    x[7, :2] = (-0.0, 0.0)
    x[8, 0] = 1e200  # beyond 2**500 times the median
    x[9, 0] = 1e90  # Welch's squares overflow
    x[10] = 2.5  # constant
    found = assert_rows_as_alone(x, y, "degenerate", decisions=False)
    assert not found[0].shapiro_initial.computed and "span" in found[0].shapiro_initial.note
    assert found[5].shapiro_optimized.note == "all values are identical"
    assert found[6].shapiro_initial.note == "all values are identical"
    for row in (8, 9):
        assert not found[row].t_welch.computed and "not representable" in found[row].t_welch.note
        assert found[row].shapiro_initial.computed and found[row].wilcoxon.computed
    assert found[10].f_test.statistic == 0.0 and found[10].f_test.p_value == 0.0
    assert bits(quietly(run_tests_both_ways, x, y)) == bits((quietly(run_tests_batched, x, y),
                                                             quietly(run_tests_batched, y, x)))


def test_division_by_zero_of_the_formulas_is_raised() -> None:
    """All-zero samples (a zero standard error that is not small against zero means) and
    Welch's test of one value divide by zero, as the scalar formulas did."""
    with pytest.raises(ZeroDivisionError):
        run_tests(np.zeros(5), np.zeros(5))
    zeros_in_the_middle = np.ones((3, 5))
    zeros_in_the_middle[1] = 0.0
    with pytest.raises(ZeroDivisionError):
        run_tests_batched(zeros_in_the_middle, zeros_in_the_middle)
    with pytest.raises(ZeroDivisionError):
        t_test([1.0], [1.0, 2.0], equal_var=False)
    # Welch's degrees of freedom of variances near 2**996 overflow: not computed.
    overflowing = np.ones((2, 5))
    overflowing[:, 0] = 2.0**499
    single = run_tests(overflowing[0], np.ones(5))
    assert single.t_welch.p_value is None and "not representable" in single.t_welch.note
    assert run_tests_batched(overflowing, np.ones((2, 5))) == [single, single]


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(1, 4), st.data(),
       st.sampled_from([1e-310, 1e-300, 1e-9, 1.0, 1e200, 1e307]))
def test_property_tie_free_rows_as_per_pair(n: int, m: int, rows: int, data: st.DataObject,
                                            unit: float) -> None:
    """The batch's tie check of the rank test's most favourable case says "no ties" exactly
    where the per-pair computation finds none (values the shift may merge included)."""
    from speeduptest.stats.protocol import _most_favourable, _tie_sizes, tie_free_rows

    x = data.draw(samples(rows, n)) * unit
    y = data.draw(samples(rows, m)) * unit

    def most_favourable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # One pair, written with scalars (as protocol computed it before the batched check).
        _, exponent = math.frexp(max(a.max(), b.max()))
        a, b = np.ldexp(a, -exponent), np.ldexp(b, -exponent)
        return a - a.min() + 2 * b.max(), b

    expected = [_tie_sizes(a) == () and _tie_sizes(b) == ()
                for a, b in (most_favourable(x[row], y[row]) for row in range(rows))]
    assert tie_free_rows(x, y).tolist() == expected
    for row in range(rows):  # and the per-pair path computes the same values
        for got, want in zip(_most_favourable(x[row], y[row]), most_favourable(x[row], y[row]),
                             strict=True):
            assert got.tobytes() == want.tobytes()

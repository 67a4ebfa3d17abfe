"""The batched engine (speeduptest.stats.batched) against the per-pair protocol (run_tests).

Every row of a batch must give the ProtocolTests that run_tests gives for that row alone: the
same notes, methods and variants, numbers within 1e-12 relative (1e-300 absolute for tiny
p-values), and the same protocol decisions at every risk level. In fact the engine repeats the
per-pair floating-point operations in the same order, and the numbers are bit-identical
(test_numbers_are_bit_identical).
"""

from __future__ import annotations

import dataclasses
import json
import math
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speeduptest.model.results import Decision, ProtocolTests
from speeduptest.stats import batched
from speeduptest.stats.batched import run_tests_batched, run_tests_both_ways
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
)

TESTS = ("shapiro_initial", "shapiro_optimized", "f_test", "t_student", "t_welch", "ks",
         "wilcoxon")
LARGE_SAMPLE = 30
ALPHAS = (0.001, 0.01, 0.05, 0.1, 0.2)


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
    y[kind == 11] *= 1e-30  # below scipy's zero-range guard but for Shapiro's own scale
    return x, y


def same_float(got: float, want: float) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return got == pytest.approx(want, rel=1e-12, abs=1e-300)


def assert_same_tests(got: ProtocolTests, want: ProtocolTests, where: str) -> float:
    """Field by field; returns the largest relative difference of the numbers."""
    worst = 0.0
    for name in TESTS:
        result, expected = getattr(got, name), getattr(want, name)
        assert type(result) is type(expected), f"{where} {name}"
        for field in dataclasses.fields(expected):
            value, wanted = getattr(result, field.name), getattr(expected, field.name)
            if isinstance(wanted, float):
                assert isinstance(value, float), f"{where} {name}.{field.name}: {value!r}"
                assert same_float(value, wanted), (
                    f"{where} {name}.{field.name}: {value!r} != {wanted!r}")
                if value != wanted and math.isfinite(wanted) and wanted != 0:
                    worst = max(worst, abs(value - wanted) / abs(wanted))
            else:
                assert value == wanted, f"{where} {name}.{field.name}: {value!r} != {wanted!r}"
    return worst


def assert_same_decisions(got: ProtocolTests, want: ProtocolTests, where: str) -> None:
    n, m = want.shapiro_initial.n, want.shapiro_optimized.n
    small = n <= LARGE_SAMPLE or m <= LARGE_SAMPLE
    for decide, verdict, outcome in ((decide_mean, mean_verdict, mean_outcome),
                                     (decide_median, median_verdict, median_outcome)):
        # At the p-values too: where max_confidence evaluates the rules.
        for alpha in ALPHAS + tuple(p for p in got.p_values() if 0 < p < 1):
            decision = decide(got, small, alpha, LARGE_SAMPLE)
            assert decision == decide(want, small, alpha, LARGE_SAMPLE), (
                f"{where} {decide.__name__}")
            # The verdict-only rule (for max_confidence) follows the tree in words, and so
            # does the verdict-and-reason one (for the reverse protocol).
            assert verdict(got, small, alpha) == decision.verdict, f"{where} {verdict.__name__}"
            assert outcome(got, small, alpha) == Decision(decision.verdict, decision.reason, ())
        assert (max_confidence(verdict, got, small)
                == max_confidence(verdict, want, small)), f"{where} max_confidence"


def per_pair(x: np.ndarray, y: np.ndarray) -> list[ProtocolTests]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's own warnings on degenerate data
        return [run_tests(a, b) for a, b in zip(x, y, strict=True)]


def compare(x: np.ndarray, y: np.ndarray, label: str, decisions: bool = True) -> float:
    got, want = run_tests_batched(x, y), per_pair(x, y)
    assert len(got) == len(want) == len(x)
    # The highest confidences over the batch, as max_confidence finds them pair by pair.
    small = x.shape[1] <= LARGE_SAMPLE or y.shape[1] <= LARGE_SAMPLE
    assert max_confidence_rows(got, [small] * len(got)) == [
        (max_confidence(mean_verdict, tests, small), max_confidence(median_verdict, tests, small))
        for tests in got], label
    worst = 0.0
    for row, (result, expected) in enumerate(zip(got, want, strict=True)):
        where = f"{label} row {row}"
        worst = max(worst, assert_same_tests(result, expected, where))
        if decisions:
            assert_same_decisions(result, expected, where)
    return worst


SIZES = [(3, 3), (4, 6), (5, 8), (11, 12), (20, 20), (31, 31), (49, 49), (60, 60), (8, 120)]


@pytest.mark.parametrize(("n", "m"), SIZES)
def test_random_benchmarks_match_run_tests(n: int, m: int) -> None:
    rng = np.random.default_rng(1000 * n + m)
    x, y = benchmarks(rng, 96, n, m)
    assert compare(x, y, f"{n}x{m}") <= 1e-12


def test_r_fixture_cases_batched_by_size() -> None:
    """The R-checked cases of tests/fixtures/protocol_cases.json, batched by sample sizes as the
    analysis would batch them: the same tests as run_tests, hence as R to 1e-6."""
    path = Path(__file__).parents[1] / "fixtures" / "protocol_cases.json"
    groups: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
        groups[len(case["x"]), len(case["y"])].append(case)
    assert len(groups) > 1
    for (n, m), cases in groups.items():
        x = np.array([case["x"] for case in cases], dtype=float)
        y = np.array([case["y"] for case in cases], dtype=float)
        compare(x, y, f"R cases {n}x{m}")


def test_asymptotic_ks_and_long_rows() -> None:
    """n·m ≥ 10,000 (Kolmogorov's limiting distribution), once through the batched ranks and
    once through the per-row path for long rows; and an exact KS with a long side."""
    rng = np.random.default_rng(7)
    for n, m, rows in ((100, 100, 24), (8, 1300, 12), (3, 3300, 12)):
        x, y = benchmarks(rng, rows, n, m)
        compare(x, y, f"{n}x{m}")
    assert run_tests_batched(*benchmarks(rng, 2, 100, 100))[0].ks.method == "asymptotic"
    assert run_tests_batched(*benchmarks(rng, 2, 3, 3300))[0].ks.method == "exact"


def test_exact_ks_for_a_few_rows_of_skewed_sizes() -> None:
    """A single benchmark of 3 against 3300 values takes the scalar recursion, 40 the
    vectorised one: both equal the per-pair p-values."""
    rng = np.random.default_rng(8)
    for rows in (1, 40):
        x, y = benchmarks(rng, rows, 3, 3300)
        compare(x, y, f"{rows} rows of 3x3300", decisions=False)


def test_shapiro_size_limit() -> None:
    rng = np.random.default_rng(9)
    x = rng.lognormal(0, 0.3, (3, 5001))
    y = rng.lognormal(0, 0.3, (3, 40)).round(1)
    compare(x, y, "5001x40")
    result = run_tests_batched(x, y)[0]
    assert not result.shapiro_initial.computed
    assert result.shapiro_initial.note == "defined for 3 to 5000 values"
    assert result.shapiro_optimized.computed
    compare(rng.lognormal(0, 0.3, (2, 5000)), rng.lognormal(0, 0.3, (2, 12)), "5000x12")


def test_huge_pair_with_many_ties() -> None:
    """Ties of ~300,000 values: Σ(t³ − t) above 2**53, summed as the per-pair code sums it."""
    x = np.ones((2, 150_000))
    y = np.ones((2, 150_000))
    y[0, -1] = 2.0
    x[1, :10] = 0.5
    compare(x, y, "150000x150000")


def test_shapiro_small_sample_branches() -> None:
    """n = 3 (exact), 4 … 11 (including W below Royston's γ bound) and 12 (the other fit)."""
    rng = np.random.default_rng(10)
    for n in (3, 4, 5, 6, 7, 11, 12):
        x = rng.lognormal(0, 0.3, (40, n))
        y = rng.lognormal(0, 0.3, (40, n))
        x[:8, -1] = 1e6  # W far below the γ bound for n ≤ 11: p = 1e-19
        x[8:16] = np.linspace(1, 2, n)
        y[16:24, :2] = 7.0
        y[24:32] = [1.0] * (n - 1) + [1.0 + 2**-52]
        compare(x, y, f"n={n}")


def test_rows_left_to_the_per_pair_code() -> None:
    """Non-finite values, negative and zero times, subnormals: the same results."""
    rng = np.random.default_rng(11)
    x = rng.lognormal(0, 0.3, (10, 12))
    y = rng.lognormal(0, 0.3, (10, 9))
    x[0, 3] = np.nan
    y[1, 2] = np.inf
    x[2, 0] = 1e308
    x[3] = -x[3]
    x[4, :6] = 0.0
    y[5] = 1e-320
    x[6] = 5e-324
    x[7, :2] = (-0.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's, from run_tests on the inf and 1e308 rows
        got = run_tests_batched(x, y)
    want = per_pair(x, y)
    for row, (result, expected) in enumerate(zip(got, want, strict=True)):
        assert_same_tests(result, expected, f"row {row}")


def test_exceptions_of_the_per_pair_code_are_raised() -> None:
    with pytest.raises(ZeroDivisionError):
        run_tests(np.zeros(5), np.zeros(5))
    zeros_in_the_middle = np.ones((3, 5))
    zeros_in_the_middle[1] = 0.0
    with pytest.raises(ZeroDivisionError):
        run_tests_batched(zeros_in_the_middle, zeros_in_the_middle)
    # Welch's degrees of freedom of variances near 2**996 overflow: not computed (it raised
    # OverflowError, batched or not), the same batched.
    overflowing = np.ones((2, 5))
    overflowing[:, 0] = 2.0**499
    single = run_tests(overflowing[0], np.ones(5))
    assert single.t_welch.p_value is None and "not representable" in single.t_welch.note
    assert run_tests_batched(overflowing, np.ones((2, 5))) == [single, single]


def test_shapes() -> None:
    assert run_tests_batched(np.zeros((0, 5)), np.zeros((0, 7))) == []
    with pytest.raises(ValueError, match="shapes"):
        run_tests_batched(np.ones((3, 5)), np.ones((2, 5)))
    with pytest.raises(ValueError, match="shapes"):
        run_tests_batched(np.ones(5), np.ones(5))
    rng = np.random.default_rng(12)
    compare(rng.lognormal(0, 0.3, (4, 2)), rng.lognormal(0, 0.3, (4, 5)), "2x5")
    # Rows split across chunks give the same results as a single chunk.
    x, y = benchmarks(rng, 50, 31, 31)
    whole = run_tests_batched(x, y)
    chunk, batched.CHUNK_VALUES = batched.CHUNK_VALUES, 62 * 7
    try:
        assert run_tests_batched(x, y) == whole
    finally:
        batched.CHUNK_VALUES = chunk


def test_numbers_are_bit_identical() -> None:
    """Stronger than the 1e-12 the engine promises: the same operations in the same order give
    the same bits (the C library's log/exp/acos/pow, as scipy's Shapiro–Wilk and Python's
    ``**`` use, sequential running sums, row-wise numpy reductions). Should a numpy or scipy
    upgrade break this while the tolerance tests pass, the tolerance tests are the contract."""
    rng = np.random.default_rng(13)
    for n, m in ((3, 3), (7, 9), (31, 31), (60, 60)):
        x, y = benchmarks(rng, 120, n, m)
        got, want = run_tests_batched(x, y), per_pair(x, y)
        mismatched = [row for row, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
        assert mismatched == [], f"{n}x{m}: rows {mismatched[:5]}"


values = st.sampled_from([0.5, 0.75, 1.0, 1.0, 1.25, 1.5, 2.0, 3.0, 1.0 + 2**-52, 7.0])


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(1, 4), st.data(),
       st.sampled_from([1e-300, 1e-9, 1.0, 1e200]))
def test_property_any_small_batch(n: int, m: int, rows: int, data: st.DataObject,
                                  unit: float) -> None:
    """Small batches drawn from few distinct values (many ties, constant rows) at any scale."""
    x = np.array(data.draw(st.lists(st.lists(values, min_size=n, max_size=n),
                                    min_size=rows, max_size=rows))) * unit
    y = np.array(data.draw(st.lists(st.lists(values, min_size=m, max_size=m),
                                    min_size=rows, max_size=rows))) * unit
    compare(x, y, "property")


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(1, 4), st.data(),
       st.sampled_from([1e-300, 1e-9, 1.0, 1e200]))
def test_property_both_ways_is_two_calls(n: int, m: int, rows: int, data: st.DataObject,
                                         unit: float) -> None:
    """The tests both ways share the common scale and Shapiro–Wilk: the same objects as two
    calls with the roles swapped (ties, constant rows, any scale)."""
    x = np.array(data.draw(st.lists(st.lists(values, min_size=n, max_size=n),
                                    min_size=rows, max_size=rows))) * unit
    y = np.array(data.draw(st.lists(st.lists(values, min_size=m, max_size=m),
                                    min_size=rows, max_size=rows))) * unit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run_tests_both_ways(x, y) == (run_tests_batched(x, y), run_tests_batched(y, x))


@pytest.mark.parametrize(("n", "m"), [*SIZES, (3, 200), (400, 300)])
def test_both_ways_is_two_calls(n: int, m: int) -> None:
    rng = np.random.default_rng(7 * n + m)
    x, y = benchmarks(rng, 64 if n * m < 10_000 else 4, n, m)
    assert run_tests_both_ways(x, y) == (run_tests_batched(x, y), run_tests_batched(y, x))


@settings(max_examples=80, deadline=None)
@given(st.integers(3, 9), st.integers(3, 9), st.integers(1, 4), st.data(),
       st.sampled_from([1e-310, 1e-300, 1e-9, 1.0, 1e200, 1e307]))
def test_property_tie_free_rows_as_per_pair(n: int, m: int, rows: int, data: st.DataObject,
                                            unit: float) -> None:
    """The batch's tie check of the rank test's most favourable case says "no ties" exactly
    where the per-pair computation finds none (values the shift may merge included)."""
    from speeduptest.stats.protocol import _most_favourable, _tie_sizes, tie_free_rows

    x = np.array(data.draw(st.lists(st.lists(values, min_size=n, max_size=n),
                                    min_size=rows, max_size=rows))) * unit
    y = np.array(data.draw(st.lists(st.lists(values, min_size=m, max_size=m),
                                    min_size=rows, max_size=rows))) * unit

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

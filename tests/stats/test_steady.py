"""Measurement checks of speeduptest/stats/steady.py: known series, the accounting of every
value kept or dropped, Politis–White against arch, Mann–Kendall against scipy, and
invariants on random series (hypothesis). Nothing here depends on timing.

R's values of Mann–Kendall, Friedman and the lag-1 autocorrelation:
tests/stats/test_steady_against_r.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.steady import (
    MIN_BATCHES,
    MIN_SERIES,
    OrderTest,
    SideValidity,
    WarmupError,
    _check_sides,
    _kendall_s,
    _partitions,
    batch_means,
    check_side,
    check_sides,
    circular_block_length,
    lag1,
    mann_kendall,
    mann_kendall_rows,
    optimal_partitions,
    position_effect,
    steady_state,
    steady_states,
)

SETTINGS = settings(max_examples=50, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
SEEDS = range(10)


def noisy(seed: int, n: int = 100, level: float = 10.0, sd: float = 0.02) -> np.ndarray:
    """n times around ``level`` with a relative noise of ``sd`` (log-normal)."""
    return level * np.exp(np.random.default_rng(seed).normal(0.0, sd, n))


def ar1(seed: int, n: int, phi: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0] / np.sqrt(1 - phi * phi)
    for t in range(1, n):
        x[t] = phi * x[t - 1] + e[t]
    return x


def groups_of(sample: Hierarchy) -> list[np.ndarray]:
    """The lowest groups (the series) of a sample, in measurement order."""
    if isinstance(sample.root, np.ndarray):
        return [sample.root]
    found: list[np.ndarray] = []

    def walk(node):
        if isinstance(node, np.ndarray):
            found.append(node)
        else:
            for child in node:
                walk(child)

    walk(sample.root)
    return found


# ---------------------------------------------------------------- known series


@pytest.mark.parametrize("seed", SEEDS)
def test_flat_iid_series_is_flat(seed):
    found = steady_state(noisy(seed))
    assert (found.classification, found.start) == ("flat", 0)
    found = steady_state(np.random.default_rng(seed).normal(10.0, 0.3, 200))
    assert (found.classification, found.start) == ("flat", 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_clear_warmup_is_found(seed):
    x = noisy(seed)
    x[:20] *= 3
    found = steady_state(x)
    assert found.classification == "warmup"
    assert abs(found.start - 20) <= 3


@pytest.mark.parametrize("seed", range(3))
def test_long_series_judged_on_block_means(seed):
    """Beyond MAX_POINTS values, on block means: the start to within a block."""
    flat = noisy(seed, 3000)
    assert steady_state(flat).classification == "flat"
    x = flat.copy()
    x[:300] *= 3
    found = steady_state(x)
    assert found.classification == "warmup" and abs(found.start - 300) <= 3
    assert steady_state(np.ldexp(x, -7)) == found


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("at", [40, 50, 60])
def test_late_step_up_is_a_slowdown(seed, at):
    x = noisy(seed)
    x[at:] *= 1.5
    found = steady_state(x)
    assert found.classification == "slowdown"
    assert abs(found.start - at) <= 3


def test_step_up_in_last_third_is_a_slowdown():
    x = noisy(0)
    x[70:] *= 1.5
    assert steady_state(x).classification == "slowdown"


@pytest.mark.parametrize("n", [0, 1, 2, 10, MIN_SERIES - 1])
def test_short_series_are_too_short(n):
    found = steady_state(noisy(0, n) if n else np.array([]))
    assert (found.classification, found.start) == ("too short", 0)
    assert steady_state(noisy(0, MIN_SERIES)).classification != "too short"


@pytest.mark.parametrize("n", [MIN_SERIES, 100, 1500])
def test_constant_series_is_flat(n):
    found = steady_state(np.full(n, 3.25))
    assert (found.classification, found.start) == ("flat", 0)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", [10.0, 100.0, 1e6])
def test_single_huge_spike_keeps_series_flat(seed, size):
    x = noisy(seed)
    x[50] *= size
    found = steady_state(x)
    assert found.classification == "flat" or found.start == 0


@pytest.mark.parametrize("exponent", [0, 2])
def test_constant_tail_does_not_depend_on_unit(exponent):
    x = np.full(100, 2.0)
    x[:20] = 6.0
    found = steady_state(np.ldexp(x, exponent))
    assert (found.classification, found.start) == ("warmup", 20)
    assert found.segments <= 3


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_friedman_of_constant_invocations():
    found = position_effect([np.ones(3), np.ones(3), np.full(3, 0.5)])
    assert found is None or (math.isfinite(found.statistic) and math.isfinite(found.p_value))


def test_steady_states_equal_steady_state_one_by_one():
    series = [noisy(1), noisy(2, 30), noisy(3, 10), noisy(4)]
    series[0][:20] *= 3
    assert steady_states(series) == [steady_state(one) for one in series]


# ---------------------------------------------------------------- --warmup


def warm_invocations(count: int = 4, n: int = 60, warm: int = 15) -> list[np.ndarray]:
    found = []
    for seed in range(count):
        x = noisy(seed, n)
        x[:warm] *= 3
        found.append(x)
    return found


@pytest.mark.parametrize("number", [0, 1, 5, 59])
def test_warmup_number_drops_exactly_that_many_per_invocation(number):
    groups = warm_invocations()
    sample = Hierarchy.from_nested([list(g) for g in groups], ("invocation", "iteration"))
    analysed, validity = check_side(sample, warmup=str(number))
    assert validity.drops == (number,) * len(groups)
    assert validity.dropped == number * len(groups)
    assert validity.values == sum(len(g) - number for g in groups)
    for kept, group in zip(groups_of(analysed), groups, strict=True):
        np.testing.assert_array_equal(kept, group[number:])
    assert analysed.level_names == sample.level_names


def test_warmup_number_on_one_level_sample():
    x = noisy(0, 80)
    analysed, validity = check_side(Hierarchy.flat(x), warmup="7", dependence="ignore")
    assert validity.drops == (7,) and validity.dropped == 7 and validity.values == 73
    np.testing.assert_array_equal(analysed.values(), x[7:])


def test_warmup_none_drops_nothing_but_still_classifies():
    groups = warm_invocations()
    sample = Hierarchy.from_nested([list(g) for g in groups], ("invocation", "iteration"))
    analysed, validity = check_side(sample, warmup="none")
    assert validity.drops == (0,) * len(groups) and validity.dropped == 0
    assert validity.classes == ("warmup",) * len(groups)
    assert validity.classification == "warmup" and validity.consistent is True
    assert all(abs(start - 15) <= 3 for start in validity.starts)
    assert validity.values == sample.measurements
    for kept, group in zip(groups_of(analysed), groups, strict=True):
        np.testing.assert_array_equal(kept, group)


def test_warmup_auto_drops_each_detected_warmup():
    groups = warm_invocations()
    groups.append(noisy(9, 60))  # a flat one: nothing dropped
    sample = Hierarchy.from_nested([list(g) for g in groups], ("invocation", "iteration"))
    analysed, validity = check_side(sample, warmup="auto")
    assert validity.classes == ("warmup",) * 4 + ("flat",)
    assert validity.classification == "inconsistent" and validity.consistent is False
    assert validity.drops == (*validity.starts[:4], 0)
    for kept, group, drop in zip(groups_of(analysed), groups, validity.drops, strict=True):
        np.testing.assert_array_equal(kept, group[drop:])


@pytest.mark.parametrize("number", [60, 61, 1000])
def test_warmup_leaving_no_values_is_an_error(number):
    groups = warm_invocations()
    groups[2] = groups[2][:50]
    sample = Hierarchy.from_nested([list(g) for g in groups], ("invocation", "iteration"))
    with pytest.raises(WarmupError):
        check_side(sample, warmup=str(number))
    with pytest.raises(WarmupError):
        check_side(Hierarchy.flat(groups[0]), warmup=str(number))
    good = Hierarchy.flat(noisy(5, 2000))
    found = check_sides([good, sample, Hierarchy.flat(groups[0])], warmup=str(number))
    assert not isinstance(found[0], WarmupError)
    assert isinstance(found[1], WarmupError) and isinstance(found[2], WarmupError)


def test_warmup_error_names_the_invocation():
    groups = [list(noisy(0, 40)), list(noisy(1, 12)), list(noisy(2, 40))]
    sample = Hierarchy.from_nested(groups, ("invocation", "iteration"))
    with pytest.raises(WarmupError, match="invocation 2"):
        check_side(sample, warmup="12")
    check_side(sample, warmup="11")


# ---------------------------------------------------------------- every value accounted for


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.9])
@pytest.mark.parametrize("n", [10, 57, 400])
def test_batches_keep_every_value(phi, n):
    x = 10 + ar1(n, n, phi)
    batches, length = batch_means(x)
    np.testing.assert_array_equal(np.concatenate(batches), x)
    if length > 1:
        assert len(batches) >= MIN_BATCHES
        assert all(abs(len(batch) - length) <= length for batch in batches)
    else:
        assert len(batches) == 1


@pytest.mark.parametrize("warmup", ["auto", "none", "20"])
@pytest.mark.parametrize("dependence", ["batch", "ignore"])
def test_dependent_one_level_sample_accounting(warmup, dependence):
    x = 10 + ar1(3, 300, 0.8)
    x[:20] += 10  # a warm-up
    analysed, validity = check_side(Hierarchy.flat(x), warmup=warmup, dependence=dependence)
    assert validity.values + validity.dropped == len(x)
    assert analysed.measurements == validity.values
    np.testing.assert_array_equal(analysed.values(), x[validity.dropped:])
    assert validity.dependence is not None and validity.dependence.dependent
    if dependence == "batch":
        assert validity.dependence.batch > 1
        assert analysed.level_names == ("batch", "measurement")
    else:
        assert validity.dependence.batch == 1
        assert isinstance(analysed.root, np.ndarray)


# ---------------------------------------------------------------- Politis–White against arch


def arch_circular(x: np.ndarray) -> float:
    bootstrap = pytest.importorskip("arch.bootstrap")
    with np.errstate(divide="ignore", invalid="ignore"):  # arch: |γ| / 0 at the last lags
        return float(bootstrap.optimal_block_length(x)["circular"].iloc[0])


@pytest.mark.parametrize("phi", [-0.5, 0.0, 0.3, 0.7, 0.95])
@pytest.mark.parametrize("n", [10, 31, 100, 500, 2000])
def test_circular_block_length_equals_arch(n, phi):
    x = 5 + ar1(1000 * n + int(100 * phi), n, phi)
    expected = arch_circular(x)
    # Equal to within 2 units in the last place (see the next test for the last digit).
    assert abs(circular_block_length(x) - expected) <= 2 * np.spacing(expected)


def test_circular_block_length_identical_to_arch_to_the_last_digit():
    x = 5 + ar1(1000 * 500 + 30, 500, 0.3)
    assert circular_block_length(x) == arch_circular(x)


# ---------------------------------------------------------------- Mann–Kendall


def mk_matrix() -> np.ndarray:
    rng = np.random.default_rng(11)
    rows = rng.normal(10, 1, (12, 40)) + np.linspace(-1, 1, 12)[:, None] * np.arange(40) / 20
    rows[4:8] = np.round(rows[4:8])  # ties
    rows[8] = np.arange(40.0)  # monotone
    rows[9] = 7.0  # constant
    return rows


def test_mann_kendall_rows_equal_row_by_row():
    rows = mk_matrix()
    assert mann_kendall_rows(rows) == [mann_kendall(row) for row in rows]
    assert mann_kendall(rows[9]).statistic == 0.0 and mann_kendall(rows[9]).p_value == 1.0


@pytest.mark.parametrize("row", range(12))
def test_mann_kendall_equals_scipy_asymptotic(row):
    x = mk_matrix()[row]
    if np.ptp(x) == 0:
        return  # scipy: nan
    expected = stats.kendalltau(np.arange(len(x)), x, method="asymptotic")
    found = mann_kendall(x)
    assert found.statistic == pytest.approx(expected.statistic, rel=1e-12, abs=1e-15)
    assert found.p_value == pytest.approx(expected.pvalue, rel=1e-12)


# ---------------------------------------------------------------- properties (hypothesis)


@st.composite
def series(draw, min_size: int = 5, max_size: int = 150) -> np.ndarray:
    """Benchmark-like series: a level, relative noise (possibly autocorrelated), maybe a
    warm-up or a slowdown, spikes, rounding (ties); or arbitrary positive floats."""
    if draw(st.integers(0, 4)) == 0:
        values = draw(st.lists(st.floats(0.01, 1000.0), min_size=min_size, max_size=max_size))
        return np.array(values)
    n = draw(st.integers(min_size, max_size))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    sd = draw(st.sampled_from([0.0, 0.003, 0.02, 0.1]))
    phi = draw(st.sampled_from([0.0, 0.5, 0.9]))
    noise = rng.normal(0.0, sd, n)
    for t in range(1, n):
        noise[t] += phi * noise[t - 1]
    x = draw(st.floats(0.001, 1000.0)) * np.exp(noise)
    change = draw(st.integers(0, n))
    x[:change] *= draw(st.sampled_from([1.0, 0.6, 1.5, 3.0]))
    for _ in range(draw(st.integers(0, 3))):
        x[rng.integers(n)] *= draw(st.sampled_from([5.0, 50.0]))
    if draw(st.booleans()):
        x = np.round(x, draw(st.integers(0, 3)))
        x[x <= 0] = 1.0
    return x


@st.composite
def samples(draw) -> Hierarchy:
    """A one-level sample or invocations × iterations (lengths often equal: batched)."""
    lengths = st.sampled_from([3, 8, 12, 30, 45, 60, 100])
    if draw(st.booleans()):
        n = draw(lengths)
        return Hierarchy.flat(draw(series(min_size=n, max_size=n)))
    invocations = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(lengths)
        invocations.append(list(draw(series(min_size=n, max_size=n))))
    return Hierarchy.from_nested(invocations, ("invocation", "iteration"))


warmups = st.sampled_from(["auto", "none", "0", "2", "10"])
dependences = st.sampled_from(["batch", "ignore"])


@SETTINGS
@given(series(), st.integers(-30, 30).filter(bool))
def test_scaling_by_a_power_of_two_changes_nothing(x, exponent):
    scaled = np.ldexp(x, exponent)
    before, after = steady_state(x), steady_state(scaled)
    assert (after.classification, after.start) == (before.classification, before.start)
    if len(x) >= 2:
        assert lag1(scaled) == pytest.approx(lag1(x), abs=1e-12)
        assert mann_kendall(scaled).p_value == mann_kendall(x).p_value
        assert mann_kendall(scaled).statistic == mann_kendall(x).statistic


def same_order(a: OrderTest | None, b: OrderTest | None) -> bool:
    """Equal order tests (a NaN equal to a NaN: test_friedman_of_constant_invocations)."""
    if a is None or b is None:
        return a is b
    return a.test == b.test and all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in
                                    ((a.statistic, b.statistic), (a.p_value, b.p_value)))


def same_validity(a: SideValidity, b: SideValidity) -> None:
    for name in ("classification", "consistent", "classes", "starts", "dropped", "drops",
                 "warmup", "dependence_rule", "dependence", "values"):
        assert getattr(a, name) == getattr(b, name), name
    assert same_order(a.order, b.order)
    assert len(a.series) == len(b.series)
    for x, y in zip(a.series, b.series, strict=True):
        np.testing.assert_array_equal(x, y)


def same_analysed(a: Hierarchy, b: Hierarchy) -> None:
    assert a.level_names == b.level_names
    assert len(groups_of(a)) == len(groups_of(b))
    for x, y in zip(groups_of(a), groups_of(b), strict=True):
        np.testing.assert_array_equal(x, y)


@SETTINGS
@given(st.lists(samples(), min_size=1, max_size=5), warmups, dependences)
def test_check_sides_equals_check_side_one_by_one(sides, warmup, dependence):
    batched = check_sides(sides, warmup, dependence)
    assert len(batched) == len(sides)
    for sample, together in zip(sides, batched, strict=True):
        try:
            alone = check_side(sample, warmup, dependence)
        except WarmupError as error:
            assert isinstance(together, WarmupError)
            assert str(together) == str(error)
            continue
        assert not isinstance(together, WarmupError)
        same_analysed(together[0], alone[0])
        same_validity(together[1], alone[1])


@SETTINGS
@given(samples(), warmups, dependences)
def test_every_value_is_kept_or_dropped_and_drops_are_prefixes(sample, warmup, dependence):
    groups = groups_of(sample)
    try:
        analysed, validity = check_side(sample, warmup, dependence)
    except WarmupError:
        assert warmup.isdigit() and any(len(g) <= int(warmup) for g in groups)
        return
    assert len(validity.series) == len(groups) == len(validity.drops) == len(validity.starts)
    kept = []
    for group, shown, drop, start, cls in zip(groups, validity.series, validity.drops,
                                              validity.starts, validity.classes, strict=True):
        np.testing.assert_array_equal(shown, group)  # the series as read
        assert 0 <= start < max(1, len(group))
        assert 0 <= drop < len(group)
        if cls not in ("warmup", "slowdown"):
            assert start == 0
        if warmup == "none":
            assert drop == 0
        elif warmup == "auto":
            assert drop == (start if cls == "warmup" else 0)
        else:
            assert drop == int(warmup)
        kept.append(group[drop:])  # dropped values: a prefix of the invocation
    assert validity.dropped == sum(validity.drops)
    assert validity.values + validity.dropped == sample.measurements
    assert analysed.measurements == validity.values
    np.testing.assert_array_equal(analysed.values(), np.concatenate(kept))
    if not isinstance(sample.root, np.ndarray):  # invocations: never batched
        for analysed_group, kept_group in zip(groups_of(analysed), kept, strict=True):
            np.testing.assert_array_equal(analysed_group, kept_group)


# ---------------------------------------------------------------- change points


@pytest.mark.parametrize("n", [30, 100, 300])
def test_optimal_partitions_are_ruptures_pelt(n):
    """The segmentations are those of ruptures' PELT with the squared-error cost (its kernel
    change-point detection with the linear kernel), on series with warm-ups and steps."""
    ruptures = pytest.importorskip("ruptures")
    rng = np.random.default_rng(n)
    rows = []
    for index in range(60):
        x = rng.normal(0, 0.02, n)
        length = int(rng.integers(0, n // 2))
        x[:length] += rng.uniform(0, 1) * np.exp(-np.arange(length) / max(1, length / 4))
        if index % 3 == 0:
            x[n // 2:] += 0.05
        rows.append(x)
    rows = np.array(rows)
    penalties = np.full(len(rows), 4 * 0.02**2 * math.log(n))
    ours = optimal_partitions(rows, penalties)
    for row, penalty, found in zip(rows, penalties, ours, strict=True):
        expected = ruptures.KernelCPD(kernel="linear", min_size=2).fit(row[:, None]).predict(
            pen=penalty)
        assert found == [int(end) for end in expected]


# ---------------------------------------------------------------- the fast paths


def same_numbers(a, b) -> bool:
    """Equal field by field, floats to the bit (a NaN equal to a NaN, 0.0 not to -0.0);
    a numpy float equal to the Python float of its value."""
    if a is None or b is None:
        return a is b
    if type(a) is not type(b):
        return False
    for name in type(a).__slots__:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, (float, np.floating)) or isinstance(y, (float, np.floating)):
            if np.float64(x).tobytes() != np.float64(y).tobytes():
                return False
        elif x != y or type(x) is not type(y):
            return False
    return True


@SETTINGS
@given(st.lists(st.one_of(samples(), samples().map(lambda s: Hierarchy.flat(s.values()))),
                min_size=1, max_size=12), warmups, dependences)
def test_plain_rows_equal_the_general_checks(sides, warmup, dependence):
    """The one-level samples checked as the rows of one matrix per length (_check_plain)
    give what the general path gives, field for field: the same sample analysed (the same
    object where nothing is left out), the same steady states, dependence and order tests
    to the bit."""
    fast = _check_sides(sides, warmup, dependence)
    general = _check_sides(sides, warmup, dependence, plain_rows=False)
    for sample, a, b in zip(sides, fast, general, strict=True):
        if isinstance(b, WarmupError):
            assert isinstance(a, WarmupError) and str(a) == str(b)
            continue
        (analysed_a, validity_a), (analysed_b, validity_b) = a, b
        assert (analysed_a is sample) == (analysed_b is sample)
        same_analysed(analysed_a, analysed_b)
        same_validity(validity_a, validity_b)
        assert same_numbers(validity_a.dependence, validity_b.dependence)
        assert same_numbers(validity_a.order, validity_b.order)
        assert validity_a.findings == validity_b.findings


def test_samples_of_other_types_take_the_general_path():
    """Integer values, and empty samples, are checked the general way (the same results as
    their float values would give; an empty sample is a --warmup error)."""
    values = np.arange(1, 41) % 7 + 10
    sides = [Hierarchy(values), Hierarchy(values.astype(float)), Hierarchy(np.array([]))]
    found = check_sides(sides, "auto", "batch")
    assert found[0][1].order == found[1][1].order
    assert isinstance(found[2], WarmupError)


@st.composite
def rows_with_penalties(draw):
    n = draw(st.sampled_from([2, 3, 4, 5, 30, 31, 64]))
    m = draw(st.integers(1, 30))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = rng.normal(0, 1, (m, n))
    kind = draw(st.integers(0, 4))
    if kind == 1:
        rows[:, : n // 3] += draw(st.sampled_from([0.5, 3.0]))
    elif kind == 2:
        rows = np.round(rows, draw(st.integers(0, 1)))  # ties, constant stretches
    elif kind == 3:
        rows = np.cumsum(rows, axis=1)
    elif kind == 4:
        rows[:] = 1.0
    penalties = rng.uniform(0.01, 30, m) * draw(st.sampled_from([1e-3, 1.0, 1e3]))
    return rows, penalties


@SETTINGS
@given(rows_with_penalties())
def test_optimal_partitions_equal_the_choices_at_every_step(case):
    """The rows found to be one segment by the minimum costs alone, and the others, are
    segmented exactly as the optimal partitioning that records its choice at every end."""
    rows, penalties = case
    m, n = rows.shape
    centred = rows - rows.mean(axis=1, keepdims=True)
    sums = np.zeros((m, n + 1))
    squares = np.zeros((m, n + 1))
    np.cumsum(centred, axis=1, out=sums[:, 1:])
    np.cumsum(centred * centred, axis=1, out=squares[:, 1:])
    assert optimal_partitions(rows, penalties) == _partitions(sums, squares, penalties, 2)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (the overflows it is about)
def test_optimal_partitions_of_values_beyond_the_floats():
    """A row whose squares overflow partitions every row the general way (what NaN costs
    choose depends on their place among the candidates)."""
    rows = np.array([[1e200, -1e200] * 20, list(np.linspace(0, 1, 40))])
    penalties = np.array([1.0, 1e-3])
    assert optimal_partitions(rows, penalties)[1] == optimal_partitions(rows[1:],
                                                                       penalties[1:])[0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (∞ − ∞ in the reference sum)
@SETTINGS
@given(st.integers(1, 40), st.integers(2, 200), st.integers(0, 2**32 - 1),
       st.sampled_from([None, 0, 1, 2]), st.booleans())
def test_kendall_s_is_the_sum_of_signs(m, n, seed, digits, odd):
    """S from counted comparisons equals Σᵢ<ⱼ sign(xⱼ − xᵢ) summed in floats, ties (rounded
    values) and values that are not finite included."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(0, 1, (m, n))
    if digits is not None:
        rows = np.round(rows, digits)
    if odd:
        rows[rng.random((m, n)) < 0.05] = np.inf
        rows[rng.random((m, n)) < 0.05] = -np.inf
        rows[rng.random((m, n)) < 0.02] = np.nan
    expected = np.zeros(m)
    for i in range(n - 1):
        expected += np.sign(rows[:, i + 1:] - rows[:, i:i + 1]).sum(axis=1)
    np.testing.assert_array_equal(_kendall_s(rows), expected)

"""The geometric mean of the speedups: the bias correction of each log speedup, its interval
for the suite's measurement noise and its interval for the population of programs.

R cross-checks: tests/fixtures/generate_aggregate_cases.R (test_aggregate_intervals.py) and
generate_versions_ranking_cases.R (test_versions_ranking.py); coverage against the number of
benchmarks: benchmarks/geomean_coverage.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from speeduptest.stats.fieller import MeanRatio
from speeduptest.stats.overall import (
    GEOMETRIC_MEAN_DEFINITION,
    bias_corrections,
    delta_half_widths,
    geometric_mean_interval,
    population_interval,
)


def _suite(rng: np.random.Generator, benchmarks: int, units=(3, 3), cvs=(0.02, 0.2)):
    """Flat samples of every benchmark (true speedups log-normal around 1), and what the
    analysis makes of them: the weights, log(Ȳᵢ/Ȳₒ), the MeanRatio and the true logs."""
    weights = rng.uniform(0.5, 2.0, benchmarks)
    mean_i = np.exp(rng.uniform(-4, 2, benchmarks))
    theta = np.exp(rng.normal(0, 0.1, benchmarks))
    initial = mean_i[:, None] * (1 + cvs[0] * rng.standard_normal((benchmarks, units[0])))
    optimized = (mean_i / theta)[:, None] * (1 + cvs[1] * rng.standard_normal(
        (benchmarks, units[1])))
    grand_i, grand_o = initial.mean(axis=1), optimized.mean(axis=1)
    ratio = MeanRatio(grand_i / grand_o,
                      initial.var(axis=1, ddof=1) / units[0] / grand_i**2,
                      optimized.var(axis=1, ddof=1) / units[1] / grand_o**2,
                      np.full(benchmarks, units[0] - 1.0), np.full(benchmarks, units[1] - 1.0))
    return weights, np.log(ratio.speedup), ratio, np.log(theta)


def test_each_log_is_corrected_by_half_the_difference_of_the_relative_variances():
    rng = np.random.default_rng(1)
    weights, logs, ratio, _ = _suite(rng, 7)
    got = geometric_mean_interval(weights, logs, ratio, 0.95)
    corrections = bias_corrections(ratio)
    assert corrections == pytest.approx(
        (ratio.initial_relative_variance - ratio.optimized_relative_variance) / 2, rel=1e-15)
    expected = math.exp(np.sum(weights * (logs + corrections)) / np.sum(weights))
    assert got.value == pytest.approx(expected, rel=1e-13)
    assert got.definition == GEOMETRIC_MEAN_DEFINITION and got.method == "delta"
    # The half-width is the delta method's, unchanged: the interval is only re-centred.
    (half, _), _ = delta_half_widths(weights, np.ones(7), np.ones(7), ratio, 0.95)
    assert math.log(got.high / got.value) == pytest.approx(half, rel=1e-12)
    assert math.log(got.value / got.low) == pytest.approx(half, rel=1e-12)


def test_with_many_benchmarks_the_interval_keeps_its_level_and_the_plain_one_does_not():
    """3 vs 3 units of CV 2% against 20%: the bias (uₒ − uᵢ)/2 of each log is about 0.0067
    while the standard error at b = 1,000 is 0.0037 (benchmarks/geomean_coverage.py gives the
    table; this is a smaller run of it)."""
    rng = np.random.default_rng(2)
    replicates, corrected, plain = 150, 0, 0
    for _ in range(replicates):
        weights, logs, ratio, truth = _suite(rng, 1000)
        shares = weights / weights.sum()
        target = float(shares @ truth)
        got = geometric_mean_interval(weights, logs, ratio, 0.95)
        corrected += got.low <= math.exp(target) <= got.high
        half = math.log(got.high / got.value)
        plain += abs(float(shares @ logs) - target) <= half
    assert corrected / replicates >= 0.90
    assert plain / replicates <= 0.80


def test_the_interval_contains_its_estimate_where_the_plain_estimate_falls_outside():
    rng = np.random.default_rng(3)
    weights, logs, ratio, _ = _suite(rng, 20_000)
    got = geometric_mean_interval(weights, logs, ratio, 0.95)
    plain = math.exp(np.sum(weights * logs) / np.sum(weights))
    assert got.low <= got.value <= got.high
    # E[log Ȳₒ] ≈ log μₒ − uₒ/2 with the larger uₒ: the plain geometric mean is biased high,
    # here by more than the interval's half-width.
    assert plain > got.high
    for interval in (got.population,):
        assert interval.low <= got.value <= interval.high


def test_equal_weights_give_the_t_interval_of_the_corrected_logs():
    rng = np.random.default_rng(4)
    _, logs, ratio, _ = _suite(rng, 9, units=(5, 20), cvs=(0.05, 0.1))
    corrected = logs + bias_corrections(ratio)
    got = geometric_mean_interval(np.full(9, 3.0), logs, ratio, 0.9).population
    low, high = stats.t.interval(0.9, 8, loc=corrected.mean(), scale=stats.sem(corrected))
    assert (got.df, got.benchmarks, got.method, got.confidence) == (8.0, 9, "t", 0.9)
    assert (got.low, got.high) == (pytest.approx(math.exp(low), rel=1e-12),
                                   pytest.approx(math.exp(high), rel=1e-12))


def test_weighted_population_interval():
    """Shares p: Var = Σ p(l − l̄)²/(1 − Σ p²)·Σ p², ν = (1 − Σ p²)²/(Σ p² − 2Σ p³ + (Σ p²)²)."""
    logs = np.log(np.array([1.2, 0.9, 1.05, 1.4, 0.8]))
    weights = np.array([1.0, 2.0, 0.5, 3.0, 1.0])
    p = weights / weights.sum()
    centre = float(p @ logs)
    got = population_interval(weights, logs, centre, 0.95)
    s2 = np.sum(p**2)
    variance = np.sum(p * (logs - centre) ** 2) / (1 - s2) * s2
    df = (1 - s2) ** 2 / (s2 - 2 * np.sum(p**3) + s2**2)
    half = stats.t.ppf(0.975, df) * math.sqrt(variance)
    assert got.df == pytest.approx(df, rel=1e-12) and 1 < got.df < 4
    assert (got.low, got.high) == (pytest.approx(math.exp(centre - half), rel=1e-12),
                                   pytest.approx(math.exp(centre + half), rel=1e-12))
    # Weights count only relative to each other.
    again = population_interval(weights * 1e300, logs, centre, 0.95)
    assert (again.low, again.high, again.df) == (pytest.approx(got.low, rel=1e-12),
                                                 pytest.approx(got.high, rel=1e-12),
                                                 pytest.approx(got.df, rel=1e-12))


def test_the_population_interval_needs_two_benchmarks():
    ratio = MeanRatio(np.array([1.1]), np.array([1e-4]), np.array([2e-4]), np.array([4.0]),
                      np.array([4.0]))
    got = geometric_mean_interval(np.array([1.0]), np.log(ratio.speedup), ratio, 0.95)
    assert got.population is None
    assert got.low < got.value < got.high


def test_identical_logs_give_a_population_interval_of_one_point():
    ratio = MeanRatio(np.full(4, 1.25), np.zeros(4), np.zeros(4), np.full(4, 2.0),
                      np.full(4, 2.0))
    got = geometric_mean_interval(np.ones(4), np.log(ratio.speedup), ratio, 0.95)
    assert got.value == got.low == got.high == pytest.approx(1.25, rel=1e-15)
    assert got.population.low == got.population.high == got.value

"""The aggregate intervals (delta method by default, bootstrap on request) and the bootstrap
resampling plan: R cross-check, invariants, and results that do not depend on the batches."""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import speeduptest.analysis.benchmarks as analysis
from speeduptest.analysis.run import analyse_config
from speeduptest.model.results import Settings
from speeduptest.stats.effect_size import (
    _components,
    _resampled_chunk,
    flat_bootstrap_intervals,
    resampled_means,
    shared_counts,
)
from speeduptest.stats.hierarchy import Hierarchy, variance_components

HERE = Path(__file__).parents[1]
CASES = json.loads((HERE / "fixtures" / "aggregate_cases.json").read_text())["cases"]


@dataclasses.dataclass(frozen=True)
class BootstrapSettings(Settings):
    """Settings asking for bootstrap aggregate intervals (whether or not the model has the
    field yet)."""

    aggregate_interval: str = "bootstrap"


def _write_side(path: Path, side) -> str:
    """A sample file for nested data: plain values, or a long CSV with one column per level."""
    if not isinstance(side[0], list):
        path.write_text("\n".join(repr(float(v)) for v in side) + "\n")
        return path.name
    rows = []

    def walk(node, labels):
        if not isinstance(node[0], list):
            rows.extend(",".join([*labels, str(i + 1), repr(float(v))])
                        for i, v in enumerate(node))
            return
        for i, child in enumerate(node):
            walk(child, [*labels, str(i + 1)])

    walk(side, [])
    depth = len(rows[0].split(",")) - 1
    header = ["build", "invocation", "iteration"][-depth:]
    path = path.with_suffix(".csv")
    path.write_text(",".join([*header, "value"]) + "\n" + "\n".join(rows) + "\n")
    return path.name


def _config(folder: Path, benchmarks) -> Path:
    """benchmarks: (initial, optimized, weight) per benchmark."""
    rows = ["benchmark,initial,optimized,weight"]
    for index, (initial, optimized, weight) in enumerate(benchmarks):
        names = [_write_side(folder / f"b{index}-{role}.txt", side)
                 for role, side in (("initial", initial), ("optimized", optimized))]
        rows.append(f"b{index},{names[0]},{names[1]},{weight!r}")
    config = folder / "config.csv"
    config.write_text("\n".join(rows) + "\n")
    return config


def _analyse(benchmarks, alpha: float = 0.05, **options):
    with tempfile.TemporaryDirectory() as folder:
        config = _config(Path(folder), benchmarks)
        return analyse_config(config, Settings(alpha=alpha, bootstrap=200, **options),
                                       workers=1)


def _aggregates(results):
    return results.pair.overall.geometric_mean, results.pair.overall.mean.interval


def _intervals(results):
    """Every interval of the aggregates as (value, low, high): the geometric mean's two (this
    suite's measurement noise; the population of programs, with two benchmarks or more) and
    the overall speedup's."""
    geometric, overall = _aggregates(results)
    found = [(a.value, a.low, a.high) for a in (geometric, overall)]
    if geometric.population is not None:
        found.append((geometric.value, geometric.population.low, geometric.population.high))
    return found


# ---------------------------------------------------------------- against R

@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_delta_intervals_against_r(case):
    # (resolution 0: the R reference counts no timer resolution, and its benchmark without
    # variance, 2, 2, 2 against 1, 1, 1, would otherwise be floored by the 1 its values show)
    results = _analyse([(b["initial"], b["optimized"], b["weight"]) for b in case["benchmarks"]],
                       alpha=round(1 - case["confidence"], 12), resolution=0.0)
    assert not results.failed
    geometric, overall = _aggregates(results)
    for got, expected in ((geometric, case["geometric"]), (overall, case["overall"])):
        assert got.method == "delta"
        assert got.confidence == pytest.approx(case["confidence"])
        assert (got.value, got.low, got.high) == (
            pytest.approx(expected["value"], rel=1e-9), pytest.approx(expected["low"], rel=1e-9),
            pytest.approx(expected["high"], rel=1e-9))
    assert overall.population is None
    population, expected = geometric.population, case["population"]
    if expected is None:
        assert population is None
    else:
        assert (population.method, population.benchmarks) == ("t", len(case["benchmarks"]))
        assert population.confidence == pytest.approx(case["confidence"])
        assert (population.low, population.high, population.df) == (
            pytest.approx(expected["low"], rel=1e-9), pytest.approx(expected["high"], rel=1e-9),
            pytest.approx(expected["df"], rel=1e-9))


# ---------------------------------------------------------------- invariants

positive = st.floats(0.5, 2.0, allow_nan=False)
samples = st.lists(positive, min_size=3, max_size=12)
suites = st.lists(st.tuples(samples, samples, st.sampled_from([0.5, 1.0, 3.0])), min_size=1,
                  max_size=6)
PROPERTIES = settings(max_examples=15, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow])


@PROPERTIES
@given(suite=suites)
def test_each_interval_contains_its_estimate(suite):
    results = _analyse(suite)
    assert (results.pair.overall.geometric_mean.population is None) == (len(suite) == 1)
    for value, low, high in _intervals(results):
        assert low <= value * (1 + 1e-12)
        assert value <= high * (1 + 1e-12)
        assert low > 0 and math.isfinite(high)


@PROPERTIES
@given(suite=suites)
def test_swapping_the_versions_inverts_the_intervals(suite):
    forward = _intervals(_analyse(suite))
    backward = _intervals(_analyse([(y, x, w) for x, y, w in suite]))
    for ahead, behind in zip(forward, backward, strict=True):
        assert ahead[0] == pytest.approx(1 / behind[0], rel=1e-12)
        assert ahead[1] == pytest.approx(1 / behind[2], rel=1e-12)
        assert ahead[2] == pytest.approx(1 / behind[1], rel=1e-12)


@PROPERTIES
@given(suite=suites, scale=st.sampled_from([1e-9, 1e-3, 7.0, 1e6]),
       weight_scale=st.sampled_from([1e-6, 10.0, 1e300]))
def test_scaling_all_times_or_all_weights_changes_nothing(suite, scale, weight_scale):
    reference = _intervals(_analyse(suite))
    scaled = _intervals(_analyse([([v * scale for v in x], [v * scale for v in y], w)
                                  for x, y, w in suite]))
    weighted = _intervals(_analyse([(x, y, w * weight_scale) for x, y, w in suite]))
    for one, other in ((reference, scaled), (reference, weighted)):
        for a, b in zip(one, other, strict=True):
            assert a == (pytest.approx(b[0], rel=1e-12), pytest.approx(b[1], rel=1e-12),
                         pytest.approx(b[2], rel=1e-12))


def test_the_bootstrap_aggregate_on_request_agrees_with_the_delta_method():
    rng = np.random.default_rng(3)
    suite = [(list(rng.normal(10 * j, 0.3, 30)), list(rng.normal(9 * j, 0.3, 30)), 1.0)
             for j in range(1, 6)]
    delta = _aggregates(_analyse(suite))
    with tempfile.TemporaryDirectory() as folder:
        results = analyse_config(_config(Path(folder), suite),
                                          BootstrapSettings(bootstrap=4000), workers=1)
    bootstrap = _aggregates(results)
    for a, b in zip(delta, bootstrap, strict=True):
        assert (a.method, b.method) == ("delta", "bootstrap")
        # The bootstrap's geometric mean is of the plain logs, the delta method's of the logs
        # corrected for their bias (uᵢ − uₒ)/2: 30 values of CV 0.3–3% make it below 1e-6.
        assert a.value == pytest.approx(b.value, rel=1e-6)
        # 30 values per side: the two intervals nearly coincide (the delta one uses t).
        assert b.low == pytest.approx(a.low, rel=2e-3) and b.high == pytest.approx(a.high,
                                                                                  rel=2e-3)
    assert any(n.code == "aggregate-bootstrap-undercovers" for n in results.all_notices) is False


def test_the_undercoverage_warning_is_the_bootstrap_aggregates_alone():
    suite = [([1.0, 1.1, 0.9], [0.8, 0.85, 0.9], 1.0), ([2.0, 2.1, 2.2], [2.0, 1.9, 2.1], 1.0)]
    delta = _analyse(suite)
    assert not any(n.code == "aggregate-bootstrap-undercovers" for n in delta.all_notices)
    with tempfile.TemporaryDirectory() as folder:
        boot = analyse_config(_config(Path(folder), suite),
                                       BootstrapSettings(bootstrap=300), workers=1)
    assert any(n.code == "aggregate-bootstrap-undercovers" for n in boot.all_notices)


# ---------------------------------------------------------------- resampling plan

def test_flat_samples_share_count_matrices_and_each_row_stands_alone():
    rng = np.random.default_rng(0)
    initial = rng.lognormal(0, 0.3, (9, 31))
    optimized = rng.lognormal(0.1, 0.3, (9, 31))
    levels = [0.95] * 5 + [0.9] * 4
    together = flat_bootstrap_intervals(initial, optimized, levels, 2000, 7)
    for row in range(9):
        alone = flat_bootstrap_intervals(initial[row:row + 1], optimized[row:row + 1],
                                         [levels[row]], 2000, 7)
        assert alone == [together[row]]
    # What the intervals are: percentiles of the count matrices times the values.
    counts_i, counts_o = shared_counts(31, 2000, 7, 0), shared_counts(31, 2000, 7, 1)
    assert not counts_i.flags.writeable and (counts_i.sum(axis=1) == 31).all()
    assert not np.array_equal(counts_i, counts_o)  # the sides are resampled independently
    ratios = ((counts_i.astype(float) @ initial[0] / 31)
              / (counts_o.astype(float) @ optimized[0] / 31))
    expected = np.quantile(ratios, [0.025, 0.975])
    assert (together[0].low, together[0].high) == (pytest.approx(expected[0], rel=1e-12),
                                                   pytest.approx(expected[1], rel=1e-12))


def test_shared_counts_give_the_bootstrap_distribution_of_a_flat_sample():
    rng = np.random.default_rng(1)
    x, y = rng.lognormal(0, 0.3, 20), rng.lognormal(0, 0.3, 25)
    shared = flat_bootstrap_intervals(x, y, [0.9], 20_000, 3)[0]
    own = np.random.default_rng(5)
    ratios = resampled_means(Hierarchy.flat(x), 200_000, own) / resampled_means(
        Hierarchy.flat(y), 200_000, own)
    low, high = np.quantile(ratios, [0.05, 0.95])
    width = high - low
    assert abs(shared.low - low) < 0.03 * width and abs(shared.high - high) < 0.03 * width


def test_times_near_the_largest_float_do_not_overflow_the_shared_bootstrap():
    x = np.array([[1e308, 1.2e308, 0.9e308]])
    interval = flat_bootstrap_intervals(x, x * 0.5, [0.95], 500, 0)[0]
    assert math.isfinite(interval.low) and 1.2 < interval.low <= interval.high < 3


def test_balanced_hierarchies_draw_one_number_per_lowest_group_with_the_same_distribution():
    rng = np.random.default_rng(2)
    for nested in (rng.normal(1, 0.05, (5, 3)).tolist(), rng.normal(1, 0.05, (3, 2, 2)).tolist(),
                   rng.normal(1, 0.05, (4, 1)).tolist()):
        sample = Hierarchy.from_nested(nested)
        values, counts = sample.padded()
        new = resampled_means(sample, 200_000, rng)
        old = _resampled_chunk(values, counts, 200_000, rng)
        assert new.mean() == pytest.approx(old.mean(), rel=1e-3)
        assert new.std() == pytest.approx(old.std(), rel=2e-2)
        assert np.quantile(new, [0.025, 0.975]) == pytest.approx(
            np.quantile(old, [0.025, 0.975]), rel=1e-2)


def test_flat_components_are_variance_components():
    rng = np.random.default_rng(4)
    for size in (1, 2, 3, 31):
        sample = Hierarchy.flat(rng.lognormal(rng.uniform(-700, 700), 1.0, size))
        exponent = -int(np.frexp(sample.grand_mean)[1])
        assert _components(sample, exponent) == variance_components(sample.scaled(exponent))


def test_a_call_whose_interval_has_no_upper_end_rests_on_fieller_not_the_bootstrap():
    # Three units with a wild optimized side: its mean is not significantly different from 0
    # at 95% (FCR selects all three), so Fieller's set is [L, ∞), with L above 1.01.
    suite = [([10.0, 10.1, 10.2], [1.0, 2.9, 5.5], 1.0),
             ([1.0, 1.01, 1.02], [0.5, 0.51, 0.49], 1.0),
             ([2.0, 2.1, 1.9], [1.0, 1.1, 0.9], 1.0)]
    change = _analyse(suite).pair.benchmarks[0].change
    assert change.confidence == pytest.approx(0.95)
    assert (change.method, change.call, change.high) == ("fieller", "faster", None)
    assert 1.01 < change.low < 3.3


def _mixed_config(folder: Path) -> Path:
    """Flat samples of several sizes, hierarchical ones, one whose call interval has no upper
    end, and per-row confidence levels."""
    rng = np.random.default_rng(11)
    suite = []
    for index in range(40):
        if index % 5 == 0:
            initial = rng.normal(1, 0.03, (6, 3)).tolist()
            optimized = rng.normal(0.97, 0.03, (6, 3)).tolist()
        else:
            size = 5 + index % 4
            initial = list(rng.lognormal(0, 0.2, size))
            optimized = list(rng.lognormal(-0.05, 0.2, size + index % 2))
        suite.append((initial, optimized, 1.0 + index % 3))
    suite.append(([10.0, 10.1, 10.2], [1.0, 2.9, 5.5], 1.0))
    config = _config(folder, suite)
    lines = config.read_text().splitlines()
    lines[0] += ",confidence"
    lines[1:] = [line + (",0.9" if i % 7 == 0 else ",") for i, line in enumerate(lines[1:])]
    config.write_text("\n".join(lines) + "\n")
    return config


@pytest.mark.parametrize("options", [[], ["--bootstrap", "500"]])
def test_results_do_not_depend_on_the_batches_or_the_workers(tmp_path, monkeypatch, options):
    from speeduptest.cli import main

    config = _mixed_config(tmp_path)
    outputs = []
    # Every benchmark in a worker, none, or those with costly resamples only.
    for batch, workers, heavy in ((64, 1, 0), (7, 2, 0), (3, 2, 2_000), (5, 1, 10**9)):
        monkeypatch.setattr(analysis, "BATCH", batch)
        monkeypatch.setattr(analysis, "MIN_PARALLEL_BATCHES", 1)
        monkeypatch.setattr(analysis, "HEAVY_DRAWS", heavy)
        monkeypatch.setattr(analysis, "default_workers", lambda workers=workers: workers)
        out = tmp_path / f"out-{batch}"
        assert main([str(config), "-o", str(out), "--format", "json", "--quiet",
                     *options, "--warmup", "none", "--dependence", "ignore"]) == 0
        outputs.append((out / "results.json").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2] == outputs[3]
    data = json.loads(outputs[0])
    assert data["benchmarks"][-1]["change"]["interval"]["high"] is None


def test_adding_benchmarks_changes_no_other_benchmarks_bootstrap_interval(tmp_path):
    rng = np.random.default_rng(12)
    suite = [(list(rng.lognormal(0, 0.2, 8)), list(rng.lognormal(-0.1, 0.2, 8)), 1.0),
             (rng.normal(1, 0.03, (4, 3)).tolist(), rng.normal(0.9, 0.03, (4, 3)).tolist(), 1.0),
             ([10.0, 10.1, 10.2], [1.0, 2.9, 5.5], 1.0)]  # its call interval is open
    more = suite + [(list(rng.lognormal(0, 0.2, 8)), list(rng.lognormal(0, 0.2, 8)), 2.0)
                    for _ in range(30)]
    before, after = _analyse(suite), _analyse(more)
    for one, other in zip(before.pair.benchmarks, after.pair.benchmarks[:3], strict=True):
        assert one.effect.bootstrap == other.effect.bootstrap
    # Only the call's interval follows the number of benchmarks (its level).
    assert before.pair.benchmarks[2].change.high is None
    assert after.pair.benchmarks[2].change.high is None

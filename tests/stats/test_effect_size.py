"""Effect-size intervals and variance components against R and the paper's numbers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speeduptest.cli import main
from speeduptest.stats.effect_size import (
    bootstrap_interval,
    delta_interval,
    describe_change,
    fieller_interval,
    resampled_means,
)
from speeduptest.stats.hierarchy import Hierarchy, variance_components

HERE = Path(__file__).parents[1]
CASES = json.loads((HERE / "fixtures" / "effect_size_cases.json").read_text())["cases"]
RELATIVE = 1e-9


def approx(value):
    return pytest.approx(value, rel=RELATIVE, abs=1e-12)


def _sample(nested) -> Hierarchy:
    if nested and not isinstance(nested[0], list):
        return Hierarchy.flat(nested)
    return Hierarchy.from_nested(nested)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_r(case):
    initial, optimized = _sample(case["initial"]), _sample(case["optimized"])
    components = {}
    for side, sample in (("initial", initial), ("optimized", optimized)):
        expected = case[f"{side}_components"]
        got = variance_components(sample)
        components[side] = got
        assert got.grand_mean == approx(expected["grand_mean"])
        assert list(got.s2) == [approx(v) for v in expected["S2"]]
        assert list(got.t2) == [approx(v) for v in expected["T2"]]
        assert list(got.n) == [approx(v) for v in expected["n"]]
        assert got.variance_of_mean == approx(expected["variance_of_mean"])
    confidence = case["confidence"]
    fieller = fieller_interval(components["initial"], components["optimized"], confidence)
    assert fieller.bounded == case["fieller"]["bounded"]
    if fieller.bounded:
        assert (fieller.low, fieller.high) == (approx(case["fieller"]["low"]),
                                               approx(case["fieller"]["high"]))
    else:
        assert fieller.low is None and fieller.high is None
    delta = delta_interval(components["initial"], components["optimized"], confidence)
    # A speedup is positive: where the formula's lower bound falls below 0, we show 0.
    expected_low = max(case["delta"]["low"], 0.0)
    assert (delta.low, delta.high, delta.df) == (approx(expected_low),
                                                 approx(case["delta"]["high"]),
                                                 approx(case["delta"]["df"]))
    assert (case["delta"]["low"] < 0) == bool(delta.note and "below 0" in delta.note)


def test_paper_table_6_1_variance_components():
    data = Hierarchy.from_nested([[[9, 5], [8, 3]], [[10, 6], [7, 11]], [[1, 12], [2, 4]]])
    components = variance_components(data)
    assert [round(v, 6) for v in components.s2] == [16.5, 2.583333, 3.5625]
    assert [round(v, 6) for v in components.t2[1:]] == [-5.666667, 2.270833]


def test_paper_table_6_2_through_the_command_line(tmp_path):
    config = HERE / "data" / "kalibera-jones" / "config.csv"
    assert main([str(config), "-o", str(tmp_path), "--format", "json", "--quiet"]) == 0
    benchmark = json.loads((tmp_path / "results.json").read_text())["benchmarks"][0]
    effect = benchmark["effect_size"]
    fieller = effect["intervals"]["fieller"]
    assert (round(fieller["low"], 6), round(fieller["high"], 6)) == (0.579609, 9.104618)
    assert effect["speedup"] == pytest.approx(10.5 / 6.5)
    old = effect["variance_components"]["initial"]
    assert old["levels"] == ["iteration", "execution", "build"]
    assert old["grand_mean"] == 10.5
    # The protocol ran on the 3 build means of each side.
    assert benchmark["initial"]["n"] == 3 and benchmark["optimized"]["n"] == 3
    assert "top-level units" in benchmark["design"]
    assert any("adds no measurable variance" in w for w in benchmark["warnings"])


def test_table_6_1_components_through_the_command_line(tmp_path):
    data = HERE / "data" / "kalibera-jones"
    config = tmp_path / "config.csv"
    config.write_text(f"benchmark,initial,optimized\nt61,{data}/table-6.1.csv,"
                      f"{data}/table-6.1.csv\n")
    main([str(config), "-o", str(tmp_path / "out"), "--format", "json", "--quiet"])
    effect = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"][0][
        "effect_size"]
    components = effect["variance_components"]["initial"]
    assert [round(v, 6) for v in components["S2"]] == [16.5, 2.583333, 3.5625]
    assert [round(v, 6) for v in components["T2"]] == [16.5, -5.666667, 2.270833]


def test_bootstrap_is_seeded_and_reproducible(tmp_path):
    config = HERE / "data" / "kalibera-jones" / "config.csv"
    outputs = []
    for seed, folder in ((1, "a"), (1, "b"), (2, "c")):
        main([str(config), "-o", str(tmp_path / folder), "--format", "json", "--quiet",
              "--seed", str(seed), "--bootstrap", "2000"])
        outputs.append((tmp_path / folder / "results.json").read_bytes())
    assert outputs[0] == outputs[1]
    assert outputs[0] != outputs[2]


def test_hierarchical_resampling_keeps_the_mean_and_the_design():
    rng = np.random.default_rng(0)
    unbalanced = Hierarchy.from_nested([[1.0], [2.0, 3.0, 4.0], [5.0, 6.0]])
    means = resampled_means(unbalanced, 200_000, rng)
    assert means.mean() == pytest.approx(unbalanced.grand_mean, rel=2e-3)
    # Resampling the top level only would give this spread of the mean:
    top = unbalanced.top_level_means
    assert means.std() > top.std() / np.sqrt(top.size)  # the lower level adds variance
    flat = Hierarchy.flat([1.0, 2.0, 3.0, 10.0])
    means = resampled_means(flat, 200_000, rng)
    assert means.std() == pytest.approx(np.std([1, 2, 3, 10]) / 2, rel=1e-2)


def test_fieller_unbounded_is_reported_as_such():
    initial = variance_components(Hierarchy.from_nested([[10.0, 10.1], [10.2, 10.1],
                                                         [10.0, 9.9]]))
    optimized = variance_components(Hierarchy.from_nested([[1.0, 1.1], [50.0, 51.0],
                                                           [100.0, 99.0]]))
    interval = fieller_interval(initial, optimized, 0.95)
    assert not interval.bounded and interval.low is None and interval.high is None
    assert "unbounded" in describe_change(0.2, interval, 0.95)


def test_statement_reads_like_the_issue():
    initial = variance_components(Hierarchy.flat(np.linspace(10.4, 10.8, 30)))
    optimized = variance_components(Hierarchy.flat(np.linspace(9.8, 10.2, 30)))
    speedup = initial.grand_mean / optimized.grand_mean
    statement = describe_change(speedup, fieller_interval(initial, optimized, 0.95), 0.95)
    assert statement.startswith("optimized is faster than initial by 5.7% (95% CI ")
    slower = describe_change(1 / speedup, fieller_interval(optimized, initial, 0.95), 0.95)
    assert slower.startswith("optimized is slower than initial by 6.0% (95% CI ")


positive = st.floats(1.0, 100.0, allow_nan=False)
flat_samples = st.lists(positive, min_size=3, max_size=20)


@settings(max_examples=50, deadline=None)
@given(x=flat_samples, y=flat_samples, confidence=st.sampled_from([0.9, 0.95, 0.99]))
def test_intervals_contain_their_point_estimate(x, y, confidence):
    initial, optimized = Hierarchy.flat(x), Hierarchy.flat(y)
    ci, co = variance_components(initial), variance_components(optimized)
    speedup = initial.grand_mean / optimized.grand_mean
    for interval in (fieller_interval(ci, co, confidence), delta_interval(ci, co, confidence)):
        if interval.bounded:
            assert interval.low <= speedup * (1 + 1e-12) and speedup <= interval.high * (
                1 + 1e-12)
    rng = np.random.default_rng(0)
    boot = bootstrap_interval(resampled_means(initial, 500, rng),
                              resampled_means(optimized, 500, rng), confidence)
    assert boot.low <= boot.high


@settings(max_examples=30, deadline=None)
@given(x=flat_samples, y=flat_samples)
def test_swapping_sides_inverts_the_fieller_interval(x, y):
    ci, co = variance_components(Hierarchy.flat(x)), variance_components(Hierarchy.flat(y))
    forward, backward = fieller_interval(ci, co, 0.95), fieller_interval(co, ci, 0.95)
    if forward.bounded and backward.bounded:
        assert forward.low == pytest.approx(1 / backward.high, rel=1e-9)
        assert forward.high == pytest.approx(1 / backward.low, rel=1e-9)

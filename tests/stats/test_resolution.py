"""A timer's resolution as a floor on the variance of a quantised side's mean: the detected
spacing, Fieller's interval and the call against R (tests/fixtures/generate_resolution_cases.R),
and the properties: the floored interval contains the unfloored one, scaling the values and
the resolution together changes nothing relative, a larger resolution never gives a stronger
call, identical constant sides stay unchanged at 1 with p 1."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speeduptest.stats.change import decide_calls
from speeduptest.stats.effect_size import effect_inputs, effect_inputs_of
from speeduptest.stats.fieller import MeanRatio, call_fieller_bounds, fieller_p_value
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.resolution import (
    SideResolution,
    common_spacing,
    is_quantised,
    relative_floor,
)

CASES = json.loads((Path(__file__).parents[1] / "fixtures" / "resolution_cases.json")
                   .read_text())["cases"]
STRONGER = {"faster": 2, "slower": 2, "unchanged": 1, "uncertain": 0}
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _resolutions(x, y, given: float | None) -> tuple[float, float]:
    """Each side's floor resolution as the analysis finds it (analysis.resolution): given,
    or the spacing of the quantised sides' distinct values pooled; 0 where none."""
    distinct = [np.unique(side) for side in (x, y)]
    quantised = [is_quantised(values.size) for values in distinct]
    if given is None:
        pooled = np.unique(np.concatenate(
            [d for d, q in zip(distinct, quantised, strict=True) if q] or [np.empty(0)]))
        given = common_spacing(pooled) or 0.0
    return tuple(given if q else 0.0 for q in quantised)  # type: ignore[return-value]


def _ratio(pairs, resolutions=None):
    hierarchies = [(Hierarchy.flat(x), Hierarchy.flat(y)) for x, y in pairs]
    return effect_inputs_of(hierarchies, None if resolutions is None
                            else np.asarray(resolutions, dtype=float))[1]


# ---------------------------------------------------------------- against R

@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_the_floored_interval_agrees_with_r(case):
    x, y = np.array(case["x"]), np.array(case["y"])
    r_x, r_y = _resolutions(x, y, case["r_given"])
    assert (r_x, r_y) == (pytest.approx(case["r_x"], rel=1e-9),
                          pytest.approx(case["r_y"], rel=1e-9))
    ratio = _ratio([(x, y)], [[r_x, r_y]])
    # The same from the means and variances alone (MeanRatio.floored).
    by_hand = MeanRatio.of([(x.mean(), x.var(ddof=1) / x.size, x.size - 1,
                             y.mean(), y.var(ddof=1) / y.size, y.size - 1)]).floored(
        relative_floor(r_x, x.mean()), relative_floor(r_y, y.mean()))
    for name in ("initial_relative_variance", "optimized_relative_variance"):
        assert getattr(by_hand, name)[0] == pytest.approx(getattr(ratio, name)[0], rel=1e-12)
    for mean, variance, relative in ((x.mean(), case["vx"], ratio.initial_relative_variance),
                                     (y.mean(), case["vy"], ratio.optimized_relative_variance)):
        assert relative[0] == pytest.approx(variance / mean**2, rel=1e-9)
    (low,), (high,) = call_fieller_bounds(ratio, case["conf"])
    assert low == pytest.approx(case["low"], rel=1e-9, abs=1e-300)
    if case["high_infinite"]:
        assert high == math.inf
    else:
        assert high == pytest.approx(case["high"], rel=1e-9)
    assert fieller_p_value(ratio)[0] == pytest.approx(case["p_value"], rel=1e-8)
    (plain_low,), (plain_high,) = call_fieller_bounds(_ratio([(x, y)]), case["conf"])
    assert (plain_low, plain_high) == (pytest.approx(case["unfloored_low"], rel=1e-9),
                                       pytest.approx(case["unfloored_high"], rel=1e-9))
    for threshold, expected in case["calls"].items():
        change = decide_calls(ratio, [1 - case["conf"]], [None], threshold=float(threshold),
                              correction="none")[0]
        assert change.call == expected


def test_the_worked_example_through_the_command_line(tmp_path):
    """docs/statistics/effect-size.md#timer-resolution: 31 values of 1.000 ms against 31 of
    1.001 ms, detected and given (1us), as R finds it."""
    from speeduptest.cli import main

    case = next(c for c in CASES if c["name"] == "constant 1.000 vs 1.001, 31 each")
    (tmp_path / "a.txt").write_text("1.000\n" * 31)
    (tmp_path / "b.txt").write_text("1.001\n" * 31)
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized,unit\nconst,a.txt,b.txt,ms\n")
    for options, source, shown in (([], "detected", "1 µs, detected from the spacing"),
                                   (["--resolution", "1us"], "given", "1 µs, given by")):
        out = tmp_path / f"out-{source}"
        assert main([str(tmp_path / "c.csv"), "-o", str(out), "--format", "json", "--quiet",
                     *options]) == 0
        data = json.loads((out / "results.json").read_text())
        benchmark = data["benchmarks"][0]
        interval = benchmark["change"]["interval"]
        assert (interval["low"], interval["high"]) == (pytest.approx(case["low"], rel=1e-9),
                                                       pytest.approx(case["high"], rel=1e-9))
        assert interval["p_value_no_change"] == pytest.approx(case["p_value"], rel=1e-8)
        assert benchmark["change"]["call"] == case["calls"]["0.01"] == "unchanged"
        for side in ("initial", "optimized"):
            found = benchmark["effect_size"]["resolution"][side]
            assert found["source"] == source
            assert found["value"] == pytest.approx(1e-6, rel=1e-9)
            assert found["variance_floor"] == pytest.approx(1e-12 / 12, rel=1e-9)
        timer = [w for w in benchmark["warnings"] if "timer's resolution" in w]
        assert len(timer) == 2 and all(shown in w for w in timer)
        assert data["settings"]["resolution"] == (
            None if source == "detected" else {"value": 1e-6, "unit": "s"})


# ---------------------------------------------------------------- detection

@pytest.mark.parametrize(("values", "expected"), [
    ([1.0, 1.001], 0.001),
    ([1.0, 1.003, 1.007], 0.001),  # gaps 3 and 4: the smallest divided by 3
    ([1000.0, 1003.0, 1010.0, 1013.0], 1.0),
    ([0.1, 0.2, 0.3], 0.1),  # (0.1 + 0.2 is not 0.3: the tolerance)
    ([2.5], None),  # one value: no spacing
    ([1.0, 1.0 + 2**-52], None),  # an ulp apart: the floats' rounding, not a tick
    ([1.0, 1.7, 3.0], 0.1),
    ([1.0, 1.0 + math.pi, 1.0 + 2 * math.e], None),  # no common step within 10 of the gap
])
def test_the_common_spacing(values, expected):
    found = common_spacing(np.array(values))
    if expected is None:
        assert found is None
    else:
        assert found == pytest.approx(expected, rel=1e-9)


@given(base=st.floats(1e-3, 1e3), step=st.floats(1e-9, 1.0),
       multiples=st.lists(st.integers(0, 40), min_size=2, max_size=6, unique=True))
def test_values_on_a_grid_give_its_step_or_a_multiple(base, step, multiples):
    """Values base + kᵢ·step: the spacing found is g·step, g the gcd of the kᵢ's differences
    (whenever the smallest gap is at most 10 g steps)."""
    multiples = sorted(multiples)
    values = base + np.array(multiples) * step
    if np.unique(values).size < len(multiples) or step < 1e-9 * base:
        return  # (the floats merged two of them)
    differences = np.diff(multiples)
    g = math.gcd(*(k - multiples[0] for k in multiples[1:]))
    found = common_spacing(values)
    if differences.min() <= 10 * g:
        assert found == pytest.approx(g * step, rel=1e-6)


def test_the_floor_is_r_squared_over_12():
    assert SideResolution(1e-6, "given").variance_floor == pytest.approx(1e-12 / 12)
    assert relative_floor(np.array([0.0, 2.0]), np.array([1.0, 4.0])).tolist() == [
        0.0, pytest.approx(0.25 / 12)]


# ---------------------------------------------------------------- properties

grid_values = st.integers(1, 60)


@st.composite
def quantised_pairs(draw):
    """A pair of samples on a grid of step r (2-40 values each, few distinct ones, or
    ordinary noise on one side), with the grid's step."""
    step = draw(st.sampled_from([1e-9, 1e-6, 0.001, 0.5, 3.0]))
    sides = []
    for _ in range(2):
        size = draw(st.integers(2, 40))
        if draw(st.booleans()):
            levels = draw(st.lists(grid_values, min_size=1, max_size=3, unique=True))
            picks = draw(st.lists(st.sampled_from(levels), min_size=size, max_size=size))
            sides.append(np.array(picks, dtype=float) * step + 100 * step)
        else:
            noise = draw(st.lists(st.floats(-5, 5), min_size=size, max_size=size))
            sides.append((100 + np.array(noise)) * step)
    return sides[0], sides[1], step


@SETTINGS
@given(pair=quantised_pairs(), extra=st.floats(0.0, 20.0),
       level=st.sampled_from([0.9, 0.95, 0.999, 1 - 1e-6]))
def test_the_floored_interval_contains_the_unfloored_one(pair, extra, level):
    x, y, _ = pair
    r = _resolutions(x, y, None)
    r = (r[0] * (1 + extra), r[1] * (1 + extra))
    plain = call_fieller_bounds(_ratio([(x, y)]), level)
    floored = call_fieller_bounds(_ratio([(x, y)], [r]), level)
    assert floored[0][0] <= plain[0][0] * (1 + 1e-12)
    assert floored[1][0] >= plain[1][0] * (1 - 1e-12)
    assert fieller_p_value(_ratio([(x, y)], [r]))[0] >= (
        fieller_p_value(_ratio([(x, y)]))[0] * (1 - 1e-9))


@SETTINGS
@given(pair=quantised_pairs())
def test_a_pair_alone_and_among_others_has_the_same_floored_ratio(pair):
    """effect_inputs (one pair, the path of hierarchies) and effect_inputs_of (flat samples
    as rows of arrays) floor alike. (Their unfloored variances may differ in the last bit
    where the rows' sizes differ: Hypothesis found 2.805192147093729e-05 against
    2.8051921470937294e-05 for 22 values against 2; the floors themselves are the same
    arithmetic.)"""
    x, y, _ = pair
    r = _resolutions(x, y, None)
    alone = effect_inputs(Hierarchy.flat(x), Hierarchy.flat(y), r).ratio
    among = _ratio([(y, x), (x, y)], [r[::-1], r]).row(1)
    np.testing.assert_allclose(alone.stacked(), among.stacked(), rtol=1e-15)


@SETTINGS
@given(pair=quantised_pairs(), scale=st.sampled_from([1e-12, 1e-3, 7.0, 1e9, 1e250]))
def test_scaling_the_values_and_the_resolution_changes_nothing_relative(pair, scale):
    x, y, _ = pair
    r = _resolutions(x, y, None)
    base = _ratio([(x, y)], [r])
    scaled = _ratio([(x * scale, y * scale)], [(r[0] * scale, r[1] * scale)])
    # (A scale that is not a power of two rounds every value: a spread of 1e-8 of the values,
    # 1e-7 against 1.00000001e-7, then moves at 2e-7 relative; Hypothesis found it.)
    for name in ("speedup", "initial_relative_variance", "optimized_relative_variance"):
        assert getattr(scaled, name)[0] == pytest.approx(getattr(base, name)[0], rel=1e-6,
                                                         abs=1e-300)
    assert _resolutions(x * scale, y * scale, None) == (
        pytest.approx(r[0] * scale, rel=1e-6), pytest.approx(r[1] * scale, rel=1e-6))


@SETTINGS
@given(pairs=st.lists(quantised_pairs(), min_size=1, max_size=8),
       factors=st.lists(st.floats(1.0, 50.0), min_size=8, max_size=8),
       correction=st.sampled_from(["none", "bonferroni", "fcr"]),
       threshold=st.sampled_from([0.0, 0.01, 0.05]))
def test_a_larger_resolution_never_gives_a_stronger_call(pairs, factors, correction,
                                                         threshold):
    """Over a suite: every benchmark's resolution multiplied by its factor (≥ 1). With FCR
    the larger p-values select fewer benchmarks, which widens every interval: no call
    anywhere in the suite gets stronger."""
    samples = [(x, y) for x, y, _ in pairs]
    small = [_resolutions(x, y, step) for x, y, step in pairs]  # given: every quantised side
    large = [(a * f, b * f) for (a, b), f in zip(small, factors, strict=False)]
    alphas = [0.05] * len(samples)

    def calls(resolutions):
        return [c.call for c in decide_calls(_ratio(samples, resolutions), alphas,
                                             [None] * len(samples), threshold=threshold,
                                             correction=correction)]

    for fine, coarse in zip(calls(small), calls(large), strict=True):
        if coarse != "uncertain":  # a call made with the larger resolution holds with less
            assert fine == coarse


@SETTINGS
@given(value=st.floats(1e-200, 1e200), size=st.integers(2, 40),
       resolution=st.floats(1e-3, 10.0))
def test_identical_constant_sides_stay_unchanged_with_any_resolution(value, size, resolution):
    sample = np.full(size, value)
    ratio = _ratio([(sample, sample)], [(resolution * value, resolution * value)])
    assert ratio.speedup[0] == 1.0
    assert fieller_p_value(ratio)[0] == 1.0
    change = decide_calls(ratio, [0.05], [None])[0]
    assert not change.selected and change.call in ("unchanged", "uncertain")

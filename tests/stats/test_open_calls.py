"""The interval of a call where a version's mean is not significantly different from 0 at the
call's level (few noisy top-level units): Fieller's set among the positive speedups, open on
one side or every positive speedup. Against R (tests/fixtures/generate_open_call_cases.R),
and the property that a stricter level never gives a stronger call, from the calls' function
and through the whole analysis."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from speeduptest.stats.change import decide_calls
from speeduptest.stats.fieller import MeanRatio, call_fieller_bounds, fieller_p_value

CASES = json.loads((Path(__file__).parents[1] / "fixtures" / "open_call_cases.json")
                   .read_text())["cases"]
STRONGER = {"faster": 2, "slower": 2, "unchanged": 1, "uncertain": 0}


def ratio_of(samples) -> MeanRatio:
    rows = []
    for x, y in samples:
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        rows.append((x.mean(), x.var(ddof=1) / x.size, x.size - 1,
                     y.mean(), y.var(ddof=1) / y.size, y.size - 1))
    return MeanRatio.of(rows)


def _kind(low: float, high: float) -> str:
    if low > 0:
        return "bounded" if high < math.inf else "no-upper-end"
    return "reaches-0" if high < math.inf else "everything"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_the_call_interval_agrees_with_r(case):
    ratio = ratio_of([(case["x"], case["y"])])
    (low,), (high,) = call_fieller_bounds(ratio, case["conf"])
    assert _kind(low, high) == case["kind"]
    assert low == pytest.approx(case["low"], rel=1e-9, abs=0)
    if case["high_infinite"]:
        assert high == math.inf
    else:
        assert high == pytest.approx(case["high"], rel=1e-9)
    (stricter_low,), (stricter_high,) = call_fieller_bounds(ratio, 1 - (1 - case["conf"]) / 10)
    assert stricter_low == pytest.approx(case["stricter_low"], rel=1e-9, abs=0)
    if case["stricter_high"] is None:
        assert stricter_high == math.inf
    else:
        assert stricter_high == pytest.approx(case["stricter_high"], rel=1e-9)
    assert fieller_p_value(ratio)[0] == pytest.approx(case["p_value"], rel=1e-8)
    for threshold, expected in case["calls"].items():
        change = decide_calls(ratio, [1 - case["conf"]], [None], threshold=float(threshold),
                              correction="none")[0]
        assert change.call == expected
        assert (change.low is None) == (low == 0)
        assert (change.high is None) == (high == math.inf)


# ---------------------------------------------------------------- stricter is never stronger

# Few units, often very noisy: where the sides' means are near "not significantly
# different from 0" at one level and not at the other.
units = st.lists(st.floats(0.05, 20.0, allow_nan=False).map(lambda v: float(f"{v:.4g}")),
                 min_size=2, max_size=6)
small_suites = st.lists(st.tuples(units, units), min_size=1, max_size=10)
risks = st.tuples(st.floats(1e-6, 0.3), st.floats(0.05, 1.0)).map(
    lambda pair: (pair[0], min(pair[0] * (1 + 20 * pair[1]), 0.5)))  # α' < α
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def _calls(pairs, alpha, correction, threshold):
    ratio = ratio_of(pairs)
    return [c.call for c in decide_calls(ratio, np.full(len(pairs), alpha), [None] * len(pairs),
                                         threshold=threshold, correction=correction)]


def _never_stronger(strict: list[str], loose: list[str]) -> None:
    for at_strict, at_loose in zip(strict, loose, strict=True):
        if at_strict != "uncertain":  # faster, slower or unchanged at α' holds at α too
            assert at_loose == at_strict


@SETTINGS
@given(pairs=small_suites, alphas=risks,
       correction=st.sampled_from(["none", "bonferroni", "fcr"]),
       threshold=st.sampled_from([0.0, 0.01, 0.05]))
# The case: 3 initial units against many; the old bootstrap fallback called it slower
# at α = 0.001 and uncertain at 0.01.
@example(pairs=[([1.0, 1.4, 2.1], [0.7, 0.72, 0.69, 0.71, 0.7])], alphas=(0.001, 0.01),
         correction="none", threshold=0.01)
def test_a_stricter_level_never_gives_a_stronger_call(pairs, alphas, correction, threshold):
    strict, loose = alphas
    _never_stronger(_calls(pairs, strict, correction, threshold),
                    _calls(pairs, loose, correction, threshold))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(x=st.lists(st.floats(0.05, 20.0).map(lambda v: float(f"{v:.4g}")), min_size=3,
                  max_size=4),
       y=st.lists(st.floats(0.5, 1.5).map(lambda v: float(f"{v:.4g}")), min_size=3,
                  max_size=30),
       alphas=st.tuples(st.floats(1e-4, 0.3), st.floats(0.05, 1.0)).map(
           lambda pair: (pair[0], min(pair[0] * (1 + 20 * pair[1]), 0.5))))
def test_a_stricter_alpha_never_gives_a_stronger_call_through_the_analysis(x, y, alphas):
    """The whole analysis (command line, json): 3-4 noisy units against up to 30. (α from
    1e-4: below, the geometric mean's delta interval of so noisy a benchmark overflows.)"""
    from speeduptest.cli import main

    calls = []
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "x.txt").write_text("\n".join(map(repr, x)))
        (folder / "y.txt").write_text("\n".join(map(repr, y)))
        (folder / "c.csv").write_text("benchmark,initial,optimized\nb,x.txt,y.txt\n")
        for alpha in alphas:
            out = folder / f"out{alpha}"
            assert main([str(folder / "c.csv"), "-o", str(out), "--format", "json", "--quiet",
                         "--bootstrap", "200", "--correction", "none", "--alpha", repr(alpha),
                         "--warmup", "none", "--dependence", "ignore"]) == 0
            change = json.loads((out / "results.json").read_text())["benchmarks"][0]["change"]
            assert change["interval"]["method"] == "fieller"
            calls.append(change["call"])
    _never_stronger([calls[0]], [calls[1]])


def test_few_noisy_units_against_many_make_no_call_out_of_noise():
    """200 benchmarks with nothing changed, 3 units (CV 30%) against 30 (CV 5%), each at
    99.5% on its own: the percentile bootstrap the calls fell back to called 10% of them."""
    rng = np.random.default_rng(26)
    sigma = np.sqrt(np.log1p([0.3**2, 0.05**2]))
    pairs = [(rng.lognormal(-sigma[0] ** 2 / 2, sigma[0], 3),
              rng.lognormal(-sigma[1] ** 2 / 2, sigma[1], 30)) for _ in range(200)]
    calls = _calls(pairs, 0.005, "none", 0.01)
    assert sum(call in ("faster", "slower") for call in calls) <= 4

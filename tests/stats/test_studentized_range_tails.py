"""The studentized range distribution in its tails, and adjusted p-values never below raw ones.

The reference, tests/fixtures/studentized_range_reference.json, is an mpmath integral to 20 digits
(tests/fixtures/generate_studentized_range_reference.py) for k = 3…10 and df = 2…∞, from the
body of the distribution down to p-values near 1e-295.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import special

from speeduptest.stats import omnibus
from speeduptest.stats.corrections import adjusted_p_values

FIXTURES = Path(__file__).parents[1] / "fixtures"


@cache
def _document() -> dict:
    return json.loads((FIXTURES / "studentized_range_reference.json").read_text(encoding="utf-8"))

#: The relative error asked of every p-value against the reference (measured: see
#: benchmarks/studentized_range_accuracy.py).
RELATIVE = 1e-12


def _reference(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cases = [c for c in _document()["cases"] if c["k"] == k]
    q = np.array([c["q"] for c in cases])
    df = np.array([math.inf if c["df"] is None else c["df"] for c in cases])
    return q, df, np.array([float(c["log_sf"]) for c in cases])


def test_the_reference_is_sound():
    """The reference's own checks: the interpolation of the range, the two quadratures, and
    the outer integral against the t distribution for k = 2."""
    reference = _document()
    assert reference["interpolation_error"] < 1e-18
    checked = [c["quadrature_error"] for c in reference["cases"]
               if c["quadrature_error"] is not None]
    assert len(checked) > 300 and max(checked) < 1e-18
    assert max(t["relative_error"] for t in reference["two_means"]) < 1e-18
    assert min(float(c["log_sf"]) for c in reference["cases"]) < math.log(1e-290)


@pytest.mark.parametrize("k", range(3, 11))
def test_p_values_agree_with_the_mpmath_reference_down_to_1e_300(k):
    q, df, expected = _reference(k)
    log_sf = omnibus.studentized_range_logsf(q, k, df)
    assert np.abs(np.expm1(log_sf - expected)).max() < RELATIVE
    # As plain p-values, one at a time and a table at once.
    sf = omnibus.studentized_range_sf_many(q, k, df)
    assert np.abs(sf / np.exp(expected) - 1).max() < RELATIVE
    for index in range(0, q.size, 7):
        one = omnibus.studentized_range_sf(float(q[index]), k, float(df[index]))
        assert one == pytest.approx(math.exp(expected[index]), rel=RELATIVE)


@pytest.mark.parametrize("df", [1.0, 2.0, 3.3, 30.0, 1e3, 1e6])
def test_two_means_are_the_t_distribution_in_the_far_tail(df):
    """k = 2: Q = √2·|T| exactly, so P(Q > q) = 2·P(T > q/√2), here down to 1e-300."""
    t = np.geomspace(0.01, 1e150, 400)
    with np.errstate(divide="ignore"):  # where the t distribution's tail underflows
        expected = np.log(2 * special.stdtr(df, -t))
    kept = expected > math.log(1e-300)
    actual = omnibus.studentized_range_logsf(math.sqrt(2) * t[kept], 2, np.full(kept.sum(), df))
    assert np.abs(np.expm1(actual - expected[kept])).max() < 1e-11


def test_the_logarithm_goes_on_below_the_smallest_double():
    log_sf = omnibus.studentized_range_logsf(np.array([60.0, 1e200]), 4,
                                             np.array([math.inf, 3.0]))
    # P(R > 60) ≈ 12·Φ̄(60/√2), and P(Q > q) ∝ q^-3 at df = 3.
    assert log_sf[0] == pytest.approx(math.log(12) + float(special.log_ndtr(-60 / math.sqrt(2))),
                                      rel=1e-12)
    assert -1400 < log_sf[1] < -1370
    assert omnibus.studentized_range_sf(60.0, 4, math.inf) == 0.0


@pytest.mark.parametrize("k", [3, 6, 10])
@pytest.mark.parametrize("df", [2.0, 9.5, 120.0, math.inf])
def test_quantiles_in_the_tail(k, df):
    for p in (1e-20, 1e-100, 1e-250):
        q = omnibus.studentized_range_isf(p, k, df)
        assert omnibus.studentized_range_sf(q, k, df) == pytest.approx(p, rel=1e-9)


# -------------------------------------------------------- adjusted p-values never below raw

PROPERTIES = settings(max_examples=150, deadline=None,
                      suppress_health_check=[HealthCheck.too_slow])


@PROPERTIES
@given(k=st.integers(2, 12),
       df=st.one_of(st.floats(1.0, 1e7), st.just(math.inf)),
       t=st.one_of(st.floats(0.0, 50.0), st.floats(0.0, 1e12)))
def test_the_range_of_k_means_is_never_likelier_than_one_pair(k, df, t):
    """P(Q_k > √2·t) ≥ P(|T| > t): the range of k means is at least the distance of any two,
    so Tukey's and Games–Howell's adjusted p-values (left) are never below the pair's own
    t-test (right); equal for k = 2. The function is accurate to 1e-12 relative (near p = 1
    too, where the post-hoc tests then take the larger of the two, exactly)."""
    adjusted = omnibus.studentized_range_sf(math.sqrt(2) * t, k, df)
    raw = float(2 * (special.ndtr(-t) if math.isinf(df) else special.stdtr(df, -t)))
    if k == 2:
        # (below 1e-300 scipy's normal tail, the reference, loses its subnormal digits:
        # 2·ndtr(−38) gives 0 where the true value is 5.77e-316)
        assert adjusted == pytest.approx(raw, rel=1e-11, abs=1e-300)
    else:
        assert adjusted >= raw * (1 - 1e-12)
        if 1e-300 < raw < 0.99:  # strictly: k means spread more than two
            assert adjusted > raw


@st.composite
def _groups(draw) -> list[np.ndarray]:
    """k groups of 2–12 values, their means from indistinguishable to 1e9 spreads apart (the
    post-hoc p-values then span 1 down to 0), their spreads from equal to 1e4 apart."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(3, 6))
    separation = 10.0 ** draw(st.floats(-1.0, 9.0))
    groups = []
    for _ in range(k):
        spread = 10.0 ** draw(st.floats(-2.0, 2.0))
        size = draw(st.integers(2, 12))
        groups.append(1e3 + separation * rng.uniform() + spread * rng.standard_normal(size))
    return groups


@PROPERTIES
@given(groups=_groups())
def test_no_post_hoc_p_value_is_adjusted_below_its_own(groups):
    for method in (omnibus.tukey_hsd, omnibus.games_howell, omnibus.dunn, omnibus.conover,
                   omnibus.pairwise_wilcoxon):
        for pair in method(groups).pairs:
            if pair.p_value is not None:
                assert pair.p_adjusted is not None
                assert pair.p_value <= pair.p_adjusted <= 1, (method.__name__, pair)


_P_VALUES = st.lists(st.one_of(st.floats(0.0, 1.0), st.floats(0.0, 1e-250),
                               st.sampled_from([0.0, 1.0, 5e-324])), min_size=1, max_size=30)


@PROPERTIES
@given(p_values=_P_VALUES, missing=st.lists(st.booleans(), max_size=30))
def test_holm_never_adjusts_below_the_p_value(p_values, missing):
    """Holm over a benchmark's post-hoc pairs and over its comparisons with the baseline
    (omnibus.holm, with None for what was not computed); Holm and Benjamini–Hochberg over the
    benchmarks (corrections.adjusted_p_values)."""
    with_missing = [None if m else p for p, m in zip(p_values, missing + [False] * 30,
                                                     strict=False)]
    for p, adjusted in zip(with_missing, omnibus.holm(with_missing), strict=True):
        assert (p is None) == (adjusted is None)
        if p is not None:
            assert p <= adjusted <= 1
    holm, bh = adjusted_p_values(p_values)
    assert np.all(np.asarray(p_values) <= holm) and np.all(holm <= 1)
    assert np.all(np.asarray(p_values) <= bh) and np.all(bh <= holm)


def test_the_golden_runs_adjust_no_p_value_below_its_own():
    """Every adjusted p-value of the golden results.json files: the post-hoc pairs, the Holm
    adjustment over the comparisons with the baseline, and over the benchmarks."""
    checked = 0

    def walk(node):
        nonlocal checked
        if isinstance(node, dict):
            if node.get("p_value") is not None and node.get("p_adjusted") is not None:
                assert node["p_value"] <= node["p_adjusted"], node
                checked += 1
            adjusted = node.get("adjusted")
            if node.get("p_value") is not None and adjusted is not None:
                # versions_holm's mean and median (a number), a call's holm and bh (a dict)
                for value in (adjusted.values() if isinstance(adjusted, dict) else [adjusted]):
                    if value is not None:
                        assert node["p_value"] <= value, node
                        checked += 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in sorted((FIXTURES / "golden").glob("*/results.json")):
        walk(json.loads(path.read_text(encoding="utf-8")))
    assert checked > 100

"""Every statistic, p-value and verdict against R (fixtures from tests/fixtures/*.R)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speeduptest.stats.overall import required_benchmarks, wilson_interval
from speeduptest.stats.protocol import analyse_pair

FIXTURES = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "protocol_cases.json").read_text(encoding="utf-8")
)
CASES = {case["name"]: case for case in FIXTURES["cases"]}
RELATIVE = 1e-6  # the agreement asked of every p-value


def close(actual: float | None, expected: float | None) -> bool:
    if expected is None:
        return actual is None
    return actual is not None and actual == pytest.approx(expected, rel=RELATIVE, abs=1e-300)


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> tuple[dict, object]:
    data = CASES[request.param]
    analysis = analyse_pair(np.array(data["x"]), np.array(data["y"]), alpha=data["alpha"],
                            large_sample=data["large_sample"])
    return data, analysis


def test_shapiro_wilk(case):
    data, analysis = case
    for side, result in (("initial", analysis.tests.shapiro_initial),
                         ("optimized", analysis.tests.shapiro_optimized)):
        expected = data[f"shapiro_{side}"]
        if expected is None:
            assert not result.computed and result.note
        else:
            assert close(result.statistic, expected["statistic"])
            assert close(result.p_value, expected["p_value"])


def test_f_test(case):
    data, analysis = case
    expected, result = data["f_test"], analysis.tests.f_test
    if expected is None:
        assert not result.computed
        return
    # var.test's 1 - pf(F) loses digits below ~1e-10; R's pf(lower.tail = FALSE) does not.
    assert close(result.p_value, expected["p_value"]) or (
        expected["p_value"] < 1e-10 and close(result.p_value, expected["p_value_accurate"]))
    assert (result.df_numerator, result.df_denominator) == (expected["df1"], expected["df2"])
    if expected["statistic"] == 0:
        assert result.statistic == 0
    else:
        assert close(result.statistic, expected["statistic"])


@pytest.mark.parametrize("variant", ["student", "welch"])
def test_t_tests(case, variant):
    data, analysis = case
    expected = data[f"t_{variant}"]
    result = analysis.tests.t_student if variant == "student" else analysis.tests.t_welch
    if expected is None:
        assert not result.computed
        return
    for field in ("statistic", "df", "p_value"):
        assert close(getattr(result, field), expected[field]), field


def test_t_variant_chosen_by_f_test(case):
    data, analysis = case
    if data["f_test"] is not None:
        assert analysis.tests.t_test_at(data["alpha"]).variant == data["t_variant"]


def test_kolmogorov_smirnov(case):
    data, analysis = case
    expected, result = data["ks_test"], analysis.tests.ks
    assert close(result.statistic, expected["statistic"])
    assert close(result.p_value, expected["p_value"])
    assert result.method == ("exact" if expected["exact"] else "asymptotic")


def test_wilcoxon_mann_whitney(case):
    data, analysis = case
    expected, result = data["wilcoxon"], analysis.tests.wilcoxon
    assert close(result.statistic, expected["statistic"])
    assert close(result.p_value, expected["p_value"])
    assert result.method == expected["method"]


def test_verdicts_and_highest_confidence(case):
    data, analysis = case
    assert analysis.small == data["small"]
    assert analysis.mean.verdict == data["mean_verdict"]
    assert analysis.median.verdict == data["median_verdict"]
    # max_confidence is 1 − p: the absolute error of p carries over (p near 1 for slowdowns).
    for actual, expected in ((analysis.mean_max_confidence, data["mean_max_confidence"]),
                             (analysis.median_max_confidence, data["median_max_confidence"])):
        assert (actual is None) == (expected is None)
        if expected is not None:
            assert actual == pytest.approx(expected, rel=RELATIVE, abs=1e-12)


def test_every_branch_is_covered():
    """The fixture exercises every branch of both decision trees (the issue's list)."""
    cases = FIXTURES["cases"]

    def some(predicate):
        return any(predicate(c) for c in cases)

    def rejects(test, c):
        return test is not None and test["p_value"] <= c["alpha"]

    def not_normal(c):
        return rejects(c["shapiro_initial"], c) or rejects(c["shapiro_optimized"], c)

    assert some(lambda c: c["small"] and not_normal(c) and c["mean_verdict"] == "inconclusive")
    assert some(lambda c: c["small"] and not not_normal(c) and c["mean_verdict"] == "significant")
    assert some(lambda c: not c["small"] and not_normal(c) and c["mean_verdict"] != "inconclusive")
    assert some(lambda c: not c["small"] and not not_normal(c))
    assert {c["t_variant"] for c in cases} == {"student", "welch"}
    assert some(lambda c: c["small"] and rejects(c["ks_test"], c)
                and c["median_verdict"] == "inconclusive")
    assert some(lambda c: not c["small"] and rejects(c["ks_test"], c)
                and c["median_verdict"] != "inconclusive")
    assert {c["wilcoxon"]["method"] for c in cases} == {"exact", "normal"}
    assert some(lambda c: len(c["x"]) != len(c["y"]))
    assert some(lambda c: np.mean(c["y"]) > np.mean(c["x"]))  # slowdown
    assert some(lambda c: c["mean_verdict"] == "not_significant")
    assert some(lambda c: c["median_verdict"] == "not_significant")


@pytest.mark.parametrize("row", FIXTURES["proportions"], ids=lambda r: f"{r['a']}/{r['b']}")
def test_proportion_interval_matches_prop_test(row):
    low, high = wilson_interval(row["a"], row["b"], row["conf_level"])
    assert low == pytest.approx(row["low"], rel=RELATIVE, abs=1e-12)
    assert high == pytest.approx(row["high"], rel=RELATIVE, abs=1e-12)


@pytest.mark.parametrize("row", FIXTURES["required"], ids=lambda r: f"{r['a']}/{r['b']}")
def test_required_benchmarks_matches_r(row):
    proportion = row["a"] / row["b"]
    assert required_benchmarks(proportion, row["conf_level"], row["precision"]) == row["required"]

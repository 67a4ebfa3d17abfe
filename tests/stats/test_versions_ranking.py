"""The ranking of several versions and the Holm adjustment over the k − 1 comparisons with
the baseline, against R (tests/fixtures/generate_versions_ranking_cases.R)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from speeduptest.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((ROOT / "tests" / "fixtures" / "versions_ranking_cases.json").read_text())
RELATIVE = 1e-9


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """results.json of every case, run once."""
    found = {}
    for case in CASES["cases"]:
        out = tmp_path_factory.mktemp("ranking")
        status = main([str(ROOT / case["config"]), "--baseline", case["baseline"], "-o",
                       str(out), "--format", "json", "--quiet", "--bootstrap", "200",
                       "--warmup", "none", "--dependence", "ignore"])
        assert status == 0, case["name"]
        found[case["name"]] = json.loads((out / "results.json").read_text())
    return found


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda case: case["name"])
def test_ranking_and_intervals_agree_with_r(case, runs):
    data = runs[case["name"]]
    assert data["overall"]["ranking"] == case["ranking"]
    ours = {v["name"]: v for v in data["versions"]}
    for expected in case["versions"]:
        standing = ours[expected["name"]]
        assert standing["rank"] == expected["rank"]
        assert standing["best"] == expected["best"]
        for key in ("geometric_mean", "versus_best"):
            if expected[key] is None:
                assert standing[key] is None
                continue
            value, low, high, population_low, population_high = expected[key]
            assert standing[key]["speedup"] == pytest.approx(value, rel=RELATIVE)
            assert standing[key]["ci"] == pytest.approx([low, high], rel=RELATIVE)
            assert standing[key]["population"]["ci"] == pytest.approx(
                [population_low, population_high], rel=RELATIVE)


@pytest.mark.parametrize("case", CASES["cases"], ids=lambda case: case["name"])
def test_holm_over_the_comparisons_with_the_baseline_agrees_with_r(case, runs):
    data = runs[case["name"]]
    comparisons = {c["version"]: {b["name"]: b for b in c["benchmarks"]}
                   for c in data["comparisons"]}
    for expected in case["holm"]:
        for position, version in enumerate(expected["versions"]):
            entry = comparisons[version][expected["benchmark"]]
            holm = entry["versions_holm"]
            assert holm["comparisons"] == len(expected["versions"])
            assert holm["mean"]["p_value"] == pytest.approx(expected["t"][position],
                                                            rel=1e-6, abs=1e-300)
            assert holm["mean"]["adjusted"] == pytest.approx(expected["t_holm"][position],
                                                             rel=1e-6, abs=1e-300)
            assert holm["median"]["p_value"] == pytest.approx(expected["wilcoxon"][position],
                                                              rel=1e-6, abs=1e-300)
            assert holm["median"]["adjusted"] == pytest.approx(
                expected["wilcoxon_holm"][position], rel=1e-6, abs=1e-300)
            # The adjusted verdict: decided by the adjusted p-value unless inconclusive.
            verdict, alpha = entry["mean"]["verdict"], entry["alpha"]
            if verdict != "inconclusive":
                assert (holm["mean"]["verdict"] == "significant") == (
                    holm["mean"]["adjusted"] <= alpha)
            else:
                assert holm["mean"]["verdict"] == "inconclusive"


def test_the_synthetic_case_has_a_tie_and_a_partial_order():
    """The fixture exercises what it should: two versions close together."""
    case = CASES["cases"][-1]
    assert sum(v["best"] for v in case["versions"]) >= 2

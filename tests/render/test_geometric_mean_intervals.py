"""The geometric mean's two intervals, each named for what it covers, in every output: the
interval for this suite's measurement noise and the one for the population of programs the
suite samples."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from speeduptest.cli import main
from speeduptest.model.wording import (
    POPULATION_CAVEAT,
    POPULATION_INTERVAL_COVERS,
    SUITE_INTERVAL_COVERS,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    out = tmp_path_factory.mktemp("geometric") / "report"
    previous = os.getcwd()
    try:
        os.chdir(ROOT)
        assert main(["config.example.csv", "-o", str(out), "--format", "json,md,tex,html",
                     "--quiet"]) == 0
    finally:
        os.chdir(previous)
    return out, json.loads((out / "results.json").read_text())


def test_results_json_names_both_intervals(example):
    _, data = example
    geometric = data["overall"]["geometric_mean"]
    assert geometric["ci_covers"] == SUITE_INTERVAL_COVERS == "this suite's measurement noise"
    assert geometric["ci"] == [pytest.approx(1.043, abs=5e-4), pytest.approx(1.070, abs=5e-4)]
    population = geometric["population"]
    assert population["covers"] == POPULATION_INTERVAL_COVERS
    assert population["caveat"] == POPULATION_CAVEAT
    assert (population["method"], population["df"], population["benchmarks"]) == ("t", 10, 11)
    assert population["confidence"] == geometric["confidence"] == 0.95
    assert population["ci"] == [pytest.approx(0.931, abs=5e-4), pytest.approx(1.199, abs=5e-4)]
    assert population["ci"][0] < geometric["ci"][0] < geometric["speedup"] < geometric["ci"][1]


def test_the_answer_names_both_intervals(example):
    out, _ = example
    summary = (out / "summary.md").read_text()
    assert (f"95% CI 1.043–1.07 for {SUITE_INTERVAL_COVERS} and 0.9308–1.199 for "
            f"{POPULATION_INTERVAL_COVERS})") in summary
    page = (out / "global.html").read_text()
    assert "CI for the population of programs the suite samples (t)" in page
    assert "[0.9308×, 1.199×]" in page
    table = (out / "table.tex").read_text()
    assert r"\multicolumn{2}{@{}l}{\quad population} & & [0.9308, 1.199] & & \\" in table


def test_every_version_gets_both_intervals(tmp_path):
    previous = os.getcwd()
    try:
        os.chdir(ROOT)
        assert main(["samples/compiler-flags/flags.csv", "--baseline", "O0", "-o",
                     str(tmp_path / "report"), "--format", "json,md", "--quiet",
                     "--bootstrap", "200"]) == 0
    finally:
        os.chdir(previous)
    data = json.loads((tmp_path / "report" / "results.json").read_text())
    for version in data["versions"]:
        for key in ("geometric_mean", "versus_best"):
            aggregate = version[key]
            if aggregate is None:
                continue
            assert aggregate["ci_covers"] == SUITE_INTERVAL_COVERS
            low, high = aggregate["population"]["ci"]
            assert low <= aggregate["speedup"] <= high
            assert aggregate["population"]["df"] == 10  # 11 benchmarks, equal weights
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "(geometric mean, CI; population CI)" in summary

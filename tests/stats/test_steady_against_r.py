"""The order and dependence checks of speeduptest/stats/steady.py against R.

The fixture, tests/fixtures/steady_r.json, is written by tests/stats/steady_against_r.R
(``Rscript tests/stats/steady_against_r.R``; CI has no R and only reads the committed JSON):
Mann–Kendall's τ-b and p-value (``cor.test(seq_along(x), x, method = "kendall",
exact = FALSE, continuity = FALSE)``), Friedman's χ² and p-value (``friedman.test`` of the
invocations × positions matrix) and the lag-1 autocorrelation (``acf(x, lag.max = 1)``).

Agreement asked: relative 1e-12 for every statistic and p-value (R's p-values down to 1e-63).
The largest disagreement seen when the fixture was made was 1.1e-13 (the Friedman p-value of
1.8e-63), every statistic within 6e-15.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.steady import (
    MAX_PAIRWISE,
    check_side,
    lag1,
    lag1_rows,
    mann_kendall,
    mann_kendall_rows,
    position_effect,
)

FIXTURE = json.loads((Path(__file__).parents[1] / "fixtures" / "steady_r.json")
                     .read_text(encoding="utf-8"))
RELATIVE = 1e-12

MANN_KENDALL = {case["name"]: case for case in FIXTURE["mann_kendall"]}
FRIEDMAN = {case["name"]: case for case in FIXTURE["friedman"]}
LAG1 = {case["name"]: case for case in FIXTURE["lag1"]}


def close(actual: float, expected: float) -> bool:
    return actual == pytest.approx(expected, rel=RELATIVE, abs=1e-300)


def test_fixture_covers_what_the_brief_asks():
    lengths = {len(case["x"]) for case in MANN_KENDALL.values()}
    assert {10, 31, 100} <= lengths
    assert any(n > MAX_PAIRWISE for n in lengths)  # scipy's path too
    assert any(len(set(case["x"])) < len(case["x"]) for case in MANN_KENDALL.values())
    assert any(len(set(case["x"])) == len(case["x"]) for case in MANN_KENDALL.values())
    assert len(FRIEDMAN) >= 6 and len(LAG1) >= 6


@pytest.mark.parametrize("name", sorted(MANN_KENDALL))
def test_mann_kendall(name):
    case = MANN_KENDALL[name]
    found = mann_kendall(np.array(case["x"]))
    assert found.test == "mann-kendall"
    assert close(found.statistic, case["tau"])
    assert close(found.p_value, case["p_value"])


def test_mann_kendall_rows_batched_equal_r():
    """The cases of one length as the rows of one matrix."""
    by_length: dict[int, list[dict]] = {}
    for case in MANN_KENDALL.values():
        by_length.setdefault(len(case["x"]), []).append(case)
    for cases in by_length.values():
        found = mann_kendall_rows(np.array([case["x"] for case in cases]))
        for result, case in zip(found, cases, strict=True):
            assert close(result.statistic, case["tau"])
            assert close(result.p_value, case["p_value"])


@pytest.mark.parametrize("name", sorted(n for n, c in MANN_KENDALL.items() if len(c["x"]) <= 100))
def test_mann_kendall_through_check_side(name):
    """A one-level sample's order test is R's Mann–Kendall of its values (left as they are:
    no warm-up dropped, no batching)."""
    case = MANN_KENDALL[name]
    _, validity = check_side(Hierarchy.flat(case["x"]), warmup="none", dependence="ignore")
    assert validity.order is not None and validity.order.test == "mann-kendall"
    assert close(validity.order.statistic, case["tau"])
    assert close(validity.order.p_value, case["p_value"])


@pytest.mark.parametrize("name", sorted(FRIEDMAN))
def test_friedman(name):
    case = FRIEDMAN[name]
    found = position_effect([np.array(group) for group in case["groups"]])
    assert found is not None and found.test == "friedman"
    assert close(found.statistic, case["statistic"])
    assert close(found.p_value, case["p_value"])


@pytest.mark.parametrize("name", sorted(FRIEDMAN))
def test_friedman_through_check_side(name):
    """A two-level sample's order test is R's Friedman test of its invocations."""
    case = FRIEDMAN[name]
    sample = Hierarchy.from_nested(case["groups"], ("invocation", "iteration"))
    _, validity = check_side(sample, warmup="none")
    assert validity.order is not None and validity.order.test == "friedman"
    assert close(validity.order.statistic, case["statistic"])
    assert close(validity.order.p_value, case["p_value"])


@pytest.mark.parametrize("name", sorted(LAG1))
def test_lag1(name):
    case = LAG1[name]
    assert close(lag1(np.array(case["x"])), case["r1"])
    assert close(float(lag1_rows(np.array([case["x"]]))[0]), case["r1"])

"""Exact where the data are exact: identical values have that mean and no spread, identical
constant sides are unchanged with p 1 and never selected, at any scale; a timer's coarse
resolution is named."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from speeduptest.cli import main
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.protocol import summarise, summarise_rows

VALUE = 4.7056790655270026e-07  # whose 23 copies summed over 23 are an ulp off

values = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)


@given(value=values, size=st.integers(2, 200))
def test_the_mean_of_identical_values_is_that_value(value, size):
    sample = np.full(size, value)
    assert Hierarchy.flat(sample).grand_mean == value
    summary = summarise(sample)
    assert summary.mean == value and summary.std == 0.0
    rows = summarise_rows(np.stack([sample, sample]))
    assert [row.mean for row in rows] == [value, value]
    nested = Hierarchy.from_nested([[value] * 3, [value] * 5])
    assert nested.grand_mean == value


def _run(folder: Path, initial: list[float], optimized: list[float], name: str) -> dict:
    rng = np.random.default_rng(3)
    (folder / f"{name}-a.txt").write_text("\n".join(map(repr, initial)) + "\n")
    (folder / f"{name}-b.txt").write_text("\n".join(map(repr, optimized)) + "\n")
    other = [repr(float(v)) for v in rng.normal(10, 0.1, 20)]
    (folder / "c.txt").write_text("\n".join(other) + "\n")
    (folder / "d.txt").write_text("\n".join(other[::-1]) + "\n")
    config = folder / f"{name}.csv"
    config.write_text(f"benchmark,initial,optimized\nconst,{name}-a.txt,{name}-b.txt\n"
                      "other,c.txt,d.txt\n")
    out = folder / f"out-{name}"
    assert main([str(config), "-o", str(out), "--format", "json", "--quiet"]) == 0
    return json.loads((out / "results.json").read_text())


@pytest.mark.parametrize("scale", [1.0, 1 / VALUE, 1e200 / VALUE])
def test_identical_constant_sides_are_unchanged_at_any_scale(tmp_path, scale):
    data = _run(tmp_path, [VALUE * scale] * 23, [VALUE * scale] * 18, "c")
    const = data["benchmarks"][0]
    assert const["speedup"]["mean"] == 1.0
    interval = const["change"]["interval"]
    assert interval["p_value_no_change"] == 1.0 and interval["selected"] is False
    assert const["change"]["call"] == "unchanged"
    timer = [w for w in const["warnings"] if "timer's resolution" in w]
    assert len(timer) == 2 and "are all identical" in timer[0]


def test_a_quantised_sample_names_the_timer(tmp_path):
    rng = np.random.default_rng(5)
    quantised = [float(v) for v in rng.choice([1.0, 1.001, 1.002], 30)]
    data = _run(tmp_path, quantised, [float(v) for v in rng.normal(1.0, 0.01, 30)], "q")
    warnings = data["benchmarks"][0]["warnings"]
    assert any("take only 3 distinct values" in w and "timer's resolution" in w
               for w in warnings)


def test_a_constant_series_is_not_dependent():
    from speeduptest.stats.steady import lag1_rows

    assert lag1_rows(np.full((2, 23), VALUE)).tolist() == [0.0, 0.0]

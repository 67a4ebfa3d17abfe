"""Hierarchical samples at the edges (issue 23): times near the ends of the floats, level names
that collide, absurd costs, too many levels, designs too unbalanced to resample. Each ends
cleanly: a plan, or a located error (that benchmark's only, in a config run)."""

from __future__ import annotations

import json
import math
import re
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speeduptest.cli import main
from speeduptest.inputs.readers import ReadOptions, read_source
from speeduptest.stats.hierarchy import (
    MAX_GROUPING_LEVELS,
    Hierarchy,
    distinct_level_names,
    scaled_figure,
    variance_components,
)
from speeduptest.stats.planning import MAX_REPETITIONS, optimal_repetitions, plan_experiment

DATA = Path(__file__).parents[1] / "data" / "kalibera-jones"
COSTS = ["--cost", "iteration=1", "--cost", "invocation=10", "--cost", "build=100"]


def three_levels(path: Path, scale: float) -> Path:
    """3 builds × 3 invocations × 4 iterations of times near ``scale``."""
    rng = np.random.default_rng(7)
    rows = ["build,invocation,iteration,value"]
    for build in range(3):
        for invocation in range(3):
            for iteration in range(4):
                factor = 1 + 0.1 * build + 0.05 * invocation + 0.02 * rng.random()
                rows.append(f"{build},{invocation},{iteration},{scale * factor!r}")
    path.write_text("\n".join(rows) + "\n")
    return path


def plan_output(capsys, *arguments: str) -> tuple[int, str, str]:
    status = main(["plan", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def components_table(out: str) -> dict[str, tuple[str, str]]:
    """S² and T² as printed, by level."""
    rows = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) >= 4 and cells[0] in ("build", "invocation", "iteration"):
            rows[cells[0]] = (cells[1], cells[2])
    return rows


# ---------------------------------------------------------------- times near the float ends

@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("scale", [0.5e308, 1e-320, 1e-310])
def test_plan_of_extreme_times_has_every_component(tmp_path, capsys, scale):
    sample = three_levels(tmp_path / "h.csv", scale)
    status, out, err = plan_output(capsys, str(sample), *COSTS)
    assert status == 0, err
    assert not re.search(r"\b(nan|inf)\b", out, re.IGNORECASE), out
    table = components_table(out)
    assert set(table) == {"build", "invocation", "iteration"}
    for s2, t2 in table.values():  # every one a number, none 0 (not underflowed)
        assert Decimal(s2) > 0 and Decimal(t2) > 0
        # A variance of times near the scale: near its square (beyond the floats too).
        assert Decimal(scale) ** 2 / 10**6 < Decimal(s2) < Decimal(scale) ** 2
    if scale > 1:  # the plan of the same times near 1 (times near 1e-320 have few digits)
        reference = three_levels(tmp_path / "one.csv", 1.0)
        _, out_one, _ = plan_output(capsys, str(reference), *COSTS)
        repeats = [line.split("  ")[-1] for line in out.splitlines() if "unit above" in line]
        assert repeats == [line.split("  ")[-1] for line in out_one.splitlines()
                           if "unit above" in line]


def test_components_near_the_largest_float_scale_back_exactly(tmp_path):
    near_one = read_source(three_levels(tmp_path / "one.csv", 1.0)).samples[0].data
    big = near_one.scaled(1020)  # times up to 1.3 · 2^1020: their sums overflow
    components = variance_components(big)
    reference = variance_components(near_one)
    assert components.scale_exponent != 0
    for found, expected in zip(components.s2 + components.t2, reference.s2 + reference.t2,
                               strict=True):
        assert Fraction(found) * 4 ** components.scale_exponent == Fraction(expected) * 4**1020


def exact(value: float | None, exponent: int) -> Fraction | None:
    return None if value is None else Fraction(value) * Fraction(4) ** exponent


@settings(max_examples=60, deadline=None)
@given(design=st.lists(st.lists(st.lists(st.integers(1, 1000), min_size=1, max_size=4),
                                min_size=1, max_size=3), min_size=2, max_size=4),
       exponent=st.integers(-1022, 1010))
def test_scaling_the_times_scales_the_components_by_its_square(design, exponent):
    """Times multiplied by 2**k (exact): S² and T² multiplied by 4**k exactly, whatever k
    (the times staying normal floats), and the plan unchanged."""
    sample = Hierarchy.from_nested(design, ("build", "invocation", "iteration"))
    scaled = sample.scaled(exponent)
    assert scaled.values().min() >= 2.0**-1022
    before, after = variance_components(sample), variance_components(scaled)
    for found, expected in zip(after.s2 + after.t2, before.s2 + before.t2, strict=True):
        if expected is None:
            assert found is None
        else:
            assert (exact(found, after.scale_exponent)
                    == exact(expected, before.scale_exponent + exponent))
    costs = [1.0, 19.0, 5343.0]
    assert ([level.repetitions for level in plan_experiment(after, costs).levels]
            == [level.repetitions for level in plan_experiment(before, costs).levels])


@settings(max_examples=40, deadline=None)
@given(design=st.lists(st.lists(st.integers(1, 1000), min_size=2, max_size=5),
                       min_size=2, max_size=5),
       factor=st.floats(1e-300, 1e300))
def test_scaling_by_any_constant_scales_the_components_by_its_square(design, factor):
    """Times multiplied by any c: S² and T² multiplied by c² (to rounding: relative to the
    largest S², since a T² is a difference)."""
    names = ("invocation", "iteration")
    sample = Hierarchy.from_nested(design, names)
    scaled = Hierarchy.from_nested([[value * factor for value in group] for group in design],
                                   names)
    before, after = variance_components(sample), variance_components(scaled)
    square = Fraction(factor) ** 2
    largest = max(exact(value, before.scale_exponent) for value in before.s2)
    for found, expected in zip(after.s2 + after.t2, before.s2 + before.t2, strict=True):
        difference = (exact(found, after.scale_exponent)
                      - square * exact(expected, before.scale_exponent))
        assert abs(difference) <= Fraction(1, 10**9) * square * max(largest, Fraction(1))


def test_scaled_figures_beyond_the_floats():
    assert scaled_figure(12.722, 0) == "12.722"
    assert scaled_figure(1.5, 2048) == "4.8476e+616"
    assert scaled_figure(1.5, -2100) == "1.0306e-632"
    assert scaled_figure(1.0, 1100) == "1.3583e+331"  # trailing zeros dropped, as for floats
    assert scaled_figure(0.0, 9) == "0"


# ---------------------------------------------------------------- level names

def test_a_grouping_column_named_iteration_does_not_share_the_measurements_name(
        tmp_path, capsys):
    sample = tmp_path / "coll.csv"
    sample.write_text("build,iteration,value\n" + "".join(
        f"{b},{i},{1 + 0.1 * b + 0.01 * i + 0.001 * r}\n"
        for b in range(3) for i in range(3) for r in range(3)))
    status, _, err = plan_output(capsys, str(sample), "--cost", "iteration=1",
                                 "--cost", "build=100")
    assert status == 2
    assert "build, iteration, measurement" in err
    status, out, err = plan_output(capsys, str(sample), "--cost", "iteration=1",
                                   "--cost", "measurement=2", "--cost", "build=100")
    assert status == 0, err
    assert "3 build › 3 iteration › 3 measurement" in out
    costs = {line.split()[0]: line.split()[3] for line in out.splitlines()
             if line.split()[:1] in (["iteration"], ["measurement"])}
    assert costs == {"iteration": "1", "measurement": "2"}


def test_level_names_cut_to_the_same_text_are_told_apart():
    assert distinct_level_names(("a" * 39 + "…", "a" * 39 + "…", "iteration")) == (
        "a" * 39 + "…", "a" * 39 + "…-2", "iteration")
    assert distinct_level_names(("measurement", "iteration", "iteration")) == (
        "measurement", "iteration", "iteration-2")
    assert distinct_level_names(("x", "x-2", "x")) == ("x", "x-2", "measurement")
    assert Hierarchy.from_nested([[1, 2], [3, 4]], ("run", "run")).level_names == (
        "run", "measurement")


# ---------------------------------------------------------------- absurd costs

@pytest.mark.parametrize("costs", [
    ["iteration=1e-308", "invocation=1e308", "build=1e308"],
    ["iteration=1e308", "invocation=1e-308", "build=1e308"],
    ["iteration=5e-324", "invocation=1.7e308", "build=1.7e308"],
])
def test_absurd_cost_ratios_give_a_capped_plan(tmp_path, capsys, costs):
    sample = three_levels(tmp_path / "h.csv", 1.0)
    arguments = [part for cost in costs for part in ("--cost", cost)]
    status, out, err = plan_output(capsys, str(sample), *arguments, "--budget", "1e308")
    assert status == 0, err
    assert "Traceback" not in err
    assert not re.search(r"\b(nan|inf)\b", out, re.IGNORECASE), out
    assert "buys" in out


def test_repetitions_are_capped_and_say_so(tmp_path, capsys):
    assert optimal_repetitions([1.0, 1.0], [1e-308, 1e308]) == [MAX_REPETITIONS, None]
    assert optimal_repetitions([1e-300, 1e300], [1e308, 1e-308]) == [1, None]
    assert optimal_repetitions([5e-324, 1.0], [1.0, 1.0]) == [1, None]
    assert optimal_repetitions([1.0, 5e-324], [1.0, 1e308]) == [MAX_REPETITIONS, None]
    sample = three_levels(tmp_path / "h.csv", 1.0)
    status, out, _ = plan_output(capsys, str(sample), "--cost", "iteration=1e-308",
                                 "--cost", "invocation=1e308", "--cost", "build=1e308")
    assert status == 0
    assert f"{MAX_REPETITIONS:,} per unit above (capped)" in out
    assert "capped there" in out
    assert "costs 2e+308" in out or "costs 3e+308" in out  # beyond the floats, still a number


def test_a_budget_beyond_the_cost_of_a_unit_by_more_than_the_floats():
    components = variance_components(Hierarchy.from_nested([[9, 8, 5, 3], [10, 7, 6, 11],
                                                            [1, 2, 12, 4]]))
    plan = plan_experiment(components, [5e-324, 1e-300], 1e308)
    assert plan.affordable_top_units > 10**600
    plan = plan_experiment(components, [1e308, 1e308], 1.0)
    assert math.isinf(plan.top_unit_cost) and plan.affordable_top_units == 0
    assert Decimal(plan.top_unit_cost_text()) > Decimal(sys.float_info.max)


# ---------------------------------------------------------------- too many levels

def deep_sample(path: Path, columns: int) -> Path:
    header = ",".join(f"c{i}" for i in range(columns)) + ",value"
    rows = [",".join([str(r % 3)] + [str(r % 2)] * (columns - 1)) + f",{1 + r / 100}"
            for r in range(12)]
    path.write_text(header + "\n" + "\n".join(rows) + "\n")
    return path


def run_config(tmp_path: Path, *rows: str) -> tuple[int, dict]:
    (tmp_path / "good-i.txt").write_text(" ".join(str(10 + i % 5 / 10) for i in range(20)))
    (tmp_path / "good-o.txt").write_text(" ".join(str(8 + i % 5 / 10) for i in range(20)))
    config = tmp_path / "config.csv"
    config.write_text("benchmark,initial,optimized\ngood,good-i.txt,good-o.txt\n"
                      + "\n".join(rows) + "\n")
    out = tmp_path / "out"
    status = main([str(config), "-o", str(out), "--format", "json", "--quiet"])
    return status, json.loads((out / "results.json").read_text())


@pytest.mark.parametrize("columns", [MAX_GROUPING_LEVELS + 1, 64, 1000])
def test_too_many_grouping_columns_is_that_benchmarks_error(tmp_path, capsys, columns):
    deep = deep_sample(tmp_path / "deep.csv", columns)
    three_levels(tmp_path / "h.csv", 1.0)
    status, data = run_config(tmp_path, "bad,deep.csv,h.csv")
    assert status == 1
    benchmarks = {b["name"]: b for b in data["benchmarks"]}
    assert benchmarks["good"]["status"] == "ok"
    assert benchmarks["bad"]["status"] == "error"
    assert benchmarks["bad"]["errors"] == [
        f"{deep}:1: the header has {columns:,} grouping columns; at most "
        f"{MAX_GROUPING_LEVELS} are read (the levels above the measurements, e.g. build, "
        "invocation)"]
    status, _, err = plan_output(capsys, str(deep), "--cost", "c0=1")
    assert status == 2
    assert f"deep.csv:1: the header has {columns:,} grouping columns" in err


def test_as_many_grouping_columns_as_allowed_are_analysed(tmp_path, capsys):
    deep_sample(tmp_path / "deep.csv", MAX_GROUPING_LEVELS)
    status, data = run_config(tmp_path, "deep,deep.csv,deep.csv")
    assert status == 0, data
    costs = [part for i in range(MAX_GROUPING_LEVELS) for part in ("--cost", f"c{i}=1")]
    status, _, err = plan_output(capsys, str(tmp_path / "deep.csv"), *costs,
                                 "--cost", "iteration=1")
    assert status == 0, err


@pytest.mark.parametrize("columns", [100, 1000])
def test_a_long_csv_with_too_many_grouping_columns(tmp_path, columns):
    names = ",".join(f"c{i}" for i in range(columns))
    rows = "\n".join(f"b,{','.join(['1'] * columns)},{1 + r}" for r in range(3))
    (tmp_path / "long.csv").write_text(f"benchmark,{names},value\n{rows}\n")
    source = read_source(tmp_path / "long.csv")
    problem = (f"the header has {columns:,} grouping columns; at most {MAX_GROUPING_LEVELS} are "
               "read (the levels above the measurements, e.g. build, invocation)")
    if columns == 100:
        assert source.problem == f"line 1: {problem}"
    else:  # a header longer than what is looked at to tell a long CSV: a .csv sample
        assert str(source.samples[0].errors[0]).endswith(
            problem.replace(f"{columns:,}", f"{columns + 1:,}"))


# ---------------------------------------------------------------- unbalanced designs

def unbalanced(path: Path) -> Path:
    """100 builds of 1 invocation × 2 iterations, but one build of 1,000 invocations and
    one invocation of 1,000 iterations (36 KB): padded to 100 × 1000 × 1000 cells."""
    rng = np.random.default_rng(3)
    rows = ["build,invocation,iteration,value"]
    for build in range(100):
        invocations = 1000 if build == 0 else 1
        for invocation in range(invocations):
            for iteration in range(1000 if build == 1 else 2):
                rows.append(f"{build},{invocation},{iteration},{1 + rng.random() / 10:.4f}")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_design_too_unbalanced_to_resample_is_that_benchmarks_error(tmp_path):
    sample = unbalanced(tmp_path / "unbalanced.csv")
    read = read_source(sample).samples[0]  # (the old code read it, and padded it later)
    assert read.data is None
    assert "too unbalanced to resample" in read.errors[0].message
    three_levels(tmp_path / "h.csv", 1.0)
    status, data = run_config(tmp_path, "bad,unbalanced.csv,h.csv", "ok,h.csv,h.csv")
    assert status == 1
    benchmarks = {b["name"]: b for b in data["benchmarks"]}
    assert benchmarks["good"]["status"] == benchmarks["ok"]["status"] == "ok"
    assert benchmarks["bad"]["status"] == "error"
    (error,) = benchmarks["bad"]["errors"]
    assert f"config.csv:3: initial sample file {sample}: its levels are too unbalanced" in error
    assert "100,000,000 cells for 3,196 values" in error


def test_plan_reads_an_unbalanced_design(tmp_path, capsys):
    assert main(["plan", str(unbalanced(tmp_path / "u.csv")), "--cost", "iteration=1",
                 "--cost", "invocation=10", "--cost", "build=100"]) == 0
    assert "One build with the planned repetitions costs" in capsys.readouterr().out
    sample = read_source(tmp_path / "u.csv", options=ReadOptions(bootstrap=False))
    data = sample.samples[0].data
    assert data is not None and data.padded_cells() == 100_000_000
    plan = plan_experiment(variance_components(data), [1.0, 10.0, 100.0])
    assert all(level.repetitions is None or level.repetitions >= 1 for level in plan.levels)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.lists(st.floats(1, 2), min_size=1, max_size=4), min_size=1,
                         max_size=4), min_size=1, max_size=4))
def test_padded_cells_counts_the_padded_array(design):
    sample = Hierarchy.from_nested(design)
    assert sample.padded_cells() == sample.padded()[0].size
    assert sample.padding_problem() is None  # small designs are always resampled


def test_unbalanced_designs_of_real_shape_are_resampled():
    # Invocations of 1 to 200 iterations (a warm-up cut at different points).
    rng = np.random.default_rng(1)
    design = [list(rng.random(int(rng.integers(1, 201))) + 1) for _ in range(40)]
    assert Hierarchy.from_nested(design).padding_problem() is None

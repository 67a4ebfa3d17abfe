"""Experiment planning (Kalibera & Jones optimal repetition counts)."""

from __future__ import annotations

from pathlib import Path

from speeduptest.cli import main
from speeduptest.stats.hierarchy import Hierarchy, variance_components
from speeduptest.stats.planning import optimal_repetitions, plan_experiment

DATA = Path(__file__).parents[1] / "data" / "kalibera-jones"


def test_papers_three_level_example():
    # T²₁ = 21.16, T²₂ = 44.418, T²₃ = 16.361; costs iteration 1, invocation 19, build 5343.
    assert optimal_repetitions([21.16, 44.418, 16.361], [1, 19, 5343]) == [4, 28, None]


def test_two_level_example_at_full_precision():
    data = Hierarchy.from_nested([[9, 8, 5, 3], [10, 7, 6, 11], [1, 2, 12, 4]])
    components = variance_components(data)
    # The paper's 18 comes from rounding intermediate values; full precision gives 19.
    assert optimal_repetitions(components.t2, [1, 10]) == [19, None]


def test_a_level_without_variance_is_repeated_once():
    # Table 6.1: T²₂ < 0, so executions are not repeated and iterations are weighed against
    # builds (whose cost then includes the one execution each build still needs).
    plan = plan_experiment(variance_components(Hierarchy.from_nested(
        [[[9, 5], [8, 3]], [[10, 6], [7, 11]], [[1, 12], [2, 4]]])), [1, 19, 5343], 100_000)
    assert [level.repetitions for level in plan.levels] == [198, 1, None]
    assert plan.top_unit_cost == 5343 + 1 * (19 + 198 * 1)
    assert plan.affordable_top_units == 100_000 // 5560


def test_plan_command(capsys):
    status = main(["plan", str(DATA / "two-level.csv"), "--cost", "iteration=1",
                   "--cost", "invocation=10", "--budget", "1000"])
    out = capsys.readouterr().out
    assert status == 0
    assert "19 per unit above" in out
    assert "3 invocation › 4 iteration" in out
    assert "12.722" in out and "0.38194" in out  # T²₁ and T²₂
    assert "buys 34 invocations" in out  # 1000 // (10 + 19·1)


def test_plan_command_needs_a_cost_per_level(capsys):
    assert main(["plan", str(DATA / "table-6.1.csv"), "--cost", "iteration=1"]) == 2
    assert "give one --cost per level" in capsys.readouterr().err


def test_plan_command_reports_a_bad_file(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("invocation,value\n1,3\n1,x\n")
    assert main(["plan", str(bad), "--cost", "iteration=1", "--cost", "invocation=2"]) == 2
    assert "bad.csv:3: 'x' is not a number" in capsys.readouterr().err

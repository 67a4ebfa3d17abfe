"""The terminal shows each benchmark's mean times beside its change, as pyperf does
(``267 ms → 279 ms``): the means of the results model, one unit per benchmark chosen by
magnitude where the input states its unit, four significant digits without a unit where it
does not; with several versions, in the matrix while it fits in 100 columns."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import speeduptest
from speeduptest.render.formatting import TimeScale, mean_time
from speeduptest.render.terminal import MATRIX_WIDTH, render_terminal

ROOT = Path(__file__).parents[2]
TOOLS = ROOT / "tests" / "data" / "tools"
SETTINGS = speeduptest.Settings(bootstrap=200, warmup="none", dependence="ignore")


@pytest.mark.parametrize(("seconds", "shown"), [
    (0.2673, "267 ms"), (0.27949, "279 ms"), (1.5, "1.5 s"), (14.4e-6, "14.4 µs"),
    (8.947e-9, "8.95 ns"), (14359e-9, "14359 ns")])
def test_a_mean_time_has_three_significant_digits_and_its_unit(seconds, shown):
    unit = shown.split()[1]
    factor = {"s": 1.0, "ms": 1e3, "µs": 1e6, "ns": 1e9}[unit]
    assert mean_time(seconds, TimeScale(factor, unit)) == shown


def test_without_a_unit_four_significant_digits():
    assert mean_time(0.136849, TimeScale(1.0, "")) == "0.1368"
    assert mean_time(12345.6, TimeScale(1.0, "")) == "12346"


def _line(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if re.match(rf"  \w+ +{re.escape(name)} ",
                                                               line))


def test_tool_files_show_both_means_in_one_unit_chosen_by_magnitude():
    """Catch2's runs (seconds): fibonacci 20 goes from microseconds to nanoseconds, shown
    both in ns (the unit of the smaller mean, as the reports do); the values are the model's
    means."""
    results = speeduptest.compare_files(str(TOOLS / "catch2" / "initial.xml"),
                                        str(TOOLS / "catch2" / "optimized.xml"), SETTINGS)
    text = render_terminal(results)
    header = text.splitlines()[2]
    assert "initial.xml → optimized.xml" in header
    for benchmark in results.analysed:
        analysis = benchmark.analysis
        smaller = min(analysis.initial.mean, analysis.optimized.mean)
        unit, factor = next((u, f) for u, f, size in (("s", 1.0, 1.0), ("ms", 1e3, 1e-3),
                                                      ("µs", 1e6, 1e-6), ("ns", 1e9, 0))
                            if smaller >= size)
        scale = TimeScale(factor, unit)
        expected = (f"{mean_time(analysis.initial.mean, scale)} → "
                    f"{mean_time(analysis.optimized.mean, scale)}")
        line = _line(text, benchmark.name)
        assert expected in line, (expected, line)
        assert re.search(rf" [0-9.]+ {unit} → [0-9.]+ {unit} ", line)  # one unit, both sides
    fibonacci = _line(text, "fibonacci 20")
    assert re.search(r" \d+ ns → \d+(\.\d+)? ns ", fibonacci)
    # Aligned on the arrow, as the header is.
    arrows = {line.index("→") for line in text.splitlines()[2:6]}
    assert len(arrows) == 1


def test_plain_samples_show_numbers_without_a_unit(tmp_path):
    rng = np.random.default_rng(3)
    for name, centre in (("a.txt", 0.2673), ("b.txt", 0.2795)):
        values = rng.normal(centre, 0.002, 30)
        (tmp_path / name).write_text("\n".join(repr(float(v)) for v in values))
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized\nwork,a.txt,b.txt\n")
    results = speeduptest.analyse_config(tmp_path / "c.csv", SETTINGS)
    (benchmark,) = results.pair.benchmarks
    line = _line(render_terminal(results), "work")
    initial, optimized = benchmark.analysis.initial.mean, benchmark.analysis.optimized.mean
    assert f"  {initial:.4g} → {optimized:.4g}  " in line
    assert " s " not in line and "ms" not in line


def test_several_versions_show_means_in_the_matrix_while_it_fits():
    results = speeduptest.analyse_config(ROOT / "samples" / "compiler-flags" / "flags4.csv",
                                         SETTINGS, baseline="O0")
    text = render_terminal(results)
    assert "Each version's mean, then its speedup of the means over O0" in text
    matrix = text.split("a = fastest):\n")[1].split("\n\n")[0].splitlines()
    assert all(len(line) <= MATRIX_WIDTH for line in matrix)
    collatz = next(line for line in matrix if line.startswith("  collatz "))
    benchmark = next(b for b in results.across if b.name == "collatz")
    for summary in benchmark.summaries:
        assert f"{summary.mean:.4g} " in collatz  # plain samples: no unit
    assert re.search(r"  \d\.\d+ baseline [a-z]+  ", collatz)


def test_a_matrix_too_wide_with_means_is_shown_without_them(tmp_path):
    rng = np.random.default_rng(5)
    versions = [f"version-with-a-long-name-{index}" for index in range(4)]
    rows = ["benchmark," + ",".join(versions)]
    cells = []
    for index, version in enumerate(versions):
        name = f"{version}.txt"
        values = rng.normal(1 + index / 10, 0.01, 20)
        (tmp_path / name).write_text("\n".join(repr(float(v)) for v in values))
        cells.append(name)
    rows.append("bench," + ",".join(cells))
    (tmp_path / "wide.csv").write_text("\n".join(rows) + "\n")
    results = speeduptest.analyse_config(tmp_path / "wide.csv", SETTINGS, baseline=versions[0])
    text = render_terminal(results)
    assert "Each version's mean" not in text
    assert "\nSpeedup of the means over version-with-a-long-name-0" in text

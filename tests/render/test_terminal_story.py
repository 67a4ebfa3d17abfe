"""The terminal tells one story: the calls first, the Speedup-Test figures under their own
heading, a call that differs from a significant verdict says why, large slowdowns as factors,
and caveats that state their real condition."""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np

import speeduptest
from speeduptest.render.terminal import render_terminal


def _write(path: Path, values) -> str:
    path.write_text("\n".join(repr(float(v)) for v in values) + "\n")
    return path.name


def test_the_terminal_story(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    rows = ["benchmark,initial,optimized"]
    # 0.4% faster, measured precisely: significant, but within the 1% threshold.
    rows.append(f"tiny,{_write(tmp_path / 'a.txt', rng.normal(10.0, 0.005, 40))},"
                f"{_write(tmp_path / 'b.txt', rng.normal(9.96, 0.005, 40))}")
    # 6× slower.
    rows.append(f"big,{_write(tmp_path / 'c.txt', rng.normal(1.0, 0.01, 40))},"
                f"{_write(tmp_path / 'd.txt', rng.normal(6.0, 0.05, 40))}")
    (tmp_path / "c.csv").write_text("\n".join(rows) + "\n")
    results = speeduptest.analyse_config(tmp_path / "c.csv", speeduptest.Settings(
        bootstrap=200, warmup="none", dependence="ignore"))
    text = render_terminal(results)
    tiny = next(line for line in text.splitlines() if " tiny " in line)
    assert tiny.lstrip().startswith("unchanged")
    assert tiny.endswith("(significant, but within the ±1% threshold)")
    assert text.index("  unchanged  tiny") < text.index("Speedup-Test figures (the paper's "
                                                         "one-sided protocol, per benchmark, "
                                                         "uncorrected")
    assert "Its counts differ from the calls" in text
    assert "gain −" not in text and "× slower" in text.split("Overall speedup")[1]
    # The real condition of the proportion's caveat (tiny is accelerated, big is not).
    assert ("(approximate: too few benchmarks for the interval's normal approximation: 2, 1 "
            "of them accelerated, give b·C·(1 − C) = 0.5, and it needs more than 5)") in text


def test_the_reports_state_the_proportions_real_condition(tmp_path: Path) -> None:
    """The HTML report says what is too few for the proportion's interval, in words, where
    the terminal does (not a tooltip, which a PDF loses)."""
    from speeduptest.cli import main

    rng = np.random.default_rng(7)
    rows = ["benchmark,initial,optimized"]
    for index, (initial, optimized) in enumerate([(10.0, 9.0), (10.0, 10.0), (10.0, 10.0)]):
        rows.append(f"b{index},{_write(tmp_path / f'i{index}.txt', rng.normal(initial, .01, 30))},"
                    f"{_write(tmp_path / f'o{index}.txt', rng.normal(optimized, .01, 30))}")
    (tmp_path / "c.csv").write_text("\n".join(rows) + "\n")
    assert main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--format", "html",
                 "--quiet"]) == 0
    page = html.unescape((tmp_path / "out" / "global.html").read_text())
    shortfall = ("too few benchmarks for the interval's normal approximation: 3, 1 of them "
                 "accelerated, give b·C·(1 − C) = 0.667, and it needs more than 5")
    assert f"approximate: {shortfall}" in page  # beside the interval
    assert f"whose mean is accelerated is approximate: {shortfall}." in page  # the warning

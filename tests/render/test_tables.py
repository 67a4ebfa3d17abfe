"""Markdown, CSV and LaTeX outputs."""

from __future__ import annotations

import csv
import io
import re

from speeduptest.cli import main


def run(project, formats: str, names: list[str]) -> dict[str, str]:
    rows = [project.good_pair(f"b{i}").replace(f"b{i},", f'"{name}",', 1)
            for i, name in enumerate(names)]
    config = project.config("benchmark,initial,optimized\n" + "\n".join(rows) + "\n")
    out = project.root / "out"
    main([str(config), "-o", str(out), "--format", formats, "--quiet", "--bootstrap", "500"])
    return {path.name: path.read_text() for path in out.iterdir()
            if path.name != ".speeduptest-report"}


def test_only_the_chosen_formats_are_written(project):
    files = run(project, "md,csv,tex", ["a", "b"])
    assert set(files) == {"summary.md", "results.csv", "table.tex"}


def test_csv_neutralises_formulas_and_keeps_numbers(project):
    files = run(project, "csv", ["=HYPERLINK(1)", "+1", "@SUM(A1)", "-2", "plain"])
    rows = list(csv.DictReader(io.StringIO(files["results.csv"])))
    assert [row["benchmark"] for row in rows] == ["'=HYPERLINK(1)", "'+1", "'@SUM(A1)", "'-2",
                                                   "plain"]
    for row in rows:
        assert float(row["speedup_mean"]) > 1  # numbers stay numbers
        assert row["mean_verdict"] == "significant"
        assert float(row["ci_low"]) <= float(row["speedup_mean"]) <= float(row["ci_high"])


def test_markdown_table_survives_hostile_names(project):
    files = run(project, "md", ["a|b", "<img src=x>", "**bold**"])
    text = files["summary.md"]
    table = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert len(table) == 3
    # Seven columns: benchmark, call, change, interval, P(faster), mean and median verdicts.
    assert all(line.count("|") - line.count("\\|") == 8 for line in table)
    assert not re.search(r"(?<!\\)<img", text) and "\\<img src=x\\>" in text
    assert "\\*\\*bold\\*\\*" in text
    assert "✅ faster" in text


def test_latex_escapes_special_characters(project):
    files = run(project, "tex", ["a_b & 50% #1"])
    text = files["table.tex"]
    assert r"a\_b \& 50\% \#1" in text
    assert r"\toprule" in text and r"\bottomrule" in text
    assert r"\begin{longtable}" in text and r"\end{longtable}" in text

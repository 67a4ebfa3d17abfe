"""The calls in summary.md, results.csv, table.tex and to_dataframe()."""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from pathlib import Path

import pandas as pd
import pytest

import speeduptest
from speeduptest.render.formatting import answer_sentence
from speeduptest.render.tables import (
    CSV_COLUMNS,
    render_csv,
    render_latex,
    render_markdown,
)

# Columns that hold numbers (empty where a figure does not exist).
NUMERIC = ("weight", "alpha", "n_initial", "n_optimized", "speedup_mean", "ci_low", "ci_high",
           "call_low", "call_high", "call_confidence", "threshold", "p_value_no_change",
           "p_value", "p_value_holm", "p_value_bh", "t_test_p_value", "wilcoxon_p_value",
           "ks_p_value", "shapiro_initial_p_value", "shapiro_optimized_p_value",
           "f_test_p_value", "probability_faster",
           *(f"{role}_{field}" for role in ("initial", "optimized")
             for field in ("dropped", "values_analysed", "lag1", "effective_n", "batch",
                           "order_p_value")))


def suite(project, *rows: tuple[str, float, float], broken: bool = False, n: int = 40,
          **settings) -> speeduptest.Results:
    """Benchmarks (name, mean of initial, relative noise) with optimized = initial / speedup
    given by the row's third field; optionally one benchmark whose file is missing."""
    lines = ["benchmark,initial,optimized"]
    for index, (name, speedup, noise) in enumerate(rows):
        initial = project.sample(f"s{index}-initial.txt", 10.0, n, 10.0 * noise)
        optimized = project.sample(f"s{index}-optimized.txt", 10.0 / speedup, n,
                                   10.0 / speedup * noise)
        lines.append(f"{name},{initial},{optimized}")
    if broken:
        lines.append("broken,missing.txt,s0-optimized.txt")
    config = project.config("\n".join(lines) + "\n")
    return speeduptest.analyse_config(str(config), speeduptest.Settings(bootstrap=300,
                                                                        **settings))


def renamed(results: speeduptest.Results, names: list[str]) -> speeduptest.Results:
    """The same results with other benchmark names (names a config file cannot hold)."""
    benchmarks = tuple(dataclasses.replace(b, name=name)
                       for b, name in zip(results.pair.benchmarks, names, strict=True))
    return dataclasses.replace(results, comparisons=(dataclasses.replace(
        results.pair, benchmarks=benchmarks),))


@pytest.fixture
def mixed(project) -> speeduptest.Results:
    """One benchmark of each call, and one with an error."""
    return suite(project, ("quick", 1.3, 0.01), ("sluggish", 1 / 263, 0.00001),
                 ("same", 1.0, 0.0005), ("noisy", 1.02, 0.2), broken=True)


def calls_of(results: speeduptest.Results) -> dict[str, str]:
    return {b.name: b.change.call for b in results.analysed}


def test_the_fixture_has_every_call(mixed):
    assert calls_of(mixed) == {"quick": "faster", "sluggish": "slower", "same": "unchanged",
                               "noisy": "uncertain"}


# ----------------------------------------------------------------------------- summary.md

def table_rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("| ")
            and not line.startswith("| benchmark |")]


def test_markdown_starts_with_the_answer(mixed):
    lines = render_markdown(mixed).splitlines()
    assert lines[0].startswith("### ") and lines[1] == ""
    assert lines[2] == f"*{mixed.source.short}*"  # what was compared
    assert lines[4].replace("**", "") == answer_sentence(mixed)
    assert lines[4].startswith("**")  # its key part in bold
    assert lines[6] == ("✅ 1 faster · 🔻 1 slower · ❔ 1 uncertain · ➖ 1 unchanged · "
                        "❌ 1 not analysed")


def test_markdown_rows_by_call_with_words_and_interval_header(mixed):
    text = render_markdown(mixed)
    rows = table_rows(text)
    # Slower first, then faster, the rest folded, errors last.
    assert [row.split(" | ")[0] for row in rows] == ["| sluggish", "| quick", "| noisy",
                                                     "| same", "| broken"]
    sluggish = next(row for row in rows if row.startswith("| sluggish"))
    assert sluggish.startswith("| sluggish | 🔻 slower | 263× slower | ")
    assert sluggish.endswith(" | 0% | slower | slower |")  # the reverse verdicts
    assert not re.search(r"\d×\s*\|", text.replace("263× slower", ""))  # no "0.003802×"
    confidence = mixed.analysed[0].change.confidence
    assert f"| {confidence * 100:.4g}% CI (Fieller, " in text
    assert "P(faster): the share of (initial, optimized) run pairs" in text
    assert "threshold of 1%" in text


def test_benchmarks_neither_faster_nor_slower_are_folded(mixed):
    text = render_markdown(mixed)
    folded = re.search(r"<details><summary>2 other benchmarks \(1 uncertain, 1 unchanged\)"
                       r"</summary>\n\n(.*?)\n\n</details>", text, re.S)
    assert folded is not None
    assert "| same | ➖ unchanged |" in folded.group(1)
    assert "| noisy | ❔ uncertain |" in folded.group(1)
    assert folded.group(1).startswith("| benchmark | call |")  # a table of its own
    outside = text.replace(folded.group(0), "")
    assert "| same |" not in outside and "| quick |" in outside


def test_a_summary_of_any_size_fits_in_a_pull_request_comment(mixed, monkeypatch):
    """Rows are kept while they fit, slower and faster first; a line counts the others."""
    from speeduptest.render import tables

    whole = render_markdown(mixed)
    rows = table_rows(whole)
    monkeypatch.setattr(tables, "_RESERVED", 0)
    for limit in range(len(whole), 0, -20):  # the largest limit that leaves rows out
        monkeypatch.setattr(tables, "MARKDOWN_LIMIT", limit)
        cut = render_markdown(mixed)
        if "left out" in cut:
            break
    kept = table_rows(cut)
    assert 0 < len(kept) < len(rows) and kept == rows[:len(kept)]  # the first ones
    left = re.search(r"… and (\d+) more rows? left out, to keep this summary within a "
                     r"pull-request comment", cut)
    assert left is not None and int(left.group(1)) == len(rows) - len(kept)


def test_errors_come_after_the_tables(mixed):
    text = render_markdown(mixed)
    assert text.index("</details>") < text.index("| broken | ❌ ") < text.index("<sub>")
    assert "1 benchmark could not be analysed" in text


@pytest.mark.parametrize("forged", [
    "a\n| forged | ✅ faster | x | x | x | x | x |",
    "a\r\n### Heading\r\n",
    "a\r| forged |\u2028| row |",
    "a\x0b\x0c\x1b[31m\x85</details>",
])
def test_a_line_break_in_a_name_cannot_forge_rows_or_headings(mixed, forged):
    results = renamed(mixed, [forged, "sluggish", "same", "noisy", "broken"])
    text = render_markdown(results)
    assert all(line.startswith(("|", "###", "**", "✅", "<", "⚠️", "")) for line in
               text.splitlines())
    assert sum(line.startswith("#") for line in text.splitlines()) == 1
    assert "forged" not in text or "a␤\\| forged" in text
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028]", text.replace("\n", ""))
    rows = table_rows(text)
    assert len(rows) == 5
    for row in rows[:4]:
        assert row.count("|") - row.count("\\|") == 8
    assert text.count("</details>") == 1


def test_names_do_not_ping_or_link(mixed):
    names = ["@octocat", "see https://evil.example/x", "www.example.com", "#12",
             "me@example.com"]
    text = render_markdown(renamed(mixed, names))
    for forbidden in ("@octocat", "https://", "www.", "#12", "@example.com"):
        assert forbidden not in text
    # The names still read the same: only invisible joiners were added.
    visible = text.replace("\u200d", "")
    assert "@octocat" in visible and "https://evil.example/x" in visible


# ----------------------------------------------------------------- results.csv, DataFrame

def test_csv_has_the_call_the_p_values_and_the_slowdown(mixed, tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(render_csv(mixed), encoding="utf-8")
    frame = pd.read_csv(path)
    assert list(frame.columns) == list(CSV_COLUMNS)
    for column in NUMERIC:
        assert pd.api.types.is_numeric_dtype(frame[column]), column
    rows = frame.set_index("benchmark")
    assert rows.loc["sluggish", "call"] == "slower"
    assert rows.loc["sluggish", "slowdown_mean_verdict"] == "significant"
    assert rows.loc["sluggish", "slowdown_median_verdict"] == "significant"
    assert rows.loc["sluggish", "probability_faster"] == 0
    assert rows.loc["quick", "call"] == "faster" and rows.loc["same", "call"] == "unchanged"
    assert rows.loc["quick", "call_low"] > 1.01 and rows.loc["quick", "call_method"] == "fieller"
    assert rows.loc["quick", "t_test_variant"] in ("student", "welch")
    analysed = rows.drop("broken")
    assert (analysed["p_value_holm"] >= analysed["p_value"]).all()
    assert (analysed["p_value_bh"] <= analysed["p_value_holm"] + 1e-15).all()
    assert (analysed["p_value"] == analysed["t_test_p_value"]).all()
    assert (analysed["call_confidence"] > 0.95).all()
    assert set(frame["correction"]) == {mixed.settings.correction}
    assert set(frame["threshold"]) == {0.01}
    assert pd.isna(rows.loc["broken", "call"]) and pd.isna(rows.loc["broken", "p_value"])
    assert rows.loc["broken", "status"] == "error"


def test_dataframe_has_the_same_columns_with_numbers(mixed):
    frame = mixed.to_dataframe()
    assert list(frame.columns) == list(CSV_COLUMNS)
    for column in NUMERIC:
        assert pd.api.types.is_numeric_dtype(frame[column]), column
    assert list(frame["call"][:4]) == ["faster", "slower", "unchanged", "uncertain"]


def raw_fields(text: str) -> list[list[tuple[bool, str]]]:
    """The records of a CSV text as (quoted, value) fields, newlines inside quotes kept."""
    records, fields, value, quoted, i = [], [], "", False, 0
    while i < len(text):
        character = text[i]
        if character == '"' and not value and not quoted:
            end = i + 1
            while True:
                end = text.index('"', end)
                if text[end + 1:end + 2] == '"':
                    end += 2
                    continue
                break
            value, quoted, i = text[i + 1:end].replace('""', '"'), True, end + 1
            continue
        if character in ",\n":
            fields.append((quoted, value))
            value, quoted = "", False
            if character == "\n":
                records.append(fields)
                fields = []
        else:
            value += character
        i += 1
    return records


HOSTILE = ["\r=cmd|' /C calc'!A0", " =1+1", "\t@SUM(A1)", "\n+1", "\u3000-2", "＝1"]


def test_csv_quotes_every_text_and_neutralises_formulas_after_white_space(mixed):
    results = renamed(mixed, [*HOSTILE[:4], "plain"])
    text = render_csv(results)
    records = raw_fields(text)
    assert len(records) == 6
    header = [value for _, value in records[0]]
    assert header == list(CSV_COLUMNS) and all(quoted for quoted, _ in records[0])
    for record in records[1:]:
        for name, (quoted, value) in zip(header, record, strict=True):
            if quoted:
                continue
            assert value == "" or float(value) == float(value), (name, value)
            assert name in NUMERIC or value == "" or name.endswith(("_initial", "_optimized",
                                                                   "_median", "_min",
                                                                   "_confidence")), name
    names = [row["benchmark"] for row in csv.DictReader(io.StringIO(text))]
    assert names == ["'" + name for name in HOSTILE[:4]] + ["plain"]


@pytest.mark.parametrize("name", HOSTILE)
def test_csv_injection_cases(mixed, name):
    results = renamed(mixed, [name, "b", "c", "d", "e"])
    first = next(csv.DictReader(io.StringIO(render_csv(results))))
    assert first["benchmark"] == "'" + name


def test_csv_keeps_harmless_names_as_they_are(mixed):
    names = ["a-b", "x=1", "plain name", "1.5", "e"]
    rows = list(csv.DictReader(io.StringIO(render_csv(renamed(mixed, names)))))
    assert [row["benchmark"] for row in rows] == names


# --------------------------------------------------------------------------- table.tex

def test_latex_longtable_with_geometric_mean_and_digits_that_differ(mixed):
    text = render_latex(mixed)
    assert text.startswith("% Generated by speeduptest")
    assert r"\usepackage{longtable,booktabs}" in text.splitlines()[0]
    for command in (r"\begin{longtable}", r"\endfirsthead", r"\endhead", r"\endfoot",
                    r"\endlastfoot", r"\caption{", r"\end{longtable}"):
        assert command in text, command
    assert text.index(r"\endfirsthead") < text.index(r"\endhead") < text.index("quick &")
    geometric = mixed.pair.overall.geometric_mean
    assert re.search(r"\{Geometric mean\} & \S+ & \[[0-9.]+, [0-9.]+\] &", text)
    assert f"{geometric.value:#.4g}" in text
    assert text.index("Geometric mean") < text.index("Overall (weighted)")
    assert text.index("noisy &") < text.index(r"\midrule" + "\n" + r"\multicolumn{2}")
    # Every interval prints two different ends; the 263× slowdown keeps its digits.
    intervals = re.findall(r"\[([^,\]]+), ([^\]]+)\]", text)
    assert intervals and all(low != high for low, high in intervals)
    assert "[0.004, 0.004]" not in text and "0.0038" in text
    sluggish = next(line for line in text.splitlines() if line.startswith("sluggish &"))
    assert sluggish.startswith("sluggish & slower & 0.0038")
    assert sluggish.endswith("& slower & slower \\\\")
    confidence = mixed.analysed[0].change.confidence
    caption = text[text.index(r"\caption{"):text.index(r"\label")]
    assert f"{confidence * 100:.4g}\\%" in caption and "threshold of 1\\%" in caption
    assert "corrected" in caption
    assert "broken" not in text  # errors are not rows of a paper's table


def test_latex_rows_are_ordered_by_call(mixed):
    text = render_latex(mixed)
    rows = [line.split(" & ")[0] for line in text.splitlines()
            if line.endswith("\\\\") and " & " in line and not line.startswith(("Benchmark",
                                                                                 "\\"))]
    assert rows == ["quick", "sluggish", "noisy", "same"]


def test_latex_control_characters_in_names(mixed):
    text = render_latex(renamed(mixed, ["a\n\nb\r", "b", "c", "d", "e"]))
    assert "a  b " in text and "\n\n" not in text


def test_summary_of_5000_benchmarks_fits_in_a_github_comment(tmp_path):
    """A GitHub comment holds 65,536 characters."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from throughput import make_config

    config = make_config(tmp_path, 5000, 12)
    text = render_markdown(speeduptest.analyse_config(config, speeduptest.Settings()))
    assert len(text) < 65_536
    assert re.search(r"… and \d+ more rows left out", text)
    calls = [row.split(" | ")[1] for row in table_rows(text)]
    slower = [i for i, call in enumerate(calls) if "slower" in call]
    faster = [i for i, call in enumerate(calls) if "faster" in call]
    assert slower and all(i > max(slower) for i in faster)  # slower ones first

"""The HTML and PDF reports, read as a user (and pdftotext) would."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pypdf
import pytest
from markupsafe import escape

from speeduptest.cli import main

ROOT = Path(__file__).resolve().parents[2]
EVIL = "<script>alert(1)</script>"
REPORTS = ("global", "benchmarks", "warnings", "errors")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, dict]:
    """A run with a speedup, a slowdown, a hostile name and a broken benchmark."""
    from conftest import Project

    project = Project(tmp_path_factory.mktemp("reports"))
    rows = [project.good_pair("fast"), project.good_pair("slow").replace(
                "slow-initial.txt", "TMP").replace("slow-optimized.txt", "slow-initial.txt")
                .replace("TMP", "slow-optimized.txt"),
            project.good_pair("evil").replace("evil,", f'"{EVIL}",', 1),
            "broken,missing.txt,fast-optimized.txt"]
    config = project.config("benchmark,initial,optimized\n" + "\n".join(rows) + "\n")
    out = project.root / "out"
    assert main([str(config), "-o", str(out), "--quiet"]) == 1
    return out, json.loads((out / "results.json").read_text())


def test_all_files_are_written_and_nothing_else(report):
    out, _ = report
    expected = {f"{name}.{ext}" for name in REPORTS for ext in ("html", "pdf")}
    assert {p.name for p in out.iterdir()} == expected | {"results.json", ".speeduptest-report"}


def test_html_has_every_benchmark_and_verdict(report):
    out, data = report
    page = (out / "global.html").read_text()
    details = (out / "benchmarks.html").read_text()
    for benchmark in data["benchmarks"]:
        name = str(escape(benchmark["name"]))
        assert name in page and name in details
        if benchmark["status"] == "ok":
            for tree in ("mean", "median"):
                reverse = benchmark["slowdown"][tree]
                if reverse["verdict"] == "significant":  # shown as "slower", with why
                    assert '<span class="verdict slower">slower</span>' in page
                    assert str(escape(reverse["reason"])) in page
                else:
                    label = benchmark[tree]["verdict"].replace("_", " ")
                    assert label in page
                    assert str(escape(benchmark[tree]["reason"])) in page
                # The per-benchmark page keeps both directions' verdicts and reasons.
                assert str(escape(benchmark[tree]["reason"])) in details
                assert str(escape(reverse["reason"])) in details
                for step in benchmark[tree]["steps"]:
                    assert str(escape(step)) in details


def test_user_strings_are_escaped(report):
    out, _ = report
    for name in REPORTS:
        text = (out / f"{name}.html").read_text()
        assert EVIL not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "global.html").read_text()


def test_html_is_self_contained(report):
    out, _ = report
    for name in REPORTS:
        text = (out / f"{name}.html").read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), name
        assert "<link" not in text and "@import" not in text
        # One script, inline, in the global report only: its table's sorting and filtering
        # (templates/table.js), which loads nothing.
        assert text.count("<script") == (name == "global"), name
        assert not re.search(r"<script[^>]*\bsrc", text)
        assert not re.search(r"\b(fetch|XMLHttpRequest|import)\s*\(", text)
        assert '<meta name="viewport"' in text


def test_errors_report_names_file_and_line(report):
    out, _ = report
    text = (out / "errors.html").read_text()
    assert "broken" in text and "config.csv:5" in text and "not found" in text


def test_warnings_report_has_reason_and_advice(report):
    out, data = report
    text = (out / "warnings.html").read_text()
    slow = next(b for b in data["benchmarks"] if b["name"] == "slow")
    for detail in slow["warning_details"]:
        assert str(escape(detail["message"])) in text
        assert str(escape(detail["advice"])) in text


def test_errors_report_says_when_there_is_none(tmp_path):
    config = ROOT / "samples" / "trufflesom-splitting" / "config.csv"
    assert main([str(config), "-o", str(tmp_path), "--quiet", "--format", "html"]) == 0
    assert "No errors" in (tmp_path / "errors.html").read_text()
    assert {p.name for p in tmp_path.iterdir()} == {f"{n}.html" for n in REPORTS} | {
        ".speeduptest-report"}


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
def test_pdf_text_has_names_and_overall_figures(report):
    out, data = report
    texts = {name: subprocess.run(["pdftotext", "-layout", str(out / f"{name}.pdf"), "-"],
                                  capture_output=True, text=True, check=True).stdout
             for name in REPORTS}
    for benchmark in data["benchmarks"]:
        assert benchmark["name"] in texts["benchmarks"]
    for name in ("fast", "slow", "broken"):
        assert name in texts["global"]
    overall = data["overall"]
    assert f"{overall['mean']['speedup']:.4g}×" in texts["global"]
    assert f"{overall['median']['speedup']:.4g}×" in texts["global"]
    low, high = overall["mean"]["ci"]
    assert f"[{low * 100:.1f}%, {high * 100:.1f}%]" in texts["global"]
    assert "drawn at random" in texts["global"]
    for name in REPORTS:
        pages = len(pypdf.PdfReader(out / f"{name}.pdf").pages)
        if name == "benchmarks":  # the index is numbered on its own, then one page each
            assert "index page 1 of 1" in texts[name]
            pages -= 1
        assert f"page {pages} of {pages}" in texts[name]


def test_pdf_has_one_bookmark_per_benchmark_grouped_by_call(report):
    out, data = report
    reader = pypdf.PdfReader(out / "benchmarks.pdf")
    outline = reader.outline
    assert outline[0].title == "Index" and reader.get_destination_page_number(outline[0]) == 0
    groups = [(item.title, outline[position + 1]) for position, item in enumerate(outline)
              if not isinstance(item, list) and position + 1 < len(outline)
              and isinstance(outline[position + 1], list)]
    calls = [b["change"]["call"] if b["status"] == "ok" else "errors" for b in data["benchmarks"]]
    assert [title for title, _ in groups] == [
        f"{call} ({calls.count(call)})" for call in
        ("faster", "slower", "uncertain", "unchanged", "errors") if call in calls]
    titles = [child.title for _, children in groups for child in children]
    assert sorted(titles) == sorted(b["name"] for b in data["benchmarks"])
    for _, children in groups:  # each opens the page its benchmark starts on
        for child in children:
            page = reader.pages[reader.get_destination_page_number(child)]
            assert child.title in [line.strip() for line in page.extract_text().splitlines()]


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
def test_pdf_index_gives_each_benchmark_its_page(report):
    out, data = report
    index = subprocess.run(["pdftotext", "-layout", "-f", "1", "-l", "1",
                            str(out / "benchmarks.pdf"), "-"],
                           capture_output=True, text=True, check=True).stdout
    for number, benchmark in enumerate(data["benchmarks"], start=1):
        call = benchmark["change"]["call"] if benchmark["status"] == "ok" else "error"
        row = next(line for line in index.splitlines() if call in line and line.split()[-1]
                   == str(number))
        assert row.split()[0] in benchmark["name"]  # names start the row (they may wrap)
        page = subprocess.run(["pdftotext", "-f", str(number + 1), "-l", str(number + 1),
                               str(out / "benchmarks.pdf"), "-"],
                              capture_output=True, text=True, check=True).stdout
        assert benchmark["name"] in page and f"page {number} of" in page


def test_pdf_pages_are_a4(report):
    out, _ = report
    for name in REPORTS:
        for page in pypdf.PdfReader(out / f"{name}.pdf").pages:
            assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (
                595, 842)


def test_templates_compute_nothing():
    """Every number comes from the results model: no arithmetic in template expressions."""
    for template in (ROOT / "templates").glob("*.html"):
        # [-+]? are jinja's whitespace controls, not arithmetic.
        for expression in re.findall(r"{[{%][-+]?(.*?)[-+]?[%}]}", template.read_text(), re.S):
            code = re.sub(r"(['\"]).*?\1", "", expression)  # ignore string literals
            assert not re.search(r"(?<![<>=!])[-+*/%](?!=)|\bsum\b|\bmean\b\(", code), (
                template.name, expression)

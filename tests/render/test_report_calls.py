"""The call in the HTML and PDF reports: the answer first, every benchmark in the forest plot,
badges, grouped warnings, words instead of unreadable numbers."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pytest
from markupsafe import escape

from speeduptest.cli import main
from speeduptest.render import formatting

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ("global", "benchmarks", "warnings", "errors")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                   reason="needs poppler-utils")


def write(path: Path, values) -> str:
    path.write_text("\n".join(repr(float(v)) for v in values) + "\n", encoding="utf-8")
    return path.name


def pdf_text(path: Path, page: int | None = None) -> str:
    pages = ["-f", str(page), "-l", str(page)] if page else []
    return subprocess.run(["pdftotext", *pages, str(path), "-"], capture_output=True,
                          text=True, check=True).stdout


def flat(text: str) -> str:
    """Text with every run of white space as one space (lines wrap in a PDF)."""
    return re.sub(r"\s+", " ", text).strip()


def svgs(html: str, kind: str) -> list[str]:
    """The SVG documents of the <img class="kind"> of a report."""
    return [unquote(uri) for uri in re.findall(
        rf'<img class="{kind}" src="data:image/svg\+xml,([^"]+)"', html)]


def svg_texts(svg: str) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", svg)


@pytest.fixture(scope="module")
def example(tmp_path_factory) -> tuple[Path, dict]:
    """The bundled example (11 benchmarks: faster, slower, unchanged and uncertain ones)."""
    out = tmp_path_factory.mktemp("example")
    assert main([str(ROOT / "config.example.csv"), "-o", str(out), "--quiet",
                 "--warmup", "none", "--dependence", "ignore"]) == 0
    return out, json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def hundred(tmp_path_factory) -> tuple[Path, dict]:
    """100 benchmarks (HTML and JSON): more than one page of forest plot."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from throughput import make_config
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    folder = tmp_path_factory.mktemp("hundred")
    config = make_config(folder, 100, 31)
    out = folder / "out"
    assert main([str(config), "-o", str(out), "--quiet", "--format", "html,json"]) == 0
    return out, json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def odd(tmp_path_factory) -> tuple[Path, dict]:
    """A 12× slowdown, a name that looks like math text, a benchmark with errors."""
    folder = tmp_path_factory.mktemp("odd")
    rng = np.random.default_rng(7)
    rows = ["benchmark,initial,optimized"]
    for name, initial, optimized in (("$a$b$", 10.0, 8.0), ("much-slower", 1.0, 12.2),
                                     ("same", 5.0, 5.0)):
        safe = f"b{len(rows)}"
        rows.append(f'"{name}",{write(folder / f"{safe}-i.txt", rng.normal(initial, 0.02, 31))},'
                    f'{write(folder / f"{safe}-o.txt", rng.normal(optimized, 0.02, 31))}')
    rows.append("broken,missing.txt,missing.txt")
    (folder / "config.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = folder / "out"
    assert main([str(folder / "config.csv"), "-o", str(out), "--quiet",
                 "--format", "html,pdf,json"]) == 1
    return out, json.loads((out / "results.json").read_text())


# ---------------------------------------------------------------- page 1: the answer first


def test_global_html_leads_with_answer_counts_and_forest(example):
    out, data = example
    page = (out / "global.html").read_text()
    answer = page.index('<p class="answer">')
    counts = page.index('<table class="calls">')
    forest = page.index('<img class="forest"')
    protocol = page.index("Speedup-Test protocol figures")
    table = page.index("<h2>All benchmarks</h2>")
    assert answer < counts < forest < protocol < table
    assert page.index("Overall speedup and accelerated benchmarks") > forest
    calls = data["overall"]["calls"]
    counted = re.findall(r'<td class="count">(\d+)</td>', page)
    assert [int(n) for n in counted[:4]] == [calls[c] for c in
                                             ("faster", "slower", "unchanged", "uncertain")]


@needs_poppler
def test_pdf_page_1_has_the_sentence_the_counts_and_the_forest_plot(example):
    out, data = example
    page = (out / "global.html").read_text()
    sentence = re.search(r'<p class="answer">(.*?)</p>', page, re.S).group(1)
    first = flat(pdf_text(out / "global.pdf", 1))
    assert flat(html.unescape(sentence)) in first  # (the sentence has "this suite's")
    calls = data["overall"]["calls"]
    counts = " ".join(str(calls[c]) for c in ("faster", "slower", "unchanged", "uncertain"))
    assert f"FASTER SLOWER UNCHANGED UNCERTAIN {counts}" in first
    correction = {"bonferroni": "Bonferroni-corrected", "fcr": "FCR-corrected",
                  "none": "not corrected"}[data["overall"]["correction"]]
    assert "threshold ±1%" in first and correction in first
    # The forest plot starts on page 1: its names and its axis label are there.
    assert "geometric mean" in first and "corrected interval of its call" in first
    for benchmark in data["benchmarks"]:
        assert benchmark["name"] in first


@needs_poppler
def test_nothing_is_drawn_outside_the_text_area(example):
    """No word of the global report runs into the margins (figures and tables fit A4)."""
    out, _ = example
    xml = subprocess.run(["pdftotext", "-bbox", str(out / "global.pdf"), "-"],
                         capture_output=True, text=True, check=True).stdout
    mm = 72 / 25.4
    for page in re.findall(r"<page (.*?)</page>", xml, re.S):
        width = float(re.search(r'width="([\d.]+)"', page).group(1))
        height = float(re.search(r'height="([\d.]+)"', page).group(1))
        for x0, y0, x1, y1, word in re.findall(
                r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">'
                r"(.*?)</word>", page):
            if float(y0) > height - 15 * mm:  # the page number, in the bottom margin
                continue
            assert 13 * mm - 1 <= float(x0) and float(x1) <= width - 13 * mm + 1, word
            assert float(y1) <= height - 15 * mm + 1, word


# ---------------------------------------------------------------- the forest plot


def test_forest_plot_shows_every_benchmark_in_page_sized_figures(hundred):
    out, data = hundred
    page = (out / "global.html").read_text()
    parts = svgs(page, "forest")
    assert len(parts) >= 3  # 100 benchmarks and the geometric mean: never one tall figure
    shown = [text for svg in parts for text in svg_texts(svg)]
    names = [b["name"] for b in data["benchmarks"]]
    for name in names:
        assert shown.count(name) == 1, name
    # In every legend, and as the last row of the last figure.
    assert [svg_texts(svg).count("geometric mean") for svg in parts] == [1] * (
        len(parts) - 1) + [2]
    for svg in parts:
        height = float(re.search(r'<svg[^>]* height="([\d.]+)pt"', svg).group(1))
        width = float(re.search(r'<svg[^>]* width="([\d.]+)pt"', svg).group(1))
        # Scaled to the A4 text width (184 mm), it stays shorter than the text area.
        assert height * (184 / 25.4 * 72) / width < 266 / 25.4 * 72
    # Same axis in every figure: the same tick labels.
    ticks = {tuple(t for t in svg_texts(svg) if re.fullmatch(r"[\d.]+", t)) for svg in parts}
    assert len(ticks) == 1
    assert "Benchmarks 1–" in page  # each figure says which benchmarks it shows


def test_forest_plot_rows_are_coloured_by_call(example):
    from speeduptest.render.figures import CALL_COLOURS

    out, data = example
    svg = svgs((out / "global.html").read_text(), "forest")[0]
    for call in {b["change"]["call"] for b in data["benchmarks"]}:
        assert CALL_COLOURS[call].lower() in svg.lower()


def test_names_are_drawn_literally(odd):
    out, _ = odd
    page = (out / "global.html").read_text()
    for kind in ("forest", "overview"):
        texts = [t for svg in svgs(page, kind) for t in svg_texts(svg)]
        assert "$a$b$" in texts, kind
    if shutil.which("pdftotext"):
        assert "$a$b$" in pdf_text(out / "global.pdf", 1)


# ---------------------------------------------------------------- badges and the table


def _row(page: str, name: str) -> str:
    """The row of the "All benchmarks" table of a benchmark."""
    table = page[page.index('<table class="summary">'):]
    table = table[:table.index("</table>")]
    return next(row for row in table.split("<tr") if f">{escape(name)}</a>" in row)


def test_slower_benchmark_has_the_slower_badges(example):
    out, data = example
    page = (out / "global.html").read_text()
    slower = [b for b in data["benchmarks"] if b["change"]["call"] == "slower"]
    assert slower
    for benchmark in slower:
        row = _row(page, benchmark["name"])
        assert '<span class="call slower">slower</span>' in row
        if benchmark["slowdown"]["mean"]["verdict"] == "significant":
            assert '<span class="verdict slower">slower</span>' in row
            assert "not significant" not in row
        assert formatting.change(benchmark["speedup"]["mean"]) in row
        assert "slower" in formatting.change(benchmark["speedup"]["mean"])
    for benchmark in data["benchmarks"]:
        call = benchmark["change"]["call"]
        assert f'<span class="call {call}">{call}</span>' in _row(page, benchmark["name"])


def test_table_is_in_call_order_with_interval_header_and_adjusted_p(example):
    out, data = example
    page = (out / "global.html").read_text()
    table = page[page.index('<table class="summary">'):]
    order = [json_name for json_name in re.findall(r'#benchmark-\d+">([^<]+)</a>', table)]
    calls = {b["name"]: b["change"]["call"] for b in data["benchmarks"]}
    ranks = [("faster", "slower", "uncertain", "unchanged").index(calls[n]) for n in order]
    assert ranks == sorted(ranks) and len(order) == len(data["benchmarks"])
    change = data["benchmarks"][0]["change"]
    method = {"fieller": "Fieller", "bootstrap": "bootstrap"}[change["interval"]["method"]]
    assert f"{formatting.level(change['interval']['confidence'])} CI ({method}, " in table
    assert re.search(r"t-test p = [\d.e-]+ \(Holm [\d.e-]+, BH [\d.e-]+\)", table)
    assert "%</td>" in table  # P(faster) as a percentage


def test_large_slowdown_reads_as_words(odd):
    out, data = odd
    page = (out / "global.html").read_text()
    benchmark = next(b for b in data["benchmarks"] if b["name"] == "much-slower")
    words = formatting.change(benchmark["speedup"]["mean"])
    assert re.fullmatch(r"12\.\d× slower", words)
    assert words in _row(page, "much-slower")
    shown = re.sub(r'src="data:[^"]*"', "", page)  # figures' data URIs hold %-escapes
    assert not re.search(r"\d{4}\.\d%", shown)  # no "gain −1117.8%" anywhere
    assert f"{benchmark['speedup']['mean']:.4g}×" in _row(page, "much-slower")


def test_gain_filter():
    assert formatting.gain(-11.178, 1 / 12.178) == "12.2× slower"
    assert formatting.gain(1 - 1 / 1.124, 1.124) == "+11.0%"
    assert formatting.gain(-0.124, 1 / 1.124) == "−12.4%"
    assert formatting.gain(None, None) == "—"


def test_benchmark_page_leads_with_the_call(example):
    out, data = example
    details = (out / "benchmarks.html").read_text()
    for index, benchmark in enumerate(data["benchmarks"], start=1):
        section = details[details.index(f'id="benchmark-{index}"'):]
        section = section[:section.index("</section>")]
        call = benchmark["change"]["call"]
        lead = section.index(f'<span class="call {call}">{call}</span>')
        assert lead < section.index("Speedup-Test verdicts") < section.index("<table")
        assert formatting.change(benchmark["speedup"]["mean"]) in section
        assert str(escape(benchmark["change"]["reason"])) in section
        assert f"Faster in {benchmark['probability_faster'] * 100:.0f}% of run pairs" in section
        reverse = benchmark["slowdown"]["mean"]
        assert "Reversed" in section
        # The reverse run's reasons speak of its own roles ("slower" would mean faster):
        # shown only where they read the same for the user.
        assert (str(escape(reverse["reason"])) in section) == (
            reverse["verdict"] != "not_significant"
            or reverse["reason"] == benchmark["mean"]["reason"])
        assert str(escape(benchmark["mean"]["reason"])) in section


# ---------------------------------------------------------------- warnings and wording


def test_warnings_are_grouped_by_kind(hundred):
    out, data = hundred
    page = (out / "warnings.html").read_text()
    codes: dict[str, set[str]] = {}
    for benchmark in data["benchmarks"]:
        for detail in benchmark["warning_details"]:
            codes.setdefault(detail["code"], set()).add(benchmark["name"])
    sections = page.count('<section class="warned notice-group">')
    assert sections == len(codes)
    for names in codes.values():
        count = len(names)
        assert f"— {count} benchmark{'' if count == 1 else 's'}</h2>" in page


def test_no_plural_mistakes(odd, example):
    for out, _ in (odd, example):
        for name in REPORTS:
            text = (out / f"{name}.html").read_text()
            assert not re.search(r"\b1 benchmarks\b|processs|\b1 warnings\b", text), name


def test_tables_scroll_inside_their_wrapper_on_small_screens(example):
    out, _ = example
    page = (out / "global.html").read_text()
    for kind in ("calls", "aggregate", "overall", "summary"):
        start = page.index(f'<table class="{kind}">')
        assert page.rfind('<div class="table-wrap">', 0, start) > page.rfind("</div>", 0, start)
    assert ".table-wrap { overflow-x: auto; }" in page


# ---------------------------------------------------------------- running title


def test_compare_report_title_names_the_versions_by_their_folders(tmp_path):
    """Same-named files are named by their folders, in the title as in the answer."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        shutil.copy(ROOT / "tests/data/tools/pyperf/initial.json",
                    tmp_path / folder / "results.json")
    out = tmp_path / "out"
    main(["compare", str(tmp_path / "a/results.json"), str(tmp_path / "b/results.json"),
          "-o", str(out), "--quiet", "--format", "html"])
    page = (out / "global.html").read_text()
    assert "a vs b" in re.search(r'<div class="running-title">(.*?)</div>', page).group(1)

"""Reports of many benchmarks: laid out in parts (in parallel, each in bounded memory) and
joined; the per-benchmark PDF with an index, one page per benchmark and bookmarks grouped by
call; the global report complete across its parts. Parts are made small here so that a few
dozen benchmarks exercise what thousands would."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pypdf
import pytest

from speeduptest.cli import main
from speeduptest.render import figures, html
from speeduptest.render import formats as reports
from speeduptest.runtime.parallel import shared_worker_pool

ROOT = Path(__file__).resolve().parents[2]
COUNT = 45
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                   reason="needs poppler-utils")


def pdf_pages(path: Path) -> list[str]:
    """The text of every page (pdftotext; pypdf when poppler is missing)."""
    if shutil.which("pdftotext") is None:
        return [page.extract_text() for page in pypdf.PdfReader(path).pages]
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                          text=True, check=True).stdout
    return text.split("\f")[:-1]


@pytest.fixture(scope="module")
def many(tmp_path_factory) -> tuple[Path, dict, Path]:
    """45 benchmarks laid out in parts of 7 benchmarks, of 10 rows of the global table and of
    20 rows of the index."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from throughput import make_config
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    folder = tmp_path_factory.mktemp("many")
    config = make_config(folder, COUNT, 12)
    out = folder / "out"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reports, "PART_SIZE", 7)
        patch.setattr(reports, "GLOBAL_ROWS", 10)
        patch.setattr(reports, "INDEX_ROWS", 20)
        assert main([str(config), "-o", str(out), "--quiet"]) == 0
    return out, json.loads((out / "results.json").read_text()), config


def test_every_benchmark_has_its_own_page_after_the_index(many):
    out, data, _ = many
    pages = pdf_pages(out / "benchmarks.pdf")
    names = [b["name"] for b in data["benchmarks"]]
    front = len(pages) - len(names)
    assert front >= 1
    for number, page in enumerate(pages[:front], start=1):
        assert f"index page {number} of {front}" in page
    for number, (name, page) in enumerate(zip(names, pages[front:], strict=True), start=1):
        lines = [line.strip() for line in page.splitlines()]
        assert name in lines  # its heading
        assert [other for other in names if other in lines] == [name]
        assert f"page {number} of {len(names)}" in page


def test_the_index_gives_every_benchmark_its_call_change_and_page(many):
    out, data, _ = many
    pages = pdf_pages(out / "benchmarks.pdf")
    front = len(pages) - len(data["benchmarks"])
    rows = [line.split() for page in pages[:front] for line in page.splitlines()]
    for number, benchmark in enumerate(data["benchmarks"], start=1):
        row = next(row for row in rows if row and row[0] == benchmark["name"])
        assert row[1] == benchmark["change"]["call"] and row[-1] == str(number)


def test_the_viewer_numbers_pages_as_they_are_printed(many):
    out, data, _ = many
    reader = pypdf.PdfReader(out / "benchmarks.pdf")
    front = len(reader.pages) - len(data["benchmarks"])
    assert reader.page_labels[:front] == [f"index {n}" for n in range(1, front + 1)]
    assert reader.page_labels[front:] == [str(n) for n in range(1, len(data["benchmarks"]) + 1)]


def test_bookmarks_are_grouped_by_call_and_open_each_benchmarks_page(many):
    out, data, _ = many
    reader = pypdf.PdfReader(out / "benchmarks.pdf")
    front = len(reader.pages) - len(data["benchmarks"])
    pages = {b["name"]: front + number for number, b in enumerate(data["benchmarks"])}
    outline = reader.outline
    assert outline[0].title == "Index"
    seen = []
    for title, children in zip(outline[1::2], outline[2::2], strict=True):
        call, count = re.fullmatch(r"(\w+) \((\d+)\)", title.title).groups()
        assert int(count) == len(children)
        for child in children:
            benchmark = next(b for b in data["benchmarks"] if b["name"] == child.title)
            assert benchmark["change"]["call"] == call
            assert reader.get_destination_page_number(child) == pages[child.title]
            seen.append(child.title)
        changes = [abs(np.log(next(b["speedup"]["mean"] for b in data["benchmarks"]
                                   if b["name"] == child.title))) for child in children]
        assert changes == sorted(changes, reverse=True)  # the largest change first
    assert sorted(seen) == sorted(pages)


def test_no_page_is_blank_and_numbers_run_through_the_parts(many):
    out, *_ = many
    for name in ("global", "benchmarks", "warnings", "errors"):
        pages = pdf_pages(out / f"{name}.pdf")
        for page in pages:
            content = [line for line in page.splitlines() if line.strip()
                       and "speeduptest ·" not in line and not re.search(r"page \d+ of", line)]
            assert content, name
        if name != "benchmarks":
            assert [re.search(r"page (\d+) of (\d+)", page).groups() for page in pages] == [
                (str(n), str(len(pages))) for n in range(1, len(pages) + 1)]


def test_the_global_table_lists_every_benchmark_once_across_its_parts(many):
    out, data, _ = many
    pages = pdf_pages(out / "global.pdf")
    start = next(i for i, page in enumerate(pages) if "All benchmarks" in page)
    rows = [line.split()[0] for page in pages[start:] for line in page.splitlines()
            if re.match(r"\s*b\d+\s", line)]
    assert sorted(rows) == sorted(b["name"] for b in data["benchmarks"])
    assert sum("In the order of their call" in page for page in pages) == 1  # the note
    html_page = (out / "global.html").read_text()
    assert html_page.count('<table class="summary">') == 1  # the HTML in one piece


def test_the_html_index_links_every_benchmark(many):
    out, data, _ = many
    page = (out / "benchmarks.html").read_text()
    index = page[page.index('<table class="index">'):page.index("</table>")]
    for number, benchmark in enumerate(data["benchmarks"], start=1):
        assert f'<a href="#benchmark-{number}">{benchmark["name"]}</a>' in index
        assert f'id="benchmark-{number}"' in page


# ---------------------------------------------------------------- the pieces


def _tagged(shared: str, item: int) -> tuple[str, int]:
    return shared, item * item


@pytest.mark.parametrize("workers", [1, 2])
def test_shared_worker_pool_gives_every_task_the_shared_object(workers):
    with shared_worker_pool(workers, "results") as parallel_map:
        outputs = sorted(parallel_map(_tagged, range(10)))
    assert outputs == [("results", n * n) for n in range(10)]


def test_a_grid_aligns_its_columns_in_monospaced_lines():
    grid = html.Grid(("Test", "p-value", "at α"), (("F-test", "0.0192", "rejects H0"),
                                                    ("Student's t", "< 1e-300", "no")),
                     (False, True, False), frozenset({1}))
    lines = unescape(re.sub(r"<[^>]+>", "", str(grid.lines()))).splitlines()
    assert lines == ["Test          p-value  at α",
                     "F-test         0.0192  rejects H0",
                     "Student's t  < 1e-300  no"]
    assert '<span class="unused">' in str(grid.lines()).splitlines()[2]


def test_placed_text_is_where_anchored_text_would_be():
    anchored, placed = figures.Canvas(100, 20), figures.Canvas(100, 20, placed=True)
    for canvas in (anchored, placed):
        canvas.text(80, 10, "optimized", anchor="end")
        canvas.text(50, 10, "0.5", anchor="middle")
    assert 'text-anchor="end"' in anchored.svg() and "text-anchor" not in placed.svg()
    xs = [float(x) for x in re.findall(r'<text x="([\d.]+)"', placed.svg())]
    assert xs[0] == pytest.approx(80 - figures.text_width("optimized"), abs=0.01)
    assert xs[1] == pytest.approx(50 - figures.text_width("0.5") / 2, abs=0.01)


def test_pdf_figures_have_no_groups_for_weasyprint_to_make(many):
    """No centred text, no opacity: weasyprint would make each a transparency group. The
    axes are named by the caption."""
    from speeduptest.analysis.run import analyse_config
    from speeduptest.model.results import Settings

    *_, config = many
    results = analyse_config(config, Settings(bootstrap=100))
    for uri in html.draw_distributions(results, range(5), placed=True).values():
        svg = unquote(uri.removeprefix("data:image/svg+xml,"))
        assert "opacity" not in svg and "text-anchor" not in svg
        assert "execution time" not in svg
    assert figures.blend("#4C72B0", 0.6) == "#94AAD0"


def test_data_uris_hold_no_character_an_attribute_or_uri_cannot():
    svg = '<svg a="1"><text># 100% &amp; \'µ\' &lt;</text></svg>'
    uri = html._data_uri(svg)
    assert uri.startswith("data:image/svg+xml,")
    assert not any(character in uri for character in "\"'<>#&")
    assert unquote(uri.removeprefix("data:image/svg+xml,")) == svg


def test_a_benchmark_longer_than_a_page_moves_the_index_pages_of_the_next(tmp_path,
                                                                         monkeypatch):
    """The index is first laid out with one page per benchmark, and again when some
    benchmark took more (here a heading that is not cut: names are, in the reports)."""
    from speeduptest.render import formatting

    monkeypatch.setattr(formatting, "LONG_WIDTH", 100_000)
    rng = np.random.default_rng(3)
    long_name = " ".join(f"word{i}" for i in range(900))  # a heading of two pages
    rows = ["benchmark,initial,optimized"]
    for number, name in enumerate(("first", long_name, "third")):
        for side, mean in (("i", 1.0), ("o", 0.9)):
            (tmp_path / f"{number}{side}.txt").write_text(
                "\n".join(str(v) for v in rng.normal(mean, 0.01, 12)))
        rows.append(f'"{name}",{number}i.txt,{number}o.txt')
    (tmp_path / "config.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    assert main([str(tmp_path / "config.csv"), "-o", str(out), "--quiet",
                 "--format", "pdf"]) == 0
    pages = pdf_pages(out / "benchmarks.pdf")
    front = sum("index page" in page for page in pages)
    assert len(pages) - front > 3
    index = [line.split() for page in pages[:front] for line in page.splitlines()]
    third = next(row for row in index if row and row[0] == "third")
    assert third[-1] == str(len(pages) - front)  # its page, after the long one's
    assert "third" in pages[-1].split()


@needs_poppler
def test_nothing_runs_into_the_margins_of_a_benchmark_page(many):
    """The monospaced tables and the figure fit the A4 text area."""
    out, *_ = many
    xml = subprocess.run(["pdftotext", "-bbox", str(out / "benchmarks.pdf"), "-"],
                         capture_output=True, text=True, check=True).stdout
    mm = 72 / 25.4
    for page in re.findall(r"<page (.*?)</page>", xml, re.S):
        width = float(re.search(r'width="([\d.]+)"', page).group(1))
        for x0, x1, word in re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" '
                                       r'xMax="([\d.]+)" yMax="[\d.]+">(.*?)</word>', page):
            assert 13 * mm - 1 <= float(x0) and float(x1) <= width - 13 * mm + 1, word


@pytest.mark.parametrize(("long", "parts"), [(3, 32), (0, 5), (5, 2), (1, 0)])
def test_long_tasks_start_early_and_every_task_once(long, parts):
    """The global table's parts are spread over the first half of the benchmarks' parts."""
    first, last = [reports._Task("first")], [reports._Task("last")]
    longs = [reports._Task(f"long{i}") for i in range(long)]
    benchmarks = [reports._Task("benchmarks", (i,)) for i in range(parts)]
    order = reports._schedule(first, longs, benchmarks, last)
    assert sorted(order, key=repr) == sorted(first + longs + benchmarks + last, key=repr)
    assert order[0] == first[0] and order[-1] == last[0]
    if parts >= 2 * long:
        assert all(order.index(task) < len(order) // 2 + 1 for task in longs)

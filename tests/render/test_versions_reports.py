"""The HTML and PDF reports of several versions: the answer and the figure on page 1, every
benchmark's page, nothing computed in the templates (tests/render/test_reports.py checks every
template), user strings escaped."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest

from speeduptest.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("versions-report")
    status = main([str(ROOT / "samples" / "compiler-flags" / "flags.csv"), "--baseline", "O0",
                   "-o", str(out), "--quiet", "--bootstrap", "200"])
    assert status == 0
    return out


def _text(path: Path) -> list[str]:
    reader = pypdf.PdfReader(io.BytesIO(path.read_bytes()))
    return [" ".join(page.extract_text().split()) for page in reader.pages]


def test_all_report_files_are_written(report):
    expected = [f"{name}.{ext}" for name in ("global", "benchmarks", "warnings", "errors")
                for ext in ("html", "pdf")]
    assert sorted(p.name for p in report.iterdir()) == sorted(
        [*expected, "results.json", ".speeduptest-report"])


def test_page_1_answers_with_a_sentence_a_figure_and_the_matrix(report):
    page = _text(report / "global.pdf")[0]
    assert "O3-native is the fastest of 3 versions: 5.3% faster than the next best, O2" in page
    assert "speedup over the baseline O0" in page and "the best's speedup over it" in page
    assert "Ranking" in page and "Every benchmark" in page
    html = (report / "global.html").read_text()
    assert html.count('<img class="forest"') == 1 and "data:image/svg+xml;base64," in html
    assert "http" not in html.replace("http://www.w3.org", "")  # self-contained


def test_every_benchmark_has_its_page(report):
    pages = _text(report / "benchmarks.pdf")
    text = " ".join(pages)
    for kernel in ("collatz", "crc32", "dotprod", "linkedlist", "stencil"):
        assert kernel in text
    assert text.count("All versions together:") == 11
    reader = pypdf.PdfReader(io.BytesIO((report / "benchmarks.pdf").read_bytes()))
    assert len(reader.outline) == 11  # one bookmark per benchmark
    assert all(page.mediabox.width == pytest.approx(595.3, abs=1) for page in reader.pages)


def test_names_are_escaped(tmp_path):
    flags = ROOT / "samples" / "compiler-flags"
    versions = ["<b>O0</b>", "O2 & co", "O3-native"]
    folders = ["O0", "O2", "O3-native"]
    (tmp_path / "c.csv").write_text(
        "benchmark," + ",".join(f'"{v}"' for v in versions) + "\n"
        + "<script>x</script>," + ",".join(str(flags / f / "sieve.txt") for f in folders)
        + "\n")
    status = main([str(tmp_path / "c.csv"), "--baseline", "<b>O0</b>", "-o",
                   str(tmp_path / "out"), "--format", "html", "--quiet", "--bootstrap", "100"])
    assert status == 0
    for name in ("global", "benchmarks"):
        html = (tmp_path / "out" / f"{name}.html").read_text()
        assert "<script>x" not in html and "<b>O0</b>" not in html
        assert "&lt;script&gt;x&lt;/script&gt;" in html or name == "global"
        assert "O2 &amp; co" in html

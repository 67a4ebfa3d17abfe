"""Every benchmark on one A4 page of the per-benchmark PDF (after its index), whatever it
holds: the samples' benchmarks, and benchmarks with many warnings and hierarchical samples;
the versions' pages too. What a page cuts short says where it is whole, and is whole there
(the warnings PDF); no text on a page is smaller than 7 pt."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pypdf
import pytest

from speeduptest.cli import main

ROOT = Path(__file__).resolve().parents[2]
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                   reason="needs poppler-utils")


def run(tmp: Path, *arguments: str) -> tuple[Path, dict]:
    out = tmp / "out"
    assert main([*arguments, "-o", str(out), "--quiet", "--format", "pdf,json",
                 "--bootstrap", "200"]) in (0, 1)
    return out, json.loads((out / "results.json").read_text())


def index_pages(reader: pypdf.PdfReader) -> int:
    """The pages of the index (numbered "index 1", "index 2"... in the viewer)."""
    return sum(label.startswith("index") for label in reader.page_labels)


def squeezed(text: str) -> str:
    """``text`` without white space and hyphens: as pdftotext gives a text it breaks into
    lines where it likes, dropping a hyphen at the end of a line."""
    return re.sub(r"[\s-]+", "", text)


def page_texts(path: Path) -> list[str]:
    """Each page's text, squeezed."""
    if shutil.which("pdftotext") is None:
        pages = [page.extract_text() for page in pypdf.PdfReader(path).pages]
    else:
        pages = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                               check=True).stdout.split("\f")[:-1]
    return [squeezed(page) for page in pages]


def text_sizes(path: Path) -> dict[float, list[str]]:
    """The size in points of every piece of text of a PDF, and the pieces of each size."""
    sizes: dict[float, list[str]] = {}

    def visit(text, cm, tm, font, size):
        if text.strip():
            scale = (tm[2] ** 2 + tm[3] ** 2) ** 0.5 * (cm[2] ** 2 + cm[3] ** 2) ** 0.5
            sizes.setdefault(round(size * scale, 2), []).append(text.strip())

    for page in pypdf.PdfReader(path).pages:
        page.extract_text(visitor_text=visit)
    return sizes


def assert_one_page_each(out: Path, data: dict) -> list[str]:
    """The index, then a page per benchmark; the benchmarks' pages' texts."""
    reader = pypdf.PdfReader(out / "benchmarks.pdf")
    front = index_pages(reader)
    assert front >= 1
    assert len(reader.pages) == front + len(data["benchmarks"])
    pages = page_texts(out / "benchmarks.pdf")[front:]
    for benchmark, page in zip(data["benchmarks"], pages, strict=True):
        assert squeezed(benchmark["name"])[:40] in page
    return pages


def assert_warnings_whole_somewhere(out: Path, data: dict, pages: list[str]) -> None:
    """Each warning whole on its benchmark's page, or cut there with where it is whole,
    and whole there."""
    warnings = "".join(page_texts(out / "warnings.pdf"))
    for benchmark, page in zip(data["benchmarks"], pages, strict=True):
        for notice in benchmark["warning_details"]:
            for text in (notice["message"], notice["advice"]):
                whole = squeezed(text)
                if whole in page:
                    continue
                assert "(infull:warnings.pdf)" in page or "eachinfull,andwhattodo" in page
                assert whole in warnings, (benchmark["name"], text)


@pytest.fixture(scope="module", params=["config.example.csv",
                                        "samples/trufflesom-splitting/config.csv"])
def sample(request, tmp_path_factory) -> tuple[Path, dict]:
    return run(tmp_path_factory.mktemp("sample"), str(ROOT / request.param))


def test_every_benchmark_of_the_samples_has_one_page(sample):
    out, data = sample
    assert_one_page_each(out, data)


@needs_poppler
def test_a_warning_cut_short_on_its_page_is_whole_in_the_warnings_pdf(sample):
    out, data = sample
    assert_warnings_whole_somewhere(out, data, assert_one_page_each(out, data))


def test_no_text_of_a_benchmark_page_is_smaller_than_7_points(sample):
    out, _ = sample
    small = {size: texts for size, texts in text_sizes(out / "benchmarks.pdf").items()
             if size < 6.95}
    assert not small


def _hierarchical(path: Path, rng: np.random.Generator, warmup: float, coarse: float | None,
                  builds: int) -> Path:
    """Builds × 3 invocations × 40 iterations: autocorrelated iterations (AR(1), φ = 0.9)
    that drift upwards, a warm-up in each invocation, a timer of ``coarse`` resolution."""
    rows = ["build,invocation,iteration,value"]
    for build in range(builds):
        for invocation in range(3):
            error = 0.0
            for iteration in range(40):
                error = 0.9 * error + rng.normal(0, 0.01)
                value = (1 + 0.02 * build + error + warmup * np.exp(-iteration / 4)
                         + 0.0005 * iteration)
                if coarse:
                    value = max(coarse, round(value / coarse) * coarse)
                rows.append(f"{build},{invocation},{iteration},{value:.6g}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def worst(tmp_path_factory) -> tuple[Path, dict]:
    """Hierarchical samples with many warnings: warm-ups, no steady state, invocations that
    differ, a position effect, a slowdown during the run, few builds, a timer too coarse
    (identical values), in deep folders, under a long name."""
    folder = tmp_path_factory.mktemp("worst")
    rng = np.random.default_rng(5)
    deep = folder / "-".join(["a-long-folder-name-of-measurements"] * 3) / "and-deeper"
    files = [_hierarchical(deep / name, rng, warmup, coarse, builds).relative_to(folder)
             for name, warmup, coarse, builds in (
                 ("initial-with-warmups-and-correlation.csv", 0.5, None, 4),
                 ("optimized-on-a-coarse-timer.csv", 0.0, 0.05, 4),
                 ("initial-few-builds.csv", 0.5, None, 3),
                 ("optimized-on-a-timer-of-a-second.csv", 0.0, 1.0, 3))]
    name = ("org.example.benchmarks.suite.SomeVeryLongBenchmarkClassName.someEvenLonger"
            "BenchmarkMethodName_withParameters(size=1000000, mode=throughput)")
    (folder / "config.csv").write_text(
        "benchmark,initial,optimized\n"
        f'"{name}",{files[0]},{files[1]}\n'
        f"coarse-timer,{files[2]},{files[3]}\n")
    return run(folder, str(folder / "config.csv"))


def test_benchmarks_with_many_warnings_and_levels_have_one_page_each(worst):
    out, data = worst
    codes = {notice["code"] for b in data["benchmarks"] for notice in b["warning_details"]}
    assert {"warmup-dropped", "no-steady-state", "timer-resolution", "identical-values",
            "mean-small-not-normal"} <= codes
    assert all(len(b["warning_details"]) >= 8 for b in data["benchmarks"])
    assert all(b["design"] for b in data["benchmarks"])
    assert_one_page_each(out, data)


@needs_poppler
def test_a_dense_page_says_where_its_warnings_are_whole_and_they_are(worst):
    out, data = worst
    pages = assert_one_page_each(out, data)
    for benchmark, page in zip(data["benchmarks"], pages, strict=True):
        # laid out densely: a line per warning, each whole with what to do in warnings.pdf
        assert "Warnings—alineeach;eachinfull,andwhattodo:warnings.pdf" in page
        for notice in benchmark["warning_details"]:
            assert squeezed(notice["message"])[:60] in page
    assert_warnings_whole_somewhere(out, data, pages)
    warnings = "".join(page_texts(out / "warnings.pdf"))
    assert "Shortenedontheirbenchmark'spage,wholehere:" in warnings


def test_every_version_benchmark_has_one_page(tmp_path):
    out, data = run(tmp_path, str(ROOT / "samples" / "compiler-flags" / "flags.csv"),
                    "--baseline", "O2")
    reader = pypdf.PdfReader(out / "benchmarks.pdf")
    assert len(reader.pages) == len(data["benchmarks"])  # the header shares the first
    small = {size: texts for size, texts in text_sizes(out / "benchmarks.pdf").items()
             if size < 6.85}
    assert not small

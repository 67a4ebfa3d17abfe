"""The measurement checks in the reports: each benchmark's run-sequence plot, and the global
report's "Measurement quality" section, as a reader of the HTML and the PDF sees them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pypdf
import pytest
from markupsafe import escape

from speeduptest.cli import main
from speeduptest.model.results import Dependence, OrderTest, SideValidity
from speeduptest.render import figures, html

ROOT = Path(__file__).resolve().parents[2]
CONFIG = "samples/trufflesom-splitting/config.csv"
ROLES = ("initial", "optimized")


def _run(out: Path, *extra: str, formats: str = "html,pdf,json") -> dict:
    """speeduptest on the TruffleSOM sample, from the repository root."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        assert main([CONFIG, "--format", formats, "-o", str(out), "--quiet", *extra]) in (0, 1)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def auto(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("validity") / "tmp"
    return out, _run(out)


@pytest.fixture(scope="module")
def kept(tmp_path_factory) -> tuple[Path, dict]:
    """The same run keeping every value, and the values as they are."""
    out = tmp_path_factory.mktemp("validity-none") / "tmp"
    return out, _run(out, "--warmup", "none", "--dependence", "ignore", formats="html,json")


def _pdf_text(path: Path) -> str:
    """The PDF's text with its whitespace collapsed (lines wrap anywhere)."""
    if shutil.which("pdftotext") is not None:
        text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                              check=True).stdout
    else:
        text = "\n".join(page.extract_text() for page in pypdf.PdfReader(path).pages)
    return " ".join(text.split())


def _sections(page: str) -> dict[str, str]:
    """benchmarks.html's section of each benchmark, by its anchor."""
    parts = re.split(r'<section class="benchmark" id="(benchmark-\d+)">', page)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _quality(page: str) -> str:
    match = re.search(r'<section class="quality">(.*?)</section>', page, re.S)
    assert match, "no measurement-quality section"
    return match.group(1)


def _svg(section: str) -> str:
    match = re.search(r'<img class="sequence" src="data:image/svg\+xml,([^"]*)"', section)
    assert match, "no run-sequence plot"
    return unquote(match.group(1))


def _dropped(data: dict) -> list[tuple[int, dict, str]]:
    """(index, benchmark, side) of every side whose warm-up was left out."""
    return [(index, benchmark, role) for index, benchmark in enumerate(data["benchmarks"])
            for role in ROLES if benchmark["status"] == "ok"
            and benchmark[role]["steady_state"]["dropped"] > 0]


def test_the_sample_has_warmups_left_out(auto):
    _, data = auto
    assert len({index for index, _, _ in _dropped(data)}) >= 5


def test_a_run_sequence_plot_for_each_benchmark_with_a_warmup_left_out(auto):
    out, data = auto
    sections = _sections((out / "benchmarks.html").read_text(encoding="utf-8"))
    for index, benchmark, role in _dropped(data):
        section = sections[f"benchmark-{index + 1}"]
        svg = _svg(section)
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
        # The values left out, in grey, and the steady state's start, marked.
        assert f'stroke="{figures.LEFT_OUT_COLOUR}"' in svg
        assert f'fill="{figures.START_COLOUR}"' in svg
        side = benchmark[role]["steady_state"]
        total = side["dropped"] + benchmark[role]["values_analysed"]
        assert f"{side['dropped']} of {total} (" in section  # the caption's line
        assert "Run sequence:" in section


def test_every_benchmark_with_findings_has_its_plot_and_the_others_a_line(auto):
    out, data = auto
    sections = _sections((out / "benchmarks.html").read_text(encoding="utf-8"))
    drawn = 0
    for index, benchmark in enumerate(data["benchmarks"]):
        if benchmark["status"] != "ok":
            continue
        section = sections[f"benchmark-{index + 1}"]
        found = any(d["code"] in html.QUALITY_KINDS for d in benchmark["warning_details"])
        assert ('<img class="sequence"' in section) == found, benchmark["name"]
        assert found or "Run sequence not drawn: every series looked steady" in section
        drawn += found
    assert drawn >= 10


def test_the_pdf_has_the_plots_and_their_captions(auto):
    out, data = auto
    text = _pdf_text(out / "benchmarks.pdf")
    drawn = [b for b in data["benchmarks"] if b["status"] == "ok" and any(
        d["code"] in html.QUALITY_KINDS for d in b["warning_details"])]
    assert text.count("Run sequence:") == len(drawn)
    for _, benchmark, role in _dropped(data):
        side = benchmark[role]["steady_state"]
        total = side["dropped"] + benchmark[role]["values_analysed"]
        assert f"{side['dropped']} of {total} (" in text


def test_the_measurement_quality_section_lists_them(auto):
    out, data = auto
    section = _quality((out / "global.html").read_text(encoding="utf-8"))
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", section.split("<tbody>")[1], re.S)
    named: dict[str, list[str]] = {}
    name = None
    for row in rows:
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        found = re.search(r">([^<]+)</a>", cells[0])
        name = found.group(1) if found else name  # a benchmark's second row: no name
        named.setdefault(name, []).append(re.sub(r"<[^>]+>", "", "|".join(cells[1:])))
    for _, benchmark, role in _dropped(data):
        cells = [row for row in named[str(escape(benchmark["name"]))]
                 if row.startswith(role + "|")]
        assert cells, (benchmark["name"], role)
        dropped = benchmark[role]["steady_state"]["dropped"]
        assert f"|{dropped} of " in cells[0]
    assert "Warm-up left out" in section and "What to do" not in section
    # Each kind's advice is its warnings' advice.
    advice = {notice["advice"] for b in data["benchmarks"] for notice in b["warning_details"]
              if notice["code"] == "warmup-dropped"}
    assert advice and all(str(escape(text)) in section for text in advice)


def test_the_global_pdf_has_the_section_on_its_pages(auto):
    out, data = auto
    text = _pdf_text(out / "global.pdf")
    assert "Measurement quality" in text
    start = text.index("Measurement quality")
    for _, benchmark, _ in _dropped(data):
        assert benchmark["name"] in text[start:]
    pages = pypdf.PdfReader(out / "global.pdf").pages
    for page in pages:  # A4: nothing laid out beyond the page
        assert float(page.mediabox.width) == pytest.approx(595.28, abs=1)


def test_keeping_every_value_still_shows_the_section(kept, auto):
    out, data = kept
    assert data["settings"]["warmup"] == "none"
    assert data["settings"]["dependence"] == "ignore"
    assert not _dropped(data)
    page = (out / "global.html").read_text(encoding="utf-8")
    section = _quality(page)
    assert "--warmup none" in section and "--dependence ignore" in section
    # The warm-ups found are listed, now as analysed with the steady state.
    for _, benchmark, _ in _dropped(auto[1]):
        assert str(escape(benchmark["name"])) in section
    assert "Warm-up analysed" in section and "Warm-up left out" not in section
    sections = _sections((out / "benchmarks.html").read_text(encoding="utf-8"))
    for index, _, _ in _dropped(auto[1]):
        svg = _svg(sections[f"benchmark-{index + 1}"])
        assert f'stroke="{figures.LEFT_OUT_COLOUR}"' not in svg  # nothing greyed
        assert f'fill="{figures.START_COLOUR}"' in svg  # the starts still marked


# ---------------------------------------------------------------- the figure and the section


def _side(series: list[np.ndarray], classes: tuple[str, ...] | None = None,
          starts: tuple[int, ...] | None = None, drops: tuple[int, ...] | None = None,
          dependence: Dependence | None = None, order: OrderTest | None = None
          ) -> SideValidity:
    classes = classes or ("flat",) * len(series)
    drops = drops or (0,) * len(series)
    judged = [c for c in classes if c != "too short"]
    return SideValidity(
        classification=(judged[0] if judged and len(set(judged)) == 1 else
                        "inconsistent" if judged else "too short"),
        consistent=None if len(judged) < 2 else len(set(judged)) == 1, classes=classes,
        starts=starts or (0,) * len(series), dropped=sum(drops), drops=drops, warmup="auto",
        dependence_rule="batch", dependence=dependence, order=order,
        values=sum(len(s) for s in series) - sum(drops), series=tuple(series))


def test_huge_series_are_thinned_and_the_caption_says_so():
    rng = np.random.default_rng(1)
    big = _side([rng.normal(10, 0.1, 5_000) for _ in range(3)])
    small = _side([rng.normal(10, 0.1, 300)])
    figure = figures.run_sequence_figure((big, small))
    assert figure.steps == (8, 1)  # 15,000 values: every 8th, at most 2,000 drawn
    assert svg_points(figure.svg) <= 2 * figures.SEQUENCE_POINTS
    assert not figure.log


def svg_points(svg: str) -> int:
    return sum(len(re.findall(r"M[\d.]+ [\d.]+h", d)) for d in re.findall(r'd="([^"]*)"', svg))


def test_a_log_axis_beyond_a_factor_of_ten_and_a_mark_per_start():
    warm = np.r_[np.full(20, 500.0), np.full(80, 10.0)]
    side = _side([warm, warm.copy()], ("warmup", "warmup"), (20, 20), (20, 20))
    flat = _side([np.full(100, 10.0)])
    figure = figures.run_sequence_figure((side, flat), placed=True, titles=False)
    assert figure.log
    marks = re.findall(rf'<path d="([^"]*)" fill="{figures.START_COLOUR}"/>', figure.svg)
    assert len(marks) == 1 and marks[0].count("M") == 2
    # The PDF's variant: no text for weasyprint to place in a group of its own.
    assert "text-anchor" not in figure.svg and "opacity" not in figure.svg


def test_the_caption_line_gives_class_values_left_out_lag1_and_batch():
    warm = np.r_[np.full(40, 50.0), np.full(60, 10.0)]
    initial = _side([warm], ("warmup",), (40,), (40,), Dependence(0.91, 5.0, 10))
    optimized = _side([np.full(100, 10.0), np.full(100, 11.0)], ("flat", "slowdown"),
                      (0, 30), dependence=Dependence(-0.05, 200.0))
    line = "; ".join(html.side_line(role, side)
                     for role, side in zip(ROLES, (initial, optimized), strict=True))
    assert line == ("initial: warmup, 40 of 100 (40%) values left out, lag-1 autocorrelation "
                    "0.91, analysed as means of batches of 10; optimized: inconsistent (1 "
                    "flat, 1 slowdown), nothing left out, lag-1 autocorrelation −0.05")
    assert initial.findings == ("warmup-dropped", "dependent-values")
    assert optimized.findings == ("series-slowdown", "inconsistent-invocations")
    assert _side([np.full(100, 1.0)]).findings == ()


def _config(folder: Path, n: int) -> Path:
    rng = np.random.default_rng(7)
    rows = ["benchmark,initial,optimized"]
    for name in ("a", "b"):
        for role, mean in (("initial", 10.0), ("optimized", 9.0)):
            (folder / f"{name}-{role}.txt").write_text(
                "\n".join(f"{v:.6f}" for v in rng.normal(mean, 0.2, n)) + "\n")
        rows.append(f"{name},{name}-initial.txt,{name}-optimized.txt")
    config = folder / "config.csv"
    config.write_text("\n".join(rows) + "\n")
    return config


@pytest.mark.parametrize(("n", "sentence"), [
    (12, "The series were too short to judge a steady state"),
    (200, "Every series looked steady and independent (4 sides)"),
])
def test_one_sentence_when_there_is_nothing_to_say(tmp_path, n, sentence):
    config = _config(tmp_path, n)
    out = tmp_path / "out"
    assert main([str(config), "--format", "html", "-o", str(out), "--quiet"]) in (0, 1)
    section = _quality((out / "global.html").read_text(encoding="utf-8"))
    assert sentence in section and "<table" not in section
    details = (out / "benchmarks.html").read_text(encoding="utf-8")
    assert '<img class="sequence"' not in details  # nothing to see: one line instead
    assert "Run sequence not drawn" in details

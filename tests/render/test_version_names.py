"""Versions named by their folders (three same-named pyperf files) or by --names, short and
long: every report, the terminal and summary.md name them; long names are elided in the
middle where several share a line, told apart, and never run off a page."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pypdf
import pytest

from speeduptest.cli import main
from speeduptest.render.formatting import VERSION_WIDTH, elide, elide_apart

PYPERF = Path(__file__).parents[1] / "data" / "tools" / "pyperf"
REPORTS = ("global", "benchmarks", "warnings", "errors")
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None,
                                   reason="needs poppler-utils")
MM = 72 / 25.4


def _scaled(data: object, factor: float) -> object:
    """A pyperf document with every measured value times ``factor``."""
    if isinstance(data, dict):
        return {key: ([v * factor for v in value] if key == "values" else _scaled(value, factor))
                for key, value in data.items()}
    if isinstance(data, list):
        return [_scaled(item, factor) for item in data]
    return data


def _tree(root: Path, folders: tuple[str, str, str]) -> list[str]:
    """raw/FOLDER/bm.json for three versions: pyperf's initial and optimized runs, and the
    optimized one 7% faster."""
    files = []
    for folder, data in zip(folders, (
            json.loads((PYPERF / "initial.json").read_text()),
            json.loads((PYPERF / "optimized.json").read_text()),
            _scaled(json.loads((PYPERF / "optimized.json").read_text()), 0.93)), strict=True):
        path = root / "raw" / folder / "bm.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(data))
        files.append(str(path.relative_to(root)))
    return files


def _run(root: Path, arguments: list[str]) -> tuple[Path, str]:
    """The reports of ``speeduptest compare ARGUMENTS`` run in ``root``, and the terminal's
    text."""
    printed = io.StringIO()
    with contextlib.chdir(root), contextlib.redirect_stdout(printed):
        assert main(["compare", *arguments, "-o", "out", "--bootstrap", "200",
                     "--format", "html,pdf,json,md"]) == 0
    return root / "out", printed.getvalue()


def _pdf_text(path: Path) -> str:
    """The text of a PDF without white space (pdftotext breaks long names into lines)."""
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    return re.sub(r"\s+", "", text)


def _forest_labels(out: Path) -> list[str]:
    """The texts of the global report's forest plot (an SVG in a data URI)."""
    html = (out / "global.html").read_text()
    uri = re.search(r'<img class="forest" src="data:image/svg\+xml;base64,([^"]+)"', html)
    svg = base64.b64decode(uri.group(1)).decode()
    return [re.sub("&amp;", "&", text) for text in re.findall(r"<text[^>]*>(.*?)</text>", svg)]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("folders")
    return _run(root, _tree(root, ("default", "JIT", "PYTHON_UOPS")))


NAMES = ("CPython 3.13 main default build with PGO and LTO enabled",
         "CPython 3.13 main uops interpreter with PGO and LTO enabled",
         "CPython 3.13 main copy-and-patch JIT build; PGO and LTO on")


@pytest.fixture(scope="module")
def named(tmp_path_factory) -> tuple[Path, str]:
    """Names of 55–60 characters, two of which read the same elided as usual (their first
    and last characters are the same)."""
    root = tmp_path_factory.mktemp("named")
    files = _tree(root, ("a", "b", "c"))
    return _run(root, [*files, "--names", ",".join(NAMES)])


LONG_FOLDERS = ("baseline-cpython-3.13-default-build-with-pgo-and-lto-enabled",
                "experimental-jit-copy-and-patch-tier2-optimizer-enabled-build",
                "python-uops-tier2-interpreter-with-superinstructions-build")


@pytest.fixture(scope="module")
def long_folders(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("long-folders")
    return _run(root, _tree(root, LONG_FOLDERS))


def _names(out: Path) -> list[str]:
    return [version["name"] for version in json.loads((out / "results.json").read_text())[
        "versions"]]


def test_same_named_files_are_named_by_their_folders_everywhere(folders):
    out, printed = folders
    names = ["default", "JIT", "PYTHON_UOPS"]
    assert sorted(_names(out)) == sorted(names)
    matrix = next(line for line in printed.splitlines() if line.strip().startswith("benchmark"))
    assert matrix.split() == ["benchmark", *names]
    assert all(re.search(rf"\s{rank}\s+{name}\s", printed)
               for rank, name in ((1, "PYTHON_UOPS"), (2, "JIT"), (3, "default")))
    summary = (out / "summary.md").read_text()
    assert "| benchmark | default | JIT | PYTHON\\_UOPS |" in summary
    for report in REPORTS:
        html = (out / f"{report}.html").read_text()
        assert re.search(r"<title>[^<]*· default, JIT, PYTHON_UOPS</title>", html), report
        assert ">default</span> <code>raw/default/bm.json</code>" in html, report
    assert {"default", "JIT", "PYTHON_UOPS"} <= set(_forest_labels(out))


@needs_poppler
def test_every_page_of_every_pdf_names_the_versions_in_its_running_title(folders):
    out, _ = folders
    for report in REPORTS:
        pages = subprocess.run(["pdftotext", str(out / f"{report}.pdf"), "-"],
                               capture_output=True, text=True, check=True).stdout.split("\f")
        for page in pages[:-1]:
            assert page.splitlines()[0].endswith("· default, JIT, PYTHON_UOPS"), report
        assert "Compared3versions:defaultraw/default/bm.json,JITraw/JIT/bm.json," \
               "PYTHON_UOPSraw/PYTHON_UOPS/bm.json" in _pdf_text(out / f"{report}.pdf")


def test_elided_names_are_told_apart():
    names = ["cpython-main-jit-enabled-release-build", "cpython-main-uops-enabled-release-build",
             "cpython-main-default-release-build"]
    assert len({elide(name, VERSION_WIDTH) for name in names}) < 3  # elide alone: not apart
    labels = elide_apart(names, VERSION_WIDTH)
    assert len(set(labels)) == 3 and all(len(label) <= VERSION_WIDTH for label in labels)
    assert all(label.replace("…", "") != name for label, name in zip(labels, names,
                                                                      strict=True))
    assert elide_apart(["O2", "O3", "O2"], 4) == ["O2", "O3", "O2"]
    # Names that differ only in one character in the middle: the labels grow to show it.
    twins = ["a" * 30 + "x" + "b" * 30, "a" * 30 + "y" + "b" * 30]
    assert len(set(elide_apart(twins, 24))) == 2


@pytest.mark.parametrize("run", ["named", "long_folders"])
def test_long_names_are_whole_in_the_headers_and_apart_in_the_figures(run, request):
    out, printed = request.getfixturevalue(run)
    names = _names(out)
    assert all(len(name) >= 55 for name in names)
    labels = elide_apart(names, VERSION_WIDTH)
    assert len(set(labels)) == 3
    forest = _forest_labels(out)
    assert all(forest.count(label) == 1 for label in labels)  # one row each, told apart
    matrix = next(line for line in printed.splitlines() if line.strip().startswith("benchmark"))
    assert all(label in matrix for label in labels) and len(matrix) < 120
    for report in REPORTS:
        html = (out / f"{report}.html").read_text()
        assert all(f'<span class="vname">{name}</span>' in html for name in names), report


@needs_poppler
@pytest.mark.parametrize("run", ["named", "long_folders"])
def test_long_names_never_run_off_a_page(run, request):
    """Every word of the global and per-benchmark PDFs within the text area (13 mm
    margins), every name in every PDF, and a page per benchmark."""
    out, _ = request.getfixturevalue(run)
    names = _names(out)
    for report in REPORTS:
        text = _pdf_text(out / f"{report}.pdf")
        assert all(re.sub(r"\s+", "", name) in text for name in names), report
    for report in ("global", "benchmarks"):
        xml = subprocess.run(["pdftotext", "-bbox", str(out / f"{report}.pdf"), "-"],
                             capture_output=True, text=True, check=True).stdout
        for page in re.findall(r"<page (.*?)</page>", xml, re.S):
            width = float(re.search(r'width="([\d.]+)"', page).group(1))
            for x0, x1, word in re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" '
                                           r'xMax="([\d.]+)" yMax="[\d.]+">(.*?)</word>', page):
                assert float(x0) >= 13 * MM - 1 and float(x1) <= width - 13 * MM + 1, word
    benchmarks = json.loads((out / "results.json").read_text())["benchmarks"]
    assert len(pypdf.PdfReader(out / "benchmarks.pdf").pages) == len(benchmarks)


def test_long_names_wrap_in_the_tables():
    """Names break anywhere in the ranking's and the tables' cells rather than widen them
    (the PDF's tables have fixed columns; the browser's scroll sideways on a phone)."""
    css = (Path(__file__).resolve().parents[2] / "templates" / "versions"
           / "versions.css").read_text()
    rule = re.search(r"([^{}]*)\{ overflow-wrap: anywhere; \}", css).group(1)
    for selector in ('table.ranking th[scope="row"]', "table.matrix thead th",
                     'table.versions-describe th[scope="row"]', 'table.posthoc th[scope="row"]',
                     ".vname"):
        assert selector in rule
    assert re.search(r"table\.ranking \{ table-layout: fixed; \}", css)

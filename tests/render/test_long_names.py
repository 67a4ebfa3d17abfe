"""Names of any length: elided where they are laid out (HTML, PDF, figures, the terminal,
summary.md, table.tex), whole in results.json and results.csv."""

from __future__ import annotations

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
from speeduptest.render.figures import LABEL_WIDTH
from speeduptest.render.formatting import (
    LONG_WIDTH,
    MESSAGE_WIDTH,
    NAME_WIDTH,
    elide,
    elide_long,
    elide_message,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "compiler-flags"
HYPERFINE = Path(__file__).parents[1] / "data" / "tools" / "hyperfine"
QUICK = ["--bootstrap", "200"]
REPORTS = ("global", "benchmarks", "warnings", "errors")


def long_name(tag: str, length: int = 20_000) -> str:
    """A name of ``length`` characters, every stretch of it different (numbered blocks), so
    that a piece of it found in an output says where it came from."""
    return (tag + "".join(f"-{i:05d}" for i in range(length // 6 + 1)))[:length]


def middle(name: str) -> str:
    """A piece from the middle of ``name``, which no elided form holds."""
    half = len(name) // 2
    return name[half - 50:half + 50]


def assert_laid_out(text: str, name: str, *forms: str, where: str = "") -> None:
    """``text`` shows ``name`` only elided: none of it whole, every form in ``forms``."""
    assert name not in text, where
    assert middle(name) not in text, where
    for form in forms:
        assert form in text, (where, form[:40])


def pdf_text(path: Path) -> str:
    """The text of a PDF without white space (pdftotext breaks long words into lines)."""
    text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    return re.sub(r"\s+", "", text)


def run(arguments: list[str]) -> tuple[int, str]:
    """speeduptest's exit status and what it printed on the terminal."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        status = main(arguments)
    return status, printed.getvalue()


# ---------------------------------------------------------------- the helper


def test_a_name_that_fits_is_left_whole():
    for text in ("", "collatz", "x" * NAME_WIDTH):
        assert elide(text) is text
    assert elide_long("y" * LONG_WIDTH) == "y" * LONG_WIDTH
    message = "initial sample file a.txt: 'abc' is not a number " * 10
    assert elide_message(message) == message


def test_a_long_name_keeps_its_ends():
    name = long_name("bench")
    for width, shown in ((NAME_WIDTH, elide(name)), (LONG_WIDTH, elide_long(name)),
                         (32, elide(name, 32))):
        assert len(shown) == width
        head, tail = shown.split("…")
        assert name.startswith(head) and name.endswith(tail)
        assert len(tail) >= 2 * len(head) - 1  # the end tells most names apart


def test_a_message_bounds_each_word_and_the_whole():
    name, path = long_name("cmd", 50_000), "/data/" + "d" * 5000 + ".json"
    message = elide_message(f"{path}: 2 benchmarks have no counterpart: '{name}', 'b'.")
    assert len(message) <= MESSAGE_WIDTH
    assert max(len(word) for word in message.split()) <= LONG_WIDTH
    assert message.startswith("/data/ddd") and message.endswith(", 'b'.")
    assert len(elide_message("word " * 10_000)) == MESSAGE_WIDTH


# ---------------------------------------------------------------- two versions, every format


@pytest.fixture(scope="module")
def long_run(tmp_path_factory) -> tuple[Path, str, str, str, str]:
    """A short name, a name of 20,000 characters and a broken benchmark of 20,000, through
    every format."""
    from conftest import Project

    project = Project(tmp_path_factory.mktemp("long"))
    name, broken = long_name("bench"), long_name("broken")
    rows = [project.good_pair("short"), project.good_pair("long").replace("long,", name + ",", 1),
            f"{broken},missing.txt,short-optimized.txt"]
    config = project.config("benchmark,initial,optimized\n" + "\n".join(rows) + "\n")
    out = project.root / "out"
    status, printed = run([str(config), "-o", str(out), "--format",
                           "html,pdf,json,md,csv,tex", *QUICK])
    assert status == 1
    return out, printed, name, broken, config.name


def test_results_json_and_csv_keep_the_whole_name(long_run):
    out, _, name, broken, _ = long_run
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [b["name"] for b in data["benchmarks"]] == ["short", name, broken]
    csv = (out / "results.csv").read_text(encoding="utf-8")
    assert f'"{name}"' in csv and f'"{broken}"' in csv


def test_html_reports_show_the_name_elided(long_run):
    out, _, name, broken, _ = long_run
    html = {report: (out / f"{report}.html").read_text(encoding="utf-8") for report in REPORTS}
    assert_laid_out(html["global"], name, elide(name), where="global")
    assert_laid_out(html["global"], broken, elide(broken), where="global")
    # The index, the benchmark's heading, the figure's alternative text.
    assert_laid_out(html["benchmarks"], name, elide(name), elide_long(name),
                    f"execution times of {elide(name)}", where="benchmarks")
    assert_laid_out(html["errors"], broken, f"<h2>{elide_long(broken)}</h2>", where="errors")
    for report in ("warnings",):
        assert_laid_out(html[report], name, where=report)
        assert_laid_out(html[report], broken, where=report)


def test_summary_md_table_tex_and_terminal_show_the_name_elided(long_run):
    out, printed, name, broken, _ = long_run
    markdown = (out / "summary.md").read_text(encoding="utf-8")
    assert_laid_out(markdown, name, f"| {elide(name)} |", where="summary.md")
    assert_laid_out(markdown, broken, f"| {elide(broken)} |", where="summary.md")
    latex = (out / "table.tex").read_text(encoding="utf-8")
    assert_laid_out(latex, name, f"{elide(name)} & ", where="table.tex")
    assert_laid_out(printed, name, f"  {elide(name)}  ", where="terminal")
    assert_laid_out(printed, broken, f"  {elide(broken)}  ", where="terminal")


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
def test_pdf_reports_show_the_name_elided(long_run):
    out, _, name, broken, _ = long_run
    texts = {report: pdf_text(out / f"{report}.pdf") for report in REPORTS}
    # Table cells wrap, their lines read in between the other columns': the figures' labels
    # (forest plot, overview) and the headings are read whole.
    assert_laid_out(texts["global"], name, elide(name, LABEL_WIDTH), where="global.pdf")
    assert_laid_out(texts["benchmarks"], name, elide_long(name), where="benchmarks.pdf")
    assert_laid_out(texts["errors"], broken, elide_long(broken), where="errors.pdf")
    assert_laid_out(texts["warnings"], name, where="warnings.pdf")


def test_pdf_bookmarks_are_elided(long_run):
    out, _, name, broken, _ = long_run

    def titles(outline) -> list[str]:
        return [title for item in outline for title in (
            titles(item) if isinstance(item, list) else [item.title])]

    for report in REPORTS:
        shown = titles(pypdf.PdfReader(out / f"{report}.pdf").outline)
        assert all(len(title) <= LONG_WIDTH for title in shown), report
    benchmarks = titles(pypdf.PdfReader(out / "benchmarks.pdf").outline)
    assert elide(name) in benchmarks and elide(broken) in benchmarks


# ---------------------------------------------------------------- hyperfine command lines


def _hyperfine(path: Path, commands: list[str]) -> Path:
    """hyperfine's initial.json with its commands renamed (the first ``len(commands)``)."""
    document = json.loads((HYPERFINE / "initial.json").read_text(encoding="utf-8"))
    for entry, command in zip(document["results"], commands, strict=False):
        entry["command"] = command
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_a_long_hyperfine_command_is_elided_in_the_reports(tmp_path):
    command = "gzip -9 --stdout /data/" + long_name("z", 20_000)
    spaced = "sort " + " ".join(f"--key={i}" for i in range(3000))  # long, with spaces
    unpaired = long_name("only-here", 20_000)
    initial = _hyperfine(tmp_path / "initial.json", [command, spaced, unpaired])
    optimized = _hyperfine(tmp_path / "optimized.json", [command, spaced])
    out = tmp_path / "out"
    status, printed = run(["compare", str(initial), str(optimized), "-o", str(out),
                           "--format", "html,json,md", *QUICK])
    assert status == 0
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {b["name"] for b in data["benchmarks"]} == {command, spaced}
    for shown in ("global.html", "benchmarks.html", "warnings.html", "summary.md"):
        text = (out / shown).read_text(encoding="utf-8")
        assert_laid_out(text, command, where=shown)
        assert spaced not in text, shown
        # The warning that names the command found in one file only.
        assert_laid_out(text, unpaired, where=shown)
    assert_laid_out((out / "global.html").read_text(encoding="utf-8"), command, elide(command))
    head = unpaired[:(LONG_WIDTH - 1) // 3] + "…"  # a word of the message, elided
    assert_laid_out((out / "warnings.html").read_text(encoding="utf-8"), unpaired, head)
    assert_laid_out(printed, command, elide(command), where="terminal")


# ---------------------------------------------------------------- several versions


def test_long_version_and_benchmark_names_are_elided(tmp_path):
    versions = [long_name(tag, 20_000) for tag in ("O0", "O2", "O3")]
    name = long_name("bench")
    rows = [f"{benchmark},{SAMPLES}/O0/{file}.txt,{SAMPLES}/O2/{file}.txt,"
            f"{SAMPLES}/O3-native/{file}.txt"
            for benchmark, file in (("collatz", "collatz"), ("crc32", "crc32"), (name, "sieve"))]
    config = tmp_path / "versions.csv"
    config.write_text("benchmark," + ",".join(versions) + "\n" + "\n".join(rows) + "\n",
                      encoding="utf-8")
    out = tmp_path / "out"
    status, printed = run([str(config), "--baseline", versions[0], "-o", str(out),
                           "--format", "html,json,md,csv,tex", *QUICK])
    assert status == 0
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert sorted(version["name"] for version in data["versions"]) == versions
    assert name in (out / "results.csv").read_text(encoding="utf-8")
    for shown in ("global.html", "benchmarks.html", "warnings.html", "errors.html",
                  "summary.md", "table.tex"):
        text = (out / shown).read_text(encoding="utf-8")
        for whole in (*versions, name):
            assert_laid_out(text, whole, where=shown)
    markdown = (out / "summary.md").read_text(encoding="utf-8")
    assert all(f"| {elide(version)} |" in markdown for version in versions)
    assert f"| {elide(name)} |" in markdown
    html = (out / "global.html").read_text(encoding="utf-8")
    assert all(re.search(f"<th[^>]*>{re.escape(elide(version))}", html) for version in versions)
    for whole in (*versions, name):
        assert_laid_out(printed, whole, elide(whole), where="terminal")

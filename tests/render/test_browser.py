"""The HTML reports in a real browser: playwright (PyPI) driving Debian's chromium, never a
downloaded one. The global report loads without a console error; its benchmark table sorts
and filters (and the several-versions matrix); the forest plot shows; at phone width nothing
overflows; without scripts the page reads as rendered; printed, the controls are gone.

The browser is ``$SPEEDUPTEST_CHROMIUM`` (default /usr/bin/chromium). Without playwright or
the browser the module is skipped, unless ``SPEEDUPTEST_BROWSER_TESTS=required`` (set by
.ci/run), which makes their absence a failure. ``SPEEDUPTEST_SCREENSHOTS=FOLDER`` keeps a
screenshot of each report at desktop and phone width there, to look at.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import main

CHROMIUM = os.environ.get("SPEEDUPTEST_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("SPEEDUPTEST_BROWSER_TESTS") == "required"


def _missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; the test extra has it)"
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return (f"no chromium at {CHROMIUM} (apt-get install chromium, or set "
                "SPEEDUPTEST_CHROMIUM)")
    return None


if (_reason := _missing()) is not None:
    if REQUIRED:
        raise RuntimeError(f"SPEEDUPTEST_BROWSER_TESTS=required, but {_reason}")
    pytest.skip(_reason, allow_module_level=True)

from playwright.sync_api import Browser, Page, expect, sync_playwright  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples" / "compiler-flags"
PHONE, DESKTOP = 390, 1280
SCREENSHOTS = os.environ.get("SPEEDUPTEST_SCREENSHOTS")


# ---------------------------------------------------------------- the reports and the browser


def _report(out: Path, *arguments: str, status: int = 0) -> Path:
    """The HTML reports (and results.json) of ``speeduptest ARGUMENTS``, run from the root;
    ``status``: the exit status expected (1: some benchmark has errors)."""
    previous = os.getcwd()
    os.chdir(ROOT)  # paths in the reports as given, relative to the root
    try:
        made = main([*arguments, "-o", str(out), "--format", "html,json", "--quiet"])
    finally:
        os.chdir(previous)
    assert made == status
    return out


@pytest.fixture(scope="module")
def two(tmp_path_factory) -> Path:
    """The bundled example: two versions, eleven benchmarks."""
    return _report(tmp_path_factory.mktemp("two"), "config.example.csv")


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> Path:
    """Three versions of the same kernels, against -O0."""
    return _report(tmp_path_factory.mktemp("three"), "samples/compiler-flags/flags.csv",
                   "--baseline", "O0")


def _long(tag: str, length: int = 300) -> str:
    """A name of ``length`` characters without a space to break it at."""
    return (tag + "".join(f"-{i:04d}" for i in range(length // 5 + 1)))[:length]


@pytest.fixture(scope="module")
def long_names(tmp_path_factory) -> tuple[Path, Path]:
    """Reports of long names without spaces: benchmarks (two versions, one of them with
    errors), and versions and benchmarks (three)."""
    folder = tmp_path_factory.mktemp("long")
    rng = np.random.default_rng(7)
    lines = ["benchmark,initial,optimized"]
    for i, mean in enumerate((10.0, 9.0, 10.5)):
        files = []
        for side, shift in (("initial", 0.0), ("optimized", 0.5 * i)):
            path = folder / f"b{i}-{side}.txt"
            path.write_text("\n".join(repr(float(v)) for v in rng.normal(mean - shift, 0.3, 12))
                            + "\n")
            files.append(str(path))
        lines.append(",".join([_long(f"benchmark{i}"), *files]))
    lines.append(f"{_long('broken')},{folder / 'missing.txt'},{folder / 'missing.txt'}")
    pair = folder / "pair.csv"
    pair.write_text("\n".join(lines) + "\n")
    versions = [_long(tag) for tag in ("O0", "O2", "O3")]
    rows = [",".join([_long(file), *(f"{SAMPLES}/{flag}/{file}.txt"
                                     for flag in ("O0", "O2", "O3-native"))])
            for file in ("crc32", "sieve", "fnv1a")]
    wide = folder / "wide.csv"
    wide.write_text("benchmark," + ",".join(versions) + "\n" + "\n".join(rows) + "\n")
    return (_report(folder / "two", str(pair), "--bootstrap", "200", status=1),
            _report(folder / "three", str(wide), "--baseline", versions[0],
                    "--bootstrap", "200"))


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


class Opened:
    """A page of a report, with the errors its console and scripts reported."""

    def __init__(self, browser: Browser, path: Path, width: int = DESKTOP,
                 scripts: bool = True) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900},
                                           java_script_enabled=scripts)
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("console", lambda message: message.type == "error"
                     and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.goto(path.as_uri())

    def rows(self, table: str) -> list[dict[str, str]]:
        """The shown rows of a table, in order: their data- attributes."""
        return self.page.eval_on_selector_all(
            f"{table} tbody tr:not([hidden])",
            "rows => rows.map(row => Object.fromEntries([...row.attributes]"
            ".filter(a => a.name.startsWith('data-')).map(a => [a.name.slice(5), a.value])))")

    def screenshot(self, name: str) -> None:
        if SCREENSHOTS:
            Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def opened(browser) -> Iterator:
    """opened(path, width=…, scripts=…): a page, closed after the test."""
    pages: list[Opened] = []

    def open_page(path: Path, width: int = DESKTOP, scripts: bool = True) -> Opened:
        pages.append(Opened(browser, path, width, scripts))
        return pages[-1]

    yield open_page
    for page in pages:
        page.close()


def expected_order(rows: list[dict[str, str]], key: str, numeric: bool,
                   descending: bool) -> list[str]:
    """The names of ``rows`` sorted as the table should sort them: by the data- attribute
    ``key``, missing values last, ties in the rendered order (Python's sort is stable, also
    reversed)."""
    present = [row for row in rows if row.get(key, "") != ""]
    missing = [row for row in rows if row.get(key, "") == ""]
    if numeric:
        present.sort(key=lambda row: float(row[key]), reverse=descending)
    else:
        present.sort(key=lambda row: row[key].casefold(), reverse=descending)
    return [row["name"] for row in present + missing]


def names(rows: list[dict[str, str]]) -> list[str]:
    return [row["name"] for row in rows]


# ---------------------------------------------------------------- loading


@pytest.mark.parametrize("report", ["global", "benchmarks", "warnings", "errors"])
@pytest.mark.parametrize("which", ["two", "three"])
def test_reports_load_without_console_errors(request, opened, which, report):
    out = request.getfixturevalue(which)
    page = opened(out / f"{report}.html")
    expect(page.page.locator("h1")).to_be_visible()
    assert page.errors == []
    if report == "global":  # the script ran: it shows the table's controls
        expect(page.page.locator("form.table-tools")).to_be_visible()
        page.screenshot(f"{which}-global-desktop")


def test_forest_plot_is_visible(two, three, opened):
    for out in (two, three):
        page = opened(out / "global.html")
        images = page.page.locator("img.forest")
        assert images.count() >= 1
        for image in images.all():
            expect(image).to_be_visible()
            box = image.bounding_box()
            assert box is not None and box["width"] > 100 and box["height"] > 50
            # drawn, not a broken image's box
            assert image.evaluate("img => img.complete && img.naturalWidth > 0")


# ---------------------------------------------------------------- sorting


def test_sorting_follows_the_data_attributes(two, opened):
    page = opened(two / "global.html")
    table = page.page.locator("table.summary")
    rendered = page.rows("table.summary")
    assert len(rendered) == 11
    # The rows' values are the model's (results.json), to the last digit.
    data = {b["name"]: b for b in json.loads((two / "results.json").read_text())["benchmarks"]}
    for row in rendered:
        benchmark = data[row["name"]]
        assert float(row["speedup"]) == benchmark["speedup"]["mean"]
        assert float(row["p-faster"]) == benchmark["probability_faster"]
        assert row["call"] == benchmark["change"]["call"]

    def click(heading: str, key: str, numeric: bool, descending: bool) -> None:
        header = table.locator("thead th", has_text=heading)
        header.get_by_role("button").click()
        expect(header).to_have_attribute("aria-sort",
                                         "descending" if descending else "ascending")
        assert names(page.rows("table.summary")) == expected_order(
            rendered, key, numeric, descending), heading

    click("Change (mean)", "speedup", True, True)  # first click: the fastest first
    speedups = [float(row["speedup"]) for row in page.rows("table.summary")]
    assert speedups == sorted(speedups, reverse=True)
    click("Change (mean)", "speedup", True, False)
    click("P (faster)", "p-faster", True, True)
    click("Benchmark", "name", False, False)
    click("Benchmark", "name", False, True)
    # By call, the rows come back in the order they were rendered in (by call, the largest
    # change first); again, the calls the other way round.
    click("Call", "call-rank", True, False)
    assert names(page.rows("table.summary")) == names(rendered)
    click("Call", "call-rank", True, True)
    assert page.errors == []


def test_matrix_sorts_by_a_version(three, opened):
    page = opened(three / "global.html")
    rendered = page.rows("table.matrix")
    assert len(rendered) == 11
    data = json.loads((three / "results.json").read_text())
    versions = [v["name"] for v in data["versions"]]
    column = versions.index("O2")
    comparison = next(c for c in data["comparisons"] if c["version"] == "O2")
    means = {b["name"]: b["speedup"]["mean"] for b in comparison["benchmarks"]}
    assert {row["name"]: float(row[f"speedup-{column}"]) for row in rendered} == means
    page.page.locator("table.matrix thead th", has_text="O2").get_by_role("button").click()
    assert names(page.rows("table.matrix")) == sorted(means, key=lambda name: -means[name])
    page.page.locator("table.matrix thead th", has_text="Benchmark").get_by_role(
        "button").click()
    assert names(page.rows("table.matrix")) == sorted(means)


def test_rows_with_errors_sort_last_and_filter(long_names, opened):
    page = opened(long_names[0] / "global.html")
    rows = page.rows("table.summary")
    assert [row["call"] for row in rows].count("error") == 1
    broken = next(row["name"] for row in rows if row["call"] == "error")
    assert "speedup" not in next(row for row in rows if row["call"] == "error")
    header = page.page.locator("table.summary thead th", has_text="Change (mean)")
    for _ in range(2):  # either way, the benchmark without a speedup comes last
        header.get_by_role("button").click()
        assert names(page.rows("table.summary"))[-1] == broken
    page.page.locator("#benchmark-tools select[name=call]").select_option("error")
    expect(page.page.locator("#benchmark-tools .shown")).to_have_text("1 of 4 shown.")
    assert names(page.rows("table.summary")) == [broken]
    assert page.errors == []


# ---------------------------------------------------------------- filtering


def test_filtering_by_call_and_name(two, opened):
    page = opened(two / "global.html")
    tools = page.page.locator("#benchmark-tools")
    shown = tools.locator(".shown")
    expect(shown).to_have_text("All 11 shown.")
    calls = {b["name"]: b["change"]["call"]
             for b in json.loads((two / "results.json").read_text())["benchmarks"]}

    for call in ("slower", "faster", "unchanged", "uncertain"):
        tools.locator("select[name=call]").select_option(call)
        wanted = [name for name, made in calls.items() if made == call]
        expect(shown).to_have_text(f"{len(wanted)} of 11 shown.")
        assert sorted(names(page.rows("table.summary"))) == sorted(wanted), call
        # hidden rows are not shown, not merely sorted away
        hidden = page.page.locator("table.summary tbody tr[hidden]")
        assert hidden.count() == 11 - len(wanted)
        assert all(not row.is_visible() for row in hidden.all())

    # By name (any case, part of it), with a call and without.
    tools.locator("select[name=call]").select_option("slower")
    tools.locator("input[name=name]").fill("MAN")
    expect(shown).to_have_text("1 of 11 shown.")
    assert names(page.rows("table.summary")) == ["mandelbrot"]
    tools.locator("select[name=call]").select_option(value="")
    tools.locator("input[name=name]").fill("sort")
    expect(shown).to_have_text("1 of 11 shown.")
    assert names(page.rows("table.summary")) == ["quicksort"]
    tools.locator("input[name=name]").fill("no such benchmark")
    expect(shown).to_have_text("0 of 11 shown.")
    # Enter in the box does not reload the page (the filter stays).
    tools.locator("input[name=name]").press("Enter")
    expect(shown).to_have_text("0 of 11 shown.")
    tools.locator("input[name=name]").fill("")
    expect(shown).to_have_text("All 11 shown.")
    assert len(page.rows("table.summary")) == 11
    assert page.errors == []


def test_matrix_filters_by_call_and_name(three, opened):
    page = opened(three / "global.html")
    tools = page.page.locator("#matrix-tools")
    rows = page.rows("table.matrix")
    tools.locator("select[name=call]").select_option("unchanged")
    wanted = [row["name"] for row in rows if "unchanged" in row["call"].split()]
    expect(tools.locator(".shown")).to_have_text(f"{len(wanted)} of 11 shown.")
    assert names(page.rows("table.matrix")) == wanted
    tools.locator("select[name=call]").select_option(value="")
    tools.locator("input[name=name]").fill("crc")
    expect(tools.locator(".shown")).to_have_text("1 of 11 shown.")
    assert names(page.rows("table.matrix")) == ["crc32"]


# ---------------------------------------------------------------- without scripts, printed


def test_without_scripts_the_table_reads_as_rendered(two, opened):
    page = opened(two / "global.html", scripts=False)
    expect(page.page.locator("table.summary")).to_be_visible()
    assert page.page.locator("table.summary tbody tr").count() == 11
    assert all(row.is_visible() for row in page.page.locator("table.summary tbody tr").all())
    expect(page.page.locator("#benchmark-tools")).to_be_hidden()  # controls need the script
    assert page.page.locator("table.summary thead button").count() == 0
    expect(page.page.locator("img.forest").first).to_be_visible()


def test_printed_page_has_no_controls(two, opened):
    page = opened(two / "global.html")
    expect(page.page.locator("#benchmark-tools")).to_be_visible()
    page.page.emulate_media(media="print")
    expect(page.page.locator("#benchmark-tools")).to_be_hidden()
    arrow = page.page.locator("table.summary thead button").first.evaluate(
        "button => getComputedStyle(button, '::after').content")
    assert arrow in ("none", "normal")


# ---------------------------------------------------------------- phone width


def _fits(page: Opened, width: int) -> None:
    """Nothing of the page is wider than the viewport: wide tables and figures scroll in
    their own boxes."""
    scroll = page.page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, page.page.url
    assert page.errors == []


@pytest.mark.parametrize("which", ["two", "three"])
def test_phone_width_does_not_overflow(request, opened, which):
    out = request.getfixturevalue(which)
    for report in ("global", "benchmarks", "warnings", "errors"):
        page = opened(out / f"{report}.html", width=PHONE)
        _fits(page, PHONE)
        if report == "global":
            expect(page.page.locator("form.table-tools")).to_be_visible()
            # and tables keep readable columns: a short name is not broken over lines
            broken = page.page.eval_on_selector_all(
                "td.name a", "links => links.filter(a => a.textContent.length <= 12"
                " && a.getClientRects().length > 1).map(a => a.textContent)")
            assert broken == [], which
            page.screenshot(f"{which}-global-phone")


def test_long_names_do_not_overflow(long_names, opened):
    for out in long_names:
        for width in (PHONE, DESKTOP):
            page = opened(out / "global.html", width=width)
            _fits(page, width)
        page = opened(out / "benchmarks.html", width=PHONE)
        _fits(page, PHONE)


# ---------------------------------------------------------------- a notebook's display


def test_notebook_display_shows_answer_and_forest(opened, tmp_path):
    """What Jupyter shows for a result (its _repr_html_), in a page of its own."""
    from speeduptest import analyse_config
    from speeduptest.model.settings import Settings

    results = analyse_config(ROOT / "config.example.csv", Settings())
    path = tmp_path / "notebook.html"
    path.write_text('<!DOCTYPE html><meta charset="utf-8"><body>' + results._repr_html_(),
                    encoding="utf-8")
    page = opened(path, width=800)
    expect(page.page.locator("p.answer")).to_contain_text("faster overall")
    image = page.page.locator("img.forest").first
    expect(image).to_be_visible()
    assert image.evaluate("img => img.complete && img.naturalWidth > 0")
    assert page.errors == []

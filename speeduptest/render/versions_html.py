"""The reports of several versions (global, benchmarks, warnings, errors) as self-contained
HTML, and the same pages as PDF (weasyprint with the print rules of the stylesheet).

Templates (``templates/versions_*.html``) lay out :class:`VersionsResults`; this module only
picks what each table cell shows and formats numbers (the filters of
:func:`speeduptest.render.html.environment`).
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from speeduptest.model.results import BenchmarkResult, Change
from speeduptest.model.versions import HolmAdjusted, VersionsBenchmark, VersionsResults
from speeduptest.model.wording import CORRECTION_LABELS, METHOD_LABELS, threshold_band
from speeduptest.notices import Notice
from speeduptest.render.formatting import TimeScale, elide, level, threshold, time_scale
from speeduptest.render.html import environment
from speeduptest.render.versions_figures import versions_distribution_figure, versions_forest_figure
from speeduptest.render.versions_text import answer_sentence
from speeduptest.runtime.parallel import default_workers, worker_pool

REPORTS = ("global", "benchmarks", "warnings", "errors")
TITLES = {"global": "Versions: global report", "benchmarks": "Versions: per-benchmark report",
          "warnings": "Versions: warnings", "errors": "Versions: errors"}
ROUTE_LABELS = {"anova": "classic one-way ANOVA", "welch": "Welch's ANOVA",
                "kruskal": "Kruskal–Wallis"}


@dataclass(frozen=True)
class Cell:
    """What one version shows for one benchmark: against the baseline (its call) and its
    letters."""

    version: str
    baseline: bool
    analysed: bool
    letters: str
    result: BenchmarkResult | None  # against the baseline (None for the baseline)
    holm: HolmAdjusted | None

    @property
    def call(self) -> Change | None:
        return self.result.change if self.result is not None else None

    @property
    def speedup(self) -> float | None:
        analysis = self.result.analysis if self.result is not None else None
        return analysis.speedup.mean if analysis is not None else None


@dataclass(frozen=True)
class Row:
    """One benchmark of the matrix."""

    index: int
    benchmark: VersionsBenchmark
    cells: tuple[Cell, ...]
    scale: TimeScale


def _data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _scale(benchmark: VersionsBenchmark) -> TimeScale:
    means = [s.mean for s in benchmark.summaries if s is not None]
    return time_scale(benchmark.unit, min(means)) if means else time_scale(None, 1.0)


def rows(results: VersionsResults) -> list[Row]:
    """The matrix: every benchmark with one cell per version."""
    found = []
    for index, benchmark in enumerate(results.benchmarks):
        letters = benchmark.letters
        cells = []
        for v, name in enumerate(results.versions):
            comparison = results.comparison(name)
            cells.append(Cell(
                version=name, baseline=v == results.baseline,
                analysed=benchmark.summaries[v] is not None, letters=letters.get(name, ""),
                result=comparison.by_benchmark[index] if comparison else None,
                holm=comparison.holm[index] if comparison else None))
        found.append(Row(index, benchmark, tuple(cells), _scale(benchmark)))
    return found


def anchor(index: int) -> str:
    return f"benchmark-{index + 1}"


@dataclass(frozen=True)
class WarnedBenchmark:
    index: int
    name: str
    notices: tuple[tuple[str, Notice], ...]  # (which comparison, or "" for all versions)


def warned(results: VersionsResults) -> list[WarnedBenchmark]:
    """Every benchmark's warnings: of the comparison of all versions, then of each version
    against the baseline."""
    found = []
    for index, benchmark in enumerate(results.benchmarks):
        notices = [("all versions", notice) for notice in benchmark.notices]
        for comparison in results.comparisons:
            result = comparison.by_benchmark[index]
            if result is not None:
                label = f"{elide(comparison.version)} vs {elide(comparison.baseline)}"
                notices += [(label, notice) for notice in result.notices]
        if notices:
            found.append(WarnedBenchmark(index, benchmark.name, tuple(notices)))
    return found


def calls_basis(results: VersionsResults) -> str:
    """How the calls against the baseline were made, in words."""
    settings = results.settings
    total = sum(c.results.overall.calls.total for c in results.comparisons)
    changes = [b.change for c in results.comparisons for b in c.results.analysed if b.change]
    levels = " / ".join(sorted({level(change.confidence) for change in changes}))
    methods = " or ".join(sorted({METHOD_LABELS.get(c.method, c.method) for c in changes}))
    corrected = ("not corrected for multiplicity" if settings.correction == "none"
                 else f"{CORRECTION_LABELS[settings.correction]}-corrected over all {total} "
                      "comparisons (benchmark × version)")
    return (f"threshold ±{threshold(settings.threshold)}; each comparison's speedup of the "
            f"means with its {levels} {methods} interval, {corrected}")


class VersionsRenderer:
    """Renders the reports of one run of several versions."""

    def __init__(self, results: VersionsResults, forest: str | None,
                 distributions: dict[int, str], link_extension: str) -> None:
        self.env = environment()
        self.env.filters.update(threshold=threshold)
        lower, upper = threshold_band(results.settings.threshold)
        self.context = {
            "results": results,
            "rows": rows(results),
            "answer": answer_sentence(results),
            "forest": forest,
            "distributions": distributions,
            "anchor": anchor,
            "ext": link_extension,
            "titles": TITLES,
            "route_labels": ROUTE_LABELS,
            "call_methods": METHOD_LABELS,
            "calls_basis": calls_basis(results),
            "band": (f"{lower:.4g}", f"{upper:.4g}"),
            "tie_level": next((level(s.versus_best.confidence) for s in results.standings
                               if s.versus_best is not None), ""),
            "warned": warned(results),
            "zip": zip,
            "comparisons_per_benchmark": len(results.comparisons),
            "show_header": True,
            "show_footer": True,
        }

    def render(self, name: str, **overrides: object) -> str:
        template = self.env.get_template(f"versions_{name}.html")
        return template.render({**self.context, "report": name, "title": TITLES[name],
                                **overrides})

    def render_benchmarks_part(self, indices: Sequence[int], first: bool, last: bool) -> str:
        all_rows = self.context["rows"]
        return self.render("benchmarks", rows=[all_rows[i] for i in indices],
                           show_header=first, show_footer=last)


def draw_distributions(results: VersionsResults, indices: Sequence[int]) -> dict[int, str]:
    found = {}
    for index in indices:
        benchmark = results.benchmarks[index]
        svg = versions_distribution_figure(benchmark, _scale(benchmark))
        if svg is not None:
            found[index] = _data_uri(svg)
    return found


def _forest(results: VersionsResults) -> str | None:
    svg = versions_forest_figure(results)
    return _data_uri(svg) if svg else None


def _task(results: VersionsResults, pdf: bool, part: tuple[tuple[int, ...], bool, bool] | None
          ) -> tuple[dict[int, str], dict[str, bytes]]:
    """A worker's share: the summary pages (``part`` None) or a batch of benchmark pages."""
    from speeduptest.render.pdf import html_to_pdf

    if part is None:
        forest = _forest(results)
        if not pdf:
            return {-1: forest} if forest else {}, {}
        renderer = VersionsRenderer(results, forest, {}, "pdf")
        return ({-1: forest} if forest else {},
                {name: html_to_pdf(renderer.render(name)) for name in ("global", "warnings",
                                                                       "errors")})
    indices, first, last = part
    uris = draw_distributions(results, indices)
    if not pdf:
        return uris, {}
    renderer = VersionsRenderer(results, None, uris, "pdf")
    return uris, {"benchmarks": html_to_pdf(renderer.render_benchmarks_part(indices, first,
                                                                            last))}


def _parts(count: int, workers: int) -> list[tuple[tuple[int, ...], bool, bool]]:
    size = max(3, -(-count // (4 * workers)))
    starts = list(range(0, count, size)) or [0]
    return [(tuple(range(start, min(start + size, count))), start == 0, start == starts[-1])
            for start in starts]


def render_versions_reports(
    results: VersionsResults, pdf: bool, html: bool, workers: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, bytes]:
    """global, benchmarks, warnings and errors as HTML and/or PDF, name → content. Figures
    are drawn once for both; the PDF pages are laid out in parts on every core."""
    from speeduptest.render.pdf import join_and_number

    workers = workers or default_workers()
    parts = _parts(len(results.benchmarks), workers)
    outputs = []
    done = 0
    with worker_pool(workers) as parallel_map:
        for output, task in zip(parallel_map(functools.partial(_task, results, pdf),
                                             [None, *parts]), [None, *parts], strict=True):
            outputs.append(output)
            done += len(task[0]) if task is not None else 0
            if progress is not None:
                progress(done, len(results.benchmarks), "benchmark pages")
    (summary_uris, summary_pdfs), part_outputs = outputs[0], outputs[1:]
    files: dict[str, bytes] = {}
    if html:
        distributions = {i: uri for uris, _ in part_outputs for i, uri in uris.items()}
        renderer = VersionsRenderer(results, summary_uris.get(-1), distributions, "html")
        for name in REPORTS:
            files[f"{name}.html"] = renderer.render(name).encode("utf-8")
    if pdf:
        for name in ("global", "warnings", "errors"):
            files[f"{name}.pdf"] = join_and_number([summary_pdfs[name]])
        files["benchmarks.pdf"] = join_and_number([pdfs["benchmarks"]
                                                   for _, pdfs in part_outputs])
    return files

"""Which files each output format produces, rendered in memory before anything is written.

Drawing figures and laying out PDF pages are by far the slowest steps. They are cut into
independent tasks spread over worker processes (one per core): one task draws the summary
figures and lays out the global, warnings and errors PDFs; every other task draws the
distribution figures of a batch of benchmarks and lays out their part of the per-benchmark
PDF. See benchmarks/reports.py for the timings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from .model import Results
from .parallel import default_workers, worker_pool
from .render.json_results import render_json
from .render.tables import render_csv, render_latex, render_markdown

SUMMARY_REPORTS = ("global", "warnings", "errors")


@dataclass(frozen=True)
class _Part:
    """A batch of benchmarks (by index) of the per-benchmark report."""

    indices: tuple[int, ...]
    first: bool
    last: bool


def _summary_task(results: Results, pdf: bool) -> tuple[tuple, dict[str, bytes]]:
    from .render.html import Figures, ReportRenderer, draw_summary_figures
    from .render.pdf import html_to_pdf

    summary_figures = draw_summary_figures(results)
    if not pdf:
        return summary_figures, {}
    renderer = ReportRenderer(results, Figures(*summary_figures, {}), "pdf")
    return summary_figures, {name: html_to_pdf(renderer.render(name))
                             for name in SUMMARY_REPORTS}


def _part_task(results: Results, pdf: bool, part: _Part) -> tuple[dict[int, str], bytes | None]:
    from .render.html import Figures, ReportRenderer, draw_distributions
    from .render.pdf import html_to_pdf

    uris = draw_distributions(results, part.indices)
    if not pdf:
        return uris, None
    renderer = ReportRenderer(results, Figures(None, (), uris), "pdf")
    return uris, html_to_pdf(renderer.render_benchmarks_part(part.indices, part.first,
                                                             part.last))


def _run(results: Results, pdf: bool, task: _Part | None):
    return _summary_task(results, pdf) if task is None else _part_task(results, pdf, task)


def _parts(count: int, workers: int) -> list[_Part]:
    """Batches small enough to keep every worker busy to the end (about 4 per worker)."""
    size = max(3, -(-count // (4 * workers)))
    starts = list(range(0, count, size)) or [0]
    return [_Part(tuple(range(start, min(start + size, count))), start == 0,
                  start == starts[-1]) for start in starts]


def render_formats(
    results: Results, formats: tuple[str, ...], workers: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, bytes]:
    """All files of the chosen formats, name → content. Figures are drawn once for both
    HTML and PDF; jinja2 and weasyprint are only imported when needed.
    ``progress(done, total, what)`` is told as the benchmarks' pages are laid out."""
    files: dict[str, bytes] = {}
    # results.json first: it is the quickest, and the one CI jobs read.
    if "json" in formats:
        files["results.json"] = render_json(results).encode("utf-8")
    if "html" in formats or "pdf" in formats:
        from .render.html import Figures, ReportRenderer

        pdf = "pdf" in formats
        workers = workers or default_workers()
        parts = _parts(len(results.benchmarks), workers)
        with worker_pool(workers) as parallel_map:
            # The summary first: its three PDFs are the longest task.
            outputs, done = [], 0
            for output, task in zip(parallel_map(functools.partial(_run, results, pdf),
                                                 [None, *parts]), [None, *parts], strict=True):
                outputs.append(output)
                done += len(task.indices) if task is not None else 0
                if progress is not None:
                    progress(done, len(results.benchmarks), "benchmark pages")
        (summary_figures, summary_pdfs), part_outputs = outputs[0], outputs[1:]
        distributions = {i: uri for uris, _ in part_outputs for i, uri in uris.items()}
        if "html" in formats:
            drawn = Figures(*summary_figures, distributions)
            for name, html in ReportRenderer(results, drawn, "html").render_all().items():
                files[f"{name}.html"] = html.encode("utf-8")
        if pdf:
            from .render.pdf import join_and_number

            for name in SUMMARY_REPORTS:
                files[f"{name}.pdf"] = join_and_number([summary_pdfs[name]])
            files["benchmarks.pdf"] = join_and_number([part for _, part in part_outputs])
    for name, file, render in (("md", "summary.md", render_markdown),
                               ("csv", "results.csv", render_csv),
                               ("tex", "table.tex", render_latex)):
        if name in formats:
            files[file] = render(results).encode("utf-8")
    return files

"""Which files each output format produces, rendered in memory before anything is written.

Drawing figures and laying out PDF pages are by far the slowest steps, so they are spread
over worker processes (one per core); see benchmarks/reports.py for the timings.
"""

from __future__ import annotations

from .model import Results
from .parallel import default_workers, worker_pool
from .render.json_results import render_json

FORMATS = ("html", "pdf", "json")
DEFAULT_FORMATS = ("html", "pdf", "json")
#: At least this many benchmarks per part of the per-benchmark PDF laid out by one worker.
BENCHMARKS_PER_PDF_PART = 5


def render_formats(
    results: Results, formats: tuple[str, ...], workers: int | None = None
) -> dict[str, bytes]:
    """All files of the chosen formats, name → content. Figures are drawn once for both
    HTML and PDF; matplotlib, jinja2 and weasyprint are only imported when needed."""
    files: dict[str, bytes] = {}
    if "html" in formats or "pdf" in formats:
        from .render.html import REPORTS, ReportRenderer, draw_figures

        workers = workers or default_workers()
        with worker_pool(workers) as parallel_map:
            drawn = draw_figures(results, parallel_map)
            if "html" in formats:
                for name, html in ReportRenderer(results, drawn, "html").render_all().items():
                    files[f"{name}.html"] = html.encode("utf-8")
            if "pdf" in formats:
                from .render.pdf import html_to_pdf, join_and_number

                renderer = ReportRenderer(results, drawn, "pdf")
                parts_count = max(1, min(len(results.benchmarks) // BENCHMARKS_PER_PDF_PART,
                                         2 * workers))
                documents = {name: [renderer.render(name)] for name in REPORTS}
                documents["benchmarks"] = renderer.render_benchmarks_in_parts(parts_count)
                # Longest first, so that no worker is left with a big job at the end.
                jobs = sorted(((name, i, html) for name, htmls in documents.items()
                               for i, html in enumerate(htmls)), key=lambda j: -len(j[2]))
                pdfs = parallel_map(html_to_pdf, [html for _, _, html in jobs])
                parts: dict[str, dict[int, bytes]] = {name: {} for name in REPORTS}
                for (name, index, _), pdf in zip(jobs, pdfs, strict=True):
                    parts[name][index] = pdf
                for name in REPORTS:
                    ordered = [parts[name][i] for i in sorted(parts[name])]
                    files[f"{name}.pdf"] = join_and_number(ordered)
    if "json" in formats:
        files["results.json"] = render_json(results).encode("utf-8")
    return files

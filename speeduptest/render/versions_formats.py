"""Which files each output format produces for several versions, rendered in memory before
anything is written (as :mod:`speeduptest.render.formats` does for two)."""

from __future__ import annotations

from collections.abc import Callable

from speeduptest.floats import special_values_expected
from speeduptest.model.versions import VersionsResults
from speeduptest.render.versions_json import render_versions_json

REPORTS = ("global", "benchmarks", "warnings", "errors")


@special_values_expected
def render_versions_formats(
    results: VersionsResults, formats: tuple[str, ...], workers: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, bytes]:
    """All files of the chosen formats, name → content. HTML and PDF show the same pages;
    jinja2 and weasyprint are only imported when needed."""
    files: dict[str, bytes] = {}
    if "json" in formats:
        files["results.json"] = render_versions_json(results).encode("utf-8")
    if "html" in formats or "pdf" in formats:
        from speeduptest.render.versions_html import render_versions_reports

        pages = render_versions_reports(results, "pdf" in formats, "html" in formats,
                                        workers=workers, progress=progress)
        files.update(pages)
    if "md" in formats or "csv" in formats or "tex" in formats:
        from speeduptest.render.versions_tables import render_versions_tables

        files.update(render_versions_tables(results, formats))
    return files

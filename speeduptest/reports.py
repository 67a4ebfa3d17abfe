"""Which files each output format produces, rendered in memory before anything is written."""

from __future__ import annotations

from collections.abc import Callable

from .model import Results
from .render.json_results import render_json

FORMATS = ("html", "pdf", "json")
DEFAULT_FORMATS = ("html", "pdf", "json")


def _json_files(results: Results) -> dict[str, bytes]:
    return {"results.json": render_json(results).encode("utf-8")}


def _html_files(results: Results) -> dict[str, bytes]:
    from .render.html import render_html_reports  # matplotlib and jinja2 only when needed

    return {f"{name}.html": html.encode("utf-8")
            for name, html in render_html_reports(results).items()}


def _pdf_files(results: Results) -> dict[str, bytes]:
    from .render.pdf import render_pdf_reports  # weasyprint is slow to import

    return {f"{name}.pdf": pdf for name, pdf in render_pdf_reports(results).items()}


_RENDERERS: dict[str, Callable[[Results], dict[str, bytes]]] = {
    "html": _html_files, "pdf": _pdf_files, "json": _json_files,
}


def render_formats(results: Results, formats: tuple[str, ...]) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for name in formats:
        files.update(_RENDERERS[name](results))
    return files

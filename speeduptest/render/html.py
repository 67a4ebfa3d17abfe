"""The four reports (global, benchmarks, warnings, errors) as self-contained HTML.

The same HTML is turned into PDF by :mod:`speeduptest.render.pdf` (weasyprint reads the print
rules of the stylesheet), so both formats show exactly the same content. Templates only lay out
what the results model holds; the filters below only format numbers.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import jinja2

from ..model import BenchmarkResult, Results
from . import figures
from .formatting import TimeScale, benchmark_scale, speedup

REPORTS = ("global", "benchmarks", "warnings", "errors")
TITLES = {"global": "Global report", "benchmarks": "Per-benchmark report",
          "warnings": "Warnings", "errors": "Errors"}
METHOD_LABELS = {"fieller": "Fieller", "delta": "delta method", "bootstrap": "bootstrap"}
VERDICT_LABELS = {"significant": "significant", "not_significant": "not significant",
                  "inconclusive": "inconclusive"}


def _template_folder() -> Path:
    """Installed: the ``speeduptest.templates`` package; from a source tree: ``templates/``."""
    try:
        folder = resources.files("speeduptest.templates")
        if folder.is_dir():
            return Path(str(folder))
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[2] / "templates"


# ---------------------------------------------------------------- number formatting filters


def number(value: float | None, digits: int = 4) -> str:
    """``digits`` significant digits; whole numbers up to a billion without an exponent."""
    if value is None or not math.isfinite(value):
        return "—"
    text = f"{value:.{digits}g}"
    if "e+" in text and abs(value) < 1e9:
        return f"{value:.0f}"
    return text


def time(value: float | None, scale: TimeScale, digits: int = 5) -> str:
    """A time in the benchmark's display unit (``scale``)."""
    return number(None if value is None else value * scale.factor, digits)


def variance(value: float | None, scale: TimeScale, digits: int = 4) -> str:
    """A variance of times, in the square of the benchmark's display unit."""
    return number(None if value is None else value * scale.factor ** 2, digits)


def p_value(value: float | None) -> str:
    if value is None:
        return "not computed"
    if value == 0:
        return "< 1e-300"
    return f"{value:.3g}"


def percent(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value * 100:.{digits}f}%"


def signed_percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:+.1f}%"


def confidence(value: float | None) -> str:
    """A highest confidence: extreme values are shown as bounds, not as 100.00%."""
    if value is None:
        return "—"
    if value >= 0.9999:
        return "> 99.99%"
    if value < 0.5:  # only a risk near 1 "accepts" the speedup: as good as none
        return "—"
    return f"{value * 100:.2f}%"


def verdict(value: str) -> str:
    return VERDICT_LABELS.get(value, value)


# ---------------------------------------------------------------- figures, drawn once per run


@dataclass(frozen=True)
class Figures:
    """The report figures as data URIs (each SVG isolated: no id clashes, no escaping)."""

    overview: str | None
    forest: str | None
    distributions: dict[int, str]  # benchmark index → data URI


def _data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def distribution_uri(benchmark: BenchmarkResult) -> str:
    return _data_uri(figures.distribution_figure(benchmark.analysis, benchmark_scale(benchmark)))


def draw_summary_figures(results: Results) -> tuple[str | None, str | None]:
    """The overview of verdicts and the forest plot of intervals, as data URIs."""
    overview = figures.speedup_overview_figure(results.benchmarks)
    forest = figures.forest_figure(results.benchmarks, results.overall.geometric_mean)
    return (_data_uri(overview) if overview else None, _data_uri(forest) if forest else None)


def draw_distributions(results: Results, indices: Iterable[int]) -> dict[int, str]:
    """The distribution figure of each analysed benchmark among ``indices``."""
    return {index: distribution_uri(results.benchmarks[index]) for index in indices
            if results.benchmarks[index].analysis is not None}


# ---------------------------------------------------------------- rendering


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_template_folder()),
        autoescape=True,  # every user string (names, paths, messages) is escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(number=number, speedup=speedup, p_value=p_value, percent=percent,
                       signed_percent=signed_percent, confidence=confidence, verdict=verdict,
                       time=time, variance=variance)
    return env


def anchor(index: int) -> str:
    return f"benchmark-{index + 1}"


class ReportRenderer:
    """Renders the reports of one run; a report may be rendered in parts (for the PDF)."""

    def __init__(self, results: Results, drawn: Figures, link_extension: str) -> None:
        self.template_env = environment()
        benchmarks = list(enumerate(results.benchmarks))
        self.context = {
            "results": results,
            "benchmarks": benchmarks,
            "figures": drawn,
            "anchor": anchor,
            "time_scale": benchmark_scale,
            "ext": link_extension,
            "titles": TITLES,
            "method_labels": METHOD_LABELS,
            "warned": [(i, b) for i, b in benchmarks if b.notices],
            "failed": [(i, b) for i, b in benchmarks if b.errors],
            "warning_count": len(results.notices) + sum(
                len(b.notices) for b in results.benchmarks),
            "show_header": True,
            "show_footer": True,
        }

    def render(self, name: str, **overrides: object) -> str:
        template = self.template_env.get_template(f"{name}.html")
        return template.render({**self.context, "report": name, "title": TITLES[name],
                                **overrides})

    def render_all(self) -> dict[str, str]:
        return {name: self.render(name) for name in REPORTS}

    def render_benchmarks_part(self, indices: Sequence[int], first: bool, last: bool) -> str:
        """Part of the per-benchmark report, laid out on its own and joined with the other
        parts into one PDF; only the first part has the header, the last the footer."""
        results = self.context["results"]
        return self.render("benchmarks", benchmarks=[(i, results.benchmarks[i]) for i in indices],
                           show_header=first, show_footer=last)

"""Figures of the reports, drawn with matplotlib as SVG (vector in the PDF, sharp in HTML).

Each function returns the SVG document as text; nothing statistical is computed here beyond
what drawing a box plot or an empirical CDF is.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..change import threshold_band
from ..model import AggregateInterval, BenchmarkResult, PairAnalysis
from .formatting import UNSTATED, TimeScale

INITIAL_COLOUR = "#4C72B0"
OPTIMIZED_COLOUR = "#DD8452"
VERDICT_COLOURS = {"significant": "#2E7D32", "not_significant": "#757575",
                   "inconclusive": "#E69F00", "slower": "#C62828"}
VERDICT_LABELS = {"significant": "significant", "not_significant": "not significant",
                  "inconclusive": "inconclusive", "slower": "slower"}
#: The colours of the calls, as the badges of the reports (templates/report.css).
CALL_COLOURS = {"faster": "#2E7D32", "slower": "#C62828", "unchanged": "#4F6D8A",
                "uncertain": "#8C8C8C"}
GEOMETRIC_MEAN_COLOUR = "#1A1A1A"
BAND_COLOUR = "#DDE6EE"
#: Above this many benchmarks the overview drops the names and sorts by speedup (a labelled
#: overview of this many rows still fits an A4 page).
LABELLED_LIMIT = 45
#: Rows of the forest plot per figure: every figure fits an A4 page; the first one shares
#: page 1 with the answer and the counts of the calls, so it is shorter.
FOREST_ROWS, FOREST_FIRST_ROWS = 45, 28
ROW_HEIGHT = 0.17  # inches per benchmark in the labelled figures

_STYLE = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.hashsalt": "speeduptest",  # stable element ids from run to run
    "svg.fonttype": "none",  # text as text: 5x faster for weasyprint than glyph outlines
}


def _to_svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    return buffer.getvalue()


def _rug(values: np.ndarray, position: float, half_height: float = 0.35):
    """Every run as a short vertical tick, drawn as one path (NaN breaks the line): a PDF
    renderer draws one element instead of one marker per run, which is 10x faster."""
    xs = np.repeat(values, 3)
    ys = np.tile([position - half_height, position + half_height, np.nan], values.size)
    xs[2::3] = np.nan
    return xs, ys


def distribution_figure(analysis: PairAnalysis, scale: TimeScale = UNSTATED) -> str:
    """Both samples side by side: box plots with every run as a point, and the two ECDFs."""
    samples = (analysis.initial_values * scale.factor, analysis.optimized_values * scale.factor)
    quantity = f"execution time ({scale.label})" if scale.label else "execution time"
    with plt.rc_context(_STYLE):
        # A fixed layout: tight_layout would lay the text out twice more (3x slower).
        figure, (left, right) = plt.subplots(1, 2, figsize=(6.6, 2.0),
                                             gridspec_kw={"width_ratios": [1, 1.15]})
        figure.subplots_adjust(left=0.11, right=0.97, bottom=0.22, top=0.97, wspace=0.3)
        left.boxplot(samples, vert=False, widths=0.45, showfliers=False, zorder=4,
                     medianprops={"color": "black", "linewidth": 1.5},
                     tick_labels=["initial", "optimized"])
        for position, (values, colour) in enumerate(zip(samples, (INITIAL_COLOUR,
                                                                  OPTIMIZED_COLOUR),
                                                        strict=True), start=1):
            left.plot(*_rug(values, position), color=colour, linewidth=0.5, alpha=0.55,
                      zorder=3)
        # Divided by 4, not by the minimum: 8 / 5e-324 would overflow.
        heavy_tailed = max(v.max() for v in samples) / 4 >= min(v.min() for v in samples)
        for axes in (left, right):
            if heavy_tailed:  # a linear axis would squeeze the boxes into a line
                axes.set_xscale("log")
                axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                axes.xaxis.set_minor_formatter(ticker.NullFormatter())
            else:
                axes.xaxis.set_major_locator(ticker.MaxNLocator(5))  # fewer labels: lighter PDF
        left.invert_yaxis()
        left.set_xlabel(f"{quantity}: box = quartiles, ticks = every run")
        for values, colour in zip(samples, (INITIAL_COLOUR, OPTIMIZED_COLOUR), strict=True):
            right.ecdf(values, color=colour)
        right.set_xlabel(quantity)
        right.set_ylabel("fraction of runs ≤ t")  # colours as on the left: no legend
        right.yaxis.set_major_locator(ticker.FixedLocator([0, 0.5, 1]))
        return _to_svg(figure)


def _speedup_scale(axes, which: str, speedups) -> None:
    """Log scale for speedups spanning a factor of 4 or more (ratios), linear otherwise (a log
    axis over a narrow range shows one or two ticks); labels like 0.5 and 2, not 5×10⁻¹."""
    values = [v for s in speedups for v in (s.mean, s.median)]
    if max(values) / min(values) >= 4:
        getattr(axes, f"set_{which}scale")("log")
        plain = ticker.FuncFormatter(lambda value, _: f"{value:g}")
        getattr(axes, f"{which}axis").set_major_formatter(plain)


def _short(name: str, limit: int = 32) -> str:
    """Cut in the middle: long names (Java packages, command lines) differ at their ends.
    Drawn literally: a "$" is escaped so that matplotlib never reads the name as math."""
    if len(name) > limit:
        head = (limit - 1) // 3
        name = name[:head] + "…" + name[len(name) - (limit - 1 - head):]
    return name.replace("$", r"\$")


def _colour_key(benchmark: BenchmarkResult, estimator: str) -> str:
    """The verdict of one estimator as coloured: a significant reverse verdict is "slower"."""
    reverse = benchmark.slowdown
    if reverse is not None and getattr(reverse, estimator).verdict == "significant":
        return "slower"
    return getattr(benchmark.analysis, estimator).verdict


def speedup_overview_figure(benchmarks: Sequence[BenchmarkResult]) -> str | None:
    """Per-benchmark speedups of the mean and the median, coloured by verdict."""
    analysed = [b for b in benchmarks if b.analysis is not None]
    if not analysed:
        return None
    labelled = len(analysed) <= LABELLED_LIMIT
    if not labelled:
        analysed = sorted(analysed, key=lambda b: b.analysis.speedup.mean)
    labels = [_short(b.name) for b in analysed]
    # Fixed margins in inches (names on the left, legend on top, axis label below).
    height = ROW_HEIGHT * len(analysed) + 1.1 if labelled else 3.2
    left = 0.35 + 0.058 * max(len(label) for label in labels) if labelled else 0.7
    width = 6.6
    with plt.rc_context(_STYLE):
        figure, axes = plt.subplots(figsize=(width, height))
        figure.subplots_adjust(left=left / width, right=0.97, top=1 - 0.4 / height,
                               bottom=0.55 / height)
        positions = np.arange(len(analysed))
        for estimator, marker, offset in (("mean", "o", -0.15), ("median", "D", 0.15)):
            speedups = [getattr(b.analysis.speedup, estimator) for b in analysed]
            colours = [VERDICT_COLOURS[_colour_key(b, estimator)] for b in analysed]
            if labelled:
                axes.scatter(speedups, positions + offset, c=colours, marker=marker, s=16,
                             zorder=3)
            else:
                axes.scatter(positions, speedups, c=colours, marker=marker, s=6, zorder=3)
        if labelled:
            axes.axvline(1.0, color="black", linewidth=0.8)
            axes.set_yticks(positions, labels)
            axes.set_ylim(len(analysed) - 0.5, -0.5)
            _speedup_scale(axes, "x", [b.analysis.speedup for b in analysed])
            axes.set_xlabel("speedup = ET(initial) / ET(optimized)   (> 1: optimized is faster)")
            axes.grid(axis="x", which="both", linewidth=0.3, alpha=0.5)
        else:
            axes.axhline(1.0, color="black", linewidth=0.8)
            _speedup_scale(axes, "y", [b.analysis.speedup for b in analysed])
            axes.set_xlabel("benchmarks, sorted by speedup of the mean")
            axes.set_ylabel("speedup (> 1: faster)")
            axes.grid(axis="y", which="both", linewidth=0.3, alpha=0.5)
        handles = [plt.Line2D([], [], linestyle="", marker="o", color="black", label="mean"),
                   plt.Line2D([], [], linestyle="", marker="D", color="black", label="median")]
        handles += [plt.Line2D([], [], linestyle="", marker="s", color=colour,
                               label=VERDICT_LABELS[verdict])
                    for verdict, colour in VERDICT_COLOURS.items()]
        # Centred on the figure, not on the axes: long names would push it off the page.
        figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0),
                      ncol=len(handles), frameon=False, borderaxespad=0.2,
                      columnspacing=1.2, handletextpad=0.3)
        return _to_svg(figure)


@dataclass(frozen=True)
class ForestPart:
    """One figure of the forest plot: the rows ``first`` to ``last`` (1-based) of ``total``
    benchmarks, in the order of their speedup."""

    svg: str
    first: int
    last: int
    total: int


def _forest_chunks(count: int) -> list[tuple[int, int]]:
    """(start, stop) of each figure's rows: a short first figure (page 1), then figures of
    at most FOREST_ROWS rows and of nearly equal size. ``count`` includes the geometric
    mean; the last figure keeps a few rows besides it."""
    if count <= FOREST_FIRST_ROWS:
        return [(0, count)]
    first = min(FOREST_FIRST_ROWS, count - 8)
    rest = count - first
    figures = -(-rest // FOREST_ROWS)
    size, extra = divmod(rest, figures)
    bounds, start = [(0, first)], first
    for index in range(figures):
        stop = start + size + (index < extra)
        bounds.append((start, stop))
        start = stop
    return bounds


def _x_limits(values: list[float], log: bool) -> tuple[float, float]:
    low, high = min(values), max(values)
    if log:
        pad = (high / low) ** 0.04
        return low / pad, high * pad
    pad = (high - low) * 0.04 or 0.01
    return low - pad, high + pad


def forest_figures(benchmarks: Sequence[BenchmarkResult],
                   geometric_mean: AggregateInterval | None,
                   threshold: float) -> list[ForestPart]:
    """Every analysed benchmark, by speedup of the means (fastest first): the speedup as a
    point, the corrected interval of its call as a bar, both in the colour of the call; the
    threshold band 1/(1 + τ) … 1 + τ shaded; the weighted geometric mean with its
    interval as the last row. Drawn as several figures of at most FOREST_ROWS rows with the
    same axis, so that every benchmark is shown and each figure fits a page."""
    analysed = sorted((b for b in benchmarks if b.analysis is not None and b.change is not None),
                      key=lambda b: -b.analysis.speedup.mean)
    if not analysed:
        return []
    rows: list[tuple[str, float, float | None, float | None, str]] = [
        (_short(b.name), b.analysis.speedup.mean, b.change.low, b.change.high, b.change.call)
        for b in analysed]
    if geometric_mean is not None:
        rows.append(("geometric mean", geometric_mean.value, geometric_mean.low,
                     geometric_mean.high, "geometric"))
    band = threshold_band(threshold)
    values = [v for row in rows for v in row[1:4] if v is not None] + list(band)
    log = max(values) / min(values) >= 4
    limits = _x_limits(values, log)
    # The same left margin in every figure, so that their axes line up.
    left = 0.35 + 0.058 * max(len(row[0]) for row in rows)
    width, top, bottom = 6.6, 0.42, 0.5
    handles = [plt.Line2D([], [], marker="s", markersize=3.5, linewidth=1.2, color=colour,
                          label=call) for call, colour in CALL_COLOURS.items()]
    handles.append(plt.Line2D([], [], marker="D", markersize=4.5, linewidth=2,
                              color=GEOMETRIC_MEAN_COLOUR, label="geometric mean"))
    if threshold > 0:
        handles.append(Patch(facecolor=BAND_COLOUR, label=f"±{threshold * 100:.3g}% band"))
    parts = []
    for start, stop in _forest_chunks(len(rows)):
        chunk = rows[start:stop]
        height = ROW_HEIGHT * len(chunk) + top + bottom
        with plt.rc_context(_STYLE):
            figure, axes = plt.subplots(figsize=(width, height))
            figure.subplots_adjust(left=min(left / width, 0.6), right=0.97,
                                   top=1 - top / height, bottom=bottom / height)
            if threshold > 0:
                axes.axvspan(*band, color=BAND_COLOUR, linewidth=0, zorder=0)
            axes.axvline(1.0, color="black", linewidth=0.8, zorder=1)
            for position, (_, value, low, high, call) in enumerate(chunk):
                geometric = call == "geometric"
                colour = GEOMETRIC_MEAN_COLOUR if geometric else CALL_COLOURS[call]
                if low is not None and high is not None:
                    axes.plot([low, high], [position, position], color=colour,
                              linewidth=2 if geometric else 1.2, zorder=2)
                else:
                    axes.plot(limits, [position, position], color=colour, linewidth=0.6,
                              linestyle=":", zorder=2)
                    axes.annotate("interval unbounded", (value, position), xytext=(4, 2),
                                  textcoords="offset points", fontsize=6, va="bottom")
                axes.plot([value], [position], marker="D" if geometric else "s",
                          markersize=5 if geometric else 3.5, color=colour, zorder=3)
            axes.set_yticks(range(len(chunk)), [row[0] for row in chunk])
            axes.set_ylim(len(chunk) - 0.5, -0.5)
            if log:
                axes.set_xscale("log")
                axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            axes.set_xlim(*limits)
            axes.set_xlabel("speedup of the means with the corrected interval of its call "
                            "(> 1: faster)")
            # Minor grid lines only where they are few (less than two decades).
            axes.grid(axis="x", which="both" if limits[1] / limits[0] < 100 else "major",
                      linewidth=0.3, alpha=0.5)
            figure.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 1.0),
                          ncol=len(handles), frameon=False, borderaxespad=0.2,
                          columnspacing=1.0, handlelength=1.6, handletextpad=0.4)
            parts.append(ForestPart(_to_svg(figure), start + 1, min(stop, len(analysed)),
                                    len(analysed)))
    return parts

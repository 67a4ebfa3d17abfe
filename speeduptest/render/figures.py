"""Figures of the reports, drawn with matplotlib as SVG (vector in the PDF, sharp in HTML).

Each function returns the SVG document as text; nothing statistical is computed here beyond
what drawing a box plot or an empirical CDF is.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # no display; must precede pyplot

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker
from matplotlib.figure import Figure

from ..model import AggregateInterval, BenchmarkResult, PairAnalysis
from .formatting import UNSTATED, TimeScale

INITIAL_COLOUR = "#4C72B0"
OPTIMIZED_COLOUR = "#DD8452"
VERDICT_COLOURS = {"significant": "#2E7D32", "not_significant": "#757575",
                   "inconclusive": "#E69F00"}
VERDICT_LABELS = {"significant": "significant", "not_significant": "not significant",
                  "inconclusive": "inconclusive"}
#: Above this many benchmarks the overview drops the names and sorts by speedup.
LABELLED_LIMIT = 60

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
        figure.subplots_adjust(left=0.11, right=0.99, bottom=0.22, top=0.97, wspace=0.3)
        left.boxplot(samples, vert=False, widths=0.45, showfliers=False, zorder=4,
                     medianprops={"color": "black", "linewidth": 1.5},
                     tick_labels=["initial", "optimized"])
        for position, (values, colour) in enumerate(zip(samples, (INITIAL_COLOUR,
                                                                  OPTIMIZED_COLOUR),
                                                        strict=True), start=1):
            left.plot(*_rug(values, position), color=colour, linewidth=0.5, alpha=0.55,
                      zorder=3)
        heavy_tailed = max(v.max() for v in samples) / min(v.min() for v in samples) >= 4
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
    """Cut in the middle: long names (Java packages, command lines) differ at their ends."""
    if len(name) <= limit:
        return name
    head = (limit - 1) // 3
    return name[:head] + "…" + name[len(name) - (limit - 1 - head):]


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
    height = 0.17 * len(analysed) + 1.1 if labelled else 3.2
    left = 0.35 + 0.058 * max(len(label) for label in labels) if labelled else 0.7
    width = 6.6
    with plt.rc_context(_STYLE):
        figure, axes = plt.subplots(figsize=(width, height))
        figure.subplots_adjust(left=left / width, right=0.97, top=1 - 0.4 / height,
                               bottom=0.55 / height)
        positions = np.arange(len(analysed))
        for estimator, marker, offset in (("mean", "o", -0.15), ("median", "D", 0.15)):
            speedups = [getattr(b.analysis.speedup, estimator) for b in analysed]
            colours = [VERDICT_COLOURS[getattr(b.analysis, estimator).verdict]
                       for b in analysed]
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
        axes.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=5,
                    frameon=False, borderaxespad=0.3)
        return _to_svg(figure)


def forest_figure(benchmarks: Sequence[BenchmarkResult],
                  geometric_mean: AggregateInterval | None) -> str | None:
    """Speedup of the means with its interval for every benchmark (the interval the statement
    uses), a line at 1, and the weighted geometric mean with its interval at the bottom."""
    rows = [(_short(b.name), b.effect.speedup, b.effect.headline)
            for b in benchmarks if b.effect is not None]
    if not rows:
        return None
    if len(rows) > LABELLED_LIMIT:  # too many to name: keep the aggregate and the extremes
        rows = sorted(rows, key=lambda row: row[1])
        rows = rows[:LABELLED_LIMIT // 2] + rows[-LABELLED_LIMIT // 2:]
    labels = [row[0] for row in rows]
    if geometric_mean is not None:
        labels.append("geometric mean")
    height = 0.17 * len(labels) + 1.0
    left = 0.35 + 0.058 * max(len(label) for label in labels)
    width = 6.6
    with plt.rc_context(_STYLE):
        figure, axes = plt.subplots(figsize=(width, height))
        figure.subplots_adjust(left=left / width, right=0.97, top=1 - 0.15 / height,
                               bottom=0.55 / height)
        lows, highs = [], []
        for position, (_, speedup, interval) in enumerate(rows):
            colour = "#333333"
            if interval.bounded:
                axes.plot([interval.low, interval.high], [position, position], color=colour,
                          linewidth=1)
                lows.append(interval.low)
                highs.append(interval.high)
            else:
                axes.annotate("unbounded", (speedup, position), xytext=(4, 0),
                              textcoords="offset points", fontsize=6, va="center")
            axes.plot([speedup], [position], marker="s", color=colour, markersize=3.5)
        if geometric_mean is not None:
            position = len(rows)
            axes.plot([geometric_mean.low, geometric_mean.high], [position, position],
                      color=VERDICT_COLOURS["significant"], linewidth=2)
            axes.plot([geometric_mean.value], [position], marker="D", markersize=5,
                      color=VERDICT_COLOURS["significant"])
            lows.append(geometric_mean.low)
            highs.append(geometric_mean.high)
        axes.axvline(1.0, color="black", linewidth=0.8)
        axes.set_yticks(range(len(labels)), labels)
        axes.set_ylim(len(labels) - 0.5, -0.5)
        values = [row[1] for row in rows] + lows + highs
        if max(values) / min(values) >= 4:
            axes.set_xscale("log")
            axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        axes.set_xlabel("speedup of the means with its confidence interval (> 1: faster)")
        axes.grid(axis="x", which="both", linewidth=0.3, alpha=0.5)
        return _to_svg(figure)

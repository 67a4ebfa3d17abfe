"""Figures of the reports, written as SVG by hand from the numbers (no plotting library).

A figure is a few dozen SVG elements: every run of a sample is one segment of a single path,
the markers of one colour are one path, and only tick labels, names and legends are text.
Drawing one takes about a millisecond, and laying it out in a PDF (weasyprint re-reads every
SVG element, and every text element costs it a text layout) is several times cheaper than a
matplotlib SVG of the same figure. For the PDF, text is placed at its start (``placed``):
weasyprint draws every centred or right-aligned SVG text into a group of its own, which made
a third of a per-benchmark PDF's size and a twentieth of its layout time. Large samples are
drawn at the figure's resolution (runs that fall on the same tenth of a point are one tick),
so a figure of 10⁶ runs is no larger than one of 10⁴. Each function returns the SVG document
as text; nothing statistical is computed here beyond what drawing a box plot or an empirical
CDF is.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape

import numpy as np

from speeduptest.model.results import (
    AggregateInterval,
    BenchmarkResult,
    PairAnalysis,
    Results,
    SideValidity,
)
from speeduptest.model.versions import VersionsBenchmark
from speeduptest.model.wording import threshold_band
from speeduptest.render.formatting import (
    UNSTATED,
    VERSION_WIDTH,
    TimeScale,
    elide,
    elide_apart,
    speedup,
)

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
GRID_COLOUR = "#D9D9D9"
TEXT_COLOUR = "#1A1A1A"
#: Above this many benchmarks the overview drops the names and sorts by speedup (a labelled
#: overview of this many rows still fits an A4 page).
LABELLED_LIMIT = 45
#: Rows of the forest plot per figure: every figure fits an A4 page; the first one shares
#: page 1 with the answer and the counts of the calls, so it is shorter.
FOREST_ROWS, FOREST_FIRST_ROWS = 45, 28
ROW_HEIGHT = 0.17 * 72  # points per benchmark in the labelled figures
#: Characters of a benchmark's name labelling its row (elided in the middle).
LABEL_WIDTH = 32
WIDTH = 6.6 * 72  # points: every figure is drawn at the width it has on an A4 page
FONT_SIZE, SMALL_SIZE = 7.0, 6.0
#: The first family is the one the PDF is laid out with; browsers fall back on their own.
FONT_FAMILY = "DejaVu Sans, Verdana, Arial, sans-serif"

# Advance widths of DejaVu Sans (per 1000 em) of the printable ASCII characters, to place
# labels and legends without a font engine; other characters count as 0.7 em.
_ASCII_WIDTHS = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698,
    770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732,
    684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635,
    634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,
    525, 636, 337, 636, 838)
_OTHER_WIDTHS = {"–": 500, "—": 1000, "×": 838, "≤": 838, "≥": 838, "±": 838, "…": 1000,
                 "·": 318, "µ": 636}


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """The width in points of ``text`` set in DejaVu Sans at ``size`` points."""
    total = 0
    for char in text:
        code = ord(char)
        total += (_ASCII_WIDTHS[code - 32] if 32 <= code < 127
                  else _OTHER_WIDTHS.get(char, 700))
    return total * size / 1000


def measurable(text: str) -> bool:
    """Whether :func:`text_width` knows the width of every character of ``text``."""
    return all(32 <= ord(char) < 127 or char in _OTHER_WIDTHS for char in text)


def blend(colour: str, opacity: float) -> str:
    """``colour`` (#RRGGBB) at ``opacity`` over white, as an opaque colour: the same ink as
    SVG's ``opacity`` for one path on a white ground, without the transparency group that
    weasyprint makes for it."""
    channels = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c * opacity + 255 * (1 - opacity)):02X}" for c in channels)


def _n(value: float) -> str:
    """A coordinate with two decimals at most (a tenth of a point is finer than ink)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class Canvas:
    """An SVG document being written, in points, with y growing downwards. A ``placed``
    canvas writes centred and right-aligned text (of known widths) at its start instead of
    with ``text-anchor``: exact in DejaVu Sans, the font of the PDF, while a browser may
    substitute a wider one."""

    def __init__(self, width: float, height: float, placed: bool = False) -> None:
        self.width, self.height = width, height
        self.placed = placed
        self.parts: list[str] = []

    def text(self, x: float, y: float, text: str, anchor: str = "start", size: float | None = None,
             colour: str | None = None, rotate: bool = False, weight: str | None = None) -> None:
        if anchor != "start" and self.placed and weight is None and measurable(text):
            shift = text_width(text, size or FONT_SIZE) * (0.5 if anchor == "middle" else 1)
            x, y, anchor = (x, y + shift, "start") if rotate else (x - shift, y, "start")
        attributes = [f'x="{_n(x)}"', f'y="{_n(y)}"']
        if anchor != "start":
            attributes.append(f'text-anchor="{anchor}"')
        if size is not None and size != FONT_SIZE:
            attributes.append(f'font-size="{_n(size)}"')
        if colour is not None:
            attributes.append(f'fill="{colour}"')
        if weight is not None:
            attributes.append(f'font-weight="{weight}"')
        if rotate:
            attributes.append(f'transform="rotate(-90 {_n(x)} {_n(y)})"')
        self.parts.append(f"<text {' '.join(attributes)}>{escape(text)}</text>")

    def path(self, d: str, stroke: str | None = None, width: float = 0.8,
             fill: str = "none", opacity: float | None = None, dash: str | None = None) -> None:
        if not d:
            return
        attributes = [f'd="{d}"', f'fill="{fill}"']
        if stroke is not None:
            attributes.append(f'stroke="{stroke}" stroke-width="{_n(width)}"')
        if opacity is not None:
            attributes.append(f'opacity="{opacity}"')
        if dash is not None:
            attributes.append(f'stroke-dasharray="{dash}"')
        self.parts.append(f"<path {' '.join(attributes)}/>")

    def rect(self, x: float, y: float, width: float, height: float, fill: str) -> None:
        self.parts.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" '
                          f'height="{_n(height)}" fill="{fill}"/>')

    def svg(self) -> str:
        width, height = _n(self.width), _n(self.height)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}pt" '
                f'height="{height}pt" viewBox="0 0 {width} {height}" '
                f'font-family="{FONT_FAMILY}" font-size="{_n(FONT_SIZE)}" '
                f'fill="{TEXT_COLOUR}">' + "".join(self.parts) + "</svg>\n")


# ---------------------------------------------------------------- axes


def _nice_step(span: float, count: int) -> float:
    """A step of 1, 2, 2.5 or 5 × 10^k giving about ``count`` intervals over ``span``."""
    raw = span / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * 0.999)


def _decimals(step: float) -> int:
    """Decimals that write every multiple of ``step`` exactly (0.25 → 2, 5 → 0)."""
    for decimals in range(0, 16):
        if abs(round(step, decimals) - step) <= step * 1e-9:
            return decimals
    return 15


def _plain(value: float, decimals: int | None = None) -> str:
    """A tick label: 0.5, 2, 1500, 1e-09; never 5×10⁻¹ or 1.0000000002."""
    if value == 0:
        return "0"
    if decimals is not None and 1e-4 <= abs(value) < 1e7:
        return f"{value:.{decimals}f}"
    return f"{value:.6g}"


@dataclass(frozen=True)
class Axis:
    """A mapping of data values onto a segment of the page, linear or logarithmic."""

    low: float
    high: float
    start: float  # page coordinate of ``low``
    end: float  # page coordinate of ``high``
    log: bool

    @property
    def _floor(self) -> float:
        """Where a log axis puts values at or below 0 (off its low end; the low end itself
        when a thousandth of it is below every float)."""
        return self.low * 1e-3 or self.low

    def __call__(self, value: float) -> float:
        if self.log:
            low, high = math.log(self.low), math.log(self.high)
            value = math.log(max(value, self._floor))
        else:
            low, high = self.low, self.high
        return self.start + (value - low) / (high - low) * (self.end - self.start)

    def array(self, values: np.ndarray) -> np.ndarray:
        if self.log:
            low, high = math.log(self.low), math.log(self.high)
            values = np.log(np.maximum(values, self._floor))
        else:
            low, high = self.low, self.high
        return self.start + (values - low) / (high - low) * (self.end - self.start)

    def ticks(self, count: int = 5) -> tuple[list[tuple[float, str]], list[float]]:
        """Major ticks as (value, label), and minor tick values (log axes only)."""
        if not self.log:
            step = _nice_step(self.high - self.low, count)
            decimals = _decimals(step)
            first = math.ceil(self.low / step - 1e-9)
            values = [k * step for k in range(first, math.floor(self.high / step + 1e-9) + 1)]
            return [(v, _plain(v, decimals)) for v in values], []
        low, high = math.log10(self.low), math.log10(self.high)
        decades = high - low
        if decades > 6:  # every few decades
            every = math.ceil(decades / count)
            first = math.ceil(low / every - 1e-9) * every
            return [(10.0 ** e, _plain(10.0 ** e))
                    for e in range(first, math.floor(high + 1e-9) + 1, every)], []
        mantissas = (1,) if decades > 2 else (1, 2, 5)
        major, minor = [], []
        for exponent in range(math.floor(low) - 1, math.ceil(high) + 1):
            for m in range(1, 10):
                value = m * 10.0 ** exponent
                if self.low <= value * (1 + 1e-9) and value <= self.high * (1 + 1e-9):
                    (major if m in mantissas else minor).append(value)
        if len(major) < 3:  # less than a factor of 10: plain steps on the log axis
            step = _nice_step(self.high - self.low, count)
            decimals = _decimals(step)
            first = math.ceil(self.low / step - 1e-9)
            values = [k * step for k in range(first, math.floor(self.high / step + 1e-9) + 1)]
            return [(v, _plain(v, decimals)) for v in values if v > 0], []
        return [(v, _plain(v)) for v in major], minor


def _limits(values: Iterable[float], log: bool, pad: float = 0.04,
            single: float = 1.1) -> tuple[float, float]:
    """An axis' ends around ``values`` with a margin (``pad`` of the range; on a log axis a
    factor, ``single`` when all values are one)."""
    finite = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    low, high = min(finite), max(finite)
    if log:
        # In logarithms: times from 1e-320 to 1e5 overflow high / low. An end beyond the
        # floats (a margin below 5e-324) stays at the value itself.
        ratio = math.exp(pad * (math.log(high) - math.log(low))) if high > low else single
        return (low / ratio or low), (high * ratio if high * ratio < math.inf else high)
    margin = (high - low) * pad or (abs(low) * 0.05 or 1.0)
    # Near the largest float (times of 1e308) the ends, and the span between them, stay
    # floats: the high end at most the largest, the low end at most that much below it.
    high_end = min(high + margin, sys.float_info.max)
    return max(low - margin, high_end - sys.float_info.max), high_end


def _use_log(values: Sequence[float], factor: float = 4) -> bool:
    """A logarithmic axis for positive values spanning ``factor`` or more. Divided, not
    multiplied: 4 × 1e308 would overflow."""
    low, high = min(values), max(values)
    return low > 0 and high / factor >= low


def _horizontal_axis(canvas: Canvas, axis: Axis, top: float, bottom: float, count: int = 5,
                     grid: bool = False, minor_grid: bool = False) -> None:
    """Tick marks and labels below ``bottom``; grid lines from ``top`` to ``bottom``."""
    major, minor = axis.ticks(count)
    major, unlabelled = _spaced(axis, major)
    minor = [*minor, *unlabelled]
    lines, grid_lines = [], []
    for value, label in major:
        x = axis(value)
        lines.append(f"M{_n(x)} {_n(bottom)}v3")
        if grid:
            grid_lines.append(f"M{_n(x)} {_n(top)}V{_n(bottom)}")
        canvas.text(x, bottom + 10, label, anchor="middle")
    for value in minor:
        x = axis(value)
        lines.append(f"M{_n(x)} {_n(bottom)}v1.5")
        if minor_grid:
            grid_lines.append(f"M{_n(x)} {_n(top)}V{_n(bottom)}")
    canvas.path("".join(grid_lines), stroke=GRID_COLOUR, width=0.4)
    canvas.path(f"M{_n(axis.start)} {_n(bottom)}H{_n(axis.end)}" + "".join(lines),
                stroke=TEXT_COLOUR, width=0.6)


def _apart(axis: Axis, ticks: Sequence[tuple[float, str]], gap: float = 6.0) -> bool:
    """Whether the labels of ``ticks``, centred on them along a horizontal ``axis``, are
    ``gap`` points apart or more."""
    placed = [(axis(value), text_width(label)) for value, label in ticks]
    return all(abs(x1 - x0) >= (w0 + w1) / 2 + gap
               for (x0, w0), (x1, w1) in itertools.pairwise(placed))


def _tick_count(axis: Axis, count: int) -> int:
    """At most ``count`` intervals between the ticks of a horizontal linear ``axis``, fewer
    when their labels would run into each other (a narrow panel, long labels)."""
    while count > 1 and not axis.log and not _apart(axis, axis.ticks(count)[0]):
        count -= 1
    return count


def _spaced(axis: Axis, major: list[tuple[float, str]]
            ) -> tuple[list[tuple[float, str]], list[float]]:
    """The ticks of a horizontal ``axis`` to label, and those left unlabelled, so that no
    two labels run into each other: on a log axis the powers of ten when they do, else every
    label that keeps its distance from the last one kept."""
    if _apart(axis, major):
        return major, []
    kept = major
    if axis.log:
        decades = [(v, label) for v, label in major
                   if v > 0 and abs(math.log10(v) - round(math.log10(v))) < 1e-9]
        kept = decades if len(decades) >= 2 else major
    if not _apart(axis, kept):
        thinned = kept[:1]
        for tick in kept[1:]:
            if _apart(axis, [thinned[-1], tick]):
                thinned.append(tick)
        kept = thinned
    return kept, [v for v, label in major if (v, label) not in kept]


@dataclass(frozen=True)
class Key:
    """A legend entry: ``symbol`` (circle, diamond, square, bar-square, bar-diamond, band)
    in ``colour``, then ``label``."""

    symbol: str
    colour: str
    label: str


def _legend(canvas: Canvas, keys: Sequence[Key], y: float) -> None:
    """The legend in one row centred on the figure, with its text baseline at ``y``."""
    gap, symbol = 10.0, 12.0
    widths = [symbol + 3 + text_width(key.label) for key in keys]
    x = (canvas.width - sum(widths) - gap * (len(keys) - 1)) / 2
    for key, width in zip(keys, widths, strict=True):
        cx, cy = x + symbol / 2, y - 2.3
        if key.symbol == "band":
            canvas.rect(cx - 5, cy - 3.5, 10, 7, key.colour)
        else:
            shape = key.symbol.removeprefix("bar-")
            size = {"circle": 4.5, "diamond": 5.0, "square": 4.5}[shape]
            d = {"circle": _circle, "diamond": _diamond, "square": _square}[shape](cx, cy, size)
            if key.symbol.startswith("bar-"):
                canvas.path(f"M{_n(cx - 6)} {_n(cy)}h12" + d, stroke=key.colour,
                            width=2.0 if shape == "diamond" else 1.2, fill=key.colour)
            else:
                canvas.path(d, fill=key.colour)
        canvas.text(x + symbol + 3, y, key.label)
        x += width + gap


def _square(x: float, y: float, side: float) -> str:
    h = side / 2
    return f"M{_n(x - h)} {_n(y - h)}h{_n(side)}v{_n(side)}h{_n(-side)}z"


def _diamond(x: float, y: float, size: float) -> str:
    h = size / 2
    return f"M{_n(x)} {_n(y - h)}l{_n(h)} {_n(h)}l{_n(-h)} {_n(h)}l{_n(-h)} {_n(-h)}z"


def _circle(x: float, y: float, size: float) -> str:
    r = _n(size / 2)
    return f"M{_n(x - size / 2)} {_n(y)}a{r} {r} 0 1 0 {_n(size)} 0a{r} {r} 0 1 0 {_n(-size)} 0z"


# ---------------------------------------------------------------- one benchmark's samples


def _positions(values: np.ndarray, axis: Axis) -> np.ndarray:
    """Page coordinates of ``values``, rounded to a tenth of a point, without repeats: what
    a reader can see of a large sample."""
    return np.unique(np.round(axis.array(values), 1))


def _quartiles_and_whiskers(values: np.ndarray) -> tuple[float, float, float, float, float]:
    """Box plot statistics: the whiskers reach the most extreme runs within 1.5 IQR of the
    box (as matplotlib and R draw them)."""
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    low = values[values >= q1 - reach].min()
    high = values[values <= q3 + reach].max()
    return float(low), float(q1), float(median), float(q3), float(high)


def distribution_figure(analysis: PairAnalysis, scale: TimeScale = UNSTATED,
                        placed: bool = False, height: float = 136.0,
                        titles: bool = True, width: float = WIDTH) -> str:
    """Both samples side by side: box plots with every run as a tick, and the two ECDFs.
    ``placed``: text placed for the PDF (see :class:`Canvas`). Without ``titles`` the axes
    are left for the caption to name: weasyprint lays out SVG text letter by letter, and
    the titles were two thirds of the letters. ``width``: the points the figure takes on
    the page (the PDF sets it beside the run-sequence plot, at half the page's width), so
    that its text keeps its size there."""
    samples = []
    for values in (analysis.initial_values, analysis.optimized_values):
        values = np.asarray(values, dtype=float)
        scaled = values * scale.factor
        samples.append(scaled if np.isfinite(scaled).all() else values)
    quantity = f"execution time ({scale.label})" if scale.label else "execution time"
    colours = (INITIAL_COLOUR, OPTIMIZED_COLOUR)
    canvas = Canvas(width, height, placed)
    top, bottom = 5.0, height - (27 if titles else 15)
    lows = [float(v.min()) for v in samples]
    highs = [float(v.max()) for v in samples]
    log = _use_log([min(lows), max(highs)])  # a linear axis would squeeze the boxes into a line
    limits = _limits([min(lows), max(highs)], log)
    # Room for the names of the samples, between the panels for the fractions' labels (and
    # the rotated title), the box plots 168/367 of what is left.
    names = 50.0 if width >= WIDTH else 8 + text_width("optimized")
    gap = 50.0 if titles else 24.0
    left = Axis(*limits, names, names + (width - names - gap - 8) * 168 / 367, log)
    right = Axis(*limits, left.end + gap, width - 8, log)

    # Left: the box plots, initial above optimized, every run as a tick.
    rows = (top + (bottom - top) * 0.27, top + (bottom - top) * 0.73)
    half = (bottom - top) * 0.23 * 0.45 / 0.46
    boxes = []
    for values, colour, y, label in zip(samples, colours, rows, ("initial", "optimized"),
                                        strict=True):
        xs = _positions(values, left)
        tick = half * 0.75
        canvas.path("".join(f"M{x:.1f} {_n(y - tick)}v{_n(2 * tick)}" for x in xs),
                    stroke=blend(colour, 0.6), width=0.5)
        low, q1, median, q3, high = (left(v) for v in _quartiles_and_whiskers(values))
        h = half * 0.5
        boxes.append(
            f"M{_n(q1)} {_n(y - h)}H{_n(q3)}V{_n(y + h)}H{_n(q1)}z"
            f"M{_n(low)} {_n(y)}H{_n(q1)}M{_n(q3)} {_n(y)}H{_n(high)}"
            f"M{_n(low)} {_n(y - h / 2)}v{_n(h)}M{_n(high)} {_n(y - h / 2)}v{_n(h)}")
        canvas.path(f"M{_n(median)} {_n(y - h)}v{_n(2 * h)}", stroke="#000", width=1.5)
        canvas.text(left.start - 4, y + 2.5, label, anchor="end")
    canvas.path("".join(boxes), stroke="#000", width=0.8)
    canvas.path(f"M{_n(left.start)} {_n(top)}V{_n(bottom)}", stroke=TEXT_COLOUR, width=0.6)
    _horizontal_axis(canvas, left, top, bottom, count=_tick_count(left, 4))
    if titles:
        canvas.text((left.start + left.end) / 2, height - 4, f"{quantity}: box = quartiles, "
                    "ticks = every run", anchor="middle")

    # Right: the empirical distribution functions, in the same colours (no legend).
    fraction = Axis(0.0, 1.0, bottom, top, False)
    for values, colour in zip(samples, colours, strict=True):
        xs, counts = np.unique(np.round(right.array(np.sort(values)), 1), return_counts=True)
        ys = fraction.array(np.cumsum(counts) / values.size)
        steps = [f"M{_n(right.start)} {_n(fraction(0))}H{xs[0]:.1f}"]
        steps += [f"V{y:.1f}H{x:.1f}" for x, y in zip(xs[1:], ys[:-1], strict=True)]
        steps.append(f"V{ys[-1]:.1f}H{_n(right.end)}")
        canvas.path("".join(steps), stroke=colour, width=1.0)
    ticks = []
    for value in (0, 0.5, 1):
        y = fraction(value)
        ticks.append(f"M{_n(right.start - 3)} {_n(y)}h3")
        canvas.text(right.start - 5, y + 2.5, _plain(value), anchor="end")
    canvas.path(f"M{_n(right.start)} {_n(top)}V{_n(bottom)}" + "".join(ticks),
                stroke=TEXT_COLOUR, width=0.6)
    _horizontal_axis(canvas, right, top, bottom, count=_tick_count(right, 5))
    if titles:
        canvas.text((right.start + right.end) / 2, height - 4, quantity, anchor="middle")
        canvas.text(right.start - 20, (top + bottom) / 2, "fraction of runs ≤ t",
                    anchor="middle", rotate=True)
    return canvas.svg()


# ---------------------------------------------------------------- one benchmark's run sequence

#: The most values of one side a run-sequence plot draws: a longer side is drawn every k-th
#: value (in measurement order; the caption says so), so that a report of many long series
#: stays quick to lay out.
SEQUENCE_POINTS = 2000
#: The run-sequence plot's time axis is logarithmic when the values span more than this.
SEQUENCE_LOG_SPAN = 10.0
#: Values left out of the analysis (a warm-up), and the marks of the steady states' starts.
LEFT_OUT_COLOUR = "#B5B5B5"
START_COLOUR = "#1A1A1A"
#: Up to this many invocations per side, each steady-state start (a triangle above the
#: panel) is also a dashed line across it; with more, lines would cover the values.
START_LINES = 24


@dataclass(frozen=True)
class SequenceFigure:
    """A run-sequence plot: the SVG, whether its time axis is logarithmic, and for each side
    every how many values one is drawn (1: every value)."""

    svg: str
    log: bool
    steps: tuple[int, ...]


def sequence_step(side: SideValidity) -> int:
    """Every how many values of ``side`` one is drawn: at most SEQUENCE_POINTS in all."""
    total = sum(len(series) for series in side.series)
    return max(1, math.ceil(total / SEQUENCE_POINTS))


def _scaled(series: np.ndarray, factor: float) -> np.ndarray:
    values = np.asarray(series, dtype=float)
    scaled = values * factor
    return scaled if np.isfinite(scaled).sum() == np.isfinite(values).sum() else values


def _dots(xs: np.ndarray, ys: np.ndarray, size: float) -> str:
    """A square of ``size`` at each point, as segments of one path stroked ``size`` wide,
    placed on a grid of ``size``: points that fall in the same square are drawn once (a dense
    series is a band of squares, and weasyprint reads a few hundred of them rather than
    every value)."""
    if not xs.size:
        return ""
    cells = np.unique(np.stack([np.round(xs / size), np.round(ys / size)], axis=1), axis=0)
    length = _n(size)
    return "".join(f"M{_n(x * size - size / 2)} {_n(y * size)}h{length}"
                   for x, y in cells.tolist())


def _every(count: int, room: float, width: float = 16.0) -> int:
    """Label every k-th of ``count`` positions so that labels are ``width`` apart in
    ``room`` points: k = 1, 2 or 5 × 10^j."""
    fits = max(1, int(room // width))
    raw = count / fits
    if raw <= 1:
        return 1
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(int(m * magnitude) for m in (1, 2, 5, 10) if m * magnitude >= raw)


def _log_ticks(axis: Axis, spacing: float = 11.0) -> tuple[list[tuple[float, str]], list[float]]:
    """Ticks of a vertical log axis: the values m × 10^k, 1s first, then 5s, 2s, 3s, each
    kept when it is ``spacing`` points from those kept (a decade or less gets labels at its
    inner values too, where :meth:`Axis.ticks` would give steps that leave its low end
    bare); the other m × 10^k as minor ticks when the axis spans three decades or less."""
    low, high = math.log10(axis.low), math.log10(axis.high)
    # (within the floats' exponents: an axis may reach 1e308, where 10.0 ** 309 raises)
    exponents = range(max(math.floor(low) - 1, -323), min(math.ceil(high) + 1, 308) + 1)
    values = {m: [value for value in (m * 10.0 ** e for e in exponents)
                  if axis.low <= value * (1 + 1e-9) and value <= axis.high * (1 + 1e-9)]
              for m in range(1, 10)}
    kept: list[float] = []
    for mantissa in (1, 5, 2, 3):
        for value in values[mantissa]:
            if all(abs(axis(value) - axis(other)) >= spacing for other in kept):
                kept.append(value)
    minor = ([v for vs in values.values() for v in vs if v not in kept]
             if high - low <= 3 else [])
    return [(value, _plain(value)) for value in sorted(kept)], minor


def run_sequence_figure(sides: Sequence[SideValidity], scale: TimeScale = UNSTATED,
                        placed: bool = False, height: float = 120.0,
                        titles: bool = True, width: float = WIDTH) -> SequenceFigure:
    """Every value of each side in measurement order, initial (left panel) and optimized
    (right panel) on one time axis: each side's invocations side by side (thin lines between
    them), the values left out of the analysis in grey, and where each invocation's steady
    state starts (``starts``, or the end of the values left out when ``--warmup N`` set
    them) marked by a triangle above the panel and a dashed line across it. A
    logarithmic axis when the values span more than SEQUENCE_LOG_SPAN. ``placed`` and
    ``titles`` and ``width`` as for :func:`distribution_figure`."""
    data = [[_scaled(series, scale.factor) for series in side.series] for side in sides]
    lows, highs = [], []
    for series in (s for side in data for s in side):
        finite = series[np.isfinite(series)]
        if finite.size:
            lows.append(float(finite.min()))
            highs.append(float(finite.max()))
    low, high = (min(lows), max(highs)) if lows else (0.0, 1.0)
    log = low > 0 and high / SEQUENCE_LOG_SPAN > low
    canvas = Canvas(width, height, placed)
    top, bottom = 16.0, height - (26 if titles else 14)
    times = Axis(*_limits([low, high], log), bottom, top, log)
    major, minor = _log_ticks(times) if log else times.ticks(4)
    # Room for the time labels (and the rotated title) left of the panels.
    labels = 8 + max((text_width(label) for _, label in major), default=0)
    left = max(58.0 if titles else 50.0, labels + (18 if titles else 0)) if width >= WIDTH \
        else labels + (18 if titles else 0)
    gap, right = 14.0, width - 8
    panel = (right - left - gap) / 2
    for value, label in major:
        canvas.text(left - 5, times(value) + 2.5, label, anchor="end")
    if titles:
        quantity = f"execution time ({scale.label})" if scale.label else "execution time"
        canvas.text(12, (top + bottom) / 2, quantity, anchor="middle", rotate=True)
    steps = []
    roles, colours = ("initial", "optimized"), (INITIAL_COLOUR, OPTIMIZED_COLOUR)
    for number, (side, series, role, colour) in enumerate(zip(sides, data, roles, colours,
                                                              strict=False)):
        x0 = left + number * (panel + gap)
        x1 = x0 + panel
        lengths = [len(s) for s in series]
        total = sum(lengths)
        step = sequence_step(side)
        steps.append(step)
        frame = [f"M{_n(x0 - 3)} {_n(times(v))}h3" for v, _ in major]
        frame += [f"M{_n(x0 - 1.5)} {_n(times(v))}h1.5" for v in minor]
        canvas.path("".join(f"M{_n(x0)} {_n(times(v))}H{_n(x1)}" for v, _ in major),
                    stroke=GRID_COLOUR, width=0.4)
        canvas.text(x0, top - 8, role, colour=colour)
        if not total:
            canvas.path(f"M{_n(x0)} {_n(top)}V{_n(bottom)}H{_n(x1)}" + "".join(frame),
                        stroke=TEXT_COLOUR, width=0.6)
            continue
        positions = Axis(-0.5, total - 0.5, x0 + 1, x1 - 1, False)
        offsets = np.cumsum([0, *lengths[:-1]])
        values = np.concatenate(series)
        shown = np.arange(0, total, step)
        invocation = np.searchsorted(offsets, shown, side="right") - 1
        drops = np.asarray(side.drops if len(side.drops) == len(series)
                           else [0] * len(series))
        left_out = (shown - offsets[invocation]) < drops[invocation]
        drawn = values[shown]
        finite = np.isfinite(drawn)
        xs, ys = positions.array(shown.astype(float)), times.array(np.where(finite, drawn, 1))
        size = min(1.8, max(0.7, 0.9 * (x1 - x0) * step / total))
        # Thin lines between the invocations, where they stay apart.
        if len(series) > 1 and (x1 - x0) / len(series) >= 3:
            canvas.path("".join(f"M{_n(positions(offset - 0.5))} {_n(top)}V{_n(bottom)}"
                                for offset in offsets[1:].tolist()),
                        stroke=GRID_COLOUR, width=0.5)
        canvas.path(_dots(xs[finite & left_out], ys[finite & left_out], size),
                    stroke=LEFT_OUT_COLOUR, width=size)
        canvas.path(_dots(xs[finite & ~left_out], ys[finite & ~left_out], size),
                    stroke=colour, width=size)
        starts = side.starts if len(side.starts) == len(series) else (0,) * len(series)
        marks, lines = [], []  # a triangle above the panel, and a line across it
        for offset, length, start, drop in zip(offsets.tolist(), lengths, starts,
                                               drops.tolist(), strict=True):
            at = start or drop
            if 0 < at < length:
                x = positions(offset + at - 0.5)
                marks.append(f"M{_n(x - 2)} {_n(top - 5.5)}h4l-2 4.5z")
                if len(series) <= START_LINES:
                    lines.append(f"M{_n(x)} {_n(top)}V{_n(bottom)}")
        canvas.path("".join(lines), stroke=START_COLOUR, width=0.5, dash="2 1.5")
        canvas.path("".join(marks), fill=START_COLOUR)
        # The axis below: iterations of a single invocation, or the invocations' numbers.
        if len(series) == 1:
            iterations = Axis(1, total, x0, x1, False)
            ticks = (iterations.ticks(_tick_count(iterations, 4))[0] if total > 1
                     else [(1, "1")])
            labelled = [(positions(v - 1), label) for v, label in ticks
                        if v == int(v) and 1 <= v <= total]
            what = "iteration"
        else:
            every = _every(len(series), x1 - x0)
            labelled = [(positions(offsets[i] + (lengths[i] - 1) / 2), str(i + 1))
                        for i in range(len(series)) if (i + 1) % every == 0 or i == 0]
            what = "invocation"
        for x, label in labelled:
            frame.append(f"M{_n(x)} {_n(bottom)}v3")
            canvas.text(x, bottom + 10, label, anchor="middle")
        canvas.path(f"M{_n(x0)} {_n(top)}V{_n(bottom)}H{_n(x1)}" + "".join(frame),
                    stroke=TEXT_COLOUR, width=0.6)
        if titles:
            canvas.text((x0 + x1) / 2, height - 4, what, anchor="middle")
    return SequenceFigure(canvas.svg(), log, tuple(steps))


# ---------------------------------------------------------------- all benchmarks


def _colour_key(benchmark: BenchmarkResult, estimator: str) -> str:
    """The verdict of one estimator as coloured: a significant reverse verdict is "slower"."""
    reverse = benchmark.slowdown
    if reverse is not None and getattr(reverse, estimator).verdict == "significant":
        return "slower"
    return getattr(benchmark.analysis, estimator).verdict


def _grouped_markers(canvas: Canvas, points: Iterable[tuple[float, float, str]],
                     shape: Callable[[float, float, float], str], size: float) -> None:
    """Markers as one path per colour: a figure of a thousand points stays a few elements."""
    by_colour: dict[str, list[str]] = {}
    for x, y, colour in points:
        by_colour.setdefault(colour, []).append(shape(x, y, size))
    for colour, shapes in by_colour.items():
        canvas.path("".join(shapes), fill=colour)


def _verdict_legend(canvas: Canvas, y: float) -> None:
    _legend(canvas, [Key("circle", "#000", "mean"), Key("diamond", "#000", "median"),
                     *(Key("square", colour, VERDICT_LABELS[verdict])
                       for verdict, colour in VERDICT_COLOURS.items())], y)


def speedup_overview_figure(benchmarks: Sequence[BenchmarkResult]) -> str | None:
    """Per-benchmark speedups of the mean and the median, coloured by verdict."""
    analysed = [b for b in benchmarks if b.analysis is not None]
    if not analysed:
        return None
    labelled = len(analysed) <= LABELLED_LIMIT
    if not labelled:
        analysed = sorted(analysed, key=lambda b: b.analysis.speedup.mean)
    values = [v for b in analysed for v in (b.analysis.speedup.mean, b.analysis.speedup.median)]
    log = _use_log(values)
    limits = _limits([*values, 1.0], log)
    if labelled:
        labels = [elide(b.name, LABEL_WIDTH) for b in analysed]
        top, bottom_margin = 22.0, 34.0
        height = ROW_HEIGHT * len(analysed) + top + bottom_margin
        canvas = Canvas(WIDTH, height)
        bottom = height - bottom_margin
        left = min(12 + max(text_width(label) for label in labels), WIDTH * 0.6)
        axis = Axis(*limits, left, WIDTH - 10, log)
        _horizontal_axis(canvas, axis, top, bottom, grid=True, minor_grid=True)
        canvas.path(f"M{_n(axis(1.0))} {_n(top)}V{_n(bottom)}", stroke="#000", width=0.8)
        row = (bottom - top) / len(analysed)
        for index, label in enumerate(labels):
            canvas.text(left - 4, top + row * (index + 0.5) + 2.5, label, anchor="end")
        for estimator, shape, offset in (("mean", _circle, -0.15), ("median", _diamond, 0.15)):
            _grouped_markers(canvas, (
                (axis(getattr(b.analysis.speedup, estimator)), top + row * (i + 0.5 + offset),
                 VERDICT_COLOURS[_colour_key(b, estimator)]) for i, b in enumerate(analysed)),
                shape, 4.5 if shape is _circle else 5)
        canvas.path(f"M{_n(left)} {_n(top)}V{_n(bottom)}", stroke=TEXT_COLOUR, width=0.6)
        canvas.text((axis.start + axis.end) / 2, height - 6,
                    "speedup = ET(initial) / ET(optimized)   (> 1: optimized is faster)",
                    anchor="middle")
    else:
        height, top = 230.0, 22.0
        canvas = Canvas(WIDTH, height)
        bottom = height - 34
        axis = Axis(*limits, bottom, top, log)
        ranks = Axis(-0.5, len(analysed) - 0.5, 48.0, WIDTH - 10, False)
        major, minor = axis.ticks(5)
        lines, grid = [], []
        for value, label in major:
            y = axis(value)
            lines.append(f"M{_n(ranks.start - 3)} {_n(y)}h3")
            grid.append(f"M{_n(ranks.start)} {_n(y)}H{_n(ranks.end)}")
            canvas.text(ranks.start - 5, y + 2.5, label, anchor="end")
        grid += [f"M{_n(ranks.start)} {_n(axis(v))}H{_n(ranks.end)}" for v in minor]
        canvas.path("".join(grid), stroke=GRID_COLOUR, width=0.4)
        canvas.path(f"M{_n(ranks.start)} {_n(axis(1.0))}H{_n(ranks.end)}", stroke="#000",
                    width=0.8)
        for estimator, shape in (("mean", _circle), ("median", _diamond)):
            _grouped_markers(canvas, (
                (ranks(i), axis(getattr(b.analysis.speedup, estimator)),
                 VERDICT_COLOURS[_colour_key(b, estimator)]) for i, b in enumerate(analysed)),
                shape, 2.6 if shape is _circle else 3)
        canvas.path(f"M{_n(ranks.start)} {_n(top)}V{_n(bottom)}H{_n(ranks.end)}" + "".join(
            lines), stroke=TEXT_COLOUR, width=0.6)
        rank_ticks, _ = Axis(1, len(analysed), ranks(0), ranks(len(analysed) - 1),
                             False).ticks(6)
        marks = []
        for value, label in rank_ticks:
            x = ranks(value - 1)
            marks.append(f"M{_n(x)} {_n(bottom)}v3")
            canvas.text(x, bottom + 10, label, anchor="middle")
        canvas.path("".join(marks), stroke=TEXT_COLOUR, width=0.6)
        canvas.text((ranks.start + ranks.end) / 2, height - 6,
                    "benchmarks, sorted by speedup of the mean", anchor="middle")
        canvas.text(14, (top + bottom) / 2, "speedup (> 1: faster)", anchor="middle",
                    rotate=True)
    _verdict_legend(canvas, 10)
    return canvas.svg()


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
        (elide(b.name, LABEL_WIDTH), b.analysis.speedup.mean, b.change.low, b.change.high,
         b.change.call) for b in analysed]
    if geometric_mean is not None:
        rows.append(("geometric mean", geometric_mean.value, geometric_mean.low,
                     geometric_mean.high, "geometric"))
    band = threshold_band(threshold)
    values = [v for row in rows for v in row[1:4] if v is not None] + list(band)
    log = _use_log(values)
    limits = _limits(values, log)
    # The same left margin in every figure, so that their axes line up.
    left = min(12 + max(text_width(row[0]) for row in rows), WIDTH * 0.6)
    top, bottom_margin = 22.0, 34.0
    keys = [Key("bar-square", colour, call) for call, colour in CALL_COLOURS.items()]
    keys.append(Key("bar-diamond", GEOMETRIC_MEAN_COLOUR, "geometric mean"))
    if threshold > 0:
        keys.append(Key("band", BAND_COLOUR, f"±{threshold * 100:.3g}% band"))
    parts = []
    for start, stop in _forest_chunks(len(rows)):
        chunk = rows[start:stop]
        height = ROW_HEIGHT * len(chunk) + top + bottom_margin
        canvas = Canvas(WIDTH, height)
        bottom = height - bottom_margin
        axis = Axis(*limits, left, WIDTH - 10, log)
        row_height = (bottom - top) / len(chunk)
        if threshold > 0:
            canvas.rect(axis(band[0]), top, axis(band[1]) - axis(band[0]), bottom - top,
                        BAND_COLOUR)
        _horizontal_axis(canvas, axis, top, bottom, grid=True,
                         minor_grid=limits[1] / limits[0] < 100 if log else False)
        canvas.path(f"M{_n(axis(1.0))} {_n(top)}V{_n(bottom)}", stroke="#000", width=0.8)
        bars: dict[tuple[str, float], list[str]] = {}
        markers: list[tuple[float, float, str]] = []
        for position, (name, value, low, high, call) in enumerate(chunk):
            y = top + row_height * (position + 0.5)
            geometric = call == "geometric"
            colour = GEOMETRIC_MEAN_COLOUR if geometric else CALL_COLOURS[call]
            canvas.text(left - 4, y + 2.5, name, anchor="end")
            if low is not None and high is not None:
                bars.setdefault((colour, 2.0 if geometric else 1.2), []).append(
                    f"M{_n(axis(low))} {_n(y)}H{_n(axis(high))}")
            else:
                canvas.path(f"M{_n(axis.start)} {_n(y)}H{_n(axis.end)}", stroke=colour,
                            width=0.6, dash="1 1.5")
                canvas.text(axis(value) + 4, y - 2, "interval unbounded", size=SMALL_SIZE)
            if geometric:
                canvas.path(_diamond(axis(value), y, 6), fill=colour)
            else:
                markers.append((axis(value), y, colour))
        for (colour, line_width), segments in bars.items():
            canvas.path("".join(segments), stroke=colour, width=line_width)
        _grouped_markers(canvas, markers, _square, 3.5)
        canvas.path(f"M{_n(left)} {_n(top)}V{_n(bottom)}", stroke=TEXT_COLOUR, width=0.6)
        canvas.text((axis.start + axis.end) / 2, height - 6, "speedup of the means with the "
                    "corrected interval of its call (> 1: faster)", anchor="middle")
        _legend(canvas, keys, 10)
        parts.append(ForestPart(canvas.svg(), start + 1, min(stop, len(analysed)),
                                len(analysed)))
    return parts


# ------------------------------------------------------------------ several versions

#: How much wider bold text is than :func:`text_width` measures.
BOLD = 1.1
BEST_COLOUR = "#2E7D32"
OTHER_COLOUR = "#616161"
BASELINE_COLOUR = "#1F4E9A"
SAMPLE_COLOURS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860",
                  "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD")



def _labels(names: Sequence[str], limit: float) -> tuple[list[str], float]:
    """The versions' labels, and the width of the column they end in: that of the widest
    label (in bold, as the best's is) and a margin, at most ``limit`` points. Each name is
    elided to VERSION_WIDTH characters, and further until every label fits; labels of
    different names stay different (see :func:`formatting.elide_apart`)."""
    width = VERSION_WIDTH
    labels = elide_apart(names, width)
    while width > 5 and max(text_width(label) for label in labels) * BOLD + 12 > limit:
        width -= 1
        labels = elide_apart(names, width)
    return labels, min(limit, max(text_width(label) for label in labels) * BOLD + 12)


def _title(words: str, name: str, label: str, room: float) -> str:
    """``words`` and ``label`` (``name`` elided), in bold in ``room`` points: ``name``
    elided further when they do not fit."""
    width = len(label)
    text = words + label
    while width > 5 and text_width(text) * BOLD > room:
        width -= 1
        text = words + elide(name, width)
    return text


def _axis_below(canvas: Canvas, axis: Axis, top: float, bottom: float, count: int = 5) -> None:
    """Ticks and labels under ``bottom``, light grid lines up to ``top``."""
    major, minor = axis.ticks(count)
    ticks, grid = [], []
    for value, label in major:
        x = axis(value)
        ticks.append(f"M{_n(x)} {_n(bottom)}v3")
        grid.append(f"M{_n(x)} {_n(top)}V{_n(bottom)}")
        canvas.text(x, bottom + 10, label, anchor="middle")
    for value in minor:
        ticks.append(f"M{_n(axis(value))} {_n(bottom)}v1.5")
    canvas.path("".join(grid), stroke=GRID_COLOUR, width=0.4)
    canvas.path(f"M{_n(axis.start)} {_n(bottom)}H{_n(axis.end)}" + "".join(ticks),
                stroke=TEXT_COLOUR, width=0.6)


def _interval_row(canvas: Canvas, axis: Axis, y: float, value: float, low: float, high: float,
                  colour: str, bars: dict, marks: dict) -> None:
    """A square at ``value`` and a bar from ``low`` to ``high``; an end beyond the axis is
    drawn as an arrow at its edge, with the value written beside it."""
    if low > axis.high:  # wholly beyond the axis: an arrow at its edge, and the value
        edge = axis.end
        bars.setdefault(colour, []).append(
            f"M{_n(edge - 9)} {_n(y)}H{_n(edge)}M{_n(edge - 3)} {_n(y - 2.5)}L{_n(edge)} "
            f"{_n(y)}L{_n(edge - 3)} {_n(y + 2.5)}")
        canvas.text(edge - 12, y + 2.5, speedup(value), anchor="end", size=SMALL_SIZE)
        return
    left, right = axis(max(low, axis.low)), axis(min(high, axis.high))
    path = f"M{_n(left)} {_n(y)}H{_n(right)}"
    path += (f"M{_n(left)} {_n(y - 3)}v6" if low >= axis.low
             else f"M{_n(left + 3)} {_n(y - 2.5)}L{_n(left)} {_n(y)}L{_n(left + 3)} {_n(y + 2.5)}")
    if high <= axis.high:
        path += f"M{_n(right)} {_n(y - 3)}v6"
    else:
        path += f"M{_n(right - 3)} {_n(y - 2.5)}L{_n(right)} {_n(y)}L{_n(right - 3)} {_n(y + 2.5)}"
        canvas.text(right - 5, y - 4, speedup(value), anchor="end", size=SMALL_SIZE)
    bars.setdefault(colour, []).append(path)
    if axis.low <= value <= axis.high:
        x = axis(value)
        marks.setdefault(colour, []).append(f"M{_n(x - 2.6)} {_n(y - 2.6)}h5.2v5.2h-5.2z")


def versions_forest_figure(results: Results) -> str | None:
    """Two panels, one row per version, best first. Left: its weighted geometric mean
    speedup over the baseline (square) with its interval (bar); the baseline (diamond) at 1.
    Right: the geometric mean of the best version's speedups over it, with the interval the
    tie is judged on, beside the band 1 to 1 + τ: a version is tied with the best unless its
    interval lies above the band. Green: the best and the versions tied with it."""
    ranking = results.ranking
    if not results.common:
        return None
    tau = results.settings.threshold
    row, top = 17.0, 16.0
    bottom = top + row * len(ranking)
    height = bottom + 40
    canvas = Canvas(WIDTH, height)
    labels, label_width = _labels([s.name for s in ranking], 130.0)
    baseline_label = next((label for standing, label in zip(ranking, labels, strict=True)
                           if standing.baseline),
                          elide_apart([s.name for s in ranking] + [results.baseline_name],
                                      VERSION_WIDTH)[-1])
    gap = 26.0
    middle = label_width + (WIDTH - label_width - gap - 8) / 2
    values = [1.0]
    for standing in ranking:
        if standing.geometric_mean is not None:
            values += [standing.geometric_mean.low, standing.geometric_mean.high]
    left = Axis(*_limits(values, True, 0.06, 1.05), label_width, middle, True)
    contenders = [1.0 + 3 * tau, 1.02]
    for standing in ranking:
        versus = standing.versus_best
        if versus is not None and (standing.best or versus.low <= 1.25):
            contenders += [versus.high]
    lows = [s.versus_best.low for s in ranking if s.versus_best is not None] + [1.0]
    right = Axis(min([*lows, 1 / (1 + tau)]) / 1.01, max(contenders) * 1.02, middle + gap,
                 WIDTH - 8, True)
    canvas.rect(right(1.0), top, right(min(1 + tau, right.high)) - right(1.0), bottom - top,
                BAND_COLOUR)
    _axis_below(canvas, left, top, bottom, count=4)
    _axis_below(canvas, right, top, bottom, count=4)
    for axis in (left, right):
        one = axis(1.0)
        canvas.path(f"M{_n(one)} {_n(top)}V{_n(bottom)}", stroke=TEXT_COLOUR, width=0.8,
                    dash="3 2")
    canvas.text((left.start + left.end) / 2, top - 6,
                _title("speedup over the baseline ", results.baseline_name, baseline_label,
                       left.end - left.start + gap - 6), anchor="middle", weight="bold")
    canvas.text((right.start + right.end) / 2, top - 6, "the best's speedup over it",
                anchor="middle", weight="bold")
    bars: dict[str, list[str]] = {}
    marks: dict[str, list[str]] = {}
    for position, (standing, label) in enumerate(zip(ranking, labels, strict=True)):
        y = top + row * (position + 0.5)
        colour = BEST_COLOUR if standing.best else OTHER_COLOUR
        canvas.text(label_width - 6, y + 2.5, label, anchor="end",
                    weight="bold" if standing.best else None)
        g = standing.geometric_mean
        if g is None:  # the baseline: 1 by definition
            marks.setdefault(BASELINE_COLOUR, []).append(_diamond(left(1.0), y, 6.4))
        else:
            _interval_row(canvas, left, y, g.value, g.low, g.high, colour, bars, marks)
        versus = standing.versus_best
        if versus is None:  # the best itself
            marks.setdefault(BEST_COLOUR, []).append(_diamond(right(1.0), y, 6.4))
        else:
            _interval_row(canvas, right, y, versus.value, versus.low, versus.high, colour,
                          bars, marks)
    for colour, parts in bars.items():
        canvas.path("".join(parts), stroke=colour, width=1.4)
    for colour, parts in marks.items():
        canvas.path("".join(parts), fill=colour)
    levels = sorted({f"{s.geometric_mean.confidence * 100:.4g}%" for s in ranking
                     if s.geometric_mean is not None})
    tie_levels = sorted({f"{s.versus_best.confidence * 100:.4g}%" for s in ranking
                         if s.versus_best is not None})
    canvas.text(WIDTH / 2, height - 15,
                f"weighted geometric means with delta-method intervals ({', '.join(levels)} "
                f"left, {', '.join(tie_levels)} right); shaded: 1 to 1 + τ = {1 + tau:.4g}",
                anchor="middle", size=SMALL_SIZE)
    canvas.text(WIDTH / 2, height - 5,
                "green: the best, and the versions tied with it (interval not above the band); "
                "grey: slower than the best; blue diamond: the baseline", anchor="middle",
                size=SMALL_SIZE)
    return canvas.svg()


def _box(values: np.ndarray) -> tuple[float, float, float, float, float]:
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    return (float(values[values >= q1 - reach].min()), float(q1), float(median), float(q3),
            float(values[values <= q3 + reach].max()))


def versions_distribution_figure(benchmark: VersionsBenchmark, scale: TimeScale) -> str | None:
    """The top-level unit means of every analysed version side by side on one time axis:
    every run as a tick, the box plot, the mean (black dot), and the letters on the right."""
    rows = [(name, np.asarray(values, dtype=float) * scale.factor)
            for name, values in zip(benchmark.versions, benchmark.values, strict=True)
            if values is not None]
    if not rows:
        return None
    rows = [(name, values if np.isfinite(values).all() else values / scale.factor)
            for name, values in rows]
    letters = benchmark.letters
    row = 18.0
    top = 4.0
    bottom = top + row * len(rows)
    height = bottom + 16  # the axis' labels (its caption is the report's)
    canvas = Canvas(WIDTH, height)
    labels, label_width = _labels([name for name, _ in rows], 150.0)
    low = min(float(v.min()) for _, v in rows)
    high = max(float(v.max()) for _, v in rows)
    log = low > 0 and high / 4 >= low
    axis = Axis(*_limits([low, high], log, 0.04, 1.05), label_width, WIDTH - 46, log)
    _axis_below(canvas, axis, top, bottom, count=6)
    boxes, medians, means = [], [], []
    for position, ((name, values), label) in enumerate(zip(rows, labels, strict=True)):
        y = top + row * (position + 0.5)
        colour = SAMPLE_COLOURS[position % len(SAMPLE_COLOURS)]
        xs = np.unique(np.round(axis.array(values), 1))
        canvas.path("".join(f"M{x:.1f} {_n(y - 6)}v12" for x in xs), stroke=colour,
                    width=0.5, opacity=0.6)
        w_low, q1, median, q3, w_high = (axis(v) for v in _box(values))
        h = 4.0
        boxes.append(f"M{_n(q1)} {_n(y - h)}H{_n(q3)}V{_n(y + h)}H{_n(q1)}z"
                     f"M{_n(w_low)} {_n(y)}H{_n(q1)}M{_n(q3)} {_n(y)}H{_n(w_high)}"
                     f"M{_n(w_low)} {_n(y - 2)}v4M{_n(w_high)} {_n(y - 2)}v4")
        medians.append(f"M{_n(median)} {_n(y - h)}v{_n(2 * h)}")
        mean = axis(float(values.mean()))
        means.append(f"M{_n(mean - 1.8)} {_n(y)}a1.8 1.8 0 1 0 3.6 0a1.8 1.8 0 1 0 -3.6 0z")
        canvas.text(label_width - 5, y + 2.5, label, anchor="end")
        if letters.get(name):
            canvas.text(WIDTH - 40, y + 2.5, letters[name], weight="bold")
    canvas.path("".join(boxes), stroke="#000", width=0.8)
    canvas.path("".join(medians), stroke="#000", width=1.5)
    canvas.path("".join(means), fill="#000")
    return canvas.svg()


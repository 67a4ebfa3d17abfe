"""Figures of the reports of several versions, written as SVG from the numbers (the drawing
primitives of :mod:`speeduptest.render.figures`; nothing statistical is computed here beyond
the box plot's quartiles).

- :func:`versions_forest_figure`: every version's geometric mean speedup over the baseline
  with its interval, best first, coloured by "best, or tied with the best";
- :func:`versions_distribution_figure`: one benchmark's k samples side by side (every run as a
  tick, a box plot, the mean), with the letters.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from speeduptest.model.versions import VersionsBenchmark, VersionsResults
from speeduptest.render.figures import (
    BAND_COLOUR,
    FONT_SIZE,
    GRID_COLOUR,
    SMALL_SIZE,
    TEXT_COLOUR,
    WIDTH,
    Axis,
    Canvas,
    _limits,
    _n,
    text_width,
)
from speeduptest.render.formatting import TimeScale, elide, speedup

#: Characters of a version's name labelling its row (elided in the middle).
VERSION_WIDTH = 24
#: How much wider bold text is than :func:`text_width` measures.
BOLD = 1.1
BEST_COLOUR = "#2E7D32"
OTHER_COLOUR = "#616161"
BASELINE_COLOUR = "#1F4E9A"
SAMPLE_COLOURS = ("#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860",
                  "#DA8BC3", "#8C8C8C", "#CCB974", "#64B5CD")



def _fitted(name: str, room: float) -> str:
    """A version's name elided to VERSION_WIDTH characters, and further until it fits in
    ``room`` points set in bold (a name of wide letters)."""
    width = VERSION_WIDTH
    text = elide(name, width)
    while width > 5 and text_width(text) * BOLD > room:
        width -= 1
        text = elide(name, width)
    return text


def _labels(names: Sequence[str], limit: float) -> tuple[list[str], float]:
    """The versions' labels, and the width of the column they end in: that of the widest
    label and a margin, at most ``limit`` points, the labels elided further to fit it."""
    labels = [elide(name, VERSION_WIDTH) for name in names]
    widest = max(text_width(label) for label in labels) + 12
    if widest > limit:
        labels = [_fitted(name, limit - 12) for name in names]
    return labels, min(limit, widest)

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


def _diamond(x: float, y: float, h: float = 3.2) -> str:
    return f"M{_n(x)} {_n(y - h)}l{_n(h)} {_n(h)}l{_n(-h)} {_n(h)}l{_n(-h)} {_n(-h)}z"


def versions_forest_figure(results: VersionsResults) -> str | None:
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
                f"speedup over the baseline {elide(results.baseline_name, VERSION_WIDTH)}",
                anchor="middle", weight="bold")
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
            marks.setdefault(BASELINE_COLOUR, []).append(_diamond(left(1.0), y))
        else:
            _interval_row(canvas, left, y, g.value, g.low, g.high, colour, bars, marks)
        versus = standing.versus_best
        if versus is None:  # the best itself
            marks.setdefault(BEST_COLOUR, []).append(_diamond(right(1.0), y))
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
    height = bottom + 26
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
    quantity = f"execution time ({scale.label})" if scale.label else "execution time"
    canvas.text((axis.start + axis.end) / 2, height - 4,
                f"{quantity}, top-level units: ticks = every unit, box = quartiles, dot = "
                "mean; letters: a = fastest, versions sharing a letter are not told apart",
                anchor="middle", size=SMALL_SIZE if FONT_SIZE > SMALL_SIZE else FONT_SIZE)
    return canvas.svg()


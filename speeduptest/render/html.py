"""The four reports (global, benchmarks, warnings, errors) as self-contained HTML.

The same HTML is turned into PDF by :mod:`speeduptest.render.pdf` (weasyprint reads the print
rules of the stylesheet), so both formats show exactly the same content. Templates only lay out
what the results model holds; the filters below only format numbers and bound input text
(names, paths and messages are elided to a width, see :func:`formatting.elide`).
"""

from __future__ import annotations

import base64
import functools
import math
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from urllib.parse import quote

import jinja2
from markupsafe import Markup, escape

from speeduptest.model.results import (
    MIN_SERIES,
    ORDER_ALPHA,
    BenchmarkResult,
    Change,
    Results,
    SampleSummary,
    SideValidity,
)
from speeduptest.model.versions import HolmAdjusted, VersionsBenchmark
from speeduptest.model.wording import (
    CORRECTION_LABELS,
    POPULATION_CAVEAT,
    POPULATION_INTERVAL_COVERS,
    PROPORTION_APPROXIMATE,
    SUITE_INTERVAL_COVERS,
    WHY,
    proportion_caveat,
    threshold_band,
)
from speeduptest.model.wording import METHOD_LABELS as CALL_METHODS
from speeduptest.notices import Notice, tally
from speeduptest.render import figures
from speeduptest.render.formatting import (
    AGGREGATE_METHODS,
    BRIEF_ADVICE,
    BRIEF_MESSAGE,
    CALL_ORDER,
    DENSE_MESSAGE,
    VERSION_WIDTH,
    TimeScale,
    answer_sentence,
    benchmark_scale,
    brief,
    by_call,
    calls_basis,
    change,
    correction_short,
    elide,
    elide_apart,
    elide_long,
    elide_message,
    gain,
    interval,
    level,
    number,
    plural,
    resolution_setting,
    speedup,
    subject,
    threshold,
    time_scale,
)
from speeduptest.runtime.parallel import default_workers, worker_pool

REPORTS = ("global", "benchmarks", "warnings", "errors")
TITLES = {"global": "Global report", "benchmarks": "Per-benchmark report",
          "warnings": "Warnings", "errors": "Errors"}
METHOD_LABELS = {**CALL_METHODS, "delta": "delta method"}  # the effect-size intervals
VERDICT_LABELS = {"significant": "significant", "not_significant": "not significant",
                  "inconclusive": "inconclusive"}
#: A heading for each kind of warning (Notice.code) in the warnings report; a code not
#: listed here is headed by its own words.
NOTICE_TITLES = {
    "slowdown": "The optimized version is slower",
    "mean-small-not-normal": "Mean verdict inconclusive: small samples that are not normal",
    "mean-normality-unverified": "Mean verdict: normality unverified with so few values",
    "mean-large-not-normal": "Mean verdict: large samples that are not normal",
    "mean-t-test-not-computed": "Mean verdict inconclusive: the t-test cannot be computed",
    "mean-not-significant": "Mean speedup not significant",
    "median-small-shape-differs":
        "Median verdict inconclusive: small samples whose distributions differ in shape",
    "median-large-shape-differs": "Median verdict: distributions that differ in shape",
    "median-wilcoxon-not-computed":
        "Median verdict inconclusive: the Wilcoxon–Mann–Whitney test cannot be computed",
    "median-not-significant": "Median speedup not significant",
    "median-significant-but-median-slower":
        "Median verdict significant although the median is slower",
    "median-rank-test-cannot-reject": "Median verdict: too few values for the rank test",
    "identical-values": "A sample whose values are all identical",
    "timer-resolution": "A sample limited by its timer's resolution",
    "effect-bootstrap-undercovers": "Bootstrap interval may be too narrow",
    "effect-fieller-unbounded": "Fieller's interval is unbounded",
    "effect-level-adds-no-variance": "A level of the samples adds no measurable variance",
    "few-top-level-units": "Few top-level units",
    "input-last-line-cut": "A file ends in the middle of a line",
    "input-failed-runs": "Runs that failed were kept",
    "warmup-dropped": "A warm-up was left out",
    "residual-warmup": "A warm-up was analysed with the steady state",
    "no-steady-state": "Invocations that reach no steady state",
    "inconsistent-invocations": "Invocations that behave differently",
    "dependent-values": "Successive values are correlated",
    "dependent-values-ignored": "Correlated values analysed as independent",
    "series-slowdown": "Invocations that get slower during the run",
    "run-order-trend": "The values trend across the run order",
    "position-effect": "The values depend on their position in the invocation",
}


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


def time(value: float | None, scale: TimeScale, digits: int = 5) -> str:
    """A time in the benchmark's display unit (``scale``)."""
    return number(None if value is None else value * scale.factor, digits)


def variance(value: float | None, scale: TimeScale, digits: int = 4) -> str:
    """A variance of times, in the square of the benchmark's display unit."""
    return number(None if value is None else value * scale.factor ** 2, digits)


def p_value(value: float | None) -> str:
    if value is None:
        return "not computed"
    if value < 1e-300:  # (subnormal doubles hold fewer digits than they would show)
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


def data_number(value: float | None) -> str:
    """A number of the model for a ``data-`` attribute, which the browser sorts by
    (templates/table.js): as Python writes it, all its digits; empty when missing (sorted
    last)."""
    if value is None or not math.isfinite(value):
        return ""
    return repr(float(value))


#: The calls in the order of the reports, then the benchmarks with errors: what the browser
#: sorts the call column by (``data-call-rank``).
CALL_RANK = {call: rank for rank, call in enumerate((*CALL_ORDER, "error"))}


def verdict(value: str) -> str:
    return VERDICT_LABELS.get(value, value)


def probability(value: float | None) -> str:
    """P(optimized faster) as a whole percentage."""
    return "—" if value is None else f"{value * 100:.0f}%"


def adjusted(call: Change | None) -> str:
    """The deciding p-value of the (forward) mean verdict with its adjustments over the
    benchmarks: "t-test p = 0.003 (Holm 0.21, BH 0.04)"."""
    if call is None or call.p_value is None:
        return ""
    text = f"t-test p = {p_value(call.p_value)}"
    if call.holm is not None and call.bh is not None:
        text += f" (Holm {p_value(call.holm)}, BH {p_value(call.bh)})"
    return text


def interval_label(call: Change) -> str:
    """What a call's interval is: "99.55% CI (Fieller, Bonferroni)"."""
    return (f"{level(call.confidence)} CI ({CALL_METHODS.get(call.method, call.method)}, "
            f"{correction_short(call.correction)})")


def call_note(call: Change) -> str:
    """Why the call, in a few words (the whole sentence is ``call.reason``)."""
    lower, upper = (number(edge) for edge in threshold_band(call.threshold))
    return {"above": f"interval above {upper}", "below": f"interval below {lower}",
            "within": f"interval within {lower}–{upper}",
            "spans-edge": f"interval spans an edge of the ±{threshold(call.threshold)} band",
            }.get(call.why, WHY[call.why])


# ---------------------------------------------------------------- figures, drawn once per run


@dataclass(frozen=True)
class ForestImage:
    """One figure of the forest plot: the benchmarks ranked ``first`` to ``last`` of
    ``total`` by speedup."""

    uri: str
    first: int
    last: int
    total: int


@dataclass(frozen=True)
class Figures:
    """The report figures as data URIs (each SVG isolated: no id clashes, no escaping)."""

    overview: str | None
    forest: tuple[ForestImage, ...]  # every benchmark, in figures that fit a page each
    distributions: dict[int, str]  # benchmark index → data URI
    # benchmark index → its run-sequence plot (see draw_sequences); a benchmark not in it
    # has its plot drawn as its page is rendered.
    sequences: dict[int, SequenceImage] = field(default_factory=dict)


#: The characters of an SVG a data URI in an HTML attribute holds as they are; the others
#: (quotes, angle brackets, #, %, &, non-ASCII) are percent-encoded: an SVG grows by 15%
#: instead of the 33% of base64.
_URI_SAFE = " /=:;,.-_()+*!~?@$"


def _data_uri(svg: str) -> str:
    return "data:image/svg+xml," + quote(svg, safe=_URI_SAFE)


#: Height in points of a distribution figure in the browser, and on a PDF page (where it
#: shares its benchmark's page with everything else, its axes named by the caption).
DISTRIBUTION_HEIGHT, DISTRIBUTION_PDF_HEIGHT = 136.0, 100.0
#: Width in points of a benchmark's figures on a PDF page: the distributions and the run
#: sequence side by side, each half the A4 text area (184 mm, templates/report.css) less
#: half the gap between them; drawn at that width, their text keeps its size (7 pt).
PDF_FIGURE_WIDTH = 255.0


def distribution_uri(benchmark: BenchmarkResult, placed: bool = False) -> str:
    """The figure as a data URI; ``placed``: the PDF's variant, its text placed (see
    :class:`figures.Canvas`), half the page wide and without axis titles (the caption names
    the axes)."""
    if placed:
        return _data_uri(figures.distribution_figure(
            benchmark.analysis, benchmark_scale(benchmark), True, DISTRIBUTION_PDF_HEIGHT,
            titles=False, width=PDF_FIGURE_WIDTH))
    return _data_uri(figures.distribution_figure(benchmark.analysis, benchmark_scale(benchmark),
                                                 height=DISTRIBUTION_HEIGHT))


def draw_forest(results: Results) -> tuple[ForestImage, ...]:
    """The forest plot of the calls, as data URIs (one per figure)."""
    calls = results.pair.overall.calls
    parts = figures.forest_figures(results.pair.benchmarks, results.pair.overall.geometric_mean,
                                   calls.threshold if calls else results.settings.threshold)
    return tuple(ForestImage(_data_uri(part.svg), part.first, part.last, part.total)
                 for part in parts)


def draw_summary_figures(results: Results) -> tuple[str | None, tuple[ForestImage, ...]]:
    """The overview of verdicts and the forest plot of the calls, as data URIs."""
    overview = figures.speedup_overview_figure(results.pair.benchmarks)
    return _data_uri(overview) if overview else None, draw_forest(results)


def draw_distributions(results: Results, indices: Iterable[int],
                       placed: bool = False) -> dict[int, str]:
    """The distribution figure of each analysed benchmark among ``indices`` (``placed``:
    the PDF's variant, see :class:`figures.Canvas`)."""
    return {index: distribution_uri(results.pair.benchmarks[index], placed) for index in indices
            if results.pair.benchmarks[index].analysis is not None}


# ---------------------------------------------------------------- measurement validity

ROLES = ("initial", "optimized")
#: Height in points of a run-sequence plot in the browser and on a PDF page.
SEQUENCE_HEIGHT, SEQUENCE_PDF_HEIGHT = 130.0, DISTRIBUTION_PDF_HEIGHT


def series_class(validity: SideValidity) -> str:
    """A side's class with its invocations': "warmup", "warmup (6 of 6)", "inconsistent (4
    warmup, 2 flat)", "too short to judge"."""
    classes = validity.classes
    if validity.classification == "too short":
        return "too short to judge"
    if len(classes) <= 1:
        return validity.classification
    if len(set(classes)) == 1:
        return f"{validity.classification} ({len(classes)} of {len(classes)})"
    return f"{validity.classification} ({tally(classes)})"


def left_out(validity: SideValidity) -> str:
    """The values left out of a side, and their share of its values: "48 of 100 (48%)"."""
    if not validity.dropped:
        return "none"
    total = validity.dropped + validity.values
    share = validity.dropped / total * 100
    return f"{validity.dropped} of {total} ({share:.1f}%)" if share < 1 else (
        f"{validity.dropped} of {total} ({share:.0f}%)")


def _signed(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}".replace("-", "−")


def lag1_text(validity: SideValidity) -> str:
    return "—" if validity.dependence is None else _signed(validity.dependence.lag1)


def batch_text(validity: SideValidity) -> str:
    dependence = validity.dependence
    return str(dependence.batch) if dependence is not None and dependence.batch > 1 else "—"


ORDER_TESTS = {"mann-kendall": "MK", "friedman": "Friedman"}


def order_text(validity: SideValidity) -> str:
    """"1.3e-05 (MK)" (Mann–Kendall), or — when no order test ran."""
    order = validity.order
    if order is None:
        return "—"
    return f"{p_value(order.p_value)} ({ORDER_TESTS.get(order.test, order.test)})"


def side_line(role: str, validity: SideValidity) -> str:
    """One side of a run-sequence plot's caption: its class, the values left out, the lag-1
    autocorrelation and the batches analysed."""
    parts = [series_class(validity)]
    parts.append("nothing left out" if not validity.dropped
                 else f"{left_out(validity)} values left out")
    dependence = validity.dependence
    if dependence is not None:
        parts.append(f"lag-1 autocorrelation {_signed(dependence.lag1)}"
                     + (f", analysed as means of batches of {dependence.batch}"
                        if dependence.batch > 1 else ""))
    return f"{role}: " + ", ".join(parts)


@dataclass(frozen=True)
class SequenceImage:
    """A benchmark's run-sequence plot: the figure as a data URI, what it shows (for its
    caption), and a line on what the checks found for each side."""

    uri: str
    description: str
    line: str


def sequence_image(benchmark: BenchmarkResult, placed: bool = False) -> SequenceImage:
    """The run-sequence plot of an analysed benchmark (one with ``validity``); ``placed``:
    the PDF's variant (see :func:`distribution_uri`)."""
    sides = benchmark.validity
    figure = figures.run_sequence_figure(
        sides, benchmark_scale(benchmark), placed,
        SEQUENCE_PDF_HEIGHT if placed else SEQUENCE_HEIGHT, titles=not placed,
        width=PDF_FIGURE_WIDTH if placed else figures.WIDTH)
    invocations = max(len(side.series) for side in sides)
    parts = ["of every run in measurement order, initial left, optimized right"
             + (", each side's invocations side by side (numbered below)"
                if invocations > 1 else "")]
    if any(side.dropped for side in sides):
        parts.append("grey: values left out of the analysis")
    if any(start or drop for side in sides for start, drop in zip(side.starts, side.drops,
                                                                  strict=False)):
        parts.append(("▼ and dashed line" if invocations <= figures.START_LINES else "▼")
                     + ": where an invocation's steady state starts")
    if figure.log:
        parts.append("logarithmic time axis")
    for role, side, step in zip(ROLES, sides, figure.steps, strict=True):
        if step > 1:
            total = sum(len(series) for series in side.series)
            parts.append(f"{role}: every {ordinal(step)} value drawn, of {total:,}")
    line = "; ".join(side_line(role, side) for role, side in zip(ROLES, sides, strict=True))
    return SequenceImage(_data_uri(figure.svg), "; ".join(parts), line[0].upper() + line[1:])


def ordinal(number: int) -> str:
    """2nd, 3rd, 11th, 21st."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return f"{number}{suffix}"


def has_sequence(benchmark: BenchmarkResult) -> bool:
    """Whether a benchmark's page shows its run sequence: when the checks found something
    on a side (a warm-up, a slowdown, dependence, a trend...). Sides that looked steady and
    independent, or too short to judge, get a line instead: the plot would show nothing
    more, and a page then still holds its benchmark (with the plot, 52 of 100 benchmarks of
    31 values each spilled onto a second page)."""
    sides = benchmark.validity
    return sides is not None and benchmark.analysis is not None and any(
        side.findings for side in sides)


def draw_sequences(results: Results, indices: Iterable[int],
                   placed: bool = False) -> dict[int, SequenceImage]:
    """The run-sequence plot of each benchmark among ``indices`` that has one."""
    return {index: sequence_image(results.pair.benchmarks[index], placed) for index in indices
            if has_sequence(results.pair.benchmarks[index])}


#: The kinds of findings of the measurement checks, as the codes of their warnings, in the
#: order the global report lists them, with their headings there.
QUALITY_KINDS = {
    "warmup-dropped": "Warm-up left out",
    "residual-warmup": "Warm-up analysed",
    "series-slowdown": "Slowdown during the run",
    "no-steady-state": "No steady state",
    "inconsistent-invocations": "Inconsistent invocations",
    "dependent-values": "Dependent values, analysed as batch means",
    "dependent-values-ignored": "Dependent values, analysed as independent",
    "run-order-trend": "Trend across the run order",
    "position-effect": "Position effect within invocations",
}
#: The most rows of the global report's measurement-quality table (the rest are counted).
QUALITY_ROWS = 100


@dataclass(frozen=True)
class QualityRow:
    """A side of a benchmark in the measurement-quality table."""

    index: int
    benchmark: BenchmarkResult
    side: str
    first: bool  # the first row of its benchmark
    classification: str
    left_out: str
    lag1: str
    batch: str
    order: str
    order_significant: bool


@dataclass(frozen=True)
class QualityKind:
    """A kind of finding: its heading, how many sides have it, and what to do (the advice
    of its warnings; empty when no warning gives one, e.g. a --warmup N left out)."""

    code: str
    title: str
    sides: int
    advice: str


@dataclass(frozen=True)
class MeasurementQuality:
    """The global report's section on the measurement checks."""

    rows: tuple[QualityRow, ...]
    more: int  # sides with findings beyond the rows shown
    kinds: tuple[QualityKind, ...]
    sides: int  # sides checked
    short: int  # sides whose series were all too short to judge

    @property
    def flagged(self) -> int:
        return len(self.rows) + self.more


def measurement_quality(results: Results) -> MeasurementQuality | None:
    """Every side of an analysed benchmark whose checks found something, and the advice of
    each kind found; None when no benchmark was checked."""
    rows: list[QualityRow] = []
    counts: Counter[str] = Counter()
    advice: dict[str, str] = {}
    sides = short = more = 0
    for index, benchmark in enumerate(results.pair.benchmarks):
        if benchmark.validity is None or benchmark.analysis is None:
            continue
        first = True
        for role, validity in zip(ROLES, benchmark.validity, strict=True):
            sides += 1
            short += not validity.judged
            kinds = validity.findings
            if not kinds:
                continue
            counts.update(kinds)
            if len(rows) >= QUALITY_ROWS:
                more += 1
                continue
            order = validity.order
            rows.append(QualityRow(index, benchmark, role, first, series_class(validity),
                                   left_out(validity), lag1_text(validity),
                                   batch_text(validity), order_text(validity),
                                   order is not None and order.significant))
            first = False
        for notice in benchmark.notices:
            if notice.code in QUALITY_KINDS:
                advice.setdefault(notice.code, notice.advice)
    if not sides:
        return None
    kinds = tuple(QualityKind(code, title, counts[code], advice.get(code, ""))
                  for code, title in QUALITY_KINDS.items() if code in counts)
    return MeasurementQuality(tuple(rows), more, kinds, sides, short)


# ---------------------------------------------------------------- small tables


@dataclass(frozen=True)
class Grid:
    """A small table of formatted cells: an HTML table in the browser, aligned lines of a
    monospaced font in the PDF, where weasyprint lays out a line of text several times
    faster than the cells it would otherwise be (a benchmark's two tables were 40% of the
    layout time of its page)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numeric: tuple[bool, ...]  # right-aligned columns
    muted: frozenset[int] = frozenset()  # rows shown greyed out
    notes: tuple[str, ...] = ()  # said below the table

    def lines(self) -> Markup:
        """The table as lines of text, columns padded to their widest cell."""
        widths = [max(len(row[column]) for row in (self.header, *self.rows))
                  for column in range(len(self.header))]

        def line(cells: tuple[str, ...]) -> str:
            padded = (cell.rjust(width) if right else cell.ljust(width)
                      for cell, width, right in zip(cells, widths, self.numeric, strict=True))
            return "  ".join(padded).rstrip()

        body = [Markup('<span class="unused">{}</span>').format(line(row)) if index in self.muted
                else escape(line(row)) for index, row in enumerate(self.rows)]
        return Markup("\n").join([Markup('<span class="head">{}</span>').format(
            line(self.header)), *body])


def describe_grid(benchmark: BenchmarkResult) -> Grid:
    """The descriptive statistics of both samples, and the speedup of each estimator."""
    a, scale = benchmark.analysis, benchmark_scale(benchmark)
    unit = f" ({scale.label})" if scale.label else ""

    def side(label: str, summary: SampleSummary) -> tuple[str, ...]:
        return (label + unit, str(summary.n), *(time(getattr(summary, name), scale, 5)
                                                for name in ("mean", "median", "min", "max")),
                time(summary.std, scale, 4))

    speedups = (speedup(a.speedup.mean), speedup(a.speedup.median), speedup(a.speedup.min) + "*")
    return Grid(("", "n", "mean", "median", "min", "max", "std"),
                (side("initial", a.initial), side("optimized", a.optimized),
                 ("speedup", "", *speedups, "", "")),
                (False, *(True,) * 6))


def tests_grid(benchmark: BenchmarkResult) -> Grid:
    """Every test of the protocol with its statistic, p-value and decision at α; the t-test
    the F-test did not select greyed out, ✔ on the one it selected."""
    a = benchmark.analysis
    t = a.tests
    chosen = t.t_test_at(a.alpha)
    tests = (("Shapiro–Wilk on X", t.shapiro_initial, "X not normal"),
             ("Shapiro–Wilk on Y", t.shapiro_optimized, "Y not normal"),
             ("F-test", t.f_test, "var X ≠ var Y"),
             ("Student's t", t.t_student, "mean X > mean Y"),
             ("Welch's t", t.t_welch, "mean X > mean Y"),
             (f"Kolmogorov–Smirnov ({t.ks.method})", t.ks, "shapes differ"),
             (f"Wilcoxon–Mann–Whitney ({t.wilcoxon.method})", t.wilcoxon, "P(X > Y) > ½"))
    rows, notes = [], []
    for label, test, detail in tests:
        df = getattr(test, "df", None)
        if not test.computed:
            decision = "not computed"
            notes.append(f"{label}: {test.note}")
        else:
            decision = "rejects H0" if test.rejects(a.alpha) else "does not reject"
        rows.append((label + (" ✔" if test is chosen else ""),
                     detail + (f", df {number(df, 4)}" if df is not None else ""),
                     number(test.statistic, 4), p_value(test.p_value), decision))
    unused = t.t_welch if chosen is t.t_student else t.t_student
    muted = next(row for row, (_, test, _) in enumerate(tests) if test is unused)
    return Grid(("Test", "H1 (X initial, Y optimized)", "statistic", "p-value",
                 f"at α = {a.alpha}"), tuple(rows), (False, False, True, True, False),
                frozenset({muted}), tuple(notes))


def levels_grid(benchmark: BenchmarkResult) -> Grid:
    """The Kalibera–Jones variance components of each side of a hierarchical sample (its
    effect size's), the top level first: the mean number of units per unit of the level
    above, S² and T² in the square of the benchmark's display unit."""
    effect, scale = benchmark.effect, benchmark_scale(benchmark)
    squared = f" ({scale.label}²)" if scale.label else ""
    rows = tuple((elide(components.level_names[level]), side,
                  number(components.n[level], 3), variance(components.s2[level], scale),
                  variance(components.t2[level], scale))
                 for side, components in (("initial", effect.initial),
                                          ("optimized", effect.optimized))
                 for level in reversed(range(len(components.level_names))))
    return Grid(("level", "side", "units", f"S²{squared}", f"T²{squared} added"), rows,
                (False, False, True, True, True))


# ---------------------------------------------------------------- the per-benchmark index


@dataclass(frozen=True)
class IndexEntry:
    """A line of the index of the per-benchmark report."""

    index: int
    benchmark: BenchmarkResult
    page: int | None  # in the PDF: the page its section starts on


def index_entries(results: Results) -> list[IndexEntry]:
    """Every benchmark in the order of the config (for the HTML: no pages)."""
    return [IndexEntry(i, b, None) for i, b in enumerate(results.pair.benchmarks)]


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
                       time=time, variance=variance, change=change, gain=gain, level=level,
                       plural=plural, probability=probability, adjusted=adjusted,
                       interval_label=interval_label, call_note=call_note,
                       threshold=threshold, resolution_setting=resolution_setting,
                       elide=elide, elide_long=elide_long,
                       elide_message=elide_message, data_number=data_number,
                       proportion_caveat=proportion_caveat)
    env.globals.update(interval=interval, aggregate_methods=AGGREGATE_METHODS,
                       describe_grid=describe_grid, tests_grid=tests_grid,
                       levels_grid=levels_grid, brief_notice=brief_notice,
                       suite_covers=SUITE_INTERVAL_COVERS,
                       population_covers=POPULATION_INTERVAL_COVERS,
                       population_caveat=POPULATION_CAVEAT, call_rank=CALL_RANK,
                       proportion_approximate=PROPORTION_APPROXIMATE)
    return env


@dataclass(frozen=True)
class BriefNotice:
    """A warning as a page of the per-benchmark PDF shows it: its message and advice cut
    to BRIEF_MESSAGE and BRIEF_ADVICE characters (densely: the message to DENSE_MESSAGE,
    and no advice), whether anything was cut or left out, and the heading it is under in
    the warnings report (where it is whole)."""

    message: str
    advice: str
    shortened: bool
    title: str


def notice_title(notice: Notice) -> str:
    """The heading of a warning's kind in the warnings report."""
    return NOTICE_TITLES.get(notice.code, notice.code.replace("-", " ").capitalize())


def brief_notice(notice: Notice, dense: bool = False) -> BriefNotice:
    message, advice = elide_message(notice.message), elide_message(notice.advice)
    if dense:
        return BriefNotice(brief(message, DENSE_MESSAGE), "", len(message) > DENSE_MESSAGE,
                           notice_title(notice))
    return BriefNotice(brief(message, BRIEF_MESSAGE), brief(advice, BRIEF_ADVICE),
                       len(message) > BRIEF_MESSAGE or len(advice) > BRIEF_ADVICE,
                       notice_title(notice))


@dataclass(frozen=True)
class NoticeGroup:
    """The warnings of one kind (Notice.code) over all benchmarks."""

    code: str
    title: str
    entries: tuple[tuple[int, BenchmarkResult, Notice], ...]  # benchmark index, benchmark

    @property
    def benchmarks(self) -> list[tuple[int, BenchmarkResult]]:
        seen = {index: benchmark for index, benchmark, _ in self.entries}
        return list(seen.items())

    @property
    def messages(self) -> list[str]:
        return list(dict.fromkeys(notice.message for _, _, notice in self.entries))

    @property
    def advice(self) -> list[str]:
        return list(dict.fromkeys(notice.advice for _, _, notice in self.entries))

    def shortened(self, dense: Collection[int] = ()) -> list[tuple[int, BenchmarkResult, Notice]]:
        """The warnings whose message the per-benchmark PDF shortens (see brief_notice; the
        benchmarks of ``dense`` were laid out densely), but the one the group shows whole:
        the PDF of this report lists them whole."""
        shown = self.entries[0][2].message
        return [(index, benchmark, notice) for index, benchmark, notice in self.entries
                if notice.message != shown and len(elide_message(notice.message)) > (
                    DENSE_MESSAGE if index in dense else BRIEF_MESSAGE)]


def notice_groups(benchmarks: Sequence[tuple[int, BenchmarkResult]]) -> list[NoticeGroup]:
    """The benchmarks' warnings grouped by kind, the kinds that concern most benchmarks
    first (then in the order they first appear)."""
    entries: dict[str, list[tuple[int, BenchmarkResult, Notice]]] = {}
    for index, benchmark in benchmarks:
        for notice in benchmark.notices:
            entries.setdefault(notice.code, []).append((index, benchmark, notice))
    groups = [NoticeGroup(code, notice_title(found[0][2]), tuple(found))
              for code, found in entries.items()]
    return sorted(groups, key=lambda group: -len(group.benchmarks))


def call_columns(results: Results) -> tuple[str, bool]:
    """The header of the call intervals' column, and whether each row must name its own
    level and method (when they differ between benchmarks)."""
    changes = [b.change for b in results.pair.analysed if b.change is not None]
    labels = {interval_label(call) for call in changes}
    if len(labels) == 1:
        return labels.pop(), False
    correction = correction_short(changes[0].correction) if changes else ""
    return f"Corrected CI ({correction})" if correction else "Corrected CI", True


def calls_note(results: Results) -> str:
    """How the calls were made, for the counts on page 1."""
    calls = results.pair.overall.calls
    if calls is None or not calls.total:
        return ""
    changes = [b.change for b in results.pair.analysed if b.change is not None]
    return (f"{calls_basis(calls.threshold, calls.correction, calls.total)}: each "
            f"benchmark's speedup of the means with its {_intervals_in_words(changes)}")


def _intervals_in_words(changes: Sequence[Change]) -> str:
    """The calls' intervals: their levels and methods ("95% Fieller interval")."""
    levels = " / ".join(sorted({level(call.confidence) for call in changes}))
    methods = " or ".join(sorted({CALL_METHODS.get(call.method, call.method)
                                  for call in changes}))
    return f"{levels} {methods} interval"


def band(results: Results) -> tuple[str, str]:
    """The threshold band 1/(1 + τ) … 1 + τ, formatted."""
    calls = results.pair.overall.calls
    tau = calls.threshold if calls else results.settings.threshold
    lower, upper = threshold_band(tau)
    return f"{lower:.4g}", f"{upper:.4g}"


def anchor(index: int) -> str:
    return f"benchmark-{index + 1}"


@dataclass(frozen=True)
class GlobalPart:
    """A part of the global report's PDF: the opening (header, answer, forest plot and the
    overall figures), rows [start, stop) of the table of every benchmark, or the closing
    (settings and input files). A report of thousands of benchmarks is laid out in such
    parts, in parallel and each in a bounded memory, and joined."""

    opening: bool = False
    rows: tuple[int, int] = (0, 0)
    closing: bool = False


class ReportRenderer:
    """Renders the reports of one run; a report may be rendered in parts (for the PDF)."""

    def __init__(self, results: Results, drawn: Figures, link_extension: str) -> None:
        self.template_env = environment()
        self.figures, self.placed = drawn, link_extension == "pdf"
        self._quality: tuple[MeasurementQuality | None] | None = None
        benchmarks = list(enumerate(results.pair.benchmarks))
        positions = {id(benchmark): index for index, benchmark in benchmarks}
        ci_header, ci_per_row = call_columns(results)
        self.context = {
            "results": results,
            "pair": results.pair,
            "subject": subject(results),
            "benchmarks": benchmarks,
            "figures": drawn,
            "anchor": anchor,
            "time_scale": benchmark_scale,
            "ext": link_extension,
            "titles": TITLES,
            "method_labels": METHOD_LABELS,
            "warned": [(i, b) for i, b in benchmarks if b.notices],
            "failed": [(i, b) for i, b in benchmarks if b.errors],
            "answer": answer_sentence(results),
            "calls_note": calls_note(results),
            "band": band(results),
            "ci_header": ci_header,
            "ci_per_row": ci_per_row,
            "notice_groups": notice_groups(benchmarks),
            "call_methods": CALL_METHODS,
            "warning_count": len(results.all_notices) + sum(
                len(b.notices) for b in results.pair.benchmarks),
            "benchmark_warning_count": sum(len(b.notices) for b in results.pair.benchmarks),
            "opening": True,  # the parts of the global report (see GlobalPart)
            "rows": [(positions[id(b)], b) for b in by_call(results.pair.benchmarks)],
            # the table's filter: every call, and "error" if a benchmark has no call
            "table_calls": (*CALL_ORDER, *(("error",) if any(
                b.analysis is None or b.change is None for b in results.pair.benchmarks) else ())),
            "table_first": True,
            "table_last": True,
            "closing": True,
            "index": index_entries(results),
            "show_index": True,
            "show_header": True,
            "show_footer": True,
            "dense": frozenset(),  # benchmarks laid out densely (render_benchmarks_part)
            "measurement_quality": self.measurement_quality,
            "run_sequence": self.run_sequence,
            "has_sequence": has_sequence,
            "lag1_text": lag1_text,
            "min_series": MIN_SERIES,
            "order_alpha": ORDER_ALPHA,
        }

    def measurement_quality(self) -> MeasurementQuality | None:
        """The global report's measurement-quality section (worked out once, when its
        opening is rendered: each part of a report has a renderer of its own)."""
        if self._quality is None:
            self._quality = (measurement_quality(self.context["results"]),)
        return self._quality[0]

    def run_sequence(self, index: int, benchmark: BenchmarkResult) -> SequenceImage:
        """A benchmark's run-sequence plot, drawn now unless it was drawn beforehand."""
        drawn = self.figures.sequences.get(index)
        return drawn if drawn is not None else sequence_image(benchmark, self.placed)

    def render(self, name: str, **overrides: object) -> str:
        template = self.template_env.get_template(f"{name}.html")
        return template.render({**self.context, "report": name, "title": TITLES[name],
                                **overrides})

    def render_all(self) -> dict[str, str]:
        return {name: self.render(name) for name in REPORTS}

    def render_global_part(self, part: GlobalPart) -> str:
        """A part of the global report, laid out on its own and joined with the others."""
        rows = self.context["rows"]
        start, stop = part.rows
        return self.render("global", opening=part.opening, rows=rows[start:stop],
                           table_first=start == 0, table_last=stop >= len(rows),
                           closing=part.closing, show_header=part.opening,
                           show_footer=part.closing)

    def render_benchmarks_part(self, indices: Sequence[int],
                               dense: Collection[int] = ()) -> str:
        """Part of the per-benchmark report, laid out on its own and joined after the index
        with the other parts into one PDF. The benchmarks of ``dense`` are laid out more
        densely (their warnings without what to do, which the warnings report gives), for
        a page that would not hold them otherwise (see pdf.lay_out_sections)."""
        benchmarks = self.context["pair"].benchmarks
        return self.render("benchmarks", benchmarks=[(i, benchmarks[i]) for i in indices],
                           show_index=False, show_header=False, show_footer=False,
                           dense=frozenset(dense))

    def render_benchmarks_index(self, pages: dict[int, int], first: bool = True,
                                last: bool = True) -> str:
        """The index of the per-benchmark PDF, or a part of it: the benchmarks of ``pages``
        (benchmark index → the page its section starts on); the first part has the header,
        the last the footer."""
        benchmarks = self.context["pair"].benchmarks
        return self.render("benchmarks", benchmarks=[], show_header=first, show_footer=last,
                           index=[IndexEntry(i, benchmarks[i], page) for i, page in pages.items()])


# ------------------------------------------------------------------ several versions
# The reports of three or more versions: templates/versions/*.html lay out Results.

VERSIONS_TITLES = {"global": "Versions: global report",
                   "benchmarks": "Versions: per-benchmark report",
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

    @property
    def calls(self) -> str:
        """The calls of its versions against the baseline, in the order of the reports, and
        "error" if a version has none: what the browser filters the row by (``data-call``)."""
        found = {cell.call.call if cell.analysed and cell.call else "error"
                 for cell in self.cells if not cell.baseline}
        return " ".join(call for call in CALL_RANK if call in found)


def _base64_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _scale(benchmark: VersionsBenchmark) -> TimeScale:
    means = [s.mean for s in benchmark.summaries if s is not None]
    return time_scale(benchmark.unit, min(means)) if means else time_scale(None, 1.0)


def version_rows(results: Results) -> list[Row]:
    """The matrix: every benchmark with one cell per version."""
    found = []
    for index, benchmark in enumerate(results.across):
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


@dataclass(frozen=True)
class WarnedBenchmark:
    index: int
    name: str
    notices: tuple[tuple[str, Notice], ...]  # (which comparison, or "" for all versions)


def warned_versions(results: Results) -> list[WarnedBenchmark]:
    """Every benchmark's warnings: of the comparison of all versions, then of each version
    against the baseline."""
    found = []
    for index, benchmark in enumerate(results.across):
        notices = [("all versions", notice) for notice in benchmark.notices]
        for comparison in results.comparisons:
            result = comparison.by_benchmark[index]
            if result is not None:
                label = f"{elide(comparison.version)} vs {elide(comparison.baseline)}"
                notices += [(label, notice) for notice in result.notices]
        if notices:
            found.append(WarnedBenchmark(index, benchmark.name, tuple(notices)))
    return found


def versions_calls_basis(results: Results) -> str:
    """How the calls against the baseline were made, in words."""
    settings = results.settings
    total = results.calls_total
    changes = [b.change for c in results.comparisons for b in c.analysed if b.change]
    corrected = ("not corrected for multiplicity" if settings.correction == "none"
                 else f"{CORRECTION_LABELS[settings.correction]}-corrected over all {total} "
                      "comparisons (benchmark × version)")
    return (f"threshold ±{threshold(settings.threshold)}; each comparison's speedup of the "
            f"means with its {_intervals_in_words(changes)}, {corrected}")


class VersionsRenderer:
    """Renders the reports of one run of several versions."""

    def __init__(self, results: Results, forest: str | None,
                 distributions: dict[int, str], link_extension: str) -> None:
        self.env = environment()
        # A version's name in a table's cell, where names share a line: elided to
        # VERSION_WIDTH, told apart (its whole name heads the page and the ranking).
        labels = dict(zip(results.versions, elide_apart(results.versions, VERSION_WIDTH),
                          strict=True))
        self.env.filters.update(threshold=threshold,
                                vlabel=lambda name: labels.get(name) or elide(name,
                                                                              VERSION_WIDTH))
        lower, upper = threshold_band(results.settings.threshold)
        rows = version_rows(results)
        self.context = {
            "results": results,
            "subject": subject(results),
            "rows": rows,
            # the matrix's filter: every call, and "error" if a row has one
            "matrix_calls": (*CALL_ORDER, *(("error",) if any(
                "error" in row.calls.split() for row in rows) else ())),
            "answer": answer_sentence(results),
            "forest": forest,
            "distributions": distributions,
            "anchor": anchor,
            "ext": link_extension,
            "titles": VERSIONS_TITLES,
            "route_labels": ROUTE_LABELS,
            "call_methods": CALL_METHODS,
            "calls_basis": versions_calls_basis(results),
            "band": (f"{lower:.4g}", f"{upper:.4g}"),
            "tie_level": next((level(s.versus_best.confidence) for s in results.standings
                               if s.versus_best is not None), ""),
            "warned": warned_versions(results),
            "zip": zip,
            "comparisons_per_benchmark": len(results.comparisons),
            "show_header": True,
            "show_footer": True,
            "dense": frozenset(),  # benchmarks laid out densely (render_benchmarks_part)
            "brief_notice": brief_notice,
        }

    def render(self, name: str, **overrides: object) -> str:
        template = self.env.get_template(f"versions/{name}.html")
        return template.render({**self.context, "report": name, "title": VERSIONS_TITLES[name],
                                **overrides})

    def render_benchmarks_part(self, indices: Sequence[int], first: bool, last: bool,
                               dense: Collection[int] = ()) -> str:
        """Benchmarks' pages (the first part with the report's header, the last with its
        footer); those of ``dense`` laid out densely, as ReportRenderer's."""
        all_rows = self.context["rows"]
        return self.render("benchmarks", rows=[all_rows[i] for i in indices],
                           show_header=first, show_footer=last, dense=frozenset(dense))

    def lay_out_benchmarks(self, indices: Sequence[int], first: bool, last: bool) -> bytes:
        """The benchmarks' pages as PDF, one page each (see pdf.lay_out_sections)."""
        from speeduptest.render.pdf import lay_out_sections

        def denser(index: int) -> str:
            return self.render_benchmarks_part([index], first and index == indices[0],
                                               last and index == indices[-1], {index})

        return lay_out_sections(self.render_benchmarks_part(indices, first, last),
                                {anchor(index): index for index in indices}, denser).pdf


def draw_version_distributions(results: Results, indices: Sequence[int]) -> dict[int, str]:
    found = {}
    for index in indices:
        benchmark = results.across[index]
        svg = figures.versions_distribution_figure(benchmark, _scale(benchmark))
        if svg is not None:
            found[index] = _base64_uri(svg)
    return found


def _forest(results: Results) -> str | None:
    svg = figures.versions_forest_figure(results)
    return _base64_uri(svg) if svg else None


def _task(results: Results, pdf: bool, part: tuple[tuple[int, ...], bool, bool] | None
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
    uris = draw_version_distributions(results, indices)
    if not pdf:
        return uris, {}
    renderer = VersionsRenderer(results, None, uris, "pdf")
    return uris, {"benchmarks": renderer.lay_out_benchmarks(indices, first, last)}


def _parts(count: int, workers: int) -> list[tuple[tuple[int, ...], bool, bool]]:
    size = max(3, -(-count // (4 * workers)))
    starts = list(range(0, count, size)) or [0]
    return [(tuple(range(start, min(start + size, count))), start == 0, start == starts[-1])
            for start in starts]


def render_version_reports(
    results: Results, pdf: bool, html: bool, workers: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, bytes]:
    """global, benchmarks, warnings and errors as HTML and/or PDF, name → content. Figures
    are drawn once for both; the PDF pages are laid out in parts on every core."""
    from speeduptest.render.pdf import join_and_number

    workers = workers or default_workers()
    parts = _parts(len(results.across), workers)
    outputs = []
    done = 0
    with worker_pool(workers) as parallel_map:
        for output, task in zip(parallel_map(functools.partial(_task, results, pdf),
                                             [None, *parts]), [None, *parts], strict=True):
            outputs.append(output)
            done += len(task[0]) if task is not None else 0
            if progress is not None:
                progress(done, len(results.across), "benchmark pages")
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


# ------------------------------------------------------------------ notebooks


def notebook_html(results: Results) -> str:
    """What a result shows in a notebook: its answer sentence and its forest plot, as one
    block of HTML with the figures inline (templates/notebook.html). Jupyter shows it for a
    result on its own (``Results._repr_html_``, wired by the package: see
    speeduptest/model/display.py); elsewhere, or to show it explicitly::

        from IPython.display import HTML
        from speeduptest.render.html import notebook_html
        HTML(notebook_html(results))
    """
    several = results.several
    return environment().get_template("notebook.html").render(
        results=results, answer=answer_sentence(results), several=several,
        forest=_forest(results) if several else None,
        parts=() if several else draw_forest(results))

"""Number formats shared by every renderer (no statistics here), and the one way input text
(names, paths, messages) is bounded where it is laid out."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from speeduptest.model.wording import (
    CORRECTION_LABELS,
    POPULATION_INTERVAL_COVERS,
    RATIO_WORDING,
    SUITE_INTERVAL_COVERS,
    bound_texts,
    change_words,
    threshold_band,
)
from speeduptest.model.wording import percent_level as level
from speeduptest.notices import elide

if TYPE_CHECKING:
    from speeduptest.model.results import BenchmarkResult, Results, Settings, Unpaired
    from speeduptest.model.versions import VersionStanding


# ---------------------------------------------------------------- input text, bounded

#: The most characters of an input string laid out: a name in a table cell, a list, a line
#: of the terminal, summary.md or table.tex (the limit of the names quoted in messages);
#: a name in a heading, or a file path or a command line in a line of text; a warning or
#: an error message, each of its words at most ``LONG_WIDTH``. A longer string is elided in
#: the middle: laying out a word costs a PDF time that grows with the square of its length
#: (a name of 20,000 characters took a minute). results.json and results.csv keep it whole.
NAME_WIDTH, LONG_WIDTH, MESSAGE_WIDTH = 80, 200, 2000  # (elide's own default: NAME_WIDTH)
_SPACES = re.compile(r"(\s+)")


#: The most characters of a warning's message, and of its advice, on a page of the
#: per-benchmark PDF, where every benchmark has one A4 page: a longer one is cut at a word
#: and says where it is whole (the warnings report). Messages (which differ between
#: benchmarks) are left whole up to a length none of the protocol's reaches; the advice
#: (the same for every warning of a kind) is always whole in the warnings report. A page
#: that does not hold its benchmark so is laid out again densely: each message cut to a
#: line (DENSE_MESSAGE), without the advice (the warnings report then lists those messages
#: whole too).
BRIEF_MESSAGE, BRIEF_ADVICE, DENSE_MESSAGE = 300, 110, 125


def brief(text: str, width: int) -> str:
    """``text`` whole when it has at most ``width`` characters, else cut after a word (in
    its second half) and ended by an ellipsis, ``width`` characters at most."""
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    space = cut.rfind(" ")
    if space > width // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _cut(text: str, width: int, head: int) -> str:
    """``text`` cut to ``width`` characters by an ellipsis after its first ``head``."""
    if len(text) <= width:
        return text
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def elide_apart(names: Sequence[str], width: int = NAME_WIDTH) -> list[str]:
    """Each of ``names`` elided in the middle to ``width`` characters (as :func:`elide`),
    and labels that tell apart names that differ: where two would read the same (names that
    share their ends), the ellipsis moves, and the width grows only if no place of it does,
    up to twice ``width``; beyond, each label is numbered ("…#2"). Labels of the same names:
    the same labels."""
    distinct = list(dict.fromkeys(names))
    labels = [elide(name, width) for name in distinct]
    longest = max((len(name) for name in distinct), default=0)
    size = width
    while len(set(labels)) < len(labels) and size < min(longest, 2 * width):
        # The cuts that keep most of both ends first, then the nearest to elide's.
        default = (size - 1) // 3
        heads = sorted(range(size - 1), key=lambda head: (-min(head, size - 1 - head),
                                                          abs(head - default)))
        found = next((tried for tried in ([_cut(name, size, head) for name in distinct]
                                          for head in heads)
                      if len(set(tried)) == len(tried)), None)
        if found is not None:
            labels = found
            break
        size += 1
    else:
        if len(set(labels)) < len(labels):
            labels = [f"{elide(name, max(width - 3, 2))}#{number}"
                      for number, name in enumerate(distinct, start=1)]
    by_name = dict(zip(distinct, labels, strict=True))
    return [by_name[name] for name in names]


def elide_long(text: str) -> str:
    """A name in a heading, or a path or a command line in a line of text."""
    return elide(text, LONG_WIDTH)


def elide_message(text: str) -> str:
    """A warning or an error: each word (a quoted name, a path) at most ``LONG_WIDTH``
    characters, the whole at most ``MESSAGE_WIDTH``."""
    if len(text) <= LONG_WIDTH:
        return text
    text = "".join(elide(part, LONG_WIDTH) for part in _SPACES.split(text))
    return elide(text, MESSAGE_WIDTH)


#: The most characters of a version's name in a table's cell or a figure's label, where
#: several names share a line (elided in the middle, told apart: :func:`elide_apart`).
VERSION_WIDTH = 24
#: The most characters of what a report's running title names: at the top of every page
#: (7.5 pt), it stays on one line.
SUBJECT_WIDTH = 72


def subject(results: Results) -> str:
    """What a report is about, for its running title and the browser's tab: the compared
    versions' names (each elided and told apart), else the config's or files' names."""
    source = results.source
    if results.several:
        if source.config:
            return elide(source.short, SUBJECT_WIDTH)
        count = len(results.versions)
        width = max(VERSION_WIDTH // 2, (SUBJECT_WIDTH + 2) // count - 2)
        return elide(", ".join(elide_apart(results.versions, width)), SUBJECT_WIDTH)
    if source.names:
        return " vs ".join(elide_apart(source.names, (SUBJECT_WIDTH - 4) // 2))
    return elide(source.short, SUBJECT_WIDTH)


# ---------------------------------------------------------------- numbers


def number(value: float | None, digits: int = 4) -> str:
    """``digits`` significant digits; whole numbers up to a billion without an exponent."""
    if value is None or not math.isfinite(value):
        return "—"
    text = f"{value:.{digits}g}"
    if "e+" in text and abs(value) < 1e9:
        return f"{value:.0f}"
    return text


def speedup(value: float | None) -> str:
    """A ratio with four significant digits, e.g. 1.057×; — when missing."""
    return "—" if value is None else f"{value:.4g}×"


def change(value: float | None) -> str:
    """A speedup in words a reader compares at a glance: "12.4% faster", "263× slower"."""
    return "—" if value is None else change_words(value)


#: How an aggregate interval was made, in words.
AGGREGATE_METHODS = {"delta": "delta-method", "bootstrap": "bootstrap"}


def plural(count: int, noun: str) -> str:
    """"1 benchmark", "2 benchmarks" (nouns with a plain -s plural)."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def threshold(value: float) -> str:
    """τ as a percentage: "1%", "0.5%"."""
    return f"{value * 100:.3g}%"


def interval(low: float | None, high: float | None, threshold: float | None = None) -> str:
    """An interval of speedups with the significant digits that tell its ends apart, and,
    for a call's interval (``threshold`` τ given), apart from the edges of the band it is
    judged against: "1.0099–1.024", never "1.01–1.024" for an interval reaching below 1.01."""
    edges = () if threshold is None else threshold_band(threshold) if threshold else (1.0,)
    if low is None and high is None:
        return "unbounded"
    if high is None:  # (a call's set open above: [L, ∞))
        return "≥ " + bound_texts(low, low, edges)[0]
    if low is None:  # (open below: (0, H])
        return "≤ " + bound_texts(high, high, edges)[1]
    return "–".join(bound_texts(low, high, edges))


def answer_sentence(results: Results) -> str:
    """The answer in one sentence, for the first lines of the terminal, of summary.md and of
    the global report: is it faster, by how much, how sure (two versions); which version is
    fastest, by how much, and which are indistinguishable from it (several)."""
    if results.several:
        return _versions_answer(results)
    return _pair_answer(results)


def _pair_answer(results: Results) -> str:
    overall = results.pair.overall
    calls = overall.calls
    if calls is None or not calls.total:
        return "No benchmark could be analysed."
    geometric = overall.geometric_mean
    baseline, other = (elide(name) for name in results.named)
    than = "" if results.source.names is None else f" than {baseline}"
    if geometric is None:
        head = f"{other} against {baseline}"
    else:
        figures = (f"geometric mean of the speedups {speedup(geometric.value)}, "
                   f"{level(geometric.confidence)} CI "
                   f"{interval(geometric.low, geometric.high, calls.threshold)}")
        population = geometric.population
        if population is not None:  # each interval named for what it covers
            figures += (f" for {SUITE_INTERVAL_COVERS} and "
                        f"{interval(population.low, population.high, calls.threshold)} for "
                        f"{POPULATION_INTERVAL_COVERS}")
        words, band = change_words(geometric.value), threshold(calls.threshold)
        head = {
            "faster": f"{other} is {words}{than} overall ({figures})",
            "slower": f"{other} is {words}{than} overall ({figures})",
            "unchanged": f"no overall change beyond the {band} threshold ({figures})",
        }.get(overall.call or "", f"no overall change is established ({figures})")
        if overall.call == "uncertain" and (geometric.low > 1 or geometric.high < 1):
            head = (f"{other} is {words}{than} overall, but not clearly beyond the {band} "
                    f"threshold ({figures})")
        weighted = overall.mean.speedup
        if (overall.call in ("faster", "slower") and weighted is not None
                and (weighted > 1) != (geometric.value > 1)):
            head += (f"; the time-weighted overall speedup, {speedup(weighted)}, points the "
                     "other way (the longest benchmarks dominate it)")
    counts = ", ".join(f"{count} {name}" for name, count in (
        ("faster", calls.faster), ("slower", calls.slower), ("unchanged", calls.unchanged),
        ("uncertain", calls.uncertain)) if count or name in ("faster", "slower"))
    failed = f"; {len(results.failed)} not analysed (errors)" if results.failed else ""
    method = ("" if calls.correction == "none" or calls.total == 1
              else f", {CORRECTION_LABELS[calls.correction].split(' (')[0]}")
    if not than or not head.startswith(other):  # (a version's name is written as given)
        head = head[0].upper() + head[1:]
    return (f"{head}; {counts} of {plural(calls.total, 'benchmark')} "
            f"(threshold {threshold(calls.threshold)}{method}){failed}."
            + not_compared(results.unpaired))


def not_compared(unpaired: Sequence[Unpaired]) -> str:
    """What the answer leaves out: the benchmarks of each file without a counterpart, with
    the likely ones (" Not compared: …"; "" when every benchmark paired)."""
    if not unpaired:
        return ""
    parts = [f"{plural(len(group.names), 'benchmark')} of {elide(group.file)} (not in "
             f"{elide(group.other)})" for group in unpaired]
    guesses = [f"{elide(name)} → {elide(close)}" for group in unpaired[:1]
               for name, close in group.suggestions()[:3]]
    return (" Not compared, no counterpart by name: " + "; ".join(parts)
            + (f" (did you mean {', '.join(guesses)}?)" if guesses else "") + ".")


@dataclass(frozen=True)
class TimeScale:
    """How to show times read in seconds: in the SI unit that keeps them readable."""

    factor: float  # multiply a time in seconds by this
    label: str  # "ms"; "" for numbers whose unit the input did not state


UNSTATED = TimeScale(1.0, "")
#: (seconds per unit, display scale); the last one also serves below a nanosecond.
_PREFIXES = ((1.0, TimeScale(1.0, "s")), (1e-3, TimeScale(1e3, "ms")),
             (1e-6, TimeScale(1e6, "µs")), (1e-9, TimeScale(1e9, "ns")))


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def standing_figures(standing: VersionStanding, what: str) -> str:
    aggregate = standing.geometric_mean if what == "baseline" else standing.versus_best
    return (f"{level(aggregate.confidence)} CI "
            f"{interval(aggregate.low, aggregate.high)}")


def _versions_answer(results: Results) -> str:
    """Which version is fastest, by how much, and which are indistinguishable from it: one
    sentence for the terminal and the global report."""
    ranking = results.ranking
    k = len(ranking)
    if not results.common:
        return (f"No benchmark was analysed for every one of the {k} versions: they cannot be "
                "ranked (see the errors).")
    best = ranking[0]
    tied = [s for s in ranking[1:] if s.best]
    runner = ranking[1]
    if len(tied) == k - 1:  # an A/A run: nothing is shown faster, say that first
        text = (f"No version is shown faster than the others: of {k} versions, "
                + (f"the baseline, {elide(best.name)}, leads" if best.baseline
                   else f"{elide(best.name)} leads"))
    else:
        text = (f"The baseline, {elide(best.name)}, is the fastest of {k} versions" if best.baseline
                else f"{elide(best.name)} is the fastest of {k} versions")
    versus_baseline = "" if best.baseline else (
        f"{change(best.speedup)} than the baseline {elide(results.baseline_name)} "
        f"({standing_figures(best, 'baseline')})")
    if tied:
        first = tied[0]
        if not best.baseline:
            text += f", {versus_baseline}"
        text += (f", but {_names([elide(s.name) for s in tied])} "
                 f"{'is' if len(tied) == 1 else 'are'} indistinguishable from it (it is "
                 f"{change(first.versus_best.value)} than {elide(first.name)}, "
                 f"{standing_figures(first, 'best')})")
    else:
        text += (f": {change(runner.versus_best.value)} than the next best, "
                 f"{'the baseline ' if runner.baseline else ''}{elide(runner.name)} "
                 f"({standing_figures(runner, 'best')})")
        if not best.baseline and not runner.baseline:
            text += f", and {versus_baseline}"
    slowest = ranking[-1]
    if k >= 3 and not slowest.best and slowest is not runner:
        text += (f"; {elide(slowest.name)} is the slowest, {change(1 / slowest.versus_best.value)} "
                 "than it")
    return (f"{text} (geometric means of the speedups over "
            f"{plural(len(results.common), 'benchmark')}, threshold "
            f"{threshold(results.settings.threshold)})." + not_compared(results.unpaired))


def time_scale(unit: str | None, magnitude: float) -> TimeScale:
    """The display unit for times of about ``magnitude`` (in ``unit``: "s", or None)."""
    if unit is None:
        return UNSTATED
    return next((scale for size, scale in _PREFIXES if magnitude >= size), _PREFIXES[-1][1])


def mean_time(value: float, scale: TimeScale) -> str:
    """A mean as the terminal shows it beside the change, in ``scale``: with three
    significant digits and its unit, as pyperf shows times ("267 ms"; whole numbers from
    1,000 up: "14359 ns"); without a unit when the input stated none, with four ("9.96")."""
    if not scale.label:
        return number(value * scale.factor, 4)
    return f"{number(value * scale.factor, 3)} {scale.label}"


def resolution_setting(settings: Settings) -> str:
    """The run's --resolution in words, for the reports' settings."""
    scope = "for a sample whose values take at most 3 distinct values"
    if settings.resolution is None:
        return f"detected from the spacing of the values, {scope}"
    if settings.resolution == 0:
        return "0 (--resolution): the values are taken as exact, no floor"
    scale = time_scale(settings.resolution_unit, settings.resolution)
    value = f"{settings.resolution * scale.factor:.6g}"
    shown = (f"{value} {scale.label}" if scale.label
             else f"{value} in the unit the values were written in")
    return f"{shown} (--resolution), {scope}"


def benchmark_scale(benchmark: BenchmarkResult) -> TimeScale:
    """The display unit of a benchmark's times: the smaller mean shows as 1 or more."""
    analysis = benchmark.analysis
    if analysis is None:
        return UNSTATED
    return time_scale(benchmark.unit, min(analysis.initial.mean, analysis.optimized.mean))


#: The order of the calls in every listing: what changed first, then what did not.
CALL_ORDER = ("faster", "slower", "uncertain", "unchanged")


def by_call(benchmarks: Iterable[BenchmarkResult]) -> list[BenchmarkResult]:
    """Benchmarks in the order of their call, the largest change first within a call, the
    ones with errors last."""
    def key(benchmark: BenchmarkResult) -> tuple[int, float]:
        if benchmark.change is None or benchmark.analysis is None:
            return len(CALL_ORDER), 0.0
        return (CALL_ORDER.index(benchmark.change.call),
                -abs(math.log(benchmark.analysis.speedup.mean)))
    return sorted(benchmarks, key=key)


def gain(value: float | None, speedup_value: float | None) -> str:
    """A gain (1 − 1/speedup) as a signed percentage, "+5.3%", "−12.4%"; a slowdown by a
    factor of 1.25 or more reads as its change words ("12.2× slower"), never "−1117.8%"."""
    if value is None:
        return "—"
    if speedup_value is not None and 0 < speedup_value <= 1 / RATIO_WORDING:
        return change_words(speedup_value)
    return f"{value * 100:+.1f}%".replace("-", "−")


def correction_short(correction: str) -> str:
    """"Bonferroni", "FCR", "uncorrected": for table headers."""
    return "uncorrected" if correction == "none" else CORRECTION_LABELS[correction].split(" (")[0]


def calls_basis(threshold_value: float, correction: str, benchmarks: int) -> str:
    """How the calls were made, e.g. "threshold ±1%, Bonferroni-corrected intervals over
    102 benchmarks"."""
    over = plural(benchmarks, "benchmark")
    if correction == "none" or benchmarks == 1:
        corrected = f"intervals not corrected for multiplicity ({over})"
    elif correction == "fcr":
        corrected = f"FCR-corrected (Benjamini–Yekutieli) intervals over {over}"
    else:
        corrected = f"{CORRECTION_LABELS[correction]}-corrected intervals over {over}"
    limit = f"threshold ±{threshold(threshold_value)}" if threshold_value else "no threshold"
    return f"{limit}, {corrected}"

"""The short summary printed on the terminal, for two versions or several: names and messages
elided to a width (as by :func:`formatting.elide`), whole in results.json."""

from __future__ import annotations

from typing import TYPE_CHECKING

from speeduptest.model.results import BenchmarkResult, OverallFigure, Results
from speeduptest.model.versions import VersionsBenchmark
from speeduptest.model.wording import CORRECTION_LABELS, METHOD_LABELS, proportion_caveat
from speeduptest.notices import counted
from speeduptest.notices import plural as plural_noun
from speeduptest.render.formatting import (
    AGGREGATE_METHODS,
    VERSION_WIDTH,
    answer_sentence,
    benchmark_scale,
    by_call,
    change,
    elide,
    elide_apart,
    elide_message,
    gain,
    interval,
    mean_time,
    plural,
    speedup,
    standing_figures,
    threshold,
    time_scale,
)
from speeduptest.render.formatting import level as percent_level

if TYPE_CHECKING:
    from speeduptest.stats.planning import ExperimentPlan
    from speeduptest.stats.steady import MeasurementAdvice

VERDICT_MARK = {"significant": "faster", "not_significant": "not significant",
                "inconclusive": "inconclusive"}


def verdict_mark(verdict: str, reverse: str | None) -> str:
    """The Speedup-Test verdict of one estimator; a significant reverse verdict is "slower"."""
    return "slower" if reverse == "significant" else VERDICT_MARK[verdict]


def _proportion_line(label: str, figure: OverallFigure) -> str:
    proportion = figure.proportion
    if proportion is None or proportion.total == 0 or proportion.ci is None:
        return f"  {label}: no benchmark analysed"
    low, high = proportion.ci
    line = (f"  {label}: {proportion.accelerated}/{proportion.total} accelerated "
            f"({proportion.proportion:.1%}), {proportion.confidence:.0%} CI "
            f"[{low:.1%}, {high:.1%}]")
    caveat = proportion_caveat(proportion)
    return line if caveat is None else f"{line} ({caveat})"


#: Characters of a version's name in the heading of the means (the column stays narrow).
MEANS_NAME_WIDTH = 20


def _means(benchmark: BenchmarkResult) -> tuple[str, str] | None:
    """The mean of each side, in the benchmark's display unit (one for both, as in the
    reports), as pyperf shows them beside its change: ("267 ms", "279 ms")."""
    analysis = benchmark.analysis
    if analysis is None:
        return None
    scale = benchmark_scale(benchmark)
    return mean_time(analysis.initial.mean, scale), mean_time(analysis.optimized.mean, scale)


def _benchmark_lines(results: Results) -> list[str]:
    """One line per benchmark, by call: the call, the means of both sides, the change, its
    corrected interval."""
    names = {id(b): elide(b.name) for b in results.pair.benchmarks}
    width = max([len(name) for name in names.values()] + [9])
    changes = [change(b.analysis.speedup.mean) for b in results.pair.analysed]
    shift = max([len(text) for text in changes] + [14])
    means = {id(b): _means(b) for b in results.pair.analysed}
    heading = tuple(elide_apart(results.named, MEANS_NAME_WIDTH))
    # Aligned on the arrow: each side as wide as its widest text.
    before = max(len(pair[0]) for pair in [heading, *means.values()] if pair)
    after = max(len(pair[1]) for pair in [heading, *means.values()] if pair)
    # With different levels (config rows with their own confidence), each row names its own.
    per_row = len({b.change.confidence for b in results.pair.analysed if b.change}) > 1
    lines = [f"  {'call':<9}  {'benchmark':<{width}}  {heading[0]:>{before}} → "
             f"{heading[1]:<{after}}  {'change (mean)':>{shift}}  "
             f"{'interval':<19}  " + (f"{'level':>8}  " if per_row else "")
             + f"{'P(faster)':>9}  Speedup-Test mean / median"]
    for benchmark in by_call(results.pair.benchmarks):
        analysis, call = benchmark.analysis, benchmark.change
        if analysis is None or call is None:
            first = elide_message(str(benchmark.errors[0])) if benchmark.errors else "error"
            lines.append(f"  {'ERROR':<9}  {names[id(benchmark)]:<{width}}  {first}")
            continue
        reverse = benchmark.slowdown
        verdicts = (verdict_mark(analysis.mean.verdict, reverse and reverse.mean.verdict),
                    verdict_mark(analysis.median.verdict, reverse and reverse.median.verdict))
        probability = analysis.probability_faster
        # A call that differs from a significant verdict says why, in place.
        why = (f"  (significant, but within the ±{threshold(call.threshold)} threshold)"
               if call.call == "unchanged" and {"faster", "slower"} & set(verdicts) else "")
        initial, optimized = means[id(benchmark)]
        lines.append(
            f"  {call.call:<9}  {names[id(benchmark)]:<{width}}  "
            f"{initial:>{before}} → {optimized:<{after}}  "
            f"{change(analysis.speedup.mean):>{shift}}  "
            f"{interval(call.low, call.high, call.threshold):<19}  "
            + (f"{percent_level(call.confidence):>8}  " if per_row else "") +
            f"{'—' if probability is None else f'{probability:.0%}':>9}  "
            f"{verdicts[0]} / {verdicts[1]}{why}")
    return lines


def _interval_note(results: Results) -> str | None:
    calls = results.pair.overall.calls
    changes = [b.change for b in results.pair.analysed if b.change]
    if calls is None or not changes:
        return None
    levels = {percent_level(c.confidence) for c in changes}
    methods = sorted({c.method for c in changes})
    names = " or ".join(METHOD_LABELS[m] for m in methods)
    at = f"at {levels.pop()}" if len(levels) == 1 else "at each benchmark's level"
    corrected = ("" if calls.correction == "none" or calls.total == 1
                 else f", {CORRECTION_LABELS[calls.correction]}")
    pairs = ("pairs of top-level units" if any(b.design for b in results.pair.analysed)
             else "run pairs")
    return (f"Interval: of the speedup of the means, {names}, {at}{corrected}; "
            f"P(faster): share of {pairs} in which {elide(results.named[1])} is faster.")


def render_terminal(results: Results, formats: tuple[str, ...] = ()) -> str:
    """The summary printed when the analysis ends (before the reports are rendered);
    ``formats`` are the ones asked for, to point at the right file for errors."""
    if results.several:
        return _versions_terminal(results, formats)
    overall = results.pair.overall
    analysed, failed = len(results.pair.analysed), len(results.pair.failed)
    # A warning that puts the answer itself in doubt comes right under it.
    first = [notice for notice in results.notices if notice.code in PROMINENT]
    lines = [answer_sentence(results),
             *(f"Warning: {elide_message(notice.message)}" for notice in first), ""]
    if results.pair.benchmarks:
        lines += _benchmark_lines(results)
        note = _interval_note(results)
        if note:
            lines.append(note)
    lines += [
        "",
        f"Speedup-Test figures (the paper's one-sided protocol, per benchmark, uncorrected; "
        f"α = {results.settings.alpha:g}; {plural(len(results.pair.benchmarks), 'benchmark')}, "
        f"{analysed} analysed, {failed} with errors). Its counts differ from the calls: each "
        "benchmark is tested alone, with no threshold and no correction for the number of "
        "benchmarks.",
        "  Overall speedup (weighted, Σ W·ET(initial) / Σ W·ET(optimized)):",
    ]
    for name in ("mean", "median", "min"):
        figure = getattr(overall, name)
        caveat = " (not a reproducible statistic)" if name == "min" else ""
        said = gain(figure.gain, figure.speedup)  # (a large slowdown reads as a factor)
        lines.append(f"    {name:<6} {speedup(figure.speedup):>9}  "
                     f"{'gain ' if said[0] in '+−—' else ''}{said}"
                     f"{caveat}")
    if overall.mean.interval is not None:
        aggregate = overall.mean.interval
        lines.append(f"    mean, {AGGREGATE_METHODS[aggregate.method]} "
                     f"{percent_level(aggregate.confidence)} CI "
                     f"{interval(aggregate.low, aggregate.high)}")
    lines.append(_proportion_line("mean  ", overall.mean))
    lines.append(_proportion_line("median", overall.median))
    if failed:
        lines.append("")
        where = ("see errors.html" if "html" in formats else "see errors.pdf" if "pdf" in formats
                 else "see results.json" if "json" in formats else "see the list above")
        lines.append(f"{plural(failed, 'benchmark')} could not be analysed; {where}.")
    for notice in results.notices:
        if notice not in first:
            lines.append(f"Warning: {elide_message(notice.message)}")
    return "\n".join(lines) + "\n"


def _advice_lines(advice: MeasurementAdvice) -> list[str]:
    invocations = plural(advice.invocations, "invocation")
    lines = []
    if advice.warmups:
        lines.append(f"Warm-up: detected in {advice.warmups} of {invocations}; discard the "
                     f"first {advice.discard} iterations of each (the latest start found). "
                     "The plan below is of the values after it.")
    if advice.effective is not None and advice.lag1 is not None:
        lines.append(f"Dependence: lag-1 autocorrelation {advice.lag1:.2f}: the "
                     f"{advice.iterations:.0f} steady iterations of an invocation are worth "
                     f"about {advice.effective:.0f} independent ones.")
    return lines


#: Run warnings shown right under the answer.
PROMINENT = ("different-units",)


def render_plan(plan: ExperimentPlan, path: str, design: str,
                advice: MeasurementAdvice | None = None) -> str:
    """The variance components and the optimal repetitions, top level first, after what the
    measurement checks advise (warm-up to discard, effective iterations)."""
    lines = [f"Initial experiment {path}: {design}"]
    if advice is not None:
        lines += _advice_lines(advice)
    lines += ["",
             f"  {'level':<14}{'S²':>12}{'T²':>12}{'cost':>10}  repeat"]
    for level in reversed(plan.levels):
        if level.repetitions is None:
            repeat = "as the budget allows"
        elif level.capped:
            repeat = f"{level.repetitions:,} per unit above (capped)"
        elif level.adds_variance:
            repeat = f"{level.repetitions} per unit above"
        else:
            repeat = "1 (T² ≤ 0: adds no measurable variance)"
        lines.append(f"  {level.name:<14}{plan.variance_text(level.s2):>12}"
                     f"{plan.variance_text(level.t2):>12}{level.cost:>10g}  {repeat}")
    top = plan.levels[-1].name
    for level in plan.capped:
        lines += ["", f"The optimal number of {plural_noun(level.name)} per unit above, "
                  f"√((Cᵢ₊₁/Cᵢ)·T²ᵢ/T²ᵢ₊₁), is beyond {level.repetitions:,}: capped there. "
                  "Check the unit of each --cost."]
    lines += ["", f"One {top} with the planned repetitions costs {plan.top_unit_cost_text()}."]
    if plan.budget is not None:
        lines.append(f"A budget of {plan.budget:g} buys {counted(plan.affordable_top_units, top)} "
                     "per version; the Speedup-Test needs at least 3, and more than 30 for the "
                     "large-sample tests.")
    lines.append("T²ᵢ: the variance level i adds (Kalibera & Jones); nᵢ = "
                 "⌈√((Cᵢ₊₁/Cᵢ)·T²ᵢ/T²ᵢ₊₁)⌉.")
    return "\n".join(lines) + "\n"


#: How a call of one version against the baseline shows in the terminal matrix.
MATRIX_MARKS = {"faster": "▲", "slower": "▼", "unchanged": "=", "uncertain": "?"}


def _cell(results: Results, benchmark: VersionsBenchmark, index: int,
          version: int) -> str:
    """A benchmark's cell for one version: speedup over the baseline, call mark, letters."""
    name = results.versions[version]
    letters = benchmark.letters.get(name, "")
    if benchmark.summaries[version] is None:
        return "error"
    if version == results.baseline:
        return f"baseline {letters}".rstrip()
    comparison = results.comparison(name)
    result = comparison.by_benchmark[index] if comparison else None
    if result is None or result.analysis is None or result.change is None:
        return "error"
    return (f"{speedup(result.analysis.speedup.mean)} {MATRIX_MARKS[result.change.call]} "
            f"{letters}").rstrip()


#: The widest the matrix may be with each version's mean in its cells; wider, it is shown
#: without them (they are in every report).
MATRIX_WIDTH = 100


def _row_means(benchmark: VersionsBenchmark) -> list[str]:
    """Each version's mean of a benchmark, in one display unit for the row (the smallest
    mean shows as 1 or more); "" where the version was not analysed."""
    means = [s.mean for s in benchmark.summaries if s is not None]
    if not means:
        return [""] * len(benchmark.summaries)
    scale = time_scale(benchmark.unit, min(means))
    return ["" if s is None else mean_time(s.mean, scale) for s in benchmark.summaries]


def _matrix_lines(benchmarks: list[str], names: list[str], cells: list[list[str]],
                  times: list[list[str]] | None) -> list[str]:
    """The matrix laid out, each version's column as wide as its widest entry; with
    ``times``, each cell is the version's mean (right-aligned) then its call."""
    name_width = max([len(name) for name in benchmarks] + [9])
    if times is not None:
        time_widths = [max(len(row[v]) for row in times) for v in range(len(names))]
        cells = [[f"{t:>{w}} {c}" for t, c, w in zip(time_row, row, time_widths, strict=True)]
                 for time_row, row in zip(times, cells, strict=True)]
    widths = [max([len(name)] + [len(row[v]) for row in cells]) for v, name in enumerate(names)]
    lines = [("  " + "  ".join([f"{'benchmark':<{name_width}}"]
                               + [f"{name:<{w}}" for name, w in zip(names, widths,
                                                                    strict=True)])).rstrip()]
    for benchmark, row in zip(benchmarks, cells, strict=True):
        lines.append(("  " + "  ".join([f"{benchmark:<{name_width}}"]
                                       + [f"{c:<{w}}" for c, w in zip(row, widths,
                                                                      strict=True)])).rstrip())
    return lines


def _matrix(results: Results) -> tuple[list[str], bool]:
    """The speedups over the baseline, with each version's mean before them where the
    matrix stays within MATRIX_WIDTH columns (and whether it does). Each column is headed
    by its version's name elided to VERSION_WIDTH (and told apart): the ranking above gives
    the names whole."""
    names = elide_apart(results.versions, VERSION_WIDTH)
    cells = [[_cell(results, b, i, v) for v in range(len(names))]
             for i, b in enumerate(results.across)]
    benchmarks = [elide(b.name) for b in results.across]
    with_means = _matrix_lines(benchmarks, names, cells,
                               [_row_means(b) for b in results.across])
    if max(len(line) for line in with_means) <= MATRIX_WIDTH:
        return with_means, True
    return _matrix_lines(benchmarks, names, cells, None), False


def _ranking(results: Results) -> list[str]:
    width = max(len(elide(name)) for name in results.versions)
    lines = [f"  {'rank':>4}  {'version':<{width}}  {'speedup over the baseline':<36}  "
             "the best's speedup over it"]
    for standing in results.ranking:
        if standing.baseline:
            against = "baseline"
        elif standing.geometric_mean is None:
            against = "—"
        else:
            against = f"{speedup(standing.speedup)}, {standing_figures(standing, 'baseline')}"
        if standing.versus_best is None:
            versus = "best" if results.common else "—"
        else:
            versus = (f"{speedup(standing.versus_best.value)}, {standing_figures(standing, 'best')}"
                      + (": tied with the best" if standing.best else ""))
        lines.append(f"  {standing.rank:>4}  {elide(standing.name):<{width}}  {against:<36}  "
                     f"{versus}".rstrip())
    return lines


def _versions_terminal(results: Results, formats: tuple[str, ...]) -> str:
    """The summary printed when the analysis ends: the answer, the ranking, the matrix of
    speedups over the baseline with the calls and letters, then each version's counts."""
    lines = [answer_sentence(results), "", "Ranking by the geometric mean of the speedups "
             "(delta-method intervals; tied with the best: the best's speedup over it has an "
             "interval at 1 − α/(k − 1) that does not lie above 1 + threshold):"]
    lines += _ranking(results)
    matrix, with_means = _matrix(results)
    speedups = f"speedup of the means over {elide(results.baseline_name)} (the baseline)"
    lines += ["", (f"Each version's mean, then its {speedups}" if with_means
                   else speedups[0].upper() + speedups[1:]) + ", call "
              "(▲ faster, ▼ slower, = unchanged, ? uncertain) and letters (versions sharing a "
              "letter are not told apart on that benchmark; a = fastest):"]
    lines += matrix
    settings = results.settings
    total = results.calls_total
    lines += ["", f"Calls of {plural(total, 'comparison')} with the baseline: threshold "
              f"±{threshold(settings.threshold)}, "
              + ("uncorrected" if settings.correction == "none"
                 else CORRECTION_LABELS[settings.correction]) + " over all of them."]
    for comparison in results.comparisons:
        calls = comparison.overall.calls
        lines.append(f"  {elide(comparison.version)}: {calls.faster} faster, {calls.slower} "
                     f"slower, {calls.unchanged} unchanged, {calls.uncertain} uncertain")
    failed = results.failed
    if failed:
        where = ("see errors.html" if "html" in formats else "see errors.pdf" if "pdf" in formats
                 else "see results.json" if "json" in formats else "see below")
        lines += ["", f"{plural(len(failed), 'benchmark')} with errors; {where}."]
        if where == "see below":
            lines += [f"  {elide_message(str(error))}" for error in results.errors[:20]]
    for notice in results.notices:
        lines.append(f"Warning: {elide_message(notice.message)}")
    return "\n".join(lines) + "\n"

"""Several versions in words: the answer sentence and the terminal summary (no statistics
here: everything is read from :class:`speeduptest.model.versions.VersionsResults`)."""

from __future__ import annotations

from speeduptest.model.versions import VersionsBenchmark, VersionsResults, VersionStanding
from speeduptest.model.wording import CORRECTION_LABELS
from speeduptest.render.formatting import (
    change,
    elide,
    elide_message,
    interval,
    level,
    plural,
    speedup,
    threshold,
)

#: How a call of one version against the baseline shows in the terminal matrix.
CALL_MARKS = {"faster": "▲", "slower": "▼", "unchanged": "=", "uncertain": "?"}


def _names(names: list[str]) -> str:
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _figures(standing: VersionStanding, what: str) -> str:
    aggregate = standing.geometric_mean if what == "baseline" else standing.versus_best
    return (f"{level(aggregate.confidence)} CI "
            f"{interval(aggregate.low, aggregate.high)}")


def answer_sentence(results: VersionsResults) -> str:
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
        f"({_figures(best, 'baseline')})")
    if tied:
        first = tied[0]
        if not best.baseline:
            text += f", {versus_baseline}"
        text += (f", but {_names([elide(s.name) for s in tied])} "
                 f"{'is' if len(tied) == 1 else 'are'} indistinguishable from it (it is "
                 f"{change(first.versus_best.value)} than {elide(first.name)}, "
                 f"{_figures(first, 'best')})")
    else:
        text += (f": {change(runner.versus_best.value)} than the next best, "
                 f"{'the baseline ' if runner.baseline else ''}{elide(runner.name)} "
                 f"({_figures(runner, 'best')})")
        if not best.baseline and not runner.baseline:
            text += f", and {versus_baseline}"
    slowest = ranking[-1]
    if k >= 3 and not slowest.best and slowest is not runner:
        text += (f"; {elide(slowest.name)} is the slowest, {change(1 / slowest.versus_best.value)} "
                 "than it")
    return (f"{text} (geometric means of the speedups over "
            f"{plural(len(results.common), 'benchmark')}, threshold "
            f"{threshold(results.settings.threshold)}).")


def _cell(results: VersionsResults, benchmark: VersionsBenchmark, index: int,
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
    return (f"{speedup(result.analysis.speedup.mean)} {CALL_MARKS[result.change.call]} "
            f"{letters}").rstrip()


def _matrix(results: VersionsResults) -> list[str]:
    names = [elide(name) for name in results.versions]
    cells = [[_cell(results, b, i, v) for v in range(len(names))]
             for i, b in enumerate(results.benchmarks)]
    benchmarks = [elide(b.name) for b in results.benchmarks]
    name_width = max([len(name) for name in benchmarks] + [9])
    widths = [max([len(name)] + [len(row[v]) for row in cells]) for v, name in enumerate(names)]
    lines = [("  " + "  ".join([f"{'benchmark':<{name_width}}"]
                               + [f"{name:<{w}}" for name, w in zip(names, widths,
                                                                    strict=True)])).rstrip()]
    for benchmark, row in zip(benchmarks, cells, strict=True):
        lines.append(("  " + "  ".join([f"{benchmark:<{name_width}}"]
                                       + [f"{c:<{w}}" for c, w in zip(row, widths,
                                                                      strict=True)])).rstrip())
    return lines


def _ranking(results: VersionsResults) -> list[str]:
    width = max(len(elide(name)) for name in results.versions)
    lines = [f"  {'rank':>4}  {'version':<{width}}  {'speedup over the baseline':<36}  "
             "the best's speedup over it"]
    for standing in results.ranking:
        if standing.baseline:
            against = "baseline"
        elif standing.geometric_mean is None:
            against = "—"
        else:
            against = f"{speedup(standing.speedup)}, {_figures(standing, 'baseline')}"
        if standing.versus_best is None:
            versus = "best" if results.common else "—"
        else:
            versus = (f"{speedup(standing.versus_best.value)}, {_figures(standing, 'best')}"
                      + (": tied with the best" if standing.best else ""))
        lines.append(f"  {standing.rank:>4}  {elide(standing.name):<{width}}  {against:<36}  "
                     f"{versus}".rstrip())
    return lines


def render_versions_terminal(results: VersionsResults, formats: tuple[str, ...] = ()) -> str:
    """The summary printed when the analysis ends: the answer, the ranking, the matrix of
    speedups over the baseline with the calls and letters, then each version's counts."""
    lines = [answer_sentence(results), "", "Ranking by the geometric mean of the speedups "
             "(delta-method intervals; tied with the best: the best's speedup over it has an "
             "interval at 1 − α/(k − 1) that does not lie above 1 + threshold):"]
    lines += _ranking(results)
    lines += ["", f"Speedup of the means over {elide(results.baseline_name)} (the baseline), call "
              "(▲ faster, ▼ slower, = unchanged, ? uncertain) and letters (versions sharing a "
              "letter are not told apart on that benchmark; a = fastest):"]
    lines += _matrix(results)
    settings = results.settings
    total = sum(c.results.overall.calls.total for c in results.comparisons)
    lines += ["", f"Calls of {plural(total, 'comparison')} with the baseline: threshold "
              f"±{threshold(settings.threshold)}, "
              + ("uncorrected" if settings.correction == "none"
                 else CORRECTION_LABELS[settings.correction]) + " over all of them."]
    for comparison in results.comparisons:
        calls = comparison.results.overall.calls
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

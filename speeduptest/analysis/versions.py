"""What three or more versions add to their comparisons with the baseline
(:func:`speeduptest.analysis.run.analyse` runs those for any number of versions).

1. **Every version against the baseline**: the analysis ran once over the (k − 1)·b
   comparisons (:func:`speeduptest.analysis.benchmarks.analyse_benchmarks`), so that the
   calls' correction (``--correction``) covers every comparison of the run, and each
   comparison's random stream is its own. Here each version gets its overall figures, and
   the deciding p-values of each benchmark's k − 1 comparisons are Holm-adjusted
   (:class:`HolmAdjusted`).
2. **Per benchmark, all versions together** on the top-level unit means, as the protocol:
   :func:`speeduptest.stats.omnibus.choose_omnibus` (ANOVA, Welch's ANOVA or Kruskal–Wallis, then
   Tukey HSD, Games–Howell or Dunn) and the compact letters.
3. **Across benchmarks, per version**: the two-version overall figures against the baseline
   (overall speedup, geometric mean with its interval, accelerated proportion with its
   interval; :func:`speeduptest.stats.overall.overall_figures`), and a ranking by the geometric mean
   over the benchmarks analysed for every version, with the versions tied with the best
   (:class:`speeduptest.model.versions.VersionStanding`).

References: Georges, Buytaert, Eeckhout, OOPSLA 2007 (ANOVA and Tukey HSD for more than two
alternatives); Holm, Scand. J. Statist. 6, 1979; Touati, Worms, Briais, CCPE 2013 (§5).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from speeduptest.analysis.benchmarks import BATCH, MIN_PARALLEL_BATCHES, Analysed, overall_of
from speeduptest.analysis.validity import run_notice
from speeduptest.floats import special_values_expected
from speeduptest.inputs.experiment import Benchmark, Experiment
from speeduptest.model.results import (
    AggregateInterval,
    BenchmarkResult,
    CallCounts,
    Comparison,
    InputError,
    Notice,
    Results,
    Settings,
)
from speeduptest.model.versions import HolmAdjusted, VersionsBenchmark, VersionStanding
from speeduptest.runtime.parallel import default_workers, worker_pool
from speeduptest.stats.change import Change, classify_interval
from speeduptest.stats.fieller import MeanRatio
from speeduptest.stats.omnibus import OmnibusChoice, choose_omnibus, holm
from speeduptest.stats.overall import (
    DeltaAggregate,
    geometric_mean_interval,
)

RANKING_DEFINITION = ("weighted geometric mean of the speedups of the means over the "
                      "baseline, each log corrected for its bias (uᵢ − uₒ)/2, over the "
                      "benchmarks analysed for every version")
VERSUS_BEST_DEFINITION = ("weighted geometric mean of the best version's speedups of the "
                          "means over this version, each log corrected for its bias")


_FAMILY = re.compile(r" over (\d+) benchmarks")


def _family_wording(change: Change) -> Change:
    """The calls' correction runs over comparisons (benchmark × version), not benchmarks:
    their reason says so."""
    return dataclasses.replace(change, reason=_FAMILY.sub(r" over \1 comparisons",
                                                          change.reason))


def _comparison(benchmarks: Sequence[BenchmarkResult | None],
                holm: Sequence[HolmAdjusted | None], settings: Settings, baseline: str,
                version: str) -> Comparison:
    """One version against the baseline, from its benchmarks analysed (and called) in the
    run of every comparison (``None`` where it has no such benchmark): the overall figures
    of its benchmarks alone, as :func:`speeduptest.analysis.benchmarks.analyse_benchmarks`
    makes them."""
    present = [b for b in benchmarks if b is not None]
    analysed = [b for b in present if b.status == "ok"]
    aggregate = (DeltaAggregate(MeanRatio.concatenate([b.effect.ratio for b in analysed]))
                 if analysed else None)
    calls = CallCounts.of([b.change for b in analysed if b.change], settings.threshold,
                          settings.correction)
    overall = overall_of(analysed, max((b.weight for b in analysed), default=1.0), aggregate,
                         calls, settings)
    return Comparison(baseline, version, tuple(present), overall, tuple(benchmarks),
                      tuple(holm))


def _adjusted_verdict(original: str, adjusted: float | None, alpha: float) -> str:
    """A verdict that its test decided, decided again by the adjusted p-value."""
    if original == "inconclusive" or adjusted is None:
        return original
    return "significant" if adjusted <= alpha else "not_significant"


def _holm_adjusted(results: Sequence[BenchmarkResult | None]) -> list[HolmAdjusted | None]:
    """Per comparison of one benchmark, its verdicts with Holm over the k − 1 comparisons."""
    analysed = [r if r is not None and r.status == "ok" else None for r in results]
    mean_p = [None if r is None else r.analysis.tests.t_test_at(r.analysis.alpha).p_value
              for r in analysed]
    median_p = [None if r is None else r.analysis.tests.wilcoxon.p_value for r in analysed]
    mean_adjusted, median_adjusted = holm(mean_p), holm(median_p)
    count = sum(p is not None for p in mean_p)
    found: list[HolmAdjusted | None] = []
    for position, result in enumerate(analysed):
        if result is None:
            found.append(None)
            continue
        alpha = result.analysis.alpha
        found.append(HolmAdjusted(
            comparisons=count,
            mean_p=mean_p[position], mean_adjusted=mean_adjusted[position],
            mean_verdict=_adjusted_verdict(result.analysis.mean.verdict,
                                           mean_adjusted[position], alpha),
            median_p=median_p[position], median_adjusted=median_adjusted[position],
            median_verdict=_adjusted_verdict(result.analysis.median.verdict,
                                             median_adjusted[position], alpha)))
    return found


@dataclass(frozen=True)
class _Gathered:
    """One benchmark's samples as its comparisons with the baseline read them (per version;
    None where not analysed), and what the omnibus test needs of them."""

    summaries: tuple
    values: tuple
    validity: tuple
    shapiro: tuple
    unit: str | None
    errors: tuple


def _named_error(error: InputError, baseline: str, version: str) -> InputError:
    """An error of a comparison as it reads for several versions: the samples are the
    baseline's and a version's, not "initial" and "optimized"."""
    for role, name in (("initial", f"{baseline} (the baseline)"), ("optimized", version)):
        prefix = f"{role} sample file "
        if error.message.startswith(prefix):
            return dataclasses.replace(
                error, message=f"sample file of {name} " + error.message[len(prefix):])
    return error


def _gather(versions: Sequence[str], baseline: int,
            compared: dict[int, BenchmarkResult]) -> _Gathered:
    ok = {v: r for v, r in compared.items() if r.status == "ok"}
    summaries: list = [None] * len(versions)
    values: list = [None] * len(versions)
    validity: list = [None] * len(versions)
    shapiro: list = [None] * len(versions)
    unit = None
    if ok:
        first = next(iter(ok.values()))
        summaries[baseline], values[baseline] = (first.analysis.initial,
                                                 first.analysis.initial_values)
        shapiro[baseline] = first.analysis.tests.shapiro_initial
        validity[baseline] = first.validity[0] if first.validity else None
        unit = first.unit
    for version, result in ok.items():
        summaries[version], values[version] = (result.analysis.optimized,
                                               result.analysis.optimized_values)
        shapiro[version] = result.analysis.tests.shapiro_optimized
        validity[version] = result.validity[1] if result.validity else None
    errors = tuple(dict.fromkeys(_named_error(e, versions[baseline], versions[v])
                                 for v, r in compared.items() for e in r.errors))
    return _Gathered(tuple(summaries), tuple(values), tuple(validity), tuple(shapiro), unit,
                     errors)


def _omnibus(task: tuple[tuple[str, ...], tuple, tuple, float, int]
             ) -> OmnibusChoice | str | None:
    """The omnibus test of the analysed versions of one benchmark (runs in a worker), or why
    it could not be computed. ``task``: the versions' names, values and Shapiro–Wilk tests
    (None where not analysed), α and the large-sample size."""
    names, values, shapiro, alpha, large_sample = task
    analysed = [v for v in range(len(names)) if values[v] is not None]
    if len(analysed) < 2:
        return None
    try:
        # The protocol's Shapiro–Wilk tests ran on the same values: reused.
        return choose_omnibus([values[v] for v in analysed], alpha, large_sample,
                              names=[names[v] for v in analysed],
                              shapiro=[shapiro[v] for v in analysed])
    except ValueError as error:  # not expected: the samples were checked when read
        return str(error)


@special_values_expected
def _omnibus_batch(tasks: list) -> list:
    return [_omnibus(task) for task in tasks]


def _benchmark(row: Benchmark, versions: Sequence[str], gathered: _Gathered,
               choice: OmnibusChoice | str | None) -> VersionsBenchmark:
    """One benchmark over all versions, with its omnibus test over the analysed versions."""
    notices: list[Notice] = []
    if isinstance(choice, str):
        notices.append(Notice("versions-omnibus-not-computed",
                              f"The comparison of all versions was not computed: {choice}.",
                              "Check the samples of this benchmark."))
        choice = None
    elif choice is not None:
        notices += choice.notices
    missing = [versions[v] for v in range(len(versions)) if gathered.values[v] is None]
    if missing and len(versions) - len(missing) >= 2:
        notices.append(Notice(
            "versions-missing",
            f"Not every version could be analysed ({', '.join(missing)} missing): the "
            "comparison of all versions and the letters cover the others only.",
            "See the errors of this benchmark, or measure the missing versions."))
    return VersionsBenchmark(
        name=row.name, weight=row.weight, alpha=row.alpha, config_line=row.line,
        versions=tuple(versions), summaries=gathered.summaries, choice=choice,
        validity=gathered.validity,
        unit=gathered.unit, errors=gathered.errors, notices=tuple(notices),
        values=gathered.values)


def _omnibus_all(tasks: list, workers: int | None) -> list:
    """Every benchmark's omnibus test, in batches on every core for large runs (each
    benchmark's result depends on its own samples only)."""
    batches = [tasks[i:i + BATCH] for i in range(0, len(tasks), BATCH)]
    workers = (workers or default_workers()) if len(batches) >= MIN_PARALLEL_BATCHES else 1
    with worker_pool(workers) as parallel_map:
        return [choice for batch in parallel_map(_omnibus_batch, batches) for choice in batch]


def _standings(versions: Sequence[str], baseline: int, comparisons: dict[int, list],
               common: list[int], weights: np.ndarray, settings: Settings
               ) -> tuple[VersionStanding, ...]:
    """Rank the versions by their geometric mean speedup over the baseline on the common
    benchmarks, and find those tied with the best (see :class:`VersionStanding`)."""
    k = len(versions)
    if not common:
        return tuple(VersionStanding(name, v == baseline, v + 1, None, None, None, False)
                     for v, name in enumerate(versions))
    # Per version and common benchmark: its mean time relative to the baseline's (1/θ), the
    # relative variance of its mean and the degrees of freedom (the baseline's from any of
    # its comparisons).
    log_time = np.zeros((k, len(common)))
    variance = np.zeros((k, len(common)))
    df = np.zeros((k, len(common)))
    for v, results in comparisons.items():
        for column, j in enumerate(common):
            ratio = results[j].effect.ratio
            log_time[v, column] = -math.log(float(ratio.speedup[0]))
            variance[v, column] = float(ratio.optimized_relative_variance[0])
            df[v, column] = float(ratio.optimized_df[0])
            variance[baseline, column] = float(ratio.initial_relative_variance[0])
            df[baseline, column] = float(ratio.initial_df[0])
    geometric: dict[int, AggregateInterval] = {}
    for v in comparisons:
        ratio = MeanRatio(np.exp(-log_time[v]), variance[baseline], variance[v], df[baseline],
                          df[v])
        geometric[v] = geometric_mean_interval(weights, -log_time[v], ratio,
                                               settings.confidence, RANKING_DEFINITION)
    speed = {v: (geometric[v].value if v in geometric else 1.0) for v in range(k)}
    order = sorted(range(k), key=lambda v: (-speed[v], v))
    best = order[0]
    confidence = 1 - settings.alpha / (k - 1)
    standings = []
    for v in range(k):
        versus, call = None, None
        if v != best:
            # The best's speedup over v on each benchmark: time(v) / time(best).
            logs = log_time[v] - log_time[best]
            ratio = MeanRatio(np.exp(logs), variance[v], variance[best], df[v], df[best])
            versus = geometric_mean_interval(weights, logs, ratio, confidence,
                                             VERSUS_BEST_DEFINITION)
            call = classify_interval(versus.low, versus.high, settings.threshold)
        standings.append(VersionStanding(
            name=versions[v], baseline=v == baseline, rank=order.index(v) + 1,
            geometric_mean=geometric.get(v), versus_best=versus, versus_best_call=call,
            best=v == best or call != "faster"))
    return tuple(standings)


@special_values_expected
def with_all_versions(experiment: Experiment, analysed: Analysed, where: Sequence[tuple[int, int]],
                      base: Results, workers: int | None = None) -> Results:
    """The results of three or more versions: ``base`` (what every number of versions has:
    the settings, the source, the run's notices and files) with, from ``analysed`` (one run
    over every comparison with the baseline, the i-th being version v on benchmark j for
    ``where[i] = (v, j)``), each version's comparison with its overall figures and Holm
    adjustments, each benchmark over all versions with its omnibus test, and the versions'
    ranking (see the module's docstring)."""
    rows, versions, baseline = experiment.benchmarks, experiment.versions, experiment.baseline
    others = experiment.others
    settings = base.settings
    by_version: dict[int, list[BenchmarkResult | None]] = {v: [None] * len(rows)
                                                           for v in others}
    for (v, j), result in zip(where, analysed.benchmarks, strict=True):
        if result.change is not None:
            result = dataclasses.replace(result, change=_family_wording(result.change))
        by_version[v][j] = result
    holm_by_version: dict[int, list[HolmAdjusted | None]] = {v: [None] * len(rows)
                                                             for v in others}
    gathered = []
    for j in range(len(rows)):
        compared = {v: by_version[v][j] for v in others if by_version[v][j] is not None}
        for v, adjusted in zip(others, _holm_adjusted([by_version[v][j] for v in others]),
                               strict=True):
            holm_by_version[v][j] = adjusted
        gathered.append(_gather(versions, baseline, compared))
    choices = _omnibus_all(
        [(tuple(versions), found.values, found.shapiro,
          row.alpha if row.alpha is not None else settings.alpha, settings.large_sample)
         for row, found in zip(rows, gathered, strict=True)], workers)
    benchmarks = [_benchmark(row, versions, found, choice)
                  for row, found, choice in zip(rows, gathered, choices, strict=True)]
    comparisons = [_comparison(by_version[v], holm_by_version[v], settings,
                               versions[baseline], versions[v]) for v in others]
    common = [j for j in range(len(rows))
              if all(by_version[v][j] is not None and by_version[v][j].status == "ok"
                     for v in others)]
    weights = np.array([rows[j].weight for j in common], dtype=float)
    if common:
        weights = weights / weights.max()
    standings = _standings(versions, baseline, {v: by_version[v] for v in others}, common,
                           weights, settings)
    notices = list(base.notices)
    measured = run_notice([side for b in benchmarks for side in b.validity if side is not None])
    if measured is not None:
        notices.append(measured)
    analysed_any = sum(b.status != "error" for b in benchmarks)
    if common and len(common) < analysed_any:
        notices.append(Notice(
            "versions-ranking-subset",
            f"The ranking uses the {len(common)} benchmarks analysed for every version; "
            f"{analysed_any - len(common)} other(s) lack some version.",
            "See the errors; each version's own figures against the baseline use every "
            "benchmark analysed for it."))
    return dataclasses.replace(
        base, comparisons=tuple(comparisons), across=tuple(benchmarks), standings=standings,
        common=tuple(common), notices=tuple(notices),
        errors=tuple(dict.fromkeys(e for b in benchmarks for e in b.errors)))

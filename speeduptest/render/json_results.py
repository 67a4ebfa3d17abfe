"""results.json: stable field names, strict JSON (no NaN), byte-identical reruns."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from speeduptest.model.results import (
    DEFAULT_NAMES,
    AggregateInterval,
    BenchmarkResult,
    CallCounts,
    Change,
    Comparison,
    Decision,
    EffectSize,
    FTestResult,
    KSResult,
    Notice,
    Overall,
    OverallFigure,
    RatioInterval,
    Results,
    SampleSummary,
    Settings,
    ShapiroResult,
    SideValidity,
    TTestResult,
    VarianceComponents,
    WilcoxonResult,
)
from speeduptest.model.versions import HolmAdjusted, VersionsBenchmark, VersionStanding
from speeduptest.model.wording import (
    POPULATION_CAVEAT,
    POPULATION_INTERVAL_COVERS,
    SUITE_INTERVAL_COVERS,
)
from speeduptest.runtime.nocycles import cycle_collection_paused

if TYPE_CHECKING:  # (imported where several versions are written: stats.omnibus is long)
    from speeduptest.model.omnibus import (
        AnovaResult,
        BartlettResult,
        KruskalResult,
        LeveneResult,
        OmnibusChoice,
        PostHocResult,
    )


def number(value: float | None) -> float | None:
    """A number for results.json: a float, or null for what is not a finite number. Python
    floats are taken as they are (the most of them, 39 per benchmark: 40 ms at 10,000
    benchmarks): every document here is encoded by orjson, which writes NaN and infinities
    as null, as it writes None."""
    if type(value) is float:
        return value
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def summary_dict(summary: SampleSummary, validity: SideValidity | None = None
                 ) -> dict[str, Any]:
    """One side's summary, with its measurement checks when they ran."""
    entry = {"n": summary.n, "mean": summary.mean, "median": summary.median,
             "min": summary.min, "max": summary.max, "std": number(summary.std)}
    if validity is not None:
        entry.update(validity_dict(validity))
    return entry


def validity_dict(validity: SideValidity) -> dict[str, Any]:
    """The checks of one side: steady state, dependence, order, and the values analysed."""
    dependence, order = validity.dependence, validity.order
    return {
        "steady_state": {"class": validity.classification, "consistent": validity.consistent,
                         "classes": list(validity.classes), "starts": list(validity.starts),
                         "drops": list(validity.drops), "dropped": validity.dropped,
                         "warmup": validity.warmup,
                         "method": validity.method, "penalty": validity.penalty},
        "dependence": None if dependence is None else {
            "lag1": number(dependence.lag1), "effective_n": number(dependence.effective_n),
            "dependent": dependence.dependent, "batch": dependence.batch,
            "rule": validity.dependence_rule},
        "order": None if order is None else {
            "test": order.test, "statistic": number(order.statistic),
            "p_value": number(order.p_value)},
        "values_analysed": validity.values,
    }


def _shapiro(result: ShapiroResult) -> dict[str, Any]:
    return {"statistic": number(result.statistic), "p_value": number(result.p_value),
            "note": result.note}


def _f_test(result: FTestResult) -> dict[str, Any]:
    return {"statistic": number(result.statistic), "p_value": number(result.p_value),
            "df": [result.df_numerator, result.df_denominator],
            "alternative": result.alternative, "note": result.note}


def _t_test(result: TTestResult) -> dict[str, Any]:
    return {"variant": result.variant, "statistic": number(result.statistic),
            "df": number(result.df), "p_value": number(result.p_value),
            "alternative": result.alternative, "note": result.note}


def _ks(result: KSResult) -> dict[str, Any]:
    return {"statistic": number(result.statistic), "p_value": number(result.p_value),
            "method": result.method, "alternative": result.alternative, "note": result.note}


def _wilcoxon(result: WilcoxonResult) -> dict[str, Any]:
    return {"statistic": number(result.statistic), "p_value": number(result.p_value),
            "method": result.method, "alternative": result.alternative, "note": result.note}


def _decision(decision: Decision, max_confidence: float | None) -> dict[str, Any]:
    return {"verdict": decision.verdict, "max_confidence": number(max_confidence),
            "reason": decision.reason, "steps": list(decision.steps)}


def notice_dict(notice: Notice) -> dict[str, str]:
    return {"code": notice.code, "message": notice.message, "advice": notice.advice}


def _interval(interval: RatioInterval) -> dict[str, Any]:
    entry = {"low": number(interval.low), "high": number(interval.high),
             "bounded": interval.bounded}
    if interval.df is not None:
        entry["df"] = number(interval.df)
    if interval.note:
        entry["note"] = interval.note
    return entry


def _components(components: VarianceComponents) -> dict[str, Any]:
    return {"levels": list(components.level_names), "grand_mean": components.grand_mean,
            "S2": [number(v) for v in components.s2], "T2": [number(v) for v in components.t2],
            "n": list(components.n), "variance_of_mean": number(components.variance_of_mean)}


def _effect(effect: EffectSize) -> dict[str, Any]:
    entry = {
        "speedup": effect.speedup,
        "confidence": effect.confidence,
        "intervals": {"fieller": _interval(effect.fieller), "delta": _interval(effect.delta),
                      "bootstrap": _interval(effect.bootstrap)},
        "statement": effect.statement,
        "statement_method": effect.headline.method,
        "variance_components": {"initial": _components(effect.initial),
                                "optimized": _components(effect.optimized)},
    }
    if effect.resolution != (None, None):  # (only where a timer's resolution bounds a mean)
        entry["resolution"] = {side: None if found is None else {
            "value": found.value, "source": found.source,
            "variance_floor": number(found.variance_floor)}
            for side, found in zip(("initial", "optimized"), effect.resolution, strict=True)}
    return entry


def aggregate_dict(aggregate: AggregateInterval | None) -> dict[str, Any] | None:
    if aggregate is None:
        return None
    entry = {"speedup": aggregate.value, "ci": [aggregate.low, aggregate.high],
             "confidence": aggregate.confidence, "method": aggregate.method,
             "definition": aggregate.definition}
    # (Every aggregate written here is a geometric mean, with its two intervals.)
    population = aggregate.population
    entry["ci_covers"] = SUITE_INTERVAL_COVERS
    entry["population"] = None if population is None else {
        "ci": [population.low, population.high], "confidence": population.confidence,
        "method": population.method, "df": population.df, "benchmarks": population.benchmarks,
        "covers": POPULATION_INTERVAL_COVERS, "caveat": POPULATION_CAVEAT}
    return entry


def _benchmark(benchmark: BenchmarkResult) -> dict[str, Any]:
    analysis = benchmark.analysis
    entry: dict[str, Any] = {
        "name": benchmark.name,
        "weight": number(benchmark.weight),
        "alpha": number(benchmark.alpha),
        "status": benchmark.status,
        "files": {"initial": benchmark.initial_path, "optimized": benchmark.optimized_path,
                  "config_line": benchmark.config_line, "notes": list(benchmark.input_notes)},
        "unit": benchmark.unit,
        "initial": None, "optimized": None, "speedup": None, "tests": None,
        "mean": None, "median": None, "effect_size": None,
        "warnings": [], "warning_details": [],
        "errors": [str(error) for error in benchmark.errors],
    }
    if analysis is None:
        return entry
    tests = analysis.tests
    notices = benchmark.notices
    entry.update({
        "small": analysis.small,
        "initial": summary_dict(analysis.initial,
                                benchmark.validity[0] if benchmark.validity else None),
        "optimized": summary_dict(analysis.optimized,
                                  benchmark.validity[1] if benchmark.validity else None),
        "speedup": {"mean": analysis.speedup.mean, "median": analysis.speedup.median,
                    "min": analysis.speedup.min},
        "tests": {
            "shapiro_initial": _shapiro(tests.shapiro_initial),
            "shapiro_optimized": _shapiro(tests.shapiro_optimized),
            "f_test": _f_test(tests.f_test),
            "t_test": _t_test(tests.t_test_at(analysis.alpha)),
            "ks_test": _ks(tests.ks),
            "wilcoxon": _wilcoxon(tests.wilcoxon),
        },
        "mean": _decision(analysis.mean, analysis.mean_max_confidence),
        "median": _decision(analysis.median, analysis.median_max_confidence),
        "warnings": [notice.message for notice in notices],
        "warning_details": [notice_dict(notice) for notice in notices],
        "effect_size": _effect(benchmark.effect) if benchmark.effect else None,
        "slowdown": None if benchmark.slowdown is None else {
            "significant": benchmark.slowdown.significant,
            "mean": {"verdict": benchmark.slowdown.mean.verdict,
                     "reason": benchmark.slowdown.mean.reason},
            "median": {"verdict": benchmark.slowdown.median.verdict,
                       "reason": benchmark.slowdown.median.reason}},
        "probability_faster": number(analysis.probability_faster),
        "change": _change(benchmark.change) if benchmark.change else None,
        "design": benchmark.design,
    })
    return entry


def _change(change: Change) -> dict[str, Any]:
    return {
        "call": change.call, "threshold": change.threshold, "correction": change.correction,
        "interval": {"low": number(change.low), "high": number(change.high),
                     "confidence": change.confidence, "method": change.method,
                     "p_value_no_change": number(change.p_value_no_change),
                     "selected": change.selected,
                     "benchmarks": change.benchmarks},
        "reason": change.reason,
        "p_value": number(change.p_value),
        "adjusted": {"holm": number(change.holm), "bh": number(change.bh)},
    }


def _calls(calls: CallCounts | None) -> dict[str, Any] | None:
    if calls is None:
        return None
    return {"faster": calls.faster, "slower": calls.slower, "unchanged": calls.unchanged,
            "uncertain": calls.uncertain}


def _figure(figure: OverallFigure) -> dict[str, Any]:
    entry: dict[str, Any] = {"speedup": number(figure.speedup), "gain": number(figure.gain)}
    if figure.interval is not None:
        entry["speedup_ci"] = [figure.interval.low, figure.interval.high]
        entry["speedup_ci_confidence"] = figure.interval.confidence
    proportion = figure.proportion
    if proportion is not None:
        entry.update({
            "accelerated": proportion.accelerated,
            "total": proportion.total,
            "proportion": number(proportion.proportion),
            "confidence": proportion.confidence,
            "ci": list(proportion.ci) if proportion.ci is not None else None,
            "ci_valid": proportion.ci_valid,
            "required_benchmarks": proportion.required_benchmarks,
        })
    return entry


def results_dict(results: Results) -> dict[str, Any]:
    """The results model as the plain dictionary written to results.json."""
    if results.several:
        return versions_dict(results)
    document = _document(results)
    document["benchmarks"] = [_benchmark(benchmark) for benchmark in results.pair.benchmarks]
    return document


def settings_dict(settings: Settings) -> dict[str, Any]:
    """The run's settings as results.json states them."""
    return {
        "alpha": settings.alpha,
        "proportion_confidence": settings.effective_proportion_confidence,
        "precision": settings.precision,
        "large_sample": settings.large_sample,
        "bootstrap": settings.bootstrap,
        "aggregate_interval": settings.aggregate_interval,
        "seed": settings.seed,
        "threshold": settings.threshold,
        "correction": settings.correction,
        "fail_on_slowdown": settings.fail_on_slowdown,
        "warmup": settings.warmup,
        "dependence": settings.dependence,
        "resolution": None if settings.resolution is None else {
            "value": settings.resolution, "unit": settings.resolution_unit},
    }


def _document(results: Results) -> dict[str, Any]:
    """results.json of two versions without its benchmarks (``"benchmarks": None`` in their
    place)."""
    source, settings, notices = results.source, results.settings, results.all_notices
    return {
        "tool": {"name": "speeduptest", "version": results.tool_version},
        "input": ({"compared": list(source.compared), "names": list(results.named)}
                  if source.compared else {"config": source.label}),
        "settings": settings_dict(settings),
        "benchmarks": None,
        "overall": _overall(settings, results.pair.overall),
        "warnings": [notice.message for notice in notices],
        "warning_details": [notice_dict(notice) for notice in notices],
        "errors": [str(error) for error in results.errors],
    }


def _overall(settings: Settings, overall: Overall) -> dict[str, Any]:
    """A comparison's overall figures, with the threshold and correction of its calls."""
    return {
        "mean": _figure(overall.mean),
        "median": _figure(overall.median),
        "min": _figure(overall.min),
        "geometric_mean": aggregate_dict(overall.geometric_mean),
        "calls": _calls(overall.calls),
        "call": overall.call,
        "threshold": settings.threshold,
        "correction": settings.correction,
        "proportion_caveat": overall.caveat,
    }


_OPTIONS = orjson.OPT_SERIALIZE_NUMPY


#: Benchmarks' entries encoded at once.
_ENCODED_TOGETHER = 64


def render_json_blocks(results: Results) -> Iterator[bytes | memoryview]:
    """results.json, compact (``python -m json.tool results.json`` pretty-prints it), as
    UTF-8, in blocks of a few dozen benchmarks' entries (about 0.4 MB with 31 values a
    side): the report folder writes them as they come, so that
    neither the dictionaries of 100,000 benchmarks (about 15 million objects) nor their
    encodings (490 MB) exist at once, nor is that much memory touched for the first time
    (100,000 benchmarks: peak RSS 1.94 -> 1.44 GB). orjson writes non-finite numbers as
    null, as strict JSON wants (the standard library took 2.9 s for 10,000 benchmarks, 1.9 s of
    it replacing them)."""
    if results.several:
        yield _versions_json(results)  # (a few benchmarks: one block)
        return
    yield from _blocks(results, _head(results), 0, len(results.pair.benchmarks), opening=True,
                       closing=True)


def render_json_pieces(results: Results, pieces: int
                       ) -> list[Callable[[], Iterator[bytes | memoryview]]]:
    """:func:`render_json_blocks` in ``pieces`` parts that are made independently of each
    other (each part's blocks; the benchmarks shared out evenly): one after the other, the
    same bytes. (Several versions: one part.)"""
    if results.several:
        return [functools.partial(render_json_blocks, results)]
    count, head = len(results.pair.benchmarks), _head(results)
    ends = [count * part // pieces for part in range(pieces + 1)]
    return [functools.partial(_blocks, results, head, start, stop, opening=part == 0,
                              closing=part == pieces - 1)
            for part, (start, stop) in enumerate(itertools.pairwise(ends))]


#: Where the benchmarks go in the document's head: the first "benchmarks":null is the
#: top-level key (quotes inside strings are escaped).
_MARKER = b'"benchmarks":null'


def _head(results: Results) -> bytes:
    """results.json of two versions with ``"benchmarks":null`` in place of the benchmarks."""
    return orjson.dumps(_document(results), option=_OPTIONS | orjson.OPT_APPEND_NEWLINE)


def _blocks(results: Results, head: bytes, start: int, stop: int, opening: bool,
            closing: bool) -> Iterator[bytes | memoryview]:
    """The blocks of results.json of two versions (``head``: :func:`_head`) from the entry of
    benchmark ``start`` up to that of ``stop`` (a comma before them unless ``start`` is 0):
    after the document's head with ``opening``, before its end with ``closing``."""
    benchmarks = results.pair.benchmarks
    cut = head.index(_MARKER)
    if opening:
        yield head[:cut] + b'"benchmarks":['
    # The entries encoded a few dozen at a time, as a list whose brackets are left out: the
    # same bytes as one by one, 15% less of orjson's time (10,000 benchmarks: 25 ms). Each
    # encoding is handed on as it is, a view without its brackets: gathered into blocks of
    # a megabyte, every byte was copied twice more, into memory the system had to give
    # afresh (10,000 benchmarks: 14% of the time, 22 ms and 5,600 page faults a half).
    for first in range(start, stop, _ENCODED_TOGETHER):
        # The collector paused while entries are encoded (they hold no cycles, see
        # nocycles), not while the caller has them.
        with cycle_collection_paused():
            encoded = orjson.dumps(
                [_benchmark(benchmark)
                 for benchmark in benchmarks[first:min(first + _ENCODED_TOGETHER, stop)]],
                option=_OPTIONS)
        if first:
            yield b","
        yield memoryview(encoded)[1:-1]
    if closing:
        yield b"]" + head[cut + len(_MARKER):]


def render_json_bytes(results: Results) -> bytearray:
    """:func:`render_json_blocks` in one piece."""
    out = bytearray()
    for block in render_json_blocks(results):
        out += block
    return out


def render_json(results: Results) -> str:
    """:func:`render_json_bytes` as text."""
    return render_json_bytes(results).decode()


# ------------------------------------------------------------------ several versions
# The two-version layout for each version against the baseline under "comparisons", the
# ranking under "versions", and per benchmark the comparison of all versions together
# under "benchmarks".

TIE_RULE = (
    "A version is tied with the best unless the weighted geometric mean of the best "
    "version's speedups over it, with its delta-method interval at 1 - alpha/(k - 1) "
    "(Bonferroni over the k - 1 comparisons with the best), lies above 1 + threshold "
    "(the rule of the call 'faster')."
)


def _standing(standing: VersionStanding) -> dict[str, Any]:
    versus = aggregate_dict(standing.versus_best)
    if versus is not None:
        versus["call"] = standing.versus_best_call
    return {"name": standing.name, "baseline": standing.baseline, "rank": standing.rank,
            "best": standing.best, "geometric_mean": aggregate_dict(standing.geometric_mean),
            "versus_best": versus}


def _test(result: AnovaResult | KruskalResult | LeveneResult | BartlettResult
          ) -> dict[str, Any]:
    from speeduptest.model.omnibus import AnovaResult, LeveneResult

    if isinstance(result, (AnovaResult, LeveneResult)):
        df: Any = [number(result.df_numerator), number(result.df_denominator)]
    else:
        df = result.df
    return {"statistic": number(result.statistic), "df": df,
            "p_value": number(result.p_value), "note": result.note}


def _omnibus(choice: OmnibusChoice) -> dict[str, Any]:
    tests = choice.tests
    return {
        "route": choice.route,
        "versions": list(choice.names),
        "small": choice.small,
        "alpha": choice.alpha,
        "test": {"anova": "classic", "welch": "welch", "kruskal": "kruskal"}[choice.route],
        "p_value": number(choice.omnibus.p_value),
        "rejects": choice.omnibus.rejects(choice.alpha),
        "tests": {
            "shapiro": [{"version": name, "statistic": number(result.statistic),
                         "p_value": number(result.p_value), "note": result.note}
                        for name, result in zip(choice.names, tests.shapiro, strict=True)],
            "bartlett": _test(tests.bartlett),
            "levene": _test(tests.levene),
            "anova": _test(tests.anova),
            "welch": _test(tests.welch),
            "kruskal": _test(tests.kruskal),
        },
        "means": [number(mean) for mean in choice.means],
        "mean_ranks": [number(rank) for rank in choice.mean_ranks],
        "steps": list(choice.steps),
    }


def _posthoc(choice: OmnibusChoice) -> dict[str, Any]:
    posthoc: PostHocResult = choice.posthoc
    names = choice.names
    return {
        "method": posthoc.method,
        "label": posthoc.label,
        "confidence": posthoc.confidence,
        "difference": ("mean time of the second version minus the first's"
                       if posthoc.method in ("tukey", "games-howell")
                       else "mean rank of the second version minus the first's"),
        "pairs": [{
            "versions": [names[pair.first], names[pair.second]],
            "difference": number(pair.difference),
            "statistic": number(pair.statistic),
            "df": number(pair.df),
            "p_value": number(pair.p_value),
            "p_adjusted": number(pair.p_adjusted),
            "ci": (None if pair.lower is None or pair.upper is None
                   else [number(pair.lower), number(pair.upper)]),
            "differs": pair.differs(choice.alpha),
            "note": pair.note,
        } for pair in posthoc.pairs],
    }


def _versions_benchmark(benchmark: VersionsBenchmark) -> dict[str, Any]:
    choice = benchmark.choice
    return {
        "name": benchmark.name,
        "weight": number(benchmark.weight),
        "alpha": number(benchmark.alpha),
        "status": benchmark.status,
        "config_line": benchmark.config_line,
        "unit": benchmark.unit,
        "versions": [{"name": name, **({"analysed": False} if summary is None else
                                       {"analysed": True, **summary_dict(summary, validity)})}
                     for name, summary, validity in zip(
                         benchmark.versions, benchmark.summaries,
                         benchmark.validity or (None,) * len(benchmark.versions),
                         strict=True)],
        "omnibus": None if choice is None else _omnibus(choice),
        "posthoc": None if choice is None else _posthoc(choice),
        "letters": benchmark.letters,
        "warnings": [notice.message for notice in benchmark.notices],
        "warning_details": [notice_dict(notice) for notice in benchmark.notices],
        "errors": [str(error) for error in benchmark.errors],
    }


def _holm(adjusted: HolmAdjusted | None) -> dict[str, Any] | None:
    if adjusted is None:
        return None
    return {"comparisons": adjusted.comparisons,
            "mean": {"p_value": number(adjusted.mean_p),
                     "adjusted": number(adjusted.mean_adjusted),
                     "verdict": adjusted.mean_verdict},
            "median": {"p_value": number(adjusted.median_p),
                       "adjusted": number(adjusted.median_adjusted),
                       "verdict": adjusted.median_verdict}}


def _comparison(results: Results, comparison: Comparison) -> dict[str, Any]:
    """One version against the baseline: its input, its benchmarks (each with its Holm
    adjustment), its overall figures and their caveats."""
    source = results.source
    if source.config:
        entry = {"config": source.label}
    else:
        references = dict(zip(results.versions, source.references, strict=True))
        entry = {"compared": [references[comparison.baseline], references[comparison.version]],
                 "names": list(DEFAULT_NAMES)}
    benchmarks = []
    for benchmark, holm in zip(comparison.by_benchmark, comparison.holm, strict=True):
        if benchmark is not None:
            benchmarks.append({**_benchmark(benchmark), "versions_holm": _holm(holm)})
    return {"baseline": comparison.baseline, "version": comparison.version, "input": entry,
            "benchmarks": benchmarks, "overall": _overall(results.settings, comparison.overall),
            "warnings": [notice.message for notice in comparison.notices],
            "warning_details": [notice_dict(notice) for notice in comparison.notices]}


def versions_dict(results: Results) -> dict[str, Any]:
    """The results of several versions as the plain dictionary written to results.json."""
    source = results.source
    return {
        "tool": {"name": "speeduptest", "version": results.tool_version},
        "input": ({"config": source.label, "form": source.form} if source.config
                  else {"compared": list(source.references)}),
        "settings": {**settings_dict(results.settings), "baseline": results.baseline_name},
        "versions": [_standing(standing) for standing in results.standings],
        "benchmarks": [_versions_benchmark(benchmark) for benchmark in results.across],
        "comparisons": [_comparison(results, comparison) for comparison in results.comparisons],
        "overall": {
            "baseline": results.baseline_name,
            "ranking": [standing.name for standing in results.ranking],
            "best": list(results.best),
            "benchmarks_ranked": len(results.common),
            "tie_rule": TIE_RULE,
        },
        "warnings": [notice.message for notice in results.notices],
        "warning_details": [notice_dict(notice) for notice in results.notices],
        "errors": [str(error) for error in results.errors],
    }


def _versions_json(results: Results) -> bytes:
    return orjson.dumps(versions_dict(results),
                        option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE)

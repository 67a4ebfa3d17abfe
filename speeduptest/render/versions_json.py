"""results.json of a comparison of several versions: the two-version layout for
each version against the baseline under ``"comparisons"``, the ranking under ``"versions"``,
and per benchmark the comparison of all versions together under ``"benchmarks"``.

Strict JSON (no NaN), the same bytes for the same input and seed, like
:mod:`speeduptest.render.json_results` (whose benchmark and overall entries are reused as
they are).
"""

from __future__ import annotations

from typing import Any

import orjson

from speeduptest.model.omnibus import (
    AnovaResult,
    BartlettResult,
    KruskalResult,
    LeveneResult,
    OmnibusChoice,
    PostHocResult,
)
from speeduptest.model.versions import (
    HolmAdjusted,
    VersionComparison,
    VersionsBenchmark,
    VersionsResults,
    VersionStanding,
)
from speeduptest.render.json_results import (
    aggregate_dict,
    notice_dict,
    number,
    results_dict,
    settings_dict,
    summary_dict,
)

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


def _benchmark(benchmark: VersionsBenchmark) -> dict[str, Any]:
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


def _comparison(comparison: VersionComparison) -> dict[str, Any]:
    pair = results_dict(comparison.results)
    adjusted = [h for r, h in zip(comparison.by_benchmark, comparison.holm, strict=True)
                if r is not None]
    benchmarks = []
    for entry, holm in zip(pair["benchmarks"], adjusted, strict=True):
        entry["versions_holm"] = _holm(holm)
        benchmarks.append(entry)
    return {"baseline": comparison.baseline, "version": comparison.version,
            "input": pair["input"], "benchmarks": benchmarks, "overall": pair["overall"],
            "warnings": pair["warnings"], "warning_details": pair["warning_details"]}


def versions_dict(results: VersionsResults) -> dict[str, Any]:
    """The results of several versions as the plain dictionary written to results.json."""
    source = results.source
    return {
        "tool": {"name": "speeduptest", "version": results.tool_version},
        "input": ({"config": source.label, "form": source.form} if source.config
                  else {"compared": list(source.references)}),
        "settings": {**settings_dict(results.settings), "baseline": results.baseline_name},
        "versions": [_standing(standing) for standing in results.standings],
        "benchmarks": [_benchmark(benchmark) for benchmark in results.benchmarks],
        "comparisons": [_comparison(comparison) for comparison in results.comparisons],
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


def render_versions_json(results: VersionsResults) -> str:
    """results.json, compact (``python -m json.tool results.json`` pretty-prints it)."""
    return orjson.dumps(versions_dict(results),
                        option=orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE).decode()

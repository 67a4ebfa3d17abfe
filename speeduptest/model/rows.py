"""The flat table of a run's benchmarks, one record each: the columns of results.csv and of
``Results.to_dataframe()``, shared by the model and the renderers."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (types only: the model imports this module when it makes a DataFrame)
    from speeduptest.model.results import BenchmarkResult, Comparison, Settings
    from speeduptest.stats.steady import SideValidity

CSV_COLUMNS = (
    "benchmark", "status", "weight", "alpha", "n_initial", "n_optimized", "unit",
    "mean_initial", "mean_optimized", "median_initial", "median_optimized",
    "speedup_mean", "speedup_median", "speedup_min", "ci_low", "ci_high", "ci_method",
    "mean_verdict", "mean_reason", "mean_max_confidence",
    "median_verdict", "median_reason", "median_max_confidence", "statement", "errors",
    # The call: its corrected interval of the speedup of the means.
    "call", "call_low", "call_high", "call_confidence", "call_method", "correction",
    "threshold", "call_reason", "p_value_no_change",
    # The deciding test of the mean verdict, adjusted over the analysed benchmarks.
    "p_value", "p_value_holm", "p_value_bh",
    # The Speedup-Test's tests, the t-test as the protocol chose it.
    "t_test_variant", "t_test_p_value", "wilcoxon_p_value", "ks_p_value",
    "shapiro_initial_p_value", "shapiro_optimized_p_value", "f_test_p_value",
    # The protocol run in reverse: "significant" means significantly slower.
    "slowdown_mean_verdict", "slowdown_median_verdict",
    "probability_faster",
    # The measurement checks of each side (see results.json's steady_state, dependence, order).
    *(f"{role}_{field}" for role in ("initial", "optimized")
      for field in ("steady_state", "dropped", "values_analysed", "lag1", "effective_n",
                    "batch", "order_test", "order_p_value")),
)


def finite(value: float | None) -> float | None:
    """A finite number, or None (an empty cell; NaN in a DataFrame)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _interval(benchmark: BenchmarkResult) -> tuple[float | None, float | None, str | None]:
    """The headline effect-size interval (ci_low, ci_high, ci_method: at the benchmark's own
    level, uncorrected; kept for the tools that read these columns)."""
    if benchmark.effect is None:
        return None, None, None
    headline = benchmark.effect.headline
    return headline.low, headline.high, headline.method if headline.bounded else None


def _validity(role: str, side: SideValidity) -> dict[str, object]:
    dependence, order = side.dependence, side.order
    return {f"{role}_steady_state": side.classification, f"{role}_dropped": side.dropped,
            f"{role}_values_analysed": side.values,
            f"{role}_lag1": finite(dependence.lag1) if dependence else None,
            f"{role}_effective_n": finite(dependence.effective_n) if dependence else None,
            f"{role}_batch": dependence.batch if dependence else None,
            f"{role}_order_test": order.test if order else None,
            f"{role}_order_p_value": finite(order.p_value) if order else None}


def benchmark_rows(comparison: Comparison, settings: Settings) -> list[dict[str, object]]:
    """One flat record per benchmark of a comparison (numbers as numbers, missing values as
    None)."""
    rows = []
    for benchmark in comparison.benchmarks:
        analysis, call = benchmark.analysis, benchmark.change
        low, high, method = _interval(benchmark)
        row: dict[str, object] = dict.fromkeys(CSV_COLUMNS)
        row.update(benchmark=benchmark.name, status=benchmark.status, weight=benchmark.weight,
                   alpha=benchmark.alpha, errors="; ".join(str(e) for e in benchmark.errors),
                   threshold=call.threshold if call else settings.threshold,
                   correction=call.correction if call else settings.correction)
        if analysis is not None:
            tests = analysis.tests
            t_test = tests.t_test_at(analysis.alpha)
            row.update(
                n_initial=analysis.initial.n, n_optimized=analysis.optimized.n,
                unit=benchmark.unit,
                mean_initial=analysis.initial.mean, mean_optimized=analysis.optimized.mean,
                median_initial=analysis.initial.median,
                median_optimized=analysis.optimized.median,
                speedup_mean=analysis.speedup.mean, speedup_median=analysis.speedup.median,
                speedup_min=analysis.speedup.min, ci_low=finite(low), ci_high=finite(high),
                ci_method=method,
                mean_verdict=analysis.mean.verdict, mean_reason=analysis.mean.reason,
                mean_max_confidence=analysis.mean_max_confidence,
                median_verdict=analysis.median.verdict, median_reason=analysis.median.reason,
                median_max_confidence=analysis.median_max_confidence,
                statement=benchmark.effect.statement if benchmark.effect else None,
                t_test_variant=t_test.variant, t_test_p_value=finite(t_test.p_value),
                wilcoxon_p_value=finite(tests.wilcoxon.p_value),
                ks_p_value=finite(tests.ks.p_value),
                shapiro_initial_p_value=finite(tests.shapiro_initial.p_value),
                shapiro_optimized_p_value=finite(tests.shapiro_optimized.p_value),
                f_test_p_value=finite(tests.f_test.p_value),
                probability_faster=finite(analysis.probability_faster),
            )
        if benchmark.slowdown is not None:
            row.update(slowdown_mean_verdict=benchmark.slowdown.mean.verdict,
                       slowdown_median_verdict=benchmark.slowdown.median.verdict)
        if benchmark.validity is not None:
            for role, side in zip(("initial", "optimized"), benchmark.validity, strict=True):
                row.update(_validity(role, side))
        if call is not None:
            row.update(call=call.call, call_low=finite(call.low), call_high=finite(call.high),
                       call_confidence=call.confidence, call_method=call.method,
                       call_reason=call.reason,
                       p_value_no_change=finite(call.p_value_no_change),
                       p_value=finite(call.p_value), p_value_holm=finite(call.holm),
                       p_value_bh=finite(call.bh))
        rows.append(row)
    return rows

"""The short summary printed on the terminal (SPEC §2)."""

from __future__ import annotations

from ..model import OverallFigure, Results
from ..planning import ExperimentPlan
from .formatting import speedup

VERDICT_MARK = {"significant": "faster", "not_significant": "not significant",
                "inconclusive": "inconclusive"}


def _gain(value: float | None) -> str:
    return "—" if value is None else f"{value:+.1%}"


def _proportion_line(label: str, figure: OverallFigure) -> str:
    proportion = figure.proportion
    if proportion is None or proportion.total == 0 or proportion.ci is None:
        return f"  {label}: no benchmark analysed"
    low, high = proportion.ci
    line = (f"  {label}: {proportion.accelerated}/{proportion.total} accelerated "
            f"({proportion.proportion:.1%}), {proportion.confidence:.0%} CI "
            f"[{low:.1%}, {high:.1%}]")
    if not proportion.ci_valid:
        line += " (interval may be inaccurate: too few benchmarks)"
    return line


def render_terminal(results: Results, written: list[str] | None = None) -> str:
    overall = results.overall
    analysed, failed = len(results.analysed), len(results.failed)
    lines = [
        f"speeduptest {results.tool_version}: {len(results.benchmarks)} benchmarks "
        f"({analysed} analysed, {failed} with errors), α = {results.settings.alpha:g}",
        "Overall speedup (weighted, Σ W·ET(initial) / Σ W·ET(optimized)):",
    ]
    for name in ("mean", "median", "min"):
        figure = getattr(overall, name)
        caveat = " (not a reproducible statistic)" if name == "min" else ""
        lines.append(f"  {name:<6} {speedup(figure.speedup):>9}  gain {_gain(figure.gain)}"
                     f"{caveat}")
    for label, aggregate in (("mean, bootstrap CI", overall.mean.interval),
                             ("geometric mean of the benchmarks' speedups",
                              overall.geometric_mean)):
        if aggregate is not None:
            lines.append(f"  {label}: {speedup(aggregate.value)} "
                         f"[{aggregate.low:.4g}, {aggregate.high:.4g}] "
                         f"({aggregate.confidence:.0%})")
    lines.append("Benchmarks with a significant speedup:")
    lines.append(_proportion_line("mean  ", overall.mean))
    lines.append(_proportion_line("median", overall.median))
    width = max([len(b.name) for b in results.benchmarks] + [9])
    lines.append("")
    lines.append(f"  {'benchmark':<{width}}  {'mean':>9}  {'verdict':<15}  {'median':>9}  verdict")
    for benchmark in results.benchmarks:
        analysis = benchmark.analysis
        if analysis is None:
            first = str(benchmark.errors[0]) if benchmark.errors else "error"
            lines.append(f"  {benchmark.name:<{width}}  ERROR: {first}")
            continue
        lines.append(
            f"  {benchmark.name:<{width}}  {speedup(analysis.speedup.mean):>9}  "
            f"{VERDICT_MARK[analysis.mean.verdict]:<15}  {speedup(analysis.speedup.median):>9}  "
            f"{VERDICT_MARK[analysis.median.verdict]}"
        )
    if failed:
        lines.append("")
        lines.append(f"{failed} benchmark(s) could not be analysed; see errors.html.")
    for notice in results.input_notices:
        lines.append(f"Warning: {notice.message}")
    if written:
        lines.append("")
        lines.append("Wrote: " + ", ".join(written))
    return "\n".join(lines) + "\n"


def _maybe(value: float | None) -> str:
    return "—" if value is None else f"{value:.5g}"


def render_plan(plan: ExperimentPlan, path: str, design: str) -> str:
    """The variance components and the optimal repetitions, top level first."""
    lines = [f"Initial experiment {path}: {design}", "",
             f"  {'level':<14}{'S²':>12}{'T²':>12}{'cost':>10}  repeat"]
    for level in reversed(plan.levels):
        if level.repetitions is None:
            repeat = "as the budget allows"
        elif level.adds_variance:
            repeat = f"{level.repetitions} per unit above"
        else:
            repeat = "1 (T² ≤ 0: adds no measurable variance)"
        lines.append(f"  {level.name:<14}{_maybe(level.s2):>12}{_maybe(level.t2):>12}"
                     f"{level.cost:>10g}  {repeat}")
    top = plan.levels[-1].name
    lines += ["", f"One {top} with the planned repetitions costs {plan.top_unit_cost:g}."]
    if plan.budget is not None:
        lines.append(f"A budget of {plan.budget:g} buys {plan.affordable_top_units} {top}(s) "
                     "per version; the Speedup-Test needs at least 3, and more than 30 for the "
                     "large-sample tests.")
    lines.append("T²ᵢ: the variance level i adds (Kalibera & Jones); nᵢ = "
                 "⌈√((Cᵢ₊₁/Cᵢ)·T²ᵢ/T²ᵢ₊₁)⌉.")
    return "\n".join(lines) + "\n"

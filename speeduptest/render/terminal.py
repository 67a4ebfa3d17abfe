"""The short summary printed on the terminal (SPEC §2)."""

from __future__ import annotations

from ..model import OverallFigure, Results

VERDICT_MARK = {"significant": "faster", "not_significant": "not significant",
                "inconclusive": "inconclusive"}


def _speedup(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}×"


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
        lines.append(f"  {name:<6} {_speedup(figure.speedup):>9}  gain {_gain(figure.gain)}"
                     f"{caveat}")
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
            f"  {benchmark.name:<{width}}  {_speedup(analysis.speedup.mean):>9}  "
            f"{VERDICT_MARK[analysis.mean.verdict]:<15}  {_speedup(analysis.speedup.median):>9}  "
            f"{VERDICT_MARK[analysis.median.verdict]}"
        )
    if failed:
        lines.append("")
        lines.append(f"{failed} benchmark(s) could not be analysed; see errors.html.")
    if written:
        lines.append("")
        lines.append("Wrote: " + ", ".join(written))
    return "\n".join(lines) + "\n"

"""Compact per-benchmark outputs: a Markdown summary for pull-request comments, a CSV table
for spreadsheets and pandas, and a booktabs LaTeX table for papers. All read the results
model only."""

from __future__ import annotations

import csv
import io

from ..model import BenchmarkResult, Results
from .formatting import speedup

VERDICT_MARKS = {"significant": "✅ faster", "not_significant": "➖ not significant",
                 "inconclusive": "❔ inconclusive"}
CSV_COLUMNS = (
    "benchmark", "status", "weight", "alpha", "n_initial", "n_optimized", "unit",
    "mean_initial", "mean_optimized", "median_initial", "median_optimized",
    "speedup_mean", "speedup_median", "speedup_min", "ci_low", "ci_high", "ci_method",
    "mean_verdict", "mean_reason", "mean_max_confidence",
    "median_verdict", "median_reason", "median_max_confidence", "statement", "errors",
)
# A spreadsheet runs a cell starting with one of these as a formula (CSV injection).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _interval(benchmark: BenchmarkResult) -> tuple[float | None, float | None, str | None]:
    if benchmark.effect is None:
        return None, None, None
    headline = benchmark.effect.headline
    return headline.low, headline.high, headline.method if headline.bounded else None


def benchmark_rows(results: Results) -> list[dict[str, object]]:
    """One flat record per benchmark (numbers as numbers, missing values as None)."""
    rows = []
    for benchmark in results.benchmarks:
        analysis = benchmark.analysis
        low, high, method = _interval(benchmark)
        row: dict[str, object] = dict.fromkeys(CSV_COLUMNS)
        row.update(benchmark=benchmark.name, status=benchmark.status, weight=benchmark.weight,
                   alpha=benchmark.alpha, errors="; ".join(str(e) for e in benchmark.errors))
        if analysis is not None:
            row.update(
                n_initial=analysis.initial.n, n_optimized=analysis.optimized.n,
                unit=benchmark.unit,
                mean_initial=analysis.initial.mean, mean_optimized=analysis.optimized.mean,
                median_initial=analysis.initial.median,
                median_optimized=analysis.optimized.median,
                speedup_mean=analysis.speedup.mean, speedup_median=analysis.speedup.median,
                speedup_min=analysis.speedup.min, ci_low=low, ci_high=high, ci_method=method,
                mean_verdict=analysis.mean.verdict, mean_reason=analysis.mean.reason,
                mean_max_confidence=analysis.mean_max_confidence,
                median_verdict=analysis.median.verdict, median_reason=analysis.median.reason,
                median_max_confidence=analysis.median_max_confidence,
                statement=benchmark.effect.statement if benchmark.effect else None,
            )
        rows.append(row)
    return rows


def _safe_text(value: object) -> object:
    """Neutralise text a spreadsheet would run as a formula; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def render_csv(results: Results) -> str:
    output = io.StringIO()
    writer = csv.DictWriter(output, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in benchmark_rows(results):
        writer.writerow({key: ("" if value is None else _safe_text(value))
                         for key, value in row.items()})
    return output.getvalue()


SLOWER_MARK = "🔻 slower"


def _md_escape(text: str) -> str:
    """Keep user text from breaking the table or turning into markup."""
    for character in "\\`*_[]<>|":
        text = text.replace(character, "\\" + character)
    return text


def render_markdown(results: Results) -> str:
    """A GitHub-flavoured summary for a pull-request comment."""
    overall = results.overall
    mean, median = overall.mean.proportion, overall.median.proportion
    lines = ["### speeduptest: is the optimized version faster?", ""]
    if mean is not None and mean.total:
        lines.append(
            f"**Overall speedup of the means: {speedup(overall.mean.speedup)}** "
            f"(gain {overall.mean.gain:+.1%}); median {speedup(overall.median.speedup)}. "
            f"Significantly faster: {mean.accelerated}/{mean.total} benchmarks (mean), "
            f"{median.accelerated}/{median.total} (median), at α = {results.settings.alpha:g}.")
        if overall.geometric_mean is not None:
            g = overall.geometric_mean
            lines.append(f"Geometric mean of the speedups: {speedup(g.value)} "
                         f"({g.confidence:.0%} CI {g.low:.4g} to {g.high:.4g}).")
    else:
        lines.append("**No benchmark could be analysed.**")
    lines += ["", "| benchmark | speedup (mean) | CI | mean | median |", "|---|---:|---|---|---|"]
    for benchmark in results.benchmarks:
        name = _md_escape(benchmark.name)
        analysis = benchmark.analysis
        if analysis is None:
            message = _md_escape(str(benchmark.errors[0])) if benchmark.errors else "error"
            lines.append(f"| {name} | | | ❌ error | {message} |")
            continue
        low, high, _ = _interval(benchmark)
        interval = f"{low:.4g} to {high:.4g}" if low is not None else "unbounded"
        marks = [VERDICT_MARKS[decision.verdict] for decision in (analysis.mean, analysis.median)]
        if benchmark.slowdown is not None:  # the protocol run the other way (CI gating)
            reverse = (benchmark.slowdown.mean, benchmark.slowdown.median)
            marks = [SLOWER_MARK if decision.verdict == "significant" else mark
                     for mark, decision in zip(marks, reverse, strict=True)]
        lines.append(f"| {name} | {speedup(analysis.speedup.mean)} | {interval} | "
                     f"{marks[0]} | {marks[1]} |")
    failed = len(results.failed)
    if failed:
        lines += ["", f"{failed} benchmark(s) could not be analysed: see errors.html."]
    lines += [f"\n⚠️ {_md_escape(notice.message)}" for notice in results.input_notices]
    slower = ", 🔻 significantly slower"
    lines += ["", f"<sub>speeduptest {results.tool_version}; ✅ significant speedup, "
                  f"➖ no significant speedup{slower}, ❔ the test's assumptions do not hold "
                  "(see the warnings).</sub>"]
    return "\n".join(lines) + "\n"


_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                   "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}
_LATEX_VERDICTS = {"significant": "faster", "not_significant": "n.s.",
                   "inconclusive": "inconclusive"}


def _tex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(character, character) for character in text)


def render_latex(results: Results) -> str:
    """A booktabs table (needs \\usepackage{booktabs}) of every analysed benchmark."""
    confidence = f"{results.settings.confidence:.0%}".replace("%", r"\%")
    lines = [
        "% Generated by speeduptest " + results.tool_version + r"; needs \usepackage{booktabs}",
        r"\begin{tabular}{lrlll}",
        r"\toprule",
        rf"Benchmark & Speedup & {confidence} CI & Mean & Median \\",
        r"\midrule",
    ]
    for benchmark in results.analysed:
        analysis = benchmark.analysis
        low, high, _ = _interval(benchmark)
        interval = f"[{low:.3f}, {high:.3f}]" if low is not None else "unbounded"
        lines.append(
            f"{_tex_escape(benchmark.name)} & {analysis.speedup.mean:.3f} & {interval} & "
            f"{_LATEX_VERDICTS[analysis.mean.verdict]} & "
            f"{_LATEX_VERDICTS[analysis.median.verdict]} \\\\")
    overall = results.overall
    if overall.mean.speedup is not None:
        lines += [r"\midrule",
                  rf"Overall (weighted) & {overall.mean.speedup:.3f} & & & \\"]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"

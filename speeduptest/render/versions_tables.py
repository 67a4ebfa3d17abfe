"""Compact outputs of several versions: summary.md (the answer, the ranking, the matrix of
speedups over the baseline with calls and letters), results.csv (one row per benchmark and
version) and table.tex (the matrix as a booktabs longtable). Formatting only: every figure is
read from :class:`speeduptest.model.versions.VersionsResults`. User text is escaped as by
:mod:`speeduptest.render.tables` (whose cell functions are reused); names are whole in the
CSV, elided in the Markdown and LaTeX tables."""

from __future__ import annotations

from speeduptest.model.versions import VersionsResults
from speeduptest.render.formatting import elide, interval, speedup
from speeduptest.render.tables import CALL_MARKS, _csv_cell, _md_escape, _tex_escape
from speeduptest.render.versions_text import answer_sentence

CSV_COLUMNS = (
    "benchmark", "version", "baseline", "status", "weight", "alpha", "n", "mean", "median",
    "letters", "speedup_mean", "call", "call_low", "call_high", "call_confidence",
    "call_method", "mean_verdict", "mean_verdict_holm", "mean_p_value", "mean_p_value_holm",
    "median_verdict", "median_verdict_holm", "median_p_value", "median_p_value_holm",
    "omnibus", "omnibus_p_value", "posthoc", "errors",
)


def version_rows(results: VersionsResults) -> list[dict[str, object]]:
    """One flat record per benchmark and version (the baseline's without a comparison)."""
    rows = []
    for index, benchmark in enumerate(results.benchmarks):
        choice = benchmark.choice
        letters = benchmark.letters
        for v, name in enumerate(results.versions):
            summary = benchmark.summaries[v]
            row: dict[str, object] = dict.fromkeys(CSV_COLUMNS)
            row.update(benchmark=benchmark.name, version=name,
                       baseline=results.baseline_name, weight=benchmark.weight,
                       alpha=benchmark.alpha, letters=letters.get(name),
                       status="ok" if summary is not None else "error",
                       omnibus=choice.route if choice else None,
                       omnibus_p_value=choice.omnibus.p_value if choice else None,
                       posthoc=choice.posthoc.method if choice else None)
            if summary is not None:
                row.update(n=summary.n, mean=summary.mean, median=summary.median)
            comparison = results.comparison(name)
            result = comparison.by_benchmark[index] if comparison else None
            if result is not None:
                row["errors"] = "; ".join(str(e) for e in result.errors) or None
            if result is not None and result.analysis is not None and result.change:
                call, holm = result.change, comparison.holm[index]
                row.update(
                    speedup_mean=result.analysis.speedup.mean, call=call.call,
                    call_low=call.low, call_high=call.high, call_confidence=call.confidence,
                    call_method=call.method, mean_verdict=result.analysis.mean.verdict,
                    median_verdict=result.analysis.median.verdict)
                if holm is not None:
                    row.update(mean_verdict_holm=holm.mean_verdict, mean_p_value=holm.mean_p,
                               mean_p_value_holm=holm.mean_adjusted,
                               median_verdict_holm=holm.median_verdict,
                               median_p_value=holm.median_p,
                               median_p_value_holm=holm.median_adjusted)
            elif v == results.baseline and summary is not None:
                row["speedup_mean"] = 1.0
            rows.append(row)
    return rows


def render_versions_csv(results: VersionsResults) -> str:
    lines = [",".join(f'"{name}"' for name in CSV_COLUMNS)]
    for row in version_rows(results):
        lines.append(",".join(_csv_cell(row[name]) for name in CSV_COLUMNS))
    return "\n".join(lines) + "\n"


def _cell_text(results: VersionsResults, index: int, v: int) -> tuple[str, str, str]:
    """(speedup, call, letters) of one version on one benchmark, as text."""
    benchmark = results.benchmarks[index]
    name = results.versions[v]
    letters = benchmark.letters.get(name, "")
    if benchmark.summaries[v] is None:
        return "error", "", ""
    if v == results.baseline:
        return "1 (baseline)", "", letters
    comparison = results.comparison(name)
    result = comparison.by_benchmark[index] if comparison else None
    if result is None or result.analysis is None or result.change is None:
        return "error", "", letters
    return speedup(result.analysis.speedup.mean), result.change.call, letters


def render_versions_markdown(results: VersionsResults) -> str:
    lines = ["#### speeduptest: which version is fastest?", "",
             _md_escape(answer_sentence(results)), "",
             "| rank | version | speedup over " + _md_escape(elide(results.baseline_name))
             + " (geometric mean, CI; population CI) | the best's speedup over it (CI) | |",
             "|---:|---|---|---|---|"]
    for standing in results.ranking:
        g, versus = standing.geometric_mean, standing.versus_best
        population = "" if g is None or g.population is None else (
            f"; population {interval(g.population.low, g.population.high)}")
        over = ("baseline" if standing.baseline else "—" if g is None else
                f"{speedup(g.value)} ({interval(g.low, g.high)}{population})")
        best = ("—" if versus is None
                else f"{speedup(versus.value)} ({interval(versus.low, versus.high)})")
        mark = ("best" if standing.rank == 1 and results.common else
                "tied with the best" if standing.best else "")
        lines.append(f"| {standing.rank} | {_md_escape(elide(standing.name))} | {over} | {best} | "
                     f"{mark} |")
    lines += ["", "| benchmark | " + " | ".join(_md_escape(elide(v)) for v in results.versions)
              + " |", "|---|" + "---:|" * len(results.versions)]
    for index, benchmark in enumerate(results.benchmarks):
        cells = []
        for v in range(len(results.versions)):
            text, call, letters = _cell_text(results, index, v)
            mark = CALL_MARKS[call].split(" ")[0] + " " if call else ""
            cells.append(f"{mark}{text}" + (f" `{letters}`" if letters else ""))
        lines.append(f"| {_md_escape(elide(benchmark.name))} | " + " | ".join(cells) + " |")
    lines += ["", "<sub>Speedup of the means over the baseline with the call of that "
              "comparison (✅ faster, 🔻 slower, ➖ unchanged, ❔ uncertain; corrected over all "
              "comparisons); letters: versions sharing a letter are not told apart on that "
              "benchmark (post-hoc test of all versions, family-wise α), `a` = fastest.</sub>"]
    return "\n".join(lines) + "\n"


def render_versions_latex(results: VersionsResults) -> str:
    k = len(results.versions)
    lines = [r"\begin{longtable}{l" + "r" * k + "}",
             r"\caption{Speedup of the means over the baseline "
             + _tex_escape(elide(results.baseline_name))
             + r" per benchmark, with the letters of the post-hoc test of all versions "
             r"(versions sharing a letter are not told apart; a = fastest).}\\", r"\toprule",
             "Benchmark & " + " & ".join(_tex_escape(elide(v)) for v in results.versions) + r" \\",
             r"\midrule", r"\endhead"]
    for index, benchmark in enumerate(results.benchmarks):
        cells = []
        for v in range(k):
            text, _, letters = _cell_text(results, index, v)
            text = text.replace("×", r"$\times$")
            cells.append(text + (rf" \textsuperscript{{{letters}}}" if letters else ""))
        lines.append(_tex_escape(elide(benchmark.name)) + " & " + " & ".join(cells) + r" \\")
    lines.append(r"\midrule")
    cells = []
    for standing in results.standings:
        g = standing.geometric_mean
        cells.append("1" if g is None else speedup(g.value).replace("×", r"$\times$"))
    lines += ["Geometric mean & " + " & ".join(cells) + r" \\", r"\bottomrule",
              r"\end{longtable}"]
    return "\n".join(lines) + "\n"


def render_versions_tables(results: VersionsResults, formats: tuple[str, ...]
                           ) -> dict[str, bytes]:
    files = {}
    for name, file, render in (("md", "summary.md", render_versions_markdown),
                               ("csv", "results.csv", render_versions_csv),
                               ("tex", "table.tex", render_versions_latex)):
        if name in formats:
            files[file] = render(results).encode("utf-8")
    return files

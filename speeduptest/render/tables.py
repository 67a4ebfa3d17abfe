"""Compact per-benchmark outputs: a Markdown summary for pull-request comments, a CSV table
for spreadsheets and pandas, and a booktabs LaTeX table for papers. All read the results
model only: every figure here was computed by the analysis; this module formats it. Names
and messages are whole in the CSV (data), elided in the Markdown and LaTeX tables (laid
out), as by :func:`formatting.elide`."""

from __future__ import annotations

import numbers
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

from speeduptest.model.results import BenchmarkResult, Decision, Results
from speeduptest.model.rows import CSV_COLUMNS, benchmark_rows, finite
from speeduptest.model.wording import (
    CORRECTION_LABELS,
    POPULATION_INTERVAL_COVERS,
    SUITE_INTERVAL_COVERS,
    threshold_band,
)
from speeduptest.model.wording import METHOD_LABELS as _METHOD_LABELS
from speeduptest.render.formatting import (
    AGGREGATE_METHODS,
    answer_sentence,
    by_call,
    change,
    elide,
    elide_message,
    interval,
    level,
    speedup,
    threshold,
)

# --------------------------------------------------------------------------- shared words

#: The call of a benchmark, with a mark that reads at a glance in a PR comment.
CALL_MARKS = {"faster": "✅ faster", "slower": "🔻 slower", "unchanged": "➖ unchanged",
              "uncertain": "❔ uncertain"}
#: The Speedup-Test verdicts in plain words: no marks, so that they never read as
#: a call. A significant verdict of the reverse protocol reads "slower".
VERDICT_WORDS = {"significant": "faster", "not_significant": "not significant",
                 "inconclusive": "inconclusive"}


def _verdicts(benchmark: BenchmarkResult) -> tuple[str, str]:
    """The mean and median verdicts of a benchmark, "slower" where the reverse is
    significant."""
    analysis, reverse = benchmark.analysis, benchmark.slowdown
    pairs: list[tuple[Decision, Decision | None]] = [
        (analysis.mean, reverse.mean if reverse else None),
        (analysis.median, reverse.median if reverse else None)]
    words = ["slower" if back is not None and back.verdict == "significant"
             else VERDICT_WORDS[forward.verdict] for forward, back in pairs]
    return words[0], words[1]


def _correction(results: Results) -> str | None:
    """The correction's short label for a header ("Bonferroni", "FCR", "uncorrected"), None
    when there is nothing to correct (one benchmark)."""
    calls = results.pair.overall.calls
    if calls is None or calls.total <= 1:
        return None
    if calls.correction == "none":
        return "uncorrected"
    return CORRECTION_LABELS[calls.correction].split(" (")[0]


class _CallIntervals:
    """What the call intervals of a run share: the level and the method, so that a header
    names them once and a row names them only where it differs."""

    def __init__(self, benchmarks: Iterable[BenchmarkResult]) -> None:
        changes = [b.change for b in benchmarks if b.change is not None]
        levels = {level(c.confidence) for c in changes}
        self.level = levels.pop() if len(levels) == 1 else None
        counts = Counter(c.method for c in changes)
        self.method = min(counts, key=lambda m: (-counts[m], m)) if counts else "fieller"
        self.levels = sorted({c.confidence for c in changes})
        self.methods = sorted(counts)


# --------------------------------------------------------------------------- CSV / pandas

# A spreadsheet runs a cell starting with one of these as a formula (CSV injection); some
# also after leading white space or control characters, and some take the full-width forms.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠")


def _skipped_before_formula(character: str) -> bool:
    return character.isspace() or unicodedata.category(character) in ("Cc", "Cf", "Zs")


def _safe_text(value: str) -> str:
    """Neutralise text a spreadsheet would run as a formula with a leading apostrophe, also
    when white space or control characters come before the formula sign."""
    stripped = value
    while stripped and _skipped_before_formula(stripped[0]):
        stripped = stripped[1:]
    if value.startswith(_FORMULA_STARTS) or stripped.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def _csv_cell(value: object) -> str:
    """RFC 4180 cell: text always quoted (and neutralised), numbers bare, None empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return '"true"' if value else '"false"'
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):  # float, NumPy scalars
        number = finite(value)
        return "" if number is None else repr(number)
    return '"' + _safe_text(str(value)).replace('"', '""') + '"'


def render_csv(results: Results) -> str:
    """results.csv: the header, then one row per benchmark in the order of the config."""
    if results.several:
        return _versions_csv(results)
    lines = [",".join(f'"{name}"' for name in CSV_COLUMNS)]
    for row in benchmark_rows(results.pair, results.settings):
        lines.append(",".join(_csv_cell(row[name]) for name in CSV_COLUMNS))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- Markdown

_LINE_BREAKS = re.compile("\r\n|[\n\r\x0b\x0c\x85\u2028\u2029]")
# Bidirectional overrides and isolates would reorder what follows them in the cell.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ZWJ = "\u200d"  # zero-width joiner: invisible, and breaks what GitHub would link or ping


def _visible(text: str) -> str:
    """One line of text whose control characters show: line breaks as ␤, other C0 controls
    as their control pictures (␉, ␀, …), C1 controls and bidi overrides as �."""
    text = _LINE_BREAKS.sub("␤", text)
    text = _BIDI.sub("�", text)
    out = []
    for character in text:
        code = ord(character)
        if code < 0x20:
            out.append(chr(0x2400 + code))
        elif code == 0x7F:
            out.append("␡")
        elif 0x80 <= code < 0xA0:
            out.append("�")
        else:
            out.append(character)
    return "".join(out)


def _md_escape(text: str) -> str:
    """Keep user text on its line, inside its table cell and free of markup: no line breaks,
    Markdown and HTML characters escaped, and nothing that GitHub would turn into a link,
    a mention (@user pings them) or an issue reference."""
    text = _visible(text)
    for character in "\\`*_[]<>|&~$":
        text = text.replace(character, "\\" + character)
    text = text.replace("@", "@" + _ZWJ)  # @user, @org/team, user@example.com
    text = re.sub(r"#(?=\d)", "#" + _ZWJ, text)  # #123, owner/repo#123
    text = re.sub(r"(?i):(?=//)", ":" + _ZWJ, text)  # https://…
    return re.sub(r"(?i)\b(www)\.", r"\1" + _ZWJ + ".", text)  # www.example.com


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _bold_answer(sentence: str) -> str:
    """The answer sentence with its key part (up to the first parenthesis or semicolon) in
    bold. The sentence holds no user text."""
    cut = min((i for i in (sentence.find(" ("), sentence.find(";")) if i > 0),
              default=len(sentence))
    head, rest = sentence[:cut], sentence[cut:]
    if head.endswith("."):
        head, rest = head[:-1], "." + rest
    return f"**{head}**{rest}"


def _md_ci_header(results: Results, shared: _CallIntervals) -> str:
    label = ", ".join(x for x in (_METHOD_LABELS[shared.method], _correction(results)) if x)
    return f"{shared.level} CI ({label})" if shared.level else f"CI ({label})"


def _md_row(benchmark: BenchmarkResult, shared: _CallIntervals) -> str:
    analysis, call = benchmark.analysis, benchmark.change
    if call is None:
        mark, ci = "—", "—"
    else:
        mark, ci = CALL_MARKS[call.call], interval(call.low, call.high, call.threshold)
        if shared.level is None:
            ci = f"{ci} ({level(call.confidence)})"
        if call.method != shared.method and call.bounded:
            ci = f"{ci} ({_METHOD_LABELS[call.method]})"
    probability = analysis.probability_faster
    mean, median = _verdicts(benchmark)
    return (f"| {_md_escape(elide(benchmark.name))} | {mark} | {change(analysis.speedup.mean)} | "
            f"{ci} | {'—' if probability is None else f'{probability:.0%}'} | "
            f"{mean} | {median} |")


def _md_table_head(header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|---|---|---:|---|---:|---|---|"]


def _md_footnote(results: Results, shared: _CallIntervals) -> str:
    calls = results.pair.overall.calls
    parts = [f"speeduptest {results.tool_version}."]
    if calls is not None and calls.total:
        tau = calls.threshold
        levels = " / ".join(level(c) for c in shared.levels)
        correction = ("" if calls.total == 1 else
                      ", not corrected for multiplicity" if calls.correction == "none" else
                      f", {CORRECTION_LABELS[calls.correction]} over {calls.total} benchmarks")
        parts.append(
            f"Call: from the {levels} {_METHOD_LABELS[shared.method]} interval of the "
            "speedup of the means "
            f"(initial ÷ optimized){correction}, and a threshold of {threshold(tau)}: "
            f"✅ faster: the interval lies above {1 + tau:.4g}; "
            f"🔻 slower: below {threshold_band(tau)[0]:.4g}; "
            f"➖ unchanged: within {threshold_band(tau)[0]:.4g} to {1 + tau:.4g}; "
            "❔ uncertain: otherwise.")
        if len(shared.methods) > 1:
            other = next(m for m in shared.methods if m != shared.method)
            parts.append("The bootstrap percentile interval replaces Fieller's where "
                         f"Fieller's is unbounded: rows marked ({_METHOD_LABELS[other]}).")
        parts.append("P(faster): the share of (initial, optimized) run pairs in which the "
                     "optimized run is faster.")
        alphas = {b.analysis.alpha for b in results.pair.analysed}
        alpha = f"α = {alphas.pop():g}" if len(alphas) == 1 else "each benchmark's α"
        parts.append(f"Speedup-Test (one benchmark at a time, {alpha}): faster = "
                     "significant speedup; slower = the protocol run in reverse is "
                     "significant; not significant = no significant speedup; inconclusive = "
                     "the test's assumptions do not hold (see the warnings).")
    return "<sub>" + " ".join(parts) + "</sub>"


def render_markdown(results: Results) -> str:
    """A GitHub-flavoured summary for a pull-request comment: the answer first, then the
    counts, the benchmarks by call (unchanged ones folded), the errors and the notes."""
    if results.several:
        return _versions_markdown(results)
    calls = results.pair.overall.calls
    baseline, other = (elide(name) for name in results.named)
    question = ("is the optimized version faster?" if results.source.names is None
                else f"is {other} faster than {baseline}?")
    lines = [f"### speeduptest: {question}", "",
             f"*{_md_escape(elide(results.source.short))}*", "",
             _bold_answer(answer_sentence(results))]
    if calls is not None and calls.total:
        counts = [f"{CALL_MARKS[name].split()[0]} {getattr(calls, name)} {name}"
                  for name in ("faster", "slower", "uncertain", "unchanged")]
        if results.failed:
            counts.append(f"❌ {len(results.failed)} not analysed")
        lines += ["", " · ".join(counts)]
    ordered = [b for b in by_call(results.pair.benchmarks) if b.status == "ok"]
    shared = _CallIntervals(ordered)
    header = ["benchmark", "call", "change (mean)", _md_ci_header(results, shared),
              "P(faster)", "Speedup-Test: mean", "median"]
    # Slower first (what a review looks for), then faster, each the largest change first;
    # the rest folded.
    called = {call: [b for b in ordered if b.change is not None and b.change.call == call]
              for call in ("slower", "faster")}
    shown = called["slower"] + called["faster"]
    shown_ids = {id(b) for b in shown}
    folded = [b for b in ordered if id(b) not in shown_ids]
    closing = [f"\n⚠️ {_md_escape(elide_message(notice.message))}"
               for notice in results.notices] + ["", _md_footnote(results, shared)]
    # Whatever the number of benchmarks, the summary fits in a pull-request comment: rows
    # are added while they fit, and a line says how many are left out and where they are.
    room = MARKDOWN_LIMIT - _size(lines) - _size(closing) - _RESERVED
    left_out = 0
    if shown:
        rows, cut = _fitting([_md_row(b, shared) for b in shown], room)
        room -= _size(rows)
        left_out += cut
        lines += ["", *_md_table_head(header), *rows]
    if folded:
        rows, cut = _fitting([_md_row(b, shared) for b in folded], room)
        room -= _size(rows)
        left_out += cut
        if rows:
            lines += ["", f"<details><summary>{_plural(len(folded), 'other benchmark')} "
                          f"({_folded_calls(folded)})</summary>", "",
                      *_md_table_head(header), *rows, "", "</details>"]
    if results.failed:
        errors = []
        for benchmark in results.failed:
            message = str(benchmark.errors[0]) if benchmark.errors else "error"
            more = len(benchmark.errors) - 1
            if more > 0:
                message += f" (and {_plural(more, 'more error')})"
            errors.append(f"| {_md_escape(elide(benchmark.name))} | "
                          f"❌ {_md_escape(elide_message(message))} |")
        rows, cut = _fitting(errors, room)
        left_out += cut
        lines += ["", f"**{_plural(len(results.failed), 'benchmark')} could not be analysed** "
                      "(see errors.html or results.json):", "", "| benchmark | error |",
                  "|---|---|", *rows]
    if left_out:
        lines += ["", _left_out(left_out, "more row")]
    lines += closing
    return "\n".join(lines) + "\n"


#: summary.md stays within what a GitHub comment holds (65,536 characters), with room for
#: the lines a bot adds around it.
MARKDOWN_LIMIT = 60_000
#: Room kept for the lines around the tables (headings, folds, the line of what was cut).
_RESERVED = 2_000


def _left_out(count: int, what: str) -> str:
    """The line that says how much of summary.md was cut, and where the rest is."""
    return (f"… and {_plural(count, what)} left out, to keep this summary within a "
            "pull-request comment: every benchmark is in results.json, results.csv and the "
            "HTML and PDF reports.")


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _fitting(rows: list[str], room: int) -> tuple[list[str], int]:
    """The first rows that fit in ``room`` characters, and how many do not."""
    kept, used = [], 0
    for row in rows:
        used += len(row) + 1
        if used > room:
            break
        kept.append(row)
    return kept, len(rows) - len(kept)


def _folded_calls(benchmarks: list[BenchmarkResult]) -> str:
    counts = Counter(b.change.call if b.change is not None else "no call" for b in benchmarks)
    return ", ".join(f"{count} {call}" for call, count in counts.items())


# --------------------------------------------------------------------------- LaTeX

_LATEX_SPECIALS = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                   "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                   "^": r"\textasciicircum{}"}
_LATEX_VERDICTS = {"faster": "faster", "slower": "slower", "not significant": "n.s.",
                   "inconclusive": "inconcl."}
_TEX_COLUMNS = 6


def _tex_escape(text: str) -> str:
    """User text for a table cell: LaTeX specials escaped, control characters (a line break
    would end the row or the paragraph) as spaces."""
    text = "".join(" " if unicodedata.category(c) == "Cc" else c
                   for c in _LINE_BREAKS.sub(" ", text))
    return "".join(_LATEX_SPECIALS.get(character, character) for character in text)


def _digits(low: float, high: float, minimum: int = 4) -> int:
    """Significant digits that tell the ends of an interval apart (as ``interval()``)."""
    digits = minimum
    while f"{low:.{digits}g}" == f"{high:.{digits}g}" and digits < 12:
        digits += 1
    return digits


def _tex_number(value: float, digits: int = 4) -> str:
    """``digits`` significant digits, trailing zeros kept (1.300), powers of ten in math."""
    text = f"{value:#.{digits}g}"
    mantissa, _, exponent = text.partition("e")
    mantissa = mantissa.rstrip(".")
    return rf"${mantissa}\times10^{{{int(exponent)}}}$" if exponent else mantissa


def _tex_estimate(value: float, low: float | None, high: float | None
                  ) -> tuple[str, str]:
    """A speedup and its interval with the same significant digits, at least 4 and more
    when the ends of the interval would print the same."""
    if low is None or high is None:
        return _tex_number(value), "unbounded"
    digits = _digits(low, high)
    return (_tex_number(value, digits),
            f"[{_tex_number(low, digits)}, {_tex_number(high, digits)}]")


def _tex_level(confidence: float) -> str:
    return level(confidence).replace("%", r"\%")


def _tex_caption(results: Results, shared: _CallIntervals) -> str:
    calls = results.pair.overall.calls
    analysed = results.pair.analysed
    text = [f"Speedup of the means, initial over optimized (above 1: optimized is faster), "
            f"of {_plural(len(analysed), 'benchmark')}."]
    if calls is not None and calls.total:
        tau = calls.threshold
        levels = ("each benchmark's" if shared.level is None
                  else "the " + shared.level.replace("%", r"\%"))
        if calls.total == 1 or calls.correction == "none":
            correction = "not corrected for multiplicity"
        elif calls.correction == "fcr":
            correction = ("false-coverage-rate-corrected (Benjamini--Yekutieli) over "
                          f"{calls.total} benchmarks")
        else:
            correction = (f"{CORRECTION_LABELS[calls.correction]}-corrected over "
                          f"{calls.total} benchmarks")
        text.append(
            f"Call: from {levels} {_METHOD_LABELS[shared.method]} confidence interval "
            f"(CI) of the speedup, "
            f"{correction}, and a threshold of {_tex_escape(threshold(tau))}: faster when "
            f"the CI lies above {1 + tau:.4g}, slower when it lies below "
            f"{threshold_band(tau)[0]:.4g}, unchanged when it lies within, uncertain otherwise.")
        if len(shared.methods) > 1:
            other = next(m for m in shared.methods if m != shared.method)
            text.append(rf"$^\dagger${_METHOD_LABELS[other].capitalize()} CI (the bootstrap "
                        "percentile interval replaces Fieller's where Fieller's is "
                        "unbounded).")
        alphas = {b.analysis.alpha for b in analysed}
        alpha = (rf"$\alpha = {alphas.pop():g}$" if len(alphas) == 1
                 else r"each benchmark's $\alpha$")
        text.append(f"Mean, Median: Speedup-Test verdicts at {alpha} "
                    "(n.s.: not significant; inconcl.: the test's assumptions do not hold; "
                    "slower: the protocol run in reverse is significant).")
    overall = results.pair.overall
    aggregates = [a for a in (overall.geometric_mean, overall.mean.interval) if a is not None]
    levels = sorted({level(a.confidence) for a in aggregates})
    methods = " and ".join(sorted({AGGREGATE_METHODS[a.method] for a in aggregates}))
    if analysed and overall.mean.speedup is not None:
        text.append(
            "Bottom rows: geometric mean of the speedups and weighted overall speedup "
            r"($\sum W\cdot\mathrm{mean}_{\mathrm{initial}} / "
            r"\sum W\cdot\mathrm{mean}_{\mathrm{optimized}}$)"
            + (f", with {' and '.join(levels)} {methods} CIs for {SUITE_INTERVAL_COVERS}"
               .replace("%", r"\%") if levels else "")
            + ("" if overall.geometric_mean is None or overall.geometric_mean.population is None
               else f" (population: the geometric mean's t CI for {POPULATION_INTERVAL_COVERS})")
            + "; Mean, Median: how many benchmarks the Speedup-Test finds faster.")
    return " ".join(text)


def _tex_row(benchmark: BenchmarkResult, shared: _CallIntervals) -> str:
    analysis, call = benchmark.analysis, benchmark.change
    low, high = (call.low, call.high) if call is not None else (None, None)
    value, ci = _tex_estimate(analysis.speedup.mean, low, high)
    if call is not None and shared.level is None:
        ci += f" ({_tex_level(call.confidence)})"
    if call is not None and call.method != shared.method and call.bounded:
        ci += r"$^\dagger$"
    mean, median = _verdicts(benchmark)
    return (f"{_tex_escape(elide(benchmark.name))} & {call.call if call else '--'} & {value} & "
            f"{ci} & {_LATEX_VERDICTS[mean]} & {_LATEX_VERDICTS[median]} \\\\")


def _tex_overall_rows(results: Results) -> list[str]:
    """The geometric mean of the speedups and the weighted overall speedup, with their
    bootstrap intervals; the name spans the empty Call column."""
    overall, rows = results.pair.overall, []
    geometric = overall.geometric_mean
    if geometric is not None:
        value, ci = _tex_estimate(geometric.value, geometric.low, geometric.high)
        rows.append(rf"\multicolumn{{2}}{{@{{}}l}}{{Geometric mean}} & {value} & {ci} & & \\")
        population = geometric.population
        if population is not None:
            _, ci = _tex_estimate(geometric.value, population.low, population.high)
            rows.append(rf"\multicolumn{{2}}{{@{{}}l}}{{\quad population}} & & {ci} & & \\")
    if overall.mean.speedup is not None:
        aggregate = overall.mean.interval
        if aggregate is not None:
            value, ci = _tex_estimate(overall.mean.speedup, aggregate.low, aggregate.high)
        else:
            value, ci = _tex_number(overall.mean.speedup), ""
        counts = ["" if proportion is None else f"{proportion.accelerated}/{proportion.total}"
                  for proportion in (overall.mean.proportion, overall.median.proportion)]
        rows.append(rf"\multicolumn{{2}}{{@{{}}l}}{{Overall (weighted)}} & {value} & {ci} & "
                    f"{counts[0]} & {counts[1]} \\\\")
    return rows


def render_latex(results: Results) -> str:
    """A longtable with booktabs rules of every analysed benchmark, by call; it breaks across
    pages with its header repeated. Needs \\usepackage{longtable,booktabs}."""
    if results.several:
        return _versions_latex(results)
    shared = _CallIntervals(results.pair.analysed)
    ci_header = f"{shared.level} CI".replace("%", r"\%") if shared.level else "CI"
    header = [rf"Benchmark & Call & Speedup & {ci_header} & Mean & Median \\",
              r"\midrule"]
    caption = _tex_caption(results, shared)
    lines = [
        f"% Generated by speeduptest {results.tool_version}; needs "
        r"\usepackage{longtable,booktabs}. \input it in the text (a longtable breaks across "
        "pages, so not inside a table float).",
        r"\begin{longtable}{@{}llrlll@{}}",
        rf"\caption{{{caption}}}\label{{tab:speeduptest}}\\",
        r"\toprule", *header, r"\endfirsthead",
        r"\caption[]{(continued)}\\", r"\toprule", *header, r"\endhead",
        r"\midrule",
        rf"\multicolumn{{{_TEX_COLUMNS}}}{{@{{}}r@{{}}}}{{\emph{{continued on the next page}}}} "
        r"\\",
        r"\endfoot",
        r"\bottomrule", r"\endlastfoot",
    ]
    ordered = [b for b in by_call(results.pair.benchmarks) if b.status == "ok"]
    if not ordered:
        lines.append(rf"\multicolumn{{{_TEX_COLUMNS}}}{{@{{}}l@{{}}}}{{No benchmark could be "
                     r"analysed.}\\")
    lines += [_tex_row(benchmark, shared) for benchmark in ordered]
    overall_rows = _tex_overall_rows(results) if ordered else []
    if overall_rows:
        lines += [r"\midrule", *overall_rows]
    lines.append(r"\end{longtable}")
    return "\n".join(lines) + "\n"


#: The columns of results.csv for several versions: one row per benchmark and version.
VERSION_CSV_COLUMNS = (
    "benchmark", "version", "baseline", "status", "weight", "alpha", "n", "mean", "median",
    "letters", "speedup_mean", "call", "call_low", "call_high", "call_confidence",
    "call_method", "mean_verdict", "mean_verdict_holm", "mean_p_value", "mean_p_value_holm",
    "median_verdict", "median_verdict_holm", "median_p_value", "median_p_value_holm",
    "omnibus", "omnibus_p_value", "posthoc", "errors",
)


def version_rows(results: Results) -> list[dict[str, object]]:
    """One flat record per benchmark and version (the baseline's without a comparison)."""
    rows = []
    for index, benchmark in enumerate(results.across):
        choice = benchmark.choice
        letters = benchmark.letters
        for v, name in enumerate(results.versions):
            summary = benchmark.summaries[v]
            row: dict[str, object] = dict.fromkeys(VERSION_CSV_COLUMNS)
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


def _versions_csv(results: Results) -> str:
    lines = [",".join(f'"{name}"' for name in VERSION_CSV_COLUMNS)]
    for row in version_rows(results):
        lines.append(",".join(_csv_cell(row[name]) for name in VERSION_CSV_COLUMNS))
    return "\n".join(lines) + "\n"


def _cell_text(results: Results, index: int, v: int) -> tuple[str, str, str]:
    """(speedup, call, letters) of one version on one benchmark, as text."""
    benchmark = results.across[index]
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


def _versions_markdown(results: Results) -> str:
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
    rows = []
    for index, benchmark in enumerate(results.across):
        cells = []
        for v in range(len(results.versions)):
            text, call, letters = _cell_text(results, index, v)
            mark = CALL_MARKS[call].split(" ")[0] + " " if call else ""
            cells.append(f"{mark}{text}" + (f" `{letters}`" if letters else ""))
        rows.append(f"| {_md_escape(elide(benchmark.name))} | " + " | ".join(cells) + " |")
    closing = ["", "<sub>Speedup of the means over the baseline with the call of that "
               "comparison (✅ faster, 🔻 slower, ➖ unchanged, ❔ uncertain; corrected over all "
               "comparisons); letters: versions sharing a letter are not told apart on that "
               "benchmark (post-hoc test of all versions, family-wise α), `a` = fastest.</sub>"]
    kept, left_out = _fitting(rows, MARKDOWN_LIMIT - _size(lines) - _size(closing) - _RESERVED)
    lines += kept
    if left_out:
        lines += ["", _left_out(left_out, "more benchmark")]
    return "\n".join(lines + closing) + "\n"


def _versions_latex(results: Results) -> str:
    k = len(results.versions)
    lines = [r"\begin{longtable}{l" + "r" * k + "}",
             r"\caption{Speedup of the means over the baseline "
             + _tex_escape(elide(results.baseline_name))
             + r" per benchmark, with the letters of the post-hoc test of all versions "
             r"(versions sharing a letter are not told apart; a = fastest).}\\", r"\toprule",
             "Benchmark & " + " & ".join(_tex_escape(elide(v)) for v in results.versions) + r" \\",
             r"\midrule", r"\endhead"]
    for index, benchmark in enumerate(results.across):
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

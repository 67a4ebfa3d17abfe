"""Which files each output format produces, rendered in memory before anything is written
(but results.json, encoded block by block as it is written).

Laying out PDF pages is by far the slowest step (weasyprint: a millisecond or two per line of
text or table cell). It is cut into independent tasks spread over worker processes (one per
core), the longest first: the global report in parts (its opening, its table of every
benchmark in parts of a few hundred rows, its closing), the index of the per-benchmark
report, that report in parts of a few dozen benchmarks (which also draw their figures), the
warnings and errors reports. Parts are small, so a worker's memory does not grow with the
number of benchmarks; they are joined with pypdf. See benchmarks/reports.py for the timings.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from speeduptest.floats import special_values_expected
from speeduptest.model.results import Results
from speeduptest.output import FileContent, Streamed
from speeduptest.render.json_results import render_json_blocks, render_json_pieces
from speeduptest.runtime.parallel import default_workers, shared_worker_pool

if TYPE_CHECKING:  # the renderers import jinja2: only when a format needs them
    from speeduptest.render.html import GlobalPart

#: Benchmarks per part of the per-benchmark PDF: a part's layout holds some 70 MB, and
#: every part costs a fixed 50 ms and repeats the fonts (joined, about 10 KB).
PART_SIZE = 32
#: Rows per part of the global report's table of every benchmark (about 30 pages, 120 MB),
#: and of the index of the per-benchmark report (about 16 pages, 110 MB). Each part but the
#: last may end in a page that is not full.
GLOBAL_ROWS, INDEX_ROWS = 400, 1000


@dataclass(frozen=True)
class _Task:
    """A report to lay out: the warnings or errors report, a part of the global one, a part
    (benchmarks by index) of the per-benchmark one, or its index (with the page each
    benchmark starts on)."""

    report: str
    indices: tuple[int, ...] = ()
    pages: tuple[tuple[int, int], ...] = ()
    part: GlobalPart | None = None


@dataclass(frozen=True)
class _Run:
    """What every task reads: handed to each worker once."""

    results: Results
    summary_figures: tuple
    html: bool
    pdf: bool


@special_values_expected
def _lay_out(run: _Run, task: _Task):
    """A task's PDF, and the distribution figures it drew for the HTML (data URIs). The
    warnings and errors reports come finished (pages numbered), the parts of the others as
    laid out (with the page each anchor fell on), to be joined."""
    from speeduptest.render.html import Figures, ReportRenderer, anchor, draw_distributions
    from speeduptest.render.pdf import join_and_number, lay_out, lay_out_sections

    uris = draw_distributions(run.results, task.indices) if run.html else {}
    if not run.pdf:
        return task, uris, None
    drawn = Figures(*run.summary_figures, draw_distributions(run.results, task.indices, True))
    renderer = ReportRenderer(run.results, drawn, "pdf")
    if task.report == "benchmarks":
        # One page each: a benchmark that takes more is laid out again, densely.
        return task, uris, lay_out_sections(
            renderer.render_benchmarks_part(task.indices),
            {anchor(index): index for index in task.indices},
            lambda index: renderer.render_benchmarks_part([index], {index}))
    if task.report == "index":
        last = len(run.results.pair.benchmarks) - 1
        return task, uris, lay_out(renderer.render_benchmarks_index(
            dict(task.pages), not task.pages or task.pages[0][0] == 0,
            not task.pages or task.pages[-1][0] == last))
    if task.report == "global":
        return task, uris, lay_out(renderer.render_global_part(task.part))
    # (the warnings report lists whole the messages that densely laid out benchmarks cut)
    return task, uris, join_and_number([lay_out(renderer.render(
        task.report, dense=frozenset(task.indices))).pdf])


def _parts(count: int, workers: int) -> list[_Task]:
    """The benchmarks in parts of at most PART_SIZE, about four per worker for small runs
    so that every worker stays busy to the end."""
    size = max(1, min(PART_SIZE, -(-count // (4 * workers))))
    return [_Task("benchmarks", tuple(range(start, min(start + size, count))))
            for start in range(0, count, size)]


def _global_parts(count: int) -> list[_Task]:
    """The opening of the global report, its table in parts of GLOBAL_ROWS rows, and its
    closing."""
    from speeduptest.render.html import GlobalPart

    return [_Task("global", part=GlobalPart(opening=True)),
            *(_Task("global", part=GlobalPart(rows=(start, start + GLOBAL_ROWS)))
              for start in range(0, count, GLOBAL_ROWS)),
            _Task("global", part=GlobalPart(closing=True))]


def _index_parts(pages: Sequence[tuple[int, int]]) -> list[_Task]:
    """The index of the per-benchmark report in parts of INDEX_ROWS rows: (benchmark index,
    the page its section starts on)."""
    return [_Task("index", pages=tuple(pages[start:start + INDEX_ROWS]))
            for start in range(0, max(len(pages), 1), INDEX_ROWS)]


@special_values_expected
def render_formats(
    results: Results, formats: tuple[str, ...], workers: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, FileContent]:
    """All files of the chosen formats, name → content, for two versions or several. Figures
    are drawn once for both HTML and PDF; jinja2 and weasyprint are only imported when
    needed. ``progress(done, total, what)`` is told as the benchmarks' pages are laid out."""
    files: dict[str, FileContent] = {}
    # results.json first: it is the quickest, and the one CI jobs read. Its blocks are
    # encoded as the report folder writes them (see render_json_blocks).
    if "json" in formats:
        files["results.json"] = Streamed(
            functools.partial(render_json_blocks, results),
            parts=functools.partial(render_json_pieces, results),
            entries=0 if results.several else len(results.pair.benchmarks))
    if ("html" in formats or "pdf" in formats) and results.several:
        from speeduptest.render.html import render_version_reports

        files.update(render_version_reports(results, "pdf" in formats, "html" in formats,
                                            workers=workers, progress=progress))
    elif "html" in formats or "pdf" in formats:
        files.update(_render_reports(results, "html" in formats, "pdf" in formats,
                                     workers or default_workers(), progress))
    if {"md", "csv", "tex"} & set(formats):  # (imported for them only: results.json alone
        # is the common case of a CI job, whose run starts by importing what it needs)
        from speeduptest.render.tables import render_csv, render_latex, render_markdown

        for name, file, render in (("md", "summary.md", render_markdown),
                                   ("csv", "results.csv", render_csv),
                                   ("tex", "table.tex", render_latex)):
            if name in formats:
                files[file] = render(results).encode("utf-8")
    return files


def _render_reports(results: Results, html: bool, pdf: bool, workers: int,
                    progress: Callable[[int, int, str], None] | None) -> dict[str, bytes]:
    from speeduptest.render.html import Figures, ReportRenderer, draw_summary_figures

    run = _Run(results, draw_summary_figures(results), html, pdf)
    parts = _parts(len(results.pair.benchmarks), workers)
    global_parts = _global_parts(len(results.pair.benchmarks)) if pdf else []
    outputs, distributions, index_parts = _lay_out_all(run, parts, global_parts, workers,
                                                       progress)
    files: dict[str, bytes] = {}
    if html:
        drawn = Figures(*run.summary_figures, distributions)
        for name, text in ReportRenderer(results, drawn, "html").render_all().items():
            files[f"{name}.html"] = text.encode("utf-8")
    if pdf:
        from speeduptest.render.pdf import join_and_number

        files["global.pdf"] = join_and_number([outputs[task].pdf for task in global_parts])
        files["errors.pdf"] = outputs[_Task("errors")]
        files["warnings.pdf"] = outputs[_warnings_task(parts, outputs)]
        files["benchmarks.pdf"] = _join_benchmarks(results, index_parts, parts, outputs)
    return files


def _lay_out_all(run: _Run, parts: list[_Task], global_parts: list[_Task], workers: int,
                 progress: Callable[[int, int, str], None] | None):
    """Every task's output, the HTML's distribution figures, and the parts of the index as
    laid out."""
    total = len(run.results.pair.benchmarks)
    # The index needs the page each benchmark starts on: it is laid out with the one page
    # per benchmark that nearly every benchmark takes, and its parts again where some
    # benchmark took more.
    index = _index_parts([(i, i + 1) for i in range(total)])
    tasks = (_schedule([global_parts[0], *index], global_parts[1:-1], parts,
                       [global_parts[-1], _Task("warnings"), _Task("errors")])
             if run.pdf else parts)
    distributions: dict[int, str] = {}
    outputs: dict[_Task, object] = {}
    with shared_worker_pool(workers, run) as parallel_map:
        for task, uris, output in parallel_map(_lay_out, tasks):  # as they finish
            distributions.update(uris)
            outputs[task] = output
            if progress is not None and task.indices:
                progress(sum(len(done.indices) for done in outputs), total, "benchmark pages")
        if run.pdf:
            index = _index_parts(list(_benchmark_pages(parts, outputs)))
            again = [task for task in (*index, _warnings_task(parts, outputs))
                     if task not in outputs]
            outputs.update((task, output) for task, _, output in parallel_map(_lay_out, again))
    return outputs, distributions, index


def _warnings_task(parts: Sequence[_Task], outputs: dict) -> _Task:
    """The warnings report as the benchmarks' pages need it: with the benchmarks laid out
    densely (whose messages it then lists whole), laid out again when there are some."""
    return _Task("warnings", tuple(sorted(index for part in parts
                                          for index in outputs[part].dense)))


def _schedule(first: list[_Task], long: list[_Task], parts: list[_Task],
              last: list[_Task]) -> list[_Task]:
    """The order to start the tasks in: ``first``, then the benchmarks' parts with the
    ``long`` tasks (the global table's parts, several times a part's work) spread over the
    first half of them, then ``last``. No long task comes last to keep one core busy while
    the other waits, and the progress of the benchmarks' pages shows from the start."""
    step = max(1, len(parts) // (2 * len(long) or 1))
    # A part's position → the long task started before it (the extra ones go after).
    slots = dict(zip(range(0, len(parts), step), long, strict=False))
    spread = [task for position, part in enumerate(parts)
              for task in ([slots[position]] if position in slots else []) + [part]]
    return [*first, *spread, *long[len(slots):], *last]


def _benchmark_pages(parts: Sequence[_Task], outputs: dict) -> Iterator[tuple[int, int]]:
    """(benchmark index, the page its section starts on), pages numbered from 1 after the
    index."""
    from speeduptest.render.html import anchor

    first = 1
    for part in parts:
        for index in part.indices:
            yield index, first + outputs[part].anchors[anchor(index)]
        first += outputs[part].pages


def _join_benchmarks(results: Results, index: Sequence[_Task], parts: Sequence[_Task],
                     outputs: dict) -> bytes:
    """The per-benchmark PDF: the index, numbered on its own, then the benchmarks' pages
    numbered from 1, with an outline of bookmarks grouped by call."""
    from speeduptest.render.pdf import join_and_number

    front = sum(outputs[task].pages for task in index)
    pages = {i: page for task in index for i, page in task.pages}
    return join_and_number([outputs[task].pdf for task in (*index, *parts)],
                           _outline(results, pages, front), front)


def _outline(results: Results, pages: dict[int, int], front: int):
    """The bookmarks of the per-benchmark PDF: the index, then one folder per call (in the
    order of the reports: faster, slower, uncertain, unchanged, errors) holding a bookmark
    per benchmark, the largest change first."""
    from speeduptest.render.formatting import CALL_ORDER, by_call, elide
    from speeduptest.render.pdf import Bookmark

    benchmarks = results.pair.benchmarks
    positions = {id(benchmark): i for i, benchmark in enumerate(benchmarks)}
    groups: dict[str, list[Bookmark]] = {}
    for benchmark in by_call(benchmarks):
        call = benchmark.change.call if benchmark.change and benchmark.status == "ok" else "errors"
        page = front + pages[positions[id(benchmark)]] - 1
        groups.setdefault(call, []).append(Bookmark(elide(benchmark.name), page))
    return [Bookmark("Index", 0), *(
        Bookmark(f"{call} ({len(groups[call])})", min(b.page for b in groups[call]),
                 tuple(groups[call]))
        for call in (*CALL_ORDER, "errors") if call in groups)]

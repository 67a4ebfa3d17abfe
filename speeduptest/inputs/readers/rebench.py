"""ReBench data files (``.data``), current and old formats.

Current format (ReBench 1.x, ``rebench/persistence.py``): tab-separated lines under a header
``invocation iteration value unit criterion benchmark executor suite extraArgs cores
inputSize varValue tag machine runId`` (older 1.x releases have fewer columns: they are read
by name). ``#`` lines are comments, except ``# benchmark: ID={json}`` and ``# run_id:
ID={json}`` which give each run's details, among them its warm-up iterations: those are left
out, as ReBench leaves them out of its own statistics. Only the ``total`` criterion is a time
of the whole iteration; other criteria are parts of it. Levels: invocation › iteration.

Old format (ReBench before 1.0, e.g. the are-we-fast-yet data of 2014): ``[timestamp] value
unit criterion benchmark vm suite extra_args warmup cores input_size variable``, without
invocation numbers: the values are taken as independent iterations (and the report says so).

A sample is named by its benchmark; the executor (``vm``) is its version, so
``file.data#Executor/Benchmark`` selects one. When one executor runs a benchmark in several
suites or with several arguments, the name says which: ``Benchmark [suite, args]``.
"""

from __future__ import annotations

import json
import re

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    cut_last_line,
    grouped_sample,
    json_repr,
    named,
    quote,
)
from speeduptest.inputs.readers.units import SECONDS, seconds_per
from speeduptest.inputs.samples import (
    MAX_NAME,
    NUMBER_START,
    number_problem,
    physical_lines,
    shortened,
)
from speeduptest.notices import Notice

_OLD_LINE = re.compile(r"\[[0-9T:\-. ]+\]\t")
_HEADER_START = "invocation\titeration\tvalue\tunit\tcriterion"
_OLD_COLUMNS = ("value", "unit", "criterion", "benchmark", "executor", "suite", "extraArgs",
                "warmup", "cores", "inputSize", "varValue")
_REQUIRED = ("benchmark", "executor")
#: Columns that tell apart runs of one benchmark by one executor, in the order shown.
_QUALIFIERS = ("suite", "extraArgs", "cores", "inputSize", "varValue", "tag", "machine")


def looks_like(text: str) -> bool:
    if text.lstrip()[:1] in NUMBER_START:  # a plain sample's first value (the common case)
        return False
    for line in text[:65536].splitlines():
        if line.startswith("#!") and "rebench" in line:
            return True
        if line.startswith("#") or not line.strip():
            continue
        return line.startswith(_HEADER_START) or bool(_OLD_LINE.match(line))
    return False


_WHOLE = re.compile("[0-9]{1,18}")


def _warmups(metadata: dict[str, dict], line: str, number: int) -> None:
    """Record a ``# benchmark:`` or ``# run_id:`` line's details (ids are per file), or why
    they cannot be read: (line number, details or None, problem or None)."""
    for kind in ("benchmark", "run_id"):
        prefix = f"# {kind}: "
        if line.startswith(prefix):
            key, _, details = line[len(prefix):].partition("=")
            try:
                value, problem = json.loads(details), None
            except RecursionError:
                value, problem = None, "are nested too deeply"
            except ValueError:  # not JSON, or a number of more digits than Python reads
                value, problem = None, "are not valid JSON"
            if value is not None and not isinstance(value, dict):
                value, problem = None, f"{json_repr(value)} are not a JSON object"
            metadata.setdefault(kind, {})[key.strip()] = (number, value, problem)


def _details(metadata: dict[str, dict], kind: str, key: str) -> tuple[dict, str | None]:
    number, value, problem = metadata.get(kind, {}).get(key, (None, {}, None))
    if problem is None:
        return value, None
    what = "run" if kind == "run_id" else kind
    return {}, f"line {number}: the details of {what} {quote(key)} {problem}"


def _warmup_of(metadata: dict[str, dict], run_id: str) -> tuple[int, str | None]:
    """The warm-up iterations of a run, or why they cannot be known (its details are
    unreadable: taking its warm-ups as measurements would be silently wrong)."""
    run, problem = _details(metadata, "run_id", run_id)
    benchmark_id = run.get("benchmark_id")
    benchmark, benchmark_problem = _details(
        metadata, "benchmark",
        str(benchmark_id) if isinstance(benchmark_id, (int, str)) else "")
    if problem or benchmark_problem:
        return 0, problem or benchmark_problem
    details = run.get("runDetails") or benchmark.get("runDetails") or {}
    if not isinstance(details, dict):
        return 0, f"runDetails {json_repr(details)} of run {quote(run_id)} is not a JSON object"
    warmup = details.get("warmup")
    if warmup is None:  # not configured: no warm-up
        return 0, None
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        return 0, f"warmup {json_repr(warmup)} of run {quote(run_id)} is not a whole number ≥ 0"
    return warmup, None


def _names(keys: list[tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    """Each run's benchmark name, qualified by the columns that tell apart the runs of that
    benchmark by one executor; the same columns for every executor, so that versions pair."""
    runs: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for key in keys:
        runs.setdefault(key[:2], []).append(key)
    distinguishing: dict[str, set[int]] = {key[0]: set() for key in keys}
    for (benchmark, _), same in runs.items():
        distinguishing[benchmark] |= {i for i in range(2, len(same[0]))
                                      if len({key[i] for key in same}) > 1}
    names = {}
    for key in keys:
        shown = [key[i] for i in sorted(distinguishing[key[0]]) if key[i]]
        names[key] = key[0] + (f" [{', '.join(shown)}]" if shown else "")
    return names


def parse(text: str, path: str) -> SourceFile:
    columns: list[str] | None = None
    old = False
    metadata: dict[str, dict] = {}
    file_errors = ErrorList(path)  # lines no benchmark can be blamed for
    file_notices: list[Notice] = []
    lines = physical_lines(text)
    last_line = len(lines)
    complete = text.endswith(("\n", "\r"))
    rows: dict[tuple[str, ...], list] = {}
    errors: dict[tuple[str, ...], ErrorList] = {}
    units: dict[tuple[str, ...], set[str]] = {}
    warm: dict[tuple[str, ...], int] = {}
    for number, line in enumerate(lines, start=1):
        if line.startswith("#"):
            _warmups(metadata, line, number)
            continue
        if not line.strip():
            continue
        if line.startswith(_HEADER_START):
            columns, old = line.split("\t"), False
            missing = [name for name in _REQUIRED if name not in columns]
            if missing:
                return SourceFile(path, "ReBench", (), problem=(
                    f"line {number}: the header has no column {', '.join(missing)} (ReBench "
                    f"1.x writes {_HEADER_START.replace(chr(9), ' ')} benchmark executor …)"))
            continue
        cells = line.split("\t")
        if _OLD_LINE.match(line):
            columns, old, cells = list(_OLD_COLUMNS), True, cells[1:]
        if columns is None:
            file_errors.add("a data line before the header line "
                            f"({_HEADER_START.replace(chr(9), ' ')} …)", number)
            continue
        record = dict(zip(columns, cells, strict=False))
        # Both names are complete when the cell after the later of them is there.
        named_cells = max(columns.index("benchmark"), columns.index("executor")) + 2
        executor = shortened(record.get("executor", ""), MAX_NAME)
        if len(cells) < len(columns) - 1 and number == last_line and not complete:
            # Even its benchmark name may be cut: it is a warning for every benchmark.
            whose = (f"benchmark {named(record['benchmark'])} ({executor})"
                     if len(cells) >= named_cells else None)
            file_notices.append(cut_last_line(path, number, whose))
            continue
        if len(cells) < named_cells or not record.get("benchmark"):
            file_errors.add(f"{len(cells)} of {len(columns)} columns, no benchmark and "
                            "executor: the line is cut", number)
            continue
        if record.get("criterion") != "total":
            continue
        key = (record["benchmark"], record["executor"],
               *(record.get(column, "") for column in _QUALIFIERS))
        rows.setdefault(key, [])
        errors_of = errors.setdefault(key, ErrorList(path))
        where = f"benchmark {named(record['benchmark'])} ({executor})"
        if len(cells) < len(columns) - 1:  # the last columns may be empty and left out
            errors_of.add(f"{where}: {len(cells)} of {len(columns)} columns", number)
            continue
        value, problem = number_problem(record.get("value", ""))
        unit = record.get("unit", "")
        factor = seconds_per(unit)
        if problem is None and factor is None:
            problem = f"unit {quote(unit)} is not a unit of time"
        if problem is None:
            value *= factor
            if not 0 < value < float("inf"):
                problem = f"{quote(record['value'])} {quote(unit)} is out of range in seconds"
        if problem is None and not old:
            if _WHOLE.fullmatch(record["invocation"]) and _WHOLE.fullmatch(record["iteration"]):
                invocation, iteration = int(record["invocation"]), int(record["iteration"])
            else:
                problem = (f"invocation {quote(record['invocation'])} and iteration "
                           f"{quote(record['iteration'])} must be whole numbers")
        warmup = 0
        if problem is None and not old:
            warmup, problem = _warmup_of(metadata, record.get("runId", ""))
        if problem is not None:
            errors_of.add(f"{where}: {problem}", number)
            continue
        units.setdefault(key, set()).add(unit)
        if old:
            rows[key].append(((str(len(rows[key]) + 1),), value))
        elif iteration <= warmup:
            warm[key] = warm.get(key, 0) + 1
        else:
            rows[key].append(((str(invocation), str(iteration)), value))
    names = _names(list(rows))
    samples = []
    levels = ["iteration"] if old else ["invocation", "iteration"]
    for key, measurements in rows.items():
        notes = [f"units: {', '.join(sorted(units.get(key, ())))}"]
        if key in warm:
            notes.append(f"{warm[key]} warm-up iterations left out")
        if old:
            notes.append("old ReBench format: no invocation numbers, the values are taken "
                         "as independent iterations")
        samples.append(grouped_sample(path, names[key], key[1], SECONDS, measurements, levels,
                                      errors[key], notes))
    if not samples and not file_errors and columns is None:
        return SourceFile(path, "ReBench", (), problem="holds no ReBench data lines")
    return SourceFile(path, "ReBench", tuple(samples), errors=file_errors.result(),
                      notices=tuple(file_notices))

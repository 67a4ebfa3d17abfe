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

import contextlib
import json
import re

from ..notices import InputError, Notice
from ..samples import number_problem
from .common import ErrorList, SourceFile, cut_last_line, grouped_sample
from .units import SECONDS, seconds_per

_OLD_LINE = re.compile(r"\[[0-9T:\-. ]+\]\t")
_HEADER_START = "invocation\titeration\tvalue\tunit\tcriterion"
_OLD_COLUMNS = ("value", "unit", "criterion", "benchmark", "executor", "suite", "extraArgs",
                "warmup", "cores", "inputSize", "varValue")
_REQUIRED = ("benchmark", "executor")
#: Columns that tell apart runs of one benchmark by one executor, in the order shown.
_QUALIFIERS = ("suite", "extraArgs", "cores", "inputSize", "varValue", "tag", "machine")


def looks_like(text: str) -> bool:
    for line in text[:65536].splitlines():
        if line.startswith("#!") and "rebench" in line:
            return True
        if line.startswith("#") or not line.strip():
            continue
        return line.startswith(_HEADER_START) or bool(_OLD_LINE.match(line))
    return False


def _warmups(metadata: dict[str, dict], line: str) -> None:
    """Record a ``# benchmark:`` or ``# run_id:`` line's details (ids are per file)."""
    for kind in ("benchmark", "run_id"):
        prefix = f"# {kind}: "
        if line.startswith(prefix):
            key, _, details = line[len(prefix):].partition("=")
            # Details only tell warm-ups apart; the data lines are what counts.
            with contextlib.suppress(json.JSONDecodeError):
                metadata.setdefault(kind, {})[key.strip()] = json.loads(details)


def _warmup_of(metadata: dict[str, dict], run_id: str) -> int:
    run = metadata.get("run_id", {}).get(run_id, {})
    benchmark = metadata.get("benchmark", {}).get(str(run.get("benchmark_id")), {})
    details = run.get("runDetails") or benchmark.get("runDetails") or {}
    warmup = details.get("warmup") if isinstance(details, dict) else None
    return warmup if isinstance(warmup, int) and warmup > 0 else 0


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
    file_errors: list[InputError] = []
    file_notices: list[Notice] = []
    last_line = len(text.splitlines())
    rows: dict[tuple[str, ...], list] = {}
    errors: dict[tuple[str, ...], ErrorList] = {}
    units: dict[tuple[str, ...], set[str]] = {}
    warm: dict[tuple[str, ...], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            _warmups(metadata, line)
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
            file_errors.append(InputError(path, number, "a data line before the header line "
                                          f"({_HEADER_START.replace(chr(9), ' ')} …)"))
            continue
        record = dict(zip(columns, cells, strict=False))
        if len(cells) < len(columns) - 1 and number == last_line and not text.endswith("\n"):
            # Even its benchmark name may be cut: it is a warning for every benchmark.
            named = len(cells) > columns.index("executor") + 1  # both cells complete
            whose = f"benchmark '{record['benchmark']}' ({record['executor']})" if named else None
            file_notices.append(cut_last_line(path, number, whose))
            continue
        if len(cells) < columns.index("benchmark") + 3 or not record.get("benchmark"):
            file_errors.append(InputError(path, number, (
                f"{len(cells)} of {len(columns)} columns, no benchmark and executor: the "
                "line is cut")))
            continue
        if record.get("criterion") != "total":
            continue
        key = (record["benchmark"], record["executor"],
               *(record.get(column, "") for column in _QUALIFIERS))
        rows.setdefault(key, [])
        errors_of = errors.setdefault(key, ErrorList(path))
        where = f"benchmark '{record['benchmark']}' ({record['executor']})"
        if len(cells) < len(columns) - 1:  # the last columns may be empty and left out
            errors_of.add(f"{where}: {len(cells)} of {len(columns)} columns", number)
            continue
        value, problem = number_problem(record.get("value", ""))
        factor = seconds_per(record.get("unit", ""))
        if problem is None and factor is None:
            problem = f"unit '{record.get('unit', '')}' is not a unit of time"
        if problem is None and not old:
            try:
                invocation, iteration = int(record["invocation"]), int(record["iteration"])
            except ValueError:
                problem = "invocation and iteration must be whole numbers"
        if problem is not None:
            errors_of.add(f"{where}: {problem}", number)
            continue
        units.setdefault(key, set()).add(record["unit"])
        if old:
            rows[key].append(((str(len(rows[key]) + 1),), value * factor))
        elif iteration <= _warmup_of(metadata, record.get("runId", "")):
            warm[key] = warm.get(key, 0) + 1
        else:
            rows[key].append(((str(invocation), str(iteration)), value * factor))
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
    return SourceFile(path, "ReBench", tuple(samples), errors=tuple(file_errors),
                      notices=tuple(file_notices))

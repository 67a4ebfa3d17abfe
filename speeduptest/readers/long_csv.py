"""Long CSV files holding many benchmarks: ``benchmark,version,…levels…,value``.

One row per measurement. ``benchmark`` names the benchmark and the optional ``version`` which
program it measured (e.g. ``baseline``/``optimized``); an optional ``unit`` column gives each
row's time unit (the values are then converted to seconds; without it they are used as they
are). Every other column is a grouping level, highest first, exactly as in a hierarchical
``.csv`` sample (``invocation,iteration``).
"""

from __future__ import annotations

from ..notices import InputError
from ..samples import csv_rows, number_problem
from .common import ErrorList, SourceFile, cut_last_line, grouped_sample
from .units import SECONDS, seconds_per

LABELS = ("benchmark", "version", "unit", "value")


def looks_like(text: str) -> bool:
    rows = csv_rows(text[:4096].rsplit("\n", 1)[0] if len(text) > 4096 else text)
    header = rows[0][1] if rows and isinstance(rows[0][1], list) else []
    return {"benchmark", "value"} <= {cell.lower() for cell in header}


def parse(text: str, path: str) -> SourceFile:
    rows = csv_rows(text)
    (header_line, header), body = rows[0], rows[1:]
    header = [cell.lower() for cell in header]  # a list: looks_like() parsed it
    column = {name: header.index(name) for name in LABELS if name in header}
    levels = [name for name in header if name not in LABELS]
    level_columns = [header.index(name) for name in levels]
    file_errors: list[InputError] = []
    file_notices = []
    last_line = len(text.splitlines())
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        return SourceFile(path, "long CSV", (), problem=(
            f"line {header_line}: column(s) {', '.join(duplicated)} appear twice"))
    groups: dict[tuple[str, str | None], list] = {}
    errors: dict[tuple[str, str | None], ErrorList] = {}
    units: dict[tuple[str, str | None], set[str]] = {}
    for line, cells in body:
        if isinstance(cells, str):  # not valid CSV: its benchmark is unknown
            file_errors.append(InputError(path, line, cells))
            continue
        if len(cells) < len(header) and line == last_line and not text.endswith("\n"):
            file_notices.append(cut_last_line(path, line))
            continue
        if len(cells) != len(header):
            file_errors.append(InputError(path, line, f"{len(cells)} cells, the header has "
                                          f"{len(header)}"))
            continue
        name = cells[column["benchmark"]]
        if not name:
            file_errors.append(InputError(path, line, "the benchmark name is empty"))
            continue
        key = (name, cells[column["version"]] if "version" in column else None)
        groups.setdefault(key, [])
        errors_of = errors.setdefault(key, ErrorList(path))
        value, problem = number_problem(cells[column["value"]])
        keys = tuple(cells[i] for i in level_columns)
        factor = 1.0
        if problem is None and any(k == "" for k in keys):
            problem = "a grouping cell is empty"
        if problem is None and "unit" in column:
            unit = cells[column["unit"]]
            units.setdefault(key, set()).add(unit)
            factor = seconds_per(unit)
            if factor is None:
                problem = f"unit '{unit}' is not a unit of time"
        if problem is not None:
            errors_of.add(f"benchmark '{key[0]}'{f' ({key[1]})' if key[1] else ''}: {problem}",
                          line)
            continue
        groups[key].append((keys, value * factor))
    unit = SECONDS if "unit" in column else None
    samples = [grouped_sample(path, key[0], key[1], unit, measurements, levels, errors[key],
                              [f"units: {', '.join(sorted(units[key]))}"] if key in units else [])
               for key, measurements in groups.items()]
    return SourceFile(path, "long CSV", tuple(samples), errors=tuple(file_errors),
                      notices=tuple(file_notices))

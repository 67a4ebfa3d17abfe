"""Long CSV files holding many benchmarks: ``benchmark,version,…levels…,value``.

One row per measurement. ``benchmark`` names the benchmark and the optional ``version`` which
program it measured (e.g. ``baseline``/``optimized``); an optional ``unit`` column gives each
row's time unit (the values are then converted to seconds; without it they are used as they
are). Every other column is a grouping level, highest first, exactly as in a hierarchical
``.csv`` sample (``invocation,iteration``).
"""

from __future__ import annotations

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    cut_last_line,
    grouped_sample,
    named,
    quote,
    too_many_levels,
)
from speeduptest.inputs.readers.units import SECONDS, seconds_per
from speeduptest.inputs.samples import (
    MAX_NAME,
    csv_rows,
    header_problem,
    level_name,
    number_problem,
    physical_lines,
    shortened,
)

LABELS = ("benchmark", "version", "unit", "value")


def looks_like(text: str) -> bool:
    rows = csv_rows(text[:4096].rsplit("\n", 1)[0] if len(text) > 4096 else text)
    header = rows[0][1] if rows and isinstance(rows[0][1], list) else []
    return {"benchmark", "value"} <= {cell.lower() for cell in header}


def parse(text: str, path: str) -> SourceFile:
    rows = csv_rows(text)
    (header_line, header), body = rows[0], rows[1:]
    if isinstance(header, str):  # looks_like() read only the start of a long header
        return SourceFile(path, "long CSV", (), problem=f"line {header_line}: {header}")
    header = [cell.lower() for cell in header]
    problem = header_problem(header, ("benchmark", "value"), "a long CSV")
    if problem is not None:
        return SourceFile(path, "long CSV", (), problem=f"line {header_line}: {problem}")
    column = {name: header.index(name) for name in LABELS if name in header}
    level_columns = [i for i, name in enumerate(header) if name not in LABELS]
    problem = too_many_levels(len(level_columns))
    if problem is not None:
        return SourceFile(path, "long CSV", (), problem=f"line {header_line}: {problem}")
    levels = [level_name(header[i]) for i in level_columns]
    file_errors = ErrorList(path)  # lines no benchmark can be blamed for
    file_notices = []
    last_line = len(physical_lines(text))
    complete = text.endswith(("\n", "\r"))
    groups: dict[tuple[str, str | None], list] = {}
    errors: dict[tuple[str, str | None], ErrorList] = {}
    units: dict[tuple[str, str | None], set[str]] = {}
    for line, cells in body:
        if isinstance(cells, str):  # not valid CSV: its benchmark is unknown
            file_errors.add(cells, line)
            continue
        if len(cells) < len(header) and line == last_line and not complete:
            file_notices.append(cut_last_line(path, line))
            continue
        if len(cells) != len(header):
            file_errors.add(f"{len(cells)} cells, the header has {len(header)}", line)
            continue
        name = cells[column["benchmark"]]
        if not name:
            file_errors.add("the benchmark name is empty", line)
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
            factor = seconds_per(unit)
            if factor is None:
                problem = f"unit {quote(unit)} is not a unit of time"
            elif not 0 < value * factor < float("inf"):
                problem = (f"{quote(cells[column['value']])} {quote(unit)} is out of range in "
                           "seconds")
            else:
                units.setdefault(key, set()).add(unit)
        if problem is not None:
            version = f" ({shortened(key[1], MAX_NAME)})" if key[1] else ""
            errors_of.add(f"benchmark {named(key[0])}{version}: {problem}", line)
            continue
        groups[key].append((keys, value * factor))
    unit = SECONDS if "unit" in column else None
    samples = [grouped_sample(path, key[0], key[1], unit, measurements, levels, errors[key],
                              [f"units: {', '.join(sorted(units[key]))}"] if key in units else [])
               for key, measurements in groups.items()]
    return SourceFile(path, "long CSV", tuple(samples), errors=file_errors.result(),
                      notices=tuple(file_notices))

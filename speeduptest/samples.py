"""Reading one sample file.

- A plain text file: execution times separated by white space; ``#`` starts a comment. Each
  value is one independent measurement (a one-level sample).
- A file ending in ``.csv``: a header, a ``value`` column with the measurements, and every
  other column a grouping level, highest first (``build,invocation,value``): rows that share
  all grouping values are repeated measurements of the lowest level. A last grouping column
  whose groups all hold a single row (``invocation,iteration,value``) only numbers the
  measurements, so it names the measurement level instead of adding one.

Every problem is reported with the file and line where it is, and reading goes on, so a user
sees all the bad values of a file at once.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re

import numpy as np

from .hierarchy import Hierarchy
from .notices import InputError, Notice

#: The name of the measurement level when the file does not give one.
MEASUREMENT_LEVEL = "iteration"

# A plain decimal number; Python's float() would also take "1_000", "nan" and "infinity".
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
#: Token errors listed per file before the rest are only counted.
MAX_ERRORS_PER_FILE = 10


@dataclasses.dataclass(frozen=True)
class Sample:
    """One side of a benchmark: the values read, and the problems met (located in the file).

    A sample file holds one sample; a benchmark tool's result file holds one per benchmark
    (``name``), and some hold several versions of each (``variant``: a ReBench executor, the
    ``version`` column of a long CSV).
    """

    path: str
    data: Hierarchy | None
    errors: tuple[InputError, ...] = ()
    problem: str | None = None  # a problem with the whole file: unreadable, not text
    sha256: str | None = None
    name: str | None = None
    variant: str | None = None
    unit: str | None = None  # "s" when the file states its unit (values are then in seconds)
    notes: tuple[str, ...] = ()  # what the reader did with the file, e.g. warm-ups dropped
    notices: tuple[Notice, ...] = ()  # warnings about how the file's values are used

    @property
    def label(self) -> str:
        """How a config names this sample in its file: ``name``, ``variant/name`` or ''."""
        return "/".join(part for part in (self.variant, self.name) if part)

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.errors

    @property
    def top_units(self) -> int:
        """The number of independent observations (top-level units)."""
        return 0 if self.data is None else self.data.top_level_means.size


def number_problem(token: str) -> tuple[float | None, str | None]:
    """Parse one token: (value, None) or (None, what is wrong with it)."""
    if token.lower() in _NON_FINITE:
        return None, f"'{token}' is not a finite number"
    if not _NUMBER.fullmatch(token):
        hint = "; separate values with white space" if "," in token or ";" in token else ""
        return None, f"'{token}' is not a number{hint}"
    value = float(token)
    if not math.isfinite(value):
        return None, f"'{token}' overflows to infinity"
    if value <= 0:
        return None, f"{token} is not a valid execution time (it must be > 0)"
    return value, None


def parse_sample_text(text: str, path: str) -> Sample:
    """Parse the text of a sample file; ``path`` is only used to locate errors."""
    values: list[float] = []
    errors: list[InputError] = []
    skipped = 0
    for line_number, line in enumerate(text.splitlines(), start=1):
        for token in line.split("#", 1)[0].split():
            value, problem = number_problem(token)
            if problem is None:
                values.append(value)
            elif len(errors) < MAX_ERRORS_PER_FILE:
                errors.append(InputError(path, line_number, problem))
            else:
                skipped += 1
    if skipped:
        errors.append(InputError(path, None, f"and {skipped} more bad values"))
    data = Hierarchy.flat(values) if values else None
    return Sample(path, data, tuple(errors))


def csv_rows(text: str) -> list[tuple[int, list[str] | str]]:
    """The rows of a CSV text with their physical line numbers; blank and ``#`` lines skipped.

    One row per line (a cell cannot hold a line break); a line that is not valid CSV (an
    unclosed quote) gives the reason as a string instead of its cells.
    """
    rows: list[tuple[int, list[str] | str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            cells = next(csv.reader([line], strict=True))
        except csv.Error as error:
            rows.append((number, f"not valid CSV ({error})"))
            continue
        rows.append((number, [cell.strip() for cell in cells]))
    return rows


def hierarchy_from_rows(rows: list[tuple[tuple[str, ...], float]], levels: list[str]) -> Hierarchy:
    """Group measurements by their grouping keys (one key per level, highest first)."""
    tree: dict = {}
    sizes: dict[tuple[str, ...], int] = {}
    for keys, value in rows:
        node = tree
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node.setdefault(keys[-1] if keys else "", []).append(value)
        sizes[keys] = sizes.get(keys, 0) + 1
    levels = list(levels)
    measurement = MEASUREMENT_LEVEL
    if levels and all(size == 1 for size in sizes.values()):
        measurement = levels.pop()  # it numbers the measurements: not a level of its own
        tree = _collapse_last(tree, len(levels))
    if not levels:
        flat = [v for group in tree.values() for v in group] if isinstance(tree, dict) else tree
        return Hierarchy(np.asarray(flat, dtype=float), (measurement,))
    return Hierarchy(_nested(tree), (*levels, measurement))


def parse_sample_csv(text: str, path: str) -> Sample:
    """Parse a hierarchical sample (CSV with a ``value`` column and grouping columns)."""
    rows = csv_rows(text)
    if not rows:
        return Sample(path, None)
    (header_line, header), body = rows[0], rows[1:]
    if isinstance(header, str):
        return Sample(path, None, (InputError(path, header_line, header),))
    header = [cell.lower() for cell in header]
    if "value" not in header:
        return Sample(path, None, (InputError(
            path, header_line,
            f"a .csv sample needs a 'value' column (found: {', '.join(header)})"),))
    value_column = header.index("value")
    levels = [name for i, name in enumerate(header) if i != value_column]
    errors: list[InputError] = []
    measurements = []
    for line_number, cells in body:
        if isinstance(cells, str):
            errors.append(InputError(path, line_number, cells))
            continue
        if len(cells) != len(header):
            errors.append(InputError(path, line_number, f"{len(cells)} cells, the header has "
                                     f"{len(header)}"))
            continue
        value, problem = number_problem(cells[value_column])
        keys = tuple(cell for i, cell in enumerate(cells) if i != value_column)
        if problem is None and any(key == "" for key in keys):
            problem = "a grouping cell is empty"
        if problem is not None:
            if len(errors) < MAX_ERRORS_PER_FILE:
                errors.append(InputError(path, line_number, problem))
            continue
        measurements.append((keys, value))
    if errors or not measurements:
        return Sample(path, None, tuple(errors))
    return Sample(path, hierarchy_from_rows(measurements, levels))


def _collapse_last(tree: dict, depth: int):
    """Merge the single-value groups of the last grouping column into their parents."""
    if depth == 0:
        return [value for group in tree.values() for value in group]
    return {key: _collapse_last(child, depth - 1) for key, child in tree.items()}


def _nested(node):
    if isinstance(node, list):
        return np.asarray(node, dtype=float)
    return [_nested(child) for child in node.values()]

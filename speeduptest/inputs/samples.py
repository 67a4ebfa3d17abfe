"""Reading one sample file.

- A plain text file: execution times separated by white space; ``#`` starts a comment. Each
  value is one independent measurement (a one-level sample).
- A file ending in ``.csv``: a header, a ``value`` column with the measurements, and every
  other column a grouping level, highest first (``build,invocation,value``): rows that share
  all grouping values are repeated measurements of the lowest level. A last grouping column
  whose groups all hold a single row (``invocation,iteration,value``) only numbers the
  measurements, so it names the measurement level instead of adding one.

Every problem is reported with the file and line where it is, and reading goes on, so a user
sees the bad values of a file at once (the first few listed, the rest counted). Input is
untrusted: messages quote at most ``MAX_QUOTE`` characters of a bad token, with control
characters shown as escapes, so that no file can flood a report or the terminal.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re

import numpy as np

from speeduptest.notices import InputError, Notice
from speeduptest.stats.hierarchy import Hierarchy

#: The name of the measurement level when the file does not give one.
MEASUREMENT_LEVEL = "iteration"

# A plain decimal number in ASCII digits; Python's float() would also take "1_000", "nan",
# "infinity" and other scripts' digits. Written so that a failing match is linear in the
# token's length (no nested repetition to backtrack through).
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# A file of nothing but digits, signs, points, exponents and ASCII white space is read at once
# (the common case: 10⁶ values in 0.3 s) when every token is a number; any other file, or a
# token that is not a number, is read token by token, with each problem located.
_NOT_PLAIN = re.compile(r"[^0-9.eE+\- \t\n\r\f\v]")
#: How a text of numbers starts (after white space): neither JSON, nor a comment, a header
#: or the log line of a benchmark tool's file.
NUMBER_START = frozenset("0123456789.+-")
NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
#: Problems listed per file (or per benchmark of a result file) before the rest are counted.
MAX_LISTED = 3
#: Characters of a bad token quoted in a message; names are quoted up to ``MAX_NAME``.
MAX_QUOTE = 40
MAX_NAME = 80
# Characters that would break a line, a terminal or an encoder when shown: C0 and C1 controls,
# lone surrogates (from JSON escapes), line and paragraph separators, bidirectional overrides.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")
_SPACING = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029")
_LINE_END = re.compile(r"\r\n|\r|\n")


def visible(text: str) -> str:
    """``text`` with every character that cannot be shown safely replaced: tabs and line
    breaks by a space, other control characters and lone surrogates by U+FFFD (�)."""
    if text.isascii() and text.isprintable():
        return text
    return _UNPRINTABLE.sub(lambda m: " " if m.group() in _SPACING else "\ufffd", text)


def shortened(text: str, limit: int = MAX_QUOTE) -> str:
    """``text`` for a message: at most ``limit`` characters (cut with "…"), control characters
    and lone surrogates as escapes (``\\x1b``, ``\\ud800``)."""
    shown = _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], text[: limit + 1])
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def quote(text: str, limit: int = MAX_QUOTE) -> str:
    """``'text'``, shortened, with the length given when it was cut."""
    length = f" ({len(text):,} characters)" if len(text) > limit else ""
    return f"'{shortened(text, limit)}'{length}"


def physical_lines(text: str) -> list[str]:
    """The lines of ``text`` as an editor numbers them: only CR, LF and CRLF end a line
    (``str.splitlines`` would also split at form feeds, U+0085 and U+2028)."""
    lines = _LINE_END.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def decimal(cell: str) -> float | None:
    """A plain decimal number (ASCII digits, no underscores), or None."""
    return float(cell) if _NUMBER.fullmatch(cell) else None


class ErrorList:
    """Problems of one file or benchmark: the first ``MAX_LISTED`` listed, the rest counted."""

    def __init__(self, path: str, what: str = "problems") -> None:
        self.path = path
        self.what = what
        self.errors: list[InputError] = []
        self.skipped = 0

    def add(self, message: str, line: int | None = None, path: str | None = None) -> None:
        """``path``: the file of this problem when it is not the list's (a file of a folder
        read as one source)."""
        if len(self.errors) < MAX_LISTED:
            self.errors.append(InputError(self.path if path is None else path, line, message))
        else:
            self.skipped += 1

    def result(self) -> tuple[InputError, ...]:
        more = [InputError(self.path, None, f"and {self.skipped} more {self.what}")
                ] if self.skipped else []
        return tuple(self.errors + more)

    def __bool__(self) -> bool:
        return bool(self.errors)


@dataclasses.dataclass
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
    if token.lower() in NON_FINITE:
        return None, f"{quote(token)} is not a finite number"
    value = decimal(token)
    if value is None:
        hint = "; separate values with white space" if "," in token or ";" in token else ""
        return None, f"{quote(token)} is not a number{hint}"
    if not math.isfinite(value):
        return None, f"{quote(token)} overflows to infinity"
    shown = shortened(token)
    mantissa = re.split("[eE]", token, maxsplit=1)[0]
    if value == 0 and not token.startswith("-") and any(c in mantissa for c in "123456789"):
        return None, f"{shown} is too small for a float (it rounds to 0; it must be > 0)"
    if value <= 0:
        return None, f"{shown} is not a valid execution time (it must be > 0)"
    return value, None


def plain_values(text: str) -> np.ndarray | None:
    """The values of a sample text made only of numbers, all finite and > 0 (the common
    case, read at once); None when anything needs the token-by-token reading of
    :func:`parse_sample_text` (a comment, a bad value, nothing)."""
    if _NOT_PLAIN.search(text):
        return None
    tokens = text.split()
    try:  # float() takes exactly the decimal numbers made of these characters
        plain = np.fromiter(map(float, tokens), float, len(tokens))
    except ValueError:
        return None
    # Negative values, and values that overflow or round to 0, are reported by the
    # token-by-token path. (The ufuncs' reduce: ndarray.min's wrapper costs more than the
    # reduction of a 31-value file.)
    if plain.size and np.minimum.reduce(plain) > 0 and np.maximum.reduce(plain) < math.inf:
        return plain
    return None


def parse_sample_text(text: str, path: str) -> Sample:
    """Parse the text of a sample file; ``path`` is only used to locate errors."""
    plain = plain_values(text)
    if plain is not None:
        return Sample(path, Hierarchy.flat(plain))
    values: list[float] = []
    errors = ErrorList(path, "bad values")
    for line_number, line in enumerate(physical_lines(text), start=1):
        for token in line.split("#", 1)[0].split():
            value, problem = number_problem(token)
            if problem is None:
                values.append(value)
            else:
                errors.add(problem, line_number)
    data = Hierarchy.flat(values) if values else None
    return Sample(path, data, errors.result())


def csv_rows(text: str, limit: int | None = None) -> list[tuple[int, list[str] | str]]:
    """The rows of a CSV text with their physical line numbers; blank and ``#`` lines skipped
    (the first ``limit`` rows only, when given).

    One row per line (a cell cannot hold a line break); a line that is not valid CSV (an
    unclosed quote) gives the reason as a string instead of its cells.
    """
    rows: list[tuple[int, list[str] | str]] = []
    longest = csv.field_size_limit()
    for number, line in enumerate(physical_lines(text), start=1):
        if len(rows) == limit:
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if '"' not in line and "\0" not in line and len(line) <= longest:
            # No quote, no NUL, no field over the limit: the reader's cells are the text
            # between the commas (a line holds no line break). (10,000 rows: 23 -> 9 ms)
            rows.append((number, [cell.strip() for cell in line.split(",")]))
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
    problem = header_problem(header, ("value",), "a .csv sample")
    if problem is not None:
        return Sample(path, None, (InputError(path, header_line, problem),))
    value_column = header.index("value")
    levels = [level_name(name) for i, name in enumerate(header) if i != value_column]
    errors = ErrorList(path)
    measurements = []
    for line_number, cells in body:
        if isinstance(cells, str):
            errors.add(cells, line_number)
            continue
        if len(cells) != len(header):
            errors.add(f"{len(cells)} cells, the header has {len(header)}", line_number)
            continue
        value, problem = number_problem(cells[value_column])
        keys = tuple(cell for i, cell in enumerate(cells) if i != value_column)
        if problem is None and any(key == "" for key in keys):
            problem = "a grouping cell is empty"
        if problem is not None:
            errors.add(problem, line_number)
            continue
        measurements.append((keys, value))
    if errors or not measurements:
        return Sample(path, None, errors.result())
    return Sample(path, hierarchy_from_rows(measurements, levels))


def listed(cells: list[str], limit: int = 8) -> str:
    """Cells of a header for a message: a few, each quoted short."""
    more = f", … ({len(cells) - limit} more)" if len(cells) > limit else ""
    return ", ".join(quote(cell) for cell in cells[:limit]) + more


def header_problem(header: list[str], required: tuple[str, ...], what: str) -> str | None:
    """Why a CSV header (lower case) cannot be used: a required column missing, a column
    named twice (which one would hold the values?) or a column without a name."""
    missing = [name for name in required if name not in header]
    if missing:
        columns = " and ".join(f"'{name}'" for name in missing)
        return f"{what} needs a {columns} column (found: {listed(header)})"
    duplicated = sorted({name for name in header if header.count(name) > 1})
    if duplicated:
        return f"column(s) {listed(duplicated)} appear more than once in the header"
    if "" in header:
        return f"column {header.index('') + 1} of the header has no name"
    return None


def level_name(cell: str) -> str:
    """A grouping column's name as a level name: printable and short."""
    name = visible(cell)
    return name if len(name) <= MAX_QUOTE else name[: MAX_QUOTE - 1] + "…"


def _collapse_last(tree: dict, depth: int):
    """Merge the single-value groups of the last grouping column into their parents."""
    if depth == 0:
        return [value for group in tree.values() for value in group]
    return {key: _collapse_last(child, depth - 1) for key, child in tree.items()}


def _nested(node):
    if isinstance(node, list):
        return np.asarray(node, dtype=float)
    return [_nested(child) for child in node.values()]

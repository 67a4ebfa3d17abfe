"""Reading the config CSV: one row per benchmark (SPEC §3).

Problems with one row become errors of that benchmark (with file and line) and the other rows
are still read (each line is read as CSV on its own, so that an unclosed quote cannot swallow
the next row); problems that leave nothing to analyse raise :class:`ConfigError`. Messages
quote cells short, never whole lines.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from . import readers
from .change import SMALLEST_RISK
from .floats import complement
from .notices import InputError, Notice
from .prefetch import INVALID_NAME, Fetch, Found, prefetching, stat_found
from .readers import plain_digest, split_reference
from .samples import MAX_NAME, NON_FINITE, csv_rows, decimal, listed, quote, visible

REQUIRED_COLUMNS = ("benchmark", "initial", "optimized")
OPTIONAL_COLUMNS = ("weight", "confidence")


class ConfigError(Exception):
    """The config cannot be used at all (exit status 2)."""


@dataclass
class BenchmarkSpec:
    """One config row: a benchmark to analyse, or the errors that prevent it."""

    name: str
    line: int
    initial: Path | None
    optimized: Path | None
    initial_display: str | None
    optimized_display: str | None
    weight: float | None
    alpha: float | None
    errors: tuple[InputError, ...] = ()
    # The benchmark selected inside a result file (``path#name``); None: the whole file.
    initial_selection: str | None = None
    optimized_selection: str | None = None
    # What identifies each file (device, inode) when the config found it; None: not looked up.
    initial_key: tuple[int, int] | None = None
    optimized_key: tuple[int, int] | None = None


@dataclass(frozen=True)
class Config:
    path: Path
    benchmarks: tuple[BenchmarkSpec, ...]
    notices: tuple[Notice, ...] = ()


def _display(path: Path | str, selection: str | None) -> str:
    """How to show a sample: as the user can find it from the current folder."""
    shown = os.path.normpath(path)
    return visible(f"{shown}#{selection}" if selection else shown)


def _parse_weight(cell: str) -> tuple[float | None, str | None]:
    if cell == "":
        return 1.0, None
    weight = decimal(cell)
    if weight is None and cell.lower() not in NON_FINITE:
        return None, f"weight {quote(cell)} is not a number"
    if weight is None or not math.isfinite(weight) or weight <= 0:
        return None, f"weight {quote(cell)} must be a finite number > 0"
    return weight, None


def _parse_alpha(cell: str, default_alpha: float) -> tuple[float | None, str | None]:
    if cell == "":
        return default_alpha, None
    confidence = decimal(cell)
    if confidence is None and cell.lower() not in NON_FINITE:
        return None, f"confidence {quote(cell)} is not a number"
    if confidence is None or not 0 < confidence < 1:
        hint = (f" (write {confidence / 100:g} for {cell}%)"
                if confidence is not None and 1 < confidence < 100 else "")
        return None, f"confidence {quote(cell)} must be strictly between 0 and 1{hint}"
    if confidence > 1 - SMALLEST_RISK:  # 1 − α must stay below 1, quantiles finite
        return None, (f"confidence {quote(cell)} is too close to 1: at most "
                      f"{1 - SMALLEST_RISK:.10f}")
    return complement(confidence), None  # 1 − confidence, without binary noise


def _path_status(found: Found) -> tuple[str | None, tuple[int, int] | None]:
    """Why the path of a sample file cannot even be looked at, from what its stat ``found``
    (it could not be resolved to read it once): a symbolic link loop, or a name too long;
    other problems (not found, not readable) are found when the file is read. And when it
    exists, what identifies the file (:func:`speeduptest.analysis.file_key`)."""
    if isinstance(found, tuple):
        return None, found
    if found in (errno.ELOOP, errno.ENAMETOOLONG):
        return f"cannot be read ({os.strerror(found)})", None
    if found == INVALID_NAME:
        return "cannot be read (invalid file name)", None
    return None, None


def _path_problem(file: Path) -> str | None:
    """The problem of :func:`_path_status`, from a stat of ``file``."""
    return _path_status(stat_found(file))[0]


def header_notices(path: Path, header_line: int, header: list[str],
                   known: tuple[str, ...]) -> list[Notice]:
    """A config header's columns: a column named twice is an error, one outside ``known``
    a warning (it is ignored)."""
    duplicated = sorted({column for column in header if header.count(column) > 1 and column})
    if duplicated:
        raise ConfigError(f"{path}:{header_line}: column(s) {listed(duplicated)} appear twice")
    unknown = [c for c in header if c not in known]
    if not unknown:
        return []
    return [Notice(
        "config-unknown-columns",
        f"{path}:{header_line}: column(s) {listed(unknown)} are not used and were ignored.",
        f"Known columns: {', '.join(known)}.")]


def _shown_path(display: str) -> str:
    """A path in a message: whole, unless it is too long to read."""
    return display if len(display) <= 200 else quote(display, MAX_NAME)


def _read_text(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            raw = handle.read(readers.MAX_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file ({error.strerror})") from None
    except ValueError:  # a NUL character in the path
        raise ConfigError(f"{path}: cannot read the config file (invalid file name)") from None
    if len(raw) > readers.MAX_BYTES:
        raise ConfigError(f"{path}: the config file is larger than {readers.MAX_BYTES:,} bytes: "
                          "not read")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not a CSV text file (invalid UTF-8)") from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise ConfigError(f"{path}:{line}: not a CSV text file (NUL byte)")
    return text


def sample_files(path: Path) -> Iterator[str]:
    """The sample files that the config at ``path`` names, in the order of its rows (initial,
    then optimized), each once, found without any of :func:`read_config`'s checks: what the
    analysis will most likely read (:mod:`speeduptest.prefetch` reads them ahead while
    :func:`read_config` checks every row). Nothing for a config that cannot be used."""
    try:
        rows = csv_rows(_read_text(path))
    except ConfigError:
        return
    if not rows or isinstance(rows[0][1], str):
        return
    header = [cell.lower() for cell in rows[0][1]]
    columns = [header.index(role) for role in ("initial", "optimized") if role in header]
    folder = str(path.parent)
    seen: set[str] = set()
    for _, cells in rows[1:]:
        if isinstance(cells, str):
            continue
        for column in columns:
            if column < len(cells) and cells[column]:
                reference = cells[column]
                file = (_joined_as_text(folder, reference)
                        or str(split_reference(reference, path.parent)[0]))
                if file not in seen:
                    seen.add(file)
                    yield file


def _joined_as_text(folder: str, reference: str) -> str | None:
    """``str(Path(folder) / reference)`` found without pathlib (which takes 10 µs a file, a
    fifth of the prefetch child's time per file) for a plain relative reference: no
    ``#name`` to look for, no part that pathlib would drop. None for any other."""
    if (not reference or "#" in reference or reference.startswith("/") or reference.endswith("/")
            or "//" in reference or "." in reference.split("/")):
        return None
    if folder == ".":
        return reference
    return folder + reference if folder.endswith("/") else f"{folder}/{reference}"


def reading_ahead(path: Path, rows: int | None = None
                  ) -> contextlib.AbstractContextManager[Fetch]:
    """For a block: a child reading the config's sample files ahead
    (:func:`speeduptest.prefetch.prefetching` of :func:`sample_files`, digested as plain
    samples); ``rows``: :func:`lines_ahead`, when already counted. This module imports
    neither scipy nor the analysis, so the command starts the child before it imports them:
    the child reads while they load."""
    rows = lines_ahead(path) if rows is None else rows
    return prefetching(lambda: sample_files(path), plain_digest, files=rows * 2)


def lines_ahead(path: Path) -> int:
    """The lines in the first mebibyte of the config: about how many rows it has, as far as
    reading their files ahead is concerned (0 if unreadable: what is wrong is for
    read_config to say)."""
    try:
        with path.open("rb") as handle:
            return handle.read(1 << 20).count(b"\n") + 1
    except (OSError, ValueError):
        return 0


def read_config(path: Path, default_alpha: float,
                status: Callable[[str], Found | None] | None = None) -> Config:
    """Read the config at ``path``; rows without their own confidence get ``default_alpha``.
    ``status``: what a child's stat of a sample file found, when it has (see
    :func:`reading_ahead`); the others are stat here."""
    text = _read_text(path)
    # Physical line numbers: comment and blank lines are skipped but still counted.
    rows = csv_rows(text)
    if not rows:
        raise ConfigError(f"{path}: the config is empty (it needs a header row and benchmarks)")

    header_line, header_cells = rows[0]
    if isinstance(header_cells, str):
        raise ConfigError(f"{path}:{header_line}: the header is {header_cells}")
    header = [cell.lower() for cell in header_cells]
    missing = [column for column in REQUIRED_COLUMNS if column not in header]
    if missing:
        hint = (" The config must be comma-separated." if any(";" in c or "\t" in c for c in header)
                else "")
        if not hint and "benchmark" in header and missing == ["initial", "optimized"]:
            hint = (" For several versions, one column each, name the baseline: "
                    "--baseline VERSION.")
        raise ConfigError(
            f"{path}:{header_line}: missing required column(s) {', '.join(missing)} in the header "
            f"(found: {listed(header) or 'nothing'}).{hint}"
        )
    notices = header_notices(path, header_line, header, REQUIRED_COLUMNS + OPTIONAL_COLUMNS)
    if len(rows) == 1:
        raise ConfigError(f"{path}: the config has a header but no benchmark rows")

    first_seen: dict[str, int] = {}
    benchmarks = []
    folder = path.parent  # sample paths are relative to the config's folder
    for line, cells in rows[1:]:
        errors: list[str] = []
        if isinstance(cells, str):  # not valid CSV: nothing of it can be trusted
            errors.append(f"this row is {cells}")
            cells = []
        elif len(cells) > len(header):
            errors.append(f"this row has {len(cells)} cells but the header has {len(header)} "
                          "columns")
        record = {column: (cells[i] if i < len(cells) else "")
                  for i, column in enumerate(header)}
        name = visible(record["benchmark"])
        if name != record["benchmark"]:
            notices.append(Notice(
                "config-name-replaced",
                f"{path}:{line}: the benchmark name held control characters; they are shown "
                f"as '\ufffd' (tabs as spaces): {quote(name, MAX_NAME)}.",
                "Name benchmarks with printable characters."))
        if not name and not errors:
            errors.append("the benchmark name is empty")
        if not name:
            name = f"(line {line})"
        elif name in first_seen:
            errors.append(f"duplicate benchmark name {quote(name, MAX_NAME)} (first defined at "
                          f"line {first_seen[name]})")
        else:
            first_seen[name] = line
        paths = {}
        for role in ("initial", "optimized"):
            if record[role]:
                file, selection = split_reference(record[role], folder)
                text = str(file)  # (a stat of the text: a Path costs 1.6 µs more)
                found = status(text) if status is not None else None
                problem, key = _path_status(stat_found(text) if found is None else found)
                paths[role] = (file, _display(text, selection), selection, key)
                if problem:
                    errors.append(f"{role} sample file {_shown_path(paths[role][1])}: {problem}")
            else:
                paths[role] = (None, None, None, None)
                if cells:  # (a row that is not valid CSV has its error already)
                    errors.append(f"the {role} sample file is not given")
        weight, weight_error = _parse_weight(record.get("weight", ""))
        alpha, alpha_error = _parse_alpha(record.get("confidence", ""), default_alpha)
        errors += [e for e in (weight_error, alpha_error) if e]
        benchmarks.append(BenchmarkSpec(
            name=name,
            line=line,
            initial=paths["initial"][0],
            optimized=paths["optimized"][0],
            initial_display=paths["initial"][1],
            optimized_display=paths["optimized"][1],
            weight=weight,
            alpha=alpha,
            errors=tuple(InputError(str(path), line, message) for message in errors),
            initial_selection=paths["initial"][2],
            optimized_selection=paths["optimized"][2],
            initial_key=paths["initial"][3],
            optimized_key=paths["optimized"][3],
        ))
    return Config(path, tuple(benchmarks), tuple(notices))

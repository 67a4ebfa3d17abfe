"""Reading the config CSV: one row per benchmark.

Problems with one row become errors of that benchmark (with file and line) and the other rows
are still read (each line is read as CSV on its own, so that an unclosed quote cannot swallow
the next row); problems that leave nothing to analyse raise :class:`ConfigError`. Messages
quote cells short, never whole lines.

The config is read once (:func:`read_once`): it may come from a pipe (``<(…)``, ``cat config.csv
| speeduptest /dev/stdin``), which can be read only once. A named pipe given as the config is
read as ``cat`` reads it: once a program writes to it (until then, the command waits). Sample
paths are relative to the config's folder; a config from a pipe or named by a file descriptor
(``/dev/stdin``, ``/dev/fd/63``) has none, and they are relative to the current folder. A
sample must be a regular file: a folder, a pipe, a device or a socket is that benchmark's error
(read, it could make the command wait forever, or read without end).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import math
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from speeduptest.floats import complement
from speeduptest.inputs import readers
from speeduptest.inputs.readers import (
    made_for_the_command,
    not_a_file,
    plain_digest,
    split_reference,
)
from speeduptest.inputs.samples import (
    MAX_NAME,
    NON_FINITE,
    csv_rows,
    decimal,
    listed,
    quote,
    visible,
)
from speeduptest.notices import InputError, Notice
from speeduptest.runtime.prefetch import (
    INVALID_NAME,
    Fetch,
    Found,
    file_type,
    prefetching,
    stat_found,
)
from speeduptest.stats.corrections import SMALLEST_RISK

REQUIRED_COLUMNS = ("benchmark", "initial", "optimized")
OPTIONAL_COLUMNS = ("weight", "confidence", "unit")
#: The time units a config's ``unit`` column may give plain samples, in seconds.
UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9}


class ConfigError(Exception):
    """The config cannot be used at all (exit status 2)."""


@dataclass
class BenchmarkSpec:
    """One config row: a benchmark to analyse, or the errors that prevent it."""

    name: str
    line: int
    # The sample files' paths: as the config's folder joined with its cells (text), or as
    # given (a Path).
    initial: str | Path | None
    optimized: str | Path | None
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
    # The unit of plain samples (a ``unit`` column): their values are converted to seconds.
    unit: str | None = None
    # A confidence was given (``alpha`` None then: it is not valid, an error says why).
    alpha_given: bool = False


@dataclass(frozen=True)
class Config:
    path: Path
    benchmarks: tuple[BenchmarkSpec, ...]
    notices: tuple[Notice, ...] = ()


def _display(path: Path | str, selection: str | None, as_a_path: bool = False) -> str:
    """How to show a sample: as the user can find it from the current folder. ``as_a_path``:
    ``path`` is the text of a ``Path``, normal already but for its ``..`` parts (10,000 rows:
    20,000 normalisations less)."""
    shown = os.fspath(path) if as_a_path and ".." not in str(path) else os.path.normpath(path)
    return visible(f"{shown}#{selection}" if selection else shown)


@functools.lru_cache(maxsize=64)  # (a config's cells repeat: '1', '0.95'…)
def _parse_weight(cell: str) -> tuple[float | None, str | None]:
    if cell == "":
        return 1.0, None
    weight = decimal(cell)
    if weight is None and cell.lower() not in NON_FINITE:
        return None, f"weight {quote(cell)} is not a number"
    if weight is None or not math.isfinite(weight) or weight <= 0:
        return None, f"weight {quote(cell)} must be a finite number > 0"
    return weight, None


@functools.lru_cache(maxsize=64)  # (a config's cells repeat: '1', '0.95'…)
def _parse_alpha(cell: str) -> tuple[float | None, str | None]:
    """The risk α of a ``confidence`` cell (None: not given, the run's), or what is wrong."""
    if cell == "":
        return None, None
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


@functools.lru_cache(maxsize=64)  # (a config's cells repeat: '1', '0.95'…)
def _parse_unit(cell: str) -> tuple[str | None, str | None]:
    unit = cell.strip()
    if not unit:
        return None, None
    if unit.lower() in UNITS:
        return unit.lower(), None
    return None, (f"unit {quote(unit)} is none of {', '.join(u for u in UNITS if u != 'μs')} "
                  "(the unit of the plain samples of this row)")


def _path_status(found: Found) -> tuple[str | None, tuple[int, int] | None]:
    """Why the path of a sample file cannot even be looked at, from what its stat ``found``
    (it could not be resolved to read it once): a symbolic link loop, or a name too long;
    or why it is not read: it is not a regular file (a folder, a pipe, a device, a socket:
    opened, it could wait forever or give bytes without end). Other problems (not found, not
    readable) are found when the file is read. And when it is a file, what identifies it
    (:func:`speeduptest.analysis.benchmarks.file_key`)."""
    if isinstance(found, tuple):
        return None, found
    if found in (errno.ELOOP, errno.ENAMETOOLONG):
        return f"cannot be read ({os.strerror(found)})", None
    if found == INVALID_NAME:
        return "cannot be read (invalid file name)", None
    kind = file_type(found)
    if kind is not None:
        return not_a_file(kind), None
    return None, None


def sample_status(found: Found, reference: str, config: ConfigInput
                  ) -> tuple[str | None, tuple[int, int] | None]:
    """:func:`_path_status` of a sample that ``config`` names as ``reference``, which also
    says where a relative path was looked for when the config comes from a pipe (a file not
    found is otherwise said when it is read)."""
    if config.piped and found == errno.ENOENT and not os.path.isabs(reference):
        return config.not_found_here(), None
    return _path_status(found)


def _path_problem(file: Path, reference: str, config: ConfigInput) -> str | None:
    """The problem of :func:`sample_status`, from a stat of ``file``."""
    return sample_status(stat_found(file), reference, config)[0]


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


#: Bytes asked for at once when reading a config that states no size (a pipe, a device).
_CHUNK = 1 << 20
#: Where a path names a file by a descriptor (``/dev/stdin``, ``<(…)``'s ``/dev/fd/63``): its
#: folder is not the file's.
_DESCRIPTOR_FOLDER = re.compile(r"/dev(/fd)?|/proc/(self|thread-self|[0-9]+)(/task/[0-9]+)?/fd")


class ConfigInput:
    """A config's bytes, read once (or why they cannot be), and the folder of its relative
    sample paths: the config's own, or the current folder for a config that has none
    (``piped``): one read from a pipe that the shell made, or named by a file descriptor
    (``/dev/stdin``, ``/dev/fd/63``: its folder is not where the samples are)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.raw: bytes | None = None
        self.problem: str | None = None  # the ConfigError of an unreadable config
        self._text: str | None = None
        try:
            self.raw, status = _read_config_bytes(path)
        except ConfigError as error:
            self.problem, status = str(error), None
        by_descriptor = _DESCRIPTOR_FOLDER.fullmatch(os.path.dirname(os.path.abspath(path)))
        self.piped = bool(by_descriptor) or (status is not None and made_for_the_command(status))
        self.folder = Path() if self.piped else path.parent

    def text(self) -> str:
        """The config's text; raises :class:`ConfigError` when it cannot be had."""
        if self._text is not None:
            return self._text
        if self.raw is None:
            raise ConfigError(self.problem)
        path, raw = self.path, self.raw
        if len(raw) > readers.MAX_BYTES:
            raise ConfigError(_too_large(path))
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            raise ConfigError(f"{path}:{line}: not a CSV text file (invalid UTF-8)") from None
        if "\x00" in text:
            line = text[: text.index("\x00")].count("\n") + 1
            raise ConfigError(f"{path}:{line}: not a CSV text file (NUL byte)")
        self._text = text
        return text

    def lines_ahead(self) -> int:
        """The lines in the config's first mebibyte (0 if it cannot be read)."""
        return 0 if self.raw is None else self.raw.count(b"\n", 0, 1 << 20) + 1

    def sha256(self) -> str:
        """The SHA-256 of the config's bytes, in hexadecimal (once it was read)."""
        if self.raw is None:
            raise ConfigError(self.problem)
        return hashlib.sha256(self.raw).hexdigest()

    def not_found_here(self) -> str:
        """What is said of a sample file not found, with a relative path, in a config read
        from a pipe."""
        return (f"file not found in the current folder, {os.getcwd()} (a config read from a "
                f"pipe or from {self.path} has no folder of its own: its relative paths start "
                "from the current folder)")


def _too_large(path: Path) -> str:
    return f"{path}: the config file is larger than {readers.MAX_BYTES:,} bytes: not read"


def _read_config_bytes(path: Path) -> tuple[bytes, os.stat_result]:
    """The bytes of the config at ``path`` (more than ``MAX_BYTES``: too large), and its
    stat. A named pipe is opened as ``cat`` opens it: waiting for a writer.
    A stream (a pipe, a device) is read to its end, or to its first NUL byte (``/dev/zero``
    is not read to 1 GiB for a config that cannot be text)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file ({error.strerror})") from None
    except ValueError:  # a NUL character in the path
        raise ConfigError(f"{path}: cannot read the config file (invalid file name)") from None
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise ConfigError(f"{path}: is a directory, not a config file")
        regular = stat.S_ISREG(status.st_mode)
        if regular and status.st_size > readers.MAX_BYTES:
            raise ConfigError(_too_large(path))
        chunks: list[bytes] = []
        total, size = 0, status.st_size + 1 if regular else _CHUNK
        while total <= readers.MAX_BYTES:
            chunk = os.read(descriptor, min(size, readers.MAX_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            size = _CHUNK
            if not regular and b"\0" in chunk:
                chunks[-1] = chunk[: chunk.index(b"\0") + 1]
                break
        return b"".join(chunks), status
    except OSError as error:
        raise ConfigError(f"{path}: cannot read the config file ({error.strerror})") from None
    finally:
        os.close(descriptor)


_HELD: dict[str, ConfigInput] = {}
_HOLDING = threading.Lock()


@contextlib.contextmanager
def read_once(path: Path | str) -> Iterator[ConfigInput]:
    """For the block, the config at ``path`` read once: every reading of it in the block
    (its form, its rows, the guess of its sample files in the prefetch child forked in the
    block, its checksum) takes these bytes. Nested blocks share the first one's."""
    key = os.fspath(path)
    with _HOLDING:  # (programs may analyse the same config from several threads)
        held = _HELD.get(key)
        first = held is None
        if first:
            _HELD[key] = held = ConfigInput(Path(path))
    try:
        yield held
    finally:
        if first:
            with _HOLDING:
                _HELD.pop(key, None)


def config_input(path: Path | str) -> ConfigInput:
    """The config at ``path``: the one read for the block around (:func:`read_once`), else
    read now."""
    held = _HELD.get(os.fspath(path))
    return held if held is not None else ConfigInput(Path(path))


def _read_text(path: Path) -> str:
    return config_input(path).text()


def sample_files(path: Path) -> Iterator[str]:
    """The sample files that the config at ``path`` names, in the order of its rows (initial,
    then optimized), each once, found without any of :func:`read_config`'s checks: what the
    analysis will most likely read (:mod:`speeduptest.runtime.prefetch` reads them ahead while
    :func:`read_config` checks every row). Nothing for a config that cannot be used."""
    config = config_input(path)
    try:
        rows = csv_rows(config.text())
    except ConfigError:
        return
    if not rows or isinstance(rows[0][1], str):
        return
    header = [cell.lower() for cell in rows[0][1]]
    columns = [header.index(role) for role in ("initial", "optimized") if role in header]
    folder = str(config.folder)
    seen: set[str] = set()
    for _, cells in rows[1:]:
        if isinstance(cells, str):
            continue
        for column in columns:
            if column < len(cells) and cells[column]:
                file = _sample_path(folder, config.folder, cells[column])[0]
                if file not in seen:
                    seen.add(file)
                    yield file


def _sample_path(folder_text: str, folder: Path, reference: str) -> tuple[str, str | None]:
    """The path of the sample file that a config's cell names, as the text of the config's
    folder joined with it as a ``Path`` (a ``Path`` per file cost 35 ms at 10,000 rows; every
    reader takes either), and the benchmark it selects in the file (``path#name``)."""
    text = _joined_as_text(folder_text, reference)
    if text is not None:
        return text, None
    file, selection = split_reference(reference, folder)
    return str(file), selection


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


@contextlib.contextmanager
def reading_ahead(path: Path, rows: int | None = None) -> Iterator[Fetch]:
    """For a block: the config read once (:func:`read_once`), and a child reading its sample
    files ahead (:func:`speeduptest.runtime.prefetch.prefetching` of :func:`sample_files`, digested
    as plain samples); ``rows``: :func:`lines_ahead`, when already counted. This module
    imports neither scipy nor the analysis, so the command starts the child before it
    imports them: the child reads while they load."""
    with read_once(path):
        rows = lines_ahead(path) if rows is None else rows
        with prefetching(lambda: sample_files(path), plain_digest, files=rows * 2) as fetch:
            yield fetch


def lines_ahead(path: Path) -> int:
    """The lines in the first mebibyte of the config: about how many rows it has, as far as
    reading their files ahead is concerned (0 if unreadable: what is wrong is for
    read_config to say)."""
    return config_input(path).lines_ahead()


def read_config(path: Path, status: Callable[[str], Found | None] | None = None) -> Config:
    """Read the config at ``path`` (rows without their own confidence have α None: the
    run's).
    ``status``: what a child's stat of a sample file found, when it has (see
    :func:`reading_ahead`); the others are stat here."""
    source = config_input(path)
    text = source.text()
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
    folder, piped = source.folder, source.piped  # (the config's folder, if it has one)
    folder_text = str(folder)
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
                text, selection = _sample_path(folder_text, folder, record[role])
                shown = _display(text, selection, as_a_path=True)
                found = status(text) if status is not None else None
                if found is None:
                    found = stat_found(text)
                problem, key = _path_status(found)
                if key is None and piped and problem is None:
                    problem = sample_status(found, record[role], source)[0]
                paths[role] = (text, shown, selection, key)
                if problem:
                    errors.append(f"{role} sample file {_shown_path(paths[role][1])}: {problem}")
            else:
                paths[role] = (None, None, None, None)
                if cells:  # (a row that is not valid CSV has its error already)
                    errors.append(f"the {role} sample file is not given")
        weight, weight_error = _parse_weight(record.get("weight", ""))
        alpha, alpha_error = _parse_alpha(record.get("confidence", ""))
        unit, unit_error = _parse_unit(record.get("unit", ""))
        errors += [e for e in (weight_error, alpha_error, unit_error) if e]
        benchmarks.append(BenchmarkSpec(
            name=name,
            line=line,
            initial=paths["initial"][0],
            optimized=paths["optimized"][0],
            initial_display=paths["initial"][1],
            optimized_display=paths["optimized"][1],
            weight=weight,
            alpha=alpha,
            errors=() if not errors else tuple(InputError(str(path), line, message)
                                               for message in errors),
            initial_selection=paths["initial"][2],
            optimized_selection=paths["optimized"][2],
            initial_key=paths["initial"][3],
            optimized_key=paths["optimized"][3],
            unit=unit,
            alpha_given=bool(record.get("confidence")),
        ))
    return Config(path, tuple(benchmarks), tuple(notices))

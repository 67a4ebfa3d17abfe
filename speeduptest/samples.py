"""Reading one sample file: execution times separated by white space, ``#`` starts a comment.

Every problem is reported with the file and line where it is, and reading goes on, so a user
sees all the bad values of a file at once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from pathlib import Path

import numpy as np

from .model import InputError

# A plain decimal number; Python's float() would also take "1_000", "nan" and "infinity".
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NON_FINITE = {"nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}
#: Token errors listed per file before the rest are only counted.
MAX_ERRORS_PER_FILE = 10


@dataclasses.dataclass(frozen=True)
class Sample:
    """The values read from one file, and the problems met (located in that file)."""

    path: str
    values: np.ndarray
    errors: tuple[InputError, ...] = ()
    problem: str | None = None  # a problem with the whole file: unreadable, not text
    sha256: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.errors


def _token_problem(token: str) -> tuple[float | None, str | None]:
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
            value, problem = _token_problem(token)
            if problem is None:
                values.append(value)
            elif len(errors) < MAX_ERRORS_PER_FILE:
                errors.append(InputError(path, line_number, problem))
            else:
                skipped += 1
    if skipped:
        errors.append(InputError(path, None, f"and {skipped} more bad values"))
    return Sample(path, np.asarray(values, dtype=float), tuple(errors))


def read_sample(file: Path, display: str) -> Sample:
    """Read a sample file; ``display`` is how the path is shown to the user."""
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return Sample(display, np.empty(0), problem="file not found")
    except IsADirectoryError:
        return Sample(display, np.empty(0), problem="is a directory, not a file")
    except OSError as error:
        return Sample(display, np.empty(0), problem=f"cannot be read ({error.strerror})")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return Sample(display, np.empty(0), problem=f"is not a text file (bad byte at line {line})")
    if "\x00" in text:
        return Sample(display, np.empty(0), problem="is not a text file (it contains NUL bytes)")
    sample = parse_sample_text(text, display)
    return dataclasses.replace(sample, sha256=hashlib.sha256(raw).hexdigest())

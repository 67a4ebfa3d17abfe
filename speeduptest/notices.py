"""Messages for the user: input errors (located in a file) and warnings (with advice)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InputError:
    """A problem with the input, located in a file (and line, where there is one)."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Notice:
    """A warning: what happened, and what the user can do about it."""

    code: str
    message: str
    advice: str

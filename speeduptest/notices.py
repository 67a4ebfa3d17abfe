"""Messages for the user: input errors (located in a file) and warnings (with advice)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class InputError:
    """A problem with the input, located in a file (and line, where there is one)."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Notice:
    """A warning: what happened, and what the user can do about it."""

    code: str
    message: str
    advice: str


def elide(text: str, width: int = 80) -> str:
    """``text`` whole when it has at most ``width`` characters, else cut to ``width`` by an
    ellipsis in the middle: its first third and its last two thirds, where names that share
    a long prefix (Java packages, command lines, paths) differ."""
    if len(text) <= width:
        return text
    head = (width - 1) // 3
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def plural(noun: str) -> str:
    """The plural of a level or unit name: builds, invocations, processes."""
    return noun + ("es" if noun.endswith(("s", "sh", "ch", "x", "z")) else "s")


def counted(count: int, noun: str) -> str:
    """"1 benchmark", "3 processes"."""
    return f"{count} {noun if count == 1 else plural(noun)}"


def first_names(names: list[str] | tuple[str, ...], limit: int) -> str:
    """Up to ``limit`` names, comma-separated, then how many more there are."""
    more = f", … ({len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def tally(names: Sequence[str]) -> str:
    """How many times each name occurs, in order of first occurrence: "4 warmup, 2 flat"."""
    return ", ".join(f"{count} {name}" for name, count in Counter(names).items())

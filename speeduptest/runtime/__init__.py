"""Process-level speed mechanisms, each behind a narrow seam (a source of file contents, an
executor of bootstrap work, a pool of workers); the plain path stays the reference.

Each mechanism can be switched off, for measuring what it buys, with the environment
variable ``SPEEDUPTEST_WITHOUT``: a comma-separated list of :data:`MECHANISMS` (or ``all``),
read here alone (:func:`without`). A mechanism switched off takes the path it takes where
it cannot be had (no fork, one core, not glibc): the results are the same, byte for byte
(``tests/runtime/test_runtime_switches.py``); ``benchmarks/runtime_mechanisms.py`` times
each.
"""

from __future__ import annotations

import functools
import os
import sys

#: The environment variable naming the mechanisms switched off.
WITHOUT_VARIABLE = "SPEEDUPTEST_WITHOUT"

#: The mechanisms that can be switched off, and the plain path each then takes.
MECHANISMS = {
    "prefetch": "the caller reads, stats and parses every sample file itself",
    "batch_child": ("the shared-count bootstrap in a thread of this process, the measurement "
                    "checks' array work in this process"),
    "parallel": "one process: default_workers() is 1, every pool a plain map",
    "forking": "no child is forked (prefetch, batch_child and writer_child all off)",
    "nocycles": "the cycle collector left as it is; the results freed at exit",
    "switching": "the interpreter's switch interval left as it is (5 ms)",
    "writer_child": "this process makes every part of results.json, no child the second",
}


def without(mechanism: str) -> bool:
    """Whether ``mechanism`` (one of :data:`MECHANISMS`) is switched off by
    ``SPEEDUPTEST_WITHOUT``, read at each call (so that a test or a host can set it at any
    time)."""
    assert mechanism in MECHANISMS, mechanism
    return mechanism in switched_off()


def switched_off() -> frozenset[str]:
    """The mechanisms that ``SPEEDUPTEST_WITHOUT`` switches off (``all``: every one)."""
    return _parsed(os.environ.get(WITHOUT_VARIABLE, ""))


@functools.cache
def _parsed(value: str) -> frozenset[str]:
    """The mechanisms named by ``value``; a name that is none of them is said once on
    stderr (a misspelt switch would otherwise measure nothing) and ignored."""
    names = {name.strip().lower().replace("-", "_") for name in value.split(",")} - {""}
    if "all" in names:
        return frozenset(MECHANISMS)
    unknown = names - MECHANISMS.keys()
    if unknown:
        print(f"speeduptest: {WITHOUT_VARIABLE}: not a runtime mechanism, ignored: "
              f"{', '.join(sorted(unknown))} (known: all, {', '.join(MECHANISMS)})",
              file=sys.stderr)
    return frozenset(names - unknown)

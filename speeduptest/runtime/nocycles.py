"""Pausing Python's cycle collector while a large, acyclic structure is built, and leaving it
alone once built (frozen; at the end of the command, never taken apart).

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=nocycles``: the collector left as
it is, the results freed at exit; ``benchmarks/runtime_mechanisms.py``, ``--format json``,
median of runs paired with a run as it is, 2-core machine): 30.3% of the run at 10,000 pairs
of 31 values (2.63 s without, 1.82 s with; quartiles over 7 rounds 30.0-30.8%), 39% at
100,000 (24.7 s without, 15.1 s with, measured with commit a7e5baa).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
from collections.abc import Callable, Iterator

from speeduptest.runtime import without


@contextlib.contextmanager
def cycle_collection_paused() -> Iterator[None]:
    """Run the block with the cycle collector off (and back on afterwards if it was on).

    The analysis and results.json of a large run create millions of small objects
    (dataclasses, dictionaries, arrays), which set the collector off over and over, each time
    walking everything still alive; none of them form cycles, so it finds nothing. For 10,000
    benchmarks this was 1.2 s of the analysis and half of results.json's 2.2 s. Reference
    counting still frees everything as usual.
    """
    if without("nocycles"):
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextlib.contextmanager
def built_then_read(process_ends: bool = False) -> Iterator[Callable[[object], None]]:
    """For a program that builds a large acyclic structure and then only reads it (the
    command: the analysis, then the renderers). The block starts with the cycle collector
    paused; the function it gets is called with the structure once it is complete: from then
    on the collector runs again but leaves alone everything that exists at that moment
    (``gc.freeze``), until the block ends (``gc.unfreeze``: all of it is collectable again).

    Re-enabling the collector alone would cost a walk over everything built while it was
    paused, all of it still "young": 0.1 s after the analysis of 10,000 benchmarks (half of
    what writing their results.json takes), for nothing.

    ``process_ends``: nothing but the end of the process is expected to follow the block
    (the ``speeduptest`` command). The structure is then never taken apart: its memory goes
    back to the system at once when the process exits (freeing the objects of 10,000
    benchmarks one by one took 0.15 s), and whatever is alive when the interpreter shuts
    down is frozen then (``atexit``), so that its last collection does not walk the
    structure (0.5 s more). Unlike ending the process early (``os._exit``), a host that
    runs the command in its own process (``runpy``, ``python -i``, a debugger, a coverage
    tool) goes on as usual, its objects collectable as before the block; only the
    structure's memory stays taken.
    """
    if without("nocycles"):
        yield lambda structure: None
        return
    enabled = gc.isenabled()
    gc.disable()
    frozen = False

    def built(structure: object) -> None:
        nonlocal frozen
        if process_ends:
            _never_freed(structure)
        if enabled and not frozen:
            gc.freeze()  # before the collector is back: the next allocation would start it
            frozen = True
            gc.enable()

    try:
        yield built
    finally:
        if frozen:
            gc.unfreeze()
        elif enabled:
            gc.enable()


def _never_freed(structure: object) -> None:
    """Take a reference to ``structure`` that is never given back (where ctypes exists), and
    have the interpreter's last collection leave alone what is alive when it shuts down."""
    try:
        import ctypes
    except ImportError:  # an interpreter built without it: freed as usual
        return
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(structure))
    atexit.unregister(gc.freeze)  # (once, however many times the command runs)
    atexit.register(gc.freeze)

"""Quicker hand-overs of the GIL while a thread does array work beside the main one: the
shared-count bootstrap's thread where it has no child (:mod:`speeduptest.runtime.batch_child`:
fewer than ``MIN_BATCH_CHILD`` benchmarks, or no child to be had), and results.json's
writer thread (:mod:`speeduptest.output`).

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=switching``: the interpreter's
5 ms; ``benchmarks/runtime_mechanisms.py``, ``--format json``, median of runs paired with a
run as it is, 2-core machine): as the command runs where it can fork, nothing (+0.4% at 10,000
pairs of 31 values, quartiles over 7 rounds -4.8% to +1.2%; -0.7% at 100,000, within the
noise: the bootstrap runs in the child); below issue 24's bar of 5%. On the thread path (the
batch child switched off, as where no child can be had: a host program with threads of
its own), 7% of the run at 10,000 pairs (2.07 s without, 1.93 s with): the batch child
and this are the two ways to the same end, and this is the one such a host gets.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

from speeduptest.runtime import without

#: Seconds a thread runs before it is asked to let another take the GIL (Python's default:
#: 5 ms). The bootstrap thread of the analysis (analysis.benchmarks._shared_intervals_beside)
#: needs the GIL only to start each of its long numpy calls, which release it; at 5 ms it
#: waits that long for each, and the hand-overs cost the main thread too. 10,000 pairs of 31
#: values, main thread's work with the bootstrap beside it (1.0 s without it): 1.17-1.30 s at
#: 5 ms, 1.0-1.05 s at 0.2 ms.
QUICK_SWITCH_INTERVAL = 0.0002


@contextlib.contextmanager
def quick_switches(interval: float = QUICK_SWITCH_INTERVAL) -> Iterator[None]:
    """Run the block with the interpreter's switch interval at most ``interval`` (restored
    afterwards). Only in a process without other threads (the command line): the setting
    is the whole process's, so a program with threads of its own (two analyses at once, say)
    keeps its own."""
    if threading.active_count() > 1 or without("switching"):
        yield
        return
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, interval))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)

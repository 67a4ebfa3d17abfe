"""Quicker hand-overs of the GIL while a thread does array work beside the main one."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

#: Seconds a thread runs before it is asked to let another take the GIL (Python's default:
#: 5 ms). The bootstrap thread of the analysis (analysis._analyse_pairs) needs the GIL only to
#: start each of its long numpy calls, which release it; at 5 ms it waits that long for each,
#: and the hand-overs cost the main thread too. 10,000 pairs of 31 values, main thread's work
#: with the bootstrap beside it (1.0 s without it): 1.17-1.30 s at 5 ms, 1.0-1.05 s at 0.2 ms.
QUICK_SWITCH_INTERVAL = 0.0002


@contextlib.contextmanager
def quick_switches(interval: float = QUICK_SWITCH_INTERVAL) -> Iterator[None]:
    """Run the block with the interpreter's switch interval at most ``interval`` (restored
    afterwards). Only in a process without other threads (the command line): the setting
    is the whole process's, so a program with threads of its own (two analyses at once, say)
    keeps its own."""
    if threading.active_count() > 1:
        yield
        return
    previous = sys.getswitchinterval()
    sys.setswitchinterval(min(previous, interval))
    try:
        yield
    finally:
        sys.setswitchinterval(previous)

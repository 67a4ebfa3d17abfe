"""A process pool for the slow, independent parts of a run (per-benchmark analysis, figures,
PDF layout), with a plain ``map`` when there is a single core or little work.

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=parallel``: one process, every
pool a plain ``map``; ``benchmarks/runtime_mechanisms.py``, median of runs paired with a run
as it is, 2-core machine): nothing for ``--format json`` runs of 10,000 or 100,000 pairs of
31 values, which start no pool (no benchmark's bootstrap is heavy enough for a worker:
-0.6% and -0.8%, the noise); 40% of the run for the reports (``--format html,pdf,json``) of 100
benchmarks (15.7 s without, 9.5 s with) and 45% for 500 pairs of 2,000 values, whose
bootstraps go to workers (14.5 s without, 7.9 s with).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from speeduptest.runtime import without

if TYPE_CHECKING:  # (multiprocessing and ctypes imported where a pool starts: most runs
    import multiprocessing  # start none, and they are ~7 ms of the start-up)

MapFunction = Callable[[Callable, Iterable], Iterator]

#: In a worker of :func:`shared_worker_pool`: the object it was started with. A pool's
#: initializer is the only way to hand a worker something once rather than with every task.
_worker_shared: object = None


def default_workers() -> int:
    """A worker per core, at most 8; 1 when switched off (``SPEEDUPTEST_WITHOUT=parallel``)."""
    if without("parallel"):
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(8, cores or 1))


def serial_map(function: Callable, items: Iterable) -> Iterator:
    return map(function, items)


#: prctl's option that sends a signal to this process when its parent ends.
_PR_SET_PDEATHSIG = 1


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it (and stops the
    # workers), so that the user sees one line, not a traceback per worker. SIGTERM (the
    # pool's own way of stopping its workers) ends a worker silently, not through the
    # command's handler; and a worker ends with the command even when that is killed, never
    # left to print into a pipe that is gone.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform == "linux":
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _start_shared_worker(shared: object) -> None:
    global _worker_shared
    _ignore_interrupts()
    _worker_shared = shared


def _call_with_shared(function: Callable, item: object) -> object:
    return function(_worker_shared, item)


def _context() -> multiprocessing.context.BaseContext:
    # fork: workers start with the parent's imports (scipy, jinja2, weasyprint) done, and
    # with the parent's objects (a shared_worker_pool's ``shared``) without pickling them.
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


@contextmanager
def worker_pool(workers: int) -> Iterator[MapFunction]:
    """A lazy ``map`` over ``workers`` processes (results in order, as they finish), or the
    plain one for 1. Consume the results inside the ``with`` block: leaving it (normally or
    by an exception such as KeyboardInterrupt) terminates the workers at once, so queued work
    is cancelled."""
    if workers <= 1 or without("parallel"):
        yield serial_map
        return
    with _context().Pool(workers, initializer=_ignore_interrupts) as pool:
        yield pool.imap


@contextmanager
def shared_worker_pool(workers: int, shared: object) -> Iterator[MapFunction]:
    """Like :func:`worker_pool`, for tasks that all read one large object (the results of a
    run): each worker gets ``shared`` once when it starts (inherited by fork, not pickled
    with every task: unpickling the results of 1,000 benchmarks takes about a second), and
    the map calls ``function(shared, item)``. Results come as tasks finish, in any order
    (longest tasks first keeps every core busy to the end)."""
    if workers <= 1 or without("parallel"):
        yield lambda function, items: map(functools.partial(function, shared), items)
        return
    with _context().Pool(workers, initializer=_start_shared_worker,
                         initargs=(shared,)) as pool:
        yield lambda function, items: pool.imap_unordered(
            functools.partial(_call_with_shared, function), items)

"""A process pool for the slow, independent parts of a run (per-benchmark analysis, figures,
PDF layout), with a plain ``map`` when there is a single core or little work."""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

MapFunction = Callable[[Callable, Iterable], Iterator]


def default_workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(8, cores or 1))


def serial_map(function: Callable, items: Iterable) -> Iterator:
    return map(function, items)


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it (and stops the
    # workers), so that the user sees one line, not a traceback per worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def worker_pool(workers: int) -> Iterator[MapFunction]:
    """A lazy ``map`` over ``workers`` processes (results in order, as they finish), or the
    plain one for 1. Consume the results inside the ``with`` block: leaving it (normally or
    by an exception such as KeyboardInterrupt) terminates the workers at once, so queued work
    is cancelled."""
    if workers <= 1:
        yield serial_map
        return
    methods = multiprocessing.get_all_start_methods()
    # fork: workers start with the parent's imports (scipy, jinja2, weasyprint) done.
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with context.Pool(workers, initializer=_ignore_interrupts) as pool:
        yield pool.imap

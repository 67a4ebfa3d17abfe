"""A process pool for the slow, independent parts of a run (per-benchmark analysis, figures,
PDF layout), with a plain ``map`` when there is a single core or little work."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

MapFunction = Callable[[Callable, Iterable], list]


def default_workers() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(8, cores or 1))


def serial_map(function: Callable, items: Iterable) -> list:
    return list(map(function, items))


@contextmanager
def worker_pool(workers: int) -> Iterator[MapFunction]:
    """A ``map`` over ``workers`` processes (results in order), or the plain one for 1."""
    if workers <= 1:
        yield serial_map
        return
    methods = multiprocessing.get_all_start_methods()
    # fork: workers start with the parent's imports (scipy, matplotlib, weasyprint) done.
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        yield lambda function, items: list(pool.map(function, items))

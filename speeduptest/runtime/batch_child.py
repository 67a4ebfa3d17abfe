"""A batch's array work computed by a child process beside the analysis.

Two parts of a batch's analysis are array work on its samples alone, which depends on nothing
else of the analysis:

- the shared-count bootstrap intervals (:func:`speeduptest.stats.effect_size.flat_bootstrap_ends`:
  matrix products and partitions), computed while this process runs the batch's tests and
  decisions and taken for its effect sizes once the next batch is read;
- in a streamed run, the measurement checks' steady states, lag-1 autocorrelations and
  Mann–Kendall's tests (:func:`speeduptest.stats.steady.row_checks`), sent as soon as a batch is
  read and taken once the batch before it is analysed
  (:class:`speeduptest.analysis.benchmarks._Checking`).

A thread computed the bootstrap while the main one ran the tests, but each of its numpy calls
needs the GIL to start, and the hand-overs cost the main thread a third of its time: 10,000
pairs of 31 values, main thread's work 0.64 s alone, 0.88-0.97 s beside the thread. A child
process takes no GIL.

The child is forked before the samples are read, while this process is small (a child forked
later shares the pages of everything read, and each page either process then touches is
copied: see :mod:`speeduptest.runtime.forking`). It gets the samples
(:mod:`speeduptest.runtime.array_child`) and sends back what the same functions make of the
same numbers, so the results are this process's, bit for bit. Should the child be gone, or
never start, the caller computes them itself (the bootstrap in a thread beside the tests).

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=batch_child``, whose plain path
is the thread beside the tests, with :mod:`speeduptest.runtime.switching`'s quick hand-overs,
and the checks in this process; ``benchmarks/runtime_mechanisms.py``, ``--format json``,
median of runs paired with a run as it is, 2-core machine): 10.8% of the run at 10,000 pairs of
31 values (2.09 s without, 1.85 s with; quartiles of the gain over 9 rounds +9.1% to +12.5%),
5.5% at 100,000 (15.96 s without, 15.08 s with, 3 rounds). Of it, the checks one batch ahead:
2.5-3.4% at 10,000 pairs against the code before them (``benchmarks/versus_r.py --also``, 7
rounds: best 1.82 -> 1.79 s, median 1.88 -> 1.83 s). Against a thread at the interpreter's
5 ms switch interval (the bootstrap alone, before the checks were added; both switched off):
11% at 10,000 pairs.
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from speeduptest.runtime.array_child import ArrayChild, array_child
from speeduptest.stats.effect_size import flat_bootstrap_ends
from speeduptest.stats.steady import RowChecks, SeriesClass, SteadyState, row_checks

#: Each group of benchmarks of the same sizes: confidences (b), initial (b × n), optimized
#: (b × m).
Group = tuple[np.ndarray, np.ndarray, np.ndarray]
#: Each group's interval ends: low (b), high (b).
Ends = tuple[np.ndarray, np.ndarray]

#: What a request asks for: the first value of its first array.
_BOOTSTRAP, _CHECKS = 0, 1
#: The classes of a series, as the child sends them (by index).
_CLASSES: tuple[SeriesClass, ...] = typing.get_args(SeriesClass)


def bootstrap_here(resamples: int, seed: int, groups: Sequence[Group]) -> list[Ends]:
    """The bootstrap intervals' ends the child computes, computed in this process."""
    return [flat_bootstrap_ends(initial, optimized, confidence, resamples, seed)
            for confidence, initial, optimized in groups]


def checks_here(matrices: Sequence[np.ndarray], trend: bool) -> list[RowChecks]:
    """The checks' array work the child does, done in this process."""
    return [row_checks(rows, trend) for rows in matrices]


class BatchChild:
    """The parent's end: submit a batch's work, then take its answer (answers are taken in
    the order of the requests)."""

    def __init__(self, child: ArrayChild) -> None:
        self._child = child

    def bootstrap(self, resamples: int, seed: int, groups: Sequence[Group]
                  ) -> Callable[[], list[Ends]]:
        """Send a batch's groups; the function returned waits for their intervals' ends (or
        computes them here if the child is gone)."""
        groups = [tuple(np.ascontiguousarray(part, dtype=float) for part in group)
                  for group in groups]
        try:
            request = np.array([_BOOTSTRAP, resamples, seed], dtype=np.int64)
        except OverflowError:  # a seed beyond 64 bits (the API's): computed here
            return lambda: bootstrap_here(resamples, seed, groups)
        answer = self._child.submit([request, *(part for group in groups for part in group)])
        return lambda: _pairs(answer())

    def checks(self, matrices: Sequence[np.ndarray], trend: bool
               ) -> Callable[[], list[RowChecks]]:
        """Send the matrices of a batch's series
        (:func:`speeduptest.stats.steady.plain_series`); the function returned waits for their
        :func:`~speeduptest.stats.steady.row_checks` (``trend``: with Mann–Kendall's tests),
        or computes them here if the child is gone."""
        answer = self._child.submit([np.array([_CHECKS, trend], dtype=np.int64), *matrices])
        return lambda: _row_checks(answer())


def _computed(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """What the child computes of a request (:meth:`BatchChild.bootstrap`: each group's low
    and high ends; :meth:`BatchChild.checks`: :func:`_checks_arrays` of each matrix's checks)."""
    request = arrays[0].tolist()
    if request[0] == _BOOTSTRAP:
        groups = [tuple(arrays[first:first + 3]) for first in range(1, len(arrays), 3)]
        return [end for ends in bootstrap_here(request[1], request[2], groups) for end in ends]
    return [array for found in checks_here(arrays[1:], bool(request[1]))
            for array in _checks_arrays(found)]


def _pairs(arrays: list[np.ndarray]) -> list[Ends]:
    return [(arrays[index], arrays[index + 1]) for index in range(0, len(arrays), 2)]


def _checks_arrays(found: RowChecks) -> tuple[np.ndarray, ...]:
    """A matrix's checks as arrays: each row's class (index), start and segments; the lag-1
    autocorrelations, Kendall's τ and the p-values (empty: not computed)."""
    states = np.array([(_CLASSES.index(state.classification), state.start, state.segments)
                       for state in found.states], dtype=np.int64).reshape(-1, 3)
    return (states, *(np.empty(0) if part is None else np.asarray(part, dtype=np.float64)
                      for part in (found.lag1, found.tau, found.p_value)))


def _row_checks(arrays: list[np.ndarray]) -> list[RowChecks]:
    """The :class:`RowChecks` of each matrix, from its four arrays."""
    flat = SteadyState("flat", 0, 1)  # (most series: one object for them)
    found = []
    for first in range(0, len(arrays), 4):
        states, lag1, tau, p_value = arrays[first:first + 4]
        found.append(RowChecks(
            [flat if code == 0 and start == 0 and segments == 1
             else SteadyState(_CLASSES[code], start, segments)
             for code, start, segments in states.tolist()],
            lag1 if lag1.size else None,
            tau.tolist() if tau.size else None, p_value.tolist() if p_value.size else None))
    return found


@contextlib.contextmanager
def batch_child() -> Iterator[BatchChild | None]:
    """For the block, a child doing batches' array work (:class:`BatchChild`); None where no
    child can be had. The child is stopped, and both ends of the connection closed, when the
    block ends, however it ends."""
    # (_computed looked up at each request: a test may replace it in the child)
    with array_child("batch_child", lambda arrays: _computed(arrays)) as child:
        yield None if child is None else BatchChild(child)

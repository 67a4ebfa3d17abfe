"""The measurement checks' array work computed by a child process, one batch ahead.

Before a batch of benchmarks is analysed, each side's series are checked
(:func:`speeduptest.stats.steady.check_sides`): the steady states, lag-1 autocorrelations and
Mann–Kendall's tests of the one-level samples, computed as the rows of one matrix per length
(:func:`~speeduptest.stats.steady.row_checks`), are array work on the samples alone. In a
streamed run (:mod:`speeduptest.analysis.benchmarks`) the parent sends each batch's matrices
to this child as soon as the batch is read, analyses the batch before, then takes the
answers and makes the batch's findings of them: the child's work is off the parent's path.
The child computes them with the same function on the same rows, so they are the bits this
process would compute; should it be gone, or never start, the parent computes them itself
(:mod:`speeduptest.runtime.array_child`).

The child is forked beside the bootstrap child, before the samples are read, while this
process is small (see :mod:`speeduptest.runtime.forking`).
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from speeduptest.runtime.array_child import ArrayChild, array_child
from speeduptest.stats.steady import RowChecks, SeriesClass, SteadyState, row_checks

#: The classes of a series, as the child sends them (by index).
_CLASSES: tuple[SeriesClass, ...] = typing.get_args(SeriesClass)


def computed_here(matrices: Sequence[np.ndarray], trend: bool) -> list[RowChecks]:
    """What the child computes, computed in this process."""
    return [row_checks(rows, trend) for rows in matrices]


class ChecksChild:
    """The parent's end: :meth:`submit` a batch's matrices, then take their checks."""

    def __init__(self, child: ArrayChild) -> None:
        self._child = child

    def submit(self, matrices: Sequence[np.ndarray], trend: bool
               ) -> Callable[[], list[RowChecks]]:
        """Send the matrices (:func:`speeduptest.stats.steady.plain_series`); the function
        returned waits for their :func:`~speeduptest.stats.steady.row_checks` (``trend``:
        with Mann–Kendall's tests), or computes them here if the child is gone."""
        answer = self._child.submit([np.array([trend], dtype=np.int64), *matrices])
        return lambda: _decoded(answer(), len(matrices))


def _computed(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """What the child computes of a message: whether with the trend tests, then the
    matrices; four arrays per matrix (:func:`_encoded`)."""
    trend = bool(arrays[0][0])
    return [array for found in computed_here(arrays[1:], trend) for array in _encoded(found)]


def _encoded(found: RowChecks) -> tuple[np.ndarray, ...]:
    """A matrix's checks as arrays: each row's class (index), start and segments; the lag-1
    autocorrelations, Kendall's τ and the p-values (empty: not computed)."""
    states = np.array([(_CLASSES.index(state.classification), state.start, state.segments)
                       for state in found.states], dtype=np.int64).reshape(-1, 3)
    return (states, *(np.empty(0) if part is None else np.asarray(part, dtype=np.float64)
                      for part in (found.lag1, found.tau, found.p_value)))


def _decoded(arrays: list[np.ndarray], matrices: int) -> list[RowChecks]:
    """The :class:`RowChecks` of each matrix, from the four arrays of each."""
    flat = SteadyState("flat", 0, 1)  # (most series: one object for them)
    found = []
    for index in range(matrices):
        states, lag1, tau, p_value = arrays[4 * index:4 * index + 4]
        found.append(RowChecks(
            [flat if code == 0 and start == 0 and segments == 1
             else SteadyState(_CLASSES[code], start, segments)
             for code, start, segments in states.tolist()],
            lag1 if lag1.size else None,
            tau.tolist() if tau.size else None, p_value.tolist() if p_value.size else None))
    return found


@contextlib.contextmanager
def checks_child() -> Iterator[ChecksChild | None]:
    """For the block, a child computing the measurement checks' array work
    (:class:`ChecksChild`); None where no child can be had. The child is stopped, and both
    ends of the connection closed, when the block ends, however it ends."""
    with array_child("checks_child", lambda arrays: _computed(arrays)) as child:
        yield None if child is None else ChecksChild(child)

"""The shared-count bootstrap intervals computed by a child process beside the analysis.

The intervals of the benchmarks resampled with the shared count matrices
(:func:`speeduptest.stats.effect_size.flat_bootstrap_ends`: matrix products and partitions) are
array work that depends on nothing else of the analysis. A thread computed them while the
main one ran the tests and decisions, but each of its numpy calls needs the GIL to start, and
the hand-overs cost the main thread a third of its time: 10,000 pairs of 31 values, main
thread's work 0.64 s alone, 0.88-0.97 s beside the thread. A child process takes no GIL.

The child is forked before the samples are read, while this process is small (a child forked
later shares the pages of everything read, and each page either process then touches is
copied: see :mod:`speeduptest.runtime.forking`). It gets each batch's samples
(:mod:`speeduptest.runtime.array_child`) and sends back the ends of their intervals, computed
by the same function on the same numbers, so they are what the thread computed, bit for bit.
Should the child be gone, or never start, the caller computes them itself.

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=bootstrap_child``, whose plain
path is the thread beside the tests, with :mod:`speeduptest.runtime.switching`'s quick
hand-overs; ``benchmarks/runtime_mechanisms.py``, ``--format json``, median of runs paired
with a run as it is, 2-core machine): 8.8% of the run at 10,000 pairs of 31 values (2.00 s
without, 1.82 s with; quartiles of the gain over 7 rounds +8.2% to +10.3%); 4.6% and 5.0% in
two series at 100,000 with commit a7e5baa, before a streamed batch's effect sizes were
finished after the next batch is read (16.1-16.3 s without, 15.1-15.3 s with). Against a
thread at the interpreter's 5 ms switch interval
(``SPEEDUPTEST_WITHOUT=bootstrap_child,switching``): 11% at 10,000 pairs (2.07 s without,
before that change).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from speeduptest.runtime.array_child import ArrayChild, array_child
from speeduptest.stats.effect_size import flat_bootstrap_ends

#: Each group of benchmarks of the same sizes: confidences (b), initial (b × n), optimized
#: (b × m).
Group = tuple[np.ndarray, np.ndarray, np.ndarray]
#: Each group's interval ends: low (b), high (b).
Ends = tuple[np.ndarray, np.ndarray]


def computed_here(resamples: int, seed: int, groups: Sequence[Group]) -> list[Ends]:
    """What the child computes, computed in this process."""
    return [flat_bootstrap_ends(initial, optimized, confidence, resamples, seed)
            for confidence, initial, optimized in groups]


class BootstrapChild:
    """The parent's end: :meth:`submit` a batch, then take its answer."""

    def __init__(self, child: ArrayChild) -> None:
        self._child = child

    def submit(self, resamples: int, seed: int, groups: Sequence[Group]
               ) -> Callable[[], list[Ends]]:
        """Send a batch; the function returned waits for its intervals' ends (or computes
        them here if the child is gone)."""
        groups = [tuple(np.ascontiguousarray(part, dtype=float) for part in group)
                  for group in groups]
        try:
            settings = np.array([resamples, seed], dtype=np.int64)
        except OverflowError:  # a seed beyond 64 bits (the API's): computed here
            return lambda: computed_here(resamples, seed, groups)
        answer = self._child.submit([settings, *(part for group in groups for part in group)])

        def ends() -> list[Ends]:
            found = answer()
            return [(found[2 * index], found[2 * index + 1]) for index in range(len(groups))]

        return ends


def _computed(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """What the child computes of a message: the resamples and the seed, then each group's
    confidences, initial and optimized times; each group's low and high ends."""
    resamples, seed = arrays[0].tolist()
    groups = [tuple(arrays[first:first + 3]) for first in range(1, len(arrays), 3)]
    return [end for ends in computed_here(resamples, seed, groups) for end in ends]


@contextlib.contextmanager
def bootstrap_child() -> Iterator[BootstrapChild | None]:
    """For the block, a child computing shared-count bootstrap intervals
    (:class:`BootstrapChild`); None where no child can be had. The child is stopped, and both
    ends of the connection closed, when the block ends, however it ends."""
    with array_child("bootstrap_child", lambda arrays: _computed(arrays)) as child:
        yield None if child is None else BootstrapChild(child)

"""The shared-count bootstrap intervals computed by a child process beside the analysis.

The intervals of the benchmarks resampled with the shared count matrices
(:func:`speeduptest.effect_size.flat_bootstrap_ends`: matrix products and partitions) are
array work that depends on nothing else of the analysis. A thread computed them while the
main one ran the tests and decisions, but each of its numpy calls needs the GIL to start, and
the hand-overs cost the main thread a third of its time: 10,000 pairs of 31 values, main
thread's work 0.64 s alone, 0.88-0.97 s beside the thread. A child process takes no GIL.

The child is forked before the samples are read, while this process is small (a child forked
later shares the pages of everything read, and each page either process then touches is
copied: see :mod:`speeduptest.forking`). It gets each batch's samples through a pipe
(0.5 MB for 1,024 pairs of 31 values) and sends back the ends of their intervals, computed
by the same function on the same numbers, so they are what the thread computed, bit for bit.
Should the child be gone, or never start, the caller computes them itself.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .effect_size import flat_bootstrap_ends
from .floats import special_values_expected
from .forking import child_process

#: A message's length, before its pickled content.
_LENGTH = struct.Struct("<Q")

#: Each group of benchmarks of the same sizes: confidences (b), initial (b × n), optimized
#: (b × m).
Group = tuple[np.ndarray, np.ndarray, np.ndarray]
#: Each group's interval ends: low (b), high (b).
Ends = tuple[np.ndarray, np.ndarray]


class ChildGone(Exception):
    """The child ended (or cannot be written to): the caller computes the intervals itself."""


def computed_here(resamples: int, seed: int, groups: Sequence[Group]) -> list[Ends]:
    """What the child computes, computed in this process."""
    return [flat_bootstrap_ends(initial, optimized, confidence, resamples, seed)
            for confidence, initial, optimized in groups]


class BootstrapChild:
    """The parent's end: :meth:`submit` a batch, then take its answer."""

    def __init__(self, requests: int, answers: int) -> None:
        self._requests = requests
        self._answers = os.fdopen(answers, "rb")
        self._gone = False
        self._waiting = False  # an answer is due that was not taken yet

    def submit(self, resamples: int, seed: int, groups: Sequence[Group]
               ) -> Callable[[], list[Ends]]:
        """Send a batch; the function returned waits for its intervals' ends (or computes
        them here if the child is gone). One batch at a time: its answer is taken before the
        next is sent, so that neither process ever waits to write while the other does."""
        if self._waiting:  # an answer left behind (an error in between): the child is not
            self._gone = True  # asked again, rather than its answer taken for this batch's
            self._waiting = False
        if not self._gone:
            message = pickle.dumps((resamples, seed, list(groups)),
                                   protocol=pickle.HIGHEST_PROTOCOL)
            try:
                os.write(self._requests, _LENGTH.pack(len(message)))
                with memoryview(message) as view:
                    sent = 0
                    while sent < len(view):
                        sent += os.write(self._requests, view[sent:])
            except OSError:  # the child ended (EPIPE)
                self._gone = True
            self._waiting = not self._gone

        def answer() -> list[Ends]:
            if self._waiting:
                self._waiting = False
                try:
                    return self._receive()
                except ChildGone:
                    self._gone = True
            return computed_here(resamples, seed, groups)

        return answer

    def _receive(self) -> list[Ends]:
        header = self._answers.read(_LENGTH.size)
        if len(header) < _LENGTH.size:
            raise ChildGone
        (length,) = _LENGTH.unpack(header)
        message = self._answers.read(length)
        if len(message) < length:
            raise ChildGone
        return pickle.loads(message)

    def close(self) -> None:
        os.close(self._requests)
        self._answers.close()


@contextlib.contextmanager
def bootstrap_child() -> Iterator[BootstrapChild | None]:
    """For the block, a child computing shared-count bootstrap intervals
    (:class:`BootstrapChild`); None where no child can be had. The child is stopped when the
    block ends."""
    try:
        request_read, request_write = os.pipe()
    except OSError:
        yield None
        return
    try:
        answer_read, answer_write = os.pipe()
    except OSError:
        os.close(request_read)
        os.close(request_write)
        yield None
        return

    def serve() -> None:
        os.close(request_write)
        os.close(answer_read)
        _serve(request_read, answer_write)

    with child_process(serve) as child:
        os.close(request_read)
        os.close(answer_write)
        if child is None:
            os.close(request_write)
            os.close(answer_read)
            yield None
            return
        helper = BootstrapChild(request_write, answer_read)
        try:
            yield helper
        finally:
            helper.close()


@special_values_expected
def _serve(requests: int, answers: int) -> None:
    """In the child: answer each batch until the parent closes its end."""
    with os.fdopen(requests, "rb") as stream:
        while True:
            header = stream.read(_LENGTH.size)
            if len(header) < _LENGTH.size:
                return
            (length,) = _LENGTH.unpack(header)
            message = stream.read(length)
            if len(message) < length:
                return
            ends = computed_here(*pickle.loads(message))
            answer = pickle.dumps(ends, protocol=pickle.HIGHEST_PROTOCOL)
            data = _LENGTH.pack(len(answer)) + answer
            sent = 0
            while sent < len(data):
                sent += os.write(answers, data[sent:])

"""The shared-count bootstrap intervals computed by a child process beside the analysis.

The intervals of the benchmarks resampled with the shared count matrices
(:func:`speeduptest.stats.effect_size.flat_bootstrap_ends`: matrix products and partitions) are
array work that depends on nothing else of the analysis. A thread computed them while the
main one ran the tests and decisions, but each of its numpy calls needs the GIL to start, and
the hand-overs cost the main thread a third of its time: 10,000 pairs of 31 values, main
thread's work 0.64 s alone, 0.88-0.97 s beside the thread. A child process takes no GIL.

The child is forked before the samples are read, while this process is small (a child forked
later shares the pages of everything read, and each page either process then touches is
copied: see :mod:`speeduptest.runtime.forking`). It gets each batch's samples through a socket
(their bytes as they are: 0.5 MB for 1,024 pairs of 31 values) and sends back the ends of their
intervals, computed by the same function on the same numbers, so they are what the thread
computed, bit for bit. Should the child be gone, or never start, the caller computes them
itself. (A socket rather than a pipe: writing to a child that has ended must fail with EPIPE,
not raise SIGPIPE, in a host program that does not ignore it.)

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
import socket
import struct
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from speeduptest.floats import special_values_expected
from speeduptest.runtime import without
from speeduptest.runtime.forking import can_fork, child_process
from speeduptest.stats.effect_size import flat_bootstrap_ends

#: A batch: resamples, seed, number of groups; then each group: rows, n, m, followed by its
#: confidences (rows), initial (rows × n) and optimized (rows × m) times as float64.
_BATCH = struct.Struct("<qqq")
_GROUP = struct.Struct("<qqq")

#: Writing to a socket whose reader has ended: EPIPE, not SIGPIPE (Linux; children are
#: forked nowhere else).
_NO_SIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)

#: Each group of benchmarks of the same sizes: confidences (b), initial (b × n), optimized
#: (b × m).
Group = tuple[np.ndarray, np.ndarray, np.ndarray]
#: Each group's interval ends: low (b), high (b).
Ends = tuple[np.ndarray, np.ndarray]


class ChildGone(Exception):
    """The child ended: the caller computes the intervals itself."""


def computed_here(resamples: int, seed: int, groups: Sequence[Group]) -> list[Ends]:
    """What the child computes, computed in this process."""
    return [flat_bootstrap_ends(initial, optimized, confidence, resamples, seed)
            for confidence, initial, optimized in groups]


class BootstrapChild:
    """The parent's end: :meth:`submit` a batch, then take its answer."""

    def __init__(self, connection: socket.socket) -> None:
        self._connection = connection
        self._gone = False
        self._waiting = False  # an answer is due that was not taken yet

    def submit(self, resamples: int, seed: int, groups: Sequence[Group]
               ) -> Callable[[], list[Ends]]:
        """Send a batch; the function returned waits for its intervals' ends (or computes
        them here if the child is gone). One batch at a time: its answer is taken before the
        next is sent, so that neither process ever waits to write while the other does."""
        groups = [tuple(np.ascontiguousarray(part, dtype=float) for part in group)
                  for group in groups]
        if self._waiting:  # an answer left behind (an error in between): the child is not
            self._gone = True  # asked again, rather than its answer taken for this batch's
            self._waiting = False
        if not self._gone:
            try:
                self._send(_BATCH.pack(resamples, seed, len(groups)))
                for confidence, initial, optimized in groups:
                    self._send(_GROUP.pack(*initial.shape, optimized.shape[1]))
                    for part in (confidence, initial, optimized):
                        self._send(memoryview(part).cast("B"))
                self._waiting = True
            except OSError:  # the child ended (EPIPE, ECONNRESET)
                self._gone = True
            except struct.error:  # a seed beyond 64 bits (the API's): computed here
                self._waiting = False

        def answer() -> list[Ends]:
            if self._waiting:
                self._waiting = False
                try:
                    return [(_received(self._connection, len(confidence)),
                             _received(self._connection, len(confidence)))
                            for confidence, _, _ in groups]
                except (ChildGone, OSError):
                    self._gone = True
            return computed_here(resamples, seed, groups)

        return answer

    def _send(self, data: bytes | memoryview) -> None:
        self._connection.sendall(data, _NO_SIGNAL)


def _received(connection: socket.socket, count: int) -> np.ndarray:
    """``count`` float64 from ``connection``; ChildGone if it ends first."""
    values = np.empty(count)
    _fill(connection, memoryview(values).cast("B"))
    return values


def _fill(connection: socket.socket, view: memoryview) -> None:
    """Fill ``view`` from ``connection``; ChildGone if it ends first."""
    got = 0
    while got < len(view):
        received = connection.recv_into(view[got:])
        if not received:
            raise ChildGone
        got += received


@contextlib.contextmanager
def bootstrap_child() -> Iterator[BootstrapChild | None]:
    """For the block, a child computing shared-count bootstrap intervals
    (:class:`BootstrapChild`); None where no child can be had. The child is stopped, and both
    ends of the connection closed, when the block ends, however it ends."""
    if without("bootstrap_child") or not can_fork():  # (then no socket is made either)
        yield None
        return
    try:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:  # no descriptors to be had (limits)
        yield None
        return

    def serve() -> None:
        ours.close()
        _serve(theirs)

    with ours, theirs, child_process(serve) as child:
        theirs.close()
        yield None if child is None else BootstrapChild(ours)


@special_values_expected
def _serve(connection: socket.socket) -> None:
    """In the child: answer each batch until the parent closes its end."""
    while True:
        try:
            resamples, seed, count = _unpacked(connection, _BATCH)
            groups = []
            for _ in range(count):
                rows, n, m = _unpacked(connection, _GROUP)
                groups.append((_received(connection, rows),
                               _received(connection, rows * n).reshape(rows, n),
                               _received(connection, rows * m).reshape(rows, m)))
        except ChildGone:
            return
        for low, high in computed_here(resamples, seed, groups):
            connection.sendall(memoryview(low).cast("B"))
            connection.sendall(memoryview(high).cast("B"))


def _unpacked(connection: socket.socket, layout: struct.Struct) -> tuple[int, ...]:
    """A header of ``layout`` from ``connection``; ChildGone if it ends first."""
    data = bytearray(layout.size)
    _fill(connection, memoryview(data))
    return layout.unpack(data)

"""Array work done by a child process beside this one: the seam that
:mod:`speeduptest.runtime.bootstrap_child` and :mod:`speeduptest.runtime.checks_child` share.

The parent :meth:`~ArrayChild.submit`\\ s a list of arrays, goes on with its own work, then takes
the arrays the child computed from them, with a function given when the child was forked (the
same function on the same numbers: the same bits as in this process). Should the child be gone,
or never start, the parent computes them itself. One request at a time: its answer is taken
before the next is sent, so that neither process ever waits to write while the other does.

Arrays go through a socket as their bytes, each after a header (type, dimensions, shape): 0.5 MB
for 1,024 pairs of 31 values. A socket rather than a pipe: writing to a child that has ended
must fail with EPIPE, not raise SIGPIPE, in a host program that does not ignore it.
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

#: A message: how many arrays follow.
_MESSAGE = struct.Struct("<q")
#: An array: its type (an index of _TYPES), dimensions (1 or 2), and shape (0 where unused).
_ARRAY = struct.Struct("<qqqq")
_TYPES = (np.dtype(np.float64), np.dtype(np.int64))

#: Writing to a socket whose reader has ended: EPIPE, not SIGPIPE (Linux; children are
#: forked nowhere else).
_NO_SIGNAL = getattr(socket, "MSG_NOSIGNAL", 0)

#: What a child computes: arrays from arrays (float64 or int64, of 1 or 2 dimensions).
Compute = Callable[[list[np.ndarray]], list[np.ndarray]]


class ChildGone(Exception):
    """The child ended: the caller computes the arrays itself."""


class ArrayChild:
    """The parent's end: :meth:`submit` arrays, then take the answer."""

    def __init__(self, connection: socket.socket, compute: Compute) -> None:
        self._connection = connection
        self._compute = compute
        self._gone = False
        self._waiting = False  # an answer is due that was not taken yet

    def submit(self, arrays: Sequence[np.ndarray]) -> Callable[[], list[np.ndarray]]:
        """Send ``arrays`` (float64 or int64, contiguous, of 1 or 2 dimensions); the
        function returned waits for the child's answer, or computes it here if the child is
        gone."""
        arrays = [np.ascontiguousarray(array) for array in arrays]
        if self._waiting:  # an answer left behind (an error in between): the child is not
            self._gone = True  # asked again, rather than its answer taken for this request
            self._waiting = False
        if not self._gone:
            try:
                _send(self._connection, arrays)
                self._waiting = True
            except OSError:  # the child ended (EPIPE, ECONNRESET)
                self._gone = True

        def answer() -> list[np.ndarray]:
            if self._waiting:
                self._waiting = False
                try:
                    return _received(self._connection)
                except (ChildGone, OSError):
                    self._gone = True
            return self._compute(arrays)

        return answer


def _send(connection: socket.socket, arrays: Sequence[np.ndarray]) -> None:
    connection.sendall(_MESSAGE.pack(len(arrays)), _NO_SIGNAL)
    for array in arrays:
        shape = (*array.shape, 0)[:2]
        connection.sendall(_ARRAY.pack(_TYPES.index(array.dtype), array.ndim, *shape),
                           _NO_SIGNAL)
        if array.size:
            connection.sendall(memoryview(array).cast("B"), _NO_SIGNAL)


def _received(connection: socket.socket) -> list[np.ndarray]:
    """The arrays of one message from ``connection``; ChildGone if it ends first."""
    (count,) = _unpacked(connection, _MESSAGE)
    arrays = []
    for _ in range(count):
        kind, dimensions, *shape = _unpacked(connection, _ARRAY)
        array = np.empty(shape[:dimensions], dtype=_TYPES[kind])
        if array.size:
            _fill(connection, memoryview(array).cast("B"))
        arrays.append(array)
    return arrays


def _unpacked(connection: socket.socket, layout: struct.Struct) -> tuple[int, ...]:
    """A header of ``layout`` from ``connection``; ChildGone if it ends first."""
    data = bytearray(layout.size)
    _fill(connection, memoryview(data))
    return layout.unpack(data)


def _fill(connection: socket.socket, view: memoryview) -> None:
    """Fill ``view`` from ``connection``; ChildGone if it ends first."""
    got = 0
    while got < len(view):
        received = connection.recv_into(view[got:])
        if not received:
            raise ChildGone
        got += received


@contextlib.contextmanager
def array_child(mechanism: str, compute: Compute) -> Iterator[ArrayChild | None]:
    """For the block, a child computing ``compute`` of what is submitted to it
    (:class:`ArrayChild`); None where no child can be had, or when ``mechanism`` is switched
    off. The child is stopped, and both ends of the connection closed, when the block ends,
    however it ends."""
    if without(mechanism) or not can_fork():  # (then no socket is made either)
        yield None
        return
    try:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError:  # no descriptors to be had (limits)
        yield None
        return

    def serve() -> None:
        ours.close()
        _serve(theirs, compute)

    with ours, theirs, child_process(serve) as child:
        theirs.close()
        yield None if child is None else ArrayChild(ours, compute)


@special_values_expected
def _serve(connection: socket.socket, compute: Compute) -> None:
    """In the child: answer each message until the parent closes its end."""
    while True:
        try:
            arrays = _received(connection)
        except ChildGone:
            return
        _send(connection, compute(arrays))

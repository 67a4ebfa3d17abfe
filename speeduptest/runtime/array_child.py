"""A child process that computes arrays from arrays beside this one: the transport of
:mod:`speeduptest.runtime.batch_child`.

The parent :meth:`~ArrayChild.submit`\\ s a list of arrays and goes on with its own work; the
function returned takes the arrays the child computed from them, with the function given when
the child was forked (the same function on the same numbers: the same bits as in this
process). Should the child be gone, or never start, the parent computes them itself.

Several requests may be in flight: the child answers them in order, and the parent takes the
answers in the order it asked (an answer skipped is read and dropped, and the request it was
for is computed here). The parent never waits to write while the child waits for it to read:
as it sends, it reads what the child has answered meanwhile.

Arrays go through a socket as their bytes, each after a header (type, dimensions, shape):
0.5 MB for 1,024 pairs of 31 values. A socket rather than a pipe: writing to a child that has
ended must fail with EPIPE, not raise SIGPIPE, in a host program that does not ignore it.
"""

from __future__ import annotations

import collections
import contextlib
import select
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
#: Bytes read at a time from what the child answered while this process sends (at most what
#: a socket holds).
_CHUNK = 1 << 18

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
        self._inbox = bytearray()  # what the child answered while this process was sending
        self._due: collections.deque[int] = collections.deque()  # requests not answered yet
        self._sent = 0  # requests sent

    def submit(self, arrays: Sequence[np.ndarray]) -> Callable[[], list[np.ndarray]]:
        """Send ``arrays`` (float64 or int64, of 1 or 2 dimensions); the function returned
        waits for the child's answer, or computes it here if the child is gone."""
        arrays = [np.ascontiguousarray(array) for array in arrays]
        for array in arrays:
            if array.dtype not in _TYPES or array.ndim not in (1, 2):
                raise ValueError(f"an array child takes float64 or int64 arrays of 1 or 2 "
                                 f"dimensions, not {array.dtype} of {array.ndim}")
        ticket = None
        if not self._gone:
            with self._unless_gone():
                self._send(arrays)
                ticket = self._sent
                self._sent += 1
                self._due.append(ticket)

        def answer() -> list[np.ndarray]:
            if ticket is not None and not self._gone and ticket in self._due:
                with self._unless_gone():
                    while self._due[0] != ticket:  # an answer not taken: dropped
                        self._message()
                        self._due.popleft()
                    found = self._message()
                    self._due.popleft()
                    return found
            return self._compute(arrays)

        return answer

    @contextlib.contextmanager
    def _unless_gone(self) -> Iterator[None]:
        """The block, the child taken for gone if it ended (EPIPE, ECONNRESET, end of
        file) or if anything else stopped the block halfway through a message: the stream
        is then out of step, and the child is asked nothing more."""
        try:
            yield
        except BaseException as error:
            self._gone = True
            if not isinstance(error, (ChildGone, OSError)):
                raise

    def _send(self, arrays: Sequence[np.ndarray]) -> None:
        """Send a message, reading into the inbox whatever the child answers meanwhile: it
        may be waiting to write an earlier answer before it reads this request."""
        poll = select.poll()
        poll.register(self._connection, select.POLLIN | select.POLLOUT)
        for part in _encoded(arrays):
            view = memoryview(part).cast("B")
            while view:
                for _, events in poll.poll():
                    if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
                        with contextlib.suppress(BlockingIOError):
                            chunk = self._connection.recv(_CHUNK, socket.MSG_DONTWAIT)
                            if not chunk:
                                raise ChildGone
                            self._inbox += chunk
                    if events & select.POLLOUT:
                        with contextlib.suppress(BlockingIOError):
                            view = view[self._connection.send(
                                view, socket.MSG_DONTWAIT | _NO_SIGNAL):]

    def _message(self) -> list[np.ndarray]:
        """The next message from the child (the inbox first); ChildGone if it ends first."""
        return _decoded(self._read_into)

    def _read_into(self, view: memoryview) -> None:
        taken = min(len(view), len(self._inbox))
        if taken:
            view[:taken] = self._inbox[:taken]
            del self._inbox[:taken]
        _fill(self._connection, view[taken:])


def _encoded(arrays: Sequence[np.ndarray]) -> Iterator[bytes | np.ndarray]:
    """A message's parts: its header, then each array's header and (non-empty) data."""
    yield _MESSAGE.pack(len(arrays))
    for array in arrays:
        yield _ARRAY.pack(_TYPES.index(array.dtype), array.ndim, *(*array.shape, 0)[:2])
        if array.size:
            yield array


def _decoded(fill: Callable[[memoryview], None]) -> list[np.ndarray]:
    """A message's arrays, read with ``fill`` (which fills a view or raises ChildGone)."""
    (count,) = _unpacked(fill, _MESSAGE)
    arrays = []
    for _ in range(count):
        kind, dimensions, *shape = _unpacked(fill, _ARRAY)
        array = np.empty(shape[:dimensions], dtype=_TYPES[kind])
        if array.size:
            fill(memoryview(array).cast("B"))
        arrays.append(array)
    return arrays


def _unpacked(fill: Callable[[memoryview], None], layout: struct.Struct) -> tuple[int, ...]:
    data = bytearray(layout.size)
    fill(memoryview(data))
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
    for end in (ours, theirs):  # (blocking, whatever socket.setdefaulttimeout a host set)
        end.settimeout(None)

    def serve() -> None:
        ours.close()
        _serve(theirs, compute)

    with ours, theirs, child_process(serve) as child:
        theirs.close()
        yield None if child is None else ArrayChild(ours, compute)


@special_values_expected
def _serve(connection: socket.socket, compute: Compute) -> None:
    """In the child: answer each message, in order, until the parent closes its end."""
    while True:
        try:
            arrays = _decoded(lambda view: _fill(connection, view))
        except ChildGone:
            return
        for part in _encoded(compute(arrays)):
            connection.sendall(memoryview(part).cast("B"), _NO_SIGNAL)

"""The bytes of many small files read by a child process while this one parses them.

Reading the 20,000 files of 10,000 benchmarks costs 7-27 µs of system calls per file on the
2-core virtual machine of the benchmarks (open, fstat, read, close; depending on what the
kernel has cached), time in which this process could parse. A thread cannot take them over: it
would need the GIL back after every call, and gets it only every 5 ms while the parser runs. A
child forked for the purpose (:mod:`speeduptest.runtime.forking`) makes the calls and streams the
contents through a pipe, read here in large blocks.

Only regular files read whole are sent; anything else (missing, unreadable, a directory, a
pipe, larger than PREFETCH_MAX_BYTES, grown while read) is marked "read it yourself", and the
caller reads it exactly as without the child, so every problem is reported as before.

The child can start before the caller knows which files it needs: it reads the files of a
guess (:func:`speeduptest.inputs.config.sample_files`: the paths in a config, while the caller
checks the config's every row), each sent with its path; the caller takes the file it needs from
what arrives, skipping files it does not need, and reads itself any that did not arrive.

The child may also do the first step of the caller's work on a file (``digest``: for plain
samples, their checksum and values, see :func:`speeduptest.inputs.readers.plain_digest`) and send
that instead of the bytes: it has the time (its system calls take a fraction of what parsing takes
here), and what it sends is what the caller would have computed from the bytes.

Before any content, the child stats every file of the guess and sends what it found (device
and inode, or why the stat failed, or what other kind of file than a regular one it is): the
caller's config check takes that instead of its own stat (``fetch.status``), 200,000 system
calls fewer at 100,000 rows.

When a core is idle as it starts, the child runs on what the other processes leave of the
cores (SCHED_IDLE, :func:`_yield_cores`); the caller never waits long for it (see
:class:`_Arrivals`).

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=prefetch``, whose plain path is
the caller making the system calls and parsing every file itself;
``benchmarks/runtime_mechanisms.py``, ``--format json``, median of runs paired with a run as it
is, 2-core machine): 19.0% of the run at 10,000 pairs of 31 values (2.23 s without, 1.82 s
with; quartiles over 7 rounds 16.7-19.7%), 19% at 100,000 (18.4 s without, 15.1 s with,
measured with commit a7e5baa).
"""

from __future__ import annotations

import array
import collections
import contextlib
import fcntl
import math
import os
import select
import stat
import struct
import sys
import termios
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple, Protocol

from speeduptest.runtime import without
from speeduptest.runtime.forking import can_fork, child_process

#: Files below which the child is not worth its start (measured: ~15 ms to fork).
MIN_FILES = 1_000
#: Larger files are read by the caller (a few large files gain nothing from the child).
PREFETCH_MAX_BYTES = 1 << 20
#: Frame header: the payload's length, or SKIP; the path's length; what the payload is
#: (_CONTENT, _DIGEST, _STATUS). The path (as bytes) follows, then the payload.
_HEADER = struct.Struct("<IIB")
_HEADER_SIZE, _unpack_header = _HEADER.size, _HEADER.unpack_from
_SKIP = 0xFFFFFFFF
_CONTENT, _DIGEST, _STATUS = 0, 1, 2
#: A status payload: the errno of the failed stat (0: none; or what a stat of a file that is
#: not a regular file found, see _found), the device and inode.
_FOUND = struct.Struct("<qQQ")
_unpack_found = _FOUND.unpack_from
_new_tuple = tuple.__new__
#: How a path becomes the bytes that name its frame (what os.fsencode does).
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
#: What a stat found of a name that cannot be a path (a NUL in it: ValueError).
INVALID_NAME = -1
#: Frames looked through for a file the caller needs before it reads the file itself: the
#: guess holds files that the caller does not need (rows with errors, a file named twice).
_LOOKAHEAD = 64
#: How long the caller waits for a frame before it reads its files itself (see _Arrivals):
#: the child sends one every 10-40 µs when it has a core.
_PATIENCE_MS = 100
#: Bytes taken from the pipe at once (it holds 64 KiB).
_READ_SIZE = 1 << 20


class Digested(NamedTuple):
    """What ``digest`` made of a file's content in the child (instead of the content)."""

    payload: bytes


#: In the child: a compact form of a file's content that the caller can use instead of the
#: content itself (None: send the content).
Digest = Callable[[str | Path, bytes], bytes | None]
#: What a stat of a path found: the file's (device, inode), or the errno of the failure
#: (INVALID_NAME for a name that cannot be a path), or for a file that is not a regular file (a
#: folder, a pipe, a device, a socket) minus its type (see :func:`file_type`).
Found = tuple[int, int] | int


class Fetch(Protocol):
    """The files read ahead, as the caller takes them."""

    def __call__(self, path: Path) -> bytes | Digested | None:
        """The file's content as the child sent it (or its digest); None: read it yourself."""

    def status(self, path: str) -> Found | None:
        """What the child's stat of ``path`` found; None: stat it yourself."""


#: Bytes the child gathers before writing them in one call (few: the backlog it measures is
#: then current).
_BLOCK = 1 << 14
#: Bytes the child keeps for the caller beyond what the pipe holds (while the caller checks the
#: config, say): past it, the child waits until half of them are taken. 8 MiB are the plain
#: samples of ~22,000 files.
_AHEAD_MAX = 8 << 20
#: The child digests a file only while the caller has at least this much to read: the child
#: then has time to spare, and the caller less to do; otherwise it sends the bytes as they
#: are, so that the caller does not wait for it (digesting costs the child several times
#: what the system calls cost on a warm cache, and less than them on a cold one).
_BACKLOG = 1 << 14


class _ReadItYourself:
    """The fetch without a child: every file is the caller's to read, and to stat."""

    def __call__(self, path: Path) -> None:
        return None

    def status(self, path: str) -> None:
        return None


def stat_found(path: str | Path) -> Found:
    """What a stat of ``path`` finds (as the child's statuses say it)."""
    return _found(_stat(path))


def _stat(path: str | Path) -> os.stat_result | int:
    try:
        return os.stat(path)
    except OSError as error:
        return error.errno or 0
    except ValueError:
        return INVALID_NAME


def _found(status: os.stat_result | int) -> Found:
    if isinstance(status, int):
        return status
    if stat.S_ISREG(status.st_mode):
        return status.st_dev, status.st_ino
    return -stat.S_IFMT(status.st_mode)  # (all below INVALID_NAME: S_IFIFO is 0o10000)


def file_type(found: Found) -> int | None:
    """The type (``stat.S_IFMT``: ``stat.S_IFDIR``, ``stat.S_IFIFO``, …) of a file that a stat
    ``found`` but that is not a regular file; None for anything else."""
    return -found if isinstance(found, int) and found < INVALID_NAME else None


@contextlib.contextmanager
def prefetching(guess: Callable[[], Iterable[str | Path]], digest: Digest | None = None,
                files: int = MIN_FILES) -> Iterator[Fetch]:
    """For the block, a child reading ahead the files that ``guess`` gives (called in the
    child), in its order; ``files``: about how many (no child below MIN_FILES). The block
    gets ``fetch(path)``: the file's content (or what ``digest`` made of it, when not None),
    or None where the caller must read the file itself (also for a file not guessed, or
    asked for in another order than guessed). The child first stats every file (in the
    order guessed): ``fetch.status(path)`` says what it found, until the first content is
    asked for. The child is reaped when the block ends."""
    if files < MIN_FILES or without("prefetch") or not can_fork():
        yield _ReadItYourself()
        return
    try:
        read_end, write_end = os.pipe()
    except OSError:  # no pipe to be had (limits): read them here
        yield _ReadItYourself()
        return

    def serve() -> None:
        os.close(read_end)
        _yield_cores()
        _serve(guess(), digest, write_end)

    with child_process(serve) as child:
        os.close(write_end)
        if child is None:  # no child to be had: read them here
            os.close(read_end)
            yield _ReadItYourself()
            return
        try:
            yield _Arrivals(read_end)
        finally:
            os.close(read_end)


class _Arrivals:
    """The frames the child sends, taken by path.

    The caller does not wait long for a child that cannot keep up: the child may run on
    what the other processes leave of the cores (:func:`_yield_cores`), which on a machine
    whose cores have become busy can be next to nothing. Once it has waited _PATIENCE_MS for
    a frame, the caller reads its files itself, taking from the child only what has already
    arrived, until a file it needs is among them again; the frames of the files it read
    itself are dropped as they arrive."""

    def __init__(self, descriptor: int) -> None:
        self._descriptor = descriptor
        self._poll = select.poll()
        self._poll.register(descriptor, select.POLLIN)
        self._buffer = bytearray()
        self._start = 0  # where the next frame starts in the buffer
        # The frames parsed, not taken yet: (path, whether it is a status, what it holds).
        self._frames: collections.deque[tuple[bytes, bool, bytes | Digested | Found | None]] = (
            collections.deque())
        self._ahead: dict[bytes, bytes | Digested | None] = {}  # arrived, not asked for yet
        self._passed: set[bytes] = set()  # read by the caller before their frame arrived
        self._statuses: dict[bytes, Found] = {}  # arrived, not asked for yet
        self._statuses_passed: set[bytes] = set()  # stat by the caller before they arrived
        self._statuses_ended = False  # the contents have begun
        self._ended = False
        self._patient = True  # whether to wait for the next frame (the child keeps up)

    def __call__(self, path: Path) -> bytes | Digested | None:
        # (os.fsencode written out: asked for 40,000 times at 10,000 pairs)
        return self._take(os.fspath(path).encode(_FS_ENCODING, _FS_ERRORS), statuses=False)

    def status(self, path: str) -> Found | None:
        return self._take(path.encode(_FS_ENCODING, _FS_ERRORS), statuses=True)  # type: ignore[return-value]

    def _take(self, name: bytes, statuses: bool) -> bytes | Digested | Found | None:
        """The frame of the file ``name`` of the kind asked for (what its stat found, or its
        content), looked for among the next _LOOKAHEAD that arrive (those of files read
        here before they arrived do not count: a child catching up); None for "do it
        yourself". Statuses come before all contents: a content asked for passes over the
        statuses no one asked for, and a status is not looked for once contents arrive."""
        ahead, passed = ((self._statuses, self._statuses_passed) if statuses
                         else (self._ahead, self._passed))
        if name in ahead:
            return ahead.pop(name)
        looked = 0
        frames = self._frames
        while looked < _LOOKAHEAD and not (statuses and self._statuses_ended):
            if not frames and (self._ended or not self._received()):
                break
            frame_name, is_status, value = frames.popleft()
            if is_status != statuses:
                if statuses:  # the first content
                    self._statuses_ended = True
                    self._ahead[frame_name] = value
                continue
            if frame_name in passed:
                passed.discard(frame_name)
                continue
            if frame_name == name:
                self._patient = True
                return value
            ahead[frame_name] = value
            looked += 1
        if not self._ended and not (statuses and self._statuses_ended):
            passed.add(name)
        return None

    def _parse(self) -> None:
        """Every whole frame in what has arrived, onto ``_frames``: (path, whether it is a
        status, what it holds). All at once as they arrive, in one loop (10,000 pairs:
        40,000 frames, 65 -> 40 ms)."""
        buffer, start, size_of = self._buffer, self._start, len(self._buffer)
        frames = self._frames
        # (Copied out through a view, once: a bytearray's slice is a copy of its own.)
        with memoryview(buffer) as view:
            while size_of - start >= _HEADER_SIZE:
                size, name_size, kind = _unpack_header(buffer, start)
                name_end = start + _HEADER_SIZE + name_size
                end = name_end if size == _SKIP else name_end + size
                if size_of < end:
                    break
                name = bytes(view[start + _HEADER_SIZE:name_end])
                start = end
                if size == _SKIP:
                    frames.append((name, False, None))
                elif kind == _STATUS:
                    failure, device, inode = _unpack_found(buffer, name_end)
                    frames.append((name, True, failure if failure else (device, inode)))
                elif kind == _DIGEST:  # (Digested(…) without its Python __new__)
                    content = bytes(view[name_end:end])
                    frames.append((name, False, _new_tuple(Digested, (content,))))
                else:
                    frames.append((name, False, bytes(view[name_end:end])))
        self._start = start

    def _received(self) -> bool:
        """Whether more of the frames arrived: waiting up to _PATIENCE_MS while the child keeps
        up, else only taking what is there. A child that ended ends the frames (one that
        died while writing a frame leaves it cut short: it is never read)."""
        while True:
            if not self._poll.poll(_PATIENCE_MS if self._patient else 0):
                self._patient = False
                return False
            data = os.read(self._descriptor, _READ_SIZE)
            if not data:
                self._ended = True
                return False
            del self._buffer[:self._start]
            self._start = 0
            self._buffer += data
            self._parse()
            if self._frames:
                return True


def _yield_cores() -> None:
    """Make this child run only on what the other processes leave of the cores (Linux's
    SCHED_IDLE) when a core is idle beside the caller (:func:`_a_core_to_spare`): the caller,
    and the batch child that the caller waits for, come first. At the same priority the
    three shared the two cores of the benchmarks' machine and the caller lost a fifth of the
    analysis' time; a nice value of 19 did not keep the scheduler from waking the bootstrap
    child on the caller's core. On a machine whose cores are all busy the child takes its
    share at the usual priority instead: yielding there, it would do next to nothing (10,000
    pairs beside two busy processes on two cores: 3.7 s at the usual priority, 4.4 s
    yielding)."""
    if _a_core_to_spare():
        with contextlib.suppress(AttributeError, OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _a_core_to_spare() -> bool:
    """Whether, as this child starts, the processes running (``/proc/loadavg``'s count, this
    child and the caller among them) are no more than the cores it may use: the fewest of
    _LOAD_SAMPLES counts over ~20 ms (the system's own threads run now and then: one count
    caught the writing back of the previous run's results)."""
    try:
        cores = len(os.sched_getaffinity(0))
        for sample in range(_LOAD_SAMPLES):
            if sample:
                time.sleep(_LOAD_INTERVAL)
            with open("/proc/loadavg", "rb") as handle:
                if int(handle.read().split()[3].split(b"/")[0]) <= cores:
                    return True
        return False
    except (OSError, ValueError, IndexError, AttributeError):
        return False


#: Counts of the running processes taken, and seconds between them (_a_core_to_spare).
_LOAD_SAMPLES = 5
_LOAD_INTERVAL = 0.005


def _serve(paths: Iterable[str | Path], digest: Digest | None, out: int) -> None:
    """In the child: write to ``out`` the frame of each file's status (what its stat found,
    while the caller checks the config), then of each file's content, keeping here what
    the pipe cannot hold yet, so that the child goes on, up to _AHEAD_MAX."""
    sender = _Sender(out)
    # Kept for the contents: the paths (the guess's own objects) and whether each is a regular
    # file small enough to send, a byte each (not the stats: ~0.8 KB a file).
    guessed: list[str | Path] = []
    sendable = bytearray()
    for path in paths:
        name, status = os.fsencode(path), _stat(path)
        guessed.append(path)
        sendable.append(not isinstance(status, int) and _sendable(status))
        found = _found(status)
        failure, (device, inode) = (found, (0, 0)) if isinstance(found, int) else (0, found)
        sender.add(_HEADER.pack(_FOUND.size, len(name), _STATUS) + name
                   + _FOUND.pack(failure, device, inode))
    for path, regular in zip(guessed, sendable, strict=True):
        name = os.fsencode(path)
        content = _content(path) if regular else None
        compact = (None if content is None or digest is None or not sender.backlog()
                   else digest(path, content))
        if content is None:
            sender.add(_HEADER.pack(_SKIP, len(name), _CONTENT) + name)
        elif compact is None:
            sender.add(_HEADER.pack(len(content), len(name), _CONTENT) + name + content)
        else:
            sender.add(_HEADER.pack(len(compact), len(name), _DIGEST) + name + compact)
    sender.end()


class _Sender:
    """In the child: frames gathered into blocks, written to the pipe as it has room."""

    def __init__(self, out: int) -> None:
        os.set_blocking(out, False)
        self._out = out
        self._waiting: collections.deque[bytes] = collections.deque()  # found no room yet
        self._waiting_bytes = 0
        self._frames: list[bytes] = []
        self._gathered = 0

    def backlog(self) -> bool:
        """Whether the caller has at least _BACKLOG to read (the pipe is asked how full it
        is only when what waits here is not enough)."""
        held = self._waiting_bytes + self._gathered
        return held >= _BACKLOG or held + _unread(self._out) >= _BACKLOG

    def add(self, frame: bytes) -> None:
        self._frames.append(frame)
        self._gathered += len(frame)
        if self._gathered >= _BLOCK:
            self._waiting.append(b"".join(self._frames))
            self._waiting_bytes += self._gathered
            self._frames, self._gathered = [], 0
            self._waiting_bytes -= _write_some(self._out, self._waiting)
            if self._waiting_bytes > _AHEAD_MAX:  # far enough ahead: wait for the caller
                os.set_blocking(self._out, True)
                self._waiting_bytes -= _write_some(self._out, self._waiting,
                                                   self._waiting_bytes - _AHEAD_MAX // 2)
                os.set_blocking(self._out, False)

    def end(self) -> None:
        """Write what is left (waiting as long as it takes)."""
        self._waiting.append(b"".join(self._frames))
        os.set_blocking(self._out, True)
        _write_some(self._out, self._waiting)


def _write_some(out: int, blocks: collections.deque[bytes], enough: float = math.inf) -> int:
    """Write ``blocks`` (removed as written) until the pipe is full (non-blocking), or all
    are written or at least ``enough`` bytes (blocking); the bytes written."""
    written = 0
    while blocks and written < enough:
        try:
            count = os.write(out, blocks[0])
        except BlockingIOError:
            break
        written += count
        if count < len(blocks[0]):
            blocks[0] = blocks[0][count:]
        else:
            blocks.popleft()
    return written


def _sendable(status: os.stat_result) -> bool:
    """Whether a file of this stat is one to send: regular (opening a named pipe or a device
    can have effects: a waiting writer would send its data to the child), of at most
    PREFETCH_MAX_BYTES."""
    return stat.S_ISREG(status.st_mode) and status.st_size <= PREFETCH_MAX_BYTES


def _content(path: str | Path) -> bytes | None:
    """The whole content of a file that a stat found :func:`_sendable`, if it still is, else
    None."""
    try:  # non-blocking: should it have become a named pipe since, do not wait
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        status = os.fstat(descriptor)
        if not _sendable(status):
            return None
        content = os.read(descriptor, status.st_size + 1)
        return content if len(content) <= status.st_size else None
    except OSError:
        return None
    finally:
        os.close(descriptor)


def _unread(out: int) -> int:
    """Bytes written to the pipe ``out`` that the caller has not read yet."""
    count = array.array("i", [0])
    fcntl.ioctl(out, termios.FIONREAD, count, True)
    return count[0]

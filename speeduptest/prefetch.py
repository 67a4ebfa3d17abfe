"""The bytes of many small files read by a child process while this one parses them.

Reading the 20,000 files of 10,000 benchmarks costs 7-27 µs of system calls per file on the
2-core virtual machine of the benchmarks (open, fstat, read, close; depending on what the
kernel has cached), time in which this process could parse. A thread cannot take them over: it
would need the GIL back after every call, and gets it only every 5 ms while the parser runs. A
child forked for the purpose (:mod:`speeduptest.forking`) makes the calls and streams the
contents through a pipe, read here in large blocks.

Only regular files read whole are sent; anything else (missing, unreadable, a directory, a
pipe, larger than PREFETCH_MAX_BYTES, grown while read) is marked "read it yourself", and the
caller reads it exactly as without the child, so every problem is reported as before.

The child may also do the first step of the caller's work on a file (``digest``: for plain
samples, their checksum and values, see :func:`speeduptest.readers.plain_digest`) and send that
instead of the bytes: it has the time (its system calls take a fraction of what parsing takes
here), and what it sends is what the caller would have computed from the bytes.
"""

from __future__ import annotations

import array
import fcntl
import os
import stat
import struct
import termios
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from .forking import can_fork, child_process

#: Files below which the child is not worth its start (measured: ~15 ms to fork).
MIN_FILES = 1_000
#: Larger files are read by the caller (a few large files gain nothing from the child).
PREFETCH_MAX_BYTES = 1 << 20
#: Frame header: the payload's length, or SKIP; whether it is a digest.
_HEADER = struct.Struct("<I?")
_SKIP = 0xFFFFFFFF


class Digested(NamedTuple):
    """What ``digest`` made of a file's content in the child (instead of the content)."""

    payload: bytes


#: In the child: a compact form of a file's content that the caller can use instead of the
#: content itself (None: send the content).
Digest = Callable[[Path, bytes], bytes | None]
#: Bytes the child gathers before writing them in one call (few: the backlog it measures is
#: then current).
_BLOCK = 1 << 14
#: The child digests a file only while the caller has at least this much to read: the child
#: then has time to spare, and the caller less to do; otherwise it sends the bytes as they
#: are, so that the caller does not wait for it (digesting costs the child several times
#: what the system calls cost on a warm cache, and less than them on a cold one).
_BACKLOG = 1 << 14


def prefetched(paths: Sequence[Path], digest: Digest | None = None
               ) -> Iterator[bytes | Digested | None]:
    """For each of ``paths``, in order: its content (or what ``digest`` made of it, when not
    None), or None where the caller must read the file itself. A generator: close it (or run
    it to the end) to reap the child."""
    if len(paths) < MIN_FILES or not can_fork():
        yield from (None for _ in paths)
        return
    try:
        read_end, write_end = os.pipe()
    except OSError:  # no pipe to be had (limits): read them here
        yield from (None for _ in paths)
        return

    def serve() -> None:
        os.close(read_end)
        _serve(paths, digest, write_end)

    with child_process(serve) as child:
        os.close(write_end)
        if child is None:  # no child to be had: read them here
            os.close(read_end)
            yield from (None for _ in paths)
            return
        with os.fdopen(read_end, "rb", buffering=1 << 20) as stream:
            for _ in paths:
                header = stream.read(_HEADER.size)
                if len(header) < _HEADER.size:  # the child died: read the rest here
                    yield None
                    continue
                size, digested = _HEADER.unpack(header)
                if size == _SKIP:
                    yield None
                    continue
                content = stream.read(size)
                if len(content) < size:
                    yield None
                else:
                    yield Digested(content) if digested else content


def _serve(paths: Sequence[Path], digest: Digest | None, out: int) -> None:
    """In the child: write each file's frame to ``out``."""
    frames: list[bytes] = []
    gathered = 0
    for path in paths:
        content = _content(path)
        compact = (None if content is None or digest is None
                   or gathered + _unread(out) < _BACKLOG else digest(path, content))
        if content is None:
            frames.append(_HEADER.pack(_SKIP, False))
        elif compact is None:
            frames.append(_HEADER.pack(len(content), False) + content)
        else:
            frames.append(_HEADER.pack(len(compact), True) + compact)
        gathered += len(frames[-1])
        if gathered >= _BLOCK:
            _write_all(out, b"".join(frames))
            frames, gathered = [], 0
    _write_all(out, b"".join(frames))


def _content(path: Path) -> bytes | None:
    """The whole content of a regular file of at most PREFETCH_MAX_BYTES, else None. Only a
    regular file is opened (opening a named pipe or a device can have effects: a waiting
    writer would send its data to the child)."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(status.st_mode) or status.st_size > PREFETCH_MAX_BYTES:
        return None
    try:  # non-blocking: should it have become a named pipe since, do not wait
        descriptor = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > PREFETCH_MAX_BYTES:
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


def _write_all(out: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(out, view):]

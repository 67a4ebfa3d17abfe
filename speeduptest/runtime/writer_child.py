"""A report file made in two parts at once: the second by a child process, beside this one.

results.json is the last work of a run, and a run's other cores have nothing left to do by
then: the children that read the samples and computed the bootstrap are done. The file's
blocks can be made in parts that do not depend on each other (each benchmark's entry depends
on nothing but its results: :func:`speeduptest.render.json_results.render_json_pieces`), so a
child forked at that moment makes the second part into a memory file while this process makes
and writes the first; the second is then copied after it by the kernel (``sendfile``).

The child shares the results' pages with this process: each page either process then writes
(a reference count changes) is copied, once (see :mod:`speeduptest.runtime.forking`). The
child ends without taking anything apart (``os._exit``), so it touches only its part's pages,
and the copies cost less than what it takes over. Should it fail, or no child be had, this
process makes the second part itself: the bytes are the same either way
(``tests/runtime/test_runtime_switches.py``).

Only for files of at least :data:`MIN_ENTRIES` entries: forking costs a few milliseconds.

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=writer_child``: this process
makes every part; ``benchmarks/runtime_mechanisms.py``, ``--format json``, paired runs,
2-core machine): see docs/performance.md's table, "What each runtime mechanism buys".
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence

from speeduptest.runtime import without
from speeduptest.runtime.forking import child_process

#: Entries below which a file is made in one process (results.json: one per benchmark).
MIN_ENTRIES = 2_000

#: A part of a file: a function making its blocks.
Part = Callable[[], Iterable[bytes]]


def parts_for(entries: int) -> int:
    """In how many parts a file of ``entries`` entries is made: 2 (this process and a child),
    or 1 (switched off, ``SPEEDUPTEST_WITHOUT=writer_child``, or too few entries)."""
    return 1 if entries < MIN_ENTRIES or without("writer_child") else 2


def write_parts(descriptor: int, write: Callable[[Iterable[bytes]], None],
                parts: Sequence[Part]) -> None:
    """Write ``parts`` one after the other: ``write`` writes blocks to the open file
    ``descriptor`` (at its position); with two parts the second is made by a child, if one
    can be had, while ``write`` writes the first."""
    if len(parts) != 2:
        for part in parts:
            write(part())
        return
    first, second = parts
    with _memory_file() as memory, child_process(
            lambda: _write_all(memory, second())) as child:
        write(first())
        made = child is not None and child.finished()
        if made:
            _copy(memory, descriptor)
    if not made:  # (no child, or it failed: made here, the same bytes)
        write(second())


@contextlib.contextmanager
def _memory_file() -> Iterator[int]:
    """An anonymous file in memory (a temporary file where the system has none), closed at
    the end of the block."""
    try:
        descriptor = os.memfd_create("speeduptest-part", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        with tempfile.TemporaryFile() as unnamed:  # (its descriptor kept, the file unnamed)
            descriptor = os.dup(unnamed.fileno())
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, blocks: Iterable[bytes]) -> None:
    for block in blocks:
        with memoryview(block) as view:
            while view:
                view = view[os.write(descriptor, view):]


def _copy(source: int, target: int) -> None:
    """The content of ``source`` appended at ``target``'s position, by the kernel."""
    size = os.fstat(source).st_size
    offset = 0
    while offset < size:
        try:
            sent = os.sendfile(target, source, offset, size - offset)
        except OSError:  # (no sendfile between these two: through this process)
            os.lseek(source, offset, os.SEEK_SET)
            _write_all(target, iter(lambda: os.read(source, 1 << 20), b""))
            return
        if not sent:
            raise OSError("the part written by the child was cut short")
        offset += sent

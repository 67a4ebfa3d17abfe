"""A report file made in two parts at once: the second by a child process, beside this one.

results.json is the last work of a run, and a run's other cores have nothing left to do by
then: the children that read the samples and computed the bootstrap are done. The file's
blocks can be made in parts that do not depend on each other (each benchmark's entry depends
on nothing but its results: :func:`speeduptest.render.json_results.render_json_pieces`), so a
child forked at that moment makes the second part into an unnamed file beside the report
while this process makes and writes the first; the second is then copied after it by the
kernel (``sendfile``).

The child shares the results' pages with this process: each page either process then writes
(a reference count changes) is copied, once (see :mod:`speeduptest.runtime.forking`). The
child ends without taking anything apart (``os._exit``), so it touches only its part's pages,
and the copies cost less than what it takes over. Should it fail, or no child be had, this
process makes the second part itself: the bytes are the same either way
(``tests/runtime/test_runtime_switches.py``).

It costs memory: each page either process writes while both live is copied, about 30% of
the run's memory at its peak (:func:`_room_for_copies`). Only for files of at least
:data:`MIN_ENTRIES` entries (forking costs a few milliseconds), and where the system has the
memory for it.

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=writer_child``: this process
makes every part; ``benchmarks/runtime_mechanisms.py``, ``--format json``, median of runs
paired with a run as it is, 2-core machine): 6.9% of the run at 100,000 pairs of 31 values
(16.77 s without, 15.56 s with, 5 rounds; a first series of 3: 6.7%); 3.0-4.4% at 10,000
pairs in two series (1.89-1.91 s without, 1.82-1.84 s with).
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
    or 1 (switched off, ``SPEEDUPTEST_WITHOUT=writer_child``, too few entries, or too little
    memory for the copies, :func:`_room_for_copies`)."""
    if entries < MIN_ENTRIES or without("writer_child") or not _room_for_copies():
        return 1
    return 2


def _room_for_copies() -> bool:
    """Whether the system has memory available for a copy of every page of this process:
    the most that the child's and this process's writes to their shared pages can copy
    (measured: about 30% of it, the private memory of all the processes of a run at its peak
    10,000 benchmarks 191 -> 253 MiB, 100,000 benchmarks 1.44 -> 1.83 GiB). Linux's
    ``MemAvailable`` against this process's resident pages; False where either cannot be
    read."""
    try:
        with open("/proc/self/statm") as statm:
            resident = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open("/proc/meminfo") as meminfo:
            available = next(int(line.split()[1]) * 1024 for line in meminfo
                             if line.startswith("MemAvailable:"))
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    return available > resident


def write_parts(descriptor: int, write: Callable[[Iterable[bytes]], None],
                parts: Sequence[Part], folder: str | os.PathLike[str], prefix: str) -> None:
    """Write ``parts`` one after the other: ``write`` writes blocks to the open file
    ``descriptor`` (at its position); with two parts the second is made by a child, if one
    can be had, into an unnamed file in ``folder`` (the file's own: the same file system;
    ``prefix``: the name it has for an instant where the system cannot make it without
    one, by which a killed run's leftover is known), while ``write`` writes the first."""
    if len(parts) != 2:
        for part in parts:
            write(part())
        return
    first, second = parts
    with _unnamed_file(folder, prefix) as aside, child_process(
            lambda: _write_all(aside, second())) as child:
        write(first())
        made = child is not None and child.finished()
        if made:
            _copy(aside, descriptor)
    if not made:  # (no child, or it failed: made here, the same bytes)
        write(second())


@contextlib.contextmanager
def _unnamed_file(folder: str | os.PathLike[str], prefix: str) -> Iterator[int]:
    """A file without a name in ``folder`` (``O_TMPFILE``; where the system has none, one
    named ``prefix``… whose name is removed at once), closed, and so gone, at the end of the
    block. On the disk rather than in memory: its pages are the system's cache, which it can
    write out."""
    with tempfile.TemporaryFile(dir=folder, prefix=prefix) as unnamed:
        yield unnamed.fileno()


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

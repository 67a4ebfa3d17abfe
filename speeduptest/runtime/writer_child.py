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
the run's memory at its peak (:func:`_room_for_copies`); and room on the report's file system
for the second half twice for a moment (in the unnamed file and in the report). Only for
files of at least :data:`MIN_ENTRIES` entries (forking costs a few milliseconds), where a child
can be forked and the system (and the process's control group) has the memory for it. Where
the copy finds no room, the report is cut back to its first part and this process makes the
second: a run that fits without the child fits with it.

What it buys, measured for issue 24 (``SPEEDUPTEST_WITHOUT=writer_child``: this process
makes every part; ``benchmarks/runtime_mechanisms.py``, ``--format json``, median of runs
paired with a run as it is, 2-core machine): 7.8% of the run at 100,000 pairs of 31 values
(16.17 s without, 14.90 s with, 4 rounds; quartiles of the gain -0.5% to +10.3%), 5.9% at
10,000 (1.92 s without, 1.81 s with, 9 rounds; quartiles +4.8% to +7.5%).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence

from speeduptest.runtime import without
from speeduptest.runtime.forking import can_fork, child_process

#: Entries below which a file is made in one process (results.json: one per benchmark).
MIN_ENTRIES = 2_000

#: A block of a file's content, as it is written.
Block = bytes | memoryview
#: A part of a file: a function making its blocks.
Part = Callable[[], Iterable[Block]]

#: What ``sendfile`` says when it cannot copy between two files (then copied by reading).
_NO_SENDFILE = {errno.EINVAL, errno.ENOSYS, errno.EXDEV, errno.EOPNOTSUPP}

#: Where a control group states its limit and use of memory (cgroup v2, then v1).
_CGROUP_MEMORY = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                  ("/sys/fs/cgroup/memory/memory.limit_in_bytes",
                   "/sys/fs/cgroup/memory/memory.usage_in_bytes"))


def parts_for(entries: int) -> int:
    """In how many parts a file of ``entries`` entries is made: 2 (this process and a child),
    or 1 (switched off, ``SPEEDUPTEST_WITHOUT=writer_child``, too few entries, no child to
    be had, or too little memory for the copies, :func:`_room_for_copies`)."""
    if (entries < MIN_ENTRIES or without("writer_child") or not can_fork()
            or not _room_for_copies()):
        return 1
    return 2


def _room_for_copies() -> bool:
    """Whether there is memory available for a copy of every page of this process: the most
    that the child's and this process's writes to their shared pages can copy (measured:
    about 30% of it, the private memory of all the processes of a run at its peak 10,000
    benchmarks 191 -> 253 MiB, 100,000 benchmarks 1.44 -> 1.83 GiB). Linux's
    ``MemAvailable``, and the process's control group's limit less its use where it has one,
    against this process's resident pages; False where these cannot be read."""
    try:
        with open("/proc/self/statm") as statm:
            resident = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open("/proc/meminfo") as meminfo:
            available = next(int(line.split()[1]) * 1024 for line in meminfo
                             if line.startswith("MemAvailable:"))
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    for limit_file, use_file in _CGROUP_MEMORY:
        try:
            with open(limit_file) as limit, open(use_file) as use:
                limit_text, used = limit.read().strip(), int(use.read())
        except (OSError, ValueError):
            continue
        if limit_text.isdigit():  # ("max": no limit)
            available = min(available, int(limit_text) - used)
        break
    return available > resident


def write_parts(descriptor: int, write: Callable[[Iterable[Block]], None],
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
    copied = False
    with _unnamed_file(folder, prefix) as aside, child_process(
            lambda: _write_all(aside, second())) as child:
        write(first())
        if child is not None and child.finished():
            end = os.lseek(descriptor, 0, os.SEEK_CUR)
            try:
                _copy(aside, descriptor)
                copied = True
            except OSError:  # (no room for both copies of the second part: the report is
                os.ftruncate(descriptor, end)  # cut back, the unnamed file closed below)
                os.lseek(descriptor, end, os.SEEK_SET)
    if not copied:  # (no child, it failed, or no room to copy: made here, the same bytes)
        write(second())


@contextlib.contextmanager
def _unnamed_file(folder: str | os.PathLike[str], prefix: str) -> Iterator[int]:
    """A file without a name in ``folder`` (``O_TMPFILE``; where the system has none, one
    named ``prefix``… whose name is removed at once), closed, and so gone, at the end of the
    block. Where the folder's file system keeps its files on a disk, their pages are the
    system's cache, which it can write out (on a tmpfs they are memory)."""
    with tempfile.TemporaryFile(dir=folder, prefix=prefix) as unnamed:
        yield unnamed.fileno()


def _write_all(descriptor: int, blocks: Iterable[Block]) -> None:
    for block in blocks:
        with memoryview(block) as view:
            while view:
                view = view[os.write(descriptor, view):]


def _copy(source: int, target: int) -> None:
    """The content of ``source`` appended at ``target``'s position, by the kernel (by reading
    it where ``sendfile`` cannot copy between them); OSError where it cannot be written."""
    size = os.fstat(source).st_size
    offset = 0
    while offset < size:
        try:
            sent = os.sendfile(target, source, offset, size - offset)
        except OSError as error:
            if error.errno not in _NO_SENDFILE:
                raise
            os.lseek(source, offset, os.SEEK_SET)
            _write_all(target, iter(lambda: os.read(source, 1 << 20), b""))
            return
        if not sent:
            raise OSError(errno.EIO, "the part written by the child was cut short")
        offset += sent

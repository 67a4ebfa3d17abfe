"""Writing the report folder: it changes as a whole, or not at all.

The files are written into a hidden sibling folder, which then takes the place of the old
report folder in one atomic exchange (Linux renameat2 with RENAME_EXCHANGE; where the system
or file system has no such call, two renames with SIGINT and SIGTERM held back between them).
A failure or an interrupt, even SIGKILL, leaves the old folder exactly as it was or the new
one complete, never a mix. What a killed run leaves beside it (its staging folder; after a
kill between the two fallback renames, the old folder under a hidden name, then put back) is
cleaned up by the next run before anything else. Anything else in the folder (a log, notes:
not one of the report files) is the user's and is carried over into the new folder as hard
links, so it is never lost and never copied.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import queue
import secrets
import shutil
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .switching import quick_switches

FORMATS = ("html", "pdf", "json", "md", "csv", "tex")
DEFAULT_FORMATS = ("html", "pdf", "json")
#: Every file a run may write (SPEC §6).
REPORT_FILES = frozenset({
    "global.html", "benchmarks.html", "warnings.html", "errors.html", "global.pdf",
    "benchmarks.pdf", "warnings.pdf", "errors.pdf", "results.json", "summary.md",
    "results.csv", "table.tex"})


@dataclass(frozen=True)
class Streamed:
    """A report file's content made in blocks as it is written (a large results.json is
    never whole in memory); each iteration makes the blocks anew."""

    blocks: Callable[[], Iterable[bytes]]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.blocks())


#: A report file's content: its bytes, or its blocks made as they are written.
FileContent = bytes | bytearray | Streamed


class OutputError(Exception):
    """The report folder cannot be written; the message is one line for the user."""


def _write_file(path: Path, content: FileContent) -> None:
    if isinstance(content, (bytes, bytearray)):
        path.write_bytes(content)
        return
    with path.open("wb", buffering=0) as handle:
        _write_blocks(handle, content)


#: Blocks made ahead of the thread that writes them.
_BLOCKS_AHEAD = 4
#: Seconds the writer waits for a block before it looks whether the blocks have ended.
_ENDED_POLL = 0.05


def _write_blocks(handle: BinaryIO, blocks: Iterable[bytes]) -> None:
    """Write ``blocks`` as they are made, by a thread of its own: the system's copy of a block
    into the file's pages (which releases the GIL) overlaps with making the next one. The
    results.json of 100,000 benchmarks is 490 MB, ~1 s of copying after 2 s of encoding."""
    pending: queue.Queue[bytes | None] = queue.Queue(_BLOCKS_AHEAD)
    failed: list[BaseException] = []
    ended = threading.Event()  # no more blocks will come (even without the end mark)

    def write() -> None:
        while True:
            try:
                block = pending.get(timeout=_ENDED_POLL)
            except queue.Empty:
                if ended.is_set():  # interrupted before the end mark was queued
                    return
                continue
            if block is None:
                return
            if not failed and not ended.is_set():  # (else only taken off the queue)
                try:
                    with memoryview(block) as view:
                        while view:
                            view = view[handle.write(view):]
                except BaseException as error:
                    failed.append(error)

    # (Quick switches: the writer needs the GIL back after each block, while the encoder
    # holds it.)
    with quick_switches():
        writer = threading.Thread(target=write, name="speeduptest-writer", daemon=True)
        writer.start()
        try:
            for block in blocks:
                if failed:
                    break
                pending.put(block)
            pending.put(None)
        except BaseException:
            # Interrupted (Ctrl-C), or the blocks failed to be made: the writer drops what
            # is queued and stops by itself, even if the end mark could not be queued.
            ended.set()
            raise
        finally:
            writer.join()  # (it does not outlive the call)
    if failed:
        raise failed[0]


def _staging_prefix(directory: Path) -> str:
    return f".{directory.name}.speeduptest-new-"


def _old_prefix(directory: Path) -> str:
    return f".{directory.name}.speeduptest-old-"


def recover(directory: Path) -> None:
    """Undo what a killed run left: put back a report folder moved aside and not replaced,
    and remove staging folders."""
    parent = directory.parent
    if not parent.is_dir():
        return
    # One pass over the parent's names, compared as text: the report folder may sit among the
    # 200,000 sample files of its benchmarks (two pathlib globs took 0.3 s there).
    old, staging = _old_prefix(directory), _staging_prefix(directory)
    try:
        with os.scandir(parent) as entries:
            names = [entry.name for entry in entries if entry.name.startswith((old, staging))]
    except OSError:  # a folder that may be written but not listed (mode 333): none to find
        return
    for name in sorted(name for name in names if name.startswith(old)):
        if not directory.exists():
            os.rename(parent / name, directory)
        else:
            shutil.rmtree(parent / name, ignore_errors=True)
    for name in names:
        if name.startswith(staging):
            shutil.rmtree(parent / name, ignore_errors=True)


def check_output_folder(directory: Path) -> Path:
    """The absolute report folder, or OutputError saying in one line why it cannot be used.
    Checked before any work, so that a long analysis never ends in "cannot write"."""
    shown = str(directory)
    if str(directory) in ("", "."):
        raise OutputError(f"-o {shown}: give a folder of its own for the reports")
    directory = Path(os.path.abspath(directory))
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"-o {shown}: exists and is not a folder")
    parent = directory.parent
    for ancestor in (parent, *parent.parents):
        if ancestor.exists():
            if not ancestor.is_dir():
                raise OutputError(f"-o {shown}: {ancestor} is not a folder")
            if not os.access(ancestor, os.W_OK | os.X_OK):
                raise OutputError(f"-o {shown}: cannot write in {ancestor}")
            break
    if directory.is_dir() and not os.access(directory, os.R_OK | os.X_OK):
        raise OutputError(f"-o {shown}: cannot read the folder")
    return directory


def _carry_over(directory: Path, staging: Path) -> None:
    """Everything in the report folder that is not a report file of ours (a log, notes) is
    hard-linked into the new folder: the same files, not copies, so nothing of the user's is
    lost whichever folder survives, and a log still being written keeps growing."""
    for entry in os.scandir(directory):
        if entry.name in REPORT_FILES and entry.is_file(follow_symlinks=False):
            continue  # ours: replaced by the new run, or gone if not written again
        target = staging / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_dir():
            shutil.copytree(entry.path, target, symlinks=True, copy_function=os.link)
        else:
            os.link(entry.path, target)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done (delivered right after it)."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically; False where the system cannot (then nothing happened)."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second),
                 _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(first))


def write_report_folder(directory: Path, files: Mapping[str, FileContent]) -> list[str]:
    """Replace ``directory`` by a folder holding exactly ``files`` (name → content)."""
    directory = check_output_folder(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    recover(directory)
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    staging = directory.parent / (_staging_prefix(directory) + token)
    old = directory.parent / (_old_prefix(directory) + token)
    try:
        staging.mkdir()
        for name, content in files.items():
            _write_file(staging / name, content)
        if directory.exists():
            _carry_over(directory, staging)
        if directory.exists() and _exchange(staging, directory):
            old = staging  # the old report, now under the staging name
        else:
            with _signals_held():
                if directory.exists():
                    os.rename(directory, old)
                os.rename(staging, directory)
    except BaseException:
        if staging != old:
            shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
    return list(files)

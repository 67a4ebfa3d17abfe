"""The report folder: speeduptest writes only into a folder that is its own, and changes it
as a whole.

Ownership. ``-o DIR`` is used only when DIR is absent, empty, or a report folder that
speeduptest wrote, recognised by the marker file :data:`MARKER` that every run leaves in it
(the version, the time, the run and the files it wrote). Anything else is refused before any
work, with nothing created, linked, moved or deleted (:func:`claim_report_folder`). In a
folder of its own, the run replaces its own report files; plain files a user added at its top
level are the user's and are kept; a subfolder it did not write makes it refuse.

Atomicity. The files are written into a hidden sibling folder, which then takes the place of
the old one in one atomic exchange (Linux renameat2 with RENAME_EXCHANGE; elsewhere two
renames with SIGINT and SIGTERM held back between them): an interrupt, even SIGKILL, leaves
the old report or the new one, never a mix. The user's files are in both folders meanwhile
(hard links: the same files, never copies), and whatever reached the old folder during the
run is moved into the new one, so nothing is lost. The new folder gets the old one's mode and
owner. Where the folder itself cannot be exchanged (a mount point, a folder of a lower overlay
layer, a name too long for the hidden sibling's, an owner this process cannot give), each
file is replaced on its own, atomically, and the marker, written last, names the run that
completed. A symbolic link named by ``-o`` is followed, never replaced.

Concurrency. Runs writing beside each other take turns (an exclusive ``flock`` on the parent
folder while one writes): two runs into one folder give one complete report, the later one.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import queue
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO

from speeduptest import __version__
from speeduptest.notices import elide
from speeduptest.runtime.switching import quick_switches
from speeduptest.runtime.writer_child import Block, Part, parts_for, write_parts

FORMATS = ("html", "pdf", "json", "md", "csv", "tex")
DEFAULT_FORMATS = ("html", "pdf", "json")
#: Every report file a run may write.
REPORT_FILES = frozenset({
    "global.html", "benchmarks.html", "warnings.html", "errors.html", "global.pdf",
    "benchmarks.pdf", "warnings.pdf", "errors.pdf", "results.json", "summary.md",
    "results.csv", "table.tex"})
#: The file that makes a folder speeduptest's own: JSON naming the tool, its version, the
#: time, the run and the files it wrote (each with its fingerprint).
MARKER = ".speeduptest-report"
#: Files of a run being written into the folder itself (replaced one by one).
_TEMPORARY_PREFIX = ".speeduptest-tmp-"
#: How many entries in the way a refusal names.
_NAMED = 3
_NAME_MAX = 255
#: The longest folder name a message shows whole.
_SHOWN_WIDTH = 150

@dataclass(frozen=True)
class Streamed:
    """A report file's content made in blocks as it is written (a large results.json is
    never whole in memory); each iteration makes the blocks anew. ``parts``, where the
    content can be made in parts independently of each other: given a number of parts, a
    function making each part's blocks (one after the other, the same bytes), and
    ``entries``, the file's number of entries (:mod:`speeduptest.runtime.writer_child`)."""

    blocks: Part
    parts: Callable[[int], Sequence[Part]] | None = None
    entries: int = 0

    def __iter__(self) -> Iterator[Block]:
        return iter(self.blocks())


#: A report file's content: its bytes, or its blocks made as they are written.
FileContent = bytes | bytearray | Streamed


class OutputError(Exception):
    """The report folder cannot be written; the message is one line for the user."""


#: The fingerprint of a file: its size and a hash of its first bytes.
Fingerprint = tuple[int, str]
_FINGERPRINTED = 1 << 16


def _fingerprint(path: str | os.PathLike[str]) -> Fingerprint | None:
    """What tells a report file from another file of the same name: its size and the hash of
    its first 64 KiB (an inode number is reused as soon as a file is deleted, and a copy of
    the folder has other ones); None for anything but a regular file."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            return None
        digest = hashlib.sha256(handle.read(_FINGERPRINTED)).hexdigest()[:32]
    return status.st_size, digest


def _write_file(path: Path, content: FileContent) -> Fingerprint:
    """Write a new file (never one that exists, nor through a link); its fingerprint."""
    with path.open("xb", buffering=0) as handle:
        if isinstance(content, (bytes, bytearray)):
            with memoryview(content) as view:
                while view:
                    view = view[handle.write(view):]
        elif content.parts is not None:
            write_parts(handle.fileno(), lambda blocks: _write_blocks(handle, blocks),
                        content.parts(parts_for(content.entries)), path.parent,
                        _TEMPORARY_PREFIX)
        else:
            _write_blocks(handle, content)
    fingerprint = _fingerprint(path)
    assert fingerprint is not None  # (a regular file: made just now)
    return fingerprint


#: Blocks made ahead of the thread that writes them (results.json's: a few dozen entries or a
#: comma each).
_BLOCKS_AHEAD = 8
#: Seconds the writer waits for a block before it looks whether the blocks have ended.
_ENDED_POLL = 0.05


def _write_blocks(handle: BinaryIO, blocks: Iterable[Block]) -> None:
    """Write ``blocks`` as they are made, by a thread of its own: the system's copy of a block
    into the file's pages (which releases the GIL) overlaps with making the next one. The
    results.json of 100,000 benchmarks is 490 MB, ~1 s of copying after 2 s of encoding."""
    pending: queue.Queue[Block | None] = queue.Queue(_BLOCKS_AHEAD)
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




def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as text for a message: bytes that are not UTF-8 shown escaped, never an error."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def listed(names: list[str]) -> str:
    """Up to three names for a one-line message, then how many more."""
    shown = ", ".join(elide(name, 60) for name in names[:_NAMED])
    more = len(names) - _NAMED
    return shown + (f" … ({more:,} more)" if more > 0 else "")


# -- the marker ---------------------------------------------------------------------------

@dataclass(frozen=True)
class _Marker:
    """What a run recorded of the files it wrote: name → the fingerprints it left."""

    run: str
    files: Mapping[str, tuple[Fingerprint, ...]]

    def wrote(self, entry: os.DirEntry[str]) -> bool:
        """Whether the file is one a run wrote (or a copy of it)."""
        return _fingerprint(entry.path) in self.files.get(entry.name, ())


def _read_marker(folder: Path) -> _Marker | None:
    """The folder's marker, or None where there is none that speeduptest wrote."""
    try:
        descriptor = os.open(folder / MARKER, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode) or status.st_size > 1 << 20:
            return None
        try:
            data = json.loads(handle.read())
            assert data["tool"] == "speeduptest"
            files = {str(name): tuple((int(size), str(digest)) for size, digest in prints)
                     for name, prints in data["files"].items()}
            return _Marker(run=str(data["run"]), files=files)
        except (ValueError, KeyError, TypeError, AssertionError, AttributeError):
            return None


def _write_marker(folder: Path, run: str, files: Mapping[str, Iterable[Fingerprint]],
                  complete: bool) -> None:
    """Write the marker atomically (a temporary name, then renamed)."""
    data = {"tool": "speeduptest", "version": __version__,
            "written": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "run": run, "complete": complete,
            "files": {name: [list(pair) for pair in prints] for name, prints in files.items()}}
    temporary = folder / f"{_TEMPORARY_PREFIX}{run}-marker"
    temporary.write_text(json.dumps(data) + "\n")
    os.replace(temporary, folder / MARKER)


def _ours(name: str) -> bool:
    """Names only speeduptest writes: the report files, the marker, its temporary files."""
    return name in REPORT_FILES or name == MARKER or name.startswith(_TEMPORARY_PREFIX)


# -- claiming the folder ----------------------------------------------------------------

def _reason(error: OSError) -> str:
    if error.errno == errno.ENAMETOOLONG:
        return f"the name is too long (a name may have {_NAME_MAX} bytes at most)"
    return error.strerror or str(error)


def _status(path: Path) -> os.stat_result | None:
    """The folder's status (a symbolic link followed), or None where it is absent."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def _check_ancestors(path: Path, shown: str) -> None:
    """The folder is absent: the first of its ancestors that exists must be a folder this
    process can write in."""
    ancestor = path.parent
    while True:
        status = _status(ancestor)
        if status is not None:
            if not stat.S_ISDIR(status.st_mode):
                raise OutputError(f"-o {shown}: {shown_path(ancestor)} is not a folder")
            if status.st_nlink == 0:  # (the working folder, deleted under the command)
                deleted = ("the working folder" if ancestor == Path(".")
                           else shown_path(ancestor))
                raise OutputError(f"-o {shown}: {deleted} was deleted")
            if not os.access(ancestor, os.W_OK | os.X_OK):
                raise OutputError(f"-o {shown}: cannot write in {shown_path(ancestor)}")
            return
        if ancestor.parent == ancestor:
            return
        ancestor = ancestor.parent


def _ownership(path: Path, shown: str) -> tuple[os.stat_result | None, _Marker | None]:
    """The folder's status and marker: (None, None) absent, (status, None) empty, or one of
    speeduptest's own; OutputError, saying what is in the way, for anything else."""
    try:
        status = _status(path)
        if status is None:
            _check_ancestors(path, shown)
            return None, None
        if not stat.S_ISDIR(status.st_mode):
            raise OutputError(f"-o {shown}: exists and is not a folder")
        if not os.access(path, os.R_OK | os.X_OK):
            raise OutputError(f"-o {shown}: cannot read the folder")
        with os.scandir(path) as found:
            entries = list(found)
    except NotADirectoryError:
        raise OutputError(f"-o {shown}: a part of the path is not a folder") from None
    except OSError as error:
        raise OutputError(f"-o {shown}: {_reason(error)}") from None
    if not entries:
        return status, None
    marker = _read_marker(path)
    if marker is None:
        names = sorted(shown_path(entry.name) + ("/" if entry.is_dir(follow_symlinks=False)
                                                  else "") for entry in entries)
        raise OutputError(
            f"-o {shown}: not a report folder of speeduptest, and it holds other files "
            f"({listed(names)}); give a new or empty folder (nothing was changed)")
    in_the_way = sorted(
        shown_path(entry.name) + ("/" if entry.is_dir(follow_symlinks=False) else "")
        for entry in entries
        if entry.is_dir(follow_symlinks=False)
        or (entry.name in REPORT_FILES and not marker.wrote(entry)))
    if in_the_way:
        raise OutputError(
            f"-o {shown}: speeduptest did not write {listed(in_the_way)} in its report "
            "folder; move that out of it, or give another folder (nothing was changed)")
    return status, marker


def _same(first: os.stat_result, second: os.stat_result) -> bool:
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def _holds_working_folder(status: os.stat_result) -> bool:
    """Whether the folder is the working folder or one of its ancestors."""
    here = Path(".")
    for _ in range(4096):
        try:
            current = os.stat(here)
        except OSError:
            return False
        if _same(current, status):
            return True
        if _same(current, os.stat(here / "..")):  # the root
            return False
        here = here / ".."
    return False


def _can_exchange(path: Path, status: os.stat_result | None) -> bool:
    """Whether the folder can be replaced as a whole by a sibling: not a mount point, a name
    short enough for the sibling's, a parent this process can write in, and an owner and
    group it can give the new folder."""
    token = _token()
    if len(os.fsencode(_staging_prefix(path) + token)) > _NAME_MAX:
        return False
    try:
        parent = os.stat(path.parent)
    except OSError:
        return False
    if status is None:
        return True
    if parent.st_dev != status.st_dev or _same(parent, status):
        return False  # a mount point (or the root)
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return False
    return os.geteuid() == 0 or (status.st_uid == os.geteuid() and status.st_gid in
                                 {os.getegid(), *os.getgroups()})


@dataclass
class ReportFolder:
    """The folder of a run's reports, claimed before any work (:func:`claim_report_folder`)."""

    #: As the user gave it, for messages.
    shown: str
    #: The folder itself (a symbolic link followed).
    path: Path
    #: Replaced file by file, where the folder cannot be exchanged as a whole.
    in_place: bool
    #: Whether the folder holds the new report (for the message after an interrupt).
    changed: bool = field(default=False, init=False)

    @property
    def label(self) -> str:
        """The folder's name for a message (a long one cut in the middle)."""
        return elide(self.shown, _SHOWN_WIDTH)

    def state(self) -> str:
        """What the folder holds now, for a message."""
        return "holds the new report" if self.changed else "was not changed"

    def write(self, files: Mapping[str, FileContent],
              on_wait: Callable[[], None] | None = None) -> list[str]:
        """Write ``files`` (name → content) as the folder's report; ``on_wait`` is called
        when another run is writing beside it (this one then waits its turn)."""
        parent = self.path.parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise OutputError(f"-o {self.label}: {_reason(error)}") from None
        with _turn(parent, on_wait):
            _recover(self.path)
            # Checked again: the folder may have changed during the analysis.
            status, marker = _ownership(self.path, self.label)
            if self.in_place or not self._exchange_in(files, status):
                self._replace_in_place(files, marker)
        return list(files)

    def _exchange_in(self, files: Mapping[str, FileContent],
                     status: os.stat_result | None) -> bool:
        """Write the report into a sibling folder that then takes the folder's place; False
        where the system refuses the exchange (nothing changed: write it in place)."""
        token = _token()
        staging = self.path.parent / (_staging_prefix(self.path) + token)
        try:
            staging.mkdir(mode=0o700)
        except OSError as error:
            if error.errno in _NOT_EXCHANGEABLE:
                return False
            raise
        try:
            written = {name: [_write_file(staging / name, content)]
                       for name, content in files.items()}
            if status is not None:
                _link_users_files(self.path, staging)
                try:
                    os.chown(staging, status.st_uid, status.st_gid)
                except PermissionError:
                    _discard_staging(staging, self.path)
                    return False
            os.chmod(staging, stat.S_IMODE(status.st_mode) if status else 0o777 & ~_umask())
            _write_marker(staging, token, written, complete=True)
            with _signals_held():
                old = self._swap(staging, token, status)
                if old is None:
                    _discard_staging(staging, self.path)
                    return False
                self.changed = True
                if old != self.path:
                    _merge_old(old, self.path)
        except BaseException:
            if not self.changed and staging.exists():
                _discard_staging(staging, self.path)
            raise
        return True

    def _swap(self, staging: Path, token: str, status: os.stat_result | None) -> Path | None:
        """Put the staging folder in the folder's place: where the old folder is now (the
        folder's own path where there was none), or None where the system cannot."""
        try:
            if status is None:
                os.rename(staging, self.path)
                return self.path
            if _exchange(staging, self.path):
                return staging  # the old folder, now under the staging name
            old = self.path.parent / (_old_prefix(self.path) + token)
            os.rename(self.path, old)
            try:
                os.rename(staging, self.path)
            except BaseException:
                os.rename(old, self.path)
                raise
            return old
        except OSError as error:
            if error.errno in _NOT_EXCHANGEABLE:
                return None
            raise

    def _replace_in_place(self, files: Mapping[str, FileContent],
                          marker: _Marker | None) -> None:
        """Replace the report files one by one, each atomically (written under a temporary
        name, then renamed), with the marker written last naming this run."""
        token = _token()
        try:
            self.path.mkdir(exist_ok=True)
        except OSError as error:
            raise OutputError(f"-o {self.label}: {_reason(error)}") from None
        temporary = {name: self.path / f"{_TEMPORARY_PREFIX}{token}-{name}" for name in files}
        previous = dict(marker.files) if marker else {}
        try:
            written = {name: _write_file(temporary[name], content)
                       for name, content in files.items()}
            with _signals_held():
                # First a marker that owns both runs' files: a kill among the renames leaves
                # a folder that is still ours.
                both = {name: [*previous.get(name, ()), *([written[name]] if name in written
                                                          else [])]
                        for name in {*previous, *written}}
                _write_marker(self.path, token, both, complete=False)
                for name in files:
                    os.replace(temporary[name], self.path / name)
                self.changed = True
                for name in previous.keys() - files.keys():
                    with contextlib.suppress(FileNotFoundError):
                        (self.path / name).unlink()
                _write_marker(self.path, token, {name: [pair] for name, pair in
                                                 written.items()}, complete=True)
        finally:
            for path in temporary.values():
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()


def claim_report_folder(directory: Path, inputs: Iterable[str | os.PathLike[str]] = ()
                        ) -> ReportFolder:
    """The report folder of ``-o directory``, checked before any work: OutputError, one line
    for the user, where it is not absent, empty, or speeduptest's own, where it is the
    working folder or holds it, or where one of the run's ``inputs`` stands in it under the
    name of a file the run would replace. Nothing is created or changed here."""
    text = os.fspath(directory)
    full = shown_path(text)
    shown = elide(full, _SHOWN_WIDTH)
    if text in ("", "."):
        raise OutputError(f"-o {shown}: give a folder of its own for the reports")
    path = Path(text)
    # A symbolic link is followed; "..", "/" and the like are named by their real path.
    if os.path.islink(text) or path.name in ("", ".", ".."):
        path = Path(os.path.realpath(text))
    status, _ = _ownership(path, shown)
    if status is not None:
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputError(f"-o {shown}: cannot write in the folder")
        if _holds_working_folder(status):
            raise OutputError(f"-o {shown}: this is the working folder or holds it; give a "
                              "folder of its own for the reports")
        for given in inputs:
            name = os.path.basename(os.fspath(given))
            if _ours(name) and _in_folder(given, status):
                raise OutputError(
                    f"-o {shown}: {shown_path(given)} is an input of this run, and a report "
                    f"would replace it; give another folder (nothing was changed)")
    return ReportFolder(shown=full, path=path, in_place=not _can_exchange(path, status))


def _in_folder(given: str | os.PathLike[str], folder: os.stat_result) -> bool:
    try:
        return _same(os.stat(os.path.dirname(os.path.realpath(given)) or "."), folder)
    except OSError:
        return False


def write_report_folder(directory: Path, files: Mapping[str, FileContent]) -> list[str]:
    """Claim ``directory`` and write ``files`` (name → content) as its report."""
    return claim_report_folder(directory).write(files)


# -- the mechanics ------------------------------------------------------------------------

#: Errors of a folder that cannot be exchanged as a whole: a mount point (EBUSY), a lower
#: overlay layer (EXDEV), a name too long for the sibling.
_NOT_EXCHANGEABLE = frozenset({errno.EBUSY, errno.EXDEV, errno.ENAMETOOLONG, errno.EPERM,
                               errno.EACCES})


def _token() -> str:
    return f"{os.getpid()}-{secrets.token_hex(4)}"


def _umask() -> int:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


def _staging_prefix(directory: Path) -> str:
    return f".{directory.name}.speeduptest-new-"


def _old_prefix(directory: Path) -> str:
    return f".{directory.name}.speeduptest-old-"


@contextlib.contextmanager
def _turn(parent: Path, on_wait: Callable[[], None] | None) -> Iterator[None]:
    """This run's turn to write beside ``parent``'s other entries: an exclusive flock on the
    folder, waited for (``on_wait`` called first) while another run holds it."""
    try:
        descriptor = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # a folder that may be written but not read (mode 333): no turns there
        yield
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _link_users_files(folder: Path, staging: Path) -> None:
    """Hard-link the user's files of the folder into the new one: the same files, so they
    are in both whichever holds the name. What cannot be linked is moved after the
    exchange (:func:`_merge_old`)."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if _ours(entry.name) or entry.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                os.link(entry.path, staging / entry.name, follow_symlinks=False)


def _kept_name(folder: Path, name: str) -> Path:
    return folder / f"{name}.speeduptest-kept-{_token()}"


def _merge_old(old: Path, folder: Path) -> None:
    """Empty the old folder, exchanged out, into the new one: its report files go, and
    whatever else is in it (the user's files; anything written there during the run) is
    moved into the new folder, where it is not already (the same file, linked); a name
    that holds another file there is kept beside it. Then the old folder is removed."""
    for _ in range(3):  # again, for what arrives meanwhile
        with os.scandir(old) as found:
            entries = list(found)
        for entry in entries:
            if _ours(entry.name) and not entry.is_dir(follow_symlinks=False):
                os.unlink(entry.path)
                continue
            try:
                there = os.lstat(folder / entry.name)
            except FileNotFoundError:
                os.rename(entry.path, folder / entry.name)
                continue
            if _same(there, entry.stat(follow_symlinks=False)):
                os.unlink(entry.path)
            else:
                os.rename(entry.path, _kept_name(folder, entry.name))
        try:
            os.rmdir(old)
            return
        except OSError as error:
            if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
    # Still receiving files: left for the next run (:func:`_recover`), never deleted.


def _discard_staging(staging: Path, folder: Path) -> None:
    """Remove a staging folder that never took the folder's place: its report files and the
    links to the user's files (still in the folder). A subfolder (which no run writes) is
    moved into the folder, never deleted."""
    with os.scandir(staging) as found:
        entries = list(found)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            target = folder / entry.name
            os.rename(entry.path, target if not os.path.lexists(target)
                      else _kept_name(folder, entry.name))
        else:
            os.unlink(entry.path)
    os.rmdir(staging)


def _recover(directory: Path) -> None:
    """Finish what a killed run left in the folder and beside it: its temporary files are
    removed; an old folder moved aside and not replaced is put back; a staging folder that
    took the folder's place (its marker names that run) is the old folder, merged; one that
    did not is discarded."""
    parent = directory.parent
    # One pass over the parent's names, compared as text: the report folder may sit among the
    # 200,000 sample files of its benchmarks (two pathlib globs took 0.3 s there).
    old, staging = _old_prefix(directory), _staging_prefix(directory)
    try:
        with os.scandir(parent) as entries:
            names = sorted(entry.name for entry in entries
                           if entry.name.startswith((old, staging)))
    except OSError:  # a folder that may be written but not listed (mode 333): none to find
        return
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:  # files of a killed run written in place
            if entry.name.startswith(_TEMPORARY_PREFIX) and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
    for name in names:
        leftover = parent / name
        if not leftover.is_dir() or leftover.is_symlink():
            continue
        if name.startswith(old):
            if not os.path.lexists(directory):
                os.rename(leftover, directory)
            else:
                _merge_old(leftover, directory)
            continue
        marker = _read_marker(directory)
        if marker is not None and marker.run == name.removeprefix(staging):
            _merge_old(leftover, directory)  # the exchange happened: the old folder
        else:
            _discard_staging(leftover, directory)


_HELD = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done (delivered right after it). In the
    main thread their handlers are swapped for one that notes them: a signal mask would hold
    them back from this thread alone, and any other (a library's) could take them."""
    if threading.current_thread() is not threading.main_thread():
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        return
    caught: list[int] = []
    previous = {number: signal.getsignal(number) for number in _HELD}
    for number, handler in previous.items():
        if handler is not None:  # (None: a handler set outside Python, left as it is)
            signal.signal(number, lambda number, frame: caught.append(number))
    try:
        yield
    finally:
        for number, handler in previous.items():
            if handler is not None:
                signal.signal(number, handler)
        for number in dict.fromkeys(caught):
            signal.raise_signal(number)


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

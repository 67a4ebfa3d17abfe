"""Where the contents of an experiment's sample files come from: the one seam between the
analysis and the reading of files.

The analysis asks :class:`SampleFiles` for each file as it needs it, and never opens one
itself. Each file is read once, however many benchmarks or versions name it, and however
the config writes its path (files are told apart by device and inode, :func:`file_key`).

The plain path reads each file here (:func:`speeduptest.inputs.readers.read_source`). The
speed mechanism behind the seam is :mod:`speeduptest.runtime.prefetch`: a child that reads the
files ahead (and parses the plain samples among them) on the core the analysis leaves idle.
It is either given (``ahead``: started by the command before scipy is imported, on the files a
config names) or started by :meth:`SampleFiles.reading` for the files not read yet. Both give
the same sources, byte for byte (``SPEEDUPTEST_WITHOUT=prefetch`` takes the plain path).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from speeduptest.inputs.readers import (
    DEFAULT_OPTIONS,
    ReadOptions,
    SourceFile,
    plain_digest,
    read_digest,
    read_source,
)
from speeduptest.runtime.prefetch import Digested, Fetch, prefetching

#: What identifies a file: (device, inode), or the normalised path of one not found.
FileKey = tuple[int, int] | str


def file_key(file: Path | str) -> FileKey:
    """What identifies a file, so that each is read once however the config names it: its
    device and inode (one stat, where resolving the path takes one per folder), or for a
    file that cannot be found its normalised path (reading it then says why)."""
    try:
        status = os.stat(file)
    except (OSError, ValueError):  # missing, a symbolic link loop, a NUL in the name
        return os.path.normpath(str(file))
    return status.st_dev, status.st_ino


class SampleFiles:
    """The sample files of an experiment, each read once, by :func:`file_key`.

    ``options``: how tool files are read (``--time``); ``ahead``: files already being read
    ahead by a child (None: :meth:`reading` starts one for the files it is told of)."""

    def __init__(self, options: ReadOptions = DEFAULT_OPTIONS,
                 ahead: Fetch | None = None) -> None:
        self.options = options
        self.ahead = ahead
        self._read: dict[FileKey, SourceFile] = {}

    def add(self, key: FileKey, source: SourceFile) -> None:
        """A file read while the experiment was put together (``compare`` reads its files
        to pair their benchmarks)."""
        self._read[key] = source

    def has(self, key: FileKey) -> bool:
        return key in self._read

    def get(self, key: FileKey) -> SourceFile:
        """A file already read."""
        return self._read[key]

    @contextlib.contextmanager
    def reading(self, wanted: Iterable[tuple[FileKey, Path]]
                ) -> Iterator[Callable[[FileKey, str | Path, str | None], SourceFile]]:
        """For the block: a function giving the source of a file, read when first asked for
        (its key, its path, and how the path is shown when known: None, as given,
        normalised). ``wanted``: the files the block will ask for, in about that order (for
        the child reading ahead, when none was given)."""
        with contextlib.ExitStack() as stack:
            fetch = self.ahead
            if fetch is None:
                unread: dict[FileKey, Path] = {}
                for key, file in wanted:
                    if key not in self._read:
                        unread.setdefault(key, file)
                fetch = stack.enter_context(prefetching(
                    lambda: unread.values(), plain_digest, files=len(unread)))

            def source(key: FileKey, file: str | Path, display: str | None = None
                       ) -> SourceFile:
                found = self._read.get(key)
                if found is None:
                    content = fetch(file)
                    found = self._read[key] = (
                        read_digest(file, content.payload, display)
                        if type(content) is Digested
                        else read_source(file, options=self.options, content=content))
                return found

            yield source

    def checksums(self) -> list[tuple[str, str]]:
        """(path, SHA-256) of every file read that has one, in the order they were read."""
        return [(source.path, source.sha256) for source in self._read.values()
                if source.sha256]

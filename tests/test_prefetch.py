"""The child process that reads files ahead (speeduptest.prefetch): what it sends, and that a
run reads the same with it as without it, problem files included."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import speeduptest.forking as forking
import speeduptest.prefetch as prefetch
from speeduptest.cli import main
from speeduptest.readers import plain_digest, read_digest, read_source

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
from throughput import make_config

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the child is Linux-only")


def _written(folder: Path, **contents: bytes) -> list[Path]:
    """Files of ``folder`` named after the keywords (``.txt``), with their contents."""
    paths = []
    for name, content in contents.items():
        paths.append(folder / f"{name}.txt")
        paths[-1].write_bytes(content)
    return paths


def test_contents_or_read_it_yourself(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    plain, empty, large = _written(tmp_path, plain=b"1 2 3\n", empty=b"",
                                   large=b"1\n" * (prefetch.PREFETCH_MAX_BYTES // 2 + 1))
    folder = tmp_path / "folder"
    folder.mkdir()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    paths = [plain, tmp_path / "missing.txt", empty, large, folder, fifo, Path("a\0b"), plain]
    assert list(prefetch.prefetched(paths)) == [b"1 2 3\n", None, b"", None, None, None, None,
                                                 b"1 2 3\n"]


def test_plain_samples_digested_by_the_child_read_as_without_it(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """With a backlog (here forced), the child sends a plain sample's checksum and values
    instead of its bytes; anything else comes as bytes, as before."""
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    monkeypatch.setattr(prefetch, "_BACKLOG", 0)
    plain, commented, negative = _written(tmp_path, plain=b"1.5 2.25\n3e-9\n0.1\n",
                                          commented=b"# a comment\n1 2 3\n",
                                          negative=b"1 -2 3\n")
    paths = [plain, commented, negative, tmp_path / "missing.txt"]
    fetched = list(prefetch.prefetched(paths, plain_digest))
    assert isinstance(fetched[0], prefetch.Digested)
    assert fetched[1:] == [commented.read_bytes(), negative.read_bytes(), None]
    digested, read = read_digest(plain, fetched[0].payload), read_source(plain)
    assert (digested.path, digested.format, digested.sha256) == (read.path, read.format,
                                                                  read.sha256)
    assert [(s.path, s.sha256) for s in digested.samples] == [(s.path, s.sha256)
                                                              for s in read.samples]
    values = digested.samples[0].data.values()
    assert values.tobytes() == read.samples[0].data.values().tobytes()
    assert values.tolist() == [1.5, 2.25, 3e-9, 0.1]


def test_closing_early_reaps_the_child(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    path = tmp_path / "plain.txt"
    path.write_bytes(b"1 2 3\n")
    contents = prefetch.prefetched([path] * 5000)
    assert next(contents) == b"1 2 3\n"
    contents.close()
    with pytest.raises(ChildProcessError):  # no child left to wait for
        os.waitpid(-1, os.WNOHANG)


def test_a_run_reads_the_same_with_and_without_the_child(tmp_path: Path, monkeypatch) -> None:
    config = make_config(tmp_path, 600, 9, seed=3)  # 1,200 files: the child reads them
    # Problems of every kind, each reported with its file and line either way.
    (tmp_path / "b1-initial.txt").unlink()
    (tmp_path / "b2-optimized.txt").write_text("1.0 -2 x\n")
    (tmp_path / "b3-initial.txt").write_bytes(b"\xff\xfe")
    (tmp_path / "b4-optimized.txt").unlink()
    (tmp_path / "b4-optimized.txt").mkdir()
    (tmp_path / "b5-initial.txt").write_text("")
    (tmp_path / "b6-initial.txt").write_text("# comment\n1 2 3\n")
    arguments = [str(config), "--format", "json", "--quiet", "--bootstrap", "50"]
    assert main([*arguments, "-o", str(tmp_path / "with")]) == 1
    monkeypatch.setattr(prefetch, "_BACKLOG", 0)  # every plain sample parsed by the child
    assert main([*arguments, "-o", str(tmp_path / "digested")]) == 1
    monkeypatch.setattr(prefetch, "MIN_FILES", 10**9)
    assert main([*arguments, "-o", str(tmp_path / "without")]) == 1
    without_child = (tmp_path / "without" / "results.json").read_bytes()
    for run in ("with", "digested"):
        assert (tmp_path / run / "results.json").read_bytes() == without_child
    assert b"file not found" in without_child and b"is a directory" in without_child


def test_a_named_pipe_with_a_waiting_writer_is_left_to_the_caller(tmp_path: Path,
                                                                    monkeypatch) -> None:
    """The child opens regular files only: opening a named pipe would take a waiting
    writer's data (the caller, opening it next, would then wait forever)."""
    import threading

    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    written = []

    def writer() -> None:
        with open(fifo, "w") as stream:  # blocks until somebody opens the pipe to read
            stream.write("1.1\n1.2\n1.3\n")
        written.append(True)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"1 2 3\n")
    monkeypatch.setattr(forking.threading, "active_count", lambda: 1)  # the writer thread
    assert list(prefetch.prefetched([fifo, plain])) == [None, b"1 2 3\n"]
    assert not written  # nobody opened it: the caller's read gets the data
    with open(fifo) as stream:
        assert stream.read() == "1.1\n1.2\n1.3\n"
    thread.join(5)


def test_without_a_child_when_the_system_reaps_them_or_refuses_one(tmp_path: Path,
                                                                    monkeypatch) -> None:
    import errno
    import signal

    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    path = tmp_path / "plain.txt"
    path.write_bytes(b"1 2 3\n")
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        assert list(prefetch.prefetched([path, path])) == [None, None]
    finally:
        signal.signal(signal.SIGCHLD, previous)
    descriptors = len(os.listdir("/proc/self/fd"))

    def refused() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(prefetch.os, "fork", refused)
    assert list(prefetch.prefetched([path, path])) == [None, None]
    assert len(os.listdir("/proc/self/fd")) == descriptors  # the pipe closed again

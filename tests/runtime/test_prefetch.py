"""The child process that reads files ahead (speeduptest.runtime.prefetch): what it sends, and that
a run reads the same with it as without it, problem files included."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import speeduptest.runtime.forking as forking
import speeduptest.runtime.prefetch as prefetch
from speeduptest.cli import main
from speeduptest.inputs.readers import plain_digest, read_digest, read_source

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the child is Linux-only")


@pytest.fixture(autouse=True)
def _patient(monkeypatch) -> None:
    """The caller waits for the child as long as it takes: what arrives does not depend on
    how busy the machine running the tests is (one test sets its own patience)."""
    monkeypatch.setattr(prefetch, "_PATIENCE_MS", 600_000)


def _fetched(paths: list[Path], digest=None, asked: list[Path] | None = None) -> list:
    """What the caller gets for each of ``asked`` (default: ``paths``, in order) with a child
    reading ``paths`` ahead."""
    with prefetch.prefetching(lambda: paths, digest, files=len(paths)) as fetch:
        return [fetch(path) for path in (paths if asked is None else asked)]


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
    paths = [plain, tmp_path / "missing.txt", empty, large, folder, fifo, Path("a\0b")]
    assert _fetched(paths) == [b"1 2 3\n", None, b"", None, None, None, None]


def test_files_skipped_taken_out_of_order_or_not_guessed(tmp_path: Path, monkeypatch) -> None:
    """The caller takes what it needs from what arrives: files it does not need are passed
    over, one asked for before its turn is read by the caller, and so is one never guessed."""
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    monkeypatch.setattr(prefetch, "_LOOKAHEAD", 3)
    paths = _written(tmp_path, **{f"f{i}": f"{i} 1 2\n".encode() for i in range(10)})
    other = _written(tmp_path, other=b"7 8 9\n")[0]
    asked = [paths[2], paths[1], paths[3], paths[9], other, paths[4], paths[8]]
    # f2: f0 and f1 passed over (and kept); f9: beyond the look-ahead of 3 (f4-f6 kept), so
    # read by the caller; other: never guessed (f7-f9 kept).
    assert _fetched(paths, asked=asked) == [b"2 1 2\n", b"1 1 2\n", b"3 1 2\n", None, None,
                                            b"4 1 2\n", b"8 1 2\n"]


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
    fetched = _fetched(paths, plain_digest)
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


def test_ending_early_reaps_the_child(tmp_path: Path, monkeypatch) -> None:
    """The block ends while the child still has files to send (more than the pipe holds,
    kept in the child meanwhile): it is stopped and reaped."""
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    paths = _written(tmp_path, **{f"f{i}": b"1 2 3\n" * 50 for i in range(2000)})
    with prefetch.prefetching(lambda: paths) as fetch:
        assert fetch(paths[0]) == b"1 2 3\n" * 50
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
    (tmp_path / "b7-initial.txt").unlink()
    (tmp_path / "b7-initial.txt").symlink_to("b7-initial.txt")  # a loop: the config says so
    # Rows whose files the child reads but the analysis does not (an error in the row), or
    # reads under another name (the same file by a second path), in the middle of the config.
    rows = config.read_text().splitlines(keepends=True)
    _written(tmp_path, extra1=b"1 2 3\n", extra2=b"4 5 6\n")
    rows[300:300] = ["bad weight,extra1.txt,extra2.txt,x\n",
                     "again,./b9-initial.txt,sub/../b9-optimized.txt,1\n",
                     '"unclosed,b10-initial.txt,b10-optimized.txt,1\n']
    (tmp_path / "sub").mkdir()
    config.write_text("".join(rows))
    arguments = [str(config), "--format", "json", "--quiet", "--bootstrap", "50"]
    fetch, arrived = prefetch._Arrivals.__call__, []
    monkeypatch.setattr(prefetch._Arrivals, "__call__",
                        lambda self, path: arrived.append(fetch(self, path)) or arrived[-1])
    status, found = prefetch._Arrivals.status, []
    monkeypatch.setattr(prefetch._Arrivals, "status",
                        lambda self, path: found.append(status(self, path)) or found[-1])
    assert main([*arguments, "-o", str(tmp_path / "with")]) == 1
    assert sum(content is not None for content in arrived) >= 1150  # (of 1,198 read)
    assert sum(result is not None for result in found) >= 1150  # (of 1,206 stat)
    monkeypatch.setattr(prefetch, "_BACKLOG", 0)  # every plain sample parsed by the child
    assert main([*arguments, "-o", str(tmp_path / "digested")]) == 1
    monkeypatch.setattr(prefetch, "MIN_FILES", 10**9)
    assert main([*arguments, "-o", str(tmp_path / "without")]) == 1
    without_child = (tmp_path / "without" / "results.json").read_bytes()
    for run in ("with", "digested"):
        assert (tmp_path / run / "results.json").read_bytes() == without_child
    assert b"file not found" in without_child and b"is a directory" in without_child
    assert os.strerror(errno.ELOOP).encode() in without_child


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
    assert _fetched([fifo, plain]) == [None, b"1 2 3\n"]
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
        assert _fetched([path, path]) == [None, None]
    finally:
        signal.signal(signal.SIGCHLD, previous)
    descriptors = len(os.listdir("/proc/self/fd"))

    def refused() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(prefetch.os, "fork", refused)
    assert _fetched([path, path]) == [None, None]
    assert len(os.listdir("/proc/self/fd")) == descriptors  # the pipe closed again


def test_the_files_a_config_names_in_order_each_once(tmp_path: Path) -> None:
    """The guess of what a config's analysis reads: its rows' files in order, initial first,
    each once, with a ``#name`` selection taken off, without any check of the rows."""
    from speeduptest.inputs.config import sample_files

    (tmp_path / "r.json").write_text("{}")
    config = tmp_path / "c.csv"
    config.write_text("Optimized,benchmark,initial,weight\n"
                      "b.txt,x,a.txt,1\n"
                      "\n# a comment\n"
                      "a.txt,y,b.txt,-3\n"
                      "r.json#fast,z,,1\n"
                      '"unclosed,w,c.txt\n')
    assert list(sample_files(config)) == [str(tmp_path / name) for name in ("a.txt", "b.txt",
                                                                             "r.json")]
    assert list(sample_files(tmp_path / "missing.csv")) == []
    (tmp_path / "headless.csv").write_text("")
    assert list(sample_files(tmp_path / "headless.csv")) == []


def test_a_frame_cut_short_ends_the_stream_without_reading_its_stated_size() -> None:
    """A child that died while writing a frame: the caller reads nothing more (not the 4 GiB
    a cut-off "read it yourself" frame states) and reads the files itself."""
    for cut in (prefetch._HEADER.pack(prefetch._SKIP, 100, prefetch._CONTENT) + b"abc",
                prefetch._HEADER.pack(10, 3, prefetch._CONTENT) + b"abc1 2"):
        read_end, write_end = os.pipe()
        os.write(write_end, cut)
        os.close(write_end)
        try:
            arrivals = prefetch._Arrivals(read_end)
            assert arrivals(Path("abc")) is None
            assert arrivals(Path("other")) is None
            assert arrivals._ended
        finally:
            os.close(read_end)


def test_the_caller_reads_the_files_itself_while_the_child_does_not_keep_up(
        monkeypatch) -> None:
    """A child that sends nothing for _PATIENCE (its core taken by other processes): the
    caller reads its files itself without waiting again, drops their frames when they
    arrive, and takes the child's frames again once one it needs is there."""
    monkeypatch.setattr(prefetch, "_PATIENCE_MS", 10)
    read_end, write_end = os.pipe()

    def frame(name: bytes, content: bytes) -> bytes:
        return prefetch._HEADER.pack(len(content), len(name), prefetch._CONTENT) + name + content

    try:
        arrivals = prefetch._Arrivals(read_end)
        assert arrivals(Path("a")) is None  # waited 10 ms: read it yourself
        assert not arrivals._patient
        assert arrivals(Path("b")) is None  # no waiting
        os.write(write_end, frame(b"a", b"1") + frame(b"b", b"2") + frame(b"c", b"3"))
        assert arrivals(Path("c")) == b"3"  # a and b dropped, not held
        assert arrivals._patient and not arrivals._ahead and not arrivals._passed
        os.write(write_end, frame(b"d", b"4"))
        os.close(write_end)
        write_end = -1
        assert arrivals(Path("d")) == b"4"
        assert arrivals(Path("e")) is None and arrivals._ended
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)


@pytest.mark.parametrize("spare", [True, False])
def test_the_child_yields_the_cores_when_one_is_idle(tmp_path: Path, monkeypatch,
                                                     spare: bool) -> None:
    """The child runs on what the caller and the batch child leave (SCHED_IDLE) when a
    core is idle; on a busy machine at the usual priority."""
    import time

    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    monkeypatch.setattr(prefetch, "_a_core_to_spare", lambda: spare)

    def guess():  # (called in the child, which then waits to be reaped)
        time.sleep(60)
        yield from ()

    policy = os.SCHED_IDLE if spare else os.sched_getscheduler(0)
    with prefetch.prefetching(guess):
        (child,) = Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()
        for _ in range(500):  # (set by the child once it runs)
            if os.sched_getscheduler(int(child)) == os.SCHED_IDLE:
                break
            time.sleep(0.01 if spare else 0.001)
        assert os.sched_getscheduler(int(child)) == policy


def test_a_core_to_spare_counts_the_running_processes(monkeypatch) -> None:
    """The fewest running of a few counts, against the cores: a process of the system
    running now and then does not count."""
    import builtins
    import io

    real_open = builtins.open
    for counts, cores, spare in (([2], 2, True), ([3], 2, False), ([1], 1, True),
                                 ([5], 8, True), ([4, 3, 2, 3, 3], 2, True),
                                 ([4, 3, 3, 3, 3, 2], 2, False)):
        told = iter(counts * 5 if len(counts) == 1 else counts)
        monkeypatch.setattr(builtins, "open", lambda path, *a, told=told, **k: io.BytesIO(
            f"0.88 1.12 0.98 {next(told)}/80 20007\n".encode()) if path == "/proc/loadavg"
            else real_open(path, *a, **k))
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, cores=cores: set(range(cores)))
        assert prefetch._a_core_to_spare() is spare


def test_the_child_keeps_at_most_so_much_ahead_of_the_caller(tmp_path: Path,
                                                              monkeypatch) -> None:
    """While the caller reads nothing (it checks the config), the child stops reading once
    it holds _AHEAD_MAX beyond what the pipe holds, and goes on as the caller takes files."""
    import time

    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    monkeypatch.setattr(prefetch, "_AHEAD_MAX", 1 << 16)
    content = b"x" * 4000  # not a plain sample: sent as it is
    paths = _written(tmp_path, **{f"f{i}": content for i in range(1000)})  # 4 MB

    def read_by_child() -> int:
        (child,) = Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()
        io_counts = Path(f"/proc/{child}/io").read_text().split("\n")
        return int(next(line for line in io_counts if line.startswith("rchar:")).split()[1])

    with prefetch.prefetching(lambda: paths) as fetch:
        time.sleep(0.5)
        assert read_by_child() < 1 << 20  # (without the limit: all 4 MB)
        assert [fetch(path) for path in paths] == [content] * len(paths)


def test_the_command_starts_the_child_before_it_imports_scipy(tmp_path: Path) -> None:
    """The child reads the config's files while the command imports scipy and the analysis
    (a third of a second at startup): it is forked before they are imported."""
    config = make_config(tmp_path, 600, 5, seed=1)
    script = (
        "import os, sys\n"
        "from speeduptest.cli import main\n"
        "fork, loaded = os.fork, []\n"
        "def recorded():\n"
        "    loaded.append('scipy.special' in sys.modules)\n"
        "    return fork()\n"
        "os.fork = recorded\n"
        f"status = main([{str(config)!r}, '--format', 'json', '--quiet', '--bootstrap', '50',\n"
        f"               '-o', {str(tmp_path / 'out')!r}])\n"
        "print(status, loaded[:1])\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["0", "[False]"]


@given(st.lists(st.sampled_from(["a", "b.txt", ".", "..", "", ".x", "x.", " ", "#", "c#d"]),
                min_size=1, max_size=4),
       st.sampled_from(["", "/", "./", "/./", "//"]), st.sampled_from(["", "/"]),
       st.sampled_from([".", "/", "/tmp/x", "rel/dir", "rel"]))
def test_references_joined_without_pathlib_are_pathlib_s(parts: list[str], lead: str,
                                                         trail: str, folder: str) -> None:
    """The guess joins plain references to the config's folder as text: exactly the path
    pathlib makes (and that the analysis asks for), or pathlib does the join."""
    from speeduptest.inputs.config import _joined_as_text

    reference = lead + "/".join(parts) + trail
    joined = _joined_as_text(str(Path(folder)), reference)
    assert joined is None or joined == str(Path(folder) / reference)
    if reference in ("a", "b.txt/a", "x./.x/ "):  # plain ones are joined as text
        assert joined is not None


def _kib(status: str, field: str) -> int:
    line = next(line for line in status.splitlines() if line.startswith(field + ":"))
    return int(line.split()[1]) * 1024


def test_the_child_does_not_keep_a_stat_result_per_file(tmp_path: Path, monkeypatch) -> None:
    """Between its statuses and the contents the child keeps the paths and a byte a file,
    not each file's stat (~0.8 KB: 200,000 files took its peak resident memory from 56 MB to
    212 MB). Here 60,000 files: the child's peak stays within _AHEAD_MAX, some slack and 200
    bytes a file of the parent's size at the fork."""
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    files = 60_000
    names = [str(tmp_path / f"f{i}.txt") for i in range(files)]
    for name in names:
        descriptor = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(descriptor, b"1\n2\n3\n")
        os.close(descriptor)
    at_fork = _kib(Path("/proc/self/status").read_text(), "VmRSS")
    with prefetch.prefetching(lambda: names, None, files=files) as fetch:
        # Every status taken: the child has stat every file and begins with the contents.
        assert all(fetch.status(name) is not None for name in names)
        assert fetch(Path(names[0])) == b"1\n2\n3\n"
        (child,) = Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()
        peak = _kib(Path(f"/proc/{child}/status").read_text(), "VmHWM")
    assert peak - at_fork < prefetch._AHEAD_MAX + (4 << 20) + 200 * files

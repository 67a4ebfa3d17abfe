"""No input makes the command hang or fail with a traceback (issue 23): a sample that is not a
regular file (a named pipe nobody writes to, a device, a socket, a folder) is refused as its
benchmark's error, a compare file that is a named pipe is a usage error, a config may come from
a pipe (read once), and a file given twice to compare is a usage error at once.

Whatever could hang runs in a process of its own, with a generous time limit."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

import speeduptest
import speeduptest.runtime.prefetch as prefetch
from speeduptest.cli import main
from speeduptest.inputs.config import ConfigError

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="pipes and /dev/fd: Linux")

ROOT = Path(speeduptest.__file__).resolve().parent.parent
TOOLS = Path(__file__).parents[1] / "data" / "tools"
#: Seconds a run may take before it is taken for a hang (they take one or two).
TIMEOUT = 60
QUICK = ("--format", "json", "--quiet", "--bootstrap", "200")


class Run:
    """How a command run in a process of its own ended."""

    def __init__(self, status: int, out: str, err: str) -> None:
        self.status, self.out, self.err = status, out, err


def run(arguments: list[str], cwd: Path, stdin=subprocess.DEVNULL, pass_fds=()) -> Run:
    """``python -m speeduptest ARGUMENTS`` in ``cwd``; a run that has not ended after TIMEOUT
    seconds is killed (with any child it forked) and the test fails."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, "-m", "speeduptest", *arguments], cwd=cwd, stdin=stdin,
            stdout=out, stderr=err, pass_fds=pass_fds, start_new_session=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            status = process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            pytest.fail(f"speeduptest {' '.join(arguments)}: still running after {TIMEOUT} s")
        finally:
            if process.stdin is not None:
                process.stdin.close()
        out.seek(0)
        err.seek(0)
        return Run(status, out.read().decode(), err.read().decode())


def write_sample(path: Path, mean: float, seed: int) -> str:
    values = np.random.default_rng(seed).normal(mean, 0.3, 12).round(6)
    path.write_text("\n".join(repr(float(v)) for v in values) + "\n")
    return path.name


def good_folder(folder: Path) -> str:
    """Two benchmarks' samples in ``folder``; the config rows naming them (relative)."""
    rows = []
    for index in range(2):
        initial = write_sample(folder / f"g{index}-initial.txt", 10.0, 2 * index)
        optimized = write_sample(folder / f"g{index}-optimized.txt", 8.0, 2 * index + 1)
        rows.append(f"good{index},{initial},{optimized}\n")
    return "".join(rows)


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text())


def errors_by_name(data: dict) -> dict[str, str]:
    return {b["name"]: " | ".join(b["errors"]) for b in data["benchmarks"]}


# --- Samples that are not regular files --------------------------------------------------------


def test_samples_that_are_not_regular_files_are_refused_not_opened(tmp_path: Path) -> None:
    """A named pipe nobody writes to (also as FILE#NAME), a standard input on a pipe that
    stays open, /dev/zero, a socket, a folder: each is its benchmark's error, located at its
    config line, and the other benchmarks are analysed."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(tmp_path / "sock"))
    bad = {"fifo": ("fifo", "a pipe"), "fifo-name": ("fifo#x", "a pipe"),
           "stdin": ("/dev/stdin", "a pipe"), "zero": ("/dev/zero", "a character device"),
           "socket": ("sock", "a socket"), "folder": ("folder", "is a directory")}
    config = tmp_path / "config.csv"
    config.write_text("benchmark,initial,optimized\n" + good_folder(tmp_path) + "".join(
        f"{name},g0-initial.txt,{file}\n" for name, (file, _) in bad.items()))
    try:
        # Standard input: a pipe whose writer stays open and never writes.
        ran = run(["config.csv", "-o", str(tmp_path / "out"), *QUICK], tmp_path,
                  stdin=subprocess.PIPE)
    finally:
        server.close()
    assert ran.status == 1, ran.err
    errors = errors_by_name(results(tmp_path / "out"))
    assert errors["good0"] == errors["good1"] == ""
    for line, (name, (file, kind)) in enumerate(bad.items(), start=4):
        assert errors[name].startswith(f"config.csv:{line}: optimized sample file "
                                       f"{file.split('#')[0]}"), errors[name]
        assert kind in errors[name], errors[name]


def test_a_named_pipe_among_files_read_ahead_by_the_child(tmp_path: Path) -> None:
    """With enough files for the prefetch child, the pipe's status comes from the child's
    stat: it says what the file is, and the pipe is refused, not opened."""
    rows = []
    for index in range(prefetch.MIN_FILES // 2 + 10):
        (tmp_path / f"b{index}-i.txt").write_text("1.0 1.1 1.2 1.05\n")
        (tmp_path / f"b{index}-o.txt").write_text("0.9 0.95 0.92 0.97\n")
        rows.append(f"b{index},b{index}-i.txt,b{index}-o.txt\n")
    os.mkfifo(tmp_path / "fifo")
    rows.insert(3, "piped,fifo,b0-o.txt\n")
    config = tmp_path / "config.csv"
    config.write_text("benchmark,initial,optimized\n" + "".join(rows))
    ran = run(["config.csv", "-o", str(tmp_path / "out"), *QUICK], tmp_path)
    assert ran.status == 1, ran.err
    errors = errors_by_name(results(tmp_path / "out"))
    assert errors["piped"] == ("config.csv:5: initial sample file fifo: is a pipe (FIFO), not a "
                               "regular file: it was not read (give a file)")
    assert sum(1 for message in errors.values() if message) == 1


def test_the_child_says_what_a_file_that_is_not_regular_is(tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setattr(prefetch, "_PATIENCE_MS", 600_000)
    monkeypatch.setattr(prefetch, "MIN_FILES", 0)
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain.txt").write_text("1 2 3\n")
    paths = [str(tmp_path / name) for name in ("fifo", "folder", "plain.txt")]
    with prefetch.prefetching(lambda: paths, files=len(paths)) as fetch:
        found = [fetch.status(path) for path in paths]
    assert [prefetch.file_type(f) for f in found] == [stat.S_IFIFO, stat.S_IFDIR, None]
    assert found[2] == (os.stat(paths[2]).st_dev, os.stat(paths[2]).st_ino)
    assert [prefetch.file_type(prefetch.stat_found(path)) for path in paths] == [
        stat.S_IFIFO, stat.S_IFDIR, None]


def test_compare_and_plan_refuse_a_named_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for arguments in (["compare", str(fifo), str(TOOLS / "pyperf/initial.json")],
                      ["compare", str(TOOLS / "pyperf/initial.json"), f"{fifo}#x"]):
        ran = run([*arguments, "-o", str(tmp_path / "out"), *QUICK], tmp_path)
        assert ran.status == 2, ran.err
        assert f"{fifo}: is a pipe (FIFO), not a regular file" in ran.err, ran.err
        assert "Traceback" not in ran.err
    ran = run(["plan", str(fifo), "--cost", "iteration=1"], tmp_path)
    assert ran.status == 2 and "is a pipe (FIFO)" in ran.err, ran.err


def test_compare_reads_pipes_the_shell_made(tmp_path: Path) -> None:
    """``speeduptest compare <(…) <(…)``: pipes with a writer are read, as before."""
    descriptors = []
    for name in ("initial.json", "optimized.json"):
        read, write = os.pipe()
        content = (TOOLS / "pyperf" / name).read_bytes()
        writer = threading.Thread(target=lambda w=write, c=content: (os.write(w, c),
                                                                     os.close(w)))
        writer.start()
        descriptors.append((read, writer))
    try:
        ran = run(["compare", *(f"/dev/fd/{read}" for read, _ in descriptors), "-o",
                   str(tmp_path / "out"), *QUICK], tmp_path,
                  pass_fds=[read for read, _ in descriptors])
    finally:
        for read, writer in descriptors:
            os.close(read)
            writer.join()
    assert ran.status in (0, 1), ran.err
    assert results(tmp_path / "out")["benchmarks"]


# --- A config from a pipe ----------------------------------------------------------------------


def _without_paths(data: dict) -> str:
    data = dict(data, input=None)
    return json.dumps(data, sort_keys=True)


def test_a_config_on_standard_input_is_read_once(tmp_path: Path) -> None:
    """``cat config.csv | speeduptest /dev/stdin``: the same results as from the file (sample
    paths relative to the current folder)."""
    config = tmp_path / "config.csv"
    config.write_text("benchmark,initial,optimized\n" + good_folder(tmp_path))
    assert run(["config.csv", "-o", str(tmp_path / "file"), *QUICK], tmp_path).status == 0
    with open(config, "rb") as stdin:  # a file on standard input: read through /dev/stdin
        ran = run(["/dev/stdin", "-o", str(tmp_path / "redirected"), *QUICK], tmp_path,
                  stdin=stdin)
    assert ran.status == 0, ran.err
    read, write = os.pipe()
    with os.fdopen(write, "wb") as writer:
        writer.write(config.read_bytes())
    try:
        ran = run(["/dev/stdin", "-o", str(tmp_path / "piped"), *QUICK], tmp_path, stdin=read)
    finally:
        os.close(read)
    assert ran.status == 0, ran.err
    expected = _without_paths(results(tmp_path / "file"))
    for run_name in ("redirected", "piped"):
        data = results(tmp_path / run_name)
        assert data["input"]["config"] == "/dev/stdin"
        assert _without_paths(data) == expected


def test_a_config_from_process_substitution(tmp_path: Path) -> None:
    """``speeduptest <(printf …)``: /dev/fd/N, a pipe whose writer may still be writing."""
    text = "benchmark,initial,optimized\n" + good_folder(tmp_path)
    read, write = os.pipe()
    writer = threading.Thread(target=lambda: (os.write(write, text.encode()), os.close(write)))
    writer.start()
    try:
        ran = run([f"/dev/fd/{read}", "-o", str(tmp_path / "out"), *QUICK], tmp_path,
                  pass_fds=[read])
    finally:
        os.close(read)
        writer.join()
    assert ran.status == 0, ran.err
    data = results(tmp_path / "out")
    assert [b["status"] for b in data["benchmarks"]] == ["ok", "ok"]
    assert data["benchmarks"][0]["files"]["initial"] == "g0-initial.txt"


def test_a_piped_config_says_where_relative_samples_were_looked_for(tmp_path: Path) -> None:
    samples, elsewhere = tmp_path / "samples", tmp_path / "elsewhere"
    samples.mkdir()
    elsewhere.mkdir()
    text = "benchmark,initial,optimized\n" + good_folder(samples)
    read, write = os.pipe()
    with os.fdopen(write, "wb") as writer:
        writer.write(text.encode())
    try:
        ran = run(["/dev/stdin", "-o", str(tmp_path / "out"), *QUICK], elsewhere, stdin=read)
    finally:
        os.close(read)
    assert ran.status == 2, ran.err
    message = errors_by_name(results(tmp_path / "out"))["good0"]
    assert message.startswith("/dev/stdin:2: initial sample file g0-initial.txt: file not "
                              f"found in the current folder, {elsewhere} (a config read from "
                              "a pipe"), message


def test_a_piped_config_of_several_versions(tmp_path: Path) -> None:
    rows = ["benchmark,version,sample"]
    for index in range(3):
        for version, mean in (("a", 10.0), ("b", 9.0), ("c", 8.0)):
            name = write_sample(tmp_path / f"{version}{index}.txt", mean, index)
            rows.append(f"bench{index},{version},{name}")
    read, write = os.pipe()
    with os.fdopen(write, "wb") as writer:
        writer.write(("\n".join(rows) + "\n").encode())
    try:
        ran = run(["/dev/stdin", "-o", str(tmp_path / "out"), *QUICK], tmp_path, stdin=read)
    finally:
        os.close(read)
    assert ran.status == 0, ran.err
    assert results(tmp_path / "out")["input"] == {"config": "/dev/stdin", "form": "long"}


def test_a_named_pipe_config_is_read_once_a_program_writes_to_it(tmp_path: Path) -> None:
    """As ``cat`` reads it: the command waits for a writer, then reads; sample paths are
    relative to the pipe's folder (it has one)."""
    samples = tmp_path / "samples"
    samples.mkdir()
    fifo = samples / "config.fifo"
    os.mkfifo(fifo)
    text = "benchmark,initial,optimized\n" + good_folder(samples)

    def writer() -> None:
        with open(fifo, "w") as stream:  # waits for the command to open it to read
            stream.write(text)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    ran = run([str(fifo), "-o", str(tmp_path / "out"), *QUICK], tmp_path)
    thread.join(TIMEOUT)
    assert ran.status == 0, ran.err
    assert [b["status"] for b in results(tmp_path / "out")["benchmarks"]] == ["ok", "ok"]


def test_a_config_that_never_ends_is_refused_at_its_first_nul_byte(tmp_path: Path) -> None:
    ran = run(["/dev/zero", "-o", str(tmp_path / "out"), *QUICK], tmp_path)
    assert ran.status == 2
    assert "/dev/zero:1: not a CSV text file (NUL byte)" in ran.err, ran.err


def test_the_config_is_read_once_by_the_api(tmp_path: Path) -> None:
    """:func:`speeduptest.analysis.run.analyse_config` of a pipe (also for a config
    that is read several times: its form, its rows, the child's guess, its checksum)."""
    from speeduptest.analysis.run import analyse_config
    from speeduptest.model.results import Settings

    text = "benchmark,initial,optimized\n" + good_folder(tmp_path)
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        analysed = analyse_config(Path(f"/dev/fd/{read}"), Settings(alpha=0.05,
                                                                   bootstrap=200))
    finally:
        os.chdir(cwd)
        os.close(read)
    assert [b.status for b in analysed.pair.benchmarks] == ["ok", "ok"]
    assert analysed.input_files[0].sha256 == hashlib.sha256(text.encode()).hexdigest()


# --- The same file given twice to compare -------------------------------------------------------


@pytest.mark.parametrize(("files", "message"), [
    (["pyperf/initial.json", "pyperf/initial.json"],
     "the same file is given twice: {0}"),
    (["pyperf/initial.json", "pyperf/optimized.json", "pyperf/initial.json"],
     "the same file is given twice: {0}"),
    (["pyperf/initial.json", "pyperf/../pyperf/initial.json", "pyperf/optimized.json"],
     "the same file is given twice: {0} and {1}"),
    (["rebench/benchmark.data#initial", "rebench/benchmark.data#initial"],
     "the same version of a file is given twice: {0}"),
    (["rebench/benchmark.data#initial", "rebench/benchmark.data#initial",
      "rebench/benchmark.data#optimized"],
     "the same version of a file is given twice: {0}"),
])
def test_compare_refuses_a_file_given_twice(tmp_path: Path, capsys, files: list[str],
                                            message: str) -> None:
    paths = [str(TOOLS / file) for file in files]
    status = main(["compare", *paths, "-o", str(tmp_path / "out"), *QUICK])
    assert status == 2
    assert capsys.readouterr().err.strip() == "speeduptest: error: " + message.format(*paths)
    assert not (tmp_path / "out" / "results.json").exists()


def test_compare_files_refuses_a_file_given_twice() -> None:
    from speeduptest import compare_files
    from speeduptest.model.results import Settings

    file = str(TOOLS / "pyperf" / "initial.json")
    with pytest.raises(ConfigError, match="the same file is given twice"):
        compare_files(file, file, Settings(alpha=0.05))

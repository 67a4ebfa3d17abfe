"""The report folder changes as a whole: interrupted (SIGINT), terminated (SIGTERM) or killed
(SIGKILL) during the write phase of a real run, it holds the complete old report or the
complete new one, and the message says which. The signals are sent at states of the run
(a file written, the folders exchanged, the answer printed, the command's own code running),
never after a fixed time, so that the tests hold on a busy machine."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from speeduptest.cli import main
from speeduptest.command import READY_FD_VARIABLE

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "config.example.csv"
MARKER = ".speeduptest-report"

#: Runs the real command, sending itself SIGNAL when the write phase reaches MOMENT:
#: "file:N" after the N-th report file is written (into the staging folder, or under a
#: temporary name in the folder itself), "swap" right after the new folder took the old
#: one's place (before the old one is emptied), "replace:N" after the N-th file of a
#: folder written in place took its name. WAY is "exchange" or "in-place" (the folder
#: taken as one that cannot be exchanged: a mount point, say).
DRIVER = textwrap.dedent("""
    import os, signal, sys
    import speeduptest.output as output
    from speeduptest.cli import console_main

    sig, moment, way = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3]
    written, replaced = [0], [0]
    write_file, exchange, replace = output._write_file, output._exchange, os.replace

    def counting_write(path, content):
        result = write_file(path, content)
        written[0] += 1
        if moment == f"file:{written[0]}":
            os.kill(os.getpid(), sig)
        return result

    def exchanging(first, second):
        done = exchange(first, second)
        if moment == "swap":
            os.kill(os.getpid(), sig)
        return done

    def counting_replace(source, target):
        replace(source, target)
        if os.path.basename(target) != output.MARKER:
            replaced[0] += 1
            if moment == f"replace:{replaced[0]}":
                os.kill(os.getpid(), sig)

    output._write_file = counting_write
    output._exchange = exchanging
    output.os.replace = counting_replace
    if way == "in-place":
        output._can_exchange = lambda path, status: False
    sys.argv = ["speeduptest", *sys.argv[4:]]
    sys.exit(console_main())
""")


def snapshot(folder: Path) -> dict[str, bytes]:
    """The folder's files but the marker (which names the run) and a killed run's temporary
    files."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())
            if not path.name.startswith(".speeduptest-")}


def run_driver(tmp_path: Path, signal_name: str, moment: str, way: str,
               arguments: list[str]) -> subprocess.CompletedProcess:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    return subprocess.run([sys.executable, str(driver), signal_name, moment, way, *arguments],
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("way", "moment"), [
    ("exchange", "file:1"), ("exchange", "file:3"), ("exchange", "swap"),
    ("in-place", "file:1"), ("in-place", "file:3"), ("in-place", "replace:1")])
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_an_interrupted_write_leaves_the_old_or_the_new_report(tmp_path, signal_name, way,
                                                               moment):
    out = tmp_path / "report"
    common = [str(CONFIG), "-o", str(out), "--bootstrap", "200", "--quiet"]
    # The old report: JSON and Markdown. The new one: JSON, CSV and TeX (other files, so a
    # mix of the two would show).
    assert main([*common, "--format", "json,md", "--seed", "1"]) == 0
    (out / "notes.txt").write_text("the user's")  # not a report file: kept whatever happens
    old = snapshot(out)
    process = run_driver(tmp_path, signal_name, moment, way,
                         [*common, "--format", "json,csv,tex", "--seed", "2"])
    new_report = ["notes.txt", "results.csv", "results.json", "table.tex"]
    now = snapshot(out)
    if signal_name == "SIGKILL":
        assert process.returncode == -signal.SIGKILL
        if moment == "replace:1":  # killed among the renames: the only mix there can be,
            # and the folder is still speeduptest's own (the next run takes it)
            assert json.loads((out / MARKER).read_text())["complete"] is False
        elif moment == "swap":
            assert sorted(now) == new_report
        else:
            assert now == old
    else:
        assert process.returncode == (130 if signal_name == "SIGINT" else 143)
        assert "Traceback" not in process.stderr
        # Signals are held while the folder changes: it is the old report or the new one.
        if moment in ("swap", "replace:1"):
            assert f"{out} holds the new report" in process.stderr
            assert sorted(now) == new_report
            assert now["results.json"] != old["results.json"]
            assert json.loads((out / MARKER).read_text())["complete"] is True
        else:
            assert f"{out} was not changed" in process.stderr
            assert now == old
    assert now["notes.txt"] == b"the user's"
    # Whatever a killed run left beside the folder or in it is cleaned up by the next run.
    assert main([*common, "--format", "json"]) == 0
    assert sorted(os.listdir(tmp_path)) == ["driver.py", "report"]
    # No stale report of an earlier run; the user's file is still there.
    assert sorted(os.listdir(out)) == [MARKER, "notes.txt", "results.json"]
    assert (out / "notes.txt").read_text() == "the user's"


def start(*arguments: str) -> subprocess.Popen:
    """The command, started; returns once its own code runs (the entry point says so on a
    pipe), so that a signal sent then never lands in the interpreter's start-up."""
    read, write = os.pipe()
    environment = {**os.environ, READY_FD_VARIABLE: str(write)}
    process = subprocess.Popen([sys.executable, "-m", "speeduptest", *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environment, pass_fds=(write,))
    os.close(write)
    with os.fdopen(read, "rb") as ready:
        assert ready.readline() == b"ready\n"
    return process


def processor_seconds(pid: int) -> float:
    """The processor time a process has used so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found.update(map(int, (task / "children").read_text().split()))
    return found


def wait_until(condition, timeout: float = 120) -> None:
    """Poll ``condition`` until it holds (the timeout only bounds a test that fails)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the state was never reached"
        time.sleep(0.01)


def test_ctrl_c_during_the_analysis_stops_at_once(tmp_path):
    """SIGINT while the workers analyse: one line, status 130, no traceback per worker."""
    process = start(str(CONFIG), "-o", str(tmp_path / "out"), "--bootstrap", "3000000",
                    "--format", "json")
    # Past the imports (about half a second of processor time): in the analysis.
    wait_until(lambda: processor_seconds(process.pid) > 1.5 or process.poll() is not None)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130
    assert "Traceback" not in err
    assert "was not changed" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("after", [0, 0.02, 0.05, 0.08, 0.11, 0.15, 0.2, 0.3])
def test_ctrl_c_while_the_command_loads_prints_no_traceback(tmp_path, after):
    """SIGINT in the command's first tenths of a second (its modules loading, its arguments
    parsed): one line and status 130, never a traceback."""
    process = start(str(CONFIG), "-o", str(tmp_path / "out"), "--format", "json")
    time.sleep(after)  # (the moment of the signal, not a wait for a state)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert "Traceback" not in err
    assert process.returncode in (0, 130)


def test_sigterm_while_the_pdf_is_laid_out_ends_the_workers_too(tmp_path):
    """SIGTERM (timeout, a CI runner) once the answer is printed, while the workers lay out
    the PDF: status 143, one line, and every worker ends with the command, printing
    nothing after it."""
    process = start(str(CONFIG), "-o", str(tmp_path / "out"), "--bootstrap", "200")
    assert process.stdout.readline()  # the answer: the reports are being rendered now
    workers = children(process.pid)
    process.send_signal(signal.SIGTERM)
    _out, err = process.communicate(timeout=120)  # until every writer of the pipes is gone
    assert process.returncode == 143
    assert "Traceback" not in err and "Error" not in err
    assert err.strip().splitlines()[-1] == f"speeduptest: terminated; {tmp_path / 'out'} " \
                                           "was not changed"
    wait_until(lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers))
    assert not (tmp_path / "out").exists()

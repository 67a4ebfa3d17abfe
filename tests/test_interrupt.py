"""The report folder changes as a whole: interrupted (SIGINT) or killed (SIGKILL) during the
write phase of a real run, it holds the complete old report or the complete new one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from speeduptest.cli import main

ROOT = Path(__file__).parent.parent
CONFIG = ROOT / "config.example.csv"

#: Runs the real command, sending itself SIGNAL when the write phase reaches MOMENT:
#: "file:N" after the N-th report file is written into the staging folder, "swap" right after
#: the new folder took the old one's place (before the old one is deleted).
DRIVER = textwrap.dedent("""
    import os, signal, sys
    import speeduptest.output as output
    from speeduptest.cli import main

    sig, moment = getattr(signal, sys.argv[1]), sys.argv[2]
    written = [0]
    write_file, exchange = output._write_file, output._exchange

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

    output._write_file = counting_write
    output._exchange = exchanging
    sys.exit(main(sys.argv[3:]))
""")


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGKILL"])
@pytest.mark.parametrize("moment", ["file:1", "file:3", "swap"])
def test_an_interrupted_write_leaves_the_old_or_the_new_report(tmp_path, signal_name, moment):
    out = tmp_path / "report"
    common = [str(CONFIG), "-o", str(out), "--bootstrap", "200", "--quiet"]
    # The old report: JSON and Markdown. The new one: JSON, CSV and TeX (other files, so a
    # mix of the two would show).
    assert main([*common, "--format", "json,md", "--seed", "1"]) == 0
    (out / "notes.txt").write_text("the user's")  # not a report file: kept whatever happens
    old = snapshot(out)
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    process = subprocess.run(
        [sys.executable, str(driver), signal_name, moment, *common, "--format", "json,csv,tex",
         "--seed", "2"], capture_output=True, text=True, timeout=120)
    if signal_name == "SIGKILL":
        assert process.returncode == -signal.SIGKILL
    else:
        assert process.returncode == 130
        assert "interrupted; " in process.stderr and "was not changed" in process.stderr
        assert "Traceback" not in process.stderr
    now = snapshot(out)
    if moment == "swap":  # the new report was in place when the signal came
        assert sorted(now) == ["notes.txt", "results.csv", "results.json", "table.tex"]
        assert now["results.json"] != old["results.json"]
    else:
        assert now == old
    # Whatever a killed run left beside the folder is cleaned up by the next run.
    assert main([*common, "--format", "json"]) == 0
    assert sorted(os.listdir(tmp_path)) == ["driver.py", "report"]
    # No stale report of an earlier run; the user's file is still there.
    assert sorted(snapshot(out)) == ["notes.txt", "results.json"]
    assert (out / "notes.txt").read_text() == "the user's"


def test_ctrl_c_during_the_analysis_stops_at_once(tmp_path):
    """SIGINT while the workers analyse: one line, status 130, no traceback per worker."""
    process = subprocess.Popen(
        [sys.executable, "-m", "speeduptest", str(CONFIG), "-o", str(tmp_path / "out"),
         "--bootstrap", "3000000", "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.communicate(timeout=4)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("after", [0.03, 0.06, 0.09, 0.12, 0.2])
def test_ctrl_c_while_the_command_loads_prints_no_traceback(tmp_path, after):
    """SIGINT in the command's first tenths of a second (its modules loading, its arguments
    parsed): one line and status 130, or, before Python handles SIGINT at all, the signal's
    own end; never a traceback."""
    import time

    process = subprocess.Popen(
        [sys.executable, "-m", "speeduptest", str(CONFIG), "-o", str(tmp_path / "out"),
         "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(after)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert "Traceback" not in err
    assert process.returncode in (0, 1, 130, -signal.SIGINT)


def test_the_entry_point_s_status_is_the_command_s():
    from speeduptest import cli, command

    assert command.EXIT_INTERRUPTED == cli.EXIT_INTERRUPTED

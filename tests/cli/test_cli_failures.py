"""One rule for failure: usage and option problems are one line and exit status 2, before any
work; an internal error is one line naming the input and the version, exit status 4 (the
traceback only under --debug)."""

from __future__ import annotations

from pathlib import Path

import pytest

import speeduptest.analysis.run as analysis
import speeduptest.cli as cli
from speeduptest.cli import main

CONFIG = str(Path(__file__).parents[2] / "config.example.csv")


def one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    return lines[0]


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--alpha", "1e-16", "--alpha: 1e-16 must be at least 1e-10 and below 1"),
    ("--alpha", "0", "must be at least 1e-10"),
    ("--alpha", "1", "below 1"),
    ("--alpha", "nan", "'nan' is not a finite number"),
    ("--alpha", "0_05", "is not a finite number"),
    ("--proportion-confidence", "0.9999999999999999", "at most 0.9999999999"),
    ("--precision", "1e-300", "--precision: 1e-300 must be at least 1e-06"),
    ("--precision", "inf", "not a finite number"),
    ("--bootstrap", "0", "from 1 to 10,000,000"),
    ("--bootstrap", "100000000000", "from 1 to 10,000,000"),
    ("--bootstrap", "1_000", "from 1 to 10,000,000"),
    ("--seed", "-1", "from 0 to"),
    ("--threshold", "-0.01", "at least 0 and below 1"),
    ("--threshold", "5", "at least 0 and below 1"),
    ("--threshold", "ten", "is not a number"),
    ("--correction", "holm", "invalid choice: 'holm'"),
    ("--resolution", "-1", "the resolution must be 0 or more"),
    ("--resolution", "1 parsec", "'1 parsec' is not a resolution"),
    ("--resolution", "us", "is not a resolution"),
    ("--resolution", "inf", "is not a resolution"),
    ("--large-sample", "0", "from 1 to"),
    ("--format", "docx", "unknown format(s) docx"),
])
def test_bad_options_are_one_line_and_status_2(tmp_path, capsys, option, value, message):
    with pytest.raises(SystemExit) as stop:
        main([CONFIG, option, value, "-o", str(tmp_path / "out")])
    assert stop.value.code == 2
    line = one_error_line(capsys)
    assert line.startswith("speeduptest: error: ") and message in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("budget", ["nan", "inf", "-5", "0"])
def test_plan_budget_must_be_a_positive_number(capsys, budget):
    with pytest.raises(SystemExit) as stop:
        main(["plan", "x.csv", "--cost", "run=1", "--budget", budget])
    assert stop.value.code == 2
    assert one_error_line(capsys).startswith("speeduptest plan: error: argument --budget")


def test_the_output_folder_is_checked_before_any_work(tmp_path, capsys, monkeypatch):
    def no_analysis(*arguments, **options):
        raise AssertionError("analysed although the output folder is unusable")

    monkeypatch.setattr(analysis, "analyse", no_analysis)
    (tmp_path / "out.txt").write_text("")
    for target, message in (
            ("out.txt", "-o {}: exists and is not a folder"),
            ("out.txt/below", "is not a folder"),
            ("/dev/null", "-o /dev/null: exists and is not a folder")):
        path = target if target.startswith("/") else str(tmp_path / target)
        assert main([CONFIG, "-o", path]) == 2
        line = one_error_line(capsys)
        assert line.startswith("speeduptest: error: -o ")
        assert message.format(path) in line


def test_the_users_files_in_the_report_folder_are_kept(tmp_path):
    """A log or notes beside the reports are the user's: the new report folder holds the
    same files (hard links), and a stale report file of an earlier run is gone."""
    out = tmp_path / "out"
    assert main([CONFIG, "-o", str(out), "--quiet", "--format", "json,md"]) == 0
    (out / "notes.txt").write_text("mine")
    (out / ".log").write_text("log")
    inode = (out / "notes.txt").stat().st_ino
    assert main([CONFIG, "-o", str(out), "--quiet", "--format", "json"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".log", ".speeduptest-report",
                                                     "notes.txt", "results.json"]
    assert (out / "notes.txt").read_text() == "mine" and (out / ".log").read_text() == "log"
    assert (out / "notes.txt").stat().st_ino == inode  # the same file, not a copy


def test_an_internal_error_is_one_line_with_status_4(tmp_path, capsys, monkeypatch):
    def broken(*arguments, **options):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(analysis, "analyse", broken)
    assert main([CONFIG, "-o", str(tmp_path / "out")]) == 4
    line = one_error_line(capsys)
    assert line.startswith(f"speeduptest {cli.__version__}: internal error while analysing ")
    assert CONFIG in line and "ZeroDivisionError: float division by zero" in line
    assert "--debug" in line
    with pytest.raises(ZeroDivisionError):
        main([CONFIG, "-o", str(tmp_path / "out"), "--debug"])


def test_help_documents_the_exit_statuses(capsys):
    for command in ([], ["compare"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        for status in ("0 every benchmark analysed", "1 reports written", "2 bad usage",
                       "3 with --fail-on-slowdown", "4 an internal error", "130 interrupted"):
            assert status in text


def test_help_and_json_runs_import_only_what_they_need(tmp_path):
    """--help answers without scipy, statsmodels or matplotlib; a JSON-only run never
    imports matplotlib or weasyprint (the slow imports of the report formats)."""
    import subprocess
    import sys

    check = (
        "import sys\n"
        "from speeduptest.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert not {'scipy.stats', 'statsmodels', 'pandas', 'matplotlib'} & set(sys.modules)\n"
        f"assert main([{CONFIG!r}, '-o', {str(tmp_path / 'out')!r}, '--format', 'json',\n"
        "             '--quiet', '--bootstrap', '200']) == 0\n"
        "slow = {'matplotlib', 'weasyprint', 'jinja2'}\n"
        "assert not slow & set(sys.modules), sorted(sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_config_confidence_too_close_to_1_is_a_located_error(tmp_path):
    import json

    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    (tmp_path / "b.txt").write_text("0.5\n1\n1.5\n")
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized,confidence\n"
                                    "x,a.txt,b.txt,0.9999999999999999\ny,a.txt,b.txt,\n")
    assert main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--quiet",
                 "--format", "json", "--bootstrap", "100"]) == 1
    first, second = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"]
    assert first["errors"] == [f"{tmp_path / 'c.csv'}:2: confidence '0.9999999999999999' is "
                               "too close to 1: at most 0.9999999999"]
    assert second["status"] == "ok"


def test_the_summary_points_at_a_file_that_was_written(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized\nx,a.txt,a.txt\n"
                                    "y,a.txt,missing.txt\n")
    assert main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--format", "json",
                 "--bootstrap", "100"]) == 1
    out = capsys.readouterr().out
    assert "1 benchmark could not be analysed; see results.json." in out
    assert "errors.html" not in out


def test_results_json_is_encoded_in_blocks_as_it_is_written(tmp_path, monkeypatch):
    """results.json reaches the report folder in blocks (render_json_blocks): the file is the
    same whatever the size of the blocks."""
    from speeduptest.render import json_results

    assert main([CONFIG, "-o", str(tmp_path / "whole"), "--quiet", "--format", "json"]) == 0
    monkeypatch.setattr(json_results, "_ENCODED_TOGETHER", 3)  # a block per 3 benchmarks
    assert main([CONFIG, "-o", str(tmp_path / "blocks"), "--quiet", "--format", "json"]) == 0
    whole = (tmp_path / "whole" / "results.json").read_bytes()
    assert (tmp_path / "blocks" / "results.json").read_bytes() == whole


def test_streamed_results_json_can_be_written_twice_and_leaves_the_collector_on(tmp_path):
    """render_formats' results.json is made anew each time it is written (not a one-shot
    generator), and the cycle collector is paused only while a block is encoded."""
    import gc

    from speeduptest.analysis.run import analyse_config
    from speeduptest.model.results import Settings
    from speeduptest.output import write_report_folder
    from speeduptest.render import json_results
    from speeduptest.render.formats import render_formats

    results = analyse_config(CONFIG, Settings())
    files = render_formats(results, ("json",))
    for folder in ("first", "second"):
        write_report_folder(tmp_path / folder, files)
    whole = bytes(json_results.render_json_bytes(results))
    assert (tmp_path / "first" / "results.json").read_bytes() == whole
    assert (tmp_path / "second" / "results.json").read_bytes() == whole
    blocks = json_results.render_json_blocks(results)
    next(blocks), next(blocks)  # (the head, then the first benchmarks' entries)
    assert gc.isenabled()
    blocks.close()


def test_a_failure_while_results_json_is_written_leaves_the_old_report(tmp_path, capsys,
                                                                        monkeypatch):
    """An error while results.json is encoded (now that it is encoded as it is written)
    still leaves the report folder as it was, and nothing beside it."""
    from speeduptest.render import json_results

    out = tmp_path / "out"
    assert main([CONFIG, "-o", str(out), "--quiet", "--format", "json"]) == 0
    before = (out / "results.json").read_bytes()
    encode = json_results._benchmark
    encoded: list[str] = []

    def failing(benchmark):
        encoded.append(benchmark.name)
        if len(encoded) == 3:
            raise ZeroDivisionError("in the third benchmark")
        return encode(benchmark)

    monkeypatch.setattr(json_results, "_ENCODED_TOGETHER", 1)  # (two written before)
    monkeypatch.setattr(json_results, "_benchmark", failing)
    assert main([CONFIG, "-o", str(out), "--quiet", "--format", "json"]) == 4
    assert "ZeroDivisionError: in the third benchmark" in one_error_line(capsys)
    assert (out / "results.json").read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def _command(*arguments: str) -> list[str]:
    import sys

    return [sys.executable, "-m", "speeduptest", *arguments]


def test_a_closed_standard_error_is_no_internal_error(tmp_path):
    """Started with standard error closed (2>&-), the command runs and exits with the run's
    status (3: --fail-on-slowdown), and standard output holds the answer alone (the lines
    meant for standard error are not written there instead)."""
    import os
    import subprocess

    done = subprocess.run(_command(CONFIG, "-o", str(tmp_path / "out"), "--format", "json",
                                   "--fail-on-slowdown"),
                          capture_output=False, stdout=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(2), check=False)
    assert done.returncode == 3
    assert "internal error" not in done.stdout and "is slower:" not in done.stdout
    assert "Wrote: " in done.stdout
    assert (tmp_path / "out" / "results.json").exists()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_standard_output_is_a_warning_not_an_internal_error(tmp_path):
    import subprocess

    with open("/dev/full", "w") as full:
        done = subprocess.run(_command(CONFIG, "-o", str(tmp_path / "out"), "--format",
                                       "json"), stdout=full, stderr=subprocess.PIPE,
                              text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ("speeduptest: warning: could not write to standard output "
                                   "(No space left on device); the reports are written all "
                                   "the same")
    assert (tmp_path / "out" / "results.json").exists()


def test_plan_to_a_reader_that_went_away_is_quiet(tmp_path):
    """``speeduptest plan … | head -0``: no BrokenPipeError traceback."""
    import subprocess

    sample = tmp_path / "sample.txt"
    sample.write_text("\n".join(str(1 + i / 100) for i in range(30)))
    process = subprocess.Popen(_command("plan", str(sample), "--cost", "measurement=1"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    error = process.stderr.read()
    process.stderr.close()
    assert process.wait() == 0 and "Traceback" not in error, error


def test_blocks_are_written_in_order_by_a_thread_that_ends_with_them(tmp_path):
    """Streamed content is written by a thread as it is made: every block in order; a
    failure to write, or to make a block, stops both and is raised; no thread is left."""
    import errno
    import threading

    from speeduptest import output

    blocks = [bytes([i % 256]) * (1000 + i) for i in range(300)]
    path = tmp_path / "written"
    with path.open("wb", buffering=0) as handle:
        output._write_blocks(handle, iter(blocks))
    assert path.read_bytes() == b"".join(blocks)

    class FullDisk:
        def __init__(self) -> None:
            self.writes = 0

        def write(self, view) -> int:
            self.writes += 1
            if self.writes == 3:
                raise OSError(errno.ENOSPC, "No space left on device")
            return min(len(view), 700)  # (partial writes too)

    made = []

    def counted():
        for block in blocks:
            made.append(block)
            yield block

    with pytest.raises(OSError, match="No space"):
        output._write_blocks(FullDisk(), counted())
    assert len(made) < len(blocks)  # the blocks stopped being made

    def broken():
        yield b"a"
        raise ValueError("encoding failed")

    with pytest.raises(ValueError, match="encoding failed"):
        output._write_blocks(FullDisk(), broken())
    assert threading.active_count() == 1


def test_an_interrupt_while_blocks_are_written_leaves_no_thread(monkeypatch):
    """Ctrl-C while a block or the end mark waits for room in the queue: the call ends, and
    so does the thread, which would otherwise wait for blocks forever (and forbid the forks
    that need a process without threads)."""
    import queue
    import threading
    import time

    from speeduptest import output

    class Slow:
        def write(self, view) -> int:
            time.sleep(0.01)
            return len(view)

    class Interrupted(queue.Queue):
        def put(self, item, *args, **keywords):
            if item is None or self.full():
                raise KeyboardInterrupt
            super().put(item, *args, **keywords)

    monkeypatch.setattr(output.queue, "Queue", Interrupted)
    for count in (2, output._BLOCKS_AHEAD + 2):  # the end mark, a block
        with pytest.raises(KeyboardInterrupt):
            output._write_blocks(Slow(), iter([b"x" * 100] * count))
        assert threading.active_count() == 1


def test_leftovers_are_not_looked_for_in_a_folder_that_cannot_be_listed(tmp_path, monkeypatch):
    """A parent folder that may be written but not listed (mode 333): nothing to recover,
    and no error (as with pathlib's glob before)."""
    from speeduptest import output

    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(output.os, "scandir", refused)
    output._recover(tmp_path / "report")  # no error

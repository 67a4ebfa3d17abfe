"""``-o DIR`` writes only where DIR is absent, empty or speeduptest's own report folder
(recognised by its marker file); anything else is refused at once, exit status 2, with
nothing created, linked, moved or deleted. In its own folder a run keeps the user's files,
the folder's mode and owner, and whatever reaches the folder during the run."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import speeduptest.analysis.benchmarks as benchmarks
import speeduptest.analysis.run as analysis
import speeduptest.output as output
from speeduptest.cli import main

ROOT = Path(__file__).parents[2]
CONFIG = ROOT / "config.example.csv"
PYPERF = ROOT / "tests" / "data" / "tools" / "pyperf"
MARKER = ".speeduptest-report"


def tree(folder: Path) -> dict[str, tuple]:
    """Every entry below ``folder`` (not following links): its inode, mode, owner, size."""
    found = {}
    for path in [folder, *folder.rglob("*")]:
        status = path.lstat()
        found[str(path.relative_to(folder))] = (status.st_ino, status.st_mode, status.st_uid,
                                                status.st_size)
    return found


def users_folder(root: Path) -> Path:
    """A folder of a user's own: files, a subfolder, a private file, a link."""
    folder = root / "mine"
    (folder / "sub" / "deeper").mkdir(parents=True)
    for index in range(40):
        (folder / f"file{index}.txt").write_text(f"data {index}")
    (folder / "sub" / "deeper" / "notes.md").write_text("notes")
    (folder / "private.txt").write_text("secret")
    (folder / "private.txt").chmod(0o600)
    (folder / "link").symlink_to("sub")
    return folder


@pytest.fixture
def no_analysis(monkeypatch):
    def refused(*arguments, **options):
        raise AssertionError("analysed although -o was refused")

    monkeypatch.setattr(analysis, "analyse", refused)
    monkeypatch.setattr(benchmarks, "analyse_benchmarks", refused)


def one_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and captured.out == "", captured
    assert len(lines[0]) <= 400
    return lines[0]


def test_a_folder_of_the_users_own_files_is_refused_and_left_as_it_was(tmp_path, capsys,
                                                                       no_analysis):
    folder = users_folder(tmp_path)
    before = tree(folder)
    assert main([str(CONFIG), "-o", str(folder)]) == 2
    line = one_line(capsys)
    assert line.startswith(f"speeduptest: error: -o {folder}: not a report folder of "
                           "speeduptest")
    assert "file0.txt, file1.txt, file10.txt … (40 more)" in line
    assert "nothing was changed" in line
    assert tree(folder) == before
    assert sorted(os.listdir(tmp_path)) == ["mine"]  # nothing beside it either


def test_a_process_working_inside_the_refused_folder_sees_it_unchanged(tmp_path):
    """The folder is not rebuilt: a shell working in one of its subfolders still sees its
    files afterwards."""
    folder = users_folder(tmp_path)
    inside = subprocess.Popen(
        [sys.executable, "-c", "import os, sys; sys.stdin.readline(); "
                               "print(sorted(os.listdir('.')), os.stat('.').st_ino)"],
        cwd=folder / "sub", stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    inode = (folder / "sub").stat().st_ino
    done = subprocess.run([sys.executable, "-m", "speeduptest", str(CONFIG), "-o", str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    seen, _ = inside.communicate("go\n", timeout=60)
    assert seen.strip() == f"['deeper'] {inode}"


@pytest.mark.parametrize("target", ["..", "/", "~", "$PWD", "../project"])
def test_the_inputs_folder_its_parent_the_root_and_home_are_refused(tmp_path, target):
    project = tmp_path / "project"
    shutil.copytree(ROOT / "samples" / "compiler-flags" / "O2", project / "O2")
    shutil.copytree(ROOT / "samples" / "compiler-flags" / "O3-native", project / "O3-native")
    config = project / "config.csv"
    config.write_text(CONFIG.read_text().replace("samples/compiler-flags/", ""))
    (project / "table.tex").write_text("my table")
    (project / "results.csv").write_text("my results")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text("mine")
    before = {path: tree(path) for path in (project, home)}
    target = target.replace("~", str(home)).replace("$PWD", str(project))
    done = subprocess.run([sys.executable, "-m", "speeduptest", "config.csv", "-o", target],
                          cwd=project, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(home)})
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and len(lines[0]) <= 400 and "Traceback" not in done.stderr
    assert "speeduptest: error: -o " in lines[0]
    assert {path: tree(path) for path in (project, home)} == before


def test_a_second_run_replaces_its_own_report_and_keeps_the_users_file(tmp_path):
    out = tmp_path / "out"
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json,md"]) == 0
    marker = json.loads((out / MARKER).read_text())
    assert marker["tool"] == "speeduptest" and marker["complete"] is True
    assert sorted(marker["files"]) == ["results.json", "summary.md"]
    (out / "notes.txt").write_text("mine")
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    assert sorted(os.listdir(out)) == [MARKER, "notes.txt", "results.json"]
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_a_subfolder_or_a_report_file_speeduptest_did_not_write_makes_it_refuse(
        tmp_path, capsys):
    out = tmp_path / "out"
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    (out / "data").mkdir()
    (out / "data" / "raw.txt").write_text("raw")
    before = tree(out)
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 2
    assert "speeduptest did not write data/ in its report folder" in one_line(capsys)
    assert tree(out) == before
    shutil.rmtree(out / "data")
    # A pyperf file put in place of the report's results.json is the user's.
    (out / "results.json").unlink()
    shutil.copy(PYPERF / "initial.json", out / "results.json")
    before = tree(out)
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "md"]) == 2
    assert "speeduptest did not write results.json" in one_line(capsys)
    assert tree(out) == before


def test_a_copied_report_folder_is_still_speeduptests_own(tmp_path):
    out = tmp_path / "out"
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json,md"]) == 0
    shutil.copytree(out, tmp_path / "copy")  # other inodes, same sizes
    assert main([str(CONFIG), "-o", str(tmp_path / "copy"), "--quiet", "--format", "json"]) == 0


@pytest.mark.parametrize("formats", ["json", "md"])
def test_an_input_inside_the_folder_is_never_overwritten(tmp_path, capsys, formats):
    """pyperformance's usual name for its file is results.json: -o at its folder is
    refused, whatever the formats, and the input is untouched."""
    folder = tmp_path / "runs"
    folder.mkdir()
    shutil.copy(PYPERF / "initial.json", folder / "results.json")
    shutil.copy(PYPERF / "optimized.json", folder / "new.json")
    before = tree(folder)
    assert main(["compare", str(folder / "results.json"), str(folder / "new.json"),
                 "-o", str(folder), "--format", formats]) == 2
    assert one_line(capsys).startswith(f"speeduptest: error: -o {folder}: not a report "
                                       "folder of speeduptest")
    assert tree(folder) == before


def test_an_input_standing_in_its_own_report_folder_under_a_report_name_is_refused(
        tmp_path, capsys):
    out = tmp_path / "out"
    config = tmp_path / "config.csv"
    config.write_text(CONFIG.read_text().replace("samples/", str(ROOT / "samples") + "/"))
    assert main([str(config), "-o", str(out), "--quiet", "--format", "csv"]) == 0
    before = tree(out)
    # Its own results.csv, read back as a long CSV input of compare.
    assert main(["compare", str(out / "results.csv"), "-o", str(out), "--quiet"]) == 2
    assert "is an input of this run, and a report would replace it" in one_line(capsys)
    assert tree(out) == before


def test_the_folders_mode_and_owner_are_kept(tmp_path):
    out = tmp_path / "private"
    out.mkdir(mode=0o700)
    out.chmod(0o700)
    if os.geteuid() == 0:
        os.chown(out, 1234, 1234)
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    (out / "notes.txt").write_text("private notes")
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json,md"]) == 0
    status = out.stat()
    assert stat.S_IMODE(status.st_mode) == 0o700
    if os.geteuid() == 0:
        assert (status.st_uid, status.st_gid) == (1234, 1234)


def test_a_symbolic_link_named_by_o_is_followed_never_replaced(tmp_path):
    served = tmp_path / "served" / "report-1"
    served.mkdir(parents=True)
    latest = tmp_path / "latest"
    latest.symlink_to(served)
    for formats in ("json,md", "json"):
        assert main([str(CONFIG), "-o", str(latest), "--quiet", "--format", formats]) == 0
        assert latest.is_symlink() and os.readlink(latest) == str(served)
        assert sorted(os.listdir(served)) == [MARKER, *sorted(
            {"json": "results.json", "md": "summary.md"}[name] for name in formats.split(","))]
    assert sorted(os.listdir(tmp_path)) == ["latest", "served"]
    assert sorted(os.listdir(tmp_path / "served")) == ["report-1"]


def test_files_written_into_the_folder_during_the_run_are_kept(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    (out / "log.txt").write_text("started")
    exchange = output._exchange

    def another_program_writes(first, second):
        (out / "late.txt").write_text("arrived while the report was written")
        (out / "log.txt").unlink()  # an editor saving the log anew: another inode
        (out / "log.txt").write_text("finished")
        return exchange(first, second)

    monkeypatch.setattr(output, "_exchange", another_program_writes)
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    names = sorted(os.listdir(out))
    assert (out / "late.txt").read_text() == "arrived while the report was written"
    # Both versions of the log are kept: the one linked before, the one written since.
    logs = sorted((out / name).read_text() for name in names if name.startswith("log.txt"))
    assert logs == ["finished", "started"]
    assert sorted(os.listdir(tmp_path)) == ["out"]


@pytest.mark.parametrize("code", ["EBUSY", "EXDEV"])
def test_a_folder_that_cannot_be_exchanged_is_written_file_by_file(tmp_path, monkeypatch,
                                                                  code):
    """A mount point (EBUSY) or a folder of a lower overlay layer (EXDEV): each file is
    replaced on its own, the marker last, and the run succeeds."""
    out = tmp_path / "out"
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json,md"]) == 0
    (out / "notes.txt").write_text("mine")
    inode = out.stat().st_ino
    rename = os.rename

    def refused(*arguments):
        raise OSError(getattr(output.errno, code), os.strerror(getattr(output.errno, code)))

    def no_folder_rename(source, target, *rest):
        if Path(source).is_dir():
            refused()
        return rename(source, target, *rest)

    monkeypatch.setattr(output, "_exchange", refused)
    monkeypatch.setattr(output.os, "rename", no_folder_rename)
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    assert out.stat().st_ino == inode  # the same folder, its files replaced
    assert sorted(os.listdir(out)) == [MARKER, "notes.txt", "results.json"]
    marker = json.loads((out / MARKER).read_text())
    assert marker["complete"] is True and sorted(marker["files"]) == ["results.json"]
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_a_mount_point_is_found_before_any_work(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    real_stat = os.stat

    def on_another_device(path, *arguments, **options):
        status = real_stat(path, *arguments, **options)
        if os.path.abspath(path) == str(out):
            values = list(status)
            values[2] += 1  # st_dev
            return os.stat_result(values)
        return status

    monkeypatch.setattr(output.os, "stat", on_another_device)
    folder = output.claim_report_folder(out)
    assert folder.in_place


def test_a_long_folder_name_is_written_in_place_and_an_overlong_one_refused(tmp_path, capsys):
    out = tmp_path / ("r" * 240)  # the hidden sibling's name would pass 255 bytes
    for _ in range(2):
        assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    assert sorted(os.listdir(out)) == [MARKER, "results.json"]
    assert main([str(CONFIG), "-o", str(tmp_path / ("r" * 300)), "--format", "json"]) == 2
    assert "the name is too long" in one_line(capsys)


def test_two_runs_into_one_folder_at_once_give_one_complete_report(tmp_path):
    out = tmp_path / "out"
    assert main([str(CONFIG), "-o", str(out), "--quiet", "--format", "json"]) == 0
    for index in range(3000):
        (out / f"user{index}.dat").write_text(str(index))
    runs = [subprocess.Popen([sys.executable, "-m", "speeduptest", str(CONFIG), "-o", str(out),
                              "--quiet", "--format", "json,md", "--seed", str(seed)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for seed in (1, 2)]
    for run in runs:
        run.communicate(timeout=300)
        assert run.returncode == 0
    names = set(os.listdir(out))
    assert names == {MARKER, "results.json", "summary.md",
                     *(f"user{index}.dat" for index in range(3000))}
    assert all((out / f"user{index}.dat").read_text() == str(index) for index in range(3000))
    marker = json.loads((out / MARKER).read_text())
    assert marker["complete"] and sorted(marker["files"]) == ["results.json", "summary.md"]
    json.loads((out / "results.json").read_text())  # whole
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_a_run_waits_its_turn_beside_another(tmp_path, monkeypatch, capsys):
    import fcntl

    out = tmp_path / "out"
    waited = []
    descriptor = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(descriptor, fcntl.LOCK_EX)  # another run writing beside it
    real_flock = output.fcntl.flock

    def flock(fd, operation):
        if operation == fcntl.LOCK_EX:  # the wait: the other run is done by then
            waited.append(True)
            os.close(descriptor)
        return real_flock(fd, operation)

    monkeypatch.setattr(output.fcntl, "flock", flock)
    assert main([str(CONFIG), "-o", str(out), "--format", "json"]) == 0
    assert waited
    assert f"waiting for another run writing beside {out}" in capsys.readouterr().err


def test_a_folder_written_by_nobody_is_refused_only_when_it_is_not_empty(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main([str(CONFIG), "-o", str(empty), "--quiet", "--format", "json"]) == 0
    assert sorted(os.listdir(empty)) == [MARKER, "results.json"]
    assert main([str(CONFIG), "-o", str(tmp_path / "new" / "deeper"), "--quiet",
                 "--format", "json"]) == 0


def test_the_parent_turned_unusable_during_the_run_is_one_line(tmp_path, capsys,
                                                               monkeypatch):
    from speeduptest.render import formats as reports

    parent = tmp_path / "parent"
    parent.mkdir()
    render = reports.render_formats

    def and_the_parent_goes(*arguments, **options):
        files = render(*arguments, **options)
        parent.rmdir()
        parent.write_text("now a file")
        return files

    monkeypatch.setattr(reports, "render_formats", and_the_parent_goes)
    assert main([str(CONFIG), "-o", str(parent / "out"), "--format", "json", "--quiet"]) == 2
    line = one_line(capsys)
    assert line.startswith("speeduptest: error: ") and "Traceback" not in line


def _as_nobody() -> None:
    os.setgid(65534)
    os.setuid(65534)


def _nobody_can_run_python() -> bool:
    if os.geteuid() != 0:
        return False
    try:
        return subprocess.run([sys.executable, "-c", "import speeduptest"], preexec_fn=_as_nobody,
                              capture_output=True, timeout=60).returncode == 0
    except OSError:
        return False


def _closed_work_folder(tmp_path: Path) -> Path:
    """tmp/closed/work with a config, its samples and a read-only folder ro, where closed
    may not be passed through by anyone but its owner."""
    closed = tmp_path / "closed"
    work = closed / "work"
    shutil.copytree(ROOT / "samples" / "compiler-flags" / "O2", work / "O2")
    shutil.copytree(ROOT / "samples" / "compiler-flags" / "O3-native", work / "O3-native")
    (work / "config.csv").write_text(CONFIG.read_text().replace("samples/compiler-flags/", ""))
    (work / "ro").mkdir()
    for path in [work, *work.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (work / "ro").chmod(0o555)
    closed.chmod(0o700)
    return work


@pytest.mark.parametrize("target", ["ro/out", "ro"])
def test_a_read_only_folder_from_a_folder_not_traversable_by_its_path(tmp_path, target,
                                                                      monkeypatch, capsys):
    """As an unprivileged user whose working folder's absolute path cannot be followed:
    every check goes through the path as given, and ends in one line."""
    work = _closed_work_folder(tmp_path)
    expected = f"speeduptest: error: -o {target}: cannot write in " + (
        "ro" if target == "ro/out" else "the folder")
    if _nobody_can_run_python():
        done = subprocess.run([sys.executable, "-m", "speeduptest", "config.csv", "-o", target],
                              cwd=work, preexec_fn=_as_nobody, capture_output=True, text=True,
                              timeout=120)
        assert (done.returncode, done.stderr.strip()) == (2, expected)
    # The same in this process, the refusals of such a user played by hand.
    closed = str(tmp_path / "closed")

    def refused_by_absolute_path(function):
        def check(path, *arguments, **options):
            if os.fspath(path).startswith(closed):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return function(path, *arguments, **options)
        return check

    access = os.access
    monkeypatch.chdir(work)
    for name in ("stat", "lstat", "scandir"):
        monkeypatch.setattr(output.os, name, refused_by_absolute_path(getattr(os, name)))
    monkeypatch.setattr(output.os, "access", lambda path, mode: access(path, mode) and not (
        os.path.normpath(path) == "ro" and mode & os.W_OK))
    assert main(["config.csv", "-o", target]) == 2
    assert one_line(capsys) == expected


def test_an_os_error_anywhere_is_one_line_with_status_2(tmp_path, capsys, monkeypatch):
    def refused(*arguments, **options):
        raise PermissionError(13, "Permission denied", "/data/bench/x.txt")

    monkeypatch.setattr(analysis, "analyse", refused)
    assert main([str(CONFIG), "-o", str(tmp_path / "out")]) == 2
    assert one_line(capsys) == "speeduptest: error: /data/bench/x.txt: Permission denied"
    assert not (tmp_path / "out").exists()


def test_a_long_message_is_cut(tmp_path, capsys):
    missing = tmp_path / ("x" * 200) / ("y" * 200) / ("z" * 200) / "config.csv"
    assert main([str(missing), "-o", str(tmp_path / "out")]) == 2
    line = one_line(capsys)
    assert line.endswith("more characters)")


def _command(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "speeduptest", *arguments]


def test_stderr_that_cannot_be_written_changes_no_exit_status(tmp_path):
    with open("/dev/full", "w") as full:
        slower = subprocess.run(
            _command(str(ROOT / "samples" / "compiler-flags" / "O2-vs-O0.csv"), "-o",
                     str(tmp_path / "a"), "--format", "json", "--fail-on-slowdown",
                     "--threshold", "0", "--alpha", "0.05"),
            stdout=subprocess.DEVNULL, stderr=full, timeout=300)
        missing = subprocess.run(_command(str(tmp_path / "none.csv"), "-o", str(tmp_path / "b")),
                                 stdout=subprocess.DEVNULL, stderr=full, timeout=120)
        usage = subprocess.run(_command("--alpha", "2", "x.csv"), stdout=subprocess.DEVNULL,
                               stderr=full, timeout=120)
    reference = subprocess.run(
        _command(str(ROOT / "samples" / "compiler-flags" / "O2-vs-O0.csv"), "-o",
                 str(tmp_path / "c"), "--format", "json", "--fail-on-slowdown", "--threshold",
                 "0", "--alpha", "0.05"), capture_output=True, timeout=300)
    assert slower.returncode == reference.returncode
    assert missing.returncode == 2 and usage.returncode == 2


@pytest.mark.parametrize("encoding", ["latin-1", "ascii"])
def test_a_terminal_that_is_not_utf8_gets_the_answer_and_the_reports(tmp_path, encoding):
    done = subprocess.run(_command(str(CONFIG), "-o", str(tmp_path / "out"), "--format", "json"),
                          capture_output=True, timeout=300,
                          env={**os.environ, "PYTHONIOENCODING": f"{encoding}:strict",
                               "LC_ALL": "C", "LANG": "C"})
    assert done.returncode == 0, done.stderr
    assert b"faster overall" in done.stdout and b"Traceback" not in done.stderr
    assert (tmp_path / "out" / "results.json").exists()


def test_a_folder_name_that_is_not_utf8_is_shown_escaped(tmp_path):
    out = os.fsencode(tmp_path) + b"/out\xff"
    done = subprocess.run([*_command(str(CONFIG), "--format", "json"), b"-o", out],
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert b"out\\xff/results.json" in done.stdout
    assert os.path.exists(out + b"/results.json")


def test_a_working_folder_deleted_under_the_run_is_found_before_any_work(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(["sh", "-c", 'rmdir "$1" && exec "$2" -m speeduptest "$3" -o out',
                           "sh", str(gone), sys.executable, str(CONFIG)],
                          cwd=gone, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "speeduptest: error: -o out: the working folder was deleted"

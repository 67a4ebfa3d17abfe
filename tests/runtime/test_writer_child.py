"""results.json in two parts, the second made by a child (speeduptest/runtime/writer_child.py):
the same bytes as in one piece, whatever becomes of the child."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

import speeduptest.runtime.writer_child as writer_child
from speeduptest.analysis.run import analyse_config
from speeduptest.model.settings import Settings
from speeduptest.render.json_results import render_json_blocks, render_json_pieces
from speeduptest.runtime import WITHOUT_VARIABLE
from speeduptest.runtime.writer_child import MIN_ENTRIES, parts_for, write_parts

ROOT = Path(__file__).parents[2]


def _written(path: Path, parts) -> bytes:
    with path.open("xb", buffering=0) as handle:
        def write(blocks) -> None:
            for block in blocks:
                handle.write(block)

        write_parts(handle.fileno(), write, parts, path.parent, ".speeduptest-tmp-")
    assert not [name for name in os.listdir(path.parent) if name != path.name]  # (unnamed)
    return path.read_bytes()


def test_two_parts_written_in_order(tmp_path: Path) -> None:
    first = [b"[" + b"1," * 100_000]
    second = [b"2," * 300_000, b"3]"]  # (more than a pipe or a socket holds)
    assert _written(tmp_path / "out", [lambda: iter(first), lambda: iter(second)]) == (
        b"".join(first + second))


def test_a_child_that_fails_leaves_its_part_to_this_process(tmp_path: Path) -> None:
    parent = os.getpid()

    def second():
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        yield b"second"

    assert _written(tmp_path / "out", [lambda: iter([b"first "]), second]) == b"first second"


def test_without_a_child(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(WITHOUT_VARIABLE, "forking")
    assert _written(tmp_path / "out", [lambda: iter([b"a"]), lambda: iter([b"b"])]) == b"ab"


def test_no_room_to_copy_leaves_the_second_part_to_this_process(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """The child's part made, but no room on the disk for a second copy of it: the report is
    cut back to the first part, the child's file closed, and the part made here."""
    def full(*arguments):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer_child.os, "sendfile", full)
    assert _written(tmp_path / "out", [lambda: iter([b"first " * 1000]),
                                       lambda: iter([b"second"])]) == b"first " * 1000 + b"second"


@pytest.mark.skipif(sys.platform != "linux", reason="a child only where it can be forked")
def test_parts_for(monkeypatch) -> None:
    monkeypatch.delenv(WITHOUT_VARIABLE, raising=False)
    monkeypatch.setattr(writer_child, "_room_for_copies", lambda: True)
    assert parts_for(MIN_ENTRIES - 1) == 1 and parts_for(MIN_ENTRIES) == 2
    monkeypatch.setenv(WITHOUT_VARIABLE, "writer_child")
    assert parts_for(10 * MIN_ENTRIES) == 1
    monkeypatch.setenv(WITHOUT_VARIABLE, "forking")  # (no child: no unnamed file either)
    assert parts_for(10 * MIN_ENTRIES) == 1
    monkeypatch.delenv(WITHOUT_VARIABLE)
    monkeypatch.setattr(writer_child, "_room_for_copies", lambda: False)
    assert parts_for(10 * MIN_ENTRIES) == 1


def test_the_memory_of_a_control_group_counts(tmp_path: Path, monkeypatch) -> None:
    """A control group's limit less its use bounds the memory available (a container's
    limit is not in /proc/meminfo)."""
    limit, use = tmp_path / "memory.max", tmp_path / "memory.current"
    monkeypatch.setattr(writer_child, "_CGROUP_MEMORY", ((str(limit), str(use)),))
    limit.write_text("max\n")
    use.write_text("1000\n")
    unlimited = writer_child._room_for_copies()
    limit.write_text(f"{10 ** 6}\n")  # 1 MB: less than this process's resident memory
    assert writer_child._room_for_copies() is False
    if sys.platform == "linux":
        assert unlimited is True  # (this machine has the memory of a copy of this process)


@pytest.mark.parametrize("config", ["config.example.csv", "samples/trufflesom-splitting/config.csv",
                                    "errors only"])
def test_the_pieces_are_the_document(config: str, tmp_path: Path) -> None:
    path = ROOT / config
    if config == "errors only":
        path = tmp_path / "config.csv"
        path.write_text("benchmark,initial,optimized\na,missing-1.txt,missing-2.txt\n"
                        "b,missing-3.txt,missing-4.txt\n")
    results = analyse_config(path, Settings())
    whole = b"".join(render_json_blocks(results))
    for pieces in (1, 2, 3, len(results.pair.benchmarks) + 2):
        assert b"".join(b"".join(part()) for part in render_json_pieces(results, pieces)) == whole

"""Children forked by speeduptest.runtime.forking: what ``finished`` says, and that every
child is reaped when its block ends."""

from __future__ import annotations

import os
import signal

import pytest

from speeduptest.runtime.forking import can_fork, child_process

pytestmark = pytest.mark.skipif(not can_fork(), reason="no child can be forked here")


def _reaped(pid: int) -> bool:
    """Whether ``pid`` is no longer a child of this process (asked without reaping it)."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return False


def test_a_child_whose_work_returns_has_finished_and_is_reaped_with_its_block() -> None:
    with child_process(lambda: None) as child:
        assert child is not None
        assert child.finished()
        pid = child.pid
        assert not _reaped(pid)  # (said through its pipe: its exit not waited for)
    assert _reaped(pid)


def test_a_child_whose_work_raises_has_not_finished() -> None:
    def fail() -> None:
        raise RuntimeError("the work failed")

    with child_process(fail) as child:
        assert child is not None
        assert not child.finished()
        pid = child.pid
    assert _reaped(pid)


def test_a_child_killed_at_its_work_has_not_finished() -> None:
    ready_to_die, ready = os.pipe()

    def wait_forever() -> None:
        os.write(ready, b"x")
        signal.pause()

    with child_process(wait_forever) as child:
        assert child is not None
        assert os.read(ready_to_die, 1) == b"x"  # (in its work, not before)
        os.kill(child.pid, signal.SIGKILL)
        assert not child.finished()
        pid = child.pid
    os.close(ready_to_die)
    os.close(ready)
    assert _reaped(pid)


def test_a_stopped_child_has_not_finished() -> None:
    with child_process(signal.pause) as child:
        assert child is not None
        child.stop()
        assert not child.finished()
        assert _reaped(child.pid)


def _descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_no_descriptor_is_left_open(monkeypatch) -> None:
    before = _descriptors()
    with child_process(lambda: None) as child:
        assert child is not None and child.finished()
        assert child.finished()  # (asked again: the same answer, nothing read)
    assert _descriptors() == before

    def no_fork() -> int:
        raise OSError("no process to be had")

    monkeypatch.setattr(os, "fork", no_fork)
    with child_process(lambda: None) as child:
        assert child is None
    assert _descriptors() == before

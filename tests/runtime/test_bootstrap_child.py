"""The child process that computes the shared-count bootstrap intervals
(speeduptest.runtime.bootstrap_child): the same intervals as the thread, bit for bit, and the run
goes on when the child is gone or cannot be had."""

from __future__ import annotations

import errno
import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest

import speeduptest.analysis.benchmarks as analysis
import speeduptest.runtime.array_child as array_child
import speeduptest.runtime.bootstrap_child as bootstrap_child
from speeduptest.cli import main
from speeduptest.stats.effect_size import flat_bootstrap_ends

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the child is Linux-only")


def _groups(seed: int) -> list:
    """Two groups of benchmarks of other sizes, at two confidences."""
    rng = np.random.default_rng(seed)
    return [(np.array([0.95, 0.99, 0.95]), rng.lognormal(size=(3, 7)), rng.lognormal(size=(3, 5))),
            (np.array([0.9]), rng.lognormal(size=(1, 31)), rng.lognormal(size=(1, 30)))]


def test_the_child_answers_what_is_computed_here() -> None:
    groups = _groups(1)
    with bootstrap_child.bootstrap_child() as helper:
        assert helper is not None
        for resamples, seed in ((200, 0), (1000, 7)):
            answered = helper.submit(resamples, seed, groups)()
            for (low, high), (confidence, x, y) in zip(answered, groups, strict=True):
                expected = flat_bootstrap_ends(x, y, confidence, resamples, seed)
                assert low.tobytes() == expected[0].tobytes()
                assert high.tobytes() == expected[1].tobytes()


def test_a_child_gone_is_replaced_by_this_process() -> None:
    groups = _groups(2)
    expected = bootstrap_child.computed_here(300, 3, groups)
    with bootstrap_child.bootstrap_child() as helper:
        assert helper is not None
        assert _same(helper.submit(300, 3, groups)(), expected)
        os.kill(helper_pid(), signal.SIGKILL)
        os.waitpid(helper_pid(), 0)
        # Its pipe broken: the request cannot be sent, or its answer never comes.
        assert _same(helper.submit(300, 3, groups)(), expected)
        assert _same(helper.submit(300, 3, groups)(), expected)


def test_a_child_that_dies_before_it_answers_is_replaced_by_this_process(monkeypatch) -> None:
    groups = _groups(3)
    expected = bootstrap_child.computed_here(300, 3, groups)
    parent, computed = os.getpid(), bootstrap_child.computed_here
    monkeypatch.setattr(bootstrap_child, "computed_here", lambda *args: (
        os._exit(1) if os.getpid() != parent else computed(*args)))
    with bootstrap_child.bootstrap_child() as helper:
        assert helper is not None
        assert _same(helper.submit(300, 3, groups)(), expected)  # read, then died
        assert _same(helper.submit(300, 3, groups)(), expected)


def helper_pid() -> int:
    """The pid of the only child of this process (the test's helper)."""
    children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
    assert len(children) == 1
    return int(children[0])


def _same(found: list, expected: list) -> bool:
    return all(a.tobytes() == b.tobytes() for pair, other in zip(found, expected, strict=True)
               for a, b in zip(pair, other, strict=True))


def test_without_a_child_when_none_can_be_had(monkeypatch) -> None:
    def refused() -> int:
        raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")

    descriptors = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", refused)
    with bootstrap_child.bootstrap_child() as helper:
        assert helper is None
    assert len(os.listdir("/proc/self/fd")) == descriptors  # both pipes closed again


def test_a_run_is_the_same_with_the_child_the_thread_or_a_dead_child(tmp_path: Path,
                                                                       monkeypatch) -> None:
    config = make_config(tmp_path, 40, 9, seed=5)
    # Samples of other sizes (groups of their own).
    (tmp_path / "b1-initial.txt").write_text(" ".join(str(1 + i / 10) for i in range(14)))
    (tmp_path / "b2-optimized.txt").write_text("1 2 3 4")
    arguments = [str(config), "--format", "json", "--quiet", "--bootstrap", "300"]
    runs = {}
    monkeypatch.setattr(analysis, "MIN_BOOTSTRAP_CHILD", 0)
    submitted = []
    submit = bootstrap_child.BootstrapChild.submit
    monkeypatch.setattr(bootstrap_child.BootstrapChild, "submit",
                        lambda self, *args: submitted.append(args) or submit(self, *args))
    assert main([*arguments, "-o", str(tmp_path / "child")]) == 0
    assert submitted  # the child was asked
    runs["child"] = (tmp_path / "child" / "results.json").read_bytes()

    def dead(self, *args):
        os.kill(helper_pid(), signal.SIGKILL)
        os.waitpid(helper_pid(), 0)
        return submit(self, *args)

    monkeypatch.setattr(bootstrap_child.BootstrapChild, "submit", dead)
    assert main([*arguments, "-o", str(tmp_path / "dead")]) == 0
    runs["dead"] = (tmp_path / "dead" / "results.json").read_bytes()
    monkeypatch.setattr(analysis, "MIN_BOOTSTRAP_CHILD", 10**9)  # the thread
    assert main([*arguments, "-o", str(tmp_path / "thread")]) == 0
    thread = (tmp_path / "thread" / "results.json").read_bytes()
    assert runs["child"] == thread and runs["dead"] == thread
    assert b'"bootstrap":{"low":' in thread


def test_an_answer_left_behind_is_never_taken_for_another_batch() -> None:
    """After a batch whose answer was not taken (an error in between), the child is not asked
    again: the next batch is computed here, not given the answer of the one before."""
    first, second = _groups(4), _groups(5)
    with bootstrap_child.bootstrap_child() as helper:
        assert helper is not None
        helper.submit(300, 3, first)  # its answer never taken
        assert _same(helper.submit(300, 3, second)(),
                     bootstrap_child.computed_here(300, 3, second))


def test_a_child_gone_under_a_host_that_does_not_ignore_sigpipe(tmp_path: Path) -> None:
    """A host program with SIGPIPE at its default: writing to a child that has ended fails
    quietly (EPIPE), and the intervals are computed here; the process is not killed."""
    import subprocess

    script = (
        "import os, signal, numpy as np\n"
        "import speeduptest.runtime.bootstrap_child as b\n"
        "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
        "rng = np.random.default_rng(0)\n"
        "groups = [(np.array([0.95] * 200), rng.lognormal(size=(200, 31)),\n"
        "           rng.lognormal(size=(200, 31)))]\n"
        "with b.bootstrap_child() as helper:\n"
        "    pid = int(open(f'/proc/{os.getpid()}/task/{os.getpid()}/children').read())\n"
        "    os.kill(pid, signal.SIGKILL)\n"
        "    os.waitpid(pid, 0)\n"
        "    found = helper.submit(300, 3, groups)()\n"
        "expected = b.computed_here(300, 3, groups)\n"
        "print(all((a == c).all() and (d == e).all()\n"
        "          for (a, d), (c, e) in zip(found, expected)))\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (ran.returncode, ran.stdout.strip()) == (0, "True"), ran.stderr


def test_no_descriptor_left_when_interrupted_while_the_child_starts(monkeypatch) -> None:
    import contextlib

    @contextlib.contextmanager
    def interrupted(work):
        raise KeyboardInterrupt
        yield

    descriptors = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(array_child, "child_process", interrupted)
    with pytest.raises(KeyboardInterrupt), bootstrap_child.bootstrap_child():
        pass
    assert len(os.listdir("/proc/self/fd")) == descriptors


def test_a_seed_beyond_64_bits_is_computed_here() -> None:
    groups = _groups(6)
    with bootstrap_child.bootstrap_child() as helper:
        assert helper is not None
        assert _same(helper.submit(300, 2**70, groups)(),
                     bootstrap_child.computed_here(300, 2**70, groups))
        assert _same(helper.submit(300, 3, groups)(),  # the child still answers
                     bootstrap_child.computed_here(300, 3, groups))

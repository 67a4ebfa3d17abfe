"""The child process that does the batches' array work (speeduptest.runtime.batch_child): the
same bootstrap intervals as the thread and the same checks as this process, bit for bit, with
several requests in flight; and the run goes on when the child is gone or cannot be had."""

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
import speeduptest.runtime.batch_child as batch_child
from speeduptest.cli import main
from speeduptest.stats.effect_size import flat_bootstrap_ends

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the child is Linux-only")


@pytest.fixture
def here(monkeypatch) -> list:
    """The requests computed in this process rather than by the child (the child, forked
    after the patch, records its own in its own copy of the list)."""
    computed, parent, compute = [], os.getpid(), batch_child._computed

    def recorded(arrays):
        if os.getpid() == parent:
            computed.append(int(arrays[0][0]))
        return compute(arrays)

    monkeypatch.setattr(batch_child, "_computed", recorded)
    return computed


def _groups(seed: int) -> list:
    """Two groups of benchmarks of other sizes, at two confidences."""
    rng = np.random.default_rng(seed)
    return [(np.array([0.95, 0.99, 0.95]), rng.lognormal(size=(3, 7)), rng.lognormal(size=(3, 5))),
            (np.array([0.9]), rng.lognormal(size=(1, 31)), rng.lognormal(size=(1, 30)))]


def test_the_child_answers_what_is_computed_here(here) -> None:
    groups = _groups(1)
    with batch_child.batch_child() as helper:
        assert helper is not None
        for resamples, seed in ((200, 0), (1000, 7)):
            answered = helper.bootstrap(resamples, seed, groups)()
            for (low, high), (confidence, x, y) in zip(answered, groups, strict=True):
                expected = flat_bootstrap_ends(x, y, confidence, resamples, seed)
                assert low.tobytes() == expected[0].tobytes()
                assert high.tobytes() == expected[1].tobytes()
    assert here == []  # (answered by the child)


def test_a_child_gone_is_replaced_by_this_process() -> None:
    groups = _groups(2)
    expected = batch_child.bootstrap_here(300, 3, groups)
    with batch_child.batch_child() as helper:
        assert helper is not None
        assert _same(helper.bootstrap(300, 3, groups)(), expected)
        os.kill(helper_pid(), signal.SIGKILL)
        os.waitpid(helper_pid(), 0)
        # Its pipe broken: the request cannot be sent, or its answer never comes.
        assert _same(helper.bootstrap(300, 3, groups)(), expected)
        assert _same(helper.bootstrap(300, 3, groups)(), expected)


def test_a_child_that_dies_before_it_answers_is_replaced_by_this_process(monkeypatch) -> None:
    groups = _groups(3)
    expected = batch_child.bootstrap_here(300, 3, groups)
    parent, computed = os.getpid(), batch_child.bootstrap_here
    monkeypatch.setattr(batch_child, "bootstrap_here", lambda *args: (
        os._exit(1) if os.getpid() != parent else computed(*args)))
    with batch_child.batch_child() as helper:
        assert helper is not None
        assert _same(helper.bootstrap(300, 3, groups)(), expected)  # read, then died
        assert _same(helper.bootstrap(300, 3, groups)(), expected)


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
    with batch_child.batch_child() as helper:
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
    monkeypatch.setattr(analysis, "MIN_BATCH_CHILD", 0)
    submitted = []
    submit = batch_child.BatchChild.bootstrap
    monkeypatch.setattr(batch_child.BatchChild, "bootstrap",
                        lambda self, *args: submitted.append(args) or submit(self, *args))
    assert main([*arguments, "-o", str(tmp_path / "child")]) == 0
    assert submitted  # the child was asked
    runs["child"] = (tmp_path / "child" / "results.json").read_bytes()

    def dead(self, *args):
        os.kill(helper_pid(), signal.SIGKILL)
        os.waitpid(helper_pid(), 0)
        return submit(self, *args)

    monkeypatch.setattr(batch_child.BatchChild, "bootstrap", dead)
    assert main([*arguments, "-o", str(tmp_path / "dead")]) == 0
    runs["dead"] = (tmp_path / "dead" / "results.json").read_bytes()
    monkeypatch.setattr(analysis, "MIN_BATCH_CHILD", 10**9)  # the thread
    assert main([*arguments, "-o", str(tmp_path / "thread")]) == 0
    thread = (tmp_path / "thread" / "results.json").read_bytes()
    assert runs["child"] == thread and runs["dead"] == thread
    assert b'"bootstrap":{"low":' in thread


def test_an_answer_left_behind_is_never_taken_for_another_batch(here) -> None:
    """After a batch whose answer was not taken (an error in between), the next batch gets
    its own answer from the child: the one left behind is read and dropped."""
    first, second = _groups(4), _groups(5)
    with batch_child.batch_child() as helper:
        assert helper is not None
        helper.bootstrap(300, 3, first)  # its answer never taken
        assert _same(helper.bootstrap(300, 3, second)(),
                     batch_child.bootstrap_here(300, 3, second))
    assert here == []  # (answered by the child)


def test_a_child_gone_under_a_host_that_does_not_ignore_sigpipe(tmp_path: Path) -> None:
    """A host program with SIGPIPE at its default: writing to a child that has ended fails
    quietly (EPIPE), and the intervals are computed here; the process is not killed."""
    import subprocess

    script = (
        "import os, signal, numpy as np\n"
        "import speeduptest.runtime.batch_child as b\n"
        "signal.signal(signal.SIGPIPE, signal.SIG_DFL)\n"
        "rng = np.random.default_rng(0)\n"
        "groups = [(np.array([0.95] * 200), rng.lognormal(size=(200, 31)),\n"
        "           rng.lognormal(size=(200, 31)))]\n"
        "with b.batch_child() as helper:\n"
        "    pid = int(open(f'/proc/{os.getpid()}/task/{os.getpid()}/children').read())\n"
        "    os.kill(pid, signal.SIGKILL)\n"
        "    os.waitpid(pid, 0)\n"
        "    found = helper.bootstrap(300, 3, groups)()\n"
        "expected = b.bootstrap_here(300, 3, groups)\n"
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
    with pytest.raises(KeyboardInterrupt), batch_child.batch_child():
        pass
    assert len(os.listdir("/proc/self/fd")) == descriptors


def test_a_seed_beyond_64_bits_is_computed_here() -> None:
    groups = _groups(6)
    with batch_child.batch_child() as helper:
        assert helper is not None
        assert _same(helper.bootstrap(300, 2**70, groups)(),
                     batch_child.bootstrap_here(300, 2**70, groups))
        assert _same(helper.bootstrap(300, 3, groups)(),  # the child still answers
                     batch_child.bootstrap_here(300, 3, groups))


def _matrices(seed: int) -> list[np.ndarray]:
    """Series of several lengths, as the checks stack them: too short for a steady state or
    a dependence, with warm-ups, trends, ties and constant rows."""
    rng = np.random.default_rng(seed)
    long = rng.lognormal(0, 0.05, size=(40, 45))
    long[:10, :8] *= np.linspace(3, 1, 8)  # warm-ups
    long[10:15] *= np.linspace(1, 1.5, 45)  # trends
    long[15] = 2.0  # constant
    long[16:20] = np.round(long[16:20], 1)  # ties
    return [rng.lognormal(size=(6, 5)), rng.lognormal(size=(9, 20)), long]


def _same_checks(found: list, expected: list) -> bool:
    def arrays(checks) -> tuple:
        return (checks.states, None if checks.lag1 is None else checks.lag1.tobytes(),
                None if checks.tau is None else np.array(checks.tau).tobytes(),
                None if checks.p_value is None else np.array(checks.p_value).tobytes())
    return [arrays(checks) for checks in found] == [arrays(checks) for checks in expected]


@pytest.mark.parametrize("trend", [True, False])
def test_the_child_checks_what_is_checked_here(trend: bool, here) -> None:
    matrices = _matrices(7)
    expected = batch_child.checks_here(matrices, trend)
    assert any(state.classification == "warmup" for state in expected[2].states)
    with batch_child.batch_child() as helper:
        assert helper is not None
        assert _same_checks(helper.checks(matrices, trend)(), expected)
    assert here == []  # (answered by the child)


def test_requests_in_flight_are_answered_in_the_order_asked(here) -> None:
    """Several requests sent before any answer is taken: each answer is its own request's;
    one taken before those asked earlier drops their answers, and they are computed here."""
    matrices, other_matrices, groups, other_groups = (_matrices(8), _matrices(9), _groups(8),
                                                      _groups(9))
    checks, other_checks = (batch_child.checks_here(matrices, True),
                            batch_child.checks_here(other_matrices, True))
    ends, other_ends = (batch_child.bootstrap_here(300, 3, groups),
                        batch_child.bootstrap_here(300, 3, other_groups))
    with batch_child.batch_child() as helper:
        assert helper is not None
        first, second, third = (helper.checks(matrices, True), helper.bootstrap(300, 3, groups),
                                helper.checks(other_matrices, True))
        assert _same_checks(first(), checks)
        assert _same(second(), ends)
        assert _same_checks(third(), other_checks)
        assert here == []  # (all three answered by the child)
        first, second, third = (helper.bootstrap(300, 3, groups), helper.checks(matrices, True),
                                helper.bootstrap(300, 3, other_groups))
        assert _same(third(), other_ends)  # (the two before it dropped)
        assert _same(first(), ends) and _same_checks(second(), checks)  # (computed here)
        assert here == [0, 1]
        assert _same(helper.bootstrap(300, 3, groups)(), ends)  # the child still answers
        assert here == [0, 1]


def test_answers_beyond_what_the_socket_holds_do_not_stop_either_process() -> None:
    """Requests and answers far larger than a socket's buffer, several in flight: the parent
    reads the child's answers as it sends (else each would wait for the other to read).
    Run in a process of its own, which a deadlock would keep from ending."""
    import subprocess

    script = (
        "import os, numpy as np\n"
        "import speeduptest.runtime.batch_child as b\n"
        "parent, compute, here = os.getpid(), b._computed, []\n"
        "b._computed = lambda arrays: (here.append(1) if os.getpid() == parent else None,\n"
        "                              compute(arrays))[1]\n"
        "rng = np.random.default_rng(0)\n"
        "matrices = [rng.lognormal(size=(40_000, 12)) * scale for scale in (1, 2, 3)]\n"
        "with b.batch_child() as helper:\n"  # (3.8 MB asked, 1.9 MB answered, each)
        "    answers = [helper.checks([rows], True) for rows in matrices]\n"
        "    found = [answer()[0] for answer in answers]\n"
        "expected = [b.checks_here([rows], True)[0] for rows in matrices]\n"
        "print(here == [] and all(f.lag1.tobytes() == e.lag1.tobytes()\n"
        "                         and f.p_value == e.p_value for f, e in zip(found, expected)))\n")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60)
    assert (ran.returncode, ran.stdout.strip()) == (0, "True"), ran.stderr


def test_a_streamed_run_is_the_same_with_the_checks_in_the_child_or_here(
        tmp_path: Path, monkeypatch, here) -> None:
    """Streamed batches (their checks done by the child one batch ahead) with warm-ups and
    trends: the results.json of the run whose checks are all done in this process."""
    monkeypatch.setattr(analysis, "SERIAL_BATCH", 128)
    monkeypatch.setattr(analysis, "STREAMED_FROM", 0)
    rng = np.random.default_rng(11)
    rows = ["benchmark,initial,optimized"]
    for index in range(600):
        for role in ("initial", "optimized"):
            values = rng.lognormal(0, 0.05, 40) * (1.1 if role == "optimized" else 1)
            if 256 <= index < 384:  # a batch of rare sizes only (no pair analysed with it)
                values = values[:10 + index % 30]
            elif index % 7 == 0:
                values[:8] *= np.linspace(3, 1, 8)  # a warm-up: values left out
            elif index % 11 == 0:
                values *= np.linspace(1, 1.3, 40)  # a trend
            (tmp_path / f"b{index}-{role}.txt").write_text(" ".join(f"{v:.6g}" for v in values))
        rows.append(f"b{index},b{index}-initial.txt,b{index}-optimized.txt")
    config = tmp_path / "config.csv"
    config.write_text("\n".join(rows) + "\n")
    asked = []
    checks = batch_child.BatchChild.checks
    monkeypatch.setattr(batch_child.BatchChild, "checks",
                        lambda self, *args: asked.append(args) or checks(self, *args))
    arguments = [str(config), "--format", "json", "--quiet"]
    assert main([*arguments, "-o", str(tmp_path / "child")]) in (0, 1, 2)
    assert len(asked) >= 4  # (a batch of 128 at a time)
    assert here == []  # (every request answered by the child)
    monkeypatch.setenv("SPEEDUPTEST_WITHOUT", "batch_child")
    assert main([*arguments, "-o", str(tmp_path / "here")]) in (0, 1, 2)
    child = (tmp_path / "child" / "results.json").read_bytes()
    assert child == (tmp_path / "here" / "results.json").read_bytes()
    assert b'"class":"warmup"' in child and b'"dropped":7' in child

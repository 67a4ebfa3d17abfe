"""Child processes forked to take a share of the work (:mod:`speeduptest.runtime.prefetch`
reads and parses files ahead, :mod:`speeduptest.runtime.batch_child` does the batches' array
work, :mod:`speeduptest.runtime.writer_child` makes half of results.json): when a child may be
forked at all, and starting, waiting for and reaping one with the signals right.

A child forked once the results exist shares their pages with this process, and each page
that either then writes (a reference count changes) is copied, a costly fault on a virtual
machine. The first two children are therefore forked early, while the process is small. The
writer, forked at the end, ends without taking anything apart (``os._exit``): the copies are
then those of the pages of the results that it and this process read (each its half), about
30% more memory at the run's peak, and at 100,000 benchmarks what it takes over is worth
more than their faults (docs/performance.md).

Not a mechanism of its own but the children's: switched off (``SPEEDUPTEST_WITHOUT=forking``:
no child at all), a run loses what they buy together (see docs/performance.md's table, "What
each runtime mechanism buys")."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator

from speeduptest.runtime import without

#: Held while a child starts: one in the child before it ignores them would run this
#: process's handlers there; one here before the reaping ``try`` would leave the child behind.
_HELD = {signal.SIGINT, signal.SIGTERM}

#: What a child says through its pipe once its work is done.
_DONE = b"\0"


def can_fork() -> bool:
    """Whether a child may be forked: on Linux, not from a process with other threads (a
    program using the API: a lock one of them holds could stay locked in the child), nor
    where children are reaped by the system (SIGCHLD ignored, inherited across exec): this
    one could not wait for its own; nor when switched off (``SPEEDUPTEST_WITHOUT=forking``)."""
    return (not without("forking") and sys.platform == "linux" and hasattr(os, "fork")
            and threading.active_count() == 1
            and signal.getsignal(signal.SIGCHLD) != signal.SIG_IGN)


class Child:
    """A forked child process; ``done``: the end of a pipe through which it says that its
    work is done."""

    def __init__(self, pid: int, done: int) -> None:
        self.pid = pid
        self.stopped = False
        self._done = done
        self._finished: bool | None = None

    def finished(self) -> bool:
        """Wait for its work to end; whether it did it (it says so through the pipe once the
        work returned; end of file: it ended, or was killed, without). It is reaped by
        :meth:`stop`, at the end of the block of :func:`child_process`: the system takes a
        large child's memory apart as it exits (the writer's at 10,000 benchmarks: ~12 ms),
        meanwhile this process goes on. (Interrupted, the block stops it.)"""
        if self._finished is None and not self.stopped:
            try:
                self._finished = os.read(self._done, 1) == _DONE
            except OSError:
                self._finished = False
        return bool(self._finished)

    def stop(self) -> None:
        """Stop it (done, or abandoned on an interrupt) and wait for it. Ctrl-C is held
        meanwhile (it comes once the child is reaped): interrupted in the wait, it would
        leave a zombie."""
        if self.stopped:
            return
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
        try:
            os.close(self._done)
            try:
                if not self._finished:  # (done: it exits by itself, and is not signalled,
                    os.kill(self.pid, signal.SIGKILL)  # whoever may have reaped it)
            except ProcessLookupError:  # reaped by someone else (a host waiting for any)
                return
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
        finally:
            self.stopped = True
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def child_process(work: Callable[[], None]) -> Iterator[Child | None]:
    """A child running ``work`` for the duration of the block (then exiting with status 0,
    or 1 if ``work`` raised, without running any of this process's exit handlers, Ctrl-C
    left to this process), stopped and reaped when the block ends; None when no child can
    be had (:func:`can_fork`, or no process to be had: the block then does without)."""
    if not can_fork():
        yield None
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        done, say_done = os.pipe()
    except OSError:  # (no descriptor left)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        yield None
        return
    try:
        pid = os.fork()
    except OSError:  # limits, memory
        os.close(done)  # (before Ctrl-C is let through)
        os.close(say_done)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        yield None
        return
    if pid == 0:  # pragma: no cover - the child process
        status = 1
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
            os.close(done)
            work()
            os.write(say_done, _DONE)
            status = 0
        finally:
            os._exit(status)
    os.close(say_done)  # (the child's alone: its end, or its exit, is the end of the pipe)
    child = Child(pid, done)
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        yield child
    finally:
        child.stop()

"""The ``speeduptest`` command's entry point (and ``python -m speeduptest``'s): what its
process needs set before anything is imported, then :func:`speeduptest.cli.console_main`.

This module imports nothing of numpy or scipy at its top, so that what it sets reaches them
when they load.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from speeduptest.exits import EXIT_INTERRUPTED, EXIT_TERMINATED

#: An open file descriptor to which the command writes "ready" once its own code runs
#: (before, a signal lands in the interpreter's start-up): what tests wait for.
READY_FD_VARIABLE = "SPEEDUPTEST_READY_FD"

#: Where OpenBLAS looks for its number of threads, in its order.
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def entry_point() -> int:
    """Run the command in this process; returns the exit status."""
    # OpenBLAS (numpy's and scipy's, one each) starts a pool of threads when it loads, which
    # spin a while waiting for work: 0.18 s of processor time taken from the children that
    # read the samples and compute the bootstrap beside the command (10,000 pairs: median
    # 1.89 -> 1.81 s). The command's matrix products are small and one at a time, and its
    # parallel work is done by processes: one thread each. A number the user set (for
    # OpenBLAS, or through the variables it falls back on) is kept.
    if not any(name in os.environ for name in _THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    status = EXIT_INTERRUPTED
    sys.unraisablehook = _redeliver_lost_interrupts(sys.unraisablehook)
    try:
        try:
            _tell_ready()
            from speeduptest.cli import console_main

            status = console_main()
        except KeyboardInterrupt:  # before the command handles it: while it loads, or
            # parses its arguments, or as it returns (a traceback there told nothing)
            if sys.stderr is not None:
                with contextlib.suppress(OSError):
                    print("\nspeeduptest: interrupted", file=sys.stderr)
            status = EXIT_INTERRUPTED
    finally:
        # The run is over and its status decided: a signal now changes neither.
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGALRM):
            signal.signal(number, signal.SIG_IGN)
    _flush_or_forget()
    if status in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        # Ended now, with this status: an interrupt that passed through C code on its way
        # (an extension's start-up) would otherwise have the interpreter end by SIGINT.
        os._exit(status)
    return status


def _redeliver_lost_interrupts(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisable-exception hook that gives back an interrupt Python dropped (Ctrl-C in
    a callback, such as the import system's module locks: printed as "Exception ignored",
    and the run went on): it is raised again a moment later, in the command's own code."""
    def redeliver(unraisable: Any) -> object:
        kind = unraisable.exc_type
        if not (isinstance(kind, type) and issubclass(kind, KeyboardInterrupt)):
            return hook(unraisable)

        def again(signum: int, frame: object) -> None:
            raise kind

        signal.signal(signal.SIGALRM, again)
        signal.setitimer(signal.ITIMER_REAL, 0.001)
        return None
    return redeliver


def _tell_ready() -> None:
    descriptor = os.environ.pop(READY_FD_VARIABLE, None)
    if descriptor is not None and descriptor.isdigit():
        with contextlib.suppress(OSError):
            os.write(int(descriptor), b"ready\n")
            os.close(int(descriptor))


def _flush_or_forget() -> None:
    """Flush the standard streams now; what cannot be written (a full device, a reader gone)
    is dropped, so that the interpreter's own flush at exit cannot change the exit status."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())

"""The ``speeduptest`` command's entry point (and ``python -m speeduptest``'s): what its
process needs set before anything is imported, then :func:`speeduptest.cli.console_main`.

This module imports nothing of numpy or scipy, so that what it sets reaches them when they
load.
"""

from __future__ import annotations

import os
import sys

#: The exit status of an interrupted run (the command's, :mod:`speeduptest.cli`, too).
EXIT_INTERRUPTED = 130

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
    try:
        from .cli import console_main

        return console_main()
    except KeyboardInterrupt:  # before the command handles it: while it loads, or parses
        if sys.stderr is not None:  # its arguments (a traceback there told nothing)
            print("\nspeeduptest: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED

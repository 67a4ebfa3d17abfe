"""The parent process's own processor time of a JSON run, for several source trees of
speeduptest in interleaved rounds: at 10,000 pairs the parent is the run's critical path (its
children run on the other core and it hardly waits for them: docs/performance.md), so its own
processor time is what the wall clock follows on a quiet machine, and it varies much less
than the wall clock on a busy one.

Usage: python benchmarks/parent_cpu.py [--benchmarks 10000] [--values 31] [--rounds 5]
                                       NAME=FOLDER [NAME=FOLDER ...]

FOLDER is a source tree holding ``speeduptest/`` (this repository, a ``git worktree`` or a
``git archive`` of another commit); it is run as ``python -P`` with ``PYTHONPATH=FOLDER`` (and
``SPEEDUPTEST_TREE=FOLDER``, for a Python whose site maps the package elsewhere). Each round
runs every tree once, in order, on the same synthetic config (benchmarks/throughput.py's
``make_config``), ``--quiet --format json``; the run's own user + system seconds are taken
with ``resource.getrusage(RUSAGE_SELF)`` as its process ends (the children it forks are not
counted). Prints, per tree, the best and median of the parent's processor seconds and of the
wall clock; stops if a tree's results.json differs from the first tree's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throughput import make_config

#: Runs the command in this process and appends its own processor seconds to argv[1].
WRAPPER = """
import os, resource, sys
report = sys.argv.pop(1)
sys.argv[0] = "speeduptest"
try:
    from speeduptest.command import entry_point
    status = entry_point()
finally:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(report, "a") as handle:
        handle.write(f"{usage.ru_utime + usage.ru_stime}\\n")
os._exit(status)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--benchmarks", type=int, default=10_000)
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("trees", nargs="+", metavar="NAME=FOLDER")
    args = parser.parse_args()
    trees = [tuple(text.split("=", 1)) for text in args.trees]
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(Path(folder), args.benchmarks, args.values)
        cpu: dict[str, list[float]] = {name: [] for name, _ in trees}
        wall: dict[str, list[float]] = {name: [] for name, _ in trees}
        for _ in range(args.rounds):
            for name, tree in trees:
                out, report = Path(folder) / f"out-{name}", Path(folder) / f"cpu-{name}"
                report.write_text("")
                environment = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()),
                                   SPEEDUPTEST_TREE=str(Path(tree).resolve()))
                start = time.perf_counter()
                subprocess.run([sys.executable, "-P", "-c", WRAPPER, str(report), str(config),
                                "--quiet", "-o", str(out), "--format", "json"],
                               env=environment, check=True, stdout=subprocess.DEVNULL)
                wall[name].append(time.perf_counter() - start)
                cpu[name].append(float(report.read_text().split()[0]))
            first = (Path(folder) / f"out-{trees[0][0]}" / "results.json").read_bytes()
            for name, _ in trees[1:]:
                if (Path(folder) / f"out-{name}" / "results.json").read_bytes() != first:
                    raise SystemExit(f"{name}: results.json differs from {trees[0][0]}'s")
        for name, _ in trees:
            print(f"{name:>12}: parent's processor time best {min(cpu[name]):.3f} s, median "
                  f"{statistics.median(cpu[name]):.3f} s | wall best {min(wall[name]):.2f} s, "
                  f"median {statistics.median(wall[name]):.2f} s ({args.rounds} rounds)")
        print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

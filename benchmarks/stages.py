"""Where a JSON-only run spends its time: wall, user and system seconds and page faults per
stage, in-process (issue 11's breakdown).

Usage: python benchmarks/stages.py [--benchmarks 10000] [--values 31] [CONFIG]

Without CONFIG, writes a synthetic one as benchmarks/throughput.py does (``make_config``).
Each stage is timed by wrapping its function (imports are timed before the run): the config,
the reading of every benchmark (``_read_benchmarks`` as the loop consumes it), the analysis of
the pairs (each batch's ``analysis._analysis_steps``, the bootstrap beside them), the calls,
the overall figures, and results.json (encoded as the report folder writes it). Stages nest:
"analyse_benchmarks" holds reading, pairs, calls and overall. (The command forks the child
that reads the samples before it imports scipy; here the imports come first, so that child
starts later and the reading takes longer than in the command.)
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads, as the command does
from throughput import make_config


def _snapshot() -> list[float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return [time.perf_counter(), usage.ru_utime, usage.ru_stime, usage.ru_minflt]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", nargs="?", type=Path)
    parser.add_argument("--benchmarks", type=int, default=10_000)
    parser.add_argument("--values", type=int, default=31)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = args.config or make_config(Path(folder), args.benchmarks, args.values)
        start = _snapshot()
        from speeduptest import cli
        from speeduptest.analysis import benchmarks as analysis
        from speeduptest.analysis import run as entry
        from speeduptest.inputs import forms
        from speeduptest.output import ReportFolder
        from speeduptest.render import formats as reports  # noqa: F401  (its imports belong
        # to the imports)

        timings: dict[str, list[float]] = {"imports": [a - b for a, b in
                                                       zip(_snapshot(), start, strict=True)]}

        def timed(module: object, name: str, label: str) -> None:
            original = getattr(module, name)

            def wrapper(*positional, **keywords):
                before = _snapshot()
                try:
                    return original(*positional, **keywords)
                finally:
                    spent = timings.setdefault(label, [0.0] * 4)
                    for index, (after, then) in enumerate(zip(_snapshot(), before,
                                                              strict=True)):
                        spent[index] += after - then

            setattr(module, name, wrapper)

        def timed_steps(module: object, name: str, label: str) -> None:
            """A generator function's steps timed as they run (a batch's analysis pauses
            while its bootstrap is computed: analysis._analysis_steps)."""
            original = getattr(module, name)

            class Steps:
                def __init__(self, steps):
                    self.steps = steps

                def __iter__(self):
                    return self

                def __next__(self):
                    before = _snapshot()
                    try:
                        return next(self.steps)
                    finally:
                        spent = timings.setdefault(label, [0.0] * 4)
                        for index, (after, then) in enumerate(zip(_snapshot(), before,
                                                                  strict=True)):
                            spent[index] += after - then

            setattr(module, name, lambda *positional, **keywords: Steps(
                original(*positional, **keywords)))

        timed_steps(analysis, "_analysis_steps", "  pairs")
        for module, name, label in (
                (forms, "read_config", "config"),
                (entry, "analyse_benchmarks", "analyse_benchmarks"),
                (analysis, "_decide_calls", "  calls"),
                (analysis, "overall_figures", "  overall"),
                (ReportFolder, "write", "results.json")):
            timed(module, name, label)
        before = _snapshot()
        code = cli.main([str(config), "--quiet", "-o", str(Path(folder) / "out"),
                         "--format", "json"])
        timings["run (after imports)"] = [a - b for a, b in
                                          zip(_snapshot(), before, strict=True)]
    print(f"{'stage':22s} {'wall':>6s} {'user':>6s} {'sys':>6s} {'faults':>8s}   exit {code}")
    for label, (wall, user, system, faults) in timings.items():
        print(f"{label:22s} {wall:6.2f} {user:6.2f} {system:6.2f} {faults:8.0f}")
    print("(the reading is what analyse_benchmarks spends outside pairs, calls and overall)")


if __name__ == "__main__":
    sys.exit(main())

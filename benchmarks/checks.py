"""What the measurement checks cost: ``check_pairs`` over synthetic benchmark pairs, in-process.

Usage: python benchmarks/checks.py [--benchmarks 10000] [--values 31] [--repeat 5]
                                   [--warmup auto] [--dependence batch]

Writes a config as benchmarks/throughput.py does (``make_config``), reads its samples, then
times (processor time of this process, best and median of --repeat rounds, the cycle collector
paused as the command pauses it) the checks of every pair in the command's batches of 1,024
pairs (``speeduptest.analysis.validity.check_pairs``), and, for comparison, the numbers alone
(steady states, lag-1 autocorrelations, Mann–Kendall's tests: ``check_sides``' numpy work)
computed for 2,048 samples at a time, without the objects and warnings made of them.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the command sets it

import numpy as np
from throughput import make_config

from speeduptest.analysis.validity import check_pairs
from speeduptest.stats import steady
from speeduptest.stats.hierarchy import Hierarchy

#: Pairs per call, as the command checks them (a streamed batch).
BATCH = 1_024


def read_values(folder: Path, benchmarks: int) -> list[np.ndarray]:
    return [np.array([float(token) for token in (folder / f"b{index}-{role}.txt")
                      .read_text().split()])
            for index in range(benchmarks) for role in ("initial", "optimized")]


def pairs_of(values: list[np.ndarray]) -> list[tuple[Hierarchy, Hierarchy]]:
    samples = [Hierarchy.flat(array) for array in values]
    return [(samples[index], samples[index + 1]) for index in range(0, len(samples), 2)]


def timed(function, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmarks", type=int, default=10_000)
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--warmup", default="auto")
    parser.add_argument("--dependence", default="batch")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        make_config(Path(folder), args.benchmarks, args.values)
        values = read_values(Path(folder), args.benchmarks)
    gc.disable()

    def checks(pairs: list[tuple[Hierarchy, Hierarchy]]) -> None:
        for first in range(0, len(pairs), BATCH):
            part = pairs[first:first + BATCH]
            check_pairs(part, args.warmup, args.dependence, 5, [("", "")] * len(part))

    def numbers() -> None:
        for first in range(0, len(values), 2 * BATCH):
            rows = np.stack(values[first:first + 2 * BATCH])
            steady._steady_rows(rows, steady.PENALTY)
            steady.lag1_rows(rows)
            steady.mann_kendall_rows(rows)

    print(f"{args.benchmarks} pairs x {args.values} values, --warmup {args.warmup} "
          f"--dependence {args.dependence}; processor seconds, best (median) of {args.repeat}:")
    # (fresh samples for each round, made outside the timing)
    made = iter([pairs_of(values) for _ in range(args.repeat)])
    report("check_pairs", timed(lambda: checks(next(made)), args.repeat))
    report("  the numbers alone", timed(numbers, args.repeat))


def report(label: str, times: list[float]) -> None:
    print(f"  {label:24s} {min(times):6.3f} s ({statistics.median(times):.3f} s)")

if __name__ == "__main__":
    main()

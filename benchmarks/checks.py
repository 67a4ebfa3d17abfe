"""What the measurement checks cost: ``check_pairs`` over synthetic benchmark pairs, in-process.

Usage: python benchmarks/checks.py [--benchmarks 10000] [--values 31] [--repeat 5]
                                   [--warmup auto] [--dependence batch]

Writes a config as benchmarks/throughput.py does (``make_config``), reads its samples, then
times (processor time of this process, best and median of --repeat rounds, the cycle collector
paused as the command pauses it) the checks of every pair in the command's batches of 1,024
pairs (``speeduptest.analysis.validity.check_pairs``):
  computed here  every number computed by the checks (SPEEDUPTEST_WITHOUT=prechecks, or
                 samples the caller parsed itself);
  prechecked     the samples carrying the records the prefetch child makes of the plain samples
                 it parses (``speeduptest.stats.steady.prechecks``, 512 at a time as the child
                 does), whose time is printed as the child's;
and, for comparison, the numbers alone (steady states, lag-1 autocorrelations, Mann–Kendall's
counts) computed for 2,048 samples at a time, without the objects and warnings made of them.
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
#: Plain samples the prefetch child checks at once (runtime/prefetch.py's _COMPLETE_BATCH).
CHILD_BATCH = 512


def read_values(folder: Path, benchmarks: int) -> list[np.ndarray]:
    return [np.array([float(token) for token in (folder / f"b{index}-{role}.txt")
                      .read_text().split()])
            for index in range(benchmarks) for role in ("initial", "optimized")]


def pairs_of(values: list[np.ndarray], records: list[bytes] | None
             ) -> list[tuple[Hierarchy, Hierarchy]]:
    samples = [Hierarchy.flat(array) for array in values]
    if records is not None:
        for sample, record in zip(samples, records, strict=True):
            steady.remember_prechecks(sample, record)
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

    def child() -> list[bytes]:
        return [record for first in range(0, len(values), CHILD_BATCH)
                for record in steady.prechecks(values[first:first + CHILD_BATCH])]

    records = child()

    def checks(pairs: list[tuple[Hierarchy, Hierarchy]]) -> None:
        for first in range(0, len(pairs), BATCH):
            part = pairs[first:first + BATCH]
            check_pairs(part, args.warmup, args.dependence, 5, [("", "")] * len(part))

    def numbers() -> None:
        for first in range(0, len(values), 2 * BATCH):
            part = values[first:first + 2 * BATCH]
            steady._row_checks(np.stack(part))

    print(f"{args.benchmarks} pairs x {args.values} values, --warmup {args.warmup} "
          f"--dependence {args.dependence}; processor seconds, best (median) of {args.repeat}:")
    for label, recorded in (("computed here", None), ("prechecked", records)):
        # (fresh samples for each round, made outside the timing: a sample keeps its record)
        made = iter([pairs_of(values, recorded) for _ in range(args.repeat)])
        report(label, timed(lambda made=made: checks(next(made)), args.repeat))
    report("  the child's records", timed(child, args.repeat))
    report("  the numbers alone", timed(numbers, args.repeat))


def report(label: str, times: list[float]) -> None:
    print(f"  {label:24s} {min(times):6.3f} s ({statistics.median(times):.3f} s)")

if __name__ == "__main__":
    main()

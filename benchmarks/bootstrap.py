"""How long the hierarchical bootstrap takes: 10,000 resamples for 100 benchmarks of
20 invocations × 3 iterations per version (both versions; the aggregate intervals are the
delta method's, the default).

Usage: python benchmarks/bootstrap.py [--benchmarks 100] [--resamples 10000]
       python benchmarks/bootstrap.py --mc-error [--seeds 300]
Times `speeduptest --format json` end to end in a fresh process, best of 3 runs.

--mc-error measures why 2,000 resamples are enough for a benchmark's bootstrap interval: the
standard deviation, from one seed to another, of each end of the 95% percentile interval,
relative to the interval's width, for typical samples and resample counts (flat samples through
the shared count matrices of a run, hierarchical ones through their own random streams).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from throughput import run_times

from speeduptest.stats.effect_size import (
    bootstrap_interval,
    flat_bootstrap_intervals,
    resampled_means,
)
from speeduptest.stats.hierarchy import Hierarchy


def make_config(folder: Path, benchmarks: int, invocations: int = 20, iterations: int = 3,
                seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    rows = ["benchmark,initial,optimized"]
    for index in range(benchmarks):
        base = rng.uniform(0.1, 2.0)
        for role, mean in (("initial", base), ("optimized", base / rng.choice([1.0, 1.05]))):
            lines = ["invocation,iteration,value"]
            for invocation in range(1, invocations + 1):
                shift = rng.normal(0, 0.03)
                lines += [f"{invocation},{iteration},{mean * (1 + shift + rng.normal(0, 0.01)):.6g}"
                          for iteration in range(1, iterations + 1)]
            (folder / f"b{index}-{role}.csv").write_text("\n".join(lines) + "\n")
        rows.append(f"b{index},b{index}-initial.csv,b{index}-optimized.csv")
    config = folder / "config.csv"
    config.write_text("\n".join(rows) + "\n")
    return config


def _relative_spread(intervals: list[tuple[float, float]]) -> float:
    """Mean over both ends of the standard deviation of the end, relative to the mean width."""
    ends = np.array(intervals)
    return float(np.mean(ends.std(axis=0)) / np.mean(ends[:, 1] - ends[:, 0]))


def monte_carlo_error(seeds: int) -> None:
    rng = np.random.default_rng(0)
    flat = {"31 values, log-normal σ = 0.3": (rng.lognormal(0, 0.3, 31), rng.lognormal(0, 0.3, 31)),
            "31 values, normal 3%": (rng.normal(1, 0.03, 31), rng.normal(0.97, 0.03, 31)),
            "10 values, normal 3%": (rng.normal(1, 0.03, 10), rng.normal(0.97, 0.03, 10))}
    nested = (Hierarchy.from_nested(rng.normal(1, 0.03, (20, 3)).tolist()),
              Hierarchy.from_nested(rng.normal(0.97, 0.03, (20, 3)).tolist()))
    counts = (1_000, 2_000, 10_000)
    print("Monte-Carlo error of a 95% bootstrap interval: SD of each end over "
          f"{seeds} seeds / mean width")
    print()
    print("| sample | " + " | ".join(f"{c:,} resamples" for c in counts) + " |")
    print("|---|" + "---:|" * len(counts))
    for name, (x, y) in flat.items():
        cells = []
        for resamples in counts:
            intervals = [flat_bootstrap_intervals(x, y, [0.95], resamples, seed)[0]
                         for seed in range(seeds)]
            cells.append(_relative_spread([(i.low, i.high) for i in intervals]))
        print(f"| flat, {name} | " + " | ".join(f"{c:.2%}" for c in cells) + " |")
    cells = []
    for resamples in counts:
        intervals = []
        for seed in range(seeds):
            stream = np.random.default_rng([seed, 1])
            interval = bootstrap_interval(resampled_means(nested[0], resamples, stream),
                                          resampled_means(nested[1], resamples, stream), 0.95)
            intervals.append((interval.low, interval.high))
        cells.append(_relative_spread(intervals))
    print("| 20 invocations × 3 iterations, normal 3% | "
          + " | ".join(f"{c:.2%}" for c in cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--mc-error", action="store_true",
                        help="measure the Monte-Carlo error of the interval's ends instead")
    parser.add_argument("--seeds", type=int, default=300)
    args = parser.parse_args()
    if args.mc_error:
        monte_carlo_error(args.seeds)
        return
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(Path(folder), args.benchmarks)
        timings = {resamples: min(run_times(config, Path(folder) / "out", 3, "--format",
                                            "json", "--bootstrap", str(resamples)))
                   for resamples in (1, args.resamples)}
    print(f"{args.benchmarks} benchmarks of 20 invocations x 3 iterations, --format json: "
          f"{timings[args.resamples]:.2f} s with {args.resamples} resamples, "
          f"{timings[1]:.2f} s with 1 "
          f"(bootstrap share {timings[args.resamples] - timings[1]:.2f} s)")


if __name__ == "__main__":
    main()

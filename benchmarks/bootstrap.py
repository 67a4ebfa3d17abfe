"""How long the hierarchical bootstrap takes: 10,000 resamples for 100 benchmarks of
20 invocations × 3 iterations per version (both versions, plus the aggregate intervals).

Usage: python benchmarks/bootstrap.py [--benchmarks 100] [--resamples 10000]
Times `speeduptest --format json` end to end in a fresh process, best of 3 runs.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from throughput import run_times


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()
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

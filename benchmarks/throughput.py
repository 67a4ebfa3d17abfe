"""How long `speeduptest --format json` takes for 1,000 synthetic benchmark pairs of 31 values.

Usage: python benchmarks/throughput.py [--benchmarks 1000] [--values 31] [--repeat 3]
Times the whole command in a fresh process (imports included), best of --repeat runs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make_config(folder: Path, benchmarks: int, values: int, seed: int = 0) -> Path:
    """Benchmarks with a mix of speedups, slowdowns and no change, some skewed samples."""
    rng = np.random.default_rng(seed)
    rows = ["benchmark,initial,optimized,weight"]
    for index in range(benchmarks):
        base = rng.uniform(0.05, 5.0)
        effect = rng.choice([0.8, 0.95, 1.0, 1.05, 1.3])
        for role, mean in (("initial", base), ("optimized", base / effect)):
            noise = (rng.lognormal(0, 0.3, values) if index % 3 == 0
                     else rng.normal(1, 0.03, values))
            (folder / f"b{index}-{role}.txt").write_text(
                "\n".join(f"{v:.6g}" for v in mean * np.abs(noise)) + "\n")
        rows.append(f"b{index},b{index}-initial.txt,b{index}-optimized.txt,1")
    config = folder / "config.csv"
    config.write_text("\n".join(rows) + "\n")
    return config


def command_times(command: list[str], repeat: int) -> list[float]:
    """Wall-clock seconds of ``repeat`` runs of ``command`` (its output discarded)."""
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        timings.append(time.perf_counter() - start)
    return timings


def run_times(config: Path, output: Path, repeat: int, *options: str) -> list[float]:
    """Wall-clock seconds of ``repeat`` runs of the whole command in a fresh process."""
    return command_times([sys.executable, "-m", "speeduptest", str(config), "--quiet",
                          "-o", str(output), *options], repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--benchmarks", type=int, default=1000)
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(Path(folder), args.benchmarks, args.values)
        timings = run_times(config, Path(folder) / "out", args.repeat, "--format", "json")
    print(f"{args.benchmarks} benchmarks x {args.values} values, --format json: "
          f"best {min(timings):.2f} s, median {sorted(timings)[len(timings) // 2]:.2f} s "
          f"over {args.repeat} runs")


if __name__ == "__main__":
    main()

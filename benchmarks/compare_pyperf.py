"""How long `speeduptest compare` takes on two pyperformance-sized pyperf files (102
benchmarks × 20 processes × 3 values, one warm-up each), JSON only, beside `pyperf
compare_to` on the same files.

Usage: python benchmarks/compare_pyperf.py [--benchmarks 102] [--processes 20] [--values 3]
       [--repeat 3]
Both commands run in a fresh process (imports included); best and median of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from throughput import command_times


def make_pyperf_file(path: Path, benchmarks: int, processes: int, values: int,
                     speedups: np.ndarray, seed: int) -> None:
    """A pyperf JSON file: per benchmark, ``processes`` runs of one warm-up and ``values``
    timed values, with a per-process offset (the hierarchy pyperformance has)."""
    rng = np.random.default_rng(seed)
    entries = []
    for index in range(benchmarks):
        base = 10.0 ** rng.uniform(-5, -1) / speedups[index]
        runs = [{"metadata": {"date": "2026-11-23 00:00:00"}, "warmups": [[1, base * 1.1]],
                 "values": (base * rng.lognormal(0, 0.02) * rng.lognormal(0, 0.01, values)
                            ).tolist()} for _ in range(processes)]
        entries.append({"metadata": {"name": f"bm_{index:03d}", "loops": 1}, "runs": runs})
    path.write_text(json.dumps({"version": "1.0", "metadata": {}, "benchmarks": entries}))


def best_and_median(command: list[str], repeat: int) -> tuple[float, float]:
    timings = command_times(command, repeat)
    return min(timings), sorted(timings)[len(timings) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--benchmarks", type=int, default=102)
    parser.add_argument("--processes", type=int, default=20)
    parser.add_argument("--values", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    speedups = rng.choice([0.95, 1.0, 1.0, 1.02, 1.1], args.benchmarks)
    with tempfile.TemporaryDirectory() as folder:
        base, changed = Path(folder) / "base.json", Path(folder) / "changed.json"
        make_pyperf_file(base, args.benchmarks, args.processes, args.values,
                         np.ones(args.benchmarks), seed=1)
        make_pyperf_file(changed, args.benchmarks, args.processes, args.values, speedups,
                         seed=2)
        ours = best_and_median([sys.executable, "-m", "speeduptest", "compare", str(base),
                                str(changed), "--format", "json", "--quiet",
                                "-o", str(Path(folder) / "out")], args.repeat)
        try:
            peer = best_and_median([sys.executable, "-m", "pyperf", "compare_to", str(base),
                                    str(changed)], args.repeat)
        except (subprocess.CalledProcessError, FileNotFoundError):
            peer = None
    size = f"{args.benchmarks} benchmarks x {args.processes} processes x {args.values} values"
    line = f"{size}, JSON only: speeduptest compare best {ours[0]:.2f} s, median {ours[1]:.2f} s"
    if peer is not None:
        line += f" | pyperf compare_to best {peer[0]:.2f} s, median {peer[1]:.2f} s"
    print(line + f" ({args.repeat} runs each)")


if __name__ == "__main__":
    main()

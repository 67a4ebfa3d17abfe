"""Coverage of one benchmark's 95% interval of the speedup when each side is one invocation of
autocorrelated iterations (AR(1)), with and without batch means.

Usage: python benchmarks/dependence_coverage.py [--benchmarks 400] [--values 300] [--seed 1]

For each φ (0, 0.5, 0.8, 0.95): ``--benchmarks`` unchanged benchmarks, each side one series of
``--values`` times ``base · exp(e)``, e an AR(1) series of coefficient φ and marginal standard
deviation 2%, written as plain sample files with a config; the config is analysed with
``--correction none`` (each interval at its own 95%) under the defaults (batch means) and with
``--dependence ignore``. Printed: the share of the benchmarks whose interval of the speedup of
the means (the call's: Fieller's, the bootstrap's where Fieller's is unbounded) contains 1, the
true speedup, with its binomial standard error. The promise is 95%.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from warmup_detection import ar1

from speeduptest.cli import main

PHIS = (0.0, 0.5, 0.8, 0.95)


def coverage(folder: Path, dependence: str) -> tuple[float, int]:
    out = folder / f"out-{dependence}"
    main([str(folder / "config.csv"), "-o", str(out), "--format", "json", "--quiet",
          "--correction", "none", "--threshold", "0", "--bootstrap", "200",
          "--dependence", dependence])
    data = json.loads((out / "results.json").read_text())
    intervals = [b["change"]["interval"] for b in data["benchmarks"] if b["change"]]
    covered = sum(1 for i in intervals if i["low"] is not None and i["high"] is not None
                  and i["low"] <= 1 <= i["high"])
    return covered / len(intervals), len(intervals)


def main_() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=int, default=400)
    parser.add_argument("--values", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"## Coverage of one benchmark's 95% interval: {args.benchmarks} unchanged benchmarks "
          f"× 1 invocation × {args.values} values per side, AR(1), σ 2%, seed {args.seed}\n")
    print("| φ | defaults (batch means) | `--dependence ignore` |")
    print("|---:|---:|---:|")
    for phi in PHIS:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            rows = ["benchmark,initial,optimized"]
            for index in range(args.benchmarks):
                base = rng.uniform(1e-3, 1.0)
                for role in ("a", "b"):
                    values = base * np.exp(ar1(rng, args.values, phi, 0.02))
                    (folder / f"{index}{role}.txt").write_text(
                        "\n".join(f"{v:.12g}" for v in values) + "\n")
                rows.append(f"b{index},{index}a.txt,{index}b.txt")
            (folder / "config.csv").write_text("\n".join(rows) + "\n")
            cells = []
            for dependence in ("batch", "ignore"):
                share, n = coverage(folder, dependence)
                error = (share * (1 - share) / n) ** 0.5
                cells.append(f"{share:.1%} ± {error:.1%}")
            print(f"| {phi:g} | {cells[0]} | {cells[1]} |", flush=True)
    print(f"\n({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main_())

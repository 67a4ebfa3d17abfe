"""How long `speeduptest --format json` takes for 1,000 synthetic benchmarks of 4 versions
of 31 values each (a wide config with --baseline): every version against the baseline
(3,000 two-version analyses, calls corrected over all of them), the omnibus test, post-hoc
pairs and letters of every benchmark, and the ranking.

Usage: python benchmarks/throughput_versions.py [--benchmarks 1000] [--versions 4]
       [--values 31] [--repeat 3]
Times the whole command in a fresh process (imports included), best of --repeat runs, with
the two-version figure of benchmarks/throughput.py (its helpers) beside it for scale.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
from throughput import make_config, run_times


def make_versions_config(folder: Path, benchmarks: int, versions: int, values: int,
                         seed: int = 0) -> Path:
    """Benchmarks whose versions mix speedups, slowdowns and no change (two versions of each
    benchmark alike, so that letters are shared), some with skewed samples."""
    rng = np.random.default_rng(seed)
    names = [f"v{v}" for v in range(versions)]
    rows = ["benchmark," + ",".join(names) + ",weight"]
    for index in range(benchmarks):
        base = rng.uniform(0.05, 5.0)
        effects = rng.choice([0.8, 0.95, 1.0, 1.05, 1.3], versions)
        effects[0] = 1.0
        effects[-1] = effects[-2]
        cells = []
        for name, effect in zip(names, effects, strict=True):
            noise = (rng.lognormal(0, 0.3, values) if index % 3 == 0
                     else rng.normal(1, 0.03, values))
            file = f"b{index}-{name}.txt"
            (folder / file).write_text(
                "\n".join(f"{v:.6g}" for v in base / effect * np.abs(noise)) + "\n")
            cells.append(file)
        rows.append(f"b{index}," + ",".join(cells) + ",1")
    config = folder / "versions.csv"
    config.write_text("\n".join(rows) + "\n")
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--benchmarks", type=int, default=1000)
    parser.add_argument("--versions", type=int, default=4)
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        config = make_versions_config(root, args.benchmarks, args.versions, args.values)
        timings = run_times(config, root / "out", args.repeat, "--format", "json",
                            "--baseline", "v0")
        pairs = make_config(root / "pairs" if (root / "pairs").mkdir() is None else root,
                            args.benchmarks, args.values)
        two = run_times(pairs, root / "out-pairs", args.repeat, "--format", "json")
    print(f"{args.benchmarks} benchmarks x {args.versions} versions x {args.values} values, "
          f"--format json: best {min(timings):.2f} s, median "
          f"{sorted(timings)[len(timings) // 2]:.2f} s over {args.repeat} runs "
          f"(two versions, benchmarks/throughput.py: best {min(two):.2f} s); "
          f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""How long reading benchmark tools' files takes, and a whole `speeduptest compare` on them.

Usage: python benchmarks/readers.py [--benchmarks 1000] [--repeat 3]
Writes synthetic files of each format for --benchmarks benchmarks (two versions): a long CSV
and a ReBench .data file of 10 invocations × 10 iterations per benchmark and version, and two
pyperf JSON files of 20 processes × 3 values. Prints the best in-process parse time of each
file, then the best wall-clock time of `speeduptest compare ... --format json` (a fresh
process, imports included) on the pyperf files and on the ReBench file.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from speeduptest.inputs.readers import read_source


def _times(rng: np.random.Generator, mean: float, shape: tuple[int, ...]) -> np.ndarray:
    return mean * rng.lognormal(0, 0.05, shape)


def write_files(folder: Path, benchmarks: int, seed: int = 0) -> dict[str, Path]:
    rng = np.random.default_rng(seed)
    means = rng.uniform(1, 50, benchmarks)  # milliseconds
    long_rows = ["benchmark,version,invocation,iteration,value"]
    data_rows = ["invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\t"
                 "extraArgs\tcores\tinputSize\tvarValue\ttag\tmachine\trunId"]
    suites = {}
    for version, factor in (("baseline", 1.0), ("optimized", 0.9)):
        suite = {"benchmarks": [], "version": "1.0", "metadata": {"unit": "second"}}
        for index, mean in enumerate(means):
            grid = _times(rng, mean * factor, (10, 10))
            for (invocation, iteration), value in np.ndenumerate(grid):
                long_rows.append(f"b{index},{version},{invocation + 1},{iteration + 1},"
                                 f"{value:.6f}")
                data_rows.append(f"{invocation + 1}\t{iteration + 1}\t{value:.6f}\tms\ttotal\t"
                                 f"b{index}\t{version}\tsuite\t\t1\t\t\t\t\t0")
            runs = [{"values": list(_times(rng, mean * factor / 1000, 3)),
                     "warmups": [[1, mean / 1000]]} for _ in range(20)]
            suite["benchmarks"].append({"metadata": {"name": f"b{index}"}, "runs": runs})
        suites[version] = suite
    files = {"long.csv": "\n".join(long_rows) + "\n", "bench.data": "\n".join(data_rows) + "\n",
             "baseline.json": json.dumps(suites["baseline"]),
             "optimized.json": json.dumps(suites["optimized"])}
    for name, text in files.items():
        (folder / name).write_text(text)
    return {name: folder / name for name in files}


def best(function, repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        timings.append(time.perf_counter() - start)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--benchmarks", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        files = write_files(Path(folder), args.benchmarks)
        for name, path in files.items():
            seconds = best(lambda path=path: read_source(path, str(path)), args.repeat)
            size = path.stat().st_size / 1e6
            print(f"read {name:15} ({size:5.1f} MB): {seconds:.2f} s")
        for label, sides in (("pyperf", [files["baseline.json"], files["optimized.json"]]),
                             ("ReBench", [f"{files['bench.data']}#baseline",
                                          f"{files['bench.data']}#optimized"])):
            command = [sys.executable, "-m", "speeduptest", "compare", *map(str, sides),
                       "--quiet", "--format", "json", "-o", str(Path(folder) / "out")]
            seconds = best(lambda command=command: subprocess.run(command, check=True),
                           args.repeat)
            print(f"speeduptest compare, {label}, {args.benchmarks} benchmarks, --format json: "
                  f"{seconds:.2f} s")


if __name__ == "__main__":
    main()

"""Coverage of the geometric mean's 95% intervals against the number of benchmarks b, before
and after the bias correction of log(mean ratio), and of its population interval.

Usage: python benchmarks/geomean_coverage.py [--replicates 2000] [--seed 0]
                                             [--shape normal|log-normal] [--cv 0.02 0.2]
                                             [--spot-check]

Every replicate draws a new suite of b benchmarks (10, 100 or 1,000) from one population of
programs: a weight (uniform in [0.5, 2]), a true mean time of the initial version (log-uniform
in [0.01, 10]) and a true speedup of the means θ (log-normal, σ = 0.1, so that the population's
geometric mean speedup is 1). Each side of a benchmark has flat samples of top-level units
(3 vs 3, 5 vs 20 or 10 vs 10 values), normal (or log-normal) around the true mean with a
coefficient of variation of 20% on both sides (equal noise) or 2% initial against 20% optimized
(unequal noise; ``--cv`` sets these two, the equal noise taking the second). Each side's
relative variance of the mean u = s²/n/Ȳ² with n − 1 degrees of freedom is what
speeduptest.stats.effect_size.mean_ratio makes of such samples.

From the same data, per replicate:

- *before*: the interval the code had before the correction, exp(Σ p·log θ̂ ± t·√(Σ p²(uᵢ + uₒ)))
  (the half-width of speeduptest.stats.overall.delta_half_widths, p = w/Σ w);
- *after*: speeduptest.stats.overall.geometric_mean_interval, the function the analysis calls
  (through DeltaAggregate, and for every version of several): each log corrected by
  (uᵢ − uₒ)/2, the same half-width;
- whether each contains the suite's true weighted geometric mean exp(Σ p·log θ) (this suite's
  measurement noise), and whether the population interval of ``geometric_mean_interval``
  contains the population's, 1 (the population of programs).

Prints a Markdown table; the Monte-Carlo standard error of a 95% coverage over 2,000 replicates
is 0.5 points. ``--spot-check`` also runs one suite of 100 benchmarks (3 vs 3 units, CV 2% vs
20%) through the command line and checks that results.json gives what the function gives.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from speeduptest.stats.fieller import MeanRatio
from speeduptest.stats.overall import delta_half_widths, geometric_mean_interval

CONFIDENCE = 0.95
UNITS = ((3, 3), (5, 20), (10, 10))
NOISE = {"equal": (0.20, 0.20), "unequal": (0.02, 0.20)}
BENCHMARKS = (10, 100, 1000)


def side(rng: np.random.Generator, means: np.ndarray, cv: float, units: int,
         shape: str) -> np.ndarray:
    """Top-level unit values of every benchmark: shape (benchmarks, units)."""
    z = rng.standard_normal((means.size, units))
    if shape == "normal":
        return means[:, None] * (1 + cv * z)
    sigma2 = math.log1p(cv**2)  # a log-normal with mean 1 and this CV
    return means[:, None] * np.exp(math.sqrt(sigma2) * z - sigma2 / 2)


def mean_ratio(initial: np.ndarray, optimized: np.ndarray) -> MeanRatio:
    """As speeduptest.stats.effect_size.mean_ratio makes it of flat samples."""
    def relative(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grand = values.mean(axis=1)
        return grand, values.var(axis=1, ddof=1) / values.shape[1] / grand**2

    (grand_i, u_i), (grand_o, u_o) = relative(initial), relative(optimized)
    return MeanRatio(grand_i / grand_o, u_i, u_o, np.full(grand_i.size, initial.shape[1] - 1.0),
                     np.full(grand_o.size, optimized.shape[1] - 1.0))


def suite(rng: np.random.Generator, benchmarks: int, units: tuple[int, int],
          cvs: tuple[float, float], shape: str):
    weights = rng.uniform(0.5, 2.0, benchmarks)
    mean_i = np.exp(rng.uniform(math.log(0.01), math.log(10.0), benchmarks))
    theta = np.exp(rng.normal(0.0, 0.1, benchmarks))
    initial = side(rng, mean_i, cvs[0], units[0], shape)
    optimized = side(rng, mean_i / theta, cvs[1], units[1], shape)
    return weights, theta, initial, optimized


def coverage(benchmarks: int, units: tuple[int, int], cvs: tuple[float, float], shape: str,
             replicates: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng([seed, benchmarks, *units, cvs[0] == cvs[1],
                                 shape == "normal"])
    hits = dict.fromkeys(("before", "after", "population", "suite_as_population"), 0)
    for _ in range(replicates):
        weights, theta, initial, optimized = suite(rng, benchmarks, units, cvs, shape)
        ratio = mean_ratio(initial, optimized)
        shares = weights / weights.sum()
        truth = float(shares @ np.log(theta))
        logs = np.log(ratio.speedup)
        (half, _), _ = delta_half_widths(weights, initial.mean(axis=1), optimized.mean(axis=1),
                                         ratio, CONFIDENCE)
        hits["before"] += abs(float(shares @ logs) - truth) <= half
        after = geometric_mean_interval(weights, logs, ratio, CONFIDENCE)
        hits["after"] += after.low <= math.exp(truth) <= after.high
        hits["population"] += after.population.low <= 1.0 <= after.population.high
        hits["suite_as_population"] += after.low <= 1.0 <= after.high
    return {name: hit / replicates for name, hit in hits.items()}


def spot_check(seed: int) -> None:
    """One suite through the command line: results.json's geometric mean is the function's."""
    rng = np.random.default_rng(seed)
    weights, _, initial, optimized = suite(rng, 100, (3, 3), NOISE["unequal"], "normal")
    with tempfile.TemporaryDirectory() as folder:
        rows = ["benchmark,initial,optimized,weight"]
        for j in range(weights.size):
            for role, values in (("i", initial[j]), ("o", optimized[j])):
                (Path(folder) / f"b{j}{role}.txt").write_text(
                    "\n".join(repr(float(v)) for v in values) + "\n")
            rows.append(f"b{j},b{j}i.txt,b{j}o.txt,{float(weights[j])!r}")
        (Path(folder) / "config.csv").write_text("\n".join(rows) + "\n")
        subprocess.run([sys.executable, "-m", "speeduptest", f"{folder}/config.csv", "-o",
                        f"{folder}/out", "--format", "json", "--quiet", "--warmup", "none",
                        "--dependence", "ignore"], check=True)
        got = json.loads((Path(folder) / "out" / "results.json").read_text())
    ratio = mean_ratio(initial, optimized)
    expected = geometric_mean_interval(weights, np.log(ratio.speedup), ratio, CONFIDENCE)
    geometric = got["overall"]["geometric_mean"]
    pairs = [(geometric["speedup"], expected.value), (geometric["ci"][0], expected.low),
             (geometric["ci"][1], expected.high),
             (geometric["population"]["ci"][0], expected.population.low),
             (geometric["population"]["ci"][1], expected.population.high)]
    worst = max(abs(a / b - 1) for a, b in pairs)
    print(f"Spot check, 100 benchmarks through the command line: geometric mean "
          f"{geometric['speedup']:.6g}, CI {geometric['ci'][0]:.6g}–{geometric['ci'][1]:.6g}, "
          f"population {geometric['population']['ci'][0]:.6g}–"
          f"{geometric['population']['ci'][1]:.6g}; largest relative difference from "
          f"geometric_mean_interval {worst:.1e}")
    if worst > 1e-9:
        raise SystemExit("the command line does not give what the function gives")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=("normal", "log-normal"), default="normal")
    parser.add_argument("--cv", type=float, nargs=2, default=NOISE["unequal"],
                        metavar=("INITIAL", "OPTIMIZED"),
                        help="the CVs of unequal noise; equal noise has the second on both sides")
    parser.add_argument("--spot-check", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.spot_check:
        spot_check(args.seed)
        print()
    noise = {"equal": (args.cv[1], args.cv[1]), "unequal": tuple(args.cv)}
    print(f"Coverage of 95% intervals of the geometric mean, {args.replicates} replicates, "
          f"{args.shape} units, CV {args.cv[1]:.0%} on both sides (equal noise) or "
          f"{args.cv[0]:.0%} initial, {args.cv[1]:.0%} optimized (unequal)")
    print()
    print("| units | noise | benchmarks | suite CI before | suite CI after | population CI "
          "| suite CI as a population CI |")
    print("|---|---|---:|---:|---:|---:|---:|")
    rows = [(b, units, name) for units in UNITS for name in noise for b in BENCHMARKS]
    # Every row has its own random stream: the table does not depend on the processes.
    with ProcessPoolExecutor(min(len(rows), os.cpu_count() or 1)) as pool:
        results = pool.map(coverage, [b for b, _, _ in rows], [units for _, units, _ in rows],
                           [noise[name] for _, _, name in rows], *(
            [value] * len(rows) for value in (args.shape, args.replicates, args.seed)))
        for (b, units, name), r in zip(rows, results, strict=True):
            print(f"| {units[0]} vs {units[1]} | {name} | {b:,} | {r['before']:.1%} | "
                  f"{r['after']:.1%} | {r['population']:.1%} | "
                  f"{r['suite_as_population']:.1%} |", flush=True)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

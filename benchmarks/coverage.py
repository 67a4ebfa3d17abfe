"""Coverage of the 95% speedup intervals (Fieller, delta, bootstrap) on simulated hierarchical
data: normal and log-normal, 3, 10 and 30 top-level units (invocations) of 5 iterations each.

Usage: python benchmarks/coverage.py [--replicates 1000] [--resamples 1000] [--seed 0]
Prints a Markdown table: the fraction of replicates whose interval contains the true speedup.
"""

from __future__ import annotations

import argparse

import numpy as np

from speeduptest.stats.effect_size import (
    bootstrap_interval,
    delta_interval,
    fieller_interval,
    resampled_means,
)
from speeduptest.stats.hierarchy import Hierarchy, variance_components

ITERATIONS = 5
INVOCATION_SD, ITERATION_SD = 0.05, 0.03  # relative spread between / within invocations
MEAN_INITIAL, MEAN_OPTIMIZED = 10.0, 9.0


def simulate(rng: np.random.Generator, mean: float, units: int, shape: str) -> Hierarchy:
    between = rng.normal(0, INVOCATION_SD, (units, 1))
    within = rng.normal(0, ITERATION_SD, (units, ITERATIONS))
    if shape == "normal":
        values = mean * (1 + between + within)
    else:  # log-normal with the same mean: E[exp(Z)] = exp(σ²/2)
        variance = INVOCATION_SD**2 + ITERATION_SD**2
        values = mean * np.exp(between + within - variance / 2)
    return Hierarchy(list(values))


def coverage(units: int, shape: str, replicates: int, resamples: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, units, shape == "normal"])
    # The resamples have their own stream: the data do not depend on how they are drawn.
    resampling = np.random.default_rng([seed, units, shape == "normal", 1])
    truth = MEAN_INITIAL / MEAN_OPTIMIZED
    hits = {"fieller": 0, "delta": 0, "bootstrap": 0}
    unbounded = 0
    for _ in range(replicates):
        initial = simulate(rng, MEAN_INITIAL, units, shape)
        optimized = simulate(rng, MEAN_OPTIMIZED, units, shape)
        ci, co = variance_components(initial), variance_components(optimized)
        intervals = {
            "fieller": fieller_interval(ci, co, 0.95),
            "delta": delta_interval(ci, co, 0.95),
            "bootstrap": bootstrap_interval(resampled_means(initial, resamples, resampling),
                                            resampled_means(optimized, resamples, resampling),
                                            0.95),
        }
        unbounded += not intervals["fieller"].bounded
        for name, interval in intervals.items():
            # An unbounded interval covers everything.
            if not interval.bounded or interval.low <= truth <= interval.high:
                hits[name] += 1
    return {name: hit / replicates for name, hit in hits.items()} | {
        "unbounded": unbounded / replicates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"Coverage of 95% intervals, {args.replicates} replicates, {ITERATIONS} iterations "
          f"per invocation, bootstrap {args.resamples} resamples")
    print()
    print("| data | invocations | Fieller | delta | bootstrap | Fieller unbounded |")
    print("|---|---:|---:|---:|---:|---:|")
    for shape in ("normal", "log-normal"):
        for units in (3, 10, 30):
            result = coverage(units, shape, args.replicates, args.resamples, args.seed)
            print(f"| {shape} | {units} | {result['fieller']:.1%} | {result['delta']:.1%} | "
                  f"{result['bootstrap']:.1%} | {result['unbounded']:.1%} |", flush=True)


if __name__ == "__main__":
    main()

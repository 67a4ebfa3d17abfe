"""Coverage of the 95% aggregate intervals: the delta method (the default) against the
bootstrap percentile interval, on simulated suites whose true aggregates are known.

Usage: python benchmarks/aggregate_coverage.py [--replicates 1000] [--resamples 500] [--seed 0]

Each suite has B benchmarks (10 or 100) with a fixed weight (uniform in [0.5, 2]), a true mean
time (log-uniform in [0.01, 10]) and a true speedup (log-normal, σ = 0.1). Each version of a
benchmark has U top-level units (3, 10 or 30) of 3 measurements: a unit's shift has a relative
spread drawn per benchmark (log-uniform in [1%, 20%]) and the measurements 3% within it,
either normal around the true mean or log-normal with the same mean. The true aggregates are
the weighted geometric mean of the true speedups of the means and the true overall speedup
Σ W·μᵢ / Σ W·μₒ.

For every replicate the script computes, from the same data,
- the delta-method intervals of speeduptest.stats.overall (``delta_half_widths``);
- for the overall speedup, Fieller's interval of the ratio of the two independent sums
  Σ W·Ȳᵢ / Σ W·Ȳₒ (each sum's relative variance and Welch–Satterthwaite degrees of freedom,
  one t quantile per side as speeduptest.stats.fieller.fieller_bounds), the alternative considered;
- the bootstrap percentile intervals of BootstrapAggregate: every benchmark resampled
  independently with replacement at both levels (units, then the measurements of each drawn
  unit). The simulation draws ``--resamples`` resamples (500 by default, fewer than a run's
  2,000 to keep the script near a minute; the Monte-Carlo error of a 95% percentile bound at
  500 resamples is ~3% of the interval's width), vectorised over the benchmarks of a suite
  with the same draw table as speeduptest.stats.effect_size.resampled_means for balanced samples.

Prints a Markdown table: the fraction of replicates whose interval contains the truth (the
Monte-Carlo standard error of a 95% coverage over 1,000 replicates is 0.7 points), and the
mean width of the delta interval relative to the bootstrap's.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from speeduptest.stats.fieller import MeanRatio, fieller_bounds
from speeduptest.stats.overall import delta_half_widths, log_interval

ITERATIONS = 3
ITERATION_SD = 0.03
CONFIDENCE = 0.95


def make_suite(rng: np.random.Generator, benchmarks: int) -> dict[str, np.ndarray]:
    return {
        "weight": rng.uniform(0.5, 2.0, benchmarks),
        "mean_initial": np.exp(rng.uniform(np.log(0.01), np.log(10.0), benchmarks)),
        "speedup": np.exp(rng.normal(0.0, 0.1, benchmarks)),
        "unit_sd": np.exp(rng.uniform(np.log(0.01), np.log(0.2), benchmarks)),
    }


def simulate(rng: np.random.Generator, means: np.ndarray, unit_sd: np.ndarray, units: int,
             shape: str) -> np.ndarray:
    """Measurements of every benchmark: shape (benchmarks, units, ITERATIONS)."""
    count = means.size
    between = rng.normal(0.0, 1.0, (count, units, 1)) * unit_sd[:, None, None]
    within = rng.normal(0.0, ITERATION_SD, (count, units, ITERATIONS))
    if shape == "normal":
        return means[:, None, None] * (1 + between + within)
    variance = unit_sd[:, None, None] ** 2 + ITERATION_SD**2  # E[exp(Z)] = exp(σ²/2)
    return means[:, None, None] * np.exp(between + within - variance / 2)


def mean_ratio(initial: np.ndarray, optimized: np.ndarray) -> MeanRatio:
    """Per benchmark, as speeduptest.stats.effect_size.mean_ratio: the relative variance of each
    side's grand mean from its top-level unit means, with units − 1 degrees of freedom."""
    def relative(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        unit_means = values.mean(axis=2)
        grand = unit_means.mean(axis=1)
        return grand, unit_means.var(axis=1, ddof=1) / unit_means.shape[1] / grand**2

    grand_i, u_i = relative(initial)
    grand_o, u_o = relative(optimized)
    df = np.full(grand_i.size, initial.shape[1] - 1.0)
    return MeanRatio(grand_i / grand_o, u_i, u_o, df, df.copy())


def fieller_overall(weights, grand_i, grand_o, ratio: MeanRatio) -> tuple[float, float]:
    """Fieller's interval of Σ W·Ȳᵢ / Σ W·Ȳₒ, the sums independent, each with its relative
    variance Σ (share² u) and its Welch–Satterthwaite degrees of freedom."""
    sides = []
    for means, u, df in ((grand_i, ratio.initial_relative_variance, ratio.initial_df),
                         (grand_o, ratio.optimized_relative_variance, ratio.optimized_df)):
        share = weights * means / np.sum(weights * means)
        terms = share**2 * u
        sides.append((np.sum(terms), log_interval(terms, df, CONFIDENCE)[1]))
    (v_i, df_i), (v_o, df_o) = sides
    total = np.sum(weights * grand_i) / np.sum(weights * grand_o)
    low, high, bounded = fieller_bounds(MeanRatio(np.array([total]), np.array([v_i]),
                                                  np.array([v_o]), np.array([df_i]),
                                                  np.array([df_o])), CONFIDENCE)
    return (float(low[0]), float(high[0])) if bounded[0] else (0.0, math.inf)


def resampled_grand_means(rng: np.random.Generator, values: np.ndarray,
                          resamples: int) -> np.ndarray:
    """Two-level bootstrap (units with replacement, then the measurements of each drawn unit
    with replacement) of every benchmark independently: shape (resamples, benchmarks). One
    draw per unit picks a unit and one of the ITERATIONS**ITERATIONS ordered draws of its
    measurements, as speeduptest.stats.effect_size does for balanced samples."""
    count, units, children = values.shape
    draws = np.array(list(itertools.product(range(children), repeat=children)))
    table = values[..., draws].mean(axis=-1).reshape(count, -1)  # (benchmarks, units·ways)
    picks = rng.integers(0, table.shape[1], size=(resamples, count, units))
    offsets = (np.arange(count) * table.shape[1])[None, :, None]
    return np.take(table.ravel(), picks + offsets).mean(axis=2)


def coverage(benchmarks: int, units: int, shape: str, replicates: int, resamples: int,
             seed: int) -> dict[str, float]:
    rng = np.random.default_rng([seed, benchmarks, units, shape == "normal"])
    suite = make_suite(rng, benchmarks)
    weights = suite["weight"]
    mean_i = suite["mean_initial"]
    mean_o = mean_i / suite["speedup"]
    true_geometric = math.exp(np.sum(weights * np.log(suite["speedup"])) / np.sum(weights))
    true_overall = np.sum(weights * mean_i) / np.sum(weights * mean_o)
    quantiles = [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2]
    hits = dict.fromkeys(("g_delta", "g_boot", "s_delta", "s_fieller", "s_boot"), 0)
    widths = {"g": 0.0, "s": 0.0}
    for _ in range(replicates):
        initial = simulate(rng, mean_i, suite["unit_sd"], units, shape)
        optimized = simulate(rng, mean_o, suite["unit_sd"], units, shape)
        ratio = mean_ratio(initial, optimized)
        grand_i, grand_o = initial.mean(axis=(1, 2)), optimized.mean(axis=(1, 2))
        log_g = np.sum(weights * np.log(ratio.speedup)) / np.sum(weights)
        log_s = math.log(np.sum(weights * grand_i) / np.sum(weights * grand_o))
        (half_g, _), (half_s, _) = delta_half_widths(weights, grand_i, grand_o, ratio,
                                                    CONFIDENCE)
        hits["g_delta"] += abs(log_g - math.log(true_geometric)) <= half_g
        hits["s_delta"] += abs(log_s - math.log(true_overall)) <= half_s
        low, high = fieller_overall(weights, grand_i, grand_o, ratio)
        hits["s_fieller"] += low <= true_overall <= high
        boot_i = resampled_grand_means(rng, initial, resamples)
        boot_o = resampled_grand_means(rng, optimized, resamples)
        g_low, g_high = np.exp(np.quantile(np.log(boot_i / boot_o) @ weights / np.sum(weights),
                                           quantiles))
        s_low, s_high = np.quantile((boot_i @ weights) / (boot_o @ weights), quantiles)
        hits["g_boot"] += g_low <= true_geometric <= g_high
        hits["s_boot"] += s_low <= true_overall <= s_high
        widths["g"] += 2 * half_g / math.log(g_high / g_low)
        widths["s"] += 2 * half_s / math.log(s_high / s_low)
    return ({name: hit / replicates for name, hit in hits.items()}
            | {f"width_{name}": total / replicates for name, total in widths.items()})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    print(f"Coverage of 95% aggregate intervals, {args.replicates} replicates, "
          f"{ITERATIONS} measurements per unit, bootstrap {args.resamples} resamples")
    print()
    print("| benchmarks | units | data | G delta | G bootstrap | S delta | S Fieller | "
          "S bootstrap | width delta/bootstrap (G, S) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    rows = [(benchmarks, units, shape) for benchmarks in (10, 100) for units in (3, 10, 30)
            for shape in ("normal", "log-normal")]
    # Every row has its own random stream: the table does not depend on the processes.
    with ProcessPoolExecutor(min(len(rows), os.cpu_count() or 1)) as pool:
        results = pool.map(coverage, *zip(*rows, strict=True), *(
            [value] * len(rows) for value in (args.replicates, args.resamples, args.seed)))
        for (benchmarks, units, shape), r in zip(rows, results, strict=True):
            print(f"| {benchmarks} | {units} | {shape} | {r['g_delta']:.1%} | "
                  f"{r['g_boot']:.1%} | {r['s_delta']:.1%} | {r['s_fieller']:.1%} | "
                  f"{r['s_boot']:.1%} | {r['width_g']:.2f}, {r['width_s']:.2f} |", flush=True)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

"""How far Fieller's interval with a t quantile per side is from exact: its coverage, and the
family-wise error of the calls it makes on unchanged benchmarks.

Usage: python benchmarks/fieller_coverage.py [--replicates 100000] [--suites 20000] [--seed 0]

With one variance per side, each estimated on its own nₖ − 1 degrees of freedom, no interval
for a ratio of means has exactly its level (the Behrens–Fisher problem); speeduptest's Fieller
interval takes each side's t quantile with that side's degrees of freedom (Kalibera & Jones),
an approximation. Printed:

1. Coverage of the 95% interval, by simulation of normal top-level unit means
   (``--replicates`` per design: each side's mean and variance drawn from their exact
   sampling distributions), and of lognormal ones (skewed: drawn unit by unit), for every
   pair of 3, 5, 10 and 30 units per side and every pair of relative standard deviations of
   a unit of 2%, 5% and 30% per side; an unbounded interval counts as covering, as in
   benchmarks/coverage.py. The range and the designs at its ends.
2. The family-wise error of Bonferroni's calls at τ = 0 on suites of 100 unchanged benchmarks
   of 20 units per side (the design of benchmarks/false_alarms.py): exactly, for equal
   variances and normal units (a false call is |T| > t₁₉ at the corrected level, with T
   Student's t on 38 degrees of freedom), and by simulation of ``--suites`` null suites of
   benchmarks/false_alarms.py (normal and lognormal noise; Bonferroni and FCR on the same
   suites: FCR's intervals are Bonferroni's unless Benjamini–Hochberg selects a benchmark).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from false_alarms import PROCESSES, calls_of, simulate_suite
from scipy import stats

from speeduptest.stats.fieller import MeanRatio, fieller_bounds

UNITS = (3, 5, 10, 30)
SPREADS = (0.02, 0.05, 0.30)
ALPHA, BENCHMARKS = 0.05, 100


def coverage(n_i: int, n_o: int, cv_i: float, cv_o: float, replicates: int,
             rng: np.random.Generator, lognormal: bool, confidence: float = 0.95) -> float:
    """Share of 95% Fieller intervals containing the true speedup 1 (both means 1)."""
    sides = []
    for n, cv in ((n_i, cv_i), (n_o, cv_o)):
        if lognormal:  # units drawn, mean 1 and relative standard deviation cv
            sigma2 = np.log1p(cv**2)
            units = np.exp(np.sqrt(sigma2) * rng.standard_normal((replicates, n)) - sigma2 / 2)
            mean, variance = units.mean(axis=1), units.var(axis=1, ddof=1)
        else:  # normal: the mean and the variance from their exact sampling distributions
            mean = 1 + cv / np.sqrt(n) * rng.standard_normal(replicates)
            variance = cv**2 * rng.chisquare(n - 1, replicates) / (n - 1)
        sides.append((mean, variance / n / mean**2))
    (mean_i, u_i), (mean_o, u_o) = sides
    ratio = MeanRatio(mean_i / mean_o, u_i, u_o, np.full(replicates, n_i - 1.0),
                      np.full(replicates, n_o - 1.0))
    low, high, bounded = fieller_bounds(ratio, confidence)
    return float(np.mean(~bounded | ((low <= 1) & (high >= 1))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicates", type=int, default=100_000)
    parser.add_argument("--suites", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started = time.perf_counter()

    se = np.sqrt(0.95 * 0.05 / args.replicates)
    for lognormal in (False, True):
        rng = np.random.default_rng([args.seed, lognormal])
        found = {}
        for n_i, n_o, cv_i, cv_o in itertools.product(UNITS, UNITS, SPREADS, SPREADS):
            found[n_i, n_o, cv_i, cv_o] = coverage(n_i, n_o, cv_i, cv_o, args.replicates, rng,
                                                   lognormal)
        print(f"1. Coverage of the 95% Fieller interval, {'lognormal' if lognormal else 'normal'}"
              f" units, {len(found)} designs ({args.replicates:,} replicates each, standard "
              f"error {se:.2%}); columns: relative standard deviation of a unit, "
              "initial/optimized:")
        print("| units | " + " | ".join(
            f"{a:.0%}/{b:.0%}" for a, b in itertools.product(SPREADS, SPREADS)) + " |")
        print("|---|" + "---:|" * len(SPREADS) ** 2)
        for n_i, n_o in itertools.product(UNITS, UNITS):
            print(f"| {n_i}/{n_o} | " + " | ".join(
                f"{found[n_i, n_o, a, b]:.1%}" for a, b in itertools.product(SPREADS, SPREADS))
                + " |")
        low, high = min(found, key=found.get), max(found, key=found.get)
        print(f"Range {found[low]:.1%} (units {low[0]}/{low[1]}, spreads "
              f"{low[2]:.0%}/{low[3]:.0%}) to {found[high]:.1%} (units {high[0]}/{high[1]}, "
              f"spreads {high[2]:.0%}/{high[3]:.0%}).\n")

    level = ALPHA / BENCHMARKS
    t = stats.t.isf(level / 2, PROCESSES - 1)
    per_benchmark = 2 * stats.t.sf(t, 2 * PROCESSES - 2)
    exact = 1 - (1 - per_benchmark) ** BENCHMARKS
    print(f"2. Null suites of {BENCHMARKS} benchmarks × {PROCESSES} units per side, "
          f"Bonferroni at α = {ALPHA}, τ = 0: a false call has probability "
          f"{per_benchmark:.3g} per benchmark (nominal {level:.3g}); family-wise error "
          f"{exact:.2%} exactly (normal units, equal variances).")
    rng = np.random.default_rng(args.seed + 1)
    for lognormal in (False, True):
        suites = {"bonferroni": 0, "fcr": 0}
        for _ in range(args.suites):
            initial, optimized = simulate_suite(rng, BENCHMARKS, np.ones(BENCHMARKS), lognormal)
            for correction in suites:
                calls = calls_of(initial, optimized, correction, 0.0)
                suites[correction] += bool(np.isin(calls, ("faster", "slower")).any())
        for correction, count in suites.items():
            share = count / args.suites
            print(f"   simulated, {'lognormal' if lognormal else 'normal'} noise, {correction}: "
                  f"{share:.2%} ± {np.sqrt(share * (1 - share) / args.suites):.2%} of "
                  f"{args.suites:,} suites have a false call")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()

"""False alarms and power of the calls, by simulation.

Usage: python benchmarks/false_alarms.py [--suites 1000] [--benchmarks 100] [--seed 1]
                                         [--protocol-suites 100]

Each simulated suite has --benchmarks benchmarks of 20 processes × 3 values per version, the
design of a pyperf/pyperformance run. Every benchmark has its own noise: a process-level and a
value-level relative standard deviation drawn log-uniformly from 0.3% to 5%, normal or
lognormal. The calls are made exactly as `speeduptest` makes them (Fieller on the process
means, `speeduptest.stats.change.decide_calls`), at α = 0.05, for every correction and for the
thresholds 0 and 1%.

Printed per correction and threshold:
- null suites (no benchmark changes): the share of suites with at least one false call
  (family-wise error; binomial standard error beside it) and the mean share of the benchmarks
  falsely called (V / b);
- mixed suites (20% of the benchmarks 3% faster, 10% of them 10% slower, the rest unchanged):
  the mean share of false calls among the calls, and the power: the share of the true 3% and
  10% changes called in the right direction.
With --protocol-suites N > 0 it also runs the Speedup-Test protocol both ways on N null suites
and prints how often a suite has a benchmark with a significant verdict (no correction): the
false alarms the calls are built to avoid.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from speeduptest.stats.change import decide_calls
from speeduptest.stats.corrections import CORRECTIONS
from speeduptest.stats.fieller import MeanRatio
from speeduptest.stats.protocol import analyse_pair

PROCESSES, VALUES, ALPHA = 20, 3, 0.05


def simulate_suite(rng: np.random.Generator, benchmarks: int, effects: np.ndarray,
                   lognormal: bool) -> tuple[np.ndarray, np.ndarray]:
    """Process means (benchmarks × processes) of the initial and the optimized version;
    ``effects`` are the true speedups."""
    base = rng.uniform(1e-3, 1.0, benchmarks)[:, None]
    process_sd = np.exp(rng.uniform(np.log(0.003), np.log(0.05), benchmarks))[:, None, None]
    value_sd = np.exp(rng.uniform(np.log(0.003), np.log(0.05), benchmarks))[:, None, None]
    sides = []
    for mean in (base, base / effects[:, None]):
        shape = (benchmarks, PROCESSES, VALUES)
        process = rng.standard_normal((benchmarks, PROCESSES, 1)) * process_sd
        value = rng.standard_normal(shape) * value_sd
        noise = np.exp(process + value) if lognormal else 1 + process + value
        if lognormal:  # the same mean as the normal case: E[exp(N(0, s²))] = exp(s²/2)
            noise /= np.exp((process_sd**2 + value_sd**2) / 2)
        sides.append(mean * noise.mean(axis=2))
    return sides[0], sides[1]


def mean_ratio(initial: np.ndarray, optimized: np.ndarray) -> MeanRatio:
    n = initial.shape[1]
    df = np.full(len(initial), n - 1)
    rows = np.column_stack([initial.mean(1), initial.var(1, ddof=1) / n, df,
                            optimized.mean(1), optimized.var(1, ddof=1) / n, df])
    return MeanRatio.of(rows.tolist())


def calls_of(initial, optimized, correction, threshold) -> np.ndarray:
    b = len(initial)
    changes = decide_calls(mean_ratio(initial, optimized), np.full(b, ALPHA), [None] * b,
                           threshold=threshold, correction=correction)
    return np.array([change.call for change in changes])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", type=int, default=1000)
    parser.add_argument("--benchmarks", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--protocol-suites", type=int, default=0)
    args = parser.parse_args()
    b, started = args.benchmarks, time.perf_counter()
    faster_count, slower_count = round(0.2 * b), round(0.1 * b)
    mixed_effects = np.ones(b)
    mixed_effects[:faster_count] = 1.03
    mixed_effects[faster_count:faster_count + slower_count] = 1 / 1.10
    print(f"{args.suites} suites × {b} benchmarks × {PROCESSES} processes × {VALUES} values, "
          f"α = {ALPHA}; mixed suites: {faster_count} benchmarks 3% faster, {slower_count} "
          "10% slower")
    print(f"{'noise':<10}{'correction':<12}{'τ':>5}  {'null: suites with a false call':>31}"
          f"  {'null: V/b':>9}  {'mixed: V/max(R,1)':>17}  {'power 3%':>8}"
          f"  {'power 10%':>9}")
    print("(!): above α + 2 standard errors where the correction promises α (Bonferroni: suites "
          "with a false call; FCR: false share of the calls)")
    se = np.sqrt(ALPHA * (1 - ALPHA) / args.suites)
    for lognormal in (False, True):
        rng = np.random.default_rng(args.seed)
        null_suites = [simulate_suite(rng, b, np.ones(b), lognormal) for _ in range(args.suites)]
        mixed_suites = [simulate_suite(rng, b, mixed_effects, lognormal)
                        for _ in range(args.suites)]
        for correction in CORRECTIONS:
            for threshold in (0.0, 0.01):
                any_false, null_share, mixed_share, power3, power10 = [], [], [], [], []
                for initial, optimized in null_suites:
                    calls = calls_of(initial, optimized, correction, threshold)
                    false = np.isin(calls, ("faster", "slower")).sum()
                    any_false.append(false > 0)
                    null_share.append(false / b)
                for initial, optimized in mixed_suites:
                    calls = calls_of(initial, optimized, correction, threshold)
                    called = np.isin(calls, ("faster", "slower"))
                    wrong = np.where(mixed_effects == 1, called, called & (
                        calls != np.where(mixed_effects > 1, "faster", "slower")))
                    mixed_share.append(wrong.sum() / max(called.sum(), 1))
                    power3.append(np.mean(calls[:faster_count] == "faster"))
                    power10.append(np.mean(calls[faster_count:faster_count + slower_count]
                                           == "slower"))
                fwer, fcr = np.mean(any_false), np.mean(mixed_share)
                fcr_se = np.std(mixed_share) / np.sqrt(args.suites)
                flag_fwer = " (!)" if correction == "bonferroni" and fwer > ALPHA + 2 * se else ""
                flag_fcr = " (!)" if correction == "fcr" and fcr > ALPHA + 2 * fcr_se else ""
                print(f"{'lognormal' if lognormal else 'normal':<10}{correction:<12}"
                      f"{threshold:>5.0%}  {fwer:>24.1%} ± {se:.1%}{flag_fwer:<4}"
                      f"  {np.mean(null_share):>9.2%}  {fcr:>13.2%}{flag_fcr:<4}"
                      f"  {np.mean(power3):>8.1%}  {np.mean(power10):>9.1%}", flush=True)
    if args.protocol_suites:
        rng = np.random.default_rng(args.seed)
        alarms = []
        for _ in range(args.protocol_suites):
            initial, optimized = simulate_suite(rng, b, np.ones(b), lognormal=True)
            significant = 0
            for x, y in zip(initial, optimized, strict=True):
                forward, reverse = analyse_pair(x, y, alpha=ALPHA), analyse_pair(y, x, alpha=ALPHA)
                significant += any(d.verdict == "significant" for d in
                                   (forward.mean, forward.median, reverse.mean, reverse.median))
            alarms.append(significant)
        alarms = np.array(alarms)
        print(f"Speedup-Test verdicts both ways, no correction ({args.protocol_suites} lognormal "
              f"null suites): {np.mean(alarms > 0):.0%} of suites have a 'significant' "
              f"benchmark, {alarms.mean():.1f} per suite on average")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()

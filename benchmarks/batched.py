"""The batched test engine against the per-pair protocol: time and agreement (issue 11).

Usage: python benchmarks/batched.py [--rows 1000 10000] [--values 31] [--repeat 3]

Benchmarks as benchmarks/throughput.py writes them to files (a mix of speedups and slowdowns,
lognormal or normal noise, 6 significant digits, so with some ties). For each number of rows:
``run_tests`` in a loop against ``run_tests_batched`` (the per-pair loop once, the batched engine
best of --repeat), the time per test on both sides (the per-pair test functions in a loop on the
common-scaled samples; the engine's batched functions on the common-scaled arrays, their result
objects included), the speedup, the largest relative difference over every number of every
result, the rows that are bit-identical, and whether every protocol decision agrees.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import time
from collections.abc import Callable

import numpy as np

from speeduptest.model.results import ProtocolTests
from speeduptest.stats import batched
from speeduptest.stats.batched import run_tests_batched
from speeduptest.stats.protocol import (
    common_scale,
    decide_mean,
    decide_median,
    max_confidence,
    run_tests,
)
from speeduptest.stats.stattests import (
    f_test,
    ks_test,
    shapiro_wilk,
    t_test,
    wilcoxon_mann_whitney,
)

TESTS = ("shapiro_initial", "shapiro_optimized", "f_test", "t_student", "t_welch", "ks",
         "wilcoxon")


def make_samples(rows: int, values: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The samples of benchmarks/throughput.py, as read back from its files."""
    rng = np.random.default_rng(seed)
    x, y = np.empty((rows, values)), np.empty((rows, values))
    for index in range(rows):
        base = rng.uniform(0.05, 5.0)
        effect = rng.choice([0.8, 0.95, 1.0, 1.05, 1.3])
        for side, mean in ((x, base), (y, base / effect)):
            noise = (rng.lognormal(0, 0.3, values) if index % 3 == 0
                     else rng.normal(1, 0.03, values))
            side[index] = [float(f"{v:.6g}") for v in mean * np.abs(noise)]
    return x, y


def seconds(function: Callable[[], object], repeat: int = 1) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def per_test_per_pair(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    scaled = [common_scale(a, b) for a, b in zip(x, y, strict=True)]
    return {
        "Shapiro–Wilk (both)": seconds(lambda: [(shapiro_wilk(a), shapiro_wilk(b))
                                                for a, b in scaled]),
        "F-test": seconds(lambda: [f_test(a, b) for a, b in scaled]),
        "t-tests (both)": seconds(lambda: [(t_test(a, b, equal_var=True),
                                            t_test(a, b, equal_var=False))
                                           for a, b in scaled]),
        "Kolmogorov–Smirnov": seconds(lambda: [ks_test(a, b) for a, b in scaled]),
        "Wilcoxon–Mann–Whitney": seconds(lambda: [wilcoxon_mann_whitney(a, b)
                                                  for a, b in scaled]),
    }


def per_test_batched(x: np.ndarray, y: np.ndarray, repeat: int) -> dict[str, float]:
    """The engine's stages on the whole batch (one chunk), as _run_chunk calls them."""
    xs, ys, _ = batched._common_scale(x, y)
    n, m = x.shape[1], y.shape[1]

    def moments() -> tuple[np.ndarray, ...]:
        constant_x = xs.max(axis=1) == xs.min(axis=1)
        constant_y = ys.max(axis=1) == ys.min(axis=1)
        var_x = np.where(constant_x, 0.0, np.var(xs, axis=1, ddof=1))
        var_y = np.where(constant_y, 0.0, np.var(ys, axis=1, ddof=1))
        return constant_x, constant_y, var_x, var_y, xs.mean(axis=1), ys.mean(axis=1)

    constant_x, constant_y, var_x, var_y, mean_x, mean_y = moments()
    return {
        "common scale + moments": seconds(lambda: (batched._common_scale(x, y), moments()),
                                          repeat),
        "Shapiro–Wilk (both)": seconds(lambda: (batched._shapiro_batch(xs, constant_x),
                                                batched._shapiro_batch(ys, constant_y)), repeat),
        "F-test": seconds(lambda: batched._f_batch(var_x, var_y, n, m), repeat),
        "t-tests (both)": seconds(
            lambda: (batched._t_batch(mean_x, mean_y, var_x, var_y, n, m, equal_var=True),
                     batched._t_batch(mean_x, mean_y, var_x, var_y, n, m, equal_var=False)),
            repeat),
        "Kolmogorov–Smirnov": seconds(
            lambda: batched._ks_batch(xs, ys, np.median(xs, axis=1), np.median(ys, axis=1),
                                      None), repeat),
        "Wilcoxon–Mann–Whitney": seconds(lambda: batched._wmw_batch(xs, ys, None), repeat),
    }


def agreement(got: list[ProtocolTests], want: list[ProtocolTests],
              large_sample: int = 30) -> tuple[float, int, int]:
    """Largest relative difference of any number, bit-identical rows, rows whose decisions
    (both trees at five risk levels, both highest confidences) differ or whose other fields
    (notes, methods, variants, None-ness) differ."""
    worst, identical, disagreeing = 0.0, 0, 0
    for result, expected in zip(got, want, strict=True):
        identical += result == expected
        differs = False
        for name in TESTS:
            a, b = getattr(result, name), getattr(expected, name)
            for field in dataclasses.fields(b):
                u, v = getattr(a, field.name), getattr(b, field.name)
                if isinstance(u, float) and isinstance(v, float):
                    if u != v and math.isfinite(v) and v != 0:
                        worst = max(worst, abs(u - v) / abs(v))
                elif u != v:
                    differs = True
        small = expected.shapiro_initial.n <= large_sample or \
            expected.shapiro_optimized.n <= large_sample
        for decide in (decide_mean, decide_median):
            differs |= any(decide(result, small, alpha, large_sample)
                           != decide(expected, small, alpha, large_sample)
                           for alpha in (0.001, 0.01, 0.05, 0.1, 0.2))
            differs |= (max_confidence(decide, result, small, large_sample)
                        != max_confidence(decide, expected, small, large_sample))
        disagreeing += differs
    return worst, identical, disagreeing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run_tests_batched(*make_samples(4, args.values, seed=1))  # caches and imports, once
    for rows in args.rows:
        x, y = make_samples(rows, args.values)
        start = time.perf_counter()
        want = [run_tests(a, b) for a, b in zip(x, y, strict=True)]
        loop = time.perf_counter() - start
        fast = seconds(lambda x=x, y=y: run_tests_batched(x, y), args.repeat)
        got = run_tests_batched(x, y)
        worst, identical, disagreeing = agreement(got, want)
        print(f"{rows} benchmarks x {args.values} values per side")
        print(f"  run_tests loop       {loop:8.3f} s")
        print(f"  run_tests_batched    {fast:8.3f} s   speedup {loop / fast:.1f}x")
        print(f"  max relative difference {worst:.3g}; bit-identical rows {identical}/{rows}; "
              f"rows with a differing decision or field {disagreeing}")
        pair, batch = per_test_per_pair(x, y), per_test_batched(x, y, args.repeat)
        print(f"  {'per test':24} {'per-pair':>9} {'batched':>9} {'speedup':>8}")
        for name, value in batch.items():
            before = pair.get(name)
            print(f"  {name:24} " + (f"{before:8.3f}s" if before is not None else " " * 9)
                  + f" {value:8.3f}s" + (f" {before / value:7.1f}x" if before else ""))
        print(f"  {'ProtocolTests + rest':24} {'':9} {fast - sum(batch.values()):8.3f}s")


if __name__ == "__main__":
    main()

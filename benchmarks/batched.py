"""The protocol's tests over many benchmarks: one batch against one pair at a time (issues 11
and 24).

Usage: python benchmarks/batched.py [--rows 1000 10000] [--values 31] [--repeat 3]

Benchmarks as benchmarks/throughput.py writes them to files (a mix of speedups and slowdowns,
lognormal or normal noise, 6 significant digits, so with some ties). For each number of rows:
``run_tests`` of every pair (a batch of one each) against ``run_tests_batched`` of all (best of
--repeat, both), the time of each test over the whole batch (the common-scaled arrays, result
objects included), and whether both ways give the same bits (they must: every test has one
implementation, over rows, and a row's results do not depend on its batch).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable

import numpy as np

from speeduptest.stats.kolmogorov_smirnov import ks_test_rows
from speeduptest.stats.normality import shapiro_wilk_rows
from speeduptest.stats.parametric import Moments, f_test_from_moments, t_test_from_moments
from speeduptest.stats.protocol import common_scale_rows, run_tests, run_tests_batched
from speeduptest.stats.wilcoxon import wilcoxon_mann_whitney_rows


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


def per_test(x: np.ndarray, y: np.ndarray, repeat: int) -> dict[str, float]:
    """Each test on the whole batch (one chunk), as the protocol calls it (one way)."""
    xs, ys = common_scale_rows(x, y)
    moments_x, moments_y = Moments.of(xs), Moments.of(ys)
    return {
        "common scale + moments": seconds(
            lambda: (common_scale_rows(x, y), Moments.of(xs), Moments.of(ys)), repeat),
        "Shapiro–Wilk (both)": seconds(lambda: (shapiro_wilk_rows(xs), shapiro_wilk_rows(ys)),
                                       repeat),
        "F-test": seconds(lambda: f_test_from_moments(moments_x, moments_y), repeat),
        "t-tests (both)": seconds(
            lambda: (t_test_from_moments(moments_x, moments_y, equal_var=True),
                     t_test_from_moments(moments_x, moments_y, equal_var=False)), repeat),
        "Kolmogorov–Smirnov": seconds(lambda: ks_test_rows(xs, ys), repeat),
        "Wilcoxon–Mann–Whitney": seconds(lambda: wilcoxon_mann_whitney_rows(xs, ys), repeat),
    }


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
        pairs = list(zip(x, y, strict=True))
        loop = seconds(lambda pairs=pairs: [run_tests(a, b) for a, b in pairs], args.repeat)
        batch = seconds(lambda x=x, y=y: run_tests_batched(x, y), args.repeat)
        same = (repr(run_tests_batched(x, y))
                == repr([run_tests(a, b) for a, b in pairs]))
        print(f"{rows} benchmarks x {args.values} values per side")
        print(f"  run_tests, one pair at a time  {loop:8.3f} s")
        print(f"  run_tests_batched              {batch:8.3f} s   {loop / batch:.1f}x faster; "
              f"the same bits: {same}")
        tests = per_test(x, y, args.repeat)
        for name, value in tests.items():
            print(f"  {name:30} {value:8.3f} s")
        print(f"  {'ProtocolTests + rest':30} {batch - sum(tests.values()):8.3f} s")


if __name__ == "__main__":
    main()

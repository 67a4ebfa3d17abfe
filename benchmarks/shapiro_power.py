"""How often Shapiro–Wilk rejects normality for clearly non-normal execution times, by size.

Usage: python benchmarks/shapiro_power.py [--replicates 2000] [--seed 1]
Backs the warning that normality is "unverified" below protocol.LOW_POWER_SIZE values.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    shapes = {
        "lognormal(σ=0.5)": lambda n: rng.lognormal(0, 0.5, n),
        "exponential": lambda n: rng.exponential(1, n),
        "two modes 3σ apart": lambda n: rng.normal(0, 1, n) + 3 * (rng.random(n) < 0.5),
    }
    print("n    " + "  ".join(f"{name:>20}" for name in shapes))
    for n in (3, 5, 10, 20, 30):
        rates = [np.mean([stats.shapiro(draw(n)).pvalue <= 0.05
                          for _ in range(args.replicates)]) for draw in shapes.values()]
        print(f"{n:<4} " + "  ".join(f"{rate:>20.0%}" for rate in rates))


if __name__ == "__main__":
    main()

"""Family-wise error of the k-version comparison when every version is the same (issue 12).

Usage: python benchmarks/posthoc_fwer.py [--replicates 2000] [--size 20] [--alpha 0.05]
                                         [--sdlog 0.5] [--seed 1]

For k = 3 and 5 versions and normal or lognormal times, draws k equal versions of --size
top-level units each, --replicates times, and runs the route exactly as speeduptest would
(`speeduptest.stats.omnibus.choose_omnibus`: Shapiro–Wilk per version, Bartlett or Levene, then
classic ANOVA + Tukey HSD, Welch's ANOVA + Games–Howell, or Kruskal–Wallis + Dunn/Holm).

Printed per design, as the share of replicates with at least one pair declared different
(family-wise error rate, FWER) ± 2 binomial standard errors, to compare with α:
- `route`: the pairs the chosen post-hoc declares different (adjusted p ≤ α), what the tool
  reports;
- `gated`: the same, counted only when the omnibus test rejects as well (a protected
  procedure: never above `route`);
- `Tukey`, `G–H`, `Dunn`: each post-hoc on every replicate, whatever the route would be;
and how often each route was taken. With 20 units per version the samples are small (≤ 30),
so the rank route is taken whenever Shapiro–Wilk rejects normality for a version.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter

import numpy as np

from speeduptest.stats import omnibus as versions

DESIGNS = [(k, distribution) for k in (3, 5) for distribution in ("normal", "lognormal")]
COLUMNS = ("route", "gated", "Tukey", "G–H", "Dunn")


def draw(rng: np.random.Generator, k: int, size: int, distribution: str,
         sdlog: float) -> list[np.ndarray]:
    """k versions with identical distributions: times near 1 s."""
    if distribution == "normal":
        return [1.0 + 0.05 * rng.standard_normal(size) for _ in range(k)]
    return [np.exp(sdlog * rng.standard_normal(size)) for _ in range(k)]


def replicate(groups: list[np.ndarray], alpha: float) -> tuple[str, dict[str, bool]]:
    """The route taken and, for each column, whether some pair was declared different."""
    choice = versions.choose_omnibus(groups, alpha)
    declared = bool(choice.significant_pairs)
    found = {
        "route": declared,
        "gated": declared and choice.omnibus.rejects(alpha),
        "Tukey": bool(versions.tukey_hsd(groups).significant_pairs(alpha)),
        "G–H": bool(versions.games_howell(groups).significant_pairs(alpha)),
        "Dunn": bool(versions.dunn(groups).significant_pairs(alpha)),
    }
    return choice.route, found


def rate(count: int, total: int) -> str:
    share = count / total
    return f"{share:.4f} ± {2 * math.sqrt(share * (1 - share) / total):.4f}"


def verdict(count: int, total: int, alpha: float) -> str:
    share = count / total
    two_se = 2 * math.sqrt(max(share * (1 - share), alpha * (1 - alpha)) / total)
    if share > alpha + two_se:
        return "ABOVE α"
    return "at α" if share >= alpha - two_se else "below α (conservative)"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--size", type=int, default=20, help="top-level units per version")
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--sdlog", type=float, default=0.5,
                        help="standard deviation of log times for the lognormal designs")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    print(f"{args.replicates} replicates, {args.size} units per version, α = {args.alpha:g}; "
          "FWER ± 2 standard errors")
    header = f"{'design':<16}" + "".join(f"{c:>19}" for c in COLUMNS) + "   routes"
    print(header)
    for k, distribution in DESIGNS:
        started = time.perf_counter()
        counts: Counter[str] = Counter()
        routes: Counter[str] = Counter()
        for _ in range(args.replicates):
            route, found = replicate(draw(rng, k, args.size, distribution, args.sdlog),
                                     args.alpha)
            routes[route] += 1
            counts.update(column for column, hit in found.items() if hit)
        cells = "".join(f"{rate(counts[c], args.replicates):>19}" for c in COLUMNS)
        taken = ", ".join(f"{r} {routes[r] / args.replicates:.0%}"
                          for r in ("anova", "welch", "kruskal") if routes[r])
        print(f"{f'k={k} {distribution}':<16}{cells}   {taken}")
        print(f"{'':<16}route: {verdict(counts['route'], args.replicates, args.alpha)}; "
              f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

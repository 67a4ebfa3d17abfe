"""How well the steady-state check finds warm-ups, by simulation.

Usage: python benchmarks/warmup_detection.py [--series 200] [--seed 1] [--quick]

Each simulated series is one invocation's times in measurement order: a steady time of 1
multiplied by a warm-up factor and by noise,

    x_i = w(i) · exp(e_i) · o_i

- w(i): the warm-up, over the first W iterations (the true steady-state start is W; W = 0 is
  a flat series). It starts at f ~ U(3, 10) times the steady time and decays, each series
  drawing one of two shapes: **linear** (w(i) = 1 + (f − 1)(1 − i/W)) or **exponential** (the
  excess over the steady time, f − 1, shrinks geometrically to 2% at i = W:
  w(i) = 1 + (f − 1)·(0.02/(f − 1))^(i/W)); w(i) = 1 from i = W on.
- e_i: AR(1) noise on the log scale, e_i = φ e_(i−1) + √(1 − φ²) σ z_i, z_i ~ N(0, 1), so
  that σ (0.5%, 2% or 5%) is its marginal standard deviation whatever φ (0, 0.5 or 0.9).
- o_i: with outliers, 2% of the iterations (anywhere, warm-up included) are single spikes
  1.5–3× slower; otherwise 1.

For every cell (series length n, W, σ, φ, outliers) --series series are checked with
:func:`speeduptest.stats.steady.steady_state`, and the tables give, in %:

- **flat: false warm-up**: of the flat series (W = 0), those classed `warmup` or `slowdown`
  (a change point where there is none; `warmup` drops values, `slowdown` only warns);
- **flat: dropped**: the mean share of a flat series' values that `--warmup auto` leaves out
  (its detected start when classed `warmup`): what a false warm-up costs;
- **flat: no steady**: of the flat series, those classed `no steady state`;
- **W = k**: of the series with a warm-up of k iterations, those classed `warmup` whose
  detected start is within ±5 of k;
- **warm-ups: no steady**: of all the series with a warm-up, those classed `no steady state`.

A second part checks series of 20, 30 and 50 values (and 120 for reference) with warm-ups of
0, 5 and 10, the minimum length lifted (``steady.MIN_SERIES``, 30, is what it is meant to
justify): the same columns, then a summary per length.

Every cell draws from its own generator, seeded by (--seed, the cell), so a cell's numbers do
not depend on which other cells run. --quick: 40 series per cell and σ 2% only.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from speeduptest.stats import steady

LENGTHS = (120, 300)
WARMUPS = (0, 5, 20, 40, 80)
SHORT_LENGTHS = (20, 30, 50, 120)
SHORT_WARMUPS = (0, 5, 10)
NOISES = (0.005, 0.02, 0.05)
PHIS = (0.0, 0.5, 0.9)
OUTLIER_SHARE = 0.02
TOLERANCE = 5
SHAPES = ("linear", "exponential")


def ar1(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    """An AR(1) series of marginal standard deviation ``sd``, started in its stationary
    distribution."""
    z = rng.standard_normal(n)
    e = np.empty(n)
    e[0] = sd * z[0]
    innovation = np.sqrt(1 - phi * phi) * sd
    for i in range(1, n):
        e[i] = phi * e[i - 1] + innovation * z[i]
    return e


def warmup_factor(n: int, warmup: int, factor: float, shape: str) -> np.ndarray:
    """w(i) for i = 0 … n − 1 (see the module's docstring)."""
    w = np.ones(n)
    if warmup:
        i = np.arange(warmup)
        if shape == "linear":
            w[:warmup] = 1 + (factor - 1) * (1 - i / warmup)
        else:
            w[:warmup] = 1 + (factor - 1) * (0.02 / (factor - 1)) ** (i / warmup)
    return w


def simulate(rng: np.random.Generator, n: int, warmup: int, noise: float, phi: float,
             outliers: bool) -> tuple[np.ndarray, str]:
    """One series and the shape of its warm-up."""
    shape = SHAPES[int(rng.integers(2))]
    w = warmup_factor(n, warmup, rng.uniform(3, 10), shape)
    x = w * np.exp(ar1(rng, n, phi, noise))
    if outliers:
        spikes = rng.random(n) < OUTLIER_SHARE
        x[spikes] *= rng.uniform(1.5, 3, int(spikes.sum()))
    return x, shape


@dataclass
class Cell:
    """What the check found on one cell's series."""

    n: int
    warmup: int
    noise: float
    phi: float
    outliers: bool
    classes: list[str]
    starts: list[int]
    shapes: list[str]

    def share(self, classes: Sequence[str]) -> float:
        return float(np.mean([c in classes for c in self.classes]))

    def dropped(self) -> float:
        """Mean share of each series that --warmup auto leaves out (its start when classed
        warmup)."""
        return float(np.mean([s / self.n if c == "warmup" else 0.0
                              for c, s in zip(self.classes, self.starts, strict=True)]))

    def hits(self, shape: str | None = None) -> list[bool]:
        return [c == "warmup" and abs(s - self.warmup) <= TOLERANCE
                for c, s, sh in zip(self.classes, self.starts, self.shapes, strict=True)
                if shape is None or sh == shape]

    def errors(self, shape: str | None = None) -> list[int]:
        """Detected − true start, of the series classed warmup."""
        return [s - self.warmup for c, s, sh in zip(self.classes, self.starts, self.shapes,
                                                    strict=True)
                if c == "warmup" and (shape is None or sh == shape)]


def run_cell(seed: int, series: int, n: int, warmup: int, noise: float, phi: float,
             outliers: bool) -> Cell:
    rng = np.random.default_rng([seed, n, warmup, round(noise * 1e4), round(phi * 100),
                                 int(outliers)])
    classes, starts, shapes = [], [], []
    for _ in range(series):
        x, shape = simulate(rng, n, warmup, noise, phi, outliers)
        found = steady.steady_state(x)
        classes.append(found.classification)
        starts.append(found.start)
        shapes.append(shape)
    return Cell(n, warmup, noise, phi, outliers, classes, starts, shapes)


def pct(value: float) -> str:
    return f"{100 * value:.1f}"


def grid_table(cells: dict[tuple, Cell], lengths: Sequence[int], warmups: Sequence[int],
               noises: Sequence[float]) -> list[str]:
    with_warmup = [w for w in warmups if w]
    header = (["n", "noise", "φ", "outliers", "flat: false warm-up", "flat: dropped",
               "flat: no steady"]
              + [f"W = {w}: ±{TOLERANCE}" for w in with_warmup] + ["warm-ups: no steady"])
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" for _ in header) + "|"]
    for n, noise, phi, outliers in itertools.product(lengths, noises, PHIS, (False, True)):
        flat = cells[n, 0, noise, phi, outliers]
        row = [str(n), f"{100 * noise:g}%", f"{phi:g}", "2%" if outliers else "–",
               pct(flat.share(("warmup", "slowdown"))), f"{100 * flat.dropped():.2f}",
               pct(flat.share(("no steady state",)))]
        row += [pct(np.mean(cells[n, w, noise, phi, outliers].hits())) for w in with_warmup]
        row.append(pct(np.mean([cells[n, w, noise, phi, outliers].share(("no steady state",))
                                for w in with_warmup])))
        lines.append("| " + " | ".join(row) + " |")
    return lines


def flat_table(cells: dict[tuple, Cell], lengths: Sequence[int], noises: Sequence[float]
               ) -> list[str]:
    """Flat series classed warmup or slowdown (%), by φ and outliers (rows) and length and
    noise (columns)."""
    columns = list(itertools.product(lengths, noises))
    lines = ["| φ | outliers | " + " | ".join(f"n {n}, σ {100 * s:g}%" for n, s in columns)
             + " |", "|---:|---:|" + "---:|" * len(columns)]
    for phi, outliers in itertools.product(PHIS, (False, True)):
        lines.append(f"| {phi:g} | {'2%' if outliers else '–'} | " + " | ".join(
            pct(cells[n, 0, s, phi, outliers].share(("warmup", "slowdown")))
            for n, s in columns) + " |")
    return lines


def found_table(cells: dict[tuple, Cell], lengths: Sequence[int], warmups: Sequence[int],
                noises: Sequence[float]) -> list[str]:
    """Warm-ups found within ±5 (%), by length and W (rows) and noise (columns): with
    independent noise and no outliers, and the lowest over φ 0.5, 0.9 and the outliers."""
    lines = ["| n | W | " + " | ".join(f"σ {100 * s:g}%: φ 0 / lowest" for s in noises)
             + " |", "|---:|---:|" + "---:|" * len(noises)]
    for n, w in itertools.product(lengths, [w for w in warmups if w]):
        row = []
        for s in noises:
            shares = {(phi, outliers): float(np.mean(cells[n, w, s, phi, outliers].hits()))
                      for phi, outliers in itertools.product(PHIS, (False, True))}
            row.append(f"{pct(shares[0.0, False])} / {pct(min(shares.values()))}")
        lines.append(f"| {n} | {w} | " + " | ".join(row) + " |")
    return lines


def pooled(cells: list[Cell]) -> tuple[float, float]:
    """False warm-up and no-steady shares over the flat cells given."""
    return (float(np.mean([c.share(("warmup", "slowdown")) for c in cells])),
            float(np.mean([c.share(("no steady state",)) for c in cells])))


def summary_by_length(cells: dict[tuple, Cell], lengths: Sequence[int], warmups: Sequence[int],
                      noises: Sequence[float], phis: Sequence[float], title: str) -> list[str]:
    with_warmup = [w for w in warmups if w]
    header = ["n", "flat: false warm-up", "flat: dropped", "flat: no steady"] + [
        f"W = {w}: ±{TOLERANCE}" for w in with_warmup]
    lines = [title, "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---:" for _ in header) + "|"]
    for n in lengths:
        keys = list(itertools.product(noises, phis, (False, True)))
        flats = [cells[(n, 0, *key)] for key in keys]
        false, nosteady = pooled(flats)
        row = [str(n), pct(false), f"{100 * np.mean([c.dropped() for c in flats]):.2f}",
               pct(nosteady)]
        row += [pct(np.mean([np.mean(cells[(n, w, *key)].hits()) for key in keys]))
                for w in with_warmup]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def shape_table(cells: dict[tuple, Cell], lengths: Sequence[int], warmups: Sequence[int]
                ) -> list[str]:
    """Detection by warm-up shape, pooled over noise, φ and outliers: within ±5, and the
    median (detected − true start) of the series classed warmup."""
    lines = ["| n | W | shape | ±5 | median error | classed warmup |",
             "|---:|---:|---|---:|---:|---:|"]
    for n, w, shape in itertools.product(lengths, [w for w in warmups if w], SHAPES):
        chosen = [c for key, c in cells.items() if key[0] == n and key[1] == w]
        hits = [h for c in chosen for h in c.hits(shape)]
        errors = [e for c in chosen for e in c.errors(shape)]
        total = sum(1 for c in chosen for sh in c.shapes if sh == shape)
        lines.append(f"| {n} | {w} | {shape} | {pct(np.mean(hits))} | "
                     f"{np.median(errors) if errors else float('nan'):+.0f} | "
                     f"{pct(len(errors) / total)} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--series", type=int, default=200, help="series per cell")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="40 series per cell, noise 2%% only")
    args = parser.parse_args()
    series = 40 if args.quick else args.series
    noises = (0.02,) if args.quick else NOISES
    started = time.perf_counter()

    cells: dict[tuple, Cell] = {}
    for n, w, noise, phi, outliers in itertools.product(LENGTHS, WARMUPS, noises, PHIS,
                                                        (False, True)):
        if w and n - w < steady.STEADY_SHARE * n:
            continue
        cells[n, w, noise, phi, outliers] = run_cell(args.seed, series, n, w, noise, phi,
                                                     outliers)
    print(f"## Warm-up detection: {series} series per cell, warm-ups from 3–10× the steady "
          f"time (linear or exponential, half each), PENALTY = {steady.PENALTY:g}, "
          f"MIN_SERIES = {steady.MIN_SERIES}, seed {args.seed}\n")
    print("\n".join(grid_table(cells, LENGTHS, WARMUPS, noises)))
    print("\nCondensed: flat series given a warm-up or a slowdown (%):\n")
    print("\n".join(flat_table(cells, LENGTHS, noises)))
    print("\nCondensed: warm-ups found within ±5 iterations (%), with φ = 0 and no outliers / "
          "the lowest over φ 0.5, 0.9 and the outliers:\n")
    print("\n".join(found_table(cells, LENGTHS, WARMUPS, noises)))
    print("\nBy warm-up shape (pooled over noise, φ and outliers; error = detected − true "
          "start of the series classed warmup):\n")
    print("\n".join(shape_table(cells, LENGTHS, WARMUPS)))

    # Short series: the minimum length lifted, to see what it protects from.
    minimum = steady.MIN_SERIES
    steady.MIN_SERIES = 2
    try:
        short: dict[tuple, Cell] = {}
        for n, w, noise, phi, outliers in itertools.product(SHORT_LENGTHS, SHORT_WARMUPS,
                                                            noises, PHIS, (False, True)):
            short[n, w, noise, phi, outliers] = run_cell(args.seed + 1, series, n, w, noise,
                                                         phi, outliers)
    finally:
        steady.MIN_SERIES = minimum
    print(f"\n## Short series (MIN_SERIES = {minimum} lifted to see what it protects from), "
          f"{series} series per cell\n")
    print("\n".join(grid_table(short, SHORT_LENGTHS, SHORT_WARMUPS, noises)))
    print()
    print("\n".join(summary_by_length(
        short, SHORT_LENGTHS, SHORT_WARMUPS, noises, PHIS,
        "Summary by length (mean over noise, φ and outliers):")))
    print()
    print("\n".join(summary_by_length(
        short, SHORT_LENGTHS, SHORT_WARMUPS, noises, (0.0, 0.5),
        "Summary by length, φ ≤ 0.5 only:")))
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()

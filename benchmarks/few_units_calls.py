"""Calls with few top-level units: false calls and power of the ways a call can be made where
Fieller's interval is unbounded (or reaches 0) at the corrected level.

Usage: python benchmarks/few_units_calls.py [--suites 1000] [--benchmarks 10] [--alpha 0.05]
                                            [--resamples 10000] [--seed 1]
                                            [--acceptance-runs 100] [--cli-runs 5]
                                            [--options ...] [--quick]

Simulated suites of --benchmarks benchmarks, each a flat sample of top-level units per version
(log-normal, so that every time is positive), at the designs

- 3 vs 3 and 5 vs 5 units, both sides at the coefficient of variation (CV) of the row;
- 3 vs 30 and 30 vs 3 units: the 3-unit side at the row's CV, the 30-unit side at 5%
  (a quick check against a long baseline, in both roles),

for CVs of 5, 10, 20 and 30%. "Null" suites change nothing; "mixed" suites have 6 unchanged
benchmarks, one 10% faster, one 10% slower, one 20% faster and one 20% slower (speedups 1.1,
1/1.1, 1.2, 1/1.2); "large" suites alternate 2× faster and 2× slower. The threshold is the
default 1%; α the same for every benchmark.

The options, for the benchmarks whose Fieller interval is not bounded at the call's level
(everywhere else every option uses Fieller's interval, as the tool does):

- ``percentile``: the percentile bootstrap interval of the speedup of the means, as the tool
  made its calls before (at least 25 resamples beyond each end, else uncertain);
- ``distinct``: the same, only where each side has enough distinct resamples for the level:
  C(2n − 1, n) distinct resampled means for n units, at least 25 beyond each end;
- ``bca``: the bias-corrected and accelerated percentile interval (Efron 1987), acceleration
  from each side's empirical influence values;
- ``studentised``: the bootstrap-t interval of the log speedup (each resample studentised by
  its own delta-method standard error);
- ``uncertain``: no call where Fieller's interval is not bounded;
- ``fieller``: Fieller's confidence set among the positive speedups, as the tool makes its
  calls now (``speeduptest.stats.change.decide_calls``): where the optimized mean is not
  significantly different from 0 the set is [L, ∞), where the initial mean is not, (0, H]; the
  call is faster when L > 1 + τ, slower when H < 1/(1 + τ).

Every option uses the tool's own functions wherever the tool has them: the samples'
mean ratios (``effect_inputs_of``), Fieller's p-values, levels and bounds and the corrections
(``speeduptest.stats.change``), the bootstrap's shared multinomial count matrices
(``shared_counts``); the ``fieller`` option is ``decide_calls`` itself, suite by suite.

Printed, per correction (none, bonferroni, fcr: the tool's ``--correction``), a Markdown table
whose rows are the designs and CVs and whose columns are, per option, the error the correction
promises to keep at α in null suites, and the power: the share of the 10% and 20% changes of
the mixed suites, and of the 2× changes of the large ones, called in the right direction. The
promised error is

- none: the share of null benchmarks called faster or slower (per-benchmark error, ≤ α);
- bonferroni: the share of null suites with a false call (family-wise error, ≤ α);
- fcr: the mean share of false calls among the calls (false coverage rate, ≤ α; in null suites
  the same as the family-wise error), the worse of null and mixed suites.

"!" marks an error above α by more than two binomial standard errors. Then the tool's calls
(``fieller``) alone, a row per design and CV and a column per correction; the worst row per
option and correction, with the mean powers. Then the acceptance cell, simulated
(--acceptance-runs runs): 200 null benchmarks of 3 units (CV 30%) against 30 (CV 5%) at
--correction none --alpha 0.005, the mean false calls per run and the share of runs with more
than 4. Last, with --cli-runs N > 0, the same cell through the command line: N configs, each
analysed by ``python -m speeduptest --correction none --alpha 0.005``; the false calls of
each. --quick: 200 suites, 2,000 resamples, 20 acceptance runs (a smoke run; the percentile
options then lack resamples at corrected levels and call less). The whole run takes about
half an hour on one core: the bootstrap options sort 10,000 resamples per noisy benchmark.
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
from pathlib import Path

import numpy as np
from scipy import special

from speeduptest.stats.change import classify, decide_calls
from speeduptest.stats.corrections import corrected_confidence
from speeduptest.stats.effect_size import effect_inputs_of, shared_counts
from speeduptest.stats.fieller import MeanRatio, call_fieller_bounds, fieller_p_value
from speeduptest.stats.hierarchy import Hierarchy

DESIGNS = ((3, 3), (3, 30), (30, 3), (5, 5))
CVS = (0.05, 0.10, 0.20, 0.30)
LONG_SIDE_CV = 0.05  # the 30-unit side of 3 vs 30
THRESHOLD = 0.01
MIXED = (1.0,) * 6 + (1.1, 1 / 1.1, 1.2, 1 / 1.2)
LARGE = (2.0, 0.5)
CORRECTIONS = ("none", "bonferroni", "fcr")
OPTIONS = ("percentile", "distinct", "bca", "studentised", "uncertain", "fieller")
#: Resamples beyond each end that a percentile interval needed to decide a call (the tool's
#: rule when it fell back to the bootstrap).
MIN_TAIL_RESAMPLES = 25
ROWS_PER_CHUNK = 256  # resampled speedups sorted at once (× resamples)


def simulate(rng: np.random.Generator, speedups: np.ndarray, units: tuple[int, int],
             cvs: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Initial and optimized samples (one row per benchmark), log-normal with means 1 and
    1/speedup and the given coefficients of variation."""
    sides = []
    for size, cv, mean in ((units[0], cvs[0], np.ones_like(speedups)),
                           (units[1], cvs[1], 1 / speedups)):
        sigma = math.sqrt(math.log1p(cv * cv))
        sides.append(mean[:, None] * np.exp(rng.normal(-sigma * sigma / 2, sigma,
                                                       (speedups.size, size))))
    return sides[0], sides[1]


def mean_ratios(initial: np.ndarray, optimized: np.ndarray) -> MeanRatio:
    """The tool's inputs of Fieller's interval, from flat samples."""
    return effect_inputs_of([(Hierarchy.flat(x), Hierarchy.flat(y))
                             for x, y in zip(initial, optimized, strict=True)])[1]


def levels(p_values: np.ndarray, alpha: float, suites: int, b: int
           ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per correction, each benchmark's confidence and whether it may be called (FCR: selected
    by Benjamini–Hochberg), suite by suite."""
    found = {}
    for correction in CORRECTIONS:
        confidence, allowed = np.empty(p_values.size), np.ones(p_values.size, dtype=bool)
        for suite in range(suites):
            rows = slice(suite * b, (suite + 1) * b)
            confidence[rows], selected, _ = corrected_confidence(
                p_values[rows], np.full(b, alpha), correction)
            if correction == "fcr":
                allowed[rows] = selected
        found[correction] = confidence, allowed
    return found


def two_sided(ratio: MeanRatio, confidence: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fieller's interval where both means are significantly different from 0 at the level
    (bounded, and above 0), and whether it is."""
    low, high = call_fieller_bounds(ratio, confidence)
    return low, high, (low > 0) & (high < math.inf)


def distinct_resamples(units: int) -> int:
    """Distinct bootstrap resamples (multisets) of ``units`` values: C(2n − 1, n)."""
    return math.comb(2 * units - 1, units)


def _quantiles(ordered: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per row of sorted values, the quantile at that row's q (numpy's linear rule); q outside
    [0, 1] or not a number: NaN."""
    count = ordered.shape[1]
    position = np.clip(q, 0, 1) * (count - 1)
    below = np.clip(np.floor(np.nan_to_num(position)).astype(int), 0, count - 1)
    above = np.minimum(below + 1, count - 1)
    rows = np.arange(len(ordered))
    low, high = ordered[rows, below], ordered[rows, above]
    with np.errstate(invalid="ignore"):
        found = low + (position - below) * (high - low)
        found = np.where(high == low, low, found)  # ±inf ends stay as they are
    return np.where(np.isfinite(q) & (q >= 0) & (q <= 1), found, np.nan)


def fallback_intervals(initial: np.ndarray, optimized: np.ndarray, ratio: MeanRatio,
                       tails: dict[str, np.ndarray], resamples: int, seed: int
                       ) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """Per (option, correction) the interval [low, high] of each row (NaN: no interval) by the
    bootstrap options, at the tails (1 − confidence)/2 of each correction."""
    counts_i = shared_counts(initial.shape[1], resamples, seed, 0).T.astype(float)
    counts_o = shared_counts(optimized.shape[1], resamples, seed, 1).T.astype(float)
    size_i, size_o = initial.shape[1], optimized.shape[1]
    fewest = min(distinct_resamples(size_i), distinct_resamples(size_o))
    rows = len(initial)
    out = {(option, correction): (np.full(rows, np.nan), np.full(rows, np.nan))
           for option in ("percentile", "distinct", "bca", "studentised")
           for correction in tails}
    for start in range(0, rows, ROWS_PER_CHUNK):
        chunk = slice(start, start + ROWS_PER_CHUNK)
        x, y = initial[chunk], optimized[chunk]
        sums_i, sums_o = x @ counts_i, y @ counts_o
        means_i, means_o = sums_i / size_i, sums_o / size_o
        speedups = means_i / means_o
        estimate = ratio.speedup[chunk]
        ordered = np.sort(speedups, axis=1)
        # bootstrap-t of the log speedup: each resample's delta-method standard error
        with np.errstate(divide="ignore", invalid="ignore"):
            var_i = np.maximum((x * x) @ counts_i - size_i * means_i**2, 0) / (size_i - 1)
            var_o = np.maximum((y * y) @ counts_o - size_o * means_o**2, 0) / (size_o - 1)
            spread = np.sqrt(var_i / size_i / means_i**2 + var_o / size_o / means_o**2)
            pivots = (np.log(speedups) - np.log(estimate)[:, None]) / spread
        pivots = np.sort(np.where(np.isnan(pivots), 0.0, pivots), axis=1)
        standard_error = np.sqrt(ratio.initial_relative_variance[chunk]
                                 + ratio.optimized_relative_variance[chunk])
        # BCa: bias from the share of resamples below the estimate, acceleration from the
        # empirical influence of each value on log(mean_i / mean_o)
        below = (speedups < estimate[:, None]).mean(axis=1)
        with np.errstate(divide="ignore"):
            bias = special.ndtri(below)
        influence = np.concatenate([(x - x.mean(1, keepdims=True)) / x.mean(1, keepdims=True)
                                    / size_i,
                                    -(y - y.mean(1, keepdims=True)) / y.mean(1, keepdims=True)
                                    / size_o], axis=1)
        acceleration = (influence**3).sum(1) / (6 * ((influence**2).sum(1)) ** 1.5)
        for correction, tail in tails.items():
            tail = tail[chunk]
            enough = tail * resamples >= MIN_TAIL_RESAMPLES
            low = _quantiles(ordered, tail)
            high = _quantiles(ordered, 1 - tail)
            percentile = (np.where(enough, low, np.nan), np.where(enough, high, np.nan))
            out["percentile", correction][0][chunk] = percentile[0]
            out["percentile", correction][1][chunk] = percentile[1]
            supported = enough & (fewest * tail >= MIN_TAIL_RESAMPLES)
            out["distinct", correction][0][chunk] = np.where(supported, low, np.nan)
            out["distinct", correction][1][chunk] = np.where(supported, high, np.nan)
            z = special.ndtri(tail)
            with np.errstate(invalid="ignore", divide="ignore"):
                adjusted = [special.ndtr(bias + (bias + side) / (1 - acceleration
                                                                  * (bias + side)))
                            for side in (z, -z)]
            bca = [_quantiles(ordered, level) for level in adjusted]
            out["bca", correction][0][chunk] = np.where(enough, bca[0], np.nan)
            out["bca", correction][1][chunk] = np.where(enough, bca[1], np.nan)
            with np.errstate(invalid="ignore", over="ignore"):
                t_low, t_high = _quantiles(pivots, tail), _quantiles(pivots, 1 - tail)
                log_estimate = np.log(estimate)
                studentised = (np.exp(log_estimate - t_high * standard_error),
                               np.exp(log_estimate - t_low * standard_error))
            finite = enough & np.isfinite(t_low) & np.isfinite(t_high)
            out["studentised", correction][0][chunk] = np.where(finite, studentised[0], np.nan)
            out["studentised", correction][1][chunk] = np.where(finite, studentised[1], np.nan)
    return out


def option_calls(option: str, correction: str, ratio: MeanRatio,
                 found: dict[str, tuple[np.ndarray, np.ndarray]], fallback: dict,
                 alpha: float, suites: int, b: int) -> np.ndarray:
    """The call of every benchmark under ``option`` and ``correction``."""
    if option == "fieller":  # the tool's calls
        return np.concatenate([
            [change.call for change in decide_calls(
                ratio.take(slice(s * b, (s + 1) * b)), np.full(b, alpha), [None] * b,
                threshold=THRESHOLD, correction=correction)]
            for s in range(suites)])
    confidence, allowed = found[correction]
    low, high, bounded = two_sided(ratio, confidence)
    if option != "uncertain":
        other_low, other_high = fallback[option, correction]
        use = ~bounded & ~np.isnan(other_low) & ~np.isnan(other_high)
        low, high = np.where(use, other_low, low), np.where(use, other_high, high)
        bounded = bounded | use
    calls = classify(low, high, bounded, THRESHOLD)
    return np.where(~allowed & np.isin(calls, ("faster", "slower")), "uncertain", calls)


def evaluate(truth: np.ndarray, design: tuple[int, int], cvs: tuple[float, float],
             suites: int, b: int, alpha: float, resamples: int, seed: int,
             rng: np.random.Generator, options: tuple[str, ...], corrections=CORRECTIONS
             ) -> dict[tuple[str, str], np.ndarray]:
    """The calls (suites × b) of simulated suites with true speedups ``truth`` (suites·b), per
    option and correction."""
    initial, optimized = simulate(rng, truth, design, cvs)
    ratio = mean_ratios(initial, optimized)
    found = levels(fieller_p_value(ratio), alpha, suites, b)
    fallback: dict = {}
    if set(options) - {"uncertain", "fieller"}:
        widest = found["bonferroni"][0]  # (FCR's levels are at most as high)
        need = np.flatnonzero(~two_sided(ratio, widest)[2])
        tails = {c: (1 - confidence[need]) / 2 for c, (confidence, _) in found.items()}
        partial = fallback_intervals(initial[need], optimized[need], ratio.take(need), tails,
                                     resamples, seed)
        for key, (low, high) in partial.items():
            fallback[key] = (np.full(truth.size, np.nan), np.full(truth.size, np.nan))
            fallback[key][0][need], fallback[key][1][need] = low, high
    return {(option, correction): option_calls(option, correction, ratio, found, fallback,
                                               alpha, suites, b).reshape(suites, b)
            for option in options for correction in corrections}


def measure(design: tuple[int, int], cv: float, args: argparse.Namespace,
            options: tuple[str, ...]) -> dict:
    """Every option's errors and power, per correction, for one design and CV."""
    b, suites = args.benchmarks, args.suites
    cvs = ((cv, cv) if design[0] == design[1] else
           (cv, LONG_SIDE_CV) if design[0] < design[1] else (LONG_SIDE_CV, cv))
    rng = np.random.default_rng([args.seed, *design, round(cv * 1000)])
    results: dict = {}
    for kind, speedups in (("null", np.ones(b)), ("mixed", np.resize(np.array(MIXED), b)),
                           ("large", np.resize(np.array(LARGE), b))):
        truth = np.tile(speedups, suites)
        expected = np.where(truth > 1, "faster", np.where(truth < 1, "slower", "-")).reshape(
            suites, b)
        calls = evaluate(truth, design, cvs, suites, b, args.alpha, args.resamples, args.seed,
                         rng, options)
        for key, found in calls.items():
            called = np.isin(found, ("faster", "slower"))
            false = called & (found != expected)
            entry = results.setdefault(key, {})
            if kind != "large":
                entry[kind + "_per_benchmark"] = false[:, speedups == 1].mean()
                entry[kind + "_suites"] = false.any(axis=1).mean()
                entry[kind + "_fcr"] = (false.sum(1) / np.maximum(called.sum(1), 1)).mean()
            right = found == expected
            for size in ((1.1, 1.2) if kind == "mixed" else (2.0,) if kind == "large" else ()):
                changed = np.isclose(np.maximum(speedups, 1 / speedups), size)
                entry[f"power_{size}"] = right[:, changed].mean()
    return results


def promised(entry: dict, correction: str) -> float:
    return {"none": entry["null_per_benchmark"], "bonferroni": entry["null_suites"],
            "fcr": max(entry["null_fcr"], entry["mixed_fcr"])}[correction]


def acceptance(runs: int, args: argparse.Namespace, options: tuple[str, ...]) -> dict:
    """Per option, the false calls of ``runs`` runs of 200 null benchmarks of 3 units (CV 30%)
    against 30 (CV 5%) at --correction none --alpha 0.005."""
    rng = np.random.default_rng([args.seed, 200])
    calls = evaluate(np.ones(runs * 200), (3, 30), (0.3, LONG_SIDE_CV), runs, 200, 0.005,
                     args.resamples, args.seed, rng, options, corrections=("none",))
    return {option: np.isin(found, ("faster", "slower")).sum(axis=1)
            for (option, _), found in calls.items()}


def cli_check(runs: int, seed: int) -> list[int]:
    """False calls among 200 null benchmarks of 3 units (CV 30%) against 30 (CV 5%), through
    the command line at --correction none --alpha 0.005, for ``runs`` configs."""
    found = []
    root = Path(__file__).resolve().parents[1]
    environment = dict(os.environ, PYTHONPATH=str(root))
    for run in range(runs):
        rng = np.random.default_rng([seed, 200, run])
        initial, optimized = simulate(rng, np.ones(200), (3, 30), (0.3, LONG_SIDE_CV))
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            rows = ["benchmark,initial,optimized"]
            for index, (x, y) in enumerate(zip(initial, optimized, strict=True)):
                (folder / f"{index}-i.txt").write_text("\n".join(map(repr, x.tolist())))
                (folder / f"{index}-o.txt").write_text("\n".join(map(repr, y.tolist())))
                rows.append(f"b{index},{index}-i.txt,{index}-o.txt")
            (folder / "config.csv").write_text("\n".join(rows) + "\n")
            subprocess.run([sys.executable, "-m", "speeduptest", str(folder / "config.csv"),
                            "--correction", "none", "--alpha", "0.005", "--format", "json",
                            "--quiet", "-o", str(folder / "report")], check=False,
                           env=environment, stdout=subprocess.DEVNULL)
            results = json.loads((folder / "report" / "results.json").read_text())
            found.append(sum(b["change"]["call"] in ("faster", "slower")
                             for b in results["benchmarks"]))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", type=int, default=1000)
    parser.add_argument("--benchmarks", type=int, default=10)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--acceptance-runs", type=int, default=100)
    parser.add_argument("--cli-runs", type=int, default=5)
    parser.add_argument("--options", nargs="+", choices=OPTIONS, default=list(OPTIONS))
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.suites, args.resamples, args.acceptance_runs = 200, 2_000, 20
    options = tuple(args.options)
    started = time.perf_counter()
    print(f"{args.suites} null, {args.suites} mixed and {args.suites} large-change suites of "
          f"{args.benchmarks} benchmarks per row, α = {args.alpha}, τ = {THRESHOLD:.0%}, "
          f"{args.resamples} bootstrap resamples; each cell: the promised error / power at "
          "10% / 20% / 2×")
    cells = {}
    for design in DESIGNS:
        for cv in CVS:
            cells[design, cv] = measure(design, cv, args, options)
            print(f"  ({design[0]} vs {design[1]}, CV {cv:.0%}: "
                  f"{time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    promise = {"none": "share of null benchmarks falsely called",
               "bonferroni": "share of null suites with a false call",
               "fcr": "false share of the calls, worse of null and mixed suites"}
    for correction in CORRECTIONS:
        print(f"\n--correction {correction}: {promise[correction]} / power 10% / 20% / 2×\n")
        print("| units | CV | " + " | ".join(options) + " |")
        print("|---|---:|" + "---:|" * len(options))
        for (design, cv), results in cells.items():
            row = []
            for option in options:
                entry = results[option, correction]
                error = promised(entry, correction)
                trials = args.suites * (args.benchmarks if correction == "none" else 1)
                limit = args.alpha + 2 * math.sqrt(args.alpha * (1 - args.alpha) / trials)
                row.append(f"{error:.1%}{'!' if error > limit else ''} / "
                           f"{entry['power_1.1']:.0%} / {entry['power_1.2']:.0%} / "
                           f"{entry['power_2.0']:.0%}")
            print(f"| {design[0]} vs {design[1]} | {cv:.0%} | " + " | ".join(row) + " |")
    if "fieller" in options:
        print("\nThe tool's calls (fieller) per correction: promised error / power at 10% / 20% "
              "/ 2×\n")
        print("| units | CV | " + " | ".join(f"--correction {c}" for c in CORRECTIONS) + " |")
        print("|---|---:|" + "---|" * len(CORRECTIONS))
        for (design, cv), results in cells.items():
            row = [f"{promised(results['fieller', c], c):.1%} / " + " / ".join(
                f"{results['fieller', c][f'power_{size}']:.0%}" for size in (1.1, 1.2, 2.0))
                for c in CORRECTIONS]
            print(f"| {design[0]} vs {design[1]} | {cv:.0%} | " + " | ".join(row) + " |")
    print("\nWorst promised error over the rows, and mean power at 10% / 20% / 2×:\n")
    print("| option | " + " | ".join(f"--correction {c}" for c in CORRECTIONS) + " |")
    print("|---|" + "---|" * len(CORRECTIONS))
    for option in options:
        row = []
        for correction in CORRECTIONS:
            entries = [results[option, correction] for results in cells.values()]
            worst = max(promised(entry, correction) for entry in entries)
            power = [np.mean([e[f"power_{size}"] for e in entries]) for size in (1.1, 1.2, 2.0)]
            row.append(f"{worst:.1%} / " + " / ".join(f"{p:.0%}" for p in power))
        print(f"| {option} | " + " | ".join(row) + " |")
    if args.acceptance_runs:
        false = acceptance(args.acceptance_runs, args, options)
        print(f"\n{args.acceptance_runs} runs of 200 null benchmarks of 3 units (CV 30%) vs 30 "
              "(CV 5%), --correction none --alpha 0.005:\n")
        print("| option | false calls per run (mean) | runs with more than 4 |")
        print("|---|---:|---:|")
        for option, counts in false.items():
            print(f"| {option} | {counts.mean():.2f} | {np.mean(counts > 4):.1%} |")
    if args.cli_runs:
        false = cli_check(args.cli_runs, args.seed)
        print(f"\nCommand line, 200 null benchmarks of 3 units (CV 30%) vs 30 (CV 5%), "
              f"--correction none --alpha 0.005: false calls per run {false}")
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()

"""False calls on dependent values and power on warm-up suites, by simulation, through the
whole analysis (``speeduptest.analyse_config`` / ``compare_files``, as the command runs it).

Usage: python benchmarks/dependence_alarms.py [--suites 20] [--warmup-suites 10] [--seed 1]
                                              [--quick] [--part a|b|both] [--threshold 0.01]

**(a) A/A suites of one autocorrelated series per side.** Each suite has 100 benchmarks; each
side of a benchmark is one invocation of 300 iterations (a plain sample file, one value per
line; a config ``benchmark,initial,optimized`` pairs them), with no change between the sides.
A benchmark's times are ``base · exp(e_i)``, e an AR(1) series with coefficient φ (0, 0.5,
0.8 or 0.95, the same for every benchmark of the suite) and marginal standard deviation σ,
drawn per benchmark log-uniformly from 0.3% to 5% (as in benchmarks/false_alarms.py), base
uniform in [1 ms, 1 s]. Every call `faster` or `slower` is false. Each suite is analysed
with the defaults (``--warmup auto --dependence batch``) and with ``--dependence ignore``.
Printed per φ: the share of suites with at least one false call (± its binomial standard
error) and the false calls per 100 benchmarks, both ways; with the defaults, the share of
sides analysed as batch means, their median batch length, and the share of sides whose
start was left out as a warm-up.

**(b) Warm-up suites.** Each suite has 60 benchmarks of 2 versions × 5 invocations × 120
iterations in one long CSV (``benchmark,version,invocation,iteration,value``). The optimized
version of 20 benchmarks is 5% faster (times / 1.05), of 10 5% slower (× 1.05), of 30
unchanged. Every invocation warms up: its first W ~ U{5, …, 60} iterations decay from
f ~ U(3, 10) times the steady time, linearly or exponentially (half each; the shapes of
benchmarks/warmup_detection.py). Noise: per benchmark, an invocation level exp(N(0, s²)) with
s log-uniform in 0.2%–1%, and AR(1) iteration noise with φ ~ U(0, 0.5) and marginal σ
log-uniform in 0.5%–3%. Each suite is analysed with the defaults and with ``--warmup none``.
Printed: power (the share of the 30 real changes called in their direction), calls in the
wrong direction, false calls among the 30 unchanged (per suite, and the share of suites with
any), and how the detected starts compare with the true W.

The calls rest on Fieller's interval of the mean ratio; the bootstrap (effect-size intervals,
P(faster), and the call's fallback when Fieller's interval is unbounded) is run with
``bootstrap=200`` resamples to keep the run short. In part (a) the first suite of every φ is
also analysed with the default resamples and its calls must be the same (printed).

--threshold: the calls' τ (default the command's 1%; 0 makes every significant difference
a call, a harder test of part (a)). --quick: 5 suites per φ and 3 warm-up suites. The full
run takes a few minutes.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from speeduptest import analyse_config, compare_files
from speeduptest.model.settings import Settings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from warmup_detection import SHAPES, ar1, warmup_factor

PHIS = (0.0, 0.5, 0.8, 0.95)
BENCHMARKS, ITERATIONS = 100, 300
RESAMPLES = 200
CALLED = ("faster", "slower")


# --- (a) ------------------------------------------------------------------------------------

def write_aa_suite(rng: np.random.Generator, folder: Path, phi: float) -> Path:
    rows = ["benchmark,initial,optimized"]
    for b in range(BENCHMARKS):
        base = rng.uniform(1e-3, 1.0)
        sd = np.exp(rng.uniform(np.log(0.003), np.log(0.05)))
        for side in ("initial", "optimized"):
            values = base * np.exp(ar1(rng, ITERATIONS, phi, sd))
            np.savetxt(folder / f"b{b}-{side}.txt", values, fmt="%.9g")
        rows.append(f"b{b},b{b}-initial.txt,b{b}-optimized.txt")
    config = folder / "config.csv"
    config.write_text("\n".join(rows) + "\n")
    return config


@dataclass
class AASummary:
    false_default: list[int] = field(default_factory=list)
    false_ignore: list[int] = field(default_factory=list)
    batched: list[float] = field(default_factory=list)  # share of sides, per suite
    batch_lengths: list[int] = field(default_factory=list)
    warmups: list[float] = field(default_factory=list)  # share of sides with values dropped
    resamples_same: list[bool] = field(default_factory=list)


def false_calls(results) -> int:
    return sum(1 for b in results.pair.benchmarks
               if b.change is not None and b.change.call in CALLED)


def run_aa(args: argparse.Namespace) -> None:
    suites = 5 if args.quick else args.suites
    print(f"## (a) A/A suites: {BENCHMARKS} benchmarks × 1 invocation × {ITERATIONS} values "
          f"per side, AR(1) noise σ 0.3–5%, {suites} suites per φ, threshold "
          f"{args.threshold:g}, seed {args.seed}\n",
          flush=True)
    summaries: dict[float, AASummary] = {}
    for p, phi in enumerate(PHIS):
        summary = summaries[phi] = AASummary()
        for suite in range(suites):
            rng = np.random.default_rng([args.seed, 1, p, suite])
            with tempfile.TemporaryDirectory() as folder:
                config = write_aa_suite(rng, Path(folder), phi)
                quick = Settings(bootstrap=RESAMPLES, threshold=args.threshold)
                default = analyse_config(config, quick)
                ignore = analyse_config(config, dataclasses.replace(quick, dependence="ignore"))
                if suite == 0 and not args.quick:
                    full = analyse_config(config, Settings(threshold=args.threshold))
                    summary.resamples_same.append(
                        [b.change.call for b in full.pair.benchmarks]
                        == [b.change.call for b in default.pair.benchmarks])
            summary.false_default.append(false_calls(default))
            summary.false_ignore.append(false_calls(ignore))
            sides = [side for b in default.pair.benchmarks if b.validity for side in b.validity]
            lengths = [s.dependence.batch for s in sides
                       if s.dependence is not None and s.dependence.batch > 1]
            summary.batched.append(len(lengths) / len(sides))
            summary.batch_lengths.extend(lengths)
            summary.warmups.append(sum(1 for s in sides if s.dropped) / len(sides))
        print(f"  φ = {phi:g}: {suites} suites done", file=sys.stderr, flush=True)

    print("| φ | suites | defaults: suites with a false call | defaults: false calls per 100 "
          "| ignore: suites with a false call | ignore: false calls per 100 | sides batched "
          "| median batch | sides with a warm-up dropped |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for phi, s in summaries.items():
        n = len(s.false_default)

        def share(counts: list[int], n: int = n) -> str:
            p = float(np.mean(np.array(counts) > 0))
            return f"{100 * p:.0f}% ± {100 * np.sqrt(p * (1 - p) / n):.0f}"

        per_100 = 100 / BENCHMARKS
        median = f"{np.median(s.batch_lengths):.0f}" if s.batch_lengths else "–"
        print(f"| {phi:g} | {n} | {share(s.false_default)} "
              f"| {per_100 * np.mean(s.false_default):.2f} | {share(s.false_ignore)} "
              f"| {per_100 * np.mean(s.false_ignore):.2f} | {100 * np.mean(s.batched):.1f}% "
              f"| {median} | {100 * np.mean(s.warmups):.1f}% |")
    checks = [same for s in summaries.values() for same in s.resamples_same]
    if checks:
        print(f"\nCalls with {RESAMPLES} resamples = calls with the default resamples on the "
              f"first suite of each φ: {sum(checks)} of {len(checks)}")


# --- (b) ------------------------------------------------------------------------------------

WB_BENCHMARKS, INVOCATIONS, WB_ITERATIONS = 60, 5, 120
FASTER, SLOWER = 20, 10
EFFECT = 1.05


def write_warmup_suite(rng: np.random.Generator, path: Path
                       ) -> tuple[np.ndarray, dict[tuple[str, str], list[int]]]:
    """The suite's long CSV; the true speedups (by benchmark) and the true warm-up lengths
    (by benchmark and version)."""
    speedups = np.ones(WB_BENCHMARKS)
    speedups[:FASTER] = EFFECT
    speedups[FASTER:FASTER + SLOWER] = 1 / EFFECT
    lines = ["benchmark,version,invocation,iteration,value"]
    warmups: dict[tuple[str, str], list[int]] = {}
    for b in range(WB_BENCHMARKS):
        base = rng.uniform(1e-3, 1.0)
        level_sd = np.exp(rng.uniform(np.log(0.002), np.log(0.01)))
        sd = np.exp(rng.uniform(np.log(0.005), np.log(0.03)))
        phi = rng.uniform(0, 0.5)
        for version, mean in (("initial", base), ("optimized", base / speedups[b])):
            lengths = warmups[f"b{b}", version] = []
            for invocation in range(1, INVOCATIONS + 1):
                w = int(rng.integers(5, 61))
                lengths.append(w)
                shape = SHAPES[int(rng.integers(2))]
                values = (mean * np.exp(rng.normal(0, level_sd))
                          * warmup_factor(WB_ITERATIONS, w, rng.uniform(3, 10), shape)
                          * np.exp(ar1(rng, WB_ITERATIONS, phi, sd)))
                lines.extend(f"b{b},{version},{invocation},{i},{value:.9g}"
                             for i, value in enumerate(values, start=1))
    path.write_text("\n".join(lines) + "\n")
    return speedups, warmups


@dataclass
class WarmupSummary:
    power: list[float] = field(default_factory=list)
    wrong: list[int] = field(default_factory=list)
    false: list[int] = field(default_factory=list)
    unchanged: list[float] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)  # dropped − true W, per invocation
    kept_all: list[bool] = field(default_factory=list)  # per invocation: nothing dropped


def score(results, speedups: np.ndarray, warmups: dict, summary: WarmupSummary) -> None:
    calls = {b.name: (b.change.call if b.change is not None else "error")
             for b in results.pair.benchmarks}
    names = [f"b{b}" for b in range(WB_BENCHMARKS)]
    expected = ["faster" if s > 1 else "slower" if s < 1 else None for s in speedups]
    changed = [(calls[n], e) for n, e in zip(names, expected, strict=True) if e]
    same = [calls[n] for n, e in zip(names, expected, strict=True) if not e]
    summary.power.append(float(np.mean([c == e for c, e in changed])))
    summary.wrong.append(sum(1 for c, e in changed if c in CALLED and c != e))
    summary.false.append(sum(1 for c in same if c in CALLED))
    summary.unchanged.append(float(np.mean([c == "unchanged" for c in same])))
    for b in results.pair.benchmarks:
        if b.validity is None:
            continue
        for version, side in zip(("initial", "optimized"), b.validity, strict=True):
            summary.errors.extend(d - w for d, w in zip(side.drops, warmups[b.name, version],
                                                        strict=True))
            summary.kept_all.extend(d == 0 for d in side.drops)


def run_warmup(args: argparse.Namespace) -> None:
    suites = 3 if args.quick else args.warmup_suites
    print(f"\n## (b) Warm-up suites: {WB_BENCHMARKS} benchmarks × 2 versions × {INVOCATIONS} "
          f"invocations × {WB_ITERATIONS} iterations, warm-ups of 5–60 iterations from 3–10×; "
          f"{FASTER} benchmarks 5% faster, {SLOWER} 5% slower, "
          f"{WB_BENCHMARKS - FASTER - SLOWER} unchanged; {suites} suites, threshold "
          f"{args.threshold:g}, seed {args.seed}\n",
          flush=True)
    modes = {"defaults (--warmup auto)": "auto", "--warmup none": "none"}
    summaries = {mode: WarmupSummary() for mode in modes}
    for suite in range(suites):
        rng = np.random.default_rng([args.seed, 2, suite])
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "suite.csv"
            speedups, warmups = write_warmup_suite(rng, path)
            for mode, warmup in modes.items():
                results = compare_files(f"{path}#initial", f"{path}#optimized",
                                        Settings(bootstrap=RESAMPLES, warmup=warmup,
                                                 threshold=args.threshold))
                score(results, speedups, warmups, summaries[mode])
        print(f"  warm-up suite {suite + 1} of {suites} done", file=sys.stderr, flush=True)
    unchanged = WB_BENCHMARKS - FASTER - SLOWER
    print(f"| analysis | suites | power ({FASTER + SLOWER} real changes called right) "
          f"| wrong-direction calls per suite | false calls among the {unchanged} unchanged, "
          "per suite | suites with a false call | unchanged called `unchanged` |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode, s in summaries.items():
        print(f"| {mode} | {len(s.power)} | {100 * np.mean(s.power):.1f}% "
              f"(min {100 * np.min(s.power):.0f}%) | {np.mean(s.wrong):.2f} "
              f"| {np.mean(s.false):.2f} (max {np.max(s.false)}) "
              f"| {100 * np.mean(np.array(s.false) > 0):.0f}% "
              f"| {100 * np.mean(s.unchanged):.1f}% |")
    auto = summaries["defaults (--warmup auto)"]
    errors = np.array(auto.errors)
    print(f"\nWith --warmup auto, values left out − true warm-up length, over "
          f"{len(errors)} invocations: median {np.median(errors):+.0f}, within ±5: "
          f"{100 * np.mean(np.abs(errors) <= 5):.1f}%, fewer than the warm-up by more than 5 "
          f"(warm-up values analysed): {100 * np.mean(errors < -5):.1f}%, more by more than 5: "
          f"{100 * np.mean(errors > 5):.1f}%, nothing left out: "
          f"{100 * np.mean(auto.kept_all):.1f}%")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", type=int, default=20, help="A/A suites per φ (part a)")
    parser.add_argument("--warmup-suites", type=int, default=10, help="suites of part (b)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true",
                        help="5 A/A suites per φ and 3 warm-up suites")
    parser.add_argument("--threshold", type=float, default=Settings().threshold,
                        help="the calls' threshold τ (default: the command's, 0.01)")
    parser.add_argument("--part", choices=("a", "b", "both"), default="both")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.part in ("a", "both"):
        run_aa(args)
    if args.part in ("b", "both"):
        run_warmup(args)
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()

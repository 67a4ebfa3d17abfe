"""Several-version suites of extreme execution times through the whole analysis and every
format: nothing may crash, results.json must stay strict JSON, no RuntimeWarning may escape.

Modelled on benchmarks/fuzz_extremes.py, but every benchmark has 3 to 5 versions (a wide
config, baseline v0), as `speeduptest versions.csv --baseline v0` reads it.

Usage: python benchmarks/fuzz_versions.py [--suites 400] [--seed 0] [--pdf] [--ordinary-every 10]
                               [--minutes 25] [--save DIR] [--no-shrink]

Each failure is recorded with its signature (exception type, message, the last 3 speeduptest
frames); the first suite of each distinct signature is shrunk (benchmarks, versions, values,
weights removed while the signature stays) and saved under --save as a reproduction folder
(the sample files, versions.csv, settings.json and cmd.sh). Warnings are raised as errors; a
suite that fails with a warning is run again with warnings only recorded, to tell whether it
would otherwise pass or crash. Ordinary-data suites (every --ordinary-every-th) must pass.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shlex
import shutil
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from fuzz_extremes import KINDS, extreme_sample, strict_results_json

from speeduptest.analysis.run import analyse_config
from speeduptest.model.results import RunInfo, Settings
from speeduptest.render.formats import render_formats
from speeduptest.render.terminal import render_terminal


@dataclass
class Suite:
    benchmarks: list[list[list[float]]]  # benchmark → version → values
    weights: list[str]
    settings: dict
    ordinary: bool = False
    notes: list[str] = field(default_factory=list)

    def copy(self) -> Suite:
        return Suite([[list(v) for v in b] for b in self.benchmarks], list(self.weights),
                      dict(self.settings), self.ordinary, list(self.notes))


def make_suite(rng: random.Random, ordinary: bool) -> Suite:
    versions = rng.choice([3, 4, 5])
    benchmarks, weights = [], []
    for _ in range(rng.choice([1, 2, 3])):
        if ordinary:
            samples = [extreme_sample(rng, "ordinary") for _ in range(versions)]
        elif rng.random() < 0.1:  # the same sample for every version
            same = extreme_sample(rng)
            samples = [list(same) for _ in range(versions)]
        elif rng.random() < 0.15:  # one kind for every version
            kind = rng.choice(KINDS)
            samples = [extreme_sample(rng, kind) for _ in range(versions)]
        else:
            samples = [extreme_sample(rng) for _ in range(versions)]
        benchmarks.append([[v for v in s if v > 0] for s in samples])
        weights.append("1" if ordinary else rng.choice(["1", "2", "1e300", "1e-300"]))
    settings = dict(bootstrap=rng.choice([None, 200]),
                    aggregate_interval=rng.choice(["delta", "bootstrap"]),
                    correction=rng.choice(["fcr", "bonferroni", "none"]),
                    threshold=rng.choice([0.0, 0.01]))
    return Suite(benchmarks, weights, settings, ordinary)


def write_suite(suite: Suite, folder: Path) -> Path:
    versions = max(len(b) for b in suite.benchmarks)
    rows = ["benchmark," + ",".join(f"v{v}" for v in range(versions)) + ",weight"]
    for index, samples in enumerate(suite.benchmarks):
        cells = []
        for v, values in enumerate(samples):
            name = f"b{index}v{v}.txt"
            (folder / name).write_text("".join(f"{x!r}\n" for x in values))
            cells.append(name)
        rows.append(f"b{index}," + ",".join(cells) + f",{suite.weights[index]}")
    config = folder / "versions.csv"
    config.write_text("\n".join(rows) + "\n")
    (folder / "settings.json").write_text(json.dumps(suite.settings) + "\n")
    return config


def command_line(suite: Suite, formats: tuple[str, ...]) -> str:
    s = suite.settings
    parts = ["python", "-W", "error::RuntimeWarning", "-m", "speeduptest", "versions.csv",
             "--baseline", "v0", "-o", "out", "--format", ",".join(formats), "--debug",
             "--correction", s["correction"], "--threshold", repr(s["threshold"]),
             "--aggregate-interval", s["aggregate_interval"]]
    if s["bootstrap"] is not None:
        parts += ["--bootstrap", str(s["bootstrap"])]
    return shlex.join(parts)


def run_suite(suite: Suite, folder: Path, formats: tuple[str, ...]) -> None:
    for old in folder.iterdir():
        old.unlink()
    config = write_suite(suite, folder)
    settings = Settings(**suite.settings)
    run = RunInfo(command="speeduptest versions.csv --baseline v0",
                  started="2024-01-01 00:00:00 UTC")
    results = analyse_config(config, settings, None, run, workers=1, baseline="v0")
    if not results.several:
        raise TypeError(f"not the results of several versions: {results.versions}")
    # The CLI prints the terminal summary first, then renders.
    render_terminal(results, formats)
    files = render_formats(results, formats, workers=1)
    json.loads(strict_results_json(files))
    if suite.ordinary and not results.analysed:
        raise AssertionError("ordinary suite: nothing analysed")


def frames(error: BaseException) -> list[str]:
    where = [f"{frame.filename.split('/speeduptest/', 1)[-1]}:{frame.lineno}"
             for frame in traceback.extract_tb(error.__traceback__)
             if "/speeduptest/" in frame.filename]
    return where[-3:]


def all_frames(error: BaseException) -> list[str]:
    return [f"{Path(f.filename).name}:{f.lineno} in {f.name}"
            for f in traceback.extract_tb(error.__traceback__)][-6:]


def normal_message(message: str) -> str:
    return re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", message)[:160]


def signature(error: BaseException) -> tuple:
    return (type(error).__name__, normal_message(str(error)), tuple(frames(error)))


def attempt(suite: Suite, folder: Path, formats) -> BaseException | None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            run_suite(suite, folder, formats)
        except Exception as error:
            return error
    return None


def rerun_recording(suite: Suite, folder: Path, formats) -> tuple[str, list[str]]:
    """With warnings only recorded: does the suite then pass or crash?"""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            run_suite(suite, folder, formats)
            outcome = "passes"
        except Exception as error:
            outcome = f"crashes: {type(error).__name__}: {str(error)[:150]} at {frames(error)}"
    seen = sorted({f"{w.category.__name__}: {w.message} ({Path(w.filename).name}:{w.lineno})"
                   for w in caught})
    return outcome, seen


def shrink(suite: Suite, sig: tuple, folder: Path, formats, budget: float) -> Suite:
    """Greedy: drop benchmarks, versions (down to 3), values, simplify weights and settings,
    while the failure keeps its signature."""
    deadline = time.perf_counter() + budget

    def same(candidate: Suite) -> bool:
        if time.perf_counter() > deadline:
            return False
        if any(len(v) == 0 for b in candidate.benchmarks for v in b):
            return False
        error = attempt(candidate, folder, formats)
        return error is not None and signature(error) == sig

    best = suite.copy()
    changed = True
    while changed and time.perf_counter() < deadline:
        changed = False
        for i in range(len(best.benchmarks)):
            if len(best.benchmarks) > 1:
                c = best.copy()
                del c.benchmarks[i]
                del c.weights[i]
                if same(c):
                    best, changed = c, True
                    break
        if changed:
            continue
        versions = len(best.benchmarks[0])
        if versions > 3:
            for v in range(versions - 1, 0, -1):
                c = best.copy()
                for b in c.benchmarks:
                    del b[v]
                if same(c):
                    best, changed = c, True
                    break
        if changed:
            continue
        for i, w in enumerate(best.weights):
            if w != "1":
                c = best.copy()
                c.weights[i] = "1"
                if same(c):
                    best, changed = c, True
        for key, simple in (("bootstrap", 200), ("aggregate_interval", "delta"),
                            ("correction", "fcr"), ("threshold", 0.01)):
            if best.settings[key] != simple:
                c = best.copy()
                c.settings[key] = simple
                if same(c):
                    best, changed = c, True
        # values: halve, then one at a time
        for b in range(len(best.benchmarks)):
            for v in range(len(best.benchmarks[b])):
                values = best.benchmarks[b][v]
                chunk = max(1, len(values) // 2)
                while chunk >= 1 and time.perf_counter() < deadline:
                    removed = False
                    start = 0
                    while start < len(best.benchmarks[b][v]):
                        c = best.copy()
                        vals = c.benchmarks[b][v]
                        if len(vals) - chunk < 1:
                            break
                        del vals[start:start + chunk]
                        if same(c):
                            best, changed, removed = c, True, True
                        else:
                            start += chunk
                    if not removed:
                        chunk //= 2
        # values: round to simpler numbers of the same magnitude
        for b in range(len(best.benchmarks)):
            for v in range(len(best.benchmarks[b])):
                for j, x in enumerate(best.benchmarks[b][v]):
                    simple = float(f"{x:.1g}")
                    if simple != x and simple > 0:
                        c = best.copy()
                        c.benchmarks[b][v][j] = simple
                        if same(c):
                            best, changed = c, True
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suites", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pdf", action="store_true")
    parser.add_argument("--ordinary-every", type=int, default=10)
    parser.add_argument("--minutes", type=float, default=25)
    parser.add_argument("--save", type=Path, default=Path(tempfile.gettempdir()) / "fuzz_versions")
    parser.add_argument("--no-shrink", action="store_true")
    args = parser.parse_args()
    formats = ("json", "pdf") if args.pdf else ("json", "md", "csv", "tex", "html")
    rng = random.Random(args.seed)
    args.save.mkdir(parents=True, exist_ok=True)
    groups: dict[tuple, dict] = {}
    ordinary_failures = 0
    ran = ordinary_ran = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for number in range(args.suites):
            if time.perf_counter() - start > args.minutes * 60:
                print(f"time limit reached after {ran} suites", flush=True)
                break
            ordinary = args.ordinary_every > 0 and number % args.ordinary_every == 0
            suite = make_suite(rng, ordinary)
            ran += 1
            ordinary_ran += ordinary
            error = attempt(suite, folder, formats)
            if error is None:
                continue
            if ordinary:
                ordinary_failures += 1
            sig = signature(error)
            print(f"suite {number}{' (ordinary)' if ordinary else ''}: {type(error).__name__}: "
                  f"{str(error)[:200]} at {list(sig[2])}", flush=True)
            group = groups.setdefault(sig, {"suites": [], "example": None})
            group["suites"].append(number)
            if group["example"] is None:
                outcome, seen = rerun_recording(suite, folder, formats)
                small = suite if args.no_shrink else shrink(suite, sig, folder, formats, 120)
                again = attempt(small, folder, formats)
                where = args.save / f"group{len(groups)}"
                shutil.rmtree(where, ignore_errors=True)
                where.mkdir()
                write_suite(small, where)
                (where / "cmd.sh").write_text(command_line(small, formats) + "\n")
                group["example"] = {
                    "suite": number, "folder": str(where),
                    "traceback": "".join(traceback.format_exception(error)),
                    "tail": all_frames(error),
                    "without_error_filter": outcome, "warnings_recorded": seen,
                    "shrunk_reproduces": again is not None and signature(again) == sig,
                    "settings": small.settings, "command": command_line(small, formats),
                    "is_warning": isinstance(error, Warning),
                }
    elapsed = time.perf_counter() - start
    summary = {
        "suites": ran, "ordinary_suites": ordinary_ran, "ordinary_failures": ordinary_failures,
        "formats": formats, "seed": args.seed, "seconds": round(elapsed),
        "failures": sum(len(g["suites"]) for g in groups.values()),
        "groups": [{"type": s[0], "message": s[1], "frames": list(s[2]), "count": len(g["suites"]),
                    "suites": g["suites"], **g["example"]} for s, g in groups.items()],
    }
    (args.save / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"{ran} suites ({ordinary_ran} ordinary; {', '.join(formats)}) in {elapsed:.0f} s: "
          f"{summary['failures']} failed in {len(groups)} distinct places; "
          f"{ordinary_failures} ordinary suites failed", flush=True)


if __name__ == "__main__":
    main()

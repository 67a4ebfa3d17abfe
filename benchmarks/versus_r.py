"""`speeduptest --format json` against R's six tests on the same files, in the same run (issue 11).

Usage: python benchmarks/versus_r.py [--sizes 1000,10000] [--values 31] [--repeat 3]
                                     [--skip-r] [--extra-args="--bootstrap 1000"] [--check]

For each size, a synthetic config as benchmarks/throughput.py writes it (``make_config``), then
--repeat rounds, each running in a fresh process, one after the other (interleaved, so that a
change of machine load hits both sides alike):
  (a) python -m speeduptest CONFIG --quiet -o OUT --format json [--extra-args]
  (b) Rscript benchmarks/six_tests.R CONFIG R.csv  (the protocol's six tests in plain R)
Wall-clock seconds of the whole command (interpreter start and imports included), its CPU
seconds (user + system, the worker processes it waited for included: speeduptest uses a worker
per core, R one core) and its peak RSS (``os.wait4``'s rusage, taken by a small launcher
process: the high-water mark of the largest single process of the child's tree, not the sum
over speeduptest's workers). One line per size: best and median seconds of both, median CPU
seconds, R/ours (ratio of the best times, above 1: we are faster) and peak RSS in MiB (largest
over the rounds). --skip-r times ours alone (R takes minutes at 100,000). --check compares
the p-values of results.json with R's for the first 200 benchmarks (the t-test: the variant
results.json names) and prints the largest relative difference, per test and overall, after
the size's line.
--extra-args takes one string: write it with "=" when it starts with "--".
--also NAME=FOLDER (repeatable) times another source tree of speeduptest in the same rounds
(``PYTHONPATH=FOLDER``, e.g. a ``git worktree`` of an older commit), right after ours: one more
line per size, with its own R/theirs ratio against the same R runs.
Every tree's package is compiled to bytecode before the rounds (``compileall``), as
``pip install .`` does: a run then reads the bytecode, as an installed package's does, rather
than compiling its source, which a source tree pays at every run on a machine that sets
PYTHONDONTWRITEBYTECODE (as the development machine does: ~0.1 s of a 10,000-pair run).
--source-only times the trees as they are, without compiling them.
"""

from __future__ import annotations

import argparse
import compileall
import csv
import importlib.util
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from throughput import make_config

R_SCRIPT = Path(__file__).resolve().parent / "six_tests.R"
#: results.json test key -> column of six_tests.R's CSV (the t-test: by its variant).
CHECKED = {
    "shapiro_initial": "shapiro_initial",
    "shapiro_optimized": "shapiro_optimized",
    "f_test": "f_test",
    "t_test": None,
    "ks_test": "ks_test",
    "wilcoxon": "wilcoxon",
}
CHECKED_BENCHMARKS = 200
#: Runs argv[1:] (stdout discarded) and prints its wall-clock seconds, exit code, CPU seconds
#: (user + system, the children it waited for included) and peak RSS in KiB, from os.wait4.
#: Run in a fresh ``python -I -S`` rather than from here: Linux carries the high-water RSS of
#: the address space a process replaces at exec into its ru_maxrss, so every child spawned by
#: this script (numpy imported, config generated) would report at least this script's peak
#: (measured: /bin/true reports 311 MiB under a 300 MiB parent). The launcher's ~8 MiB is the
#: floor instead, below either side's own.
LAUNCHER = """
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[1], sys.argv[1:], os.environ,
                      file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - start
print(elapsed, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime,
      usage.ru_maxrss)
"""


def timed_child(command: list[str]) -> tuple[float, float, float]:
    """Wall-clock seconds, CPU seconds and peak RSS (MiB) of one child process, which must
    succeed; measured by LAUNCHER, in a small process of its own."""
    launched = subprocess.run([sys.executable, "-I", "-S", "-c", LAUNCHER, *command],
                              stdout=subprocess.PIPE, text=True, check=True)
    elapsed, code, cpu, peak_kib = launched.stdout.split()
    if int(code) != 0:
        raise SystemExit(f"failed with exit code {code}: {shlex.join(command)}")
    return float(elapsed), float(cpu), float(peak_kib) / 1024  # ru_maxrss: KiB on Linux


def ours_command(config: Path, out: Path, extra: list[str], tree: str | None = None
                 ) -> list[str]:
    """The command; ``tree``: the source tree to run it from (``env PYTHONPATH=tree``, and
    ``-P``: not the package in the current folder)."""
    prefix = [] if tree is None else ["env", f"PYTHONPATH={tree}"]
    isolated = [] if tree is None else ["-P"]
    return [*prefix, sys.executable, *isolated, "-m", "speeduptest", str(config), "--quiet",
            "-o", str(out), "--format", "json", *extra]


def r_command(config: Path, csv_path: Path) -> list[str]:
    return ["Rscript", str(R_SCRIPT), str(config), str(csv_path)]


def summary(timings: list[float], cpu: list[float], peaks: list[float]) -> str:
    return (f"best {min(timings):6.2f} s, median {statistics.median(timings):6.2f} s, "
            f"cpu {statistics.median(cpu):6.2f} s, peak {max(peaks):5.0f} MiB")


def r_p_value(cell: str) -> float | None:
    return None if cell in ("NA", "") else float(cell)


def relative_difference(ours: float | None, theirs: float | None) -> float:
    """|a − b| / max(|a|, |b|); 0 when both are missing or both 0, inf when one is missing."""
    if ours is None or theirs is None:
        return 0.0 if ours is None and theirs is None else math.inf
    scale = max(abs(ours), abs(theirs))
    return 0.0 if scale == 0 else abs(ours - theirs) / scale


def check(results_json: Path, r_csv: Path) -> str:
    """The largest relative difference of p-values, per test, over the first benchmarks."""
    with r_csv.open(newline="") as file:
        r_rows = {row["benchmark"]: row for row in csv.DictReader(file)}
    benchmarks = json.loads(results_json.read_text())["benchmarks"][:CHECKED_BENCHMARKS]
    worst: dict[str, tuple[float, str]] = {}
    variants: dict[str, int] = {}
    for benchmark in benchmarks:
        tests, row = benchmark.get("tests") or {}, r_rows[benchmark["name"]]
        for key, column in CHECKED.items():
            result = tests.get(key) or {}
            if key == "t_test":
                variant = result.get("variant") or "student"
                variants[variant] = variants.get(variant, 0) + 1
                column = f"t_{variant}"
            difference = relative_difference(result.get("p_value"), r_p_value(row[column]))
            if difference >= worst.get(key, (-1.0, ""))[0]:
                worst[key] = (difference, benchmark["name"])
    overall = max(worst.values())
    parts = ", ".join(f"{key} {value:.1e} ({name})" for key, (value, name) in worst.items())
    chosen = ", ".join(f"{count} {variant}" for variant, count in sorted(variants.items()))
    return (f"  check, {len(benchmarks)} benchmarks: largest relative difference of p-values "
            f"{overall[0]:.1e} ({overall[1]}); per test: {parts}; t-tests: {chosen}")


def compare(size: int, args: argparse.Namespace, extra: list[str]) -> None:
    """Interleaved rounds of ours and R on one synthetic config; prints one line (two with
    --check)."""
    with tempfile.TemporaryDirectory() as folder:
        config = make_config(Path(folder), size, args.values)
        # The new files written to disk before the rounds: the kernel's writeback of 200,000
        # of them would otherwise run during the first rounds (at 100,000 pairs: ~4 s of
        # processor time more per round).
        os.sync()
        out, r_csv = Path(folder) / "out", Path(folder) / "r.csv"
        ours: tuple[list[float], ...] = ([], [], [])  # seconds, CPU seconds, MiB per round
        theirs: tuple[list[float], ...] = ([], [], [])
        others = {name: ([], [], []) for name, _ in args.also}
        for _ in range(args.repeat):
            commands = [(ours, ours_command(config, out, extra))]
            commands += [(others[name], ours_command(config, Path(folder) / f"out-{name}",
                                                     extra, tree))
                         for name, tree in args.also]
            commands.append((theirs, None if args.skip_r else r_command(config, r_csv)))
            for side, command in commands:
                if command is not None:
                    for values, value in zip(side, timed_child(command), strict=True):
                        values.append(value)
        for name, side in (("ours", ours), *others.items()):
            line = f"{size:6d} pairs x {args.values} values: {name} {summary(*side)}"
            if theirs[0]:
                line += (f" | R {summary(*theirs)} | R/{name} "
                         f"{min(theirs[0]) / min(side[0]):.2f}x")
            print(line + f" ({args.repeat} rounds)", flush=True)
        if args.check:
            print(check(out / "results.json", r_csv), flush=True)


def compile_packages(trees: list[str]) -> None:
    """Bytecode for the speeduptest package of the current environment and of each tree, as
    ``pip install .`` writes it (stale files are rewritten: the interpreter checks each
    against its source)."""
    spec = importlib.util.find_spec("speeduptest")
    packages = [Path(spec.origin).parent] if spec and spec.origin else []
    packages += [Path(tree) / "speeduptest" for tree in trees]
    for package in packages:
        if not compileall.compile_dir(package, quiet=1):
            raise SystemExit(f"could not compile {package}")


def named_tree(text: str) -> tuple[str, str]:
    """NAME=FOLDER of --also: the name printed, and a source tree holding speeduptest/."""
    name, _, tree = text.partition("=")
    if not name or not (Path(tree) / "speeduptest").is_dir():
        raise argparse.ArgumentTypeError(f"not NAME=FOLDER with FOLDER/speeduptest: {text!r}")
    return name, str(Path(tree).resolve())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-r", action="store_true", help="time speeduptest alone")
    parser.add_argument("--extra-args", default="", help="options passed to speeduptest")
    parser.add_argument("--check", action="store_true",
                        help=f"compare p-values with R's on the first {CHECKED_BENCHMARKS}")
    parser.add_argument("--also", action="append", default=[], type=named_tree,
                        metavar="NAME=FOLDER",
                        help="time another source tree in the same rounds (repeatable)")
    parser.add_argument("--source-only", action="store_true",
                        help="do not compile the packages to bytecode first (each run then "
                             "compiles their source where PYTHONDONTWRITEBYTECODE is set)")
    args = parser.parse_args()
    if args.check and args.skip_r:
        parser.error("--check needs R's results: drop --skip-r")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    extra = shlex.split(args.extra_args)
    if not args.source_only:
        compile_packages([tree for _, tree in args.also])
    if not args.skip_r:
        version = subprocess.run(["Rscript", "--version"], capture_output=True, text=True,
                                 check=True)
        print(f"# {(version.stdout or version.stderr).strip()}; Python "
              f"{sys.version.split()[0]}; {os.cpu_count()} cores; speeduptest options: "
              f"--format json {shlex.join(extra)}"
              f"{'; source compiled at every run' if args.source_only else ''}".rstrip(),
              flush=True)
    for size in (int(s) for s in args.sizes.split(",")):
        compare(size, args, extra)


if __name__ == "__main__":
    main()

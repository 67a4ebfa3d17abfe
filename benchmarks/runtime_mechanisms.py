"""What each process-level speed mechanism of speeduptest/runtime/ buys, end to end (issue 24).

Usage: python benchmarks/runtime_mechanisms.py [--sizes 10000,100000] [--values 31]
           [--rounds 5] [--mechanisms prefetch,batch_child,...] [--reports 100]
           [--heavy 500x2000] [--folder DIR]

For each scenario, a synthetic config as benchmarks/throughput.py writes it (``make_config``),
then --rounds rounds; in each round, for each variant (a mechanism switched off,
``SPEEDUPTEST_WITHOUT=name``: the plain path it takes where it cannot be had; see
speeduptest/runtime/__init__.py), the whole command runs in a fresh process twice, right one
after the other: once as it is ("with") and once without (which comes first alternates from
round to round, the variants' order rotates), so that a drift of the shared machine's speed
hits both runs of a pair alike.
Scenarios:
  --sizes:   ``--format json``, N pairs of --values values, each variant of --mechanisms
             (default: all of them at once, then each alone; a+b: both at once)
  --reports: ``--format html,pdf,json``, N pairs of 31 values, ``parallel`` only (0: none)
  --heavy:   ``--format json``, NxV pairs of V values (their bootstrap goes to workers),
             ``parallel`` only (empty: none)
Each run's results.json is compared byte for byte with that of an untimed first run as it is
(which also warms the page cache): the mechanisms change speed only (the script stops
otherwise).

For each variant, the median wall-clock seconds of its runs, and its gain: what the mechanism
saves, as a share of the run's time without it, per pair ((without - with) / without), given
as the median and the quartiles over the rounds. Processor seconds (user + system of the
command and the children it waited for) in brackets. The load average is printed after each
round: the machine may be shared. --folder keeps the configs there (made once; 100,000 pairs
take a minute or two to write); otherwise they go to a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from throughput import make_config

from speeduptest.runtime import MECHANISMS, WITHOUT_VARIABLE

#: The variant run as it is.
WITH = "with"


@dataclass
class Scenario:
    name: str
    benchmarks: int
    values: int
    formats: str
    mechanisms: list[str]
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)
    #: By variant: the seconds of its runs and of the runs as it is beside them.
    pairs: dict[str, dict[str, list[float]]] = field(default_factory=dict)


def config_for(folder: Path, benchmarks: int, values: int) -> Path:
    """The config of ``benchmarks`` pairs of ``values`` values in ``folder`` (made if not
    there yet)."""
    place = folder / f"{benchmarks}x{values}"
    config = place / "config.csv"
    if not config.exists():
        shutil.rmtree(place, ignore_errors=True)
        place.mkdir(parents=True)
        started = time.perf_counter()
        made = make_config(place, benchmarks, values)
        print(f"  (wrote {made} in {time.perf_counter() - started:.0f} s)", flush=True)
    return config


def timed_run(config: Path, out: Path, formats: str, without: str | None
              ) -> tuple[float, float]:
    """Wall-clock and processor seconds of one run of the command, which must succeed
    and say nothing on stderr."""
    environment = dict(os.environ)
    environment.pop(WITHOUT_VARIABLE, None)
    if without is not None:
        environment[WITHOUT_VARIABLE] = without.replace("+", ",")
    command = [sys.executable, "-m", "speeduptest", str(config), "-o", str(out),
               "--format", formats, "--quiet"]
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors,
                                   env=environment)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        said = errors.read().decode(errors="replace")
    if process.returncode != 0 or said:
        raise SystemExit(f"{WITHOUT_VARIABLE}={without or ''} {' '.join(command)}: exit "
                         f"{process.returncode}\n{said}")
    return elapsed, usage.ru_utime + usage.ru_stime


def measure(scenario: Scenario, config: Path, work: Path, rounds: int) -> None:
    """--rounds rounds of every variant, each run right beside a run as it is, after an
    untimed run as it is (the page cache warmed, the reference results.json written)."""
    out = work / f"{scenario.name}-out"
    shutil.rmtree(out, ignore_errors=True)
    timed_run(config, out, scenario.formats, None)
    reference = (out / "results.json").read_bytes()
    variants = scenario.mechanisms
    for round_ in range(rounds):
        shift = round_ % len(variants)
        for variant in variants[shift:] + variants[:shift]:
            pair = [None, variant] if round_ % 2 == 0 else [variant, None]
            for without in pair:
                shutil.rmtree(out, ignore_errors=True)
                elapsed, cpu = timed_run(config, out, scenario.formats, without)
                if (out / "results.json").read_bytes() != reference:
                    raise SystemExit(f"{scenario.name}: results.json without {without} "
                                     "differs")
                key = WITH if without is None else without
                scenario.times.setdefault(key, []).append(elapsed)
                scenario.cpu.setdefault(key, []).append(cpu)
                scenario.pairs.setdefault(variant, {})[key] = (
                    [*scenario.pairs.get(variant, {}).get(key, []), elapsed])
        print(f"  round {round_ + 1}/{rounds} done, load {os.getloadavg()[0]:.2f}", flush=True)
    shutil.rmtree(out, ignore_errors=True)


def report(scenario: Scenario) -> list[str]:
    width = max(len("without " + variant) for variant in scenario.mechanisms)
    lines = [f"{scenario.name}: {scenario.benchmarks:,} pairs x {scenario.values} values, "
             f"--format {scenario.formats}; results.json identical in every run",
             f"  {'variant':<{width}} {'median s':>9} {'(cpu s)':>9}   {'gain':>7}  "
             f"{'quartiles of the gain':>22}  5% bar",
             f"  {WITH:<{width}} {statistics.median(scenario.times[WITH]):9.2f} "
             f"({statistics.median(scenario.cpu[WITH]):7.2f})"]
    for variant in scenario.mechanisms:
        pairs = scenario.pairs[variant]
        gains = [100 * (without - with_) / without
                 for without, with_ in zip(pairs[variant], pairs[WITH], strict=True)]
        gain = statistics.median(gains)
        low, _, high = (statistics.quantiles(gains, n=4) if len(gains) > 1
                        else (gain, gain, gain))
        lines.append(f"  {'without ' + variant:<{width}} {statistics.median(pairs[variant]):9.2f} "
                     f"({statistics.median(scenario.cpu[variant]):7.2f})   {gain:+6.1f}%  "
                     f"{low:+9.1f}% .. {high:+6.1f}%  {'passes' if gain >= 5 else 'below'}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--values", type=int, default=31)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mechanisms", default=",".join(["all", *MECHANISMS]),
                        help=f"of: {', '.join(MECHANISMS)}; 'all': every one at once; "
                        "a+b: both at once")
    parser.add_argument("--reports", type=int, default=100)
    parser.add_argument("--heavy", default="500x2000")
    parser.add_argument("--folder", type=Path)
    args = parser.parse_args()
    mechanisms = [name.strip() for name in args.mechanisms.split(",") if name.strip()]
    unknown = {name for variant in mechanisms for name in variant.split("+")} - {
        *MECHANISMS, "all"}
    if unknown:
        parser.error(f"not a mechanism: {', '.join(sorted(unknown))}")
    scenarios = [Scenario(f"json-{size}", size, args.values, "json", mechanisms)
                 for size in (int(s) for s in args.sizes.split(",") if s)]
    if args.reports:
        scenarios.append(Scenario(f"reports-{args.reports}", args.reports, 31,
                                  "html,pdf,json", ["parallel"]))
    if args.heavy:
        benchmarks, values = (int(part) for part in args.heavy.split("x"))
        scenarios.append(Scenario(f"heavy-{args.heavy}", benchmarks, values, "json",
                                  ["parallel"]))
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.folder or Path(temporary)
        work = Path(temporary)
        for scenario in scenarios:
            print(f"{scenario.name} (load {os.getloadavg()[0]:.2f}):", flush=True)
            config = config_for(folder, scenario.benchmarks, scenario.values)
            measure(scenario, config, work, args.rounds)
            print("\n".join(report(scenario)), flush=True)
    print(f"\nCPU count {os.cpu_count()}, {sys.version.split()[0]}; gain: (without - with) / "
          "without, per pair of runs, median over the rounds")


if __name__ == "__main__":
    main()

"""How long all formats (HTML, PDF, JSON) take for 20, 100 and 1,000 benchmarks, and how soon
the answer is on the terminal.

Usage: python benchmarks/reports.py [--sizes 20,100,1000] [--values 31]
Times the whole command in a fresh process (imports included), once per size: when the first
line of the answer is printed (beside a `--format json` run of the same config: the analysis
and results.json, nothing rendered), and when the command ends. Also prints the load average
before the run (the machine may be shared), the largest resident set of a process of the
run, and each file's size (and pages).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throughput import make_config, run_times


def first_line_and_total(config: Path, output: Path) -> tuple[float, float]:
    """Seconds until the command printed its first line, and until it ended."""
    start = time.perf_counter()
    with subprocess.Popen([sys.executable, "-m", "speeduptest", str(config), "-o", str(output)],
                          stdout=subprocess.PIPE, text=True) as process:
        process.stdout.readline()
        first = time.perf_counter() - start
        process.stdout.read()
    if process.returncode != 0:
        raise SystemExit(f"speeduptest exited with {process.returncode}")
    return first, time.perf_counter() - start


def pages(path: Path) -> str:
    if path.suffix != ".pdf":
        return ""
    import pypdf

    return f", {len(pypdf.PdfReader(path).pages)} p."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="20,100,1000")
    parser.add_argument("--values", type=int, default=31)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            config = make_config(Path(folder), size, args.values)
            out = Path(folder) / "out"
            (json_only,) = run_times(config, Path(folder) / "json", 1, "--format", "json")
            load = os.getloadavg()[0]
            first, elapsed = first_line_and_total(config, out)
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            files = ", ".join(f"{p.name} {p.stat().st_size / 2**20:.2f} MiB{pages(p)}"
                              for p in sorted(out.iterdir()))
        print(f"{size:5d} benchmarks x {args.values} values, html+pdf+json: {elapsed:6.1f} s; "
              f"first line of the answer at {first:.1f} s (--format json run: {json_only:.1f} s); "
              f"load before {load:.1f}; largest process {rss:.0f} MiB\n      {files}", flush=True)


if __name__ == "__main__":
    main()

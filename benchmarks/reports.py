"""How long all formats (HTML, PDF, JSON) take for 20, 100 and 1,000 benchmarks.

Usage: python benchmarks/reports.py [--sizes 20,100,1000] [--values 31]
Times the whole command in a fresh process (imports included), once per size.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from throughput import make_config, run_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="20,100,1000")
    parser.add_argument("--values", type=int, default=31)
    args = parser.parse_args()
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            config = make_config(Path(folder), size, args.values)
            out = Path(folder) / "out"
            (elapsed,) = run_times(config, out, 1)
            pages = {p.name: p.stat().st_size // 1024 for p in sorted(out.iterdir())}
        print(f"{size:5d} benchmarks x {args.values} values, html+pdf+json: {elapsed:6.1f} s  "
              f"(sizes KiB: {pages})", flush=True)


if __name__ == "__main__":
    main()

"""The docs' run-sequence picture (docs/images/jit-run-sequence.png) of tests/data/jit/node.csv.

Usage:

    speeduptest compare tests/data/jit/node.csv -o /tmp/jit --format json
    python benchmarks/jit_run_sequence_picture.py /tmp/jit/results.json \\
        docs/images/jit-run-sequence.png [--data tests/data/jit/node.csv]
        [--panel json:default --panel sort:default ...]

One panel per benchmark and version (``--panel BENCHMARK:VERSION``, repeatable; by default
the four of the docs' "Measurement validity" page): the version's invocations side by side,
each one's values in measurement order; the values that ``--warmup auto`` left out are grey,
each detected steady-state start is a red line, and the values above twice the version's
median are drawn at that ceiling as triangles. The classes and starts are read from the
results.json of ``speeduptest compare`` on the same CSV (the version compared first, in its
``input.compared``, is ``initial``, the second ``optimized``); the labels count iterations
from 1.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

PANELS = ("json:default", "sort:default", "regexp:default", "fib:default")
CEILING = 2.0  # values above CEILING × the median are drawn at the top (triangles)


def draw(results: dict, data: pd.DataFrame, panels: list[tuple[str, str]], output: Path
         ) -> None:
    versions = [name.rsplit("#", 1)[-1] for name in results["input"]["compared"]]
    role = dict(zip(versions, ("initial", "optimized"), strict=False))
    plt.rcParams.update({"font.size": 8})
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 1.75 * len(panels) + 0.2), dpi=100,
                             squeeze=False)
    for ax, (bench, version) in zip(axes[:, 0], panels, strict=True):
        found = next(b for b in results["benchmarks"] if b["name"] == bench)[role[version]]
        steady = found["steady_state"]
        rows = data[(data.benchmark == bench) & (data.version == version)]
        median = float(np.median(rows.value))
        ceiling = CEILING * median
        offset = 0
        for k, invocation in enumerate(sorted(rows.invocation.unique())):
            x = rows[rows.invocation == invocation].sort_values("iteration").value.to_numpy()
            n = len(x)
            where = offset + np.arange(n)
            kind, start = steady["classes"][k], steady["starts"][k]
            dropped = start if kind == "warmup" else 0
            shown = np.minimum(x, ceiling)
            over = x > ceiling
            for part, colour in ((slice(0, dropped), "0.72"), (slice(dropped, n), "C0")):
                keep = ~over[part]
                ax.scatter(where[part][keep], shown[part][keep], s=2, color=colour, lw=0)
                ax.scatter(where[part][~keep], shown[part][~keep], s=6, color=colour, lw=0,
                           marker="^")
            if kind == "warmup":
                ax.axvline(offset + start, color="C3", lw=1)
            label = f"inv {invocation}: " + (f"start {start + 1}" if kind == "warmup"
                                            else kind)
            ax.text(offset + n / 2, 0.96, label, transform=ax.get_xaxis_transform(),
                    ha="center", va="top", fontsize=7,
                    color="C3" if kind == "warmup" else "0.2")
            if k:
                ax.axvline(offset - 0.5, color="0.4", lw=0.6, ls=":")
            offset += n
        ax.set_ylim(0.9 * rows.value.min(), ceiling * 1.12)
        ax.set_xlim(-5, offset + 5)
        ax.set_ylabel("ms")
        ax.set_title(f"{bench} ({version}): {steady['dropped']} of {len(rows)} values left out",
                     fontsize=8, loc="left", pad=2)
        ax.set_xticks([])
    axes[-1, 0].set_xlabel("invocations side by side, iterations in measurement order  ·  "
                           "grey: left out (--warmup auto)  ·  red: detected steady-state "
                           "start  ·  ▲: above 2× the median, drawn at 2×")
    fig.tight_layout(h_pad=0.6)
    fig.savefig(output, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="results.json of speeduptest compare")
    parser.add_argument("output", type=Path, help="the PNG to write")
    parser.add_argument("--data", type=Path, default=Path("tests/data/jit/node.csv"),
                        help="the long CSV compared (default: %(default)s)")
    parser.add_argument("--panel", action="append", metavar="BENCHMARK:VERSION",
                        help=f"a panel (repeatable; default: {' '.join(PANELS)})")
    args = parser.parse_args()
    panels = [tuple(p.split(":", 1)) for p in (args.panel or PANELS)]
    results = json.loads(args.results.read_text())
    draw(results, pd.read_csv(args.data), panels, args.output)
    print("wrote", args.output)


if __name__ == "__main__":
    main()

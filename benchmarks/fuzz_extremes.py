"""Suites of extreme execution times through the whole analysis and every format: nothing may
crash, results.json must stay strict JSON, and no RuntimeWarning may reach the terminal.

Usage: python benchmarks/fuzz_extremes.py [--suites 300] [--seed 0] [--pdf]

Each suite has 1 to 3 benchmarks whose samples are drawn from kinds of times that break naive
arithmetic: all near 1e-300 or 1e300, spanning 1e-320 to 1e300, constant (1e-320, 1, 1e308),
ties, subnormals (5e-324), a mix of 1e-320, 1e5 and 1.7e308, or ordinary ones; weights of 1,
2, 1e300 or 1e-300; a random correction, threshold, aggregate interval and resample count.
It runs the analysis and renders JSON, Markdown, CSV, LaTeX, HTML (with --pdf: PDF instead,
slower) and the terminal summary, in-process, warnings raised as errors; "nan" in the words of
results.json or summary.md is a failure too. Prints each failure (exception and where) and
the count. tests/end_to_end/test_extremes.py runs a smaller hypothesis version of this on
every test run.
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
import time
import traceback
import warnings
from pathlib import Path

from speeduptest.analysis.run import analyse_config
from speeduptest.model.results import Settings
from speeduptest.output import Streamed
from speeduptest.render.formats import render_formats
from speeduptest.render.terminal import render_terminal

#: The kinds of samples drawn (``extreme_sample``); "ordinary" ones keep the harness honest.
KINDS = ["tiny", "huge", "spanning", "constant", "ties", "subnormal", "mix", "ordinary"]


def extreme_sample(rng: random.Random, kind: str | None = None) -> list[float]:
    """A sample of one of KINDS (drawn at random unless given)."""
    size = rng.choice([3, 4, 5, 7, 12, 31, 40])
    kind = kind or rng.choice(KINDS)
    if kind == "tiny":
        return [rng.uniform(1, 2) * 1e-300 for _ in range(size)]
    if kind == "huge":
        return [rng.uniform(1, 2) * 1e300 for _ in range(size)]
    if kind == "spanning":
        return [10 ** rng.uniform(-320, 300) for _ in range(size)]
    if kind == "constant":
        return [rng.choice([1e-320, 1.0, 1e308, 1.7e308])] * size
    if kind == "ties":
        return [rng.choice([1.0, 2.0]) for _ in range(size)]
    if kind == "subnormal":
        return [rng.choice([5e-324, 1e-320, 2e-310]) for _ in range(size)]
    if kind == "mix":
        return [rng.choice([1e-320, 1e5, 1.7e308]) for _ in range(size)]
    return [abs(rng.gauss(10, 1)) + 1e-9 for _ in range(size)]


def strict_results_json(files: dict) -> bytes:
    """results.json of rendered ``files``, raising if it is not strict JSON."""
    content = files["results.json"]
    text = b"".join(content) if isinstance(content, Streamed) else content
    if b"NaN" in text or b"Infinity" in text:
        raise ValueError("results.json is not strict JSON")
    return text


def run_suite(rng: random.Random, folder: Path, formats: tuple[str, ...]) -> None:
    rows = ["benchmark,initial,optimized,weight"]
    for index in range(rng.choice([1, 2, 3])):
        for side in ("i", "o"):
            values = [value for value in extreme_sample(rng) if value > 0]
            (folder / f"{index}{side}.txt").write_text("\n".join(map(repr, values)))
        weight = rng.choice(["1", "2", "1e300", "1e-300"])
        rows.append(f"b{index},{index}i.txt,{index}o.txt,{weight}")
    (folder / "c.csv").write_text("\n".join(rows) + "\n")
    settings = Settings(bootstrap=rng.choice([None, 200]),
                        aggregate_interval=rng.choice(["delta", "bootstrap"]),
                        correction=rng.choice(["fcr", "bonferroni", "none"]),
                        threshold=rng.choice([0.0, 0.01]))
    results = analyse_config(folder / "c.csv", settings)
    files = render_formats(results, formats, workers=1)
    text = strict_results_json(files)
    if re.search(rb"\bnan\b", text) or ("md" in formats and re.search(rb"\bnan\b",
                                                                      files["summary.md"])):
        raise ValueError("'nan' in the words of results.json or summary.md")
    render_terminal(results, formats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suites", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pdf", action="store_true")
    args = parser.parse_args()
    formats = ("json", "pdf") if args.pdf else ("json", "md", "csv", "tex", "html")
    rng = random.Random(args.seed)
    failures = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, warnings.catch_warnings():
        warnings.simplefilter("error")
        for suite in range(args.suites):
            for old in Path(folder).iterdir():
                old.unlink()
            try:
                run_suite(rng, Path(folder), formats)
            except Exception as error:  # every failure is reported, none stops the run
                failures += 1
                where = [f"{Path(frame.filename).name}:{frame.lineno}"
                         for frame in traceback.extract_tb(error.__traceback__)][-3:]
                print(f"suite {suite}: {type(error).__name__}: {error} at {where}")
    print(f"{args.suites} suites ({', '.join(formats)}) in {time.perf_counter() - start:.0f} s: "
          f"{failures} failed")


if __name__ == "__main__":
    main()

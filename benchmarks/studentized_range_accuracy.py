"""Accuracy of the studentized range p-values (Tukey HSD, Games–Howell) against a
high-precision mpmath reference, from the body of the distribution down to 1e-295, and their
cost.

Usage: python benchmarks/studentized_range_accuracy.py [--scipy]

The reference is tests/fixtures/studentized_range_reference.json (k = 3…10; df = 2, 2.5, 4,
7.3, 15, 40, 120, 1000, 1e5, ∞; 13 values of q per (k, df), aimed at p-values from 0.9 to
1e-295), written by tests/fixtures/generate_studentized_range_reference.py. Printed: the
largest relative error of P(Q > q) per degrees of freedom and per range of p-values, over all
k; the time of one p-value, of a table of 45 (k = 10) and of its 45 critical values.
``--scipy`` adds scipy.stats.studentized_range's errors on the same grid (slow: ~1 minute).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from speeduptest.stats import omnibus

REFERENCE = (Path(__file__).resolve().parents[1] / "tests" / "fixtures"
             / "studentized_range_reference.json")
BANDS = ((1e-6, 1.0), (1e-50, 1e-6), (1e-150, 1e-50), (1e-300, 1e-150))


def _table(cases: list[dict], errors: np.ndarray) -> None:
    log10_p = np.array([float(c["log_sf"]) / math.log(10) for c in cases])
    dfs = sorted({c["df"] if c["df"] is not None else math.inf for c in cases})
    print("| df | " + " | ".join(f"p in [{low:.0e}, {high:.0e})" for low, high in BANDS)
          + " |")
    print("|---|" + "---:|" * len(BANDS))
    for df in dfs:
        row = []
        for low, high in BANDS:
            chosen = [i for i, c in enumerate(cases)
                      if (c["df"] if c["df"] is not None else math.inf) == df
                      and math.log10(low) <= log10_p[i] < math.log10(high)]
            row.append(f"{errors[chosen].max():.1e}" if chosen else "—")
        print(f"| {df:g} | " + " | ".join(row) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scipy", action="store_true")
    args = parser.parse_args()
    cases = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]
    errors = np.empty(len(cases))
    for k in sorted({c["k"] for c in cases}):
        chosen = [i for i, c in enumerate(cases) if c["k"] == k]
        q = np.array([cases[i]["q"] for i in chosen])
        df = np.array([math.inf if cases[i]["df"] is None else cases[i]["df"] for i in chosen])
        expected = np.array([float(cases[i]["log_sf"]) for i in chosen])
        errors[chosen] = np.abs(np.expm1(omnibus.studentized_range_logsf(q, k, df) - expected))
    smallest = min(float(c["log_sf"]) for c in cases) / math.log(10)
    print(f"speeduptest: largest relative error {errors.max():.2g} over {len(cases)} cases "
          f"(k = 3…10, p from 0.9 down to 10^{smallest:.1f}), by df and p:")
    _table(cases, errors)

    rng = np.random.default_rng(0)
    q = rng.uniform(0.5, 10, 45)
    df = rng.uniform(5, 100, 45)
    omnibus.studentized_range_sf_many(q, 10, df)  # the table of k = 10, once
    started = time.perf_counter()
    for index in range(200):
        omnibus.studentized_range_sf(float(q[index % 45]), 10, float(df[index % 45]))
    one = (time.perf_counter() - started) / 200
    started = time.perf_counter()
    for _ in range(20):
        omnibus.studentized_range_sf_many(q, 10, df)
    many = (time.perf_counter() - started) / 20
    started = time.perf_counter()
    for shift in range(5):
        omnibus.studentized_range_isf_many(np.full(45, 0.05), 10, df + shift)
    quantiles = (time.perf_counter() - started) / 5
    print(f"\nTime: one p-value {one * 1e3:.2f} ms; 45 p-values at once {many * 1e3:.1f} ms; "
          f"45 critical values at once {quantiles * 1e3:.0f} ms.")

    if args.scipy:
        from scipy import stats

        found = np.empty(len(cases))
        for i, c in enumerate(cases):
            df_ = math.inf if c["df"] is None else c["df"]
            value = stats.studentized_range.sf(c["q"], c["k"], df_)
            expected = math.exp(float(c["log_sf"]))
            found[i] = abs(value / expected - 1) if expected > 0 else math.nan
        print("\nscipy.stats.studentized_range.sf, relative error by df and p:")
        _table(cases, found)


if __name__ == "__main__":
    main()

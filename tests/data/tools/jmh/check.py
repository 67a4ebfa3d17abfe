#!/usr/bin/env python3
"""Sanity check of the copied JMH files (see PROVENANCE.md): for every benchmark,
score == mean of all rawData values, percentiles 0/100 == min/max, median (odd n) matches,
len(rawData) == forks and each fork has measurementIterations values.
Usage: python3 check.py average-time.json throughput.json
"""
import json
import sys
from pathlib import Path

for fn in sys.argv[1:]:
    d = json.loads(Path(fn).read_text())
    for b in d:
        pm = b["primaryMetric"]
        vals = [v for fork in pm["rawData"] for v in fork]
        mean = sum(vals) / len(vals)
        pct = pm["scorePercentiles"]
        ok = (abs(mean - pm["score"]) <= 1e-9 * abs(pm["score"]) + 1e-12
              and min(vals) == pct["0.0"] and max(vals) == pct["100.0"]
              and len(pm["rawData"]) == b["forks"]
              and all(len(f) == b["measurementIterations"] for f in pm["rawData"]))
        # JMH median (Apache commons Percentile, default estimation) for odd n equals middle value
        s = sorted(vals)
        med_ok = (len(s) % 2 == 0) or s[len(s)//2] == pct["50.0"]
        print(fn, b["benchmark"].rsplit(".", 1)[1], b["mode"], pm["scoreUnit"], b["forks"],
              "x", b["measurementIterations"], "OK" if ok and med_ok else "MISMATCH", mean,
              pm["score"])

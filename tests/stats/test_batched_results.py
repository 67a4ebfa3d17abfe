"""The analysis with the benchmarks tested in batches writes the same results.json as one
pair at a time (batches of one)."""

from __future__ import annotations

import sys
from pathlib import Path

import speeduptest.analysis.benchmarks as analysis
from speeduptest.cli import main
from speeduptest.stats.protocol import (
    SlowdownCheck,
    is_small,
    mean_outcome,
    median_outcome,
    run_tests,
    summarise,
)

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config


def per_pair_parts(pairs, large_sample, groups=None):
    """The tests both ways and the summaries, computed pair by pair (the reverse protocol's
    verdicts from its tests' objects; the rank test's most favourable case searched for ties,
    the highest confidences computed, pair by pair: tie_free False, max_confidences None)."""
    parts = []
    for pair in pairs:
        x, y = pair.initial.top_level_means, pair.optimized.top_level_means
        reverse, small = run_tests(y, x), is_small(x.size, y.size, large_sample)
        slowdown = SlowdownCheck(*(outcome(reverse, small, pair.alpha)
                                   for outcome in (mean_outcome, median_outcome)))
        parts.append(analysis._BatchedParts(run_tests(x, y), slowdown,
                                            (summarise(x), summarise(y)), tie_free=False))
    return parts


def test_batched_and_per_pair_results_json_are_identical(tmp_path, monkeypatch):
    config = make_config(tmp_path, 300, 31, seed=5)
    # Sizes differ between benchmarks too: a few lose values, so the batches are split.
    for index in range(0, 300, 7):
        path = tmp_path / f"b{index}-optimized.txt"
        path.write_text("\n".join(path.read_text().split()[: 3 + index % 25]) + "\n")
    arguments = [str(config), "--format", "json", "--quiet", "--bootstrap", "100"]
    assert main([*arguments, "-o", str(tmp_path / "batched")]) == 0
    monkeypatch.setattr(analysis, "_batched_parts", per_pair_parts)
    assert main([*arguments, "-o", str(tmp_path / "per-pair")]) == 0
    batched = (tmp_path / "batched" / "results.json").read_bytes()
    assert batched == (tmp_path / "per-pair" / "results.json").read_bytes()

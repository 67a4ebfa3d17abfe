"""Overall figures: the paper's published numbers and the weighted aggregate."""

from __future__ import annotations

import numpy as np
import pytest

from speeduptest.stats.overall import overall_figures, required_benchmarks, wilson_interval
from speeduptest.stats.protocol import analyse_pair


@pytest.mark.parametrize(("a", "b", "confidence", "low", "high", "digits"), [
    (17, 30, 0.90, 0.4027, 0.7184, 4),
    (31, 45, 0.95, 0.532, 0.814, 3),
    (41, 54, 0.95, 0.621, 0.861, 3),
    (34, 34, 0.90, 0.901, 1.0, 3),
])
def test_published_proportion_intervals(a, b, confidence, low, high, digits):
    interval = wilson_interval(a, b, confidence)
    assert round(interval[0], digits) == low
    assert round(interval[1], digits) == high


@pytest.mark.parametrize(("a", "b", "expected"), [(31, 45, 330), (41, 54, 281)])
def test_published_required_benchmarks(a, b, expected):
    assert required_benchmarks(a / b, 0.95, 0.05) == expected


def test_overall_speedup_is_weighted_ratio_of_sums():
    rng = np.random.default_rng(3)
    pairs = []
    for initial, optimized, weight in ((10, 5, 1.0), (100, 90, 2.0), (1, 1.2, 0.5)):
        analysis = analyse_pair(rng.normal(initial, 0.01 * initial, 40),
                                rng.normal(optimized, 0.01 * optimized, 40))
        pairs.append((weight, analysis))
    overall = overall_figures(pairs, confidence=0.95, precision=0.05)
    for estimator in ("mean", "median", "min"):
        expected = (sum(w * getattr(a.initial, estimator) for w, a in pairs)
                    / sum(w * getattr(a.optimized, estimator) for w, a in pairs))
        figure = getattr(overall, estimator)
        assert figure.speedup == pytest.approx(expected, rel=1e-12)
        assert figure.gain == pytest.approx(1 - 1 / expected, rel=1e-12)
    assert overall.mean.proportion.accelerated == 2  # the third benchmark is slower
    assert overall.mean.proportion.total == 3
    assert not overall.mean.proportion.ci_valid  # 3 · 2/3 · 1/3 ≤ 5
    assert [n.code for n in overall.notices] == ["proportion-mean-inaccurate",
                                                 "proportion-median-inaccurate"]


def test_no_benchmark_gives_nulls():
    overall = overall_figures([], confidence=0.95, precision=0.05)
    assert overall.mean.speedup is None
    assert overall.mean.proportion.ci is None
    assert overall.mean.proportion.required_benchmarks is None

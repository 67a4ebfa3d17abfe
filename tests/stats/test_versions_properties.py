"""Invariants of the comparison of several versions (hypothesis): naming the versions in
another order permutes the results and changes nothing else; scaling every time by the same
factor changes no p-value, letter, rank or speedup."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from speeduptest.analysis.run import analyse_config
from speeduptest.model.results import Results, Settings

PROPERTY_SETTINGS = settings(max_examples=12, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow])


def _data(seed: int, k: int, b: int) -> dict[str, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    effects = rng.lognormal(0, 0.05, k)
    data = {}
    for v in range(k):
        data[f"v{v}"] = [np.round(rng.lognormal(np.log(effects[v] * (j + 1)), 0.03,
                                                int(rng.integers(5, 16))), 9)
                         for j in range(b)]
    return data


def _run(data: dict[str, list[np.ndarray]], order: list[str], baseline: str, scale: float = 1.0
         ) -> Results:
    folder = Path(tempfile.mkdtemp())
    b = len(next(iter(data.values())))
    lines = ["benchmark," + ",".join(order)]
    for j in range(b):
        cells = []
        for name in order:
            path = folder / f"{name}-{j}.txt"
            path.write_text("\n".join(repr(float(x) * scale) for x in data[name][j]) + "\n")
            cells.append(path.name)
        lines.append(f"b{j}," + ",".join(cells))
    (folder / "c.csv").write_text("\n".join(lines) + "\n")
    results = analyse_config(folder / "c.csv", Settings(bootstrap=200), baseline=baseline,
                             workers=1)
    assert results.several
    return results


def _by_name(results: Results) -> dict:
    """Everything that must not depend on the order of the versions, keyed by name."""
    summary: dict = {"ranking": [s.name for s in results.ranking],
                     "best": set(results.best)}
    for standing in results.standings:
        summary[("standing", standing.name)] = (
            standing.rank, standing.best,
            None if standing.geometric_mean is None else (
                standing.geometric_mean.value, standing.geometric_mean.low,
                standing.geometric_mean.high),
            None if standing.versus_best is None else (
                standing.versus_best.value, standing.versus_best.low,
                standing.versus_best.high))
    for benchmark in results.across:
        choice = benchmark.choice
        summary[("letters", benchmark.name)] = benchmark.letters
        summary[("omnibus", benchmark.name)] = (choice.route, choice.omnibus.p_value)
        for pair in choice.posthoc.pairs:
            names = frozenset((choice.names[pair.first], choice.names[pair.second]))
            summary[("pair", benchmark.name, names)] = (pair.p_value, pair.p_adjusted)
    for comparison in results.comparisons:
        for result, holm in zip(comparison.by_benchmark, comparison.holm, strict=True):
            summary[("holm", comparison.version, result.name)] = (
                holm.mean_adjusted, holm.median_adjusted, holm.mean_verdict)
            summary[("call", comparison.version, result.name)] = (
                result.change.call, result.change.low, result.change.high)
    return summary


def _close(first, second, relative: float) -> None:
    if isinstance(first, dict):
        assert first.keys() == second.keys()
        for key in first:
            _close(first[key], second[key], relative)
    elif isinstance(first, (tuple, list)):
        assert len(first) == len(second)
        for a, b in zip(first, second, strict=True):
            _close(a, b, relative)
    elif isinstance(first, float) and isinstance(second, float):
        assert first == pytest.approx(second, rel=relative, abs=1e-300)
    else:
        assert first == second


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(3, 5), b=st.integers(1, 3),
       permutation_seed=st.integers(0, 1000))
def test_relabelling_versions_permutes_the_results(seed, k, b, permutation_seed):
    data = _data(seed, k, b)
    names = list(data)
    order = list(np.random.default_rng(permutation_seed).permutation(names))
    first = _by_name(_run(data, names, "v0"))
    second = _by_name(_run(data, order, "v0"))
    _close(first, second, 1e-9)


@PROPERTY_SETTINGS
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(3, 4), b=st.integers(1, 2),
       exponent=st.integers(-200, 200))
def test_scaling_all_times_changes_nothing(seed, k, b, exponent):
    data = _data(seed, k, b)
    names = list(data)
    first = _by_name(_run(data, names, "v1"))
    second = _by_name(_run(data, names, "v1", scale=10.0 ** exponent))
    _close(first, second, 1e-7)

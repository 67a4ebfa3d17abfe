"""The protocol's tests of rows of pairs given their Shapiro–Wilk and KS arrays computed
beforehand, over a larger batch (protocol.protocol_arrays, as the batch child computes them),
are the tests computed on the rows alone: the same numbers, row by row."""

from __future__ import annotations

import numpy as np
import pytest

from speeduptest.stats.protocol import protocol_arrays, run_tests_and_slowdowns

_ALPHAS = [0.05, 0.01, 0.2, 0.5, 0.999, 1e-10]


def _batch(seed: int) -> tuple[np.ndarray, np.ndarray, list[float]]:
    rng = np.random.default_rng(seed)
    rows, n = int(rng.integers(1, 60)), int(rng.integers(2, 45))
    m = n if seed % 2 else int(rng.integers(2, 45))  # (equal sizes share the KS test)
    x = rng.lognormal(0, rng.choice([0.01, 0.1, 1.0]), (rows, n))
    y = rng.lognormal(rng.normal(0, 0.1), rng.choice([0.01, 0.1, 1.0]), (rows, m))
    kind = seed % 6
    if kind == 1:  # ties: the normal approximation of the rank test, KS's blocks
        x, y = np.round(x, 1), np.round(y, 1)
    elif kind == 2:  # a constant side: Shapiro–Wilk not computed
        x[0] = 1.0
    elif kind == 3:  # both constant and equal: no test computed
        x[0], y[0] = 1.0, 1.0
    elif kind == 4:  # tiny times
        x, y = x * 1e-300, y * 1e-300
    elif kind == 5:  # values that are not finite
        x[0, 0], y[-1, -1] = np.nan, np.inf
    return x, y, rng.choice(_ALPHAS, rows).tolist()


@pytest.mark.parametrize("seed", range(48))
def test_known_arrays_give_the_tests_of_the_rows(seed):
    x, y, alphas = _batch(seed)
    known = protocol_arrays(x, y)
    rng = np.random.default_rng(seed + 1000)
    # every row, then a subset of them in another order (the pairs a batch keeps)
    for rows in (np.arange(len(x)), rng.permutation(len(x))[:max(1, len(x) // 2)]):
        for small in (True, False):
            level = [alphas[row] for row in rows]
            expected = run_tests_and_slowdowns(x[rows], y[rows], small, level)
            found = run_tests_and_slowdowns(x[rows], y[rows], small, level,
                                            known.take(rows))
            assert repr(found) == repr(expected)


def test_many_rows_are_taken_in_chunks(monkeypatch):
    from speeduptest.stats import protocol

    monkeypatch.setattr(protocol, "CHUNK_VALUES", 64)  # (rows of 21 + 21 values: 1 a chunk)
    x, y, alphas = _batch(7)
    expected = run_tests_and_slowdowns(x, y, True, alphas)
    assert repr(run_tests_and_slowdowns(x, y, True, alphas, protocol_arrays(x, y))) == repr(
        expected)

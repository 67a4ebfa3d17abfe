"""The reverse protocol's verdicts and reasons read from the tests' arrays
(protocol.run_tests_and_slowdowns) are those that mean_outcome and median_outcome make of
the reverse tests' result objects (run_tests_both_ways), row by row; and the forward tests
are the same."""

from __future__ import annotations

import numpy as np
import pytest

from speeduptest.stats.protocol import (
    SlowdownCheck,
    mean_outcome,
    median_outcome,
    run_tests_and_slowdowns,
    run_tests_both_ways,
)

_ALPHAS = [0.05, 0.01, 0.2, 0.5, 0.999, 1e-10]


def _same_as_the_objects(x: np.ndarray, y: np.ndarray, small: bool, alphas: list[float]
                         ) -> None:
    forward, reverse = run_tests_both_ways(x, y)
    tests, checks = run_tests_and_slowdowns(x, y, small, alphas)
    assert tests == forward
    assert checks == [SlowdownCheck(mean_outcome(tests_, small, alpha),
                                    median_outcome(tests_, small, alpha))
                      for tests_, alpha in zip(reverse, alphas, strict=True)]


@pytest.mark.parametrize("seed", range(40))
def test_the_outcomes_of_the_reverse_tests(seed):
    rng = np.random.default_rng(seed)
    rows, n = int(rng.integers(1, 12)), int(rng.integers(3, 40))
    m = n if seed % 2 else int(rng.integers(3, 40))  # (equal sizes share the KS test)
    x = rng.lognormal(0, rng.choice([0.01, 0.1, 1.0]), (rows, n))
    y = rng.lognormal(rng.normal(0, 0.1), rng.choice([0.01, 0.1, 1.0]), (rows, m))
    kind = seed % 5
    if kind == 1:  # ties: the normal approximation of the rank test
        x, y = np.round(x, 1), np.round(y, 1)
    elif kind == 2:  # a constant side: Shapiro–Wilk and the F-test not computed
        x[0] = 1.0
    elif kind == 3:  # both constant and equal: no test computed
        x[0], y[0] = 1.0, 1.0
    elif kind == 4:  # tiny times
        x, y = x * 1e-300, y * 1e-300
    alphas = rng.choice(_ALPHAS, rows).tolist()
    for small in (True, False):
        _same_as_the_objects(x, y, small, alphas)


def test_rows_with_values_that_are_not_finite():
    rng = np.random.default_rng(3)
    x, y = rng.lognormal(0, 0.1, (4, 10)), rng.lognormal(0, 0.1, (4, 8))
    x[1, 3], y[2, 0] = np.nan, np.inf
    for small in (True, False):
        _same_as_the_objects(x, y, small, [0.05] * 4)

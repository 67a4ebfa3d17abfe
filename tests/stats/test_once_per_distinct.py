"""An elementwise function computed once per distinct value (stats.rowwise.once_per_distinct)
gives the bits of the function over the whole arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from speeduptest.stats.rowwise import once_per_distinct

_ODD = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-320, 1.0, 29.0, 30.0]


@pytest.mark.parametrize("seed", range(20))
def test_the_bits_of_the_whole_call(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 50))
    few = rng.choice(_ODD + rng.random(3).tolist(), size)
    one = np.full(size, rng.choice([*_ODD, 0.025, 0.005]))
    many = rng.random(size)
    for first, second in ((few, one), (one, few), (few, many), (one, one), (few, 0.025),
                          (30.0, few), (few[:1], one[:1]), (30.0, 0.025)):
        expected = special.stdtrit(first, second)
        found = once_per_distinct(special.stdtrit, first, second)
        assert np.shape(found) == np.shape(expected)
        assert (np.asarray(found).view(np.int64) == np.asarray(expected).view(np.int64)).all()

"""The batch's screen of the sides a timer may limit (analysis.resolution._maybe_limited):
it passes on every pair that has such a side, so that the step finds what it finds pair by
pair."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from speeduptest.analysis.resolution import TimerResolution, _limited, _maybe_limited
from speeduptest.analysis.transforms import ReadPair
from speeduptest.stats.hierarchy import Hierarchy

_VALUE = st.sampled_from([1.0, 1.5, 2.0, 0.0, -0.0, math.nan, math.inf, 1e-300, 1e300])
_SIDE = st.one_of(
    st.lists(_VALUE, min_size=0, max_size=6),
    st.lists(st.floats(0.5, 2.0), min_size=1, max_size=6),
    st.lists(st.lists(st.floats(0.5, 2.0), min_size=1, max_size=3), min_size=1, max_size=3))


def _hierarchy(values: list) -> Hierarchy:
    if values and isinstance(values[0], list):
        return Hierarchy.from_nested(values, ["invocation", "iteration"])
    return Hierarchy.flat(values)


def _pair(index: int, initial: list, optimized: list) -> ReadPair:
    return ReadPair(index, 1.0, 0.05, _hierarchy(initial), _hierarchy(optimized))


@given(st.lists(st.tuples(_SIDE, _SIDE), min_size=1, max_size=12))
def test_the_screen_keeps_every_pair_with_a_limited_side(sides):
    pairs = [_pair(index, *pair) for index, pair in enumerate(sides, start=1)]
    for pair, maybe in zip(pairs, _maybe_limited(pairs), strict=True):
        limited = any(_limited(side) is not None for side in (pair.initial, pair.optimized))
        assert maybe or not limited
        if all(side.depth == 1 for side in (pair.initial, pair.optimized)):
            assert maybe == limited  # one-level sides are screened exactly


def test_the_step_with_the_screen_finds_what_it_finds_pair_by_pair():
    rng = np.random.default_rng(1)
    sides = [(rng.normal(10, 1, 31).tolist(), rng.choice([1.0, 1.001], 29).tolist()),
             (rng.normal(10, 1, 31).tolist(), rng.normal(9, 1, 31).tolist()),
             ([2.0] * 5, rng.normal(9, 1, 7).tolist())]
    pairs = [_pair(index, *pair) for index, pair in enumerate(sides, start=1)]
    step = TimerResolution()
    found = [(pair.resolution, pair.notices) for pair in step(pairs)]
    alone = [(pair.resolution, pair.notices) for pair in
             (step([_pair(index, *pair)])[0] for index, pair in enumerate(sides, start=1))]
    assert found == alone
    assert [bool(notices) for _, notices in found] == [True, False, True]

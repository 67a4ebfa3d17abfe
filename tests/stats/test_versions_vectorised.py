"""The studentized range computed for a whole post-hoc table at once agrees with the one
p-value (quantile) at a time that the R fixtures check (speeduptest/versions.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from speeduptest.stats.omnibus import (
    studentized_range_isf,
    studentized_range_isf_many,
    studentized_range_sf,
    studentized_range_sf_many,
)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_many_p_values_agree_with_one_at_a_time(k):
    rng = np.random.default_rng(k)
    q = np.concatenate([rng.uniform(0.01, 12, 40), [0.0, -1.0, math.inf, 45.0]])
    df = np.concatenate([rng.uniform(2.5, 300, 40), [10.0, 10.0, 10.0, math.inf]])
    many = studentized_range_sf_many(q, k, df)
    for value, (qi, dfi) in zip(many, zip(q, df, strict=True), strict=True):
        assert value == pytest.approx(studentized_range_sf(float(qi), k, float(dfi)),
                                      rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_many_quantiles_agree_with_one_at_a_time(k):
    rng = np.random.default_rng(100 + k)
    p = np.concatenate([rng.uniform(0.001, 0.5, 12), [0.05, 1e-8]])
    df = np.concatenate([rng.uniform(2.2, 500, 12), [math.inf, 3.0]])
    many = studentized_range_isf_many(p, k, df)
    for value, (pi, dfi) in zip(many, zip(p, df, strict=True), strict=True):
        assert value == pytest.approx(studentized_range_isf(float(pi), k, float(dfi)),
                                      rel=1e-11)


def test_quantiles_reject_probabilities_outside_0_1():
    with pytest.raises(ValueError):
        studentized_range_isf_many(np.array([0.05, 1.0]), 3, np.array([10.0, 10.0]))

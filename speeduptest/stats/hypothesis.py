"""What the result of every hypothesis test has, in the manner of ``scipy.stats``.

Each test lives in a module of its own beside the result type it makes:
:mod:`~speeduptest.stats.normality` (Shapiro–Wilk), :mod:`~speeduptest.stats.parametric`
(F-test of variances, Student's and Welch's t-tests), :mod:`~speeduptest.stats.wilcoxon`
(Wilcoxon–Mann–Whitney) and :mod:`~speeduptest.stats.kolmogorov_smirnov` (two-sample
Kolmogorov–Smirnov); the k-version tests are in :mod:`~speeduptest.stats.omnibus`. Every one is
computed over the rows of arrays, one sample (or one pair of samples) per row, the single sample
being a batch of one. A result holds the statistic, the p-value, the alternative that was tested
and how the p-value was obtained; a test that is undefined for the data returns ``None`` for
them and a ``note`` that says why, never NaN.
"""

from __future__ import annotations

from typing import Literal

Alternative = Literal["two-sided", "greater", "less"]

#: Why a test needing a spread is not computed (Shapiro–Wilk, the rank test).
IDENTICAL_NOTE = "all values are identical"


class HypothesisTest:
    """Decision helpers shared by every result object (which all have ``p_value``)."""

    __slots__ = ()  # the results' own slots hold their fields (no instance dictionaries)
    p_value: float | None

    @property
    def computed(self) -> bool:
        return self.p_value is not None

    def rejects(self, alpha: float) -> bool:
        """Whether the null hypothesis is rejected at risk ``alpha`` (``p <= alpha``)."""
        return self.p_value is not None and self.p_value <= alpha

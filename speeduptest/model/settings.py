"""The settings of a run: the options of the command line (or of the API's ``Settings(…)``).

Its fields' defaults are the defaults of the run, and the only ones: the command line's
options take theirs from ``Settings()`` (and say them in their help), a config row without
its own confidence gets ``alpha``. The values themselves are in
:mod:`speeduptest.stats.defaults`, which the statistics' own keyword defaults read too.

A module of its own, light to import (:mod:`speeduptest.model.results` holds and re-exports
it): the command line builds its parsers from ``Settings()`` before scipy is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from speeduptest.floats import complement
from speeduptest.stats.defaults import (
    DEFAULT_AGGREGATE_INTERVAL,
    DEFAULT_ALPHA,
    DEFAULT_CORRECTION,
    DEFAULT_DEPENDENCE,
    DEFAULT_LARGE_SAMPLE,
    DEFAULT_PRECISION,
    DEFAULT_RESOLUTION,
    DEFAULT_SEED,
    DEFAULT_THRESHOLD,
    DEFAULT_WARMUP,
)

if TYPE_CHECKING:
    from speeduptest.stats.corrections import Correction


@dataclass(frozen=True, slots=True)
class Settings:
    alpha: float = DEFAULT_ALPHA
    proportion_confidence: float | None = None  # None: 1 - alpha
    precision: float = DEFAULT_PRECISION
    large_sample: int = DEFAULT_LARGE_SAMPLE
    # Resamples of each benchmark's bootstrap interval; None: effect_size.default_resamples
    # for the run's size (the analysis puts the number it used in the results' settings).
    bootstrap: int | None = None
    seed: int = DEFAULT_SEED
    threshold: float = DEFAULT_THRESHOLD  # τ: changes within ±τ are "unchanged"
    correction: Correction = DEFAULT_CORRECTION  # of the calls over the benchmarks
    fail_on_slowdown: bool = False  # exit status 3 when some call is "slower" (CI gating)
    # Left out of each invocation before the analysis: "auto" (its detected warm-up),
    # "none", or a number of first values.
    warmup: str = DEFAULT_WARMUP
    # Dependent values of a one-level sample: analysed as batch means ("batch") or as they
    # are ("ignore").
    dependence: str = DEFAULT_DEPENDENCE
    # How the aggregate intervals are made: "delta" (default) or "bootstrap".
    aggregate_interval: str = DEFAULT_AGGREGATE_INTERVAL
    # The timer's resolution (--resolution), the least uncertainty of the mean of a sample of
    # at most 3 distinct values; None: detected from their spacing.
    resolution: float | None = DEFAULT_RESOLUTION
    # Its unit: "s" (a duration, for the samples whose unit is known), or None (a number in
    # the unit the values were written in: the config's unit column, else the files' own,
    # seconds for a tool's files).
    resolution_unit: str | None = None

    @property
    def confidence(self) -> float:
        return complement(self.alpha)

    @property
    def effective_proportion_confidence(self) -> float:
        if self.proportion_confidence is not None:
            return self.proportion_confidence
        return complement(self.alpha)

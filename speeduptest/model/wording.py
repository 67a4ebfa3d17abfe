"""What the results mean for a reader: the words and labels of the methods, corrections and
reasons of the calls, and the way their numbers are written, shared by every renderer.

The renderers read the model and this vocabulary only, never :mod:`speeduptest.stats`
(pyproject.toml's import contracts check it). What the statistics write in their own
sentences (``Change.reason``, ``EffectSize.statement``) stays beside them, since they import
nothing of the model: the labels and formats those sentences use are re-exported from there,
so that a report and a reason always say the same thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# Used by the statistics' own sentences as well: they live there, and are the model's words.
from speeduptest.stats.change import (
    METHOD_LABELS,  # the methods of a call's interval, in words
    bound_texts,  # both ends of an interval with the digits that tell them apart
    percent_level,  # a confidence level as a percentage that stays below 100%
    threshold_band,  # the band (1/(1 + τ), 1 + τ) of speedups that count as no change
)
from speeduptest.stats.effect_size import (
    RATIO_WORDING,  # from this factor on, a change reads as a ratio (1.7× faster)
    change_words,  # a speedup as words: 5.5% faster, 3.1% slower, 1.7× faster
)
from speeduptest.stats.overall import (
    POPULATION_CAVEAT,  # what the population interval assumes of the benchmarks
    POPULATION_INTERVAL_COVERS,  # what a geometric mean's population interval covers
    SUITE_INTERVAL_COVERS,  # what its interval of measurement noise covers
    VALIDITY_THRESHOLD,  # b·C·(1 − C) above which a proportion's interval is not approximate
    proportion_shortfall,  # what is too few for a proportion's interval, in words
)

if TYPE_CHECKING:
    from speeduptest.stats.overall import ProportionEstimate

__all__ = ["CORRECTION_LABELS", "METHOD_LABELS", "POPULATION_CAVEAT",
           "POPULATION_INTERVAL_COVERS", "PROPORTION_APPROXIMATE", "RATIO_WORDING",
           "SUITE_INTERVAL_COVERS", "VALIDITY_THRESHOLD", "WHY",
           "bound_texts", "change_words", "percent_level", "proportion_caveat",
           "proportion_shortfall", "threshold_band"]

#: The corrections of the calls' intervals for the number of benchmarks, in words.
CORRECTION_LABELS = {"bonferroni": "Bonferroni", "fcr": "FCR (Benjamini–Yekutieli)",
                     "none": "no correction"}

#: Why a call is what it is, in a word (the keys are ``Change.why``); the sentence is
#: ``Change.reason``.
WHY = {"above": "interval above the band", "below": "interval below the band",
       "within": "interval within the band", "unbounded": "interval unbounded",
       "not-selected": "not selected by Benjamini–Hochberg",
       "few-resamples": "too few bootstrap resamples at this level",
       "includes-1": "interval includes 1", "spans-edge": "interval spans an edge of the band"}


#: When a proportion's interval is approximate, in general terms (the warnings give the numbers).
PROPORTION_APPROXIMATE = (
    "approximate: too few benchmarks (or too few accelerated, or not accelerated, ones) for "
    f"its normal approximation, which needs b·C·(1 − C) > {VALIDITY_THRESHOLD:g}")


def proportion_caveat(proportion: ProportionEstimate) -> str | None:
    """Why the interval of a proportion of accelerated benchmarks is approximate ("approximate:
    too few benchmarks for …"), or None when it is not (``ProportionEstimate.ci_valid``)."""
    if proportion.ci_valid or not proportion.total:
        return None
    return f"approximate: {proportion_shortfall(proportion)}"

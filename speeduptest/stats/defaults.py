"""The defaults of the analysis, each set here once.

The statistics' functions take them as their keyword defaults (``analyse_pair``,
``choose_omnibus``, ``decide_calls``), the run's :class:`speeduptest.model.settings.Settings`
as its fields' defaults, and the command line's options (and the help that says them) from
``Settings()``; a config row without its own confidence gets the run's α (``Settings.alpha``).
Here rather than beside the model: the statistics import nothing of it. Imports nothing.
"""

from __future__ import annotations

from typing import Final

#: The risk of every test (its confidence 1 − α), unless a config row sets its confidence.
DEFAULT_ALPHA: Final = 0.05
#: A sample is large (the protocol's large-sample tests apply) when it has more values than
#: this.
DEFAULT_LARGE_SAMPLE: Final = 30
#: Half-width wanted for the interval of the proportion of accelerated benchmarks.
DEFAULT_PRECISION: Final = 0.05
#: The seed of the random draws (the bootstrap): the same input gives the same results.
DEFAULT_SEED: Final = 0
#: A change smaller than 1% of the execution time is ignored by default (as Criterion does).
DEFAULT_THRESHOLD: Final = 0.01
#: benchmarks/false_alarms.py (README, "The call"): with no change FCR calls nothing just as
#: often as Bonferroni (the two coincide when BH selects nothing), and with real changes it
#: calls 64% of 3% speedups instead of 41%, while 0.09% of its calls are false.
DEFAULT_CORRECTION: Final = "fcr"
#: What is left out of each invocation's series before the analysis: its detected warm-up
#: ("auto"), nothing ("none"), or its first N values ("N"); see speeduptest.stats.steady and
#: benchmarks/warmup_detection.py for why auto is the default.
DEFAULT_WARMUP: Final = "auto"
#: Dependent values of a one-level sample (one invocation's iterations) are analysed as batch
#: means (see speeduptest.stats.steady), so that an A/A comparison of them calls nothing.
DEFAULT_DEPENDENCE: Final = "batch"
#: The aggregate intervals (geometric mean of the speedups, overall speedup) by the delta
#: method on their log, rather than the bootstrap.
DEFAULT_AGGREGATE_INTERVAL: Final = "delta"
#: No timer resolution given: it is detected from the spacing of the values of a sample that
#: takes at most 3 distinct values (speeduptest.stats.resolution), the only samples whose
#: mean it bounds.
DEFAULT_RESOLUTION: Final = None

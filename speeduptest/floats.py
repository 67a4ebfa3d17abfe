"""Floating-point matters of the analysis and of the reports, shared at the top (as the
notices are): the analysis, the input stage, the model, the runtime's children and the
renderers use them (the renderers import nothing of the statistics).

Infinities and NaN are results here, not accidents: numpy is told not to warn about them.
Times from 5e-324 to 1.7e308 overflow variances, sums and squares, and underflow ratios; the
analysis is written for it (a test not computed, an interval unbounded, an overall speedup
not given, null in results.json, an axis kept within the floats:
tests/end_to_end/test_extremes.py runs
suites of such times through every step). numpy's RuntimeWarnings about these values would
only be lines on the user's terminal that say nothing about the benchmarks. The state is
numpy's per thread (and per process), so each entry point of the analysis and of the figures
that may run in a thread or a worker of its own carries it.
"""

from __future__ import annotations

import numpy as np

#: Decorator (or context manager) for the functions that make the results and figures.
special_values_expected = np.errstate(all="ignore")


def complement(probability: float) -> float:
    """1 − p without binary noise: complement(0.95) is 0.05, not 0.050000000000000044."""
    return float(f"{1.0 - probability:.12g}")

"""The corrections of the calls' confidence levels for the number of benchmarks of a run
(Bonferroni; Benjamini & Yekutieli's false-coverage-rate intervals after Benjamini–Hochberg's
selection; none), and Holm's and Benjamini–Hochberg's adjusted p-values.

References
----------
Y. Benjamini, D. Yekutieli, "False discovery rate–adjusted multiple confidence intervals for
selected parameters", JASA 100(469), 2005.
Y. Benjamini, Y. Hochberg, "Controlling the false discovery rate", JRSS B 57(1), 1995.
S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 6, 1979.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Correction = Literal["bonferroni", "fcr", "none"]

CORRECTIONS: tuple[Correction, ...] = ("bonferroni", "fcr", "none")

#: The smallest risk accepted (option or config row): 1 − α must stay a number below 1 with
#: room for the corrections' α/b, so that every quantile stays finite.
SMALLEST_RISK = 1e-10

def selected_by_bh(p_values: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, int]:
    """Benjamini–Hochberg step-up selection at q = α; with a different α per benchmark, the
    step-up rule p_j ≤ R·α_j/b (which is BH when every α_j is the same)."""
    b = p_values.size
    # p_j ≤ r·α_j/b ⟺ s_j = p_j·b/α_j ≤ r: R is the largest r whose r-th smallest s is ≤ r.
    scaled = p_values * b / alphas
    passing = np.flatnonzero(np.sort(scaled) <= np.arange(1, b + 1))
    selections = int(passing[-1]) + 1 if passing.size else 0
    return scaled <= selections, selections

def corrected_confidence(p_values: np.ndarray, alphas: np.ndarray, correction: Correction
                         ) -> tuple[np.ndarray, np.ndarray, int]:
    """The confidence of each benchmark's call interval, which benchmarks may be called
    faster or slower, and R (the count BH selects; for other corrections, the count whose
    p-value is at most their interval's risk)."""
    b = p_values.size
    if correction == "none":
        confidence = 1 - alphas
    elif correction == "bonferroni":
        confidence = 1 - alphas / max(b, 1)
    elif correction == "fcr":
        selected, selections = selected_by_bh(p_values, alphas)
        return 1 - max(selections, 1) * alphas / max(b, 1), selected, selections
    else:
        raise ValueError(f"unknown correction {correction!r}; choose from {CORRECTIONS}")
    selected = p_values <= 1 - confidence
    return confidence, selected, int(np.count_nonzero(selected))

def adjusted_p_values(p_values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Holm's (1979) and Benjamini–Hochberg's (1995) adjustments, as R's ``p.adjust``.

    Written out (a cumulative maximum or minimum over the sorted p-values) because importing
    statsmodels' ``multipletests`` takes 0.3–1.7 s, more than the whole analysis of 10,000
    benchmarks; tests compare both with R and with statsmodels.
    """
    p = np.asarray(p_values, dtype=float)
    count = p.size
    if count == 0:
        return p, p
    order = np.argsort(p, kind="stable")
    ascending = p[order]
    holm = np.empty(count)
    holm[order] = np.minimum(np.maximum.accumulate((count - np.arange(count)) * ascending), 1)
    bh = np.empty(count)
    descending = (count / np.arange(count, 0, -1)) * ascending[::-1]
    bh[order[::-1]] = np.minimum(np.minimum.accumulate(descending), 1)
    return holm, bh

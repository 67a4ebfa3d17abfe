"""The parts of the results model that three or more versions add
(:class:`speeduptest.model.results.Results` holds them): plain data for the renderers.

- :class:`VersionsBenchmark`: one benchmark over all versions: each version's sample summary
  and top-level unit means, the omnibus test, post-hoc pairs and letters
  (:class:`speeduptest.stats.omnibus.OmnibusChoice`);
- :class:`HolmAdjusted`: a comparison's verdicts on one benchmark, Holm-adjusted over the
  benchmark's k − 1 comparisons with the baseline;
- :class:`VersionStanding`: one version across the benchmarks: its geometric mean speedup
  over the baseline, its rank, and how it compares with the best (:attr:`best`: the best, or
  tied with it).

Everything is computed before rendering (:mod:`speeduptest.analysis.versions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from speeduptest.notices import InputError, Notice
from speeduptest.stats.change import Call
from speeduptest.stats.overall import AggregateInterval
from speeduptest.stats.protocol import SampleSummary, Verdict
from speeduptest.stats.steady import SideValidity

if TYPE_CHECKING:  # (importing versions loads scipy.stats: not for two versions)
    from speeduptest.stats.omnibus import OmnibusChoice


@dataclass(frozen=True)
class HolmAdjusted:
    """The Speedup-Test verdicts of one version against the baseline on one benchmark, with
    their deciding p-values Holm-adjusted over the benchmark's k − 1 comparisons with the
    baseline (R's ``p.adjust(method = "holm")``): a verdict decided by its test stays
    significant only if the adjusted p-value ≤ α; an inconclusive verdict stays so."""

    comparisons: int  # m, the comparisons of this benchmark with a p-value
    mean_p: float | None  # the deciding t-test (one-sided: optimized faster)
    mean_adjusted: float | None
    mean_verdict: Verdict
    median_p: float | None  # the Wilcoxon–Mann–Whitney test
    median_adjusted: float | None
    median_verdict: Verdict


@dataclass(frozen=True)
class VersionsBenchmark:
    """One benchmark over all versions."""

    name: str
    weight: float | None
    alpha: float | None
    config_line: int | None
    versions: tuple[str, ...]  # every version of the run
    summaries: tuple[SampleSummary | None, ...]  # per version; None: not analysed
    choice: OmnibusChoice | None  # over the analysed versions (``choice.names``)
    unit: str | None = None
    errors: tuple[InputError, ...] = ()  # of any version (the comparisons have them too)
    notices: tuple[Notice, ...] = ()
    values: tuple[np.ndarray | None, ...] = field(default=(), repr=False, compare=False)
    # Per version: its measurement checks (None: not analysed).
    validity: tuple[SideValidity | None, ...] = field(default=(), repr=False, compare=False)

    @property
    def status(self) -> str:
        """"ok" when every version was analysed, "partial" when some were, else "error"."""
        analysed = sum(s is not None for s in self.summaries)
        if analysed == len(self.versions):
            return "ok"
        return "partial" if analysed >= 2 else "error"

    @property
    def letters(self) -> dict[str, str]:
        """Compact letters of the analysed versions ("a": the fastest), {} without a test."""
        return self.choice.letters() if self.choice is not None else {}


@dataclass(frozen=True)
class VersionStanding:
    """One version across the benchmarks analysed for every version.

    ``geometric_mean``: the weighted geometric mean of its speedups of the means over the
    baseline, with the delta-method interval at 1 − α (None for the baseline itself: 1).
    ``versus_best``: the weighted geometric mean of the best version's speedups over this
    one (≥ 1 by construction), with its delta-method interval at 1 − α/(k − 1) (Bonferroni
    over the k − 1 comparisons with the best), and ``versus_best_call`` that interval judged
    by the call's rule (threshold τ): the version is *tied with the best* unless the
    call is ``faster`` (the best is shown faster by more than τ).
    """

    name: str
    baseline: bool
    rank: int  # 1 = the highest geometric mean speedup over the baseline
    geometric_mean: AggregateInterval | None
    versus_best: AggregateInterval | None
    versus_best_call: Call | None
    best: bool  # the best, or tied with the best

    @property
    def speedup(self) -> float:
        return 1.0 if self.geometric_mean is None else self.geometric_mean.value

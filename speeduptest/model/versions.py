"""The results model of a comparison of several versions: plain data for the renderers.

- :class:`VersionsBenchmark`: one benchmark over all versions: each version's sample summary
  and top-level unit means, the omnibus test, post-hoc pairs and letters
  (:class:`speeduptest.stats.omnibus.OmnibusChoice`);
- :class:`VersionComparison`: one version against the baseline over every benchmark, with the
  whole two-version analysis (:class:`speeduptest.model.results.Results`) and, per benchmark, the
  Holm adjustment over the k − 1 comparisons with the baseline (:class:`HolmAdjusted`);
- :class:`VersionStanding`: one version across the benchmarks: its geometric mean speedup
  over the baseline, its rank, and how it compares with the best (:attr:`best`: the best, or
  tied with it);
- :class:`VersionsResults`: all of it.

Everything is computed before rendering (:mod:`speeduptest.analysis.versions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from speeduptest.model.results import (
    AggregateInterval,
    BenchmarkResult,
    InputError,
    InputFile,
    Results,
    RunInfo,
    SampleSummary,
    Settings,
    Unpaired,
    Verdict,
    unpaired_share,
)
from speeduptest.notices import Notice
from speeduptest.stats.change import Call
from speeduptest.stats.steady import SideValidity

if TYPE_CHECKING:  # (importing versions loads scipy.stats: not for two versions)
    from speeduptest.stats.omnibus import OmnibusChoice


@dataclass(frozen=True)
class VersionsSource:
    """What was analysed: a config (wide or long form), or result files of a tool."""

    label: str  # the config path, or the arguments of compare joined by ", "
    form: str  # "wide", "long" or "compare"
    references: tuple[str, ...] = ()  # compare: the arguments, one per version

    @property
    def config(self) -> bool:
        return self.form != "compare"

    @property
    def short(self) -> str:
        """For running titles: the config's file name, or the versions' file names."""
        if self.config:
            return Path(self.label).name
        return ", ".join(dict.fromkeys(Path(r.split("#")[0]).name for r in self.references))


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
class VersionComparison:
    """One version against the baseline: the two-version results over the benchmarks where
    both were read (``results``; calls corrected over every comparison of the run), and per
    benchmark of the run (aligned with :attr:`VersionsResults.benchmarks`) its result and
    Holm adjustment, ``None`` where the version has no such benchmark."""

    version: str
    baseline: str
    results: Results
    by_benchmark: tuple[BenchmarkResult | None, ...]
    holm: tuple[HolmAdjusted | None, ...]


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


@dataclass(frozen=True)
class VersionsResults:
    tool_version: str
    settings: Settings
    source: VersionsSource
    versions: tuple[str, ...]
    baseline: int
    benchmarks: tuple[VersionsBenchmark, ...]
    comparisons: tuple[VersionComparison, ...]  # every version but the baseline, in order
    standings: tuple[VersionStanding, ...]  # in the order of ``versions``
    common: tuple[int, ...]  # the benchmarks analysed for every version (the ranking's)
    notices: tuple[Notice, ...] = ()
    errors: tuple[InputError, ...] = ()
    input_files: tuple[InputFile, ...] = ()
    run: RunInfo | None = None
    unpaired: tuple[Unpaired, ...] = ()  # compare: benchmarks not matched with the baseline's

    @property
    def unpaired_share(self) -> float:
        """The share of the benchmarks named in the files that were not compared."""
        return unpaired_share(self.unpaired, len(self.benchmarks))

    @property
    def baseline_name(self) -> str:
        return self.versions[self.baseline]

    @property
    def ranking(self) -> tuple[VersionStanding, ...]:
        return tuple(sorted(self.standings, key=lambda s: s.rank))

    @property
    def best(self) -> tuple[str, ...]:
        """The best version and those tied with it, by rank."""
        return tuple(s.name for s in self.ranking if s.best)

    @property
    def analysed(self) -> tuple[VersionsBenchmark, ...]:
        return tuple(b for b in self.benchmarks if b.status != "error")

    @property
    def failed(self) -> tuple[VersionsBenchmark, ...]:
        return tuple(b for b in self.benchmarks if b.errors)

    def comparison(self, version: str) -> VersionComparison | None:
        return next((c for c in self.comparisons if c.version == version), None)

    @property
    def slower(self) -> tuple[tuple[str, BenchmarkResult], ...]:
        """(version, benchmark) called slower than the baseline (--fail-on-slowdown)."""
        return tuple((c.version, b) for c in self.comparisons for b in c.results.slower)

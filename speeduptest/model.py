"""The results model: plain data that flows from the analysis to the renderers.

Everything a report shows is in here, already computed; renderers only format it.

The classes made for every benchmark (here and the test, effect-size and call results they
hold) are dataclasses with slots but not frozen: a frozen dataclass sets each field through
``object.__setattr__``, which for the ~50 objects of each benchmark cost 0.2-0.3 s of a
10,000-benchmark run (2.58 -> 2.29 s, median of 8 interleaved runs). Nothing changes them once
built (tests/test_model_read_only.py checks that rendering leaves them as they were). The
classes made once per run, and the notices and errors (used as dictionary keys), stay frozen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from .change import CALLS, DEFAULT_CORRECTION, DEFAULT_THRESHOLD, Call, Change, Correction
from .effect_size import DEFAULT_AGGREGATE_INTERVAL, EffectSize
from .floats import complement
from .notices import InputError, Notice
from .stattests import FTestResult, KSResult, ShapiroResult, TTestResult, WilcoxonResult

Verdict = Literal["significant", "not_significant", "inconclusive"]
Status = Literal["ok", "error"]


@dataclass(slots=True)
class SampleSummary:
    n: int
    mean: float
    median: float
    min: float
    max: float
    std: float | None


@dataclass(slots=True)
class Speedups:
    """ET(initial) / ET(optimized) for each execution-time estimator."""

    mean: float
    median: float
    min: float


@dataclass(slots=True)
class ProtocolTests:
    """Every test of the protocol, computed once; decisions at any risk level read them."""

    shapiro_initial: ShapiroResult
    shapiro_optimized: ShapiroResult
    f_test: FTestResult
    t_student: TTestResult
    t_welch: TTestResult
    ks: KSResult
    wilcoxon: WilcoxonResult

    def t_test_at(self, alpha: float) -> TTestResult:
        """Student's test unless the F-test rejects equal variances at ``alpha``."""
        return self.t_welch if self.f_test.rejects(alpha) else self.t_student

    def p_values(self) -> list[float]:
        tests = (self.shapiro_initial, self.shapiro_optimized, self.f_test, self.t_student,
                 self.t_welch, self.ks, self.wilcoxon)
        return [test.p_value for test in tests if test.p_value is not None]


@dataclass(slots=True)
class Decision:
    """The outcome of one decision tree at one risk level, with the path taken in words."""

    verdict: Verdict
    reason: str  # the deciding fact in a few words, e.g. "Welch's t-test p = 0.23 > α"
    steps: tuple[str, ...]
    notices: tuple[Notice, ...] = ()


@dataclass(slots=True)
class PairAnalysis:
    """The Speedup-Test protocol applied to one initial/optimized pair."""

    alpha: float
    large_sample: int
    small: bool
    initial: SampleSummary
    optimized: SampleSummary
    speedup: Speedups
    tests: ProtocolTests
    mean: Decision
    median: Decision
    mean_max_confidence: float | None
    median_max_confidence: float | None
    sample_notices: tuple[Notice, ...] = ()
    # The measurements themselves, for the distribution figures of the reports.
    initial_values: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False,
                                       compare=False)
    optimized_values: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False,
                                         compare=False)

    @property
    def notices(self) -> tuple[Notice, ...]:
        return self.sample_notices + self.mean.notices + self.median.notices

    @property
    def probability_faster(self) -> float | None:
        """P(optimized faster than initial) over all pairs of runs (ties count half): the
        Wilcoxon–Mann–Whitney statistic divided by n·m."""
        statistic = self.tests.wilcoxon.statistic
        return None if statistic is None else statistic / (self.initial.n * self.optimized.n)


@dataclass(slots=True)
class SlowdownCheck:
    """The protocol run with initial and optimized swapped, for every benchmark: is the
    optimized version significantly *slower*? Verdicts and reasons only (no steps or
    warnings: what reports show of the reverse protocol)."""

    mean: Decision
    median: Decision

    @property
    def significant(self) -> bool:
        return "significant" in (self.mean.verdict, self.median.verdict)


@dataclass(slots=True)
class BenchmarkResult:
    name: str
    weight: float | None
    alpha: float | None
    config_line: int | None
    initial_path: str | None
    optimized_path: str | None
    analysis: PairAnalysis | None = None
    effect: EffectSize | None = None
    slowdown: SlowdownCheck | None = None
    change: Change | None = None  # the call (faster, slower, unchanged, uncertain)
    design: str | None = None  # how hierarchical samples were reduced, in words
    errors: tuple[InputError, ...] = ()
    unit: str | None = None  # "s" when the files stated their unit; None: as in the files
    input_notes: tuple[str, ...] = ()  # how the files were read, e.g. warm-ups left out
    input_notices: tuple[Notice, ...] = ()  # warnings about how the files' values were used

    def analysed(self, analysis: PairAnalysis, effect: EffectSize, slowdown: SlowdownCheck,
                 change: Change, design: str | None) -> BenchmarkResult:
        """This benchmark as read, with its analysis and call (built in one go: a
        ``dataclasses.replace`` costs 10 µs, 0.1 s for 10,000 benchmarks)."""
        return BenchmarkResult(
            name=self.name, weight=self.weight, alpha=self.alpha, config_line=self.config_line,
            initial_path=self.initial_path, optimized_path=self.optimized_path,
            analysis=analysis, effect=effect, slowdown=slowdown, change=change, design=design,
            errors=self.errors, unit=self.unit, input_notes=self.input_notes,
            input_notices=self.input_notices)

    @property
    def notices(self) -> tuple[Notice, ...]:
        """Every warning of this benchmark: the input's, the protocol's, the effect size's."""
        protocol = self.analysis.notices if self.analysis else ()
        return (self.input_notices + protocol + (self.effect.notices if self.effect else ())
                + (self.change.notices if self.change else ()))

    @property
    def status(self) -> Status:
        return "ok" if self.analysis is not None and not self.errors else "error"


@dataclass(frozen=True, slots=True)
class ProportionEstimate:
    """How many benchmarks were accelerated, with a confidence interval for the proportion."""

    accelerated: int
    total: int
    proportion: float | None
    confidence: float
    ci: tuple[float, float] | None
    ci_valid: bool
    required_benchmarks: int | None


@dataclass(frozen=True, slots=True)
class AggregateInterval:
    """A speedup over all benchmarks with its confidence interval, and the method that made
    it: "delta" (the delta method on the log, the default) or "bootstrap"."""

    definition: str
    value: float
    low: float
    high: float
    confidence: float
    method: str = "delta"


@dataclass(frozen=True, slots=True)
class OverallFigure:
    """Weighted overall speedup and gain for one execution-time estimator."""

    speedup: float | None
    gain: float | None
    proportion: ProportionEstimate | None = None
    interval: AggregateInterval | None = None  # for the mean only


@dataclass(frozen=True, slots=True)
class CallCounts:
    """How many analysed benchmarks got each call, and how the calls were made."""

    faster: int
    slower: int
    unchanged: int
    uncertain: int
    threshold: float
    correction: Correction

    @classmethod
    def of(cls, changes: list[Change], threshold: float, correction: Correction) -> CallCounts:
        counts = {call: sum(change.call == call for change in changes) for call in CALLS}
        return cls(**counts, threshold=threshold, correction=correction)

    @property
    def total(self) -> int:
        return self.faster + self.slower + self.unchanged + self.uncertain


@dataclass(frozen=True, slots=True)
class Overall:
    mean: OverallFigure
    median: OverallFigure
    min: OverallFigure
    geometric_mean: AggregateInterval | None = None
    calls: CallCounts | None = None
    # The geometric mean's interval judged as a benchmark's is (the call's rule, uncorrected).
    call: Call | None = None
    caveat: str = ""
    notices: tuple[Notice, ...] = ()


@dataclass(frozen=True, slots=True)
class Settings:
    alpha: float = 0.05
    proportion_confidence: float | None = None  # None: 1 - alpha
    precision: float = 0.05
    large_sample: int = 30
    # Resamples of each benchmark's bootstrap interval; None: effect_size.default_resamples
    # for the run's size (the analysis puts the number it used in the results' settings).
    bootstrap: int | None = None
    seed: int = 0
    threshold: float = DEFAULT_THRESHOLD  # τ: changes within ±τ are "unchanged"
    correction: Correction = DEFAULT_CORRECTION  # of the calls over the benchmarks
    fail_on_slowdown: bool = False  # exit status 3 when some call is "slower" (CI gating)
    # How the aggregate intervals are made: "delta" (default) or "bootstrap".
    aggregate_interval: str = DEFAULT_AGGREGATE_INTERVAL

    @property
    def confidence(self) -> float:
        return complement(self.alpha)


    @property
    def effective_proportion_confidence(self) -> float:
        if self.proportion_confidence is not None:
            return self.proportion_confidence
        return complement(self.alpha)


@dataclass(slots=True)
class InputFile:
    """An input file of the run, with its checksum for the reproducibility block."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class RunInfo:
    """How this run was started; shown in the reports, kept out of results.json so that the
    same input and seed give a byte-identical file."""

    command: str
    started: str  # ISO 8601, UTC


@dataclass(frozen=True, slots=True)
class Source:
    """What was analysed: a config file, or two result files paired by benchmark name."""

    label: str  # the config path, or "INITIAL vs OPTIMIZED"
    config: bool = False
    compared: tuple[str, str] | None = None

    @property
    def short(self) -> str:
        """For running titles: file names without folders, or with as many of their last
        folders as tell two compared files apart (a/results.json vs b/results.json)."""
        if self.compared:
            parts = [Path(path).parts for path in self.compared]
            depth = 1
            while (parts[0][-depth:] == parts[1][-depth:]
                   and depth < min(len(parts[0]), len(parts[1]))):
                depth += 1
            return " vs ".join(str(Path(*p[-depth:])) for p in parts)
        return Path(self.label).name


@dataclass(frozen=True, slots=True)
class Results:
    tool_version: str
    settings: Settings
    source: Source
    benchmarks: tuple[BenchmarkResult, ...]
    overall: Overall
    notices: tuple[Notice, ...] = ()
    errors: tuple[InputError, ...] = ()
    input_files: tuple[InputFile, ...] = ()
    run: RunInfo | None = None

    @property
    def analysed(self) -> tuple[BenchmarkResult, ...]:
        return tuple(b for b in self.benchmarks if b.status == "ok")

    @property
    def failed(self) -> tuple[BenchmarkResult, ...]:
        return tuple(b for b in self.benchmarks if b.status == "error")

    @property
    def input_notices(self) -> tuple[Notice, ...]:
        """Run-wide warnings about the input (unused config columns, unpaired benchmarks),
        as opposed to the overall figures' caveats."""
        return tuple(notice for notice in self.notices if notice not in self.overall.notices)

    @property
    def slower(self) -> tuple[BenchmarkResult, ...]:
        """Benchmarks called slower: the ones that fail a CI job (--fail-on-slowdown)."""
        return tuple(b for b in self.benchmarks if b.change and b.change.call == "slower")

    def to_dataframe(self):
        """One row per benchmark as a pandas DataFrame (columns as in results.csv)."""
        import pandas as pd

        from .table_rows import CSV_COLUMNS, benchmark_rows

        return pd.DataFrame(benchmark_rows(self), columns=list(CSV_COLUMNS))

"""The results model: plain data that flows from the analysis to the renderers.

Everything a report shows is in here, already computed; renderers only format it.

The classes made for every benchmark (here and the test, effect-size and call results they
hold) are dataclasses with slots but not frozen: a frozen dataclass sets each field through
``object.__setattr__``, which for the ~50 objects of each benchmark cost 0.2-0.3 s of a
10,000-benchmark run (2.58 -> 2.29 s, median of 8 interleaved runs). Nothing changes them once
built (tests/render/test_model_read_only.py checks that rendering leaves them as they were). The
classes made once per run, and the notices and errors (used as dictionary keys), stay frozen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from speeduptest.model import display
from speeduptest.model.settings import Settings  # (its own module: the command line reads it)
from speeduptest.notices import InputError, Notice

# The results of the protocol, of its tests, of the effect sizes, of the calls and of the
# overall figures live beside the code that makes them; the model holds them.
from speeduptest.stats.change import Change
from speeduptest.stats.effect_size import EffectSize, RatioInterval  # noqa: F401
from speeduptest.stats.hierarchy import VarianceComponents  # noqa: F401
from speeduptest.stats.kolmogorov_smirnov import KSResult  # noqa: F401
from speeduptest.stats.normality import ShapiroResult  # noqa: F401
from speeduptest.stats.overall import (  # noqa: F401
    AggregateInterval,
    CallCounts,
    Overall,
    OverallFigure,
    ProportionEstimate,
)
from speeduptest.stats.parametric import FTestResult, TTestResult  # noqa: F401
from speeduptest.stats.protocol import (  # noqa: F401
    Decision,
    PairAnalysis,
    ProtocolTests,
    SampleSummary,
    SlowdownCheck,
    Speedups,
    Status,
    Verdict,
)
from speeduptest.stats.steady import (  # noqa: F401
    MIN_SERIES,
    ORDER_ALPHA,
    Dependence,
    OrderTest,
    SideValidity,
)
from speeduptest.stats.wilcoxon import WilcoxonResult  # noqa: F401

if TYPE_CHECKING:  # (three or more versions' parts: types only)
    from speeduptest.model.versions import HolmAdjusted, VersionsBenchmark, VersionStanding


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
    # The measurement checks of the initial and optimized samples (steady state, dependence,
    # order), and what of them was analysed.
    validity: tuple[SideValidity, SideValidity] | None = None

    @property
    def notices(self) -> tuple[Notice, ...]:
        """Every warning of this benchmark: the input's, the protocol's, the effect size's."""
        protocol = self.analysis.notices if self.analysis else ()
        return (self.input_notices + protocol + (self.effect.notices if self.effect else ())
                + (self.change.notices if self.change else ()))

    @property
    def status(self) -> Status:
        return "ok" if self.analysis is not None and not self.errors else "error"


@dataclass(slots=True)
class InputFile:
    """An input file of the run, with its checksum for the reproducibility block."""

    path: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Unpaired:
    """Benchmarks of one result file with no counterpart, by name, in another (``compare``
    pairs by name): not compared."""

    file: str  # the file that has them, as given
    other: str  # the file without them
    names: tuple[str, ...]
    # Per name, the other file's unpaired benchmark it most likely is (the same name in
    # another case, or a close spelling; None: none), for the first names only.
    close: tuple[str | None, ...] = ()

    def suggestions(self) -> list[tuple[str, str]]:
        """(name, the other file's close name) where there is one."""
        return [(name, close) for name, close in zip(self.names, self.close, strict=False)
                if close is not None]


def unpaired_share(unpaired: Sequence[Unpaired], compared: int) -> float:
    """Benchmarks not compared over all those named: compared ones and unpaired ones."""
    left_out = sum(len(group.names) for group in unpaired)
    return left_out / (left_out + compared) if left_out else 0.0


@dataclass(frozen=True, slots=True)
class RunInfo:
    """How this run was started; shown in the reports, kept out of results.json so that the
    same input and seed give a byte-identical file."""

    command: str
    started: str  # ISO 8601, UTC


#: The versions of a two-version config.
DEFAULT_NAMES = ("initial", "optimized")


@dataclass(frozen=True, slots=True)
class Source:
    """What was analysed: a config (its path and form), or result files of a tool."""

    label: str  # the config's path; compare: its arguments, joined by ", "
    form: str  # "pair" (two-column config), "wide", "long" or "compare"
    references: tuple[str, ...] = ()  # compare: the arguments, one per version, in order
    # Two versions: their names (baseline, other) where the user knows them by names other
    # than initial and optimized ("default", "JIT"; a wide config's columns); None: initial
    # and optimized.
    names: tuple[str, str] | None = None
    baseline: int = 0  # compare: the baseline's argument among the references

    @property
    def config(self) -> bool:
        return self.form != "compare"

    @property
    def compared(self) -> tuple[str, str] | None:
        """Compare of two versions: the baseline's file, then the other's; else None."""
        if self.config or len(self.references) != 2:
            return None
        return self.references[self.baseline], self.references[1 - self.baseline]

    @property
    def short(self) -> str:
        """For running titles: the config's file name; compare of two versions: their
        names, else the files' names without folders, or with as many of their last folders
        as tell them apart (a/results.json vs b/results.json); of more: the files' names."""
        if self.config:
            return Path(self.label).name
        if self.names:
            return f"{self.names[0]} vs {self.names[1]}"
        if self.compared:
            parts = [Path(path).parts for path in self.compared]
            depth = 1
            while (parts[0][-depth:] == parts[1][-depth:]
                   and depth < min(len(parts[0]), len(parts[1]))):
                depth += 1
            return " vs ".join(str(Path(*p[-depth:])) for p in parts)
        return ", ".join(dict.fromkeys(Path(r.split("#")[0]).name for r in self.references))


@dataclass(frozen=True, slots=True)
class Comparison:
    """One version against the baseline over the benchmarks both have: each benchmark's
    Speedup-Test protocol, effect size and call (``benchmarks``; the calls corrected over
    every comparison of the run) and the overall figures of these benchmarks."""

    baseline: str
    version: str
    benchmarks: tuple[BenchmarkResult, ...]
    overall: Overall
    # Three or more versions: per benchmark of the run (aligned with Results.across) its
    # result and its verdicts Holm-adjusted over the benchmark's comparisons with the
    # baseline; None where this version has no such benchmark.
    by_benchmark: tuple[BenchmarkResult | None, ...] = ()
    holm: tuple[HolmAdjusted | None, ...] = ()

    @property
    def notices(self) -> tuple[Notice, ...]:
        """The caveats of its overall figures."""
        return self.overall.notices

    @property
    def analysed(self) -> tuple[BenchmarkResult, ...]:
        return tuple(b for b in self.benchmarks if b.status == "ok")

    @property
    def failed(self) -> tuple[BenchmarkResult, ...]:
        return tuple(b for b in self.benchmarks if b.status == "error")

    @property
    def slower(self) -> tuple[BenchmarkResult, ...]:
        """Benchmarks called slower: the ones that fail a CI job (--fail-on-slowdown)."""
        return tuple(b for b in self.benchmarks if b.change and b.change.call == "slower")


@dataclass(frozen=True, slots=True)
class Results:
    """The results of a run, for any number k ≥ 2 of versions: every version compared with
    the baseline (``comparisons``: one for two versions); with three or more, each benchmark
    over all versions (``across``: summaries, the omnibus test, post-hoc pairs, letters) and
    the versions' ranking (``standings``)."""

    tool_version: str
    settings: Settings
    source: Source
    versions: tuple[str, ...]
    baseline: int
    comparisons: tuple[Comparison, ...]  # every version but the baseline, in order
    across: tuple[VersionsBenchmark, ...] = ()  # k ≥ 3, per benchmark of the run
    standings: tuple[VersionStanding, ...] = ()  # k ≥ 3, in the order of ``versions``
    common: tuple[int, ...] = ()  # k ≥ 3: the benchmarks analysed for every version
    # The run's warnings (the input's: unused config columns, unpaired benchmarks, the
    # measurement checks); the overall figures' caveats are each comparison's notices.
    notices: tuple[Notice, ...] = ()
    errors: tuple[InputError, ...] = ()
    input_files: tuple[InputFile, ...] = ()
    run: RunInfo | None = None
    unpaired: tuple[Unpaired, ...] = ()  # compare: benchmarks not matched with the baseline's

    @property
    def pair(self) -> Comparison:
        """The comparison of two versions: the only one."""
        if len(self.comparisons) != 1:
            raise ValueError(f"{len(self.versions)} versions make {len(self.comparisons)} "
                             "comparisons, not one")
        return self.comparisons[0]

    @property
    def several(self) -> bool:
        """Three or more versions: the comparison of all of them is there too."""
        return len(self.versions) > 2

    @property
    def baseline_name(self) -> str:
        return self.versions[self.baseline]

    @property
    def named(self) -> tuple[str, str]:
        """Two versions' names: (baseline, other), initial and optimized unless named."""
        return self.source.names or DEFAULT_NAMES

    @property
    def benchmark_count(self) -> int:
        """The benchmarks of the run (with two versions, those compared)."""
        return len(self.across) if self.several else len(self.pair.benchmarks)

    @property
    def analysed(self) -> tuple[BenchmarkResult, ...] | tuple[VersionsBenchmark, ...]:
        """The benchmarks analysed: two versions' results; with three or more, each benchmark
        over the versions analysed for some version."""
        if self.several:
            return tuple(b for b in self.across if b.status != "error")
        return self.pair.analysed

    @property
    def failed(self) -> tuple[BenchmarkResult, ...] | tuple[VersionsBenchmark, ...]:
        """The benchmarks with an error (with three or more versions: of some version)."""
        if self.several:
            return tuple(b for b in self.across if b.errors)
        return self.pair.failed

    @property
    def unpaired_share(self) -> float:
        """The share of the benchmarks named in the files that were not compared."""
        return unpaired_share(self.unpaired, self.benchmark_count)

    @property
    def all_notices(self) -> tuple[Notice, ...]:
        """Two versions: the run's warnings, then the overall figures' caveats."""
        return self.notices + self.pair.notices if not self.several else self.notices

    @property
    def calls_total(self) -> int:
        """The comparisons called (benchmark × version): those the correction ran over."""
        return sum(c.overall.calls.total for c in self.comparisons if c.overall.calls)

    @property
    def slower(self) -> tuple[tuple[str, BenchmarkResult], ...]:
        """(version, benchmark) called slower than the baseline (--fail-on-slowdown)."""
        return tuple((c.version, b) for c in self.comparisons for b in c.slower)

    @property
    def ranking(self) -> tuple[VersionStanding, ...]:
        return tuple(sorted(self.standings, key=lambda s: s.rank))

    @property
    def best(self) -> tuple[str, ...]:
        """The best version and those tied with it, by rank."""
        return tuple(s.name for s in self.ranking if s.best)

    def comparison(self, version: str) -> Comparison | None:
        return next((c for c in self.comparisons if c.version == version), None)

    def _repr_html_(self) -> str | None:
        """In a notebook: the answer sentence and the forest plot (see model/display.py)."""
        return display.html(self)

    def to_dataframe(self):
        """One row per benchmark as a pandas DataFrame (columns as in results.csv); with three
        or more versions, one per comparison of a benchmark with the baseline, after a
        ``version`` column."""
        import pandas as pd

        from speeduptest.model.rows import CSV_COLUMNS, benchmark_rows

        if not self.several:
            return pd.DataFrame(benchmark_rows(self.pair, self.settings),
                                columns=list(CSV_COLUMNS))
        rows = [{"version": c.version, **row} for c in self.comparisons
                for row in benchmark_rows(c, self.settings)]
        return pd.DataFrame(rows, columns=["version", *CSV_COLUMNS])

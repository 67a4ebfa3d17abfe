"""The pipeline from a config file to the results model: read, analyse, aggregate."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from speeduptest.analysis.transforms import MIN_VALUES, RUN_STEPS, MeasurementChecks, ReadPair
from speeduptest.analysis.validity import (
    power_of_thousand,
    run_notice,
    run_units_notice,
    units_notice,
)
from speeduptest.floats import complement, special_values_expected
from speeduptest.inputs.config import BenchmarkSpec
from speeduptest.inputs.experiment import Transform
from speeduptest.inputs.files import SampleFiles, file_key
from speeduptest.inputs.readers import SourceFile, select
from speeduptest.inputs.samples import Sample
from speeduptest.model.results import (
    BenchmarkResult,
    CallCounts,
    InputError,
    InputFile,
    Notice,
    Overall,
    PairAnalysis,
    ProtocolTests,
    SampleSummary,
    Settings,
    SlowdownCheck,
)
from speeduptest.notices import counted, plural
from speeduptest.runtime.batch_child import BatchChild, Ends, batch_child, bootstrap_here
from speeduptest.runtime.nocycles import cycle_collection_paused
from speeduptest.runtime.parallel import default_workers, worker_pool
from speeduptest.runtime.switching import quick_switches
from speeduptest.stats.change import Change, classify_interval, decide_calls
from speeduptest.stats.effect_size import (
    EffectSize,
    RatioInterval,
    bootstrap_interval,
    bootstrap_intervals_of,
    default_resamples,
    delta_intervals,
    draw_table,
    effect_inputs_of,
    effect_size,
    fieller_intervals,
    resampled_means,
    skipped_bootstrap,
    table_bootstrap_interval,
    uses_shared_counts,
    within_draws_budget,
)
from speeduptest.stats.fieller import MeanRatio
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.overall import (
    BootstrapAggregate,
    DeltaAggregate,
    aggregate_method,
    overall_figures,
)
from speeduptest.stats.protocol import (
    analyse_pair,
    is_small,
    max_confidence_rows,
    run_tests_and_slowdowns,
    summarise_rows,
    tie_free_rows,
)
from speeduptest.stats.steady import RowChecks, SeriesMatrix

Progress = Callable[[int, int, str], None]


def _sample_errors(spec: BenchmarkSpec, role: str, sample: Sample, config: str) -> list[InputError]:
    """Problems that keep this sample out of the analysis, each with file and line."""
    if sample.problem is not None:
        return [InputError(config, spec.line,
                           f"{role} sample file {sample.path}: {sample.problem}")]
    if sample.errors:
        # Errors without a line (JSON files) are located by the config row that names them.
        return [error if error.line is not None or spec.line is None else InputError(
            config, spec.line, f"{role} sample file {sample.path}: {error.message}")
            for error in sample.errors]
    if sample.data is None:
        return [InputError(config, spec.line,
                           f"{role} sample file {sample.path} contains no values")]
    if sample.top_units < MIN_VALUES:
        unit = "value" if sample.data.depth == 1 else sample.data.level_names[0]
        return [InputError(
            config, spec.line,
            f"{role} sample file {sample.path} has only {counted(sample.top_units, unit)}; at "
            f"least {MIN_VALUES} independent observations are needed",
        )]
    return []


def _read_benchmarks(specs: Sequence[BenchmarkSpec], config: str, files: SampleFiles
                     ) -> Iterator[tuple[BenchmarkResult, ReadPair | None]]:
    """:func:`_read_benchmark` for each of ``specs``, in order, each file read once from
    ``files`` (the experiment's)."""
    keyed = [(spec, () if spec.errors else (spec.initial_key or file_key(spec.initial),
                                            spec.optimized_key or file_key(spec.optimized)))
             for spec in specs]
    wanted = ((key, file) for spec, keys in keyed
              for key, file in zip(keys, (spec.initial, spec.optimized), strict=False))
    with files.reading(wanted) as source:
        for index, (spec, keys) in enumerate(keyed, start=1):
            if not keys:
                yield _read_benchmark(index, spec, [], config)
                continue
            # (A whole file is shown as its row shows it: its path normalised once.)
            found = [source(keys[0], spec.initial, None if spec.initial_selection is not None
                            else spec.initial_display),
                     source(keys[1], spec.optimized, None if spec.optimized_selection
                            is not None else spec.optimized_display)]
            yield _read_benchmark(index, spec, found, config)


def _read_benchmark(
    index: int, spec: BenchmarkSpec, sources: list[SourceFile], config: str,
) -> tuple[BenchmarkResult, ReadPair | None]:
    """The benchmark's result so far (its errors, if any) and its samples when usable.
    ``sources``: its files (initial, optimized; none for a spec with errors)."""
    if spec.errors:
        return BenchmarkResult(
            name=spec.name, weight=spec.weight, alpha=spec.alpha, config_line=spec.line,
            initial_path=spec.initial_display, optimized_path=spec.optimized_display,
            errors=spec.errors), None
    # (Both sides written out: 10,000 benchmarks, 20 ms less than a loop over them.)
    initial = select(sources[0], spec.initial_selection)
    optimized = select(sources[1], spec.optimized_selection)
    errors = (_sample_errors(spec, "initial", initial, config)
              + _sample_errors(spec, "optimized", optimized, config))
    result = BenchmarkResult(
        name=spec.name, weight=spec.weight, alpha=spec.alpha, config_line=spec.line,
        initial_path=spec.initial_display, optimized_path=spec.optimized_display,
        errors=tuple(errors), unit=initial.unit,
        input_notes=() if not (initial.notes or optimized.notes) else tuple(
            f"{role}: {'; '.join(sample.notes)}" for role, sample in
            (("initial", initial), ("optimized", optimized)) if sample.notes),
        input_notices=initial.notices + optimized.notices)
    if errors:
        return result, None
    return result, ReadPair(index, spec.weight, spec.alpha, initial.data, optimized.data,
                            paths=(initial.path, optimized.path),
                            tools=(sources[0].format, sources[1].format),
                            units=(initial.unit, optimized.unit), declared_unit=spec.unit)


def _transformed(pairs: list[ReadPair], benchmarks: list[BenchmarkResult], config: str,
                 transforms: Sequence[Transform]) -> list[ReadPair]:
    """The pairs as the experiment's ``transforms`` leave them, each step run over all of
    them together (:mod:`speeduptest.analysis.transforms`); their benchmarks get what was
    found. A pair that a step cannot take becomes its benchmark's error."""
    return _recorded(_stepped(pairs, benchmarks, config, transforms), benchmarks)


def _stepped(pairs: list[ReadPair], benchmarks: list[BenchmarkResult], config: str,
             transforms: Sequence[Transform],
             checked: Callable[[], list[tuple[SeriesMatrix, RowChecks]]] | None = None
             ) -> list[ReadPair]:
    """:func:`_transformed` but for what the benchmarks get of it (:func:`_recorded`);
    ``checked``: the measurement checks' array work, computed beside (:class:`_Checking`)."""
    for transform in transforms:
        if checked is not None and isinstance(transform, MeasurementChecks):
            found = transform(pairs, checked())
            checked = None  # (made for these pairs, by this step)
        else:
            found = transform(pairs)
        usable = []
        for pair, changed in zip(pairs, found, strict=True):
            if not isinstance(changed, str) and not isinstance(transform, RUN_STEPS):
                changed = _enough_left(changed, transform)
            if isinstance(changed, str):
                benchmark = benchmarks[pair.index - 1]
                benchmarks[pair.index - 1] = dataclasses.replace(
                    benchmark, errors=(InputError(config, benchmark.config_line, changed),),
                    unit=pair.units[0])
            else:
                usable.append(changed)
        pairs = usable
    return pairs


def _recorded(pairs: list[ReadPair], benchmarks: list[BenchmarkResult]) -> list[ReadPair]:
    """``pairs``, their benchmarks given what the steps found (unit, checks, warnings)."""
    for pair in pairs:
        # (the benchmark's entry is still being built: set in place, 10 µs less than a copy)
        benchmark = benchmarks[pair.index - 1]
        benchmark.unit = pair.units[0]
        benchmark.validity = pair.validity
        if pair.notices:
            benchmark.input_notices += pair.notices
    return pairs


@dataclass
class _Checking:
    """A streamed batch whose measurement checks' array work the batch child does while the
    batch before is analysed: the steps before the checks done, the rest to do once the
    child answers (:meth:`done`)."""

    pairs: list[ReadPair]
    rest: Sequence[Transform]  # the checks, then the steps after them
    checked: Callable[[], list[tuple[SeriesMatrix, RowChecks]]] | None

    @classmethod
    def sent(cls, pairs: list[ReadPair], benchmarks: list[BenchmarkResult], config: str,
             transforms: Sequence[Transform], child: BatchChild | None) -> _Checking:
        """The batch ``pairs`` through the steps before the measurement checks, and the
        checks' matrices sent to ``child`` (None, or no checks: all is done by :meth:`done`)."""
        checks = next((position for position, transform in enumerate(transforms)
                       if isinstance(transform, MeasurementChecks)), None)
        if child is None or checks is None:
            return cls(pairs, transforms, None)
        pairs = _stepped(pairs, benchmarks, config, transforms[:checks])
        step = transforms[checks]
        assert isinstance(step, MeasurementChecks)
        matrices = step.series(pairs)
        answer = child.checks([matrix.rows for matrix in matrices], step.trend)
        return cls(pairs, transforms[checks:], lambda: list(zip(matrices, answer(),
                                                                 strict=True)))

    def done(self, benchmarks: list[BenchmarkResult], config: str) -> list[ReadPair]:
        """The batch as the steps leave it, its benchmarks given what they found."""
        return _recorded(_stepped(self.pairs, benchmarks, config, self.rest, self.checked),
                         benchmarks)


def _enough_left(pair: ReadPair, step: Transform) -> ReadPair | str:
    """``pair`` after a step of the user's, or why too few values are left to analyse it
    (the run's own steps check it themselves)."""
    for role, side in (("initial", pair.initial), ("optimized", pair.optimized)):
        units = side.top_level_means.size
        if units < MIN_VALUES:
            return (f"{role} sample: {counted(units, 'value')} left after the step "
                    f"{getattr(step, '__name__', type(step).__name__)}; at least "
                    f"{MIN_VALUES} independent observations are needed")
    return pair


def _with_mean_ratios(pairs: list[ReadPair], benchmarks: list[BenchmarkResult], config: str
                      ) -> list[ReadPair]:
    """The pairs whose mean times have a ratio that a float holds; the benchmarks of the
    others get the error that says so (the grand means computed together, kept for the
    analysis)."""
    Hierarchy.cache_grand_means([side for pair in pairs for side in (pair.initial,
                                                                     pair.optimized)])
    usable = []
    for pair in pairs:
        numerator, denominator = pair.initial.grand_mean, pair.optimized.grand_mean
        ratio = numerator / denominator if denominator > 0 else math.inf  # float / float: inf
        if 0 < ratio < math.inf:
            usable.append(pair)
            continue
        benchmark = benchmarks[pair.index - 1]
        benchmarks[pair.index - 1] = dataclasses.replace(benchmark, errors=(InputError(
            config, benchmark.config_line,
            f"the mean times of {pair.paths[0]} and {pair.paths[1]} differ by a factor beyond "
            "what a floating-point number can hold (more than 1e308): check their units"),))
    return usable


def _describe_design(initial: Hierarchy, optimized: Hierarchy) -> str | None:
    if initial.depth == 1 and optimized.depth == 1:
        return None
    tops = dict.fromkeys(plural(sample.level_names[0]) for sample in (initial, optimized))
    return (f"initial: {initial.describe()}; optimized: {optimized.describe()}. The "
            f"Speedup-Test protocol ran on the means of the top-level units "
            f"({' and '.join(tops)}); the effect-size intervals use the whole hierarchy.")


@dataclass
class _Analysed:
    """What a worker returns for one benchmark."""

    analysis: PairAnalysis
    effect: EffectSize
    slowdown: SlowdownCheck


@dataclass
class _BatchedParts:
    """What is computed together for the pairs whose top-level samples have equal sizes."""

    tests: ProtocolTests  # initial vs optimized
    # The protocol optimized vs initial (is the optimized version slower?): what it found,
    # read from the batch's arrays (protocol.run_tests_and_slowdowns).
    reverse: SlowdownCheck
    summaries: tuple[SampleSummary, SampleSummary]
    tie_free: bool  # no ties in the rank test's most favourable case (protocol.tie_free_rows)
    # The highest confidences of the mean and median verdicts (None: computed per pair).
    max_confidences: tuple[float | None, float | None] | None = None


def _same_sizes(pairs: list[ReadPair], positions: Sequence[int]) -> list[list[int]]:
    """``positions`` of ``pairs`` grouped by the sizes of their top-level samples (the rows of
    the arrays that are computed together)."""
    groups: dict[tuple[int, int], list[int]] = {}
    for position in positions:
        groups.setdefault(_sizes(pairs[position]), []).append(position)
    return list(groups.values())


def _sizes(pair: ReadPair) -> tuple[int, int]:
    """The sizes of a pair's top-level samples: pairs of the same sizes are computed
    together."""
    return pair.initial.top_level_means.size, pair.optimized.top_level_means.size


#: A streamed batch's benchmarks whose sizes less than this share of the batch has are
#: analysed at the end (see _common_and_rare).
RARE_SHARE = 1 / 16


def _common_and_rare(pairs: list[ReadPair]) -> tuple[list[ReadPair], list[ReadPair]]:
    """``pairs`` split into those whose sizes many of them share and the others, whose
    analysis waits for the end of the run: each group of equal sizes is one pass of the
    protocol's array code, which costs ~1.7 ms however few rows it has (10,000 pairs of 31
    values less the warm-ups found: ~10 groups of one pair in every batch of 1,024, 0.2 s).
    At the end they are analysed together, sorted by sizes (:func:`_by_sizes`)."""
    sizes = [_sizes(pair) for pair in pairs]
    counts = collections.Counter(sizes)
    fewest = len(pairs) * RARE_SHARE
    if all(count >= fewest for count in counts.values()):
        return pairs, []
    common: list[ReadPair] = []
    rare: list[ReadPair] = []
    for pair, pair_sizes in zip(pairs, sizes, strict=True):
        (common if counts[pair_sizes] >= fewest else rare).append(pair)
    return common, rare


def _by_sizes(pairs: list[ReadPair]) -> list[ReadPair]:
    """``pairs`` in the order of their sizes (then of the config), so that the batches they
    are cut into hold few groups of equal sizes. A pair's results do not depend on the
    others of its batch."""
    return sorted(pairs, key=lambda pair: (_sizes(pair), pair.index))


@dataclass
class _SizeGroup:
    """The pairs of a batch whose top-level samples have the same sizes (their positions in
    the batch, in order), those samples stacked as rows: what the protocol's tests and the
    shared-count bootstrap take, stacked once for both."""

    positions: list[int]
    initial: np.ndarray  # rows × n
    optimized: np.ndarray  # rows × m


def _size_groups(pairs: list[ReadPair]) -> list[_SizeGroup]:
    """Every pair of ``pairs`` in its :class:`_SizeGroup`."""
    return [_SizeGroup(positions, np.stack([pairs[p].initial.top_level_means for p in positions]),
                       np.stack([pairs[p].optimized.top_level_means for p in positions]))
            for positions in _same_sizes(pairs, range(len(pairs)))]


def _batched_parts(pairs: list[ReadPair], large_sample: int,
                   groups: list[_SizeGroup] | None = None) -> list[_BatchedParts]:
    """The protocol's tests of every pair, both ways, the summaries of its samples and what
    the decisions need over many benchmarks, computed together for the pairs whose
    top-level samples have the same sizes (identical to computing them pair by pair);
    ``groups``: the pairs' :func:`_size_groups`, when already made."""
    parts: list[_BatchedParts | None] = [None] * len(pairs)
    for group in _size_groups(pairs) if groups is None else groups:
        positions, x, y = group.positions, group.initial, group.optimized
        small = is_small(x.shape[1], y.shape[1], large_sample)
        tests, slowdowns = run_tests_and_slowdowns(x, y, small,
                                                   [pairs[p].alpha for p in positions])
        for position, *found in zip(positions, tests, slowdowns, summarise_rows(x),
                                    summarise_rows(y), tie_free_rows(x, y).tolist(),
                                    max_confidence_rows(tests, [small] * len(tests)),
                                    strict=True):
            parts[position] = _BatchedParts(found[0], found[1], (found[2], found[3]), found[4],
                                            found[5])
    return parts  # type: ignore[return-value]


#: What the analysis of a batch gives: each benchmark's, the bootstrap aggregate's part,
#: the batch's mean ratios.
_Output = tuple[list["_Analysed"], BootstrapAggregate | None, MeanRatio]


@special_values_expected  # (a generator runs in its caller's numpy error state)
def _analyse_pairs(
    settings: Settings, bootstrap_forced: bool, pairs: list[ReadPair],
    helper: BatchChild | None = None,
) -> _Output:
    """:func:`_analysis_steps` of a batch of benchmarks, taken to their end (in this
    process, or in a worker)."""
    steps = _analysis_steps(settings, bootstrap_forced, pairs, helper)
    next(steps)
    return _finished(steps)


def _finished(steps: Iterator[None]) -> _Output:
    """What the rest of a batch's :func:`_analysis_steps` gives."""
    try:
        next(steps)
    except StopIteration as done:
        return done.value
    raise AssertionError("the steps of a batch go on after its bootstrap")


def _analysis_steps(
    settings: Settings, bootstrap_forced: bool, pairs: list[ReadPair],
    helper: BatchChild | None = None,
) -> Generator[None, None, _Output]:
    """Protocol (both ways), effect size and bootstrap of a batch of benchmarks; with the
    batch's mean ratios together (what each effect size's ``ratio`` holds). ``helper``: the
    child that computes the shared-count bootstrap intervals (None: a thread does). The
    steps pause once, when all is done but what needs the bootstrap intervals (the effect
    sizes): a caller with other work may do it then, while the child computes them. (Run
    them under ``special_values_expected``.)

    A benchmark's bootstrap interval (``--bootstrap`` resamples) depends on nothing but its
    own samples and the seed: not on the other benchmarks, nor on how they are shared among
    workers. Both samples flat (and not too large): the count matrices that every benchmark
    of the run shares (:func:`flat_bootstrap_intervals`, vectorised over the batch); both
    balanced hierarchies with a draw table: the draws that every benchmark of the same shape
    shares (:func:`table_bootstrap_interval`); otherwise, or with bootstrap aggregate
    intervals (which need every benchmark resampled independently of the others), its own
    random stream, seeded by (seed, position).

    Samples too large to resample on their own stream within BOOTSTRAP_DRAWS_BUDGET get no
    bootstrap interval unless ``bootstrap_forced`` (--bootstrap given) or the aggregate
    intervals need their draws. (The calls never rest on the bootstrap: decide_calls.)
    """
    aggregate = (BootstrapAggregate(settings.bootstrap)
                 if aggregate_method(settings) == "bootstrap" else None)
    shared = [aggregate is None
              and uses_shared_counts(pair.initial, pair.optimized, settings.bootstrap)
              for pair in pairs]
    # The shared-count bootstrap is array work that needs nothing else of the analysis: the
    # child computes it (or a thread) while this one runs the tests and decisions.
    groups = _size_groups(pairs)
    levels = _confidence_levels(pairs)
    with _shared_intervals_beside(helper, settings, levels, shared, groups) as pending:
        batched = _batched_parts(pairs, settings.large_sample, groups)
        inputs, ratios = effect_inputs_of([(pair.initial, pair.optimized) for pair in pairs],
                                          _resolutions(pairs))
        confidences = np.array(levels)
        fieller = fieller_intervals(ratios, confidences)
        delta = delta_intervals(ratios, confidences)
        protocols = []
        for pair, parts in zip(pairs, batched, strict=True):
            # The protocol's independent observations are the top-level units (Kalibera & Jones).
            analysis = analyse_pair(pair.initial.top_level_means, pair.optimized.top_level_means,
                                    alpha=pair.alpha, large_sample=settings.large_sample,
                                    tests=parts.tests, summaries=parts.summaries,
                                    tie_free=parts.tie_free,
                                    max_confidences=parts.max_confidences)
            # The same protocol with the roles swapped: is the optimized version slower?
            protocols.append((analysis, parts.reverse))
        yield  # (what the effect sizes need of the bootstrap is still being computed)
        intervals = pending()
    for position, pair in enumerate(pairs):
        if aggregate is None and not shared[position]:
            tables = draw_table(pair.initial), draw_table(pair.optimized)
            if tables[0] is not None and tables[1] is not None:
                intervals[position] = table_bootstrap_interval(
                    *tables, levels[position], settings.bootstrap, settings.seed)
    analysed = []
    for position, (pair, (analysis, reverse)) in enumerate(zip(pairs, protocols, strict=True)):
        confidence = levels[position]
        # Too large to resample, unless forced.
        skipped = (aggregate is None and not bootstrap_forced and position not in intervals
                   and not within_draws_budget(pair.initial, pair.optimized, settings.bootstrap))
        if position in intervals:
            interval = intervals[position]
        elif skipped:
            interval = skipped_bootstrap(pair.initial, pair.optimized, settings.bootstrap)
        else:
            # One random stream per benchmark: results do not depend on what else is
            # analysed, nor on how the benchmarks are shared among workers. (Made where it is
            # drawn from: most benchmarks never draw, and making one costs 9 µs.)
            rng = np.random.default_rng([settings.seed, pair.index])
            drawn = (resampled_means(pair.initial, settings.bootstrap, rng),
                     resampled_means(pair.optimized, settings.bootstrap, rng))
            if aggregate is not None:
                aggregate.add(pair.weight, *drawn)
            interval = bootstrap_interval(*drawn, confidence)
        effect = effect_size(pair.initial, pair.optimized, confidence,
                             inputs=inputs[position], bootstrap=interval,
                             fieller=fieller[position], delta=delta[position],
                             resolution=pair.resolution)
        analysed.append(_Analysed(analysis, effect, reverse))
    return analysed, aggregate, ratios


def _confidence_levels(pairs: list[ReadPair]) -> list[float]:
    """Each pair's confidence level, 1 − α, computed once per distinct α (``complement``
    formats and parses a float: 0.3 µs, three times per benchmark)."""
    found: dict[float, float] = {}
    return [found[alpha] if alpha in found else found.setdefault(alpha, complement(alpha))
            for alpha in (pair.alpha for pair in pairs)]


def _resolutions(pairs: list[ReadPair]) -> np.ndarray | None:
    """The timer resolutions that bound the pairs' means, (initial, optimized) per pair (0:
    none), for effect_inputs_of; None when no pair has one (nearly every run)."""
    bounded = [(position, pair.resolution) for position, pair in enumerate(pairs)
               if pair.resolution != (None, None)]
    if not bounded:
        return None
    resolutions = np.zeros((len(pairs), 2))
    for position, sides in bounded:
        resolutions[position] = [0.0 if side is None else side.value for side in sides]
    return resolutions


@contextlib.contextmanager
def _shared_intervals_beside(helper: BatchChild | None, settings: Settings,
                             levels: list[float], shared: list[bool], sizes: list[_SizeGroup]
                             ) -> Iterator[Callable[[], dict[int, RatioInterval]]]:
    """For the block, the bootstrap intervals of the benchmarks resampled with the shared
    count matrices computed beside it, by ``helper`` (or a thread); the block gets the
    function that waits for them (by position in the batch). Computed together for the
    benchmarks of the same sizes (``sizes``: the batch's :func:`_size_groups`; ``levels``:
    the batch's confidence levels)."""
    grouped: list[list[int]] = []
    groups = []
    for size in sizes:
        rows = [row for row, position in enumerate(size.positions) if shared[position]]
        if not rows:
            continue
        positions = [size.positions[row] for row in rows]
        every = len(rows) == len(size.positions)  # (as a rule: the stacks as they are)
        grouped.append(positions)
        groups.append((np.array([levels[p] for p in positions]),
                       size.initial if every else size.initial[rows],
                       size.optimized if every else size.optimized[rows]))

    def by_position(ends: list[Ends]) -> dict[int, RatioInterval]:
        intervals = {}
        for positions, (low, high) in zip(grouped, ends, strict=True):
            intervals.update(zip(positions, bootstrap_intervals_of(low, high), strict=True))
        return intervals

    if helper is not None:
        answer = helper.bootstrap(settings.bootstrap, settings.seed, groups)
        yield lambda: by_position(answer())
        return
    # (The thread needs the GIL to start each of its numpy calls: quicker hand-overs.)
    with ThreadPoolExecutor(max_workers=1) as background, quick_switches():
        pending = background.submit(special_values_expected(bootstrap_here),
                                    settings.bootstrap, settings.seed, groups)
        yield lambda: by_position(pending.result())


def _in_position_order(batches: list[tuple[np.ndarray, MeanRatio]]) -> MeanRatio:
    """The mean ratios of the batches as one, ordered by position."""
    if not batches:
        return MeanRatio(*(np.empty(0) for _ in range(5)))
    order = np.argsort(np.concatenate([positions for positions, _ in batches]), kind="stable")
    return MeanRatio.concatenate([ratio for _, ratio in batches]).take(order)


def _decide_calls(analysed: dict[int, _Analysed], ratio: MeanRatio, settings: Settings
                  ) -> tuple[dict[int, Change], CallCounts]:
    """Every analysed benchmark's call, by position: it depends on all of them (the
    correction). ``ratio``: their mean ratios, in the order of their positions."""
    positions = sorted(analysed)
    done = [analysed[position] for position in positions]
    changes = decide_calls(
        ratio,
        [result.analysis.alpha for result in done],
        [result.analysis.tests.t_test_at(result.analysis.alpha).p_value for result in done],
        threshold=settings.threshold, correction=settings.correction) if done else []
    return (dict(zip(positions, changes, strict=True)),
            CallCounts.of(changes, settings.threshold, settings.correction))


#: Benchmarks per batch given to a worker...
BATCH = 64
#: ...and analysed at once in-process: the arrays of larger batches amortise numpy's
#: per-call costs (10,000 pairs of 31 values: tests 0.75 s in batches of 64, 0.48 s of 1,024).
SERIAL_BATCH = 1024
#: ...and batches below which the run stays in-process: starting workers and sending them
#: the samples costs more than it saves under ~250 benchmarks (0.54 s in-process against
#: 0.74–0.92 s with 2 workers for a pyperformance-sized compare, benchmarks/compare_pyperf.py).
MIN_PARALLEL_BATCHES = 4
#: Only benchmarks whose bootstrap draws this many measurements or more per side from their
#: own random stream are worth a worker (about 20 ns per measurement and resample). The rest
#: cost ~0.4 ms each in-process, while sending one to a worker and its results back costs
#: ~0.25 ms of the parent's time: 10,000 pairs of 31 values took 10-12 s with 2 workers and
#: 8-9 s in-process, 500 pairs of 2,000 values 9.5 s with 2 workers and 18 s in-process.
HEAVY_DRAWS = 200 * 2_000


#: Benchmarks from which a run analyses each batch as soon as it is read (see
#: _analyse_benchmarks): below, there are too few batches for the overlap to matter.
STREAMED_FROM = 4 * SERIAL_BATCH


class _Plan:
    """What the analysis of each benchmark needs to know of the whole run, which depends on
    how many benchmarks it analyses: their resamples (fewer for many benchmarks)."""

    def __init__(self, settings: Settings, benchmarks: int) -> None:
        self.settings = settings  # with the run's resamples
        self.benchmarks = benchmarks

    @classmethod
    def of(cls, settings: Settings, benchmarks: int, bootstrap_forced: bool) -> _Plan:
        if not bootstrap_forced:
            settings = dataclasses.replace(settings, bootstrap=default_resamples(
                benchmarks, aggregate_method(settings)))
        return cls(settings, benchmarks)

    def ready(self, pair: ReadPair, largest_weight: float) -> ReadPair:
        """``pair`` as this plan analyses it (its weight relative to the largest; what the
        transforms found is already in its benchmark's entry)."""
        return ReadPair(pair.index, pair.weight / largest_weight, pair.alpha, pair.initial,
                        pair.optimized, paths=pair.paths, resolution=pair.resolution)

    def redone(self, final: _Plan, pairs: list[ReadPair], collected: _Collected) -> list[ReadPair]:
        """The benchmarks analysed with this plan that ``final`` (the run's, once every
        benchmark is read) analyses otherwise, forgotten by ``collected``: all of them when
        their resamples differ (a run that lost most of its benchmarks to errors), else none
        (the calls, which depend on the number of benchmarks, are made once all are
        analysed)."""
        if final.settings.bootstrap == self.settings.bootstrap:
            return []
        analysed = [pair for pair in pairs if pair.index - 1 in collected.done]
        collected.forget(analysed)
        return analysed


class _Collected:
    """The analysed benchmarks, by position in the config, with each batch's mean ratios;
    the progress told as batches are added."""

    def __init__(self, progress: Progress | None, benchmarks: list[BenchmarkResult],
                 total: int) -> None:
        self.done: dict[int, _Analysed] = {}
        self.designs: dict[int, str | None] = {}
        self.ratios: list[tuple[np.ndarray, MeanRatio]] = []  # positions, mean ratios
        self.total = total  # for the progress: the benchmarks to analyse, as far as known
        self._progress = progress
        self._benchmarks = benchmarks
        self._told = 0  # benchmarks the progress said were analysed

    def add(self, batch: list[ReadPair], output: tuple[list[_Analysed], object, MeanRatio]
            ) -> None:
        analysed, _, ratio = output
        positions = [pair.index - 1 for pair in batch]
        self.ratios.append((np.array(positions, dtype=np.intp), ratio))
        for pair, position, result in zip(batch, positions, analysed, strict=True):
            self.done[position] = result
            self.designs[position] = _describe_design(pair.initial, pair.optimized)
        self._told = max(self._told, len(self.done))  # (never back: some analysed again)
        if self._progress is not None:
            self._progress(self._told, max(self.total, self._told),
                           self._benchmarks[positions[-1]].name)

    def forget(self, pairs: list[ReadPair]) -> None:
        """Forget these benchmarks' analyses, to be added again."""
        positions = np.array([pair.index - 1 for pair in pairs], dtype=np.intp)
        for position in positions.tolist():
            del self.done[position]
        self.ratios = [(kept[keep], ratio.take(np.flatnonzero(keep)))
                       for kept, ratio in self.ratios for keep in [~np.isin(kept, positions)]]


def _complete_deferred(deferred: tuple[list[ReadPair], Iterator[None]] | None,
                       collected: _Collected) -> None:
    """The rest of a deferred batch's analysis (its effect sizes, once the batch child
    has had the time to compute their intervals), added to ``collected``."""
    if deferred is not None:
        batch, steps = deferred
        collected.add(batch, _finished(steps))


def _draws_on_own_stream(pair: ReadPair, settings: Settings, bootstrap_forced: bool) -> int:
    """Measurements one side of ``pair`` draws for its bootstrap (see :func:`_analyse_pairs`):
    0 for flat samples resampled by the shared count matrices, and where none are drawn; for
    hierarchical samples an upper bound (those with a draw table draw one number per lowest
    group)."""
    resamples = settings.bootstrap or 0
    if aggregate_method(settings) != "bootstrap":
        if uses_shared_counts(pair.initial, pair.optimized, resamples):
            return 0
        if not bootstrap_forced and not within_draws_budget(pair.initial, pair.optimized,
                                                            resamples):
            return 0
    return max(pair.initial.measurements, pair.optimized.measurements) * resamples


def _heavy_and_light(pairs: list[ReadPair], settings: Settings, bootstrap_forced: bool
                     ) -> tuple[list[ReadPair], list[ReadPair]]:
    """``pairs`` split into those worth a worker (see HEAVY_DRAWS) and the others."""
    heavy: list[ReadPair] = []
    light: list[ReadPair] = []
    for pair in pairs:
        costly = _draws_on_own_stream(pair, settings, bootstrap_forced) >= HEAVY_DRAWS
        (heavy if costly else light).append(pair)
    return heavy, light


def overall_of(analysed: Sequence[BenchmarkResult], largest_weight: float,
               aggregate: DeltaAggregate | BootstrapAggregate | None, calls: CallCounts,
               settings: Settings) -> Overall:
    """The overall figures of the benchmarks ``analysed`` (weights relative to
    ``largest_weight``): the overall speedups and accelerated proportions, the aggregate's
    intervals, the calls counted, and the call of the geometric mean's interval."""
    overall = overall_figures([(b.weight / largest_weight, b.analysis) for b in analysed],
                              confidence=settings.effective_proportion_confidence,
                              precision=settings.precision, aggregate=aggregate,
                              aggregate_confidence=settings.confidence)
    geometric = overall.geometric_mean
    call = (None if geometric is None
            else classify_interval(geometric.low, geometric.high, settings.threshold))
    return dataclasses.replace(overall, calls=calls, call=call)


@dataclass(frozen=True)
class Analysed:
    """A run's comparisons of two samples, analysed: each benchmark's protocol, effect size
    and call (corrected over all of them), the overall figures over them, and what the run
    found on the way."""

    settings: Settings  # as used: with the number of resamples chosen
    benchmarks: tuple[BenchmarkResult, ...]
    overall: Overall
    notices: tuple[Notice, ...]  # the measurement checks' and the units' over the run
    input_files: tuple[InputFile, ...]  # every file read, with its checksum


@cycle_collection_paused()  # 10% of a large run's time, for nothing (see nocycles)
@special_values_expected
def analyse_benchmarks(
    specs: Sequence[BenchmarkSpec],
    settings: Settings,
    label: str,
    files: SampleFiles,
    progress: Progress | None = None,
    workers: int | None = None,
    extra_files: Sequence[InputFile] = (),
    transforms: Sequence[Transform] = (),
) -> Analysed:
    """Read and analyse the comparisons of two samples ``specs`` (made by
    :meth:`speeduptest.inputs.experiment.Experiment.comparison`), their files read from
    ``files`` and their values changed by the experiment's ``transforms``, in order
    (:func:`speeduptest.analysis.transforms.prepared`). Every spec has its α
    (:func:`speeduptest.inputs.experiment.with_run_alpha`). ``label`` (the config, or the
    files compared) is where the errors of a benchmark's config line are said to be."""
    with _batch_helper(len(specs)) as helper:
        return _analyse_benchmarks(specs, settings, label, progress, workers, extra_files,
                                   files, helper, transforms)


#: Benchmarks from which the batches' array work is worth a child of its own (forking one
#: costs ~10 ms; below, a thread computes the bootstrap).
MIN_BATCH_CHILD = 500


def _batch_helper(benchmarks: int) -> contextlib.AbstractContextManager[BatchChild | None]:
    """The child that does the batches' array work (the shared-count bootstrap; the
    measurement checks of a streamed run), for a run of about so many benchmarks. It is
    forked before the samples are read, and before the config is when there is one, while
    this process is small (see batch_child)."""
    return batch_child() if benchmarks >= MIN_BATCH_CHILD else contextlib.nullcontext()


def _analyse_benchmarks(
    specs: Sequence[BenchmarkSpec], settings: Settings, label: str,
    progress: Progress | None, workers: int | None, extra_files: Sequence[InputFile],
    files: SampleFiles, helper: BatchChild | None, transforms: Sequence[Transform],
) -> Analysed:
    bootstrap_forced = settings.bootstrap is not None
    benchmarks: list[BenchmarkResult] = []
    pairs: list[ReadPair] = []  # the benchmarks read without error, in the config's order
    # A large run analyses its benchmarks a batch at a time as they are read: the prefetch
    # child meanwhile reads and parses the next files on the core that the tests leave to
    # the batch child, where the reading would otherwise wait for it or parse here.
    # The batches are analysed for the benchmarks that the config lets through, and checked
    # against those that are read without error (_Plan.redone).
    expected = sum(1 for spec in specs if not spec.errors)
    streamed = expected >= STREAMED_FROM and aggregate_method(settings) != "bootstrap"
    plan = _Plan.of(settings, expected, bootstrap_forced)
    collected = _Collected(progress, benchmarks, expected)
    waiting: list[ReadPair] = []  # read, not yet analysed
    # A streamed batch whose effect sizes wait for its bootstrap, computed by the child
    # while the next batch is read and checked (10,000 pairs: the parent waited ~0.1 s for
    # the child's answers, ~10 ms a batch, when it took them at once).
    deferred: tuple[list[ReadPair], Iterator[None]] | None = None
    aside: list[ReadPair] = []  # read, to be analysed at the end (heavy, when streamed)

    def analyse_streamed(batch: list[ReadPair]) -> None:
        """A streamed batch, checked, analysed but for its effect sizes (``deferred``)."""
        nonlocal deferred
        usable = _with_mean_ratios(batch, benchmarks, label)
        pairs.extend(usable)
        heavy, light = _heavy_and_light(usable, plan.settings, bootstrap_forced)
        light, rare = _common_and_rare(light)
        aside.extend(heavy + rare)
        # (the batch before is finished first: the child answers in the order asked, and
        # its bootstrap was asked for before this batch's checks)
        _complete_deferred(deferred, collected)
        deferred = None
        if light:  # (weights enter only the bootstrap aggregate, never streamed)
            ready = [plan.ready(pair, 1.0) for pair in light]
            steps = _analysis_steps(plan.settings, bootstrap_forced, ready, helper)
            next(steps)
            deferred = (ready, steps)
            if helper is None:  # (a thread computes the bootstrap: not left running)
                _complete_deferred(deferred, collected)
                deferred = None

    # A streamed batch is checked one batch late: the batch child does the array work of
    # its checks while the batch before it is analysed.
    checking: _Checking | None = None
    with contextlib.closing(_read_benchmarks(specs, label, files)) as read:
        for result, pair in read:
            benchmarks.append(result)
            if pair is not None:
                waiting.append(pair)
            if streamed and len(waiting) == SERIAL_BATCH:
                sent = _Checking.sent(waiting, benchmarks, label, transforms, helper)
                waiting = []
                if checking is not None:
                    analyse_streamed(checking.done(benchmarks, label))
                checking = sent
                if helper is None:  # (nothing computed beside: checked now)
                    analyse_streamed(checking.done(benchmarks, label))
                    checking = None
    if checking is not None:
        analyse_streamed(checking.done(benchmarks, label))
    checked = _transformed(waiting, benchmarks, label, transforms)
    usable = _with_mean_ratios(checked, benchmarks, label)
    _complete_deferred(deferred, collected)
    pairs += usable
    aside += usable
    final = _Plan.of(settings, len(pairs), bootstrap_forced)
    settings = final.settings
    collected.total = len(pairs)
    if streamed:
        aside += plan.redone(final, pairs, collected)
    # Weights only enter ratios (Σ W·x / Σ W·y, Σ W·log s / Σ W): relative to the largest,
    # weights of 1e308 do not overflow the sums.
    largest_weight = max((pair.weight for pair in pairs), default=1.0)
    aside = [final.ready(pair, largest_weight) for pair in aside]
    # The costly benchmarks go to the workers while the others are analysed here, in
    # batches of few sizes (see _common_and_rare).
    heavy_pairs, light_pairs = _heavy_and_light(aside, settings, bootstrap_forced)
    light_pairs = _by_sizes(light_pairs)
    parallel = [heavy_pairs[i:i + BATCH] for i in range(0, len(heavy_pairs), BATCH)]
    if len(parallel) < MIN_PARALLEL_BATCHES:
        parallel, light_pairs = [], heavy_pairs + light_pairs
    serial = [light_pairs[i:i + SERIAL_BATCH]
              for i in range(0, len(light_pairs), SERIAL_BATCH)]
    workers = (workers or default_workers()) if parallel else 1
    bootstrap_aggregate = (BootstrapAggregate(settings.bootstrap)
                           if aggregate_method(settings) == "bootstrap" else None)
    analyse = functools.partial(_analyse_pairs, settings, bootstrap_forced)
    with worker_pool(workers) as parallel_map:
        outputs = itertools.chain(map(functools.partial(analyse, helper=helper), serial),
                                  parallel_map(analyse, parallel))
        for batch, output in zip(serial + parallel, outputs, strict=True):
            if bootstrap_aggregate is not None:
                bootstrap_aggregate.merge(output[1])
            collected.add(batch, output)
    done, designs = collected.done, collected.designs
    ratio = _in_position_order(collected.ratios)  # (in the config's order)
    changes, calls = _decide_calls(done, ratio, settings)
    for position, result in done.items():
        # (still being built, and held here alone: set in place, 1 µs less than a copy)
        benchmark = benchmarks[position]
        benchmark.analysis, benchmark.effect, benchmark.slowdown = (
            result.analysis, result.effect, result.slowdown)
        benchmark.change, benchmark.design = changes[position], designs[position]
    mixed_units = [b for b in benchmarks if b.status == "ok" and b.unit is None
                   and power_of_thousand(b.analysis.speedup.mean)]
    for benchmark in mixed_units:
        # (still being built: set in place)
        benchmark.input_notices += (units_notice(benchmark.analysis.speedup.mean),)
    analysed = [b for b in benchmarks if b.status == "ok"]
    aggregate = bootstrap_aggregate
    if aggregate is None and analysed:
        aggregate = DeltaAggregate(ratio)
    overall = overall_of(analysed, largest_weight, aggregate, calls, settings)
    measured = tuple(notice for notice in (run_notice(
        [side for b in benchmarks if b.validity is not None and b.status == "ok"
         for side in b.validity]),
        run_units_notice([b.name for b in mixed_units])) if notice is not None)
    input_files = list(extra_files)
    input_files += [InputFile(path, checksum) for path, checksum in files.checksums()]
    return Analysed(settings, tuple(benchmarks), overall, measured, tuple(input_files))

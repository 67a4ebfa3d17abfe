"""Effect size of the change: the speedup of the means with confidence intervals.

Three intervals for θ = mean(initial) / mean(optimized), each at the benchmark's confidence:

- Fieller's interval for the ratio of two independent means (Fieller 1954), as Kalibera & Jones
  use it: each mean's variance is S²ₖ/nₖ from its top-level units, and each side's t quantile has
  nₖ − 1 degrees of freedom (its own, when the sides have different numbers of top-level units).
  Unbounded when the optimized mean is not significantly different from 0.
- The delta method: θ ± t·θ·√(V_i/Ȳ_i² + V_o/Ȳ_o²), with Welch–Satterthwaite degrees of freedom.
- The bootstrap percentile interval: each side resampled independently, with replacement at
  every level (Kalibera & Jones's "RRR"), vectorised over resamples. Benchmarks whose two
  samples are flat are resampled together: the resamples of a sample of n values are the rows
  of one multinomial count matrix per (seed, side, n), shared by every benchmark of the run,
  times the values (see :func:`flat_bootstrap_intervals`).

References: E. C. Fieller, "Some problems in interval estimation", JRSS B 16(2), 1954;
T. Kalibera, R. Jones, "Quantifying performance changes with effect size confidence
intervals", University of Kent TR 4-12, 2012, sections 5 and 6.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from speeduptest.notices import Notice, plural
from speeduptest.stats.change import percentile_ends
from speeduptest.stats.fieller import MeanRatio, fieller_bounds
from speeduptest.stats.hierarchy import (
    Hierarchy,
    VarianceComponents,
    balanced_components,
    variance_components,
)
from speeduptest.stats.resolution import SideResolution, relative_floor

#: Below this many top-level units the bootstrap percentile interval under-covers
#: (benchmarks/coverage.py: 85% with 3 units, 92% with 10, 94.5% with 30 for a 95% interval).
BOOTSTRAP_TRUSTED_UNITS = 30
#: Elements drawn per bootstrap chunk: small enough to stay in the heap and the cache (a
#: 10,000 x 31 chunk took 3.8 ms per side, 2,000-draw chunks 1.6 ms; above 1 MiB per array
#: every chunk pays for fresh pages).
_CHUNK_ELEMENTS = 65_536

#: How the aggregate intervals (geometric mean of the speedups, overall speedup) are made:
#: the delta method on the log of each (the default: stats.defaults), or the bootstrap.
AGGREGATE_INTERVALS = ("delta", "bootstrap")
#: Resamples of each benchmark's bootstrap interval unless --bootstrap says otherwise:
#: 10,000 for runs of up to AUTO_RESAMPLES_BUDGET / 10,000 = 100 benchmarks; beyond, the budget
#: shared out, but never fewer than MIN_AUTO_RESAMPLES (50 beyond each end of a 95% interval:
#: the bounds move by ~1.5% of the interval's width between seeds). The interval is a
#: cross-check of Fieller's (the call always rests on Fieller's, the statement wherever it
#: is bounded), so a run of 10,000 benchmarks need not draw 10⁸ resamples for it. From one seed
#: to another each end of a 95% percentile interval moves by 1.5% of the interval's width with
#: 2,000 resamples (standard deviation; 0.7% with 10,000; ``benchmarks/bootstrap.py
#: --mc-error``): far below the interval's own error (it covers 85-95% for 95% with 3-30
#: units, benchmarks/coverage.py).
DEFAULT_RESAMPLES = 10_000
MIN_AUTO_RESAMPLES = 2_000
AUTO_RESAMPLES_BUDGET = 1_000_000
#: Measurements drawn per side (values × resamples) above which a benchmark's bootstrap
#: interval is not computed unless ``--bootstrap`` is given: each draw costs ~20 ns, so this
#: is about a second per side (10,000 resamples of 5,000 values), where 10⁶ values would take
#: minutes. With that many values Fieller's and the delta interval, which the call and the
#: statement use, agree with the bootstrap's to within its Monte-Carlo error.
BOOTSTRAP_DRAWS_BUDGET = 50_000_000


def default_resamples(benchmarks: int, aggregate_interval: str) -> int:
    """Resamples per benchmark when --bootstrap is not given (see DEFAULT_RESAMPLES); the
    bootstrap aggregate intervals keep the documented 10,000 whatever the run's size."""
    if aggregate_interval == "bootstrap":
        return DEFAULT_RESAMPLES
    shared = AUTO_RESAMPLES_BUDGET // max(benchmarks, 1)
    return max(MIN_AUTO_RESAMPLES, min(DEFAULT_RESAMPLES, shared))


#: Largest shared count matrix (resamples × values) kept per process; samples that need a
#: larger one are resampled on their own random stream (2,000 resamples: up to 524 values).
_SHARED_COUNTS_LIMIT = 1 << 20
#: Resampled means computed at once by flat_bootstrap_intervals (benchmarks × resamples): a
#: chunk's arrays (2 MB each) stay in the cache between its steps. 10,000 pairs of 31 values
#: at 2,000 resamples: 0.55 s at 2**18, 0.66 s at 2**20, 0.62 s at 2**14.
_CHUNK_ROWS_ELEMENTS = 1 << 18
#: Largest table of the means of every ordered draw of a lowest group's children (see
#: _draw_table): 20 invocations of 3 iterations need 540 entries, of 5 iterations 62,500.
_DRAW_TABLE_LIMIT = 1 << 16


@dataclass(slots=True)
class RatioInterval:
    """A confidence interval for the speedup; ``bounded`` is False when it is infinite."""

    method: str
    low: float | None
    high: float | None
    bounded: bool
    df: float | None = None
    note: str | None = None


def mean_ratio(initial: VarianceComponents, optimized: VarianceComponents,
               speedup: float | None = None,
               resolutions: tuple[float, float] = (0.0, 0.0)) -> MeanRatio:
    """The inputs of Fieller's and the delta interval on the top-level units of one benchmark:
    each side's relative variance of the mean, V/Ȳ² (free of its unit, so the sides may be
    given at different scales when ``speedup`` is given), at least (r/Ȳ)²/12 for a side
    whose timer's resolution r (in the unit of its components; 0: none) bounds its mean
    (:mod:`speeduptest.stats.resolution`)."""
    def relative(side: VarianceComponents, resolution: float) -> float:
        found = (math.sqrt(side.variance_of_mean) / side.grand_mean) ** 2
        if resolution > 0:
            return max(found, float(relative_floor(resolution, side.grand_mean)))
        return found

    return MeanRatio(
        np.array([initial.grand_mean / optimized.grand_mean if speedup is None else speedup]),
        np.array([relative(initial, resolutions[0])]),
        np.array([relative(optimized, resolutions[1])]),
        np.array([initial.top_units - 1.0]), np.array([optimized.top_units - 1.0]))


def fieller_interval(initial: VarianceComponents, optimized: VarianceComponents,
                     confidence: float) -> RatioInterval:
    """Fieller's interval for mean(initial) / mean(optimized).

    Solves (Ȳ_i − θ·Ȳ_o)² ≤ t_i²·V_i + θ²·t_o²·V_o for θ, where V = S²ₖ/nₖ and t_x is the
    (1 + confidence)/2 quantile of Student's t with nₖ(x) − 1 degrees of freedom (in the
    numerically stable form of :func:`speeduptest.stats.fieller.fieller_bounds`).
    """
    if initial.variance_of_mean is None or optimized.variance_of_mean is None:
        return RatioInterval("fieller", None, None, False,
                             note="needs at least 2 top-level units on each side")
    return _fieller(mean_ratio(initial, optimized), confidence)


def _fieller(ratio: MeanRatio, confidence: float) -> RatioInterval:
    return fieller_intervals(ratio, np.array([confidence]))[0]


def fieller_intervals(ratio: MeanRatio, confidence: np.ndarray) -> list[RatioInterval]:
    """Fieller's interval of every benchmark of ``ratio`` at its ``confidence``."""
    low, high, bounded = fieller_bounds(ratio, confidence)
    return [RatioInterval("fieller", low_, high_, True) if bounded_ else RatioInterval(
        "fieller", None, None, False,
        note="unbounded: the optimized mean is not significantly different from 0")
        for low_, high_, bounded_ in zip(low.tolist(), high.tolist(), bounded.tolist(),
                                         strict=True)]


def delta_interval(initial: VarianceComponents, optimized: VarianceComponents,
                   confidence: float) -> RatioInterval:
    """Delta-method interval θ ± t·se, se = θ·√(V_i/Ȳ_i² + V_o/Ȳ_o²).

    The degrees of freedom are Welch–Satterthwaite's for the two relative variances, each with
    nₖ − 1 degrees of freedom.
    """
    if initial.variance_of_mean is None or optimized.variance_of_mean is None:
        return RatioInterval("delta", None, None, False,
                             note="needs at least 2 top-level units on each side")
    return _delta(mean_ratio(initial, optimized), confidence)


def _delta(mean_ratio: MeanRatio, confidence: float) -> RatioInterval:
    return delta_intervals(mean_ratio, np.array([confidence]))[0]


def delta_intervals(mean_ratio: MeanRatio, confidence: np.ndarray) -> list[RatioInterval]:
    """The delta-method interval of every benchmark of ``mean_ratio`` at its ``confidence``
    (elementwise the same operations as one at a time, so the same numbers)."""
    ratio = mean_ratio.speedup
    u_i, u_o = mean_ratio.initial_relative_variance, mean_ratio.optimized_relative_variance
    total = u_i + u_o
    with np.errstate(divide="ignore", invalid="ignore"):
        df = total**2 / (u_i**2 / mean_ratio.initial_df + u_o**2 / mean_ratio.optimized_df)
        half_width = special.stdtrit(df, (1 + confidence) / 2) * ratio * np.sqrt(total)
    intervals = []
    for ratio_, total_, df_, half in zip(ratio.tolist(), total.tolist(), df.tolist(),
                                         half_width.tolist(), strict=True):
        if total_ == 0:
            intervals.append(RatioInterval("delta", ratio_, ratio_, True, None,
                                           note="no variance"))
        elif ratio_ - half <= 0:  # a speedup is positive: the approximation fails here
            intervals.append(RatioInterval(
                "delta", 0.0, ratio_ + half, True, df_,
                note="the delta method's lower bound fell below 0 (the normal approximation "
                     "fails for so uncertain a ratio): shown as 0"))
        else:
            intervals.append(RatioInterval("delta", ratio_ - half, ratio_ + half, True, df_))
    return intervals


def resampled_means(sample: Hierarchy, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Grand means of ``resamples`` hierarchical bootstrap samples (with replacement at every
    level: the top-level units, then within each drawn unit as many children as it has, and
    so on down to the measurements). Vectorised over the resamples, in bounded chunks."""
    values, counts = sample.padded()
    table = _draw_table(values, counts)
    if table is not None:
        per_resample = table[..., 0].size
        chunk = max(1, min(resamples, _CHUNK_ELEMENTS // per_resample))
        return np.concatenate([
            _resampled_table_chunk(table, min(chunk, resamples - start), rng)
            for start in range(0, resamples, chunk)
        ])
    per_resample = values.size
    chunk = max(1, min(resamples, _CHUNK_ELEMENTS // max(1, per_resample)))
    return np.concatenate([
        _resampled_chunk(values, counts, min(chunk, resamples - start), rng)
        for start in range(0, resamples, chunk)
    ])


def _draw_table(values: np.ndarray, counts: list[np.ndarray]) -> np.ndarray | None:
    """For a hierarchical sample balanced at every level whose lowest groups have few
    children m (groups × mᵐ ≤ _DRAW_TABLE_LIMIT): the mean of every ordered draw of m
    children with replacement, for every lowest group (shape (…, mᵐ)). Drawing one column
    uniformly is drawing the group's m children with replacement, so one random number per
    group replaces m + 1 (4× fewer draws and 3× fewer gathers for 20 × 3, same distribution).
    None where the sample does not qualify."""
    if values.ndim < 2 or not all(np.all(count == values.shape[level + 1])
                                  for level, count in enumerate(counts)):
        return None
    children = values.shape[-1]
    if values[..., 0].size * children**children > _DRAW_TABLE_LIMIT:
        return None
    draws = np.array(list(itertools.product(range(children), repeat=children)))
    return values[..., draws].mean(axis=-1)


def _resampled_table_chunk(table: np.ndarray, draws: int,
                           rng: np.random.Generator) -> np.ndarray:
    """Grand means of ``draws`` resamples of a balanced sample, given its :func:`_draw_table`."""
    return _table_means(table, _table_draws(table.shape, draws, rng))


def _table_draws(shape: tuple[int, ...], draws: int, rng: np.random.Generator) -> np.ndarray:
    """Flat indices into a draw table of ``shape``, one row per resample: the levels above
    the lowest groups are drawn as in :func:`_resampled_chunk`; the last draw picks a lowest
    group and one ordered draw of its children at once."""
    *units, ways = shape
    if len(units) == 1:
        unit = rng.integers(0, units[0] * ways, size=(draws, units[0]))
    else:
        unit = rng.integers(0, units[0], size=(draws, units[0]))
        for width in units[1:-1]:
            unit = unit[..., None] * width + rng.integers(0, width, size=(*unit.shape, width))
        width = units[-1] * ways
        unit = unit[..., None] * width + rng.integers(0, width, size=(*unit.shape, units[-1]))
    return unit.reshape(draws, -1)


def _table_means(table: np.ndarray, draws: np.ndarray) -> np.ndarray:
    return np.take(table.ravel(), draws).mean(axis=1)


def draw_table(sample: Hierarchy) -> np.ndarray | None:
    """The :func:`_draw_table` of a hierarchical sample, or None (flat, unbalanced, or too
    many ordered draws)."""
    return None if sample.depth == 1 else _draw_table(*sample.padded())


@functools.lru_cache(maxsize=16)
def shared_table_draws(shape: tuple[int, ...], resamples: int, seed: int,
                       side: int) -> np.ndarray:
    """The resamples of a balanced hierarchical sample whose draw table has ``shape``, as
    flat indices into the table, one matrix per (seed, side, shape): every such benchmark of
    the run uses it, as flat samples share :func:`shared_counts`. Its random stream,
    SeedSequence([seed, 0, 2 + side, *shape]), is neither a benchmark's own nor a flat
    sample's."""
    rng = np.random.default_rng([seed, 0, 2 + side, *shape])
    chunk = max(1, _CHUNK_ELEMENTS // math.prod(shape[:-1]))
    draws = np.concatenate([_table_draws(shape, min(chunk, resamples - start), rng)
                            for start in range(0, resamples, chunk)])
    draws.flags.writeable = False
    return draws


def table_bootstrap_interval(initial: np.ndarray, optimized: np.ndarray, confidence: float,
                             resamples: int, seed: int) -> RatioInterval:
    """The bootstrap interval of a benchmark whose samples are balanced hierarchies, from
    their draw tables and the run's shared draws (the same resamples as
    :func:`resampled_means` would draw from a stream of their own, in distribution)."""
    return bootstrap_interval(
        _table_means(initial, shared_table_draws(initial.shape, resamples, seed, 0)),
        _table_means(optimized, shared_table_draws(optimized.shape, resamples, seed, 1)),
        confidence)


def _resampled_chunk(values: np.ndarray, counts: list[np.ndarray], draws: int,
                     rng: np.random.Generator) -> np.ndarray:
    # Work with flat indices into the padded array: np.take on them is ~2x faster than
    # fancy indexing with one index array per level (benchmarks/bootstrap.py).
    unit = rng.integers(0, values.shape[0], size=(draws, values.shape[0]))
    masks: list[np.ndarray | None] = []  # per level below the top: which draws are real
    for level, width in enumerate(values.shape[1:]):
        if np.all(counts[level] == width):  # balanced at this level: no padding drawn
            chosen = rng.integers(0, width, size=(*unit.shape, width))
            mask = None if not masks or masks[-1] is None else np.repeat(
                masks[-1][..., None], width, axis=-1)
        else:
            children = counts[level].ravel()[unit]
            chosen = rng.integers(0, np.maximum(children, 1)[..., None],
                                  size=(*unit.shape, width))
            mask = np.arange(width) < children[..., None]
            if masks and masks[-1] is not None:
                mask &= masks[-1][..., None]
        masks.append(mask)
        unit = unit[..., None] * width + chosen
    means = np.take(values.ravel(), unit)
    if all(mask is None for mask in masks):  # balanced: the grand mean is the plain mean
        return means.reshape(draws, -1).mean(axis=1)
    # Hierarchical means, bottom-up: each unit is the mean of its (real) children.
    for mask in reversed(masks):
        if mask is None:
            means = means.mean(axis=-1)
        else:
            means = np.where(mask, means, 0.0).sum(axis=-1) / np.maximum(mask.sum(axis=-1), 1)
    return means.mean(axis=-1)


def bootstrap_interval(initial_means: np.ndarray, optimized_means: np.ndarray,
                       confidence: float) -> RatioInterval:
    """Percentile interval of the ratio of the resampled means."""
    ratios = initial_means / optimized_means
    low, high = percentile_ends(ratios, [(1 - confidence) / 2, (1 + confidence) / 2])
    return RatioInterval("bootstrap", float(low), float(high), True)


def within_draws_budget(initial: Hierarchy, optimized: Hierarchy, resamples: int) -> bool:
    """Whether resampling both sides ``resamples`` times stays within BOOTSTRAP_DRAWS_BUDGET."""
    largest = max(initial.measurements, optimized.measurements)
    return largest * resamples <= BOOTSTRAP_DRAWS_BUDGET


def skipped_bootstrap(initial: Hierarchy, optimized: Hierarchy, resamples: int
                      ) -> RatioInterval:
    """The bootstrap interval of a benchmark too large to resample (see
    BOOTSTRAP_DRAWS_BUDGET), saying why it is missing."""
    largest = max(initial.measurements, optimized.measurements)
    return RatioInterval("bootstrap", None, None, False, note=(
        f"not computed: {largest:,} values × {resamples:,} resamples exceed "
        f"{BOOTSTRAP_DRAWS_BUDGET:,} draws (--bootstrap N computes it)"))


def uses_shared_counts(initial: Hierarchy, optimized: Hierarchy, resamples: int) -> bool:
    """Whether :func:`flat_bootstrap_intervals` resamples this benchmark: both samples flat,
    and their count matrices small enough to keep."""
    return (initial.depth == 1 and optimized.depth == 1 and resamples * max(
        initial.top_level_means.size, optimized.top_level_means.size) <= _SHARED_COUNTS_LIMIT)


@functools.lru_cache(maxsize=64)
def shared_counts(size: int, resamples: int, seed: int, side: int) -> np.ndarray:
    """``resamples`` draws of how often each of ``size`` values is taken by a bootstrap
    resample (multinomial rows), one matrix per (seed, side, size): every benchmark of a run
    with a flat sample of that size on that side uses it, whatever batch or worker it is in.
    Its random stream, SeedSequence([seed, 0, side, size]), is never a benchmark's own,
    [seed, position] with position ≥ 1. Kept in the smallest unsigned type that holds
    ``size`` (at most 2 MB each, 64 of them per process)."""
    rng = np.random.default_rng([seed, 0, side, size])
    counts = rng.multinomial(size, np.full(size, 1 / size), size=resamples)
    counts = counts.astype(np.min_scalar_type(size))
    counts.flags.writeable = False
    return counts


@functools.lru_cache(maxsize=8)
def _transposed_counts(size: int, resamples: int, seed: int, side: int) -> np.ndarray:
    """:func:`shared_counts` as the floats (size × resamples) the products need, kept for the
    few sizes of a run rather than converted for every batch (each conversion a fresh
    allocation of up to 8 MB: 0.5 s of page faults over 10,000 benchmarks)."""
    counts = shared_counts(size, resamples, seed, side).T.astype(float)
    counts.flags.writeable = False
    return counts


def _resampled_flat_means(values: np.ndarray, counts: np.ndarray, out: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """Resampled means of each row of ``values`` (benchmarks × n), given the transposed count
    matrix (n × resamples, floats), at the scale that brings each row's largest value near 1
    (exact powers of two, returned with the means) so that no sum of times near 1e308
    overflows; made in ``out`` (at least benchmarks × 1 × resamples). Each row is its own
    vector–matrix product (matmul over a stack): a benchmark's means do not depend on the
    rows beside it, as one matrix–matrix product's would (BLAS picks its kernel by the shape:
    one row and 64 rows round differently)."""
    exponents = np.frexp(values.max(axis=1))[1]
    scaled = np.ldexp(values, -exponents[:, None])
    sums = np.matmul(scaled[:, None, :], counts, out=out[:len(values)])[:, 0, :]
    sums /= values.shape[1]
    return sums, exponents


def flat_bootstrap_intervals(initial: np.ndarray, optimized: np.ndarray,
                             confidence: Sequence[float], resamples: int,
                             seed: int) -> list[RatioInterval]:
    """:func:`flat_bootstrap_ends` as intervals."""
    low, high = flat_bootstrap_ends(initial, optimized, confidence, resamples, seed)
    return bootstrap_intervals_of(low, high)


def bootstrap_intervals_of(low: np.ndarray, high: np.ndarray) -> list[RatioInterval]:
    """The percentile intervals with these ends."""
    return [RatioInterval("bootstrap", a, b, True)
            for a, b in zip(low.tolist(), high.tolist(), strict=True)]


def flat_bootstrap_ends(initial: np.ndarray, optimized: np.ndarray,
                        confidence: Sequence[float], resamples: int,
                        seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The ends (low, high) of the bootstrap percentile intervals of the speedup of the means
    for benchmarks whose samples are flat and of the same sizes: ``initial`` (benchmarks × n)
    and ``optimized`` (benchmarks × m), each benchmark at its own confidence.

    Each side is resampled independently of the other (its own count matrix), each resample
    taking n values with replacement, as :func:`resampled_means` does; the benchmarks share
    the resamples (the same rows of counts), which leaves each benchmark's interval what it
    would be alone. The resampled means are the count matrix times the values
    ("0.31 s for 10,000 pairs at 10³ resamples" in the performance notes, against 2.3 ms
    per pair for drawing indices at 10⁴).
    """
    initial, optimized = np.atleast_2d(initial), np.atleast_2d(optimized)
    confidence = np.asarray(confidence, dtype=float)
    counts_i = _transposed_counts(initial.shape[1], resamples, seed, 0)
    counts_o = _transposed_counts(optimized.shape[1], resamples, seed, 1)
    low, high = np.empty(len(initial)), np.empty(len(initial))
    rows_per_chunk = max(1, _CHUNK_ROWS_ELEMENTS // resamples)  # the rows are independent
    # Every chunk's means made in the same two arrays: fresh ones, of megabytes each, were
    # memory the system gave anew for each chunk (10,000 pairs: the batch child's page
    # faults 40,000 -> 22,000).
    chunk = min(rows_per_chunk, len(initial))
    made_i, made_o = np.empty((chunk, 1, resamples)), np.empty((chunk, 1, resamples))
    for start in range(0, len(initial), rows_per_chunk):
        rows = slice(start, start + rows_per_chunk)
        means_i, exponents_i = _resampled_flat_means(initial[rows], counts_i, made_i)
        means_o, exponents_o = _resampled_flat_means(optimized[rows], counts_o, made_o)
        ratios = np.divide(means_i, means_o, out=means_i)
        levels = np.unique(confidence[rows])
        if levels.size == 1:  # (as a rule: the ratios partitioned where they are, no copies)
            level = levels[0]
            chunk_low, chunk_high = percentile_ends(
                ratios, [(1 - level) / 2, (1 + level) / 2], axis=1, overwrite=True)
        else:
            chunk_low, chunk_high = np.empty(len(ratios)), np.empty(len(ratios))
            for level in levels:
                same = np.flatnonzero(confidence[rows] == level)
                chunk_low[same], chunk_high[same] = percentile_ends(
                    ratios[same], [(1 - level) / 2, (1 + level) / 2], axis=1)
        shift = exponents_i - exponents_o
        low[rows], high[rows] = np.ldexp(chunk_low, shift), np.ldexp(chunk_high, shift)
    return low, high


#: Top-level units the advice asks for: enough for the protocol's large-sample tests.
MIN_TOP_UNITS_ADVICE = 30

#: From this factor on a change reads better as a ratio (1.7× faster) than as a percentage.
RATIO_WORDING = 1.25


def _percent(fraction: float) -> str:
    return "less than 0.1%" if fraction < 0.0005 else f"{fraction:.1%}"


def _factor(speedup: float) -> float:
    """How many times faster or slower (≥ 1); inf for a speedup of 0 (an interval's end
    that underflowed)."""
    return speedup if speedup >= 1 else 1 / speedup if speedup > 0 else math.inf


def _times(factor: float) -> str:
    """A factor as people write it: three significant digits below 1,000 (1.72, 263), whole
    numbers with separators up to a million (1,604), then a short exponent (2.1e6; not
    1.6e+03)."""
    if float(f"{factor:.3g}") < 1000:
        return f"{factor:.3g}"
    if factor < 1e6:
        return f"{factor:,.0f}"
    mantissa, exponent = f"{factor:.2e}".split("e")
    return f"{float(mantissa):.3g}e{int(exponent)}"


def change_words(speedup: float, ratio: bool | None = None) -> str:
    """A speedup as words: 5.5% faster (time saved), 3.1% slower (time added), 1.7× faster.

    ``ratio`` forces the ratio (True) or percentage (False) wording; by default ratios from
    a factor of 1.25 on.
    """
    direction = "faster" if speedup >= 1 else "slower"
    factor = _factor(speedup)
    if factor == math.inf:
        return f"over 1e308× {direction}"
    if ratio if ratio is not None else factor >= RATIO_WORDING:
        return f"{_times(factor)}× {direction}"
    fraction = 1 - 1 / speedup if speedup >= 1 else factor - 1
    return f"{_percent(fraction)} {direction}"


def describe_change(speedup: float, interval: RatioInterval, confidence: float) -> str:
    """One sentence, e.g. "optimized is faster than initial by 5.5% (95% CI 3.0% to 8.0%)".

    Small changes are given as the execution time saved (1 − 1/speedup) or added
    (1/speedup − 1); when the interval reaches a factor of 1.25, as ratios ("1.7× faster").
    """
    level = f"{confidence * 100:.3g}%"
    direction = "faster" if speedup >= 1 else "slower"
    bounded = interval.bounded
    same_side = bounded and (interval.low >= 1 or interval.high <= 1)
    extreme = max(_factor(interval.low), _factor(interval.high)) if same_side else _factor(speedup)
    ratio = extreme >= RATIO_WORDING

    def words(value: float) -> str:
        return change_words(value, ratio).removesuffix(f" {direction}")

    head = (f"optimized is {words(speedup)} {direction} than initial" if ratio
            else f"optimized is {direction} than initial by {words(speedup)}")
    if not bounded:
        return f"{head} (its {level} confidence interval is unbounded)"
    if same_side:
        near, far = (interval.low, interval.high) if speedup >= 1 else (
            interval.high, interval.low)
        return f"{head} ({level} CI {words(near)} to {words(far)})"
    return (f"{head} ({level} CI from {change_words(interval.low)} to "
            f"{change_words(interval.high)}; the interval includes no change)")


@dataclass(slots=True)
class EffectSize:
    """Speedup of the means of one benchmark, with its intervals and variance components."""

    speedup: float
    confidence: float
    fieller: RatioInterval
    delta: RatioInterval
    bootstrap: RatioInterval
    statement: str
    initial: VarianceComponents  # in the unit of the measurements (None: not representable)
    optimized: VarianceComponents
    ratio: MeanRatio  # what Fieller's interval needs, free of the unit (for the call)
    notices: tuple[Notice, ...] = ()
    # Per side (initial, optimized), the timer's resolution that bounds its mean's variance
    # from below in ``ratio`` (speeduptest.stats.resolution); None: no floor.
    resolution: tuple[SideResolution | None, SideResolution | None] = (None, None)

    @property
    def headline(self) -> RatioInterval:
        """The interval the statement uses: Fieller's when bounded, else the bootstrap's."""
        return self.fieller if self.fieller.bounded else self.bootstrap


@dataclass(slots=True)
class EffectInputs:
    """What every interval of one benchmark is made from, computed once: each side's variance
    components at the scale that brings its grand mean near 1 (multiplied by a power of two,
    exact), and the speedup with each side's relative variance of the mean."""

    speedup: float
    initial: VarianceComponents  # at the scale that brings the grand mean near 1
    optimized: VarianceComponents
    initial_in_unit: VarianceComponents  # the same, in the unit of the measurements
    optimized_in_unit: VarianceComponents
    ratio: MeanRatio


def effect_inputs(initial: Hierarchy, optimized: Hierarchy,
                  resolutions: tuple[float, float] = (0.0, 0.0)) -> EffectInputs:
    """The intervals depend on the data only through the speedup and each side's relative
    variance of the mean, so each side's variance components are computed with its times
    multiplied by the power of two that brings its grand mean near 1 (exact), where they are
    representable for any time a float can hold. ``resolutions``: each side's timer
    resolution in the unit of its values (0: none), a floor of its relative variance
    (:func:`mean_ratio`)."""
    exponent_i, exponent_o = (math.frexp(side.grand_mean)[1] for side in (initial, optimized))
    components_i = _components(initial, -exponent_i)
    components_o = _components(optimized, -exponent_o)
    if components_i.variance_of_mean is None or components_o.variance_of_mean is None:
        raise ValueError("each side needs at least 2 top-level units")
    speedup = initial.grand_mean / optimized.grand_mean
    # (np.ldexp: inf beyond the floats, where math.ldexp raises; the floor is then at most 1)
    with np.errstate(over="ignore"):
        scaled = (float(np.ldexp(resolutions[0], -exponent_i)),
                  float(np.ldexp(resolutions[1], -exponent_o)))
    return EffectInputs(speedup, components_i, components_o, components_i.scaled(exponent_i),
                        components_o.scaled(exponent_o),
                        mean_ratio(components_i, components_o, speedup, scaled))


def effect_inputs_of(pairs: Sequence[tuple[Hierarchy, Hierarchy]],
                     resolutions: np.ndarray | None = None
                     ) -> tuple[list[EffectInputs], MeanRatio]:
    """:func:`effect_inputs` of every pair, and their mean ratios as one MeanRatio (in the
    order of the pairs: what every benchmark's own ``ratio`` holds, without concatenating
    thousands of one-row arrays). Pairs of flat samples of the same sizes are computed
    together, as rows of arrays (the same operations, so the same numbers). ``resolutions``:
    an array of (initial, optimized) timer resolutions per pair, in the unit of its values
    (0: none; None: none at all), floors of the relative variances (:func:`mean_ratio`)."""
    inputs: list[EffectInputs | None] = [None] * len(pairs)
    columns = np.empty((5, len(pairs)))  # MeanRatio.stacked() of them all
    groups: dict[tuple[int, int], list[int]] = {}
    alone = []  # (hierarchies, or a side of fewer than 2 values)
    for position, (initial, optimized) in enumerate(pairs):
        if initial.depth == 1 and optimized.depth == 1:
            sizes = initial.top_level_means.size, optimized.top_level_means.size
            groups.setdefault(sizes, []).append(position)
        else:
            alone.append(position)
    for (size_i, size_o), positions in groups.items():
        if size_i < 2 or size_o < 2:
            alone += positions
            continue
        found, ratio = _flat_inputs([pairs[p][0] for p in positions],
                                    [pairs[p][1] for p in positions],
                                    None if resolutions is None else resolutions[positions])
        columns[:, positions] = ratio.stacked()
        for position, entry in zip(positions, found, strict=True):
            inputs[position] = entry
    for position in alone:
        inputs[position] = effect_inputs(*pairs[position], (0.0, 0.0) if resolutions is None
                                         else tuple(resolutions[position].tolist()))
        columns[:, position] = inputs[position].ratio.stacked()[:, 0]
    return inputs, MeanRatio(*columns)  # type: ignore[return-value]


def _flat_inputs(initial: list[Hierarchy], optimized: list[Hierarchy],
                 resolutions: np.ndarray | None = None
                 ) -> tuple[list[EffectInputs], MeanRatio]:
    """:func:`effect_inputs` of flat samples of one size per side (at least 2 values each),
    and their mean ratios together (``resolutions``: as :func:`effect_inputs_of`'s, of these
    pairs)."""
    speedups = [i.grand_mean / o.grand_mean for i, o in zip(initial, optimized, strict=True)]
    sides = []
    for side, samples in enumerate((initial, optimized)):
        exponents = [math.frexp(sample.grand_mean)[1] for sample in samples]
        values = np.ldexp(np.stack([sample.top_level_means for sample in samples]),
                          -np.array(exponents)[:, None])
        size = float(values.shape[1])
        means, variances = values.mean(axis=1), values.var(axis=1, ddof=1)
        constant = values.min(axis=1) == values.max(axis=1)  # (exactly their value, 0)
        means, variances = (np.where(constant, values[:, 0], means),
                            np.where(constant, 0.0, variances))
        names = samples[0].level_names
        components = [VarianceComponents(names, mean, (variance,), (variance,), (size,))
                      for mean, variance in zip(means.tolist(), variances.tolist(), strict=True)]
        # VarianceComponents.scaled back to the unit, over the rows (beyond the floats: None).
        scale = np.array(exponents)
        with np.errstate(over="ignore"):
            variances_in_unit = np.ldexp(variances, 2 * scale)
        in_unit = [VarianceComponents(names, mean, (variance,), (variance,), (size,))
                   for mean, variance in zip(
                       np.ldexp(means, scale).tolist(),
                       np.where(np.isinf(variances_in_unit), None, variances_in_unit).tolist(),
                       strict=True)]
        # mean_ratio's relative variance of the mean, (√(S²/n) / Ȳ)², row by row.
        relative = (np.sqrt(variances / size) / means) ** 2
        if resolutions is not None and resolutions[:, side].any():
            # (r/Ȳ)²/12 at the scale of the rows: r times the same power of two.
            relative = np.maximum(relative, relative_floor(
                np.ldexp(resolutions[:, side], -scale), means))
        sides.append((components, in_unit, relative, np.full(len(samples), size - 1.0)))
    (components_i, in_unit_i, relative_i, df_i), (components_o, in_unit_o, relative_o,
                                                  df_o) = sides
    ratio = MeanRatio(np.array(speedups), relative_i, relative_o, df_i, df_o)
    return [EffectInputs(speedups[row], components_i[row], components_o[row], in_unit_i[row],
                         in_unit_o[row], ratio.row(row))
            for row in range(len(speedups))], ratio


def _components(sample: Hierarchy, exponent: int) -> VarianceComponents:
    """The variance components of the sample times 2**exponent: for a flat sample written out
    (the same numbers as :func:`variance_components`, without its walk over the units)."""
    if sample.depth > 1:
        balanced = sample.balanced()
        if balanced is None:
            return variance_components(sample.scaled(exponent))
        return balanced_components(np.ldexp(balanced, exponent), sample.level_names,
                                   float(np.ldexp(sample.grand_mean, exponent)))
    values = np.ldexp(sample.top_level_means, exponent)
    constant = values.size >= 1 and values.min() == values.max()  # (exactly their value, 0)
    variance = (0.0 if constant else float(np.var(values, ddof=1))) if values.size >= 2 else None
    mean = float(values[0]) if constant else float(values.mean())
    return VarianceComponents(sample.level_names, mean, (variance,), (variance,),
                              (float(values.size),))


def effect_size(initial: Hierarchy, optimized: Hierarchy, confidence: float,
                initial_means: np.ndarray | None = None,
                optimized_means: np.ndarray | None = None, *,
                inputs: EffectInputs | None = None,
                bootstrap: RatioInterval | None = None,
                fieller: RatioInterval | None = None,
                delta: RatioInterval | None = None,
                resolution: tuple[SideResolution | None, SideResolution | None] = (None, None),
                ) -> EffectSize:
    """All intervals for one benchmark, given both sides' bootstrap means or the bootstrap
    interval itself (``bootstrap``), and optionally its :func:`effect_inputs` and its
    Fieller and delta intervals (:func:`fieller_intervals`, :func:`delta_intervals`).
    ``resolution``: each side's timer resolution, a floor of its mean's variance (which
    ``inputs``, when given, were made with).

    The components reported are in the unit of the measurements (scaled back).
    """
    inputs = inputs or effect_inputs(initial, optimized, (
        0.0 if resolution[0] is None else resolution[0].value,
        0.0 if resolution[1] is None else resolution[1].value))
    components_i, components_o = inputs.initial, inputs.optimized
    speedup, ratio = inputs.speedup, inputs.ratio
    fieller = fieller or _fieller(ratio, confidence)
    delta = delta or _delta(ratio, confidence)
    if bootstrap is None:
        if initial_means is None or optimized_means is None:
            raise ValueError("the bootstrap means or the bootstrap interval are needed")
        bootstrap = bootstrap_interval(initial_means, optimized_means, confidence)
    headline = fieller if fieller.bounded else bootstrap
    notices = [*_variance_notices("initial", components_i),
               *_variance_notices("optimized", components_o)]
    fewest = min(components_i.top_units, components_o.top_units)
    if not fieller.bounded and fewest < BOOTSTRAP_TRUSTED_UNITS:  # the statement uses it
        notices.append(Notice(
            "effect-bootstrap-undercovers",
            f"With {fewest} top-level units on one side, the bootstrap interval is too narrow: "
            "in simulation (benchmarks/coverage.py) a 95% bootstrap interval covered the true "
            "speedup only 85% of the time with 3 units and 92% with 10; Fieller's interval "
            "kept 95% or more.",
            f"Collect {BOOTSTRAP_TRUSTED_UNITS} or more top-level units per version, so that "
            "Fieller's interval is bounded or the bootstrap's can be trusted."))
    if not fieller.bounded:
        notices.append(Notice(
            "effect-fieller-unbounded",
            f"Fieller's interval for the speedup is unbounded ({fieller.note}); the statement "
            "uses the bootstrap interval instead.",
            "Collect more top-level units (builds or invocations) of the optimized version."))
    return EffectSize(
        speedup=speedup,
        confidence=confidence,
        fieller=fieller,
        delta=delta,
        bootstrap=bootstrap,
        statement=describe_change(speedup, headline, confidence),
        initial=inputs.initial_in_unit,
        optimized=inputs.optimized_in_unit,
        ratio=ratio,
        notices=tuple(notices),
        resolution=resolution,
    )


def _variance_notices(side: str, components: VarianceComponents) -> list[Notice]:
    """A level whose T² is not positive adds no measurable variance of its own."""
    notices = []
    top = len(components.t2) - 1
    for level in range(1, len(components.t2)):
        t2 = components.t2[level]
        if t2 is not None and t2 <= 0:
            name, below = components.level_names[level], components.level_names[level - 1]
            # The top-level units are the independent observations of every test: they are
            # never to be given up, only the repetitions below them.
            advice = (f"Keep {MIN_TOP_UNITS_ADVICE} or more {plural(name)} as independent "
                      f"observations; more {plural(below)} per {name} buy little precision "
                      "here. "
                      "See: speeduptest plan --help." if level == top else
                      f"Repeat at the {name} level only once and spend the time on other "
                      "levels (see: speeduptest plan --help).")
            notices.append(Notice(
                "effect-level-adds-no-variance",
                f"In the {side} sample the {name} level adds no measurable variance "
                f"(T² = {t2:.3g} ≤ 0): its {plural(name)} differ no more than their "
                f"{plural(below)} would "
                "explain.", advice))
    return notices

"""Measurement validity: steady state, dependence and order of the values of one side.

Every test of the protocol takes its values as independent draws of one steady distribution.
A benchmark's series (its values in measurement order, one per invocation of the program)
often are not: a JIT or VM warms up, a long invocation drifts, iterations are autocorrelated.
This module checks each series and makes what the analysis takes from it:

- **Steady state.** Change points of each series: the segmentation PELT finds (Killick,
  Fearnhead & Eckley, JASA 2012; computed by :func:`optimal_partitions` for many series at
  once, the same as ``ruptures`` gives) with a squared-error cost on the log times (a change
  of mean: the same relative change is the same cost whatever the time scale). The steady
  segment is the last
  one, extended backwards over the segments whose mean is equivalent to it; short spikes
  inside it do not end it. Each series is then ``flat`` (one steady segment from the start),
  ``warmup`` (it ends faster than the segment before its steady state), ``slowdown`` (it ends
  slower) or ``no steady state`` (the steady segment covers less than its last quarter), as
  Barrett, Bolz-Tereick, Killick, Mount & Tratt classify them ("Virtual machine warmup blows
  hot and cold", OOPSLA 2017); a side is ``consistent`` when all its invocations have the same
  class.
- **Dependence.** Lag-1 autocorrelation and the effective sample size n(1 − r)/(1 + r) of
  each series. Where the values themselves are the independent units of the analysis (a
  sample of one level: one invocation), positively dependent values are replaced by batch
  means over non-overlapping batches (the batch-means method; Schmeiser, "Batch size effects
  in the analysis of simulation output", Operations Research 1982) whose length is Politis &
  White's automatic block length (Politis & White 2004, Patton, Politis & White 2009; as
  ``arch.bootstrap`` computes it). The protocol then runs on the batch means and the effect-size
  intervals on the batches › values hierarchy.
- **Order.** A trend across the run order of a one-level sample (Mann–Kendall: Kendall's τ
  between position and value) and a position effect within the invocations of a hierarchical
  sample (Friedman's test, invocations as blocks and positions as treatments).

The choices (penalty, equivalence, minimum lengths) are measured by
``benchmarks/warmup_detection.py`` and ``benchmarks/false_alarms.py``; see the docs'
"Measurement validity" page.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from speeduptest.stats.hierarchy import Hierarchy

SeriesClass = Literal["flat", "warmup", "slowdown", "no steady state", "too short"]

#: Series shorter than this are not judged for a steady state: their values are kept as they
#: are and the report says so (benchmarks/warmup_detection.py: below it, too many flat
#: series get a false warm-up or too few warm-ups are found).
MIN_SERIES = 30
#: A step in the part of a series the noise is estimated on is taken out when it exceeds
#: this many standard deviations of the values around it.
STEP = 4.0
#: The least variance of the log times taken as noise (0.1% of the time, squared): below it,
#: differences are rounding.
NOISE_FLOOR = 1e-6
#: Series shorter than this get no autocorrelation (its estimate is mostly noise).
MIN_DEPENDENCE = 10
#: PELT's penalty per change point: PENALTY × σ² × log n, σ² the long-run variance of the log
#: times (their variance times (1 + r)/(1 − r) for autocorrelated values): a BIC-like penalty
#: that autocorrelated noise alone does not pass.
PENALTY = 4.0
#: Segments whose mean log times differ by less than this (2%) are the same steady state.
EQUIVALENT = 0.02
#: ... or by less than this many standard errors of their difference.
EQUIVALENT_Z = 3.0
#: The steady segment must cover at least this share of the end of the series.
STEADY_SHARE = 0.25
#: Segments this short (or shorter) are spikes, not a phase.
SPIKE = 3
#: Runs of segments off the steady level for at most this share of the series, with the
#: steady level before and after them, are excursions inside the steady state (a garbage
#: collection), not the end of a warm-up.
EXCURSION = 0.1
#: Rows longer than this get Mann–Kendall's test from scipy rather than from all the pairs.
MAX_PAIRWISE = 2_000
#: Longer series are judged on the means of this many consecutive blocks.
MAX_POINTS = 1_000
#: A one-level sample is batched when its lag-1 autocorrelation exceeds this many standard
#: errors of it under independence (1/√n): 0.13% of independent samples are batched.
DEPENDENT_Z = 3.0
#: Batches are this many times Politis & White's block length: their length is chosen for the
#: bootstrap's variance (mean squared error), and the interval of the mean needs batches
#: nearer to independent. benchmarks/dependence_coverage.py, one benchmark's 95% interval on
#: AR(1) series of 300 / 1,000 values: with 1× it covers 93.0 / 84.8% at φ = 0.5 / 0.95,
#: with 2× 93.2–96.0%, with 3× 94.0–97.0% (94.2% at φ = 0.8 where 2× gave 93.2%).
BATCH_FACTOR = 3
#: Fewest batches a dependent series is cut into (batches longer than n / 5 are cut shorter).
MIN_BATCHES = 5
#: An order effect is reported below this p-value (about one false report per 1,000 sides
#: checked).
ORDER_ALPHA = 0.001

METHOD = "PELT, squared-error cost on log times"


@dataclass(frozen=True, slots=True)
class SteadyState:
    """The steady state of one series: its class, the position of its first steady value
    (0 when flat or when there is none), and how many segments PELT found."""

    classification: SeriesClass
    start: int
    segments: int


@dataclass(slots=True)
class Dependence:
    """Lag-1 autocorrelation of the values analysed (mean over the invocations) and their
    effective sample size (summed over the invocations); ``batch``: the length of the batches
    whose means were analysed (1: the values themselves). (Not frozen, as
    :class:`SideValidity`, and :class:`OrderTest`: a side makes one of each, and a frozen
    one takes three times as long to make; nothing changes them once made.)"""

    lag1: float
    effective_n: float
    batch: int = 1
    # The lag-1 autocorrelation exceeds DEPENDENT_Z / √n (values of a one-level sample are
    # batched then, under --dependence batch).
    dependent: bool = False


@dataclass(slots=True)
class OrderTest:
    """A test of the values' order: ``mann-kendall`` (a trend across the run order,
    statistic Kendall's τ) or ``friedman`` (position effects within invocations, statistic
    Friedman's χ²), two-sided."""

    test: str
    statistic: float
    p_value: float

    @property
    def significant(self) -> bool:
        return self.p_value < ORDER_ALPHA


@dataclass(slots=True)
class SideValidity:
    """What the checks found for one side of a benchmark, and what was analysed. (Not frozen,
    as the model's per-benchmark classes: a frozen one takes 1.7 µs to make, 0.35 s at
    100,000 pairs; nothing changes it once made.)"""

    classification: SeriesClass | Literal["inconsistent"]
    consistent: bool | None  # None: one series, or none judged
    classes: tuple[SeriesClass, ...]  # per invocation
    starts: tuple[int, ...]  # per invocation: the first steady value's position
    dropped: int  # values left out before the analysis
    drops: tuple[int, ...]  # per invocation: its first values left out
    warmup: str  # the --warmup asked for: auto, none or a number
    dependence_rule: str  # the --dependence asked for: batch or ignore
    dependence: Dependence | None
    order: OrderTest | None
    values: int  # values analysed
    # Every series as read, in measurement order (for the run-sequence plot): the first
    # ``drops[i]`` values of series i were left out.
    series: tuple[np.ndarray, ...] = ()
    method: str = METHOD
    penalty: float = PENALTY

    @property
    def judged(self) -> bool:
        return any(c != "too short" for c in self.classes)

    @property
    def residual(self) -> tuple[int, ...]:
        """The invocations (from 0) that warm up beyond what was left out of them."""
        return tuple(i for i, (c, start, drop) in enumerate(zip(
            self.classes, self.starts, self.drops, strict=True))
            if c == "warmup" and start > drop)

    @property
    def findings(self) -> tuple[str, ...]:
        """What the checks found that a reader must hear, as the codes of the warnings
        that say it (the report's measurement-quality table reads them too): empty when
        the side looked steady and independent."""
        found = []
        classes, dependence, order = self.classes, self.dependence, self.order
        if self.dropped:
            found.append("warmup-dropped")
        if "warmup" in classes and self.residual:
            found.append("residual-warmup")
        if "slowdown" in classes:
            found.append("series-slowdown")
        if "no steady state" in classes:
            found.append("no-steady-state")
        if self.consistent is False:
            found.append("inconsistent-invocations")
        if dependence is not None and dependence.batch > 1:
            found.append("dependent-values")
        elif dependence is not None and dependence.dependent:
            found.append("dependent-values-ignored")
        if order is not None and order.p_value < ORDER_ALPHA:  # (order.significant)
            found.append("run-order-trend" if order.test == "mann-kendall"
                         else "position-effect")
        return tuple(found)


class WarmupError(ValueError):
    """``--warmup N`` leaves an invocation without values."""


def _series(node) -> Iterator[np.ndarray]:
    """The lowest groups of a hierarchy's nested structure, in measurement order."""
    if isinstance(node, np.ndarray):
        yield node
    else:
        for child in node:
            yield from _series(child)


def _rebuilt(node, replacement: Iterator[np.ndarray]):
    if isinstance(node, np.ndarray):
        return next(replacement)
    return [_rebuilt(child, replacement) for child in node]


def _by_length(arrays: Sequence[np.ndarray], function: Callable[[np.ndarray], Sequence]
               ) -> list:
    """``function`` of each array, computed on the arrays of equal length stacked as the
    rows of one matrix (one numpy call for thousands of series)."""
    found: list = [None] * len(arrays)
    by_length: dict[int, list[int]] = {}
    for position, array in enumerate(arrays):
        by_length.setdefault(len(array), []).append(position)
    for positions in by_length.values():
        # (in chunks: a row's pairwise matrices take n² cells)
        size = len(arrays[positions[0]])
        chunk = max(1, CHUNK_CELLS // max(1, size * size))
        for first in range(0, len(positions), chunk):
            part = positions[first:first + chunk]
            for position, value in zip(part, function(np.stack([arrays[p] for p in part])),
                                       strict=True):
                found[position] = value
    return found


#: Cells of the matrices that a batched computation makes at once.
CHUNK_CELLS = 1 << 22


def _logs(rows: np.ndarray) -> np.ndarray:
    """The log of each row of times; rows with a zero or negative time as they are."""
    with np.errstate(divide="ignore", invalid="ignore"):
        logged = np.log(rows)
    bad = ~np.isfinite(logged).all(axis=1)
    logged[bad] = rows[bad]
    return logged


def lag1_rows(rows: np.ndarray) -> np.ndarray:
    """The lag-1 sample autocorrelation r₁ = Σ (xₜ − x̄)(xₜ₊₁ − x̄) / Σ (xₜ − x̄)² of each
    row (0 for a constant row)."""
    centred = rows - rows.mean(axis=1, keepdims=True)
    total = np.einsum("ij,ij->i", centred, centred)
    products = np.einsum("ij,ij->i", centred[:, :-1], centred[:, 1:])
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = products / total
    # (a constant row: its mean may be an ulp off its values, leaving equal residues)
    constant = rows.min(axis=1) == rows.max(axis=1)
    return np.where((total > 0) & np.isfinite(total) & ~constant, r1, 0.0)


def lag1(series: np.ndarray) -> float:
    """:func:`lag1_rows` of one series."""
    return float(lag1_rows(np.asarray(series, dtype=float)[None, :])[0])


def effective_size(n: int, r1: float) -> float:
    """Effective sample size of n values with lag-1 autocorrelation r₁, as an AR(1) process
    has: n (1 − r₁)/(1 + r₁), at most n."""
    r1 = min(max(r1, -0.99), 0.99)
    return min(float(n), n * (1 - r1) / (1 + r1))


def _noise_rows(logged: np.ndarray) -> np.ndarray:
    """The long-run variance of each row's noise, from its second half (the part most likely
    steady) without its best single step (a late step, or the end of a warm-up longer than
    half the series, is not taken for noise): its variance times (1 + r)/(1 − r),
    r its lag-1 autocorrelation, and at least NOISE_FLOOR (a constant tail, times at a
    timer's resolution, would give a variance of 0 or 1e-31 by rounding alone). The values
    beyond 6 MADs of its median are brought back to that bound for the variance (a rare spike
    does not hide a warm-up; real times are often multimodal, which a MAD alone would take
    for change points), and beyond 3 MADs for r (spikes would dilute it): see
    benchmarks/warmup_detection.py."""
    tail = _without_one_step(logged[:, logged.shape[1] // 2:])
    centre = _row_medians(tail)
    mad = 1.4826 * _row_medians(np.abs(tail - centre))
    wide = np.where(mad > 0, np.clip(tail, centre - 6 * mad, centre + 6 * mad), tail)
    narrow = np.where(mad > 0, np.clip(tail, centre - 3 * mad, centre + 3 * mad), tail)
    r1 = np.clip(lag1_rows(narrow), 0.0, 0.9)
    return np.maximum(wide.var(axis=1) * (1 + r1) / (1 - r1), NOISE_FLOOR)


def _row_medians(rows: np.ndarray) -> np.ndarray:
    """``np.median(rows, axis=1, keepdims=True)`` from the rows sorted (a seventh of its
    time on 2,048 rows of 16): the middle value, or the mean of the two middle ones as
    ``np.median`` takes it, (a + b) / 2; the same numbers but for the sign of a median of
    zero, where -0.0 and 0.0 are both in the middle (:func:`_noise_rows` takes the
    median's distances and bounds, which do not see it). Rows with a NaN go to
    ``np.median``."""
    if not rows.size or np.isnan(rows).any():
        return np.median(rows, axis=1, keepdims=True)
    ordered = np.sort(rows, axis=1)
    middle = rows.shape[1] // 2
    if rows.shape[1] % 2:
        return ordered[:, middle:middle + 1] / 1
    return (ordered[:, middle - 1:middle] + ordered[:, middle:middle + 1]) / 2


def _without_one_step(rows: np.ndarray) -> np.ndarray:
    """Each row minus its best single step (the split into two parts, each of at least a
    quarter of the row, with the least squared error; its two means taken out) when that
    step exceeds STEP times the spread around it, so that a level shift inside the part the
    noise is estimated on is not taken for noise."""
    length = rows.shape[1]
    shortest = max(2, length // 4)
    if length < 2 * shortest:
        return rows
    sums = np.cumsum(rows, axis=1)
    squares = np.cumsum(rows * rows, axis=1)
    splits = np.arange(shortest, length - shortest + 1)
    left_sum = sums[:, shortest - 1:length - shortest]  # (sums[:, splits - 1])
    left_squares = squares[:, shortest - 1:length - shortest]
    right_sum, right_squares = sums[:, -1:] - left_sum, squares[:, -1:] - left_squares
    errors = (left_squares - left_sum**2 / splits
              + right_squares - right_sum**2 / (length - splits))
    best = splits[np.argmin(errors, axis=1)]
    positions = np.arange(length)[None, :]
    before = positions < best[:, None]
    left_mean = np.take_along_axis(sums, best[:, None] - 1, axis=1) / best[:, None]
    right_mean = ((sums[:, -1:] - np.take_along_axis(sums, best[:, None] - 1, axis=1))
                  / (length - best[:, None]))
    centred = rows - np.where(before, left_mean, right_mean)
    # Only a step far beyond the noise around it (a wandering series has steps too: they
    # are its noise).
    spread = centred.std(axis=1, keepdims=True)
    clear = np.abs(left_mean - right_mean) > STEP * spread
    return np.where(clear, centred + rows.mean(axis=1, keepdims=True), rows)


def _steady_rows(rows: np.ndarray, penalty: float) -> list[SteadyState]:
    logged = _logs(rows)
    length = logged.shape[1]
    edges = None
    if length > MAX_POINTS:
        # Change points of the means of MAX_POINTS consecutive blocks: PELT takes n² steps
        # on a series without change (30,000 values: 43 s); the start is then found to
        # within a block (n / MAX_POINTS values).
        edges = np.linspace(0, length, MAX_POINTS + 1).astype(int)
        logged = np.add.reduceat(logged, edges[:-1], axis=1) / np.diff(edges)
    noises = _noise_rows(logged)
    partitions = optimal_partitions(logged, penalty * noises * math.log(logged.shape[1]))
    # (one segment is flat: the rows of several are looked at)
    found = [_FLAT] * len(partitions)
    noise_of = noises.tolist()
    for row, ends in enumerate(partitions):
        if len(ends) > 1:
            found[row] = _segmented(logged[row], noise_of[row], ends)
    if edges is None:
        return found
    return [SteadyState(state.classification, int(edges[state.start]), state.segments)
            for state in found]


def steady_states(series: Sequence[np.ndarray], penalty: float = PENALTY
                  ) -> list[SteadyState]:
    """The steady state of each series of times in measurement order (see the module's
    docstring for the method); series shorter than MIN_SERIES are ``too short``."""
    found: list[SteadyState] = [_TOO_SHORT] * len(series)
    judged = [position for position, one in enumerate(series) if len(one) >= MIN_SERIES]
    states = _by_length([np.asarray(series[p], dtype=float) for p in judged],
                        lambda rows: _steady_rows(rows, penalty))
    for position, state in zip(judged, states, strict=True):
        found[position] = state
    return found


def steady_state(series: np.ndarray, penalty: float = PENALTY) -> SteadyState:
    """:func:`steady_states` of one series."""
    return steady_states([series], penalty)[0]


_TOO_SHORT = SteadyState("too short", 0, 1)
_FLAT = SteadyState("flat", 0, 1)


def optimal_partitions(rows: np.ndarray, penalties: np.ndarray, min_size: int = 2
                       ) -> list[list[int]]:
    """The segmentation of each row that minimises the squared error around each segment's
    mean plus ``penalties[row]`` per segment, segments of at least ``min_size`` values: the
    ends of its segments (the last is the row's length).

    Optimal partitioning (Jackson et al., IEEE Signal Processing Letters 2005), the exact
    minimum that PELT (Killick, Fearnhead & Eckley, JASA 2012) finds with pruning, computed
    for all the rows at once: n steps of numpy on the rows, where ``ruptures`` (tested to
    give the same segmentations: tests/stats/test_steady.py) takes a call per row and 1 s to
    import, half of the checks' time on 10,000 pairs.

    Most rows are one segment (a flat series): :func:`_one_segment` finds them by the
    minimum costs alone, and only the others are partitioned with the start chosen at each
    step (:func:`_partitions`), the same arithmetic on the same numbers."""
    m, n = rows.shape
    centred = rows - rows.mean(axis=1, keepdims=True)  # (cumulative sums cancel less)
    sums = np.zeros((m, n + 1))
    squares = np.zeros((m, n + 1))
    np.cumsum(centred, axis=1, out=sums[:, 1:])
    np.cumsum(centred * centred, axis=1, out=squares[:, 1:])
    single = _one_segment(sums, squares, penalties, min_size)
    if single is None:
        return _partitions(sums, squares, penalties, min_size)
    partitions = [[n] for _ in range(m)]
    others = np.flatnonzero(~single)
    if others.size:
        for row, ends in zip(others.tolist(), _partitions(
                sums[others], squares[others], penalties[others], min_size), strict=True):
            partitions[row] = ends
    return partitions


def _partitions(sums: np.ndarray, squares: np.ndarray, penalties: np.ndarray, min_size: int
                ) -> list[list[int]]:
    """:func:`optimal_partitions` of the rows whose cumulative sums (from 0) of the centred
    values and of their squares are ``sums`` and ``squares``."""
    m, n = sums.shape[0], sums.shape[1] - 1
    best = np.full((m, n + 1), np.inf)
    best[:, 0] = -penalties
    previous = np.zeros((m, n + 1), dtype=np.int64)
    every = np.arange(m)
    for end in range(min_size, n + 1):
        starts = np.r_[0, np.arange(min_size, end - min_size + 1)]
        lengths = end - starts
        sum_ = sums[:, end, None] - sums[:, starts]
        cost = squares[:, end, None] - squares[:, starts] - sum_ * sum_ / lengths
        total = best[:, starts] + np.maximum(cost, 0.0)
        choice = np.argmin(total, axis=1)
        best[:, end] = total[every, choice] + penalties
        previous[:, end] = starts[choice]
    partitions = []
    for row in previous.tolist():
        ends, end = [n], n
        while row[end] > 0:
            end = row[end]
            ends.append(end)
        partitions.append(ends[::-1])
    return partitions


def _one_segment(sums: np.ndarray, squares: np.ndarray, penalties: np.ndarray,
                 min_size: int) -> np.ndarray | None:
    """Which rows :func:`_partitions` leaves in one segment, without its choices: the same
    minimum cost at each end (the same sums, in the same order, on the same numbers; the
    minimum of the candidates rather than the candidate that reaches it), with the
    candidates as the rows of an array whose columns are the series (each step's arithmetic
    on contiguous memory, no gathering). A row is one segment when, at its last end, the
    segment from 0 costs no more than any other (``argmin`` takes the first of equal
    minima, and 0 is the first start). None where a value is not finite (a NaN's place
    among the candidates would matter): then every row is partitioned."""
    if not (np.isfinite(sums).all() and np.isfinite(squares).all()
            and np.isfinite(penalties).all()):
        return None
    m, n = sums.shape[0], sums.shape[1] - 1
    sums_by_end = np.ascontiguousarray(sums.T)  # [end, row]
    squares_by_end = np.ascontiguousarray(squares.T)
    best = np.empty_like(sums_by_end)
    best[0] = -penalties
    # (each step's arrays in the same two buffers: fresh ones of this size are each a new
    # mapping of memory and its page faults, unless the allocator keeps them)
    spread, cost = np.empty((n, m)), np.empty((n, m))
    starts = np.arange(n + 1)[:, None]
    single = None
    for end in range(min_size, n + 1):
        sum_ = sums_by_end[end] - sums_by_end[0]
        from_zero = squares_by_end[end] - squares_by_end[0] - sum_ * sum_ / end
        np.maximum(from_zero, 0.0, out=from_zero)
        from_zero += best[0]
        last = end - min_size
        if last < min_size:
            if end == n:
                single = np.ones(m, dtype=bool)
            best[end] = from_zero + penalties
            continue
        # candidates min_size … last, as in _partitions: (Q[e] − Q[s]) − (S[e] − S[s])² / (e − s)
        candidates = slice(min_size, last + 1)
        count = last + 1 - min_size
        part, total = spread[:count], cost[:count]
        np.subtract(sums_by_end[end], sums_by_end[candidates], out=part)
        np.multiply(part, part, out=part)
        np.divide(part, end - starts[candidates], out=part)
        np.subtract(squares_by_end[end], squares_by_end[candidates], out=total)
        np.subtract(total, part, out=total)
        np.maximum(total, 0.0, out=total)
        total += best[candidates]
        others = total.min(axis=0)
        if end == n:
            single = from_zero <= others
        best[end] = np.minimum(from_zero, others) + penalties
    return single


def _segmented(logged: np.ndarray, noise: float, ends: list[int]) -> SteadyState:
    """The steady state of one series of log times whose noise has long-run variance
    ``noise`` and whose segments end at ``ends``.

    The steady level is the pooled mean of the last long segment and of every earlier
    segment equivalent to it; it extends back over excursions (runs of segments that are not
    equivalent, a garbage collection or another process) of at most EXCURSION of the
    series when an equivalent segment precedes them. What comes before is the warm-up
    (slower on average) or the slowdown's first phase (faster)."""
    n = len(logged)
    if len(ends) == 1:
        return _FLAT
    bounds = [0, *(int(end) for end in ends)]
    sizes = [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)]
    means = [float(logged[bounds[i]:bounds[i + 1]].mean()) for i in range(len(sizes))]
    sd = math.sqrt(noise)
    excursion = max(SPIKE, EXCURSION * n)
    # The reference is the last segment longer than a spike before an excursion at the end
    # (which belongs to the steady state).
    last = position = len(sizes) - 1
    trailing = 0
    while position > 0 and trailing + sizes[position] <= excursion:
        trailing += sizes[position]
        position -= 1
        if sizes[position] > SPIKE:
            last = position
            break
    total, count = means[last] * sizes[last], sizes[last]  # the steady level, pooled
    steady = last
    pending = 0  # values of the excursion being crossed
    for position in range(last - 1, -1, -1):
        level = total / count
        error = sd * math.sqrt(1 / sizes[position] + 1 / count)
        if abs(means[position] - level) <= max(EQUIVALENT, EQUIVALENT_Z * error):
            steady, pending = position, 0
            total += means[position] * sizes[position]
            count += sizes[position]
            continue
        pending += sizes[position]
        if pending > excursion:
            break
    start = bounds[steady]
    if start == 0:
        return SteadyState("flat", 0, len(sizes))
    if n - start < STEADY_SHARE * n:
        return SteadyState("no steady state", 0, len(sizes))
    before = float(logged[:start].mean())
    return SteadyState("warmup" if before > total / count else "slowdown", start, len(sizes))


def circular_block_length(series: np.ndarray) -> float:
    """Politis & White's automatic block length of the circular block bootstrap (Politis &
    White, Econometric Reviews 2004, with the correction of Patton, Politis & White 2009):
    b = (2 g² / d)^(1/3) n^(1/3), g = Σ λ(k/m) |k| γ̂ₖ, d = 4/3 (Σ λ(k/m) γ̂ₖ)², λ the
    flat-top window, m from the first kₙ insignificant autocorrelations.

    As ``arch.bootstrap.optimal_block_length`` computes it, to the last digit
    (tests/stats/test_steady.py), written out here: importing arch takes a second and
    statsmodels with it, for twenty lines of arithmetic."""
    x = np.asarray(series, dtype=float)
    n = len(x)
    eps = x - x.mean()
    b_max = math.ceil(min(3 * math.sqrt(n), n / 3))
    kn = max(5, int(math.log10(n)))
    m_max = math.ceil(math.sqrt(n)) + kn
    bound = 2 * math.sqrt(math.log10(n) / n)
    acv = np.zeros(m_max + 1)
    abs_acorr = np.zeros(m_max + 1)
    chosen: int | None = None
    for i in range(m_max + 1):
        v1 = eps[i + 1:] @ eps[i + 1:]
        v2 = eps[:-(i + 1)] @ eps[:-(i + 1)]
        cross = eps[i:] @ eps[:n - i]
        acv[i] = cross / n
        abs_acorr[i] = abs(cross) / math.sqrt(v1 * v2) if v1 * v2 > 0 else 0.0
        if i >= kn and chosen is None and np.all(abs_acorr[i - kn:i] < bound):
            chosen = i - kn
    m = min(2 * max(chosen, 1) if chosen is not None else m_max, m_max)
    g = 0.0
    long_run = acv[0]
    for k in range(1, m + 1):
        weight = 1 if k / m <= 1 / 2 else 2 * (1 - k / m)
        g += 2 * weight * k * acv[k]
        long_run += 2 * weight * acv[k]
    if long_run == 0:
        return 1.0
    return min(((2 * g**2) / (4 / 3 * long_run**2)) ** (1 / 3) * n ** (1 / 3), b_max)


def batch_length(series: np.ndarray) -> int:
    """BATCH_FACTOR × :func:`circular_block_length`, rounded up: the length over which the
    series' values stay dependent."""
    return max(1, math.ceil(BATCH_FACTOR * circular_block_length(series)))


def batch_means(series: np.ndarray) -> tuple[list[np.ndarray], int]:
    """The series cut into consecutive batches of about :func:`batch_length` values (every
    value in one, at least MIN_BATCHES batches), and that length."""
    length = min(batch_length(series), len(series) // MIN_BATCHES)
    if length < 2:
        return [series], 1
    return np.array_split(series, len(series) // length), length


def mann_kendall_rows(rows: np.ndarray) -> list[OrderTest]:
    """Mann–Kendall's test of a monotone trend across the positions of each row: Kendall's
    τ-b between position and value, two-sided, by the normal approximation of S = Σᵢ<ⱼ
    sign(xⱼ − xᵢ) with the tie correction of its variance and no continuity correction
    (Kendall, *Rank correlation methods*, 1975; R's ``cor.test(method = "kendall",
    exact = FALSE, continuity = FALSE)``: tests/stats/test_steady_against_r.py)."""
    tau, p_value = _mann_kendall_arrays(rows)
    return [OrderTest("mann-kendall", t, p) for t, p in zip(tau, p_value, strict=True)]


def _mann_kendall_arrays(rows: np.ndarray) -> tuple[list[float], list[float]]:
    """Kendall's τ and the p-value of :func:`mann_kendall_rows` for each row, as two
    lists."""
    m, n = rows.shape
    if n > MAX_PAIRWISE:  # (the pairs below would take n² memory): O(n log n) in scipy
        from scipy import stats

        found = [stats.kendalltau(np.arange(n), row, method="asymptotic") for row in rows]
        return ([float(result.statistic) for result in found],
                [float(result.pvalue) for result in found])
    from scipy import special

    s = _kendall_s(rows)
    pairs = n * (n - 1) / 2
    # Σ t(t − 1)(2t + 5) over each row's groups of tied values (t values each), and the
    # tied pairs Σ t(t − 1)/2: the groups are the runs of its sorted values, counted for
    # the rows that have a tie, all at once (0 for the others).
    ordered = np.sort(rows, axis=1)
    equal = ordered[:, 1:] == ordered[:, :-1]
    correction = np.zeros(m)
    tied = np.zeros(m)
    with_ties = np.flatnonzero(equal.any(axis=1))
    if with_ties.size:
        group = np.zeros((with_ties.size, n), dtype=np.int64)
        np.cumsum(~equal[with_ties], axis=1, out=group[:, 1:])
        sizes = np.bincount((group + n * np.arange(with_ties.size)[:, None]).ravel(),
                            minlength=with_ties.size * n).reshape(-1, n).astype(float)
        correction[with_ties] = (sizes * (sizes - 1) * (2 * sizes + 5)).sum(axis=1)
        if np.isfinite(rows).all():
            tied[with_ties] = (sizes * (sizes - 1) / 2).sum(axis=1)
        else:  # (an infinite value equals itself in a group, but ∞ − ∞ is not a tie)
            for i in range(n - 1):
                tied += np.count_nonzero(rows[:, i + 1:] == rows[:, i:i + 1], axis=1) * (
                    np.isfinite(rows[:, i:i + 1]).ravel())
    variance = (n * (n - 1) * (2 * n + 5) - correction) / 18
    usable = (variance > 0) & (tied < pairs)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = np.where(usable, s / np.sqrt(pairs * (pairs - tied)), 0.0)
        p_value = np.where(usable, special.erfc(np.abs(s) / np.sqrt(2 * variance)), 1.0)
    return tau.tolist(), p_value.tolist()


def _kendall_s(rows: np.ndarray) -> np.ndarray:
    """S = Σᵢ<ⱼ sign(xⱼ − xᵢ) of each row, as floats. The positions are the rows of an
    array whose columns are the series: x_j against x_i for every j > i is a comparison of
    contiguous slices, for every series at once, whose ±1 are counted in small integers
    (at most n − 1 per cell) and summed at the end: sums of ±1 and 0, exact in any order.
    Rows with a value that is not finite take the signs of the differences (sign(∞ − ∞)
    and a NaN's are NaN, which no comparison gives)."""
    m, n = rows.shape
    by_position = np.ascontiguousarray(rows.T)
    if not np.isfinite(by_position).all():
        s = np.zeros(m)
        with np.errstate(invalid="ignore"):
            for i in range(n - 1):
                s += np.sign(by_position[i + 1:] - by_position[i]).sum(axis=0)
        return s
    counts = np.zeros((max(n - 1, 0), m), dtype=np.int8 if n <= 128 else np.int32)
    above = np.empty(counts.shape, dtype=bool)  # (buffers for every step's: _one_segment)
    below = np.empty(counts.shape, dtype=bool)
    for i in range(n - 1):
        size = n - 1 - i
        np.greater(by_position[i + 1:], by_position[i], out=above[:size])
        np.less(by_position[i + 1:], by_position[i], out=below[:size])
        counts[:size] += above[:size]
        counts[:size] -= below[:size]
    return counts.sum(axis=0, dtype=np.int64).astype(float)


def mann_kendall(series: np.ndarray) -> OrderTest:
    """:func:`mann_kendall_rows` of one series."""
    return mann_kendall_rows(np.asarray(series, dtype=float)[None, :])[0]


def position_effect(groups: list[np.ndarray]) -> OrderTest | None:
    """Friedman's test that the values' position within their invocation matters, over the
    first L positions of every invocation (L the shortest invocation's length); None with
    fewer than 3 invocations or positions."""
    length = min(len(group) for group in groups)
    if len(groups) < 3 or length < 3:
        return None
    from scipy import stats

    table = np.stack([group[:length] for group in groups])
    if np.ptp(table) == 0:
        return None
    result = stats.friedmanchisquare(*table.T)
    if not math.isfinite(result.pvalue):  # every invocation constant: no ranks to compare
        return None
    return OrderTest("friedman", float(result.statistic), float(result.pvalue))


def _dropped_by(warmup: str, found: SteadyState) -> int:
    if warmup == "none":
        return 0
    if warmup == "auto":
        return found.start if found.classification == "warmup" else 0
    return int(warmup)


def check_side(sample: Hierarchy, warmup: str = "auto", dependence: str = "batch"
               ) -> tuple[Hierarchy, SideValidity]:
    """:func:`check_sides` of one sample; raises :class:`WarmupError` where that gives
    one."""
    found = check_sides([sample], warmup, dependence)[0]
    if isinstance(found, WarmupError):
        raise found
    return found


def check_sides(samples: Sequence[Hierarchy], warmup: str = "auto",
                dependence: str = "batch",
                checked: Sequence[tuple[SeriesMatrix, RowChecks]] | None = None
                ) -> list[tuple[Hierarchy, SideValidity] | WarmupError]:
    """Check each sample's series and give the sample to analyse: its warm-ups dropped as
    ``warmup`` asks (``auto``: each invocation's detected warm-up, ``none``, or a number of
    values), and for a one-level sample of dependent values, its batches (``dependence``
    ``batch``; ``ignore``: the values as they are); or the :class:`WarmupError` when
    ``warmup`` leaves one of its invocations without values. The series of all the samples
    are checked together, those of equal length as one matrix.

    ``checked``: each matrix of :func:`plain_series` (``samples``) with its
    :func:`row_checks` (``trend``: :func:`trends_checked` (``warmup``)), however computed (a
    process beside this one may have computed them: each row's numbers depend on that row
    alone); None: computed here."""
    return _check_sides(samples, warmup, dependence, checked=checked)


@dataclass(slots=True)
class SeriesMatrix:
    """One-level samples of equal length, whose series :func:`check_sides` checks together:
    their positions among the samples, and their series as the rows of a matrix."""

    length: int
    positions: list[int]
    rows: np.ndarray


@dataclass(slots=True)
class RowChecks:
    """The array work of the checks of a :class:`SeriesMatrix`, what :func:`check_sides`
    makes each row's findings of: the rows' steady states, their lag-1 autocorrelations and
    Mann–Kendall's τ and p-value (None: the series are too short for them, or the trend was
    not asked for)."""

    states: list[SteadyState]
    lag1: np.ndarray | None
    tau: list[float] | None
    p_value: list[float] | None


def row_checks(rows: np.ndarray, trend: bool = True) -> RowChecks:
    """The :class:`RowChecks` of ``rows`` (one series per row, float64); ``trend``: with
    Mann–Kendall's tests (:func:`trends_checked`)."""
    length = rows.shape[1]
    states = _steady_rows(rows, PENALTY) if length >= MIN_SERIES else [_TOO_SHORT] * len(rows)
    if length < MIN_DEPENDENCE:
        return RowChecks(states, None, None, None)
    tau, p_value = _mann_kendall_arrays(rows) if trend else (None, None)
    return RowChecks(states, lag1_rows(rows), tau, p_value)


def trends_checked(warmup: str) -> bool:
    """Whether the one-level series checked as rows need their trend tests: not when
    ``warmup`` is a number of values, which every series then loses before its test."""
    return warmup in ("auto", "none") or int(warmup) == 0


def plain_series(samples: Sequence[Hierarchy]) -> list[SeriesMatrix]:
    """The matrices of series that :func:`check_sides` checks with array work
    (:func:`row_checks`), in its order: the one-level samples (a non-empty float64 vector)
    of each length, stacked as rows, in chunks."""
    plain: dict[int, list[int]] = {}
    for position, sample in enumerate(samples):
        root = sample.root
        if (type(root) is np.ndarray and root.dtype == np.float64 and root.ndim == 1
                and root.size):
            plain.setdefault(root.size, []).append(position)
    matrices = []
    for length, positions in plain.items():
        chunk = max(1, CHUNK_CELLS // (length * length))
        for first in range(0, len(positions), chunk):
            part = positions[first:first + chunk]
            matrices.append(SeriesMatrix(length, part, np.stack(
                [samples[position].root for position in part])))
    return matrices


def _check_sides(samples: Sequence[Hierarchy], warmup: str, dependence: str,
                 plain_rows: bool = True,
                 checked: Sequence[tuple[SeriesMatrix, RowChecks]] | None = None
                 ) -> list[tuple[Hierarchy, SideValidity] | WarmupError]:
    """:func:`check_sides`; ``plain_rows``: the one-level samples that keep all their values
    as they are (the common case) checked as the rows of one matrix per length, start to
    end (:func:`_check_plain`); False: every sample the general way (:func:`_check_general`,
    what the tests compare them with)."""
    results: list = [None] * len(samples)
    if checked is None:
        trend = trends_checked(warmup)
        checked = ([(matrix, row_checks(matrix.rows, trend)) for matrix in plain_series(samples)]
                   if plain_rows else [])
    elif trends_checked(warmup) and any(found.lag1 is not None and found.tau is None
                                        for _, found in checked):
        raise ValueError("row checks made without the trend tests that warmup "
                         f"{warmup!r} needs (row_checks(rows, trend=True))")
    in_matrices = {position for matrix, _ in checked for position in matrix.positions}
    general: list[tuple[int, list[SteadyState] | None]] = [
        (position, None) for position in range(len(samples)) if position not in in_matrices]
    for matrix, found in checked:
        general += _check_plain(samples, matrix, found, warmup, dependence, results)
    if general:
        _check_general(samples, general, warmup, dependence, results)
    return results


def _check_plain(samples: Sequence[Hierarchy], matrix: SeriesMatrix, found: RowChecks,
                 warmup: str, dependence: str, results: list
                 ) -> list[tuple[int, list[SteadyState]]]:
    """The checks of the one-level samples of ``matrix`` (into ``results``) whose values
    are all analysed as they are: none left out, not batched, made from the
    :func:`row_checks` of its rows (``found``: the same functions on the same rows as
    :func:`_check_general`'s; each row's numbers do not depend on the others'). The others
    (warm-up values to leave out, values to batch) are returned with their steady states,
    for :func:`_check_general`."""
    part, length = matrix.positions, matrix.length
    number = None if warmup in ("auto", "none") else int(warmup)
    measured = found.lag1 is not None
    states = found.states
    analysed_as_is = np.ones(len(part), dtype=bool)
    if number or warmup == "auto":  # (a warm-up starts after its first value)
        analysed_as_is[[row for row, state in enumerate(states)
                        if number or state.classification == "warmup"]] = False
    if measured:
        r1 = found.lag1
        # (as the mean and the sum over the invocations: 0 + r₁, / 1; 0 + n_eff)
        lags = r1 + 0.0
        dependent = lags > DEPENDENT_Z / math.sqrt(length)
        if dependence == "batch":
            analysed_as_is &= ~dependent
        clipped = np.minimum(np.maximum(r1, -0.99), 0.99)  # effective_size, each row
        effective = (np.minimum(float(length), length * (1 - clipped) / (1 + clipped))
                     + 0.0).tolist()
        lags, dependent = lags.tolist(), dependent.tolist()
    as_is = analysed_as_is.tolist()
    kept = [row for row, keep in enumerate(as_is) if keep]
    others = [(position, [states[row]]) for row, position in enumerate(part) if not as_is[row]]
    dependence_found = order = None
    for row in kept:
        position, state = part[row], states[row]
        sample = samples[position]
        if measured:
            dependence_found = Dependence(lags[row], effective[row], 1, dependent[row])
            order = OrderTest("mann-kendall", found.tau[row], found.p_value[row])
        classification = state.classification
        results[position] = (sample, SideValidity(
            classification, None, _ONE_CLASS[classification], (state.start,), 0,
            _NO_DROP, warmup, dependence, dependence_found, order, length, (sample.root,)))
    return others


#: A single series' classes, and its drops when nothing is left out.
_ONE_CLASS = {name: (name,) for name in (
    "flat", "warmup", "slowdown", "no steady state", "too short")}
_NO_DROP = (0,)


def _check_general(samples: Sequence[Hierarchy],
                   todo: list[tuple[int, list[SteadyState] | None]], warmup: str,
                   dependence: str, results: list) -> None:
    """The checks of the samples at the positions of ``todo`` (into ``results``), each with
    the steady states of its series when already known (None: found here, all together)."""
    chosen = [samples[position] for position, _ in todo]
    groups_of = [list(_series(sample.root)) for sample in chosen]
    unknown = [group for (_, known), groups in zip(todo, groups_of, strict=True)
               if known is None for group in groups]
    states = iter(steady_states(unknown))
    found_of = [known if known is not None else [next(states) for _ in groups]
                for (_, known), groups in zip(todo, groups_of, strict=True)]
    kept_of: list[list[np.ndarray] | None] = []
    drops_of: list[list[int]] = []
    for groups, found in zip(groups_of, found_of, strict=True):
        drops = [_dropped_by(warmup, state) for state in found]
        drops_of.append(drops)
        if any(drop >= len(group) for group, drop in zip(groups, drops, strict=True)):
            kept_of.append(None)
        else:
            kept_of.append([group[drop:] if drop else group
                            for group, drop in zip(groups, drops, strict=True)])
    long_enough = [group for kept in kept_of if kept for group in kept
                   if len(group) >= MIN_DEPENDENCE]
    lag1_of = dict(zip(map(id, long_enough), _by_length(long_enough, lag1_rows), strict=True))
    prepared: list = []
    for sample, groups, drops, kept in zip(chosen, groups_of, drops_of, kept_of, strict=True):
        if kept is None:
            number, group = next((n, g) for n, (g, d) in enumerate(zip(
                groups, drops, strict=True), start=1) if d >= len(g))
            where = f" of invocation {number}" if len(groups) > 1 else ""
            prepared.append(WarmupError(f"--warmup {warmup} leaves none of the {len(group)} "
                                        f"values{where}"))
        else:
            prepared.append(_prepared(sample, drops, kept, lag1_of, dependence))
    # Mann–Kendall's test of the one-level samples' units, all together.
    trended = [position for position, ready in enumerate(prepared)
               if not isinstance(ready, WarmupError) and ready[2] is _PENDING]
    trends = dict(zip(trended, _by_length([prepared[p][0].top_level_means for p in trended],
                                          mann_kendall_rows), strict=True))
    for position, ((target, _), ready, groups, found, drops, kept) in enumerate(zip(
            todo, prepared, groups_of, found_of, drops_of, kept_of, strict=True)):
        if isinstance(ready, WarmupError):
            results[target] = ready
            continue
        analysed, dependence_found, order = ready
        classes = tuple(state.classification for state in found)
        judged = [c for c in classes if c != "too short"]
        consistent = len(set(judged)) == 1 if len(judged) > 1 else None
        classification = ("too short" if not judged else "inconsistent"
                          if consistent is False else judged[0])
        results[target] = (analysed, SideValidity(
            classification=classification, consistent=consistent, classes=classes,
            starts=tuple(state.start for state in found), dropped=sum(drops),
            drops=tuple(drops), warmup=warmup, dependence_rule=dependence,
            dependence=dependence_found, order=trends.get(position, order),
            values=sum(len(group) for group in kept), series=tuple(groups)))


_PENDING = OrderTest("pending", math.nan, math.nan)  # a Mann–Kendall test to compute


def _prepared(sample: Hierarchy, drops: list[int], kept: list[np.ndarray],
              lag1_of: dict[int, float], dependence: str
              ) -> tuple[Hierarchy, Dependence | None, OrderTest | None]:
    """The sample to analyse (warm-ups left out, dependent one-level values batched), its
    dependence, and its order test (``_PENDING``: Mann–Kendall's, computed for all the
    samples at once)."""
    analysed = sample if not any(drops) else Hierarchy(_rebuilt(sample.root, iter(kept)),
                                                       sample.level_names)
    measured = [(len(group), lag1_of[id(group)]) for group in kept
                if len(group) >= MIN_DEPENDENCE]
    found = None
    if measured:
        found = Dependence(sum(r1 for _, r1 in measured) / len(measured),
                           sum(effective_size(n, r1) for n, r1 in measured))
    if not isinstance(analysed.root, np.ndarray):
        return analysed, found, position_effect(kept)
    values = analysed.root  # one level: the values are the units
    if found is not None and found.lag1 > DEPENDENT_Z / math.sqrt(len(values)):
        found = Dependence(found.lag1, found.effective_n, dependent=True)
        if dependence == "batch":
            batches, length = batch_means(values)
            if length > 1:
                found = Dependence(found.lag1, found.effective_n, length, dependent=True)
                analysed = Hierarchy(batches, ("batch", *analysed.level_names))
    units = analysed.top_level_means.size
    return analysed, found, _PENDING if len(values) >= MIN_DEPENDENCE and units >= \
        MIN_DEPENDENCE else None


@dataclass(frozen=True, slots=True)
class MeasurementAdvice:
    """What a side's checks mean for planning the next experiment: the first values to
    leave out of each invocation (the latest detected warm-up start), and the effective
    iterations per invocation of its steady values (None: too short to say)."""

    invocations: int
    warmups: int  # invocations with a detected warm-up
    discard: int
    iterations: float  # steady values per invocation, on average
    effective: float | None
    lag1: float | None


def measurement_advice(validity: SideValidity) -> MeasurementAdvice:
    """:class:`MeasurementAdvice` from one side's checks."""
    warmups = [start for start, c in zip(validity.starts, validity.classes, strict=True)
               if c == "warmup"]
    invocations = len(validity.classes)
    dependence = validity.dependence
    return MeasurementAdvice(
        invocations, len(warmups), max(warmups, default=0), validity.values / invocations,
        dependence.effective_n / invocations if dependence else None,
        dependence.lag1 if dependence else None)

"""Measurement validity: steady state, dependence and order of the values of one side.

Every test of the protocol takes its values as independent draws of one steady distribution.
A benchmark's series (its values in measurement order, one per invocation of the program)
often are not: a JIT or VM warms up, a long invocation drifts, iterations are autocorrelated.
This module checks each series and makes what the analysis takes from it:

- **Steady state.** Change points of each series found by PELT (Killick, Fearnhead & Eckley,
  JASA 2012) with a squared-error cost on the log times (a change of mean: the same relative
  change is the same cost whatever the time scale), from ``ruptures`` (its kernel change-point
  detection with the linear kernel is that cost, computed in C). The steady segment is the last
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
  White's automatic block length (Politis & White 2004, Patton, Politis & White 2009; from
  ``arch.bootstrap``). The protocol then runs on the batch means and the effect-size
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
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from speeduptest.stats.hierarchy import Hierarchy

SeriesClass = Literal["flat", "warmup", "slowdown", "no steady state", "too short"]

#: Series shorter than this are not judged for a steady state: their values are kept as they
#: are and the report says so (benchmarks/warmup_detection.py: below it, too many flat
#: series get a false warm-up or too few warm-ups are found).
MIN_SERIES = 30
#: Series shorter than this get no autocorrelation (its estimate is mostly noise).
MIN_DEPENDENCE = 10
#: PELT's penalty per change point: PENALTY × σ² × log n, σ² the long-run variance of the log
#: times (their variance times (1 + r)/(1 − r) for autocorrelated values): a BIC-like penalty
#: that autocorrelated noise alone does not pass.
PENALTY = 4.0
#: Segments whose mean log times differ by less than this (1%) are the same steady state.
EQUIVALENT = 0.01
#: ... or by less than this many standard errors of their difference.
EQUIVALENT_Z = 3.0
#: The steady segment must cover at least this share of the end of the series.
STEADY_SHARE = 0.25
#: Segments this short (or shorter) between two steady ones are spikes, not a phase.
SPIKE = 3
#: A one-level sample is batched when its lag-1 autocorrelation exceeds this many standard
#: errors of it under independence (1/√n): 0.13% of independent samples are batched.
DEPENDENT_Z = 3.0
#: Fewest batches a dependent series is cut into (batches longer than n / 5 are cut shorter).
MIN_BATCHES = 5
#: An order effect is reported below this p-value (about one false report per 1,000 sides
#: checked).
ORDER_ALPHA = 0.001

METHOD = "PELT, squared-error cost on log times (ruptures)"


@dataclass(frozen=True, slots=True)
class SteadyState:
    """The steady state of one series: its class, the position of its first steady value
    (0 when flat or when there is none), and how many segments PELT found."""

    classification: SeriesClass
    start: int
    segments: int


@dataclass(frozen=True, slots=True)
class Dependence:
    """Lag-1 autocorrelation of the values analysed (mean over the invocations) and their
    effective sample size (summed over the invocations); ``batch``: the length of the batches
    whose means were analysed (1: the values themselves)."""

    lag1: float
    effective_n: float
    batch: int = 1


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class SideValidity:
    """What the checks found for one side of a benchmark, and what was analysed."""

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
    # Every series as read, in measurement order (for the run-sequence plot): values before
    # ``starts[i]`` of series i were left out when ``dropped``.
    series: tuple[np.ndarray, ...] = ()
    method: str = METHOD
    penalty: float = PENALTY

    @property
    def judged(self) -> bool:
        return any(c != "too short" for c in self.classes)


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


def _log(series: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        logged = np.log(series)
    return logged if np.isfinite(logged).all() else series  # zero or negative times: as is


def lag1(series: np.ndarray) -> float:
    """The lag-1 sample autocorrelation r₁ = Σ (xₜ − x̄)(xₜ₊₁ − x̄) / Σ (xₜ − x̄)²
    (0 for a constant series)."""
    centred = series - series.mean()
    total = float(np.dot(centred, centred))
    if total == 0 or not math.isfinite(total):
        return 0.0
    return float(np.dot(centred[:-1], centred[1:])) / total


def effective_size(n: int, r1: float) -> float:
    """Effective sample size of n values with lag-1 autocorrelation r₁, as an AR(1) process
    has: n (1 − r₁)/(1 + r₁), at most n."""
    r1 = min(max(r1, -0.99), 0.99)
    return min(float(n), n * (1 - r1) / (1 + r1))


def _noise(logged: np.ndarray) -> float:
    """The long-run variance of a series' noise, from its second half (the part most likely
    steady): its variance times (1 + r)/(1 − r), r its lag-1 autocorrelation, with values
    beyond 6 MADs of its median brought back to that bound (a rare spike does not hide a
    warm-up; real times are often multimodal, which a MAD alone would take for change
    points: benchmarks/warmup_detection.py)."""
    tail = logged[len(logged) // 2:]
    centre = float(np.median(tail))
    bound = 6 * 1.4826 * float(np.median(np.abs(tail - centre)))
    if bound > 0:
        tail = np.clip(tail, centre - bound, centre + bound)
    variance = float(tail.var())
    r1 = min(max(lag1(tail), 0.0), 0.9)
    return variance * (1 + r1) / (1 - r1)


def steady_state(series: np.ndarray, penalty: float = PENALTY) -> SteadyState:
    """Find the steady state of one series of times in measurement order (see the module's
    docstring for the method)."""
    n = len(series)
    if n < MIN_SERIES:
        return SteadyState("too short", 0, 1)
    logged = _log(np.asarray(series, dtype=float))
    noise = _noise(logged)
    if noise == 0:  # constant (a timer's resolution): one segment
        return SteadyState("flat", 0, 1)
    import ruptures

    # KernelCPD with the linear kernel is PELT with the squared-error cost, in C (0.3 ms for
    # 350 values, where Pelt(model="l2") takes 600 ms).
    ends = ruptures.KernelCPD(kernel="linear", min_size=2).fit(logged[:, None]).predict(
        pen=penalty * noise * math.log(n))
    bounds = [0, *(int(end) for end in ends)]
    segments = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)]
    means = [float(logged[a:b].mean()) for a, b in segments]
    sd = math.sqrt(noise)

    def equivalent(a: tuple[int, int], mean_a: float, b: tuple[int, int], mean_b: float
                   ) -> bool:
        error = sd * math.sqrt(1 / (a[1] - a[0]) + 1 / (b[1] - b[0]))
        return abs(mean_a - mean_b) <= max(EQUIVALENT, EQUIVALENT_Z * error)

    last = len(segments) - 1
    while last > 0 and segments[last][1] - segments[last][0] <= SPIKE:
        last -= 1  # spikes at the end belong to the steady state before them
    steady = last  # the earliest segment of the steady state
    position = last - 1
    while position >= 0:
        if equivalent(segments[position], means[position], segments[last], means[last]):
            steady = position
            position -= 1
            continue
        # A spike: short segments followed (earlier) by one equivalent to the steady state.
        before = position
        while before >= 0 and segments[before][1] - segments[before][0] <= SPIKE:
            before -= 1
        if (before >= 0 and before < position and equivalent(
                segments[before], means[before], segments[last], means[last])):
            steady = before
            position = before - 1
            continue
        break
    start = segments[steady][0]
    if start == 0:
        return SteadyState("flat", 0, len(segments))
    if n - start < STEADY_SHARE * n:
        return SteadyState("no steady state", 0, len(segments))
    steady_mean = means[last]
    previous = means[steady - 1]
    return SteadyState("warmup" if previous > steady_mean else "slowdown", start,
                       len(segments))


def batch_length(series: np.ndarray) -> int:
    """Politis & White's automatic block length of the circular block bootstrap, rounded up:
    the length over which the series' values stay dependent."""
    from arch.bootstrap import optimal_block_length

    return max(1, math.ceil(float(optimal_block_length(series)["circular"].iloc[0])))


def batch_means(series: np.ndarray) -> tuple[list[np.ndarray], int]:
    """The series cut into consecutive batches of about :func:`batch_length` values (every
    value in one, at least MIN_BATCHES batches), and that length."""
    length = min(batch_length(series), len(series) // MIN_BATCHES)
    if length < 2:
        return [series], 1
    return np.array_split(series, len(series) // length), length


def mann_kendall(series: np.ndarray) -> OrderTest:
    """Mann–Kendall's test of a monotone trend across the positions of ``series``: Kendall's
    τ-b between position and value, two-sided, by the normal approximation of S = Σᵢ<ⱼ
    sign(xⱼ − xᵢ) with the tie correction of its variance and no continuity correction
    (Kendall, *Rank correlation methods*, 1975; R's ``cor.test(method = "kendall",
    exact = FALSE, continuity = FALSE)``)."""
    n = len(series)
    if n > 2_000:  # (the pairs below would take n² memory)
        from scipy import stats

        result = stats.kendalltau(np.arange(n), series, method="asymptotic")
        return OrderTest("mann-kendall", float(result.statistic), float(result.pvalue))
    differences = np.sign(series[None, :] - series[:, None])
    s = float(np.triu(differences, 1).sum())
    _, ties = np.unique(series, return_counts=True)
    ties = ties[ties > 1].astype(float)
    variance = (n * (n - 1) * (2 * n + 5) - float((ties * (ties - 1) * (2 * ties + 5)).sum())
                ) / 18
    pairs = n * (n - 1) / 2
    tied_pairs = float((ties * (ties - 1)).sum()) / 2
    if variance <= 0 or pairs == tied_pairs:
        return OrderTest("mann-kendall", 0.0, 1.0)
    tau = s / math.sqrt(pairs * (pairs - tied_pairs))
    return OrderTest("mann-kendall", tau, math.erfc(abs(s) / math.sqrt(2 * variance)))


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
    return OrderTest("friedman", float(result.statistic), float(result.pvalue))


def _dropped_by(warmup: str, series: np.ndarray, found: SteadyState) -> int:
    if warmup == "none":
        return 0
    if warmup == "auto":
        return found.start if found.classification == "warmup" else 0
    return int(warmup)


def check_side(sample: Hierarchy, warmup: str = "auto", dependence: str = "batch"
               ) -> tuple[Hierarchy, SideValidity]:
    """Check one side's series and give the sample to analyse: its warm-ups dropped as
    ``warmup`` asks (``auto``: each invocation's detected warm-up, ``none``, or a number of
    values), and for a one-level sample of dependent values, its batches (``dependence``
    ``batch``; ``ignore``: the values as they are). Raises
    :class:`WarmupError` when ``warmup`` leaves an invocation without values."""
    batch = dependence == "batch"
    groups = list(_series(sample.root))
    found = [steady_state(group) for group in groups]
    drops = [_dropped_by(warmup, group, state) for group, state in zip(groups, found,
                                                                       strict=True)]
    for number, (group, drop) in enumerate(zip(groups, drops, strict=True), start=1):
        if drop >= len(group):
            where = f" of invocation {number}" if len(groups) > 1 else ""
            raise WarmupError(f"--warmup {warmup} leaves none of the {len(group)} values"
                              f"{where}")
    kept = [group[drop:] if drop else group for group, drop in zip(groups, drops, strict=True)]
    dropped = sum(drops)
    analysed = sample if not dropped else Hierarchy(_rebuilt(sample.root, iter(kept)),
                                                    sample.level_names)
    dependence = None
    order = None
    long_enough = [group for group in kept if len(group) >= MIN_DEPENDENCE]
    if long_enough:
        r1s = [lag1(group) for group in long_enough]
        dependence = Dependence(
            float(np.mean(r1s)),
            float(sum(effective_size(len(g), r) for g, r in zip(long_enough, r1s, strict=True))))
    if isinstance(analysed.root, np.ndarray):  # one level: the values are the units
        values = analysed.root
        if (dependence is not None and batch
                and dependence.lag1 > DEPENDENT_Z / math.sqrt(len(values))):
            batches, length = batch_means(values)
            if length > 1:
                dependence = Dependence(dependence.lag1, dependence.effective_n, length)
                analysed = Hierarchy(batches, ("batch", *analysed.level_names))
        if len(values) >= MIN_DEPENDENCE:
            units = analysed.top_level_means
            order = mann_kendall(units) if len(units) >= MIN_DEPENDENCE else None
    else:
        order = position_effect(kept)
    classes = tuple(state.classification for state in found)
    judged = [c for c in classes if c != "too short"]
    consistent = len(set(judged)) == 1 if len(judged) > 1 else None
    if not judged:
        classification = "too short"
    elif consistent is False:
        classification = "inconsistent"
    else:
        classification = judged[0]
    return analysed, SideValidity(
        classification=classification, consistent=consistent, classes=classes,
        starts=tuple(state.start for state in found), dropped=dropped,
        drops=tuple(drops), warmup=warmup,
        dependence_rule="batch" if batch else "ignore",
        dependence=dependence, order=order, values=sum(len(group) for group in kept),
        series=tuple(groups))

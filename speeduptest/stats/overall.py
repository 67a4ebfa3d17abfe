"""Figures over all benchmarks: weighted overall speedups and the accelerated proportion.

The two aggregate speedups of the means, the weighted geometric mean of the per-benchmark
speedups G and the overall speedup S = Σ W·Ȳᵢ / Σ W·Ȳₒ, get a confidence interval by the delta
method on their logarithm (default; :class:`DeltaAggregate`) or by the bootstrap
(:class:`BootstrapAggregate`). The delta method needs only what Fieller's interval of each
benchmark already needs: each side's relative variance of the mean uₖ = Var(Ȳₖ)/Ȳₖ² from its
nₖ top-level units, with nₖ − 1 degrees of freedom. The benchmarks (and their two sides) are
independent, so

- Var(log G) = Σⱼ wⱼ²(uᵢⱼ + uₒⱼ) / (Σ w)²,
- Var(log S) = Σⱼ (Wⱼ·Ȳᵢⱼ / Σ W·Ȳᵢ)² uᵢⱼ + Σⱼ (Wⱼ·Ȳₒⱼ / Σ W·Ȳₒ)² uₒⱼ,

and each interval is exp(log X ± t·√Var(log X)), t the Student quantile with the
Welch–Satterthwaite degrees of freedom of its 2b terms (each with nₖ − 1). On the log scale the
interval is always positive and bounded, and exactly inverted when the two versions are swapped.

The log of a ratio of means is biased: E[log Ȳₖ] ≈ log μₖ − uₖ/2, so log(Ȳᵢ/Ȳₒ) is off by about
(uₒ − uᵢ)/2. Within one benchmark the bias is small against its standard error (u against
√u), but in the geometric mean it does not average out while the standard error shrinks as
1/√b: with 3 units a side of CV 2% against 20%, a 95% interval covered the truth 61% of the
time at b = 1,000. The geometric mean is therefore made of the corrected logs
log(Ȳᵢ/Ȳₒ) + (uᵢ − uₒ)/2 (a second-order delta method; the same uₖ as the variance), and its
interval is centred on it: the point estimate and the interval are of the same quantity, and
the interval contains it. The variance is left first-order: the correction's own variance,
about u²/(2(n − 1)) a side, is 4·10⁻⁵ against u = 0.013 for 3 units of CV 20%. Coverage
against b (95.5% at b = 1,000 in that design): ``benchmarks/geomean_coverage.py``.

That interval covers the measurement noise of this suite: the same benchmarks measured again.
Taken as a random sample of a population of programs, the benchmarks give another one
(:class:`PopulationInterval`): a Student t interval on the corrected log speedups across the
benchmarks, whose spread holds both the programs' differences and their measurement noise.
With shares pⱼ = wⱼ/Σ w, the spread s² = Σ pⱼ(lⱼ − l̄)² / (1 − Σ p²) is unbiased for the
variance of one program's log speedup, Var(l̄) = s²·Σ p², and the degrees of freedom are
Satterthwaite's for that weighted sum of squares, (1 − Σ p²)² / (Σ p² − 2Σ p³ + (Σ p²)²),
which is b − 1 for equal weights (then the interval is R's ``t.test(log(speedups))``).

References: Touati, Worms, Briais, "The Speedup-Test", CCPE 2013, section 6 (overall speedup,
and the confidence interval of the proportion of accelerated benchmarks); Kalibera, Jones,
"Quantifying performance changes with effect size confidence intervals", TR 4-12, 2012
(the delta method for a ratio of means); F. E. Satterthwaite, "An approximate distribution of
estimates of variance components", Biometrics Bulletin 2(6), 1946.
"""

from __future__ import annotations

import collections
import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

from speeduptest.notices import Notice
from speeduptest.stats.change import CALLS, Call, Change, widest_where_undefined
from speeduptest.stats.corrections import Correction
from speeduptest.stats.effect_size import (
    AGGREGATE_INTERVALS,
    BOOTSTRAP_TRUSTED_UNITS,
)
from speeduptest.stats.fieller import MeanRatio
from speeduptest.stats.protocol import PairAnalysis

# -- the overall figures ------------------------------------------------------------------

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
class PopulationInterval:
    """A geometric mean's interval when the benchmarks are taken as a random sample of a
    population of programs: a Student t interval on the weighted log speedups across the
    benchmarks (see the module's docstring), centred on the same value as the interval of
    measurement noise. None where fewer than two benchmarks carry weight."""

    low: float
    high: float
    confidence: float
    df: float  # Satterthwaite's; b − 1 for equal weights
    benchmarks: int
    method: str = "t"


@dataclass(frozen=True, slots=True)
class AggregateInterval:
    """A speedup over all benchmarks with its confidence interval, and the method that made
    it: "delta" (the delta method on the log, the default) or "bootstrap". The interval
    covers the measurement noise of these benchmarks (:data:`SUITE_INTERVAL_COVERS`); a
    geometric mean also has ``population``, its interval over the programs the benchmarks
    sample (:data:`POPULATION_INTERVAL_COVERS`)."""

    definition: str
    value: float
    low: float
    high: float
    confidence: float
    method: str = "delta"
    population: PopulationInterval | None = None


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
        counted = collections.Counter(change.call for change in changes)  # (one pass)
        return cls(*(counted[call] for call in CALLS), threshold=threshold,
                   correction=correction)

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


#: The normal approximation behind the interval is trusted when b·C·(1 − C) exceeds this.
VALIDITY_THRESHOLD = 5.0

GEOMETRIC_MEAN_DEFINITION = (
    "weighted geometric mean of the per-benchmark speedups of the means, each log corrected "
    "for its bias, exp(Σ W·(log(mean(initial)/mean(optimized)) + (uᵢ − uₒ)/2) / Σ W), "
    "u a side's squared coefficient of variation of the mean"
)
#: The bootstrap's (``--aggregate-interval bootstrap``): of the plain logs.
GEOMETRIC_MEAN_PLAIN_DEFINITION = (
    "weighted geometric mean of the per-benchmark speedups of the means, "
    "exp(Σ W·log(mean(initial)/mean(optimized)) / Σ W)"
)
OVERALL_SPEEDUP_DEFINITION = "overall speedup of the means, Σ W·mean(initial) / Σ W·mean(optimized)"

#: What each interval of a geometric mean covers, in words: ``low``–``high`` …
SUITE_INTERVAL_COVERS = "this suite's measurement noise"
#: … and ``population``.
POPULATION_INTERVAL_COVERS = "the population of programs the suite samples"
POPULATION_CAVEAT = (
    "The population interval treats the benchmarks as drawn at random from a large "
    "population of programs; for a hand-picked suite it is a rough guide to how the speedup "
    "would vary over other programs, and the suite interval is the one about these benchmarks."
)

RANDOM_SELECTION_CAVEAT = (
    "The proportion interval means something only if the benchmarks were drawn at random from "
    "a large population of programs; for a hand-picked suite it describes this suite alone."
)


def wilson_interval(
    successes: int, trials: int, confidence: float, *, continuity: bool = True
) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion, as R's ``prop.test(x, n, conf.level)``.

    With ``continuity`` the Yates correction min(0.5, |x − n/2|) is applied as R does by
    default (Newcombe 1998, method 4). Written out here because statsmodels' ``wilson`` method
    has no continuity correction.
    """
    if trials <= 0:
        raise ValueError("trials must be positive")
    estimate = successes / trials
    z = float(special.ndtri((1 + confidence) / 2))
    yates = min(0.5, abs(successes - trials * 0.5)) if continuity else 0.0
    z22n = z * z / (2 * trials)

    def bound(centre: float, sign: float) -> float:
        spread = z * math.sqrt(centre * (1 - centre) / trials + z22n / (2 * trials))
        return (centre + z22n + sign * spread) / (1 + 2 * z22n)

    upper_centre = estimate + yates / trials
    lower_centre = estimate - yates / trials
    high = 1.0 if upper_centre >= 1 else bound(upper_centre, +1)
    low = 0.0 if lower_centre <= 0 else bound(lower_centre, -1)
    return max(low, 0.0), min(high, 1.0)


def required_benchmarks(proportion: float, confidence: float, precision: float) -> int:
    """Benchmarks needed for an interval of half-width ``precision``: ⌈(z/r)² C(1 − C)⌉."""
    # statsmodels' samplesize_confint_proportion, written out: importing it loads pandas.
    z = special.ndtri((1 + confidence) / 2)
    needed = (z / precision) ** 2 * proportion * (1 - proportion)
    # Guard against 330.00000000000006-style noise before rounding up.
    return math.ceil(round(float(needed), 9))


def proportion_shortfall(proportion: ProportionEstimate) -> str:
    """What is too few for the normal approximation behind a proportion's interval, and by
    how much, in words: the benchmarks, or the accelerated (or not accelerated) ones when
    the proportion is far from one half."""
    accelerated, total = proportion.accelerated, proportion.total
    rare = min(accelerated, total - accelerated)
    product = total * proportion.proportion * (1 - proportion.proportion)
    if 4 * rare < total:
        which = ("accelerated benchmarks" if accelerated <= total - accelerated
                 else "benchmarks that are not accelerated")
        what = f"too few {which} for the interval's normal approximation: {rare} of {total}"
    else:
        what = ("too few benchmarks for the interval's normal approximation: "
                f"{total}, {accelerated} of them accelerated,")
    return f"{what} give b·C·(1 − C) = {product:.3g}, and it needs more than " \
           f"{VALIDITY_THRESHOLD:g}"


def proportion_estimate(
    accelerated: int, total: int, confidence: float, precision: float
) -> ProportionEstimate:
    if total == 0:
        return ProportionEstimate(accelerated, total, None, confidence, None, False, None)
    proportion = accelerated / total
    return ProportionEstimate(
        accelerated=accelerated,
        total=total,
        proportion=proportion,
        confidence=confidence,
        ci=wilson_interval(accelerated, total, confidence),
        ci_valid=total * proportion * (1 - proportion) > VALIDITY_THRESHOLD,
        required_benchmarks=required_benchmarks(proportion, confidence, precision),
    )


def _weighted_speedup(pairs: Sequence[tuple[float, PairAnalysis]], estimator: str) -> float | None:
    if not pairs:
        return None
    # A ratio of sums: the same with every time divided by the largest, and then no sum of
    # times near 1e300 overflows.
    # Each term w·(x / largest) as numpy computes it on arrays: the same two roundings as
    # in Python floats, and math.fsum is exact whatever the order (10,000 benchmarks: 4 ms,
    # not 12 ms per estimator).
    weights = np.array([w for w, _ in pairs], dtype=float)
    times_i = np.array([getattr(a.initial, estimator) for _, a in pairs], dtype=float)
    times_o = np.array([getattr(a.optimized, estimator) for _, a in pairs], dtype=float)
    largest = max(float(times_i.max()), float(times_o.max()))
    initial = math.fsum((weights * (times_i / largest)).tolist())
    optimized = math.fsum((weights * (times_o / largest)).tolist())
    if initial == 0 or optimized == 0:  # a side's sum below every float (1e-320 against
        return None  # 1e300, or tiny weights): the ratio is not to be had in floats
    return initial / optimized


def _gain(speedup: float | None) -> float | None:
    """The share of the time saved, 1 − 1/speedup; None where the speedup underflowed to 0
    (minimum times of 1e-320 against 1e5: the gain is below any float)."""
    return None if speedup is None or speedup == 0 else 1 - 1 / speedup


def aggregate_interval(definition: str, value: float, low: float, high: float,
                       confidence: float, method: str,
                       population: PopulationInterval | None = None) -> AggregateInterval:
    """An aggregate speedup with its interval, each end that is not a number the widest it
    can be (:func:`speeduptest.stats.change.widest_where_undefined`)."""
    low, high = (float(end) for end in widest_where_undefined(low, high))
    return AggregateInterval(definition, value, low, high, confidence, method=method,
                             population=population)


def aggregate_method(settings) -> str:
    """How the run's aggregate intervals are made: ``settings.aggregate_interval``, one of
    AGGREGATE_INTERVALS ("delta" by default)."""
    method = settings.aggregate_interval
    if method not in AGGREGATE_INTERVALS:
        raise ValueError(f"unknown aggregate interval {method!r}; choose from "
                         f"{', '.join(AGGREGATE_INTERVALS)}")
    return method


def _log_speedups(pairs: Sequence[tuple[float, PairAnalysis]]) -> tuple[np.ndarray, np.ndarray]:
    """The weights and the logs of the speedups of the means, in the order of ``pairs``."""
    return (np.array([w for w, _ in pairs], dtype=float),
            np.array([math.log(a.speedup.mean) for _, a in pairs]))


def _exp(power: float) -> float:
    """e**power, inf beyond the floats (where math.exp raises)."""
    try:
        return math.exp(power)
    except OverflowError:
        return math.inf


def bias_corrections(ratio: MeanRatio) -> np.ndarray:
    """Per benchmark, what is added to log(Ȳᵢ/Ȳₒ) to remove its bias to second order:
    (uᵢ − uₒ)/2, since E[log Ȳₖ] ≈ log μₖ − uₖ/2 (uₖ the relative variance of the mean)."""
    return (ratio.initial_relative_variance - ratio.optimized_relative_variance) / 2


def population_interval(weights: np.ndarray, log_speedups: np.ndarray, centre: float,
                        confidence: float) -> PopulationInterval | None:
    """The Student t interval of the weighted mean log speedup, the benchmarks a random sample
    of programs (formulas in the module's docstring), around ``centre`` = Σ p·log speedup;
    None with fewer than two benchmarks of weight."""
    # In sums of the weights relative to the largest, Sₖ = Σ wᵏ: with Σ pᵏ = Sₖ/S₁ᵏ,
    # Var(l̄) = Σ w(l − l̄)²·S₂ / (S₁(S₁² − S₂)) and ν = (S₁² − S₂)² / (S₁²S₂ − 2S₁S₃ + S₂²),
    # which is exactly b − 1 for equal weights.
    weights = np.asarray(weights, dtype=float)
    weights = weights / np.max(weights)
    s1, s2, s3 = (math.fsum(weights**k) for k in (1, 2, 3))
    excess = s1 * s1 - s2
    spread_variance = s1 * s1 * s2 - 2 * s1 * s3 + s2 * s2
    if log_speedups.size < 2 or not (excess > 0 and spread_variance > 0):
        return None
    df = excess * excess / spread_variance
    with np.errstate(invalid="ignore", over="ignore"):
        variance = math.fsum(weights * (log_speedups - centre) ** 2) * s2 / (s1 * excess)
        half = -float(special.stdtrit(df, (1 - confidence) / 2)) * math.sqrt(variance)
    low, high = widest_where_undefined(_exp(centre - half), _exp(centre + half))
    return PopulationInterval(float(low), float(high), confidence, df, int(log_speedups.size))


def geometric_mean_interval(weights: np.ndarray, log_speedups: np.ndarray, ratio: MeanRatio,
                            confidence: float,
                            definition: str = GEOMETRIC_MEAN_DEFINITION) -> AggregateInterval:
    """The weighted geometric mean of the speedups of the means, each log corrected for its
    bias (:func:`bias_corrections`), with its delta-method interval (this suite's measurement
    noise) and its population interval (:func:`population_interval`), per benchmark: the
    weights, log(Ȳᵢ/Ȳₒ) and the :class:`MeanRatio` (relative variances of the means and
    their degrees of freedom)."""
    weights = np.asarray(weights, dtype=float)
    corrected = np.asarray(log_speedups, dtype=float) + bias_corrections(ratio)
    shares = weights / math.fsum(weights)
    centre = math.fsum(shares * corrected)
    half, _ = _geometric_half_width(shares, ratio, confidence)
    value = _exp(centre)
    return aggregate_interval(definition, value, value * _exp(-half), value * _exp(half),
                              confidence, "delta",
                              population_interval(weights, corrected, centre, confidence))


def log_interval(terms: np.ndarray, df: np.ndarray, confidence: float) -> tuple[float, float]:
    """The half-width t·√V of a delta-method interval on a log scale, V = Σ terms, and the
    Welch–Satterthwaite degrees of freedom ν = V² / Σ(termₖ² / dfₖ) (∞ when V = 0). The terms
    are divided by V before squaring, so that none underflows."""
    from scipy import special

    variance = math.fsum(terms)
    if not variance > 0:
        return 0.0, math.inf
    shares = terms / variance
    df_total = 1 / math.fsum(shares**2 / df)
    t = -float(special.stdtrit(df_total, (1 - confidence) / 2))
    return t * math.sqrt(variance), df_total


def _geometric_half_width(shares: np.ndarray, ratio: MeanRatio, confidence: float
                          ) -> tuple[float, float]:
    """Var(log G) = Σ p²(uᵢ + uₒ), p the weights' shares: its half-width and ν."""
    return log_interval(
        np.concatenate([shares**2 * ratio.initial_relative_variance,
                        shares**2 * ratio.optimized_relative_variance]),
        np.concatenate([ratio.initial_df, ratio.optimized_df]), confidence)


def delta_half_widths(weights: np.ndarray, initial_means: np.ndarray,
                      optimized_means: np.ndarray, ratio: MeanRatio,
                      confidence: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """Half-widths on the log scale, with their Welch–Satterthwaite degrees of freedom, of the
    delta-method intervals of the weighted geometric mean of the speedups of the means and of
    the overall speedup Σ W·Ȳᵢ / Σ W·Ȳₒ (formulas in the module's docstring), per benchmark:
    the weights, each side's mean time (in any unit common to all benchmarks) and the
    :class:`MeanRatio` (relative variances of the means and their degrees of freedom)."""
    weights = np.asarray(weights, dtype=float)
    df = np.concatenate([ratio.initial_df, ratio.optimized_df])
    u_i, u_o = ratio.initial_relative_variance, ratio.optimized_relative_variance
    geometric = _geometric_half_width(weights / math.fsum(weights), ratio, confidence)
    # Each benchmark's share of Σ W·Ȳ on each side, with the times relative to the largest.
    largest = max(np.max(initial_means), np.max(optimized_means))
    weighted_i = weights * (np.asarray(initial_means, dtype=float) / largest)
    weighted_o = weights * (np.asarray(optimized_means, dtype=float) / largest)
    shares_i, shares_o = weighted_i / math.fsum(weighted_i), weighted_o / math.fsum(weighted_o)
    overall = log_interval(np.concatenate([shares_i**2 * u_i, shares_o**2 * u_o]), df,
                           confidence)
    return geometric, overall


class DeltaAggregate:
    """Delta-method intervals of the aggregate speedups on their log (see the module's
    docstring), from every analysed benchmark's :class:`MeanRatio` in the order of ``pairs``."""

    method = "delta"

    def __init__(self, ratio: MeanRatio) -> None:
        self.ratio = ratio

    def intervals(
        self, pairs: Sequence[tuple[float, PairAnalysis]], confidence: float
    ) -> tuple[AggregateInterval, AggregateInterval | None] | None:
        if not pairs:
            return None
        weights, logs = _log_speedups(pairs)
        _, (overall_half, _) = delta_half_widths(
            weights, np.array([a.initial.mean for _, a in pairs]),
            np.array([a.optimized.mean for _, a in pairs]), self.ratio, confidence)
        overall = _weighted_speedup(pairs, "mean")
        return (
            geometric_mean_interval(weights, logs, self.ratio, confidence),
            None if overall is None else aggregate_interval(
                OVERALL_SPEEDUP_DEFINITION, overall, overall * _exp(-overall_half),
                overall * _exp(overall_half), confidence, "delta"),
        )


class BootstrapAggregate:
    """Accumulates, resample by resample, what the aggregate speedups need, so that the
    benchmarks' bootstrap means need not be kept: Σ W·log(speedup*), Σ W·mean*(initial) and
    Σ W·mean*(optimized). Each benchmark is resampled independently (and hierarchically)."""

    method = "bootstrap"

    def __init__(self, resamples: int) -> None:
        self.weighted_log_speedups = np.zeros(resamples)
        self.weighted_initial = np.zeros(resamples)
        self.weighted_optimized = np.zeros(resamples)
        self.total_weight = 0.0

    def add(self, weight: float, initial_means: np.ndarray, optimized_means: np.ndarray) -> None:
        # (A resampled speedup that underflows to 0 or overflows has a log of ∓inf: an
        # extreme of the bootstrap distribution, which the percentiles place; see floats.)
        self.weighted_log_speedups += weight * np.log(initial_means / optimized_means)
        self.weighted_initial += weight * initial_means
        self.weighted_optimized += weight * optimized_means
        self.total_weight += weight

    def merge(self, other: BootstrapAggregate) -> None:
        """Add the sums of another batch of benchmarks (the same resamples count)."""
        self.weighted_log_speedups += other.weighted_log_speedups
        self.weighted_initial += other.weighted_initial
        self.weighted_optimized += other.weighted_optimized
        self.total_weight += other.total_weight

    def intervals(
        self, pairs: Sequence[tuple[float, PairAnalysis]], confidence: float
    ) -> tuple[AggregateInterval, AggregateInterval | None] | None:
        """Bootstrap percentile intervals of the weighted geometric mean of the per-benchmark
        speedups of the means, and of the overall speedup Σ W·mean(initial) / Σ W·mean(opt.)."""
        if not pairs or self.total_weight == 0:
            return None
        quantiles = [(1 - confidence) / 2, (1 + confidence) / 2]
        weights, logs = _log_speedups(pairs)
        centre = math.fsum(weights * logs) / math.fsum(weights)
        geometric = _exp(centre)
        low, high = np.exp(np.quantile(self.weighted_log_speedups / self.total_weight, quantiles))
        ratio = _weighted_speedup(pairs, "mean")
        ratio_low, ratio_high = np.quantile(self.weighted_initial / self.weighted_optimized,
                                            quantiles)
        return (
            aggregate_interval(GEOMETRIC_MEAN_PLAIN_DEFINITION, geometric, float(low),
                               float(high), confidence, "bootstrap",
                               population_interval(weights, logs, centre, confidence)),
            None if ratio is None else aggregate_interval(
                OVERALL_SPEEDUP_DEFINITION, ratio, float(ratio_low), float(ratio_high),
                confidence, "bootstrap"),
        )


def overall_figures(
    pairs: Sequence[tuple[float, PairAnalysis]],
    *,
    confidence: float,
    precision: float,
    aggregate: DeltaAggregate | BootstrapAggregate | None = None,
    aggregate_confidence: float = 0.95,
) -> Overall:
    """Overall figures over the analysed benchmarks, given as (weight, analysis) pairs.

    The overall speedup is S = Σ W·ET(initial) / Σ W·ET(optimized) and the gain 1 − 1/S, for
    ET the mean, the median and the minimum. ``aggregate`` makes the intervals of the
    geometric mean of the speedups of the means and of the overall speedup of the means.
    """
    figures = {}
    notices: list[Notice] = []
    for estimator in ("mean", "median", "min"):
        speedup = _weighted_speedup(pairs, estimator)
        proportion = None
        if estimator != "min":
            accelerated = sum(getattr(a, estimator).verdict == "significant" for _, a in pairs)
            proportion = proportion_estimate(accelerated, len(pairs), confidence, precision)
            if proportion.total and not proportion.ci_valid:
                notices.append(Notice(
                    f"proportion-{estimator}-inaccurate",
                    f"The interval for the proportion of benchmarks whose {estimator} is "
                    f"accelerated is approximate: {proportion_shortfall(proportion)}.",
                    "Analyse more benchmarks: the normal approximation behind the interval "
                    f"needs b·C·(1 − C) > {VALIDITY_THRESHOLD:g}.",
                ))
        figures[estimator] = OverallFigure(speedup, _gain(speedup), proportion)
    geometric = None
    intervals = aggregate.intervals(pairs, aggregate_confidence) if aggregate else None
    if intervals is not None:
        geometric, ratio_interval = intervals
        figures["mean"] = dataclasses.replace(figures["mean"], interval=ratio_interval)
        fewest = min(min(a.initial.n, a.optimized.n) for _, a in pairs)
        if aggregate.method == "bootstrap" and fewest < BOOTSTRAP_TRUSTED_UNITS:
            notices.append(Notice(
                "aggregate-bootstrap-undercovers",
                f"The aggregate bootstrap intervals may be too narrow: a benchmark has only "
                f"{fewest} top-level units on a side, and a percentile bootstrap under-covers "
                "with few units (85% for a 95% interval with 3 units in our simulation).",
                f"Collect {BOOTSTRAP_TRUSTED_UNITS} or more top-level units per version, and read "
                "the per-benchmark Fieller intervals."))
    return Overall(**figures, geometric_mean=geometric, caveat=RANDOM_SELECTION_CAVEAT,
                   notices=tuple(notices))

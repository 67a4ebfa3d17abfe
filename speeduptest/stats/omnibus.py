"""Compare k ≥ 3 versions of one benchmark: omnibus tests, post-hoc pairs and letters.

Every function takes ``groups``, one 1-D array of top-level unit times per version (sizes may
differ, ties are allowed, at least 2 values per version), and returns a small frozen result in
the manner of :mod:`speeduptest.stats.stattests`: statistic, degrees of freedom, p-value and a
``note`` when the test is undefined for the data (then ``statistic`` and ``p_value`` are
``None``; never NaN). Pure computation: no I/O, no rendering.

- omnibus: :func:`anova` (classic and Welch), :func:`kruskal_wallis`, and the tests of equal
  variances :func:`levene` (Brown–Forsythe, median-centred) and :func:`bartlett`;
- post-hoc, all pairs: :func:`tukey_hsd` (Tukey–Kramer when sizes differ),
  :func:`games_howell`, :func:`dunn`, :func:`conover` and :func:`pairwise_wilcoxon` (the last
  three Holm-adjusted, :func:`holm`);
- :func:`choose_omnibus`: the route among them, by the logic of the Speedup-Test protocol;
- :func:`compact_letters`: the compact letter display ("a", "ab", "b") of the pairs found to
  differ.

All numbers agree with R (``aov``, ``oneway.test``, ``kruskal.test``, ``bartlett.test``,
``TukeyHSD``, ``pairwise.t.test``, ``pairwise.wilcox.test``, ``ptukey``/``pnorm``/``pt`` with
``p.adjust``; see ``tests/fixtures/generate_version_cases.R``).

The studentized range distribution (Tukey HSD, Games–Howell) is computed here rather than with
``scipy.stats.studentized_range``, whose adaptive double integral costs ~15 ms per p-value and
~200 ms per quantile: a Games–Howell table needs one quantile per pair. See
:func:`studentized_range_sf`.

References
----------
Georges, Buytaert, Eeckhout, "Statistically rigorous Java performance evaluation", OOPSLA 2007
(ANOVA and Tukey HSD for more than two alternatives).
Touati, Worms, Briais, "The Speedup-Test", CCPE 25(10), 2013 (the decision logic).
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeVar

import numpy as np
from numpy.polynomial import chebyshev
from scipy import optimize, special

from speeduptest.notices import Notice
from speeduptest.stats.defaults import DEFAULT_ALPHA, DEFAULT_LARGE_SAMPLE
from speeduptest.stats.hypothesis import HypothesisTest as _HypothesisTest
from speeduptest.stats.normality import ShapiroResult, shapiro_wilk
from speeduptest.stats.protocol import LOW_POWER_SIZE
from speeduptest.stats.wilcoxon import wilcoxon_mann_whitney

Route = Literal["anova", "welch", "kruskal"]
Name = TypeVar("Name", bound=Hashable)
PostHocMethod = Literal["tukey", "games-howell", "dunn", "conover", "wilcoxon"]

POSTHOC_LABELS: dict[str, str] = {
    "tukey": "Tukey HSD",
    "games-howell": "Games–Howell",
    "dunn": "Dunn's test (Holm)",
    "conover": "Conover–Iman test (Holm)",
    "wilcoxon": "pairwise Wilcoxon–Mann–Whitney (Holm)",
}


# ---------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class AnovaResult(_HypothesisTest):
    """One-way ANOVA F-test, H0: every version has the same mean time."""

    variant: Literal["classic", "welch"]
    statistic: float | None
    df_numerator: float
    df_denominator: float | None
    p_value: float | None
    note: str | None = None


@dataclass(frozen=True)
class KruskalResult(_HypothesisTest):
    """Kruskal–Wallis rank test, H0: every version's times come from the same distribution."""

    statistic: float | None
    df: int
    p_value: float | None
    note: str | None = None


@dataclass(frozen=True)
class LeveneResult(_HypothesisTest):
    """Levene's test of equal variances, median-centred (Brown–Forsythe): an F-test."""

    statistic: float | None
    df_numerator: int
    df_denominator: int
    p_value: float | None
    note: str | None = None


@dataclass(frozen=True)
class BartlettResult(_HypothesisTest):
    """Bartlett's test of equal variances (assumes normal data): a chi-squared test."""

    statistic: float | None
    df: int
    p_value: float | None
    note: str | None = None


@dataclass(frozen=True)
class PairComparison:
    """One pair of versions, ``first`` < ``second`` (indices into the groups).

    ``difference`` is second minus first: of the means (Tukey, Games–Howell) or of the mean
    ranks (Dunn, Conover); ``None`` for Wilcoxon, whose ``statistic`` is
    W = #{second > first} + ½ #{ties}. ``p_value`` is the pair's own two-sided p-value,
    ``p_adjusted`` the family-wise one (studentized range or Holm); ``lower``/``upper`` the
    simultaneous interval of the difference of means (Tukey, Games–Howell only).
    """

    first: int
    second: int
    difference: float | None
    statistic: float | None
    df: float | None
    p_value: float | None
    p_adjusted: float | None
    lower: float | None = None
    upper: float | None = None
    note: str | None = None

    def differs(self, alpha: float) -> bool:
        """Whether the family-wise test declares the two versions different at ``alpha``."""
        return self.p_adjusted is not None and self.p_adjusted <= alpha


@dataclass(frozen=True)
class PostHocResult:
    """All pairwise comparisons of one post-hoc method, in R's order (1-2, 1-3, …, 2-3, …)."""

    method: PostHocMethod
    k: int
    confidence: float | None  # of the simultaneous intervals, when the method has them
    pairs: tuple[PairComparison, ...]

    @property
    def label(self) -> str:
        return POSTHOC_LABELS[self.method]

    def pair(self, i: int, j: int) -> PairComparison:
        """The comparison of groups ``i`` and ``j`` (in either order)."""
        first, second = min(i, j), max(i, j)
        return next(p for p in self.pairs if (p.first, p.second) == (first, second))

    def significant_pairs(self, alpha: float) -> tuple[tuple[int, int], ...]:
        return tuple((p.first, p.second) for p in self.pairs if p.differs(alpha))


@dataclass(frozen=True)
class VersionTests:
    """Every omnibus test of one benchmark's versions, computed once."""

    shapiro: tuple[ShapiroResult, ...]
    bartlett: BartlettResult
    levene: LeveneResult
    anova: AnovaResult
    welch: AnovaResult
    kruskal: KruskalResult


@dataclass(frozen=True)
class OmnibusChoice:
    """The route :func:`choose_omnibus` took, with every test and the path in words."""

    names: tuple[str, ...]
    alpha: float
    large_sample: int
    small: bool
    route: Route
    tests: VersionTests
    posthoc: PostHocResult
    means: tuple[float, ...]
    mean_ranks: tuple[float, ...]
    steps: tuple[str, ...]
    notices: tuple[Notice, ...] = ()

    @property
    def omnibus(self) -> AnovaResult | KruskalResult:
        return {"anova": self.tests.anova, "welch": self.tests.welch,
                "kruskal": self.tests.kruskal}[self.route]

    @property
    def significant_pairs(self) -> tuple[tuple[int, int], ...]:
        """Pairs the post-hoc test declares different at α (family-wise)."""
        return self.posthoc.significant_pairs(self.alpha)

    def letters(self) -> dict[str, str]:
        """Compact letter display, "a" for the best version: the lowest mean time on the
        ANOVA routes, the lowest mean rank on the rank route (what Dunn's test compares)."""
        order = self.mean_ranks if self.route == "kruskal" else self.means
        pairs = [(self.names[i], self.names[j]) for i, j in self.significant_pairs]
        return compact_letters(self.names, order, pairs)


# ---------------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class _Groups:
    """Validated groups at a common power-of-two scale, with their summaries."""

    values: tuple[np.ndarray, ...]
    exponent: int  # original = ldexp(scaled, exponent)
    n: np.ndarray
    means: np.ndarray
    variances: np.ndarray  # exactly 0 for a group of identical values

    @property
    def k(self) -> int:
        return len(self.values)

    @property
    def total(self) -> int:
        return int(self.n.sum())

    def unscale(self, value: float) -> float:
        return float(np.ldexp(value, self.exponent))


def _prepare(groups: Sequence[np.ndarray]) -> _Groups:
    """Check the groups and bring them to a scale near 1. Every test here is invariant to a
    common scale and a power of two multiplies exactly, so no p-value changes, but squares of
    times near 1e±200 neither overflow nor underflow."""
    arrays = [np.asarray(g, dtype=float).ravel() for g in groups]
    if len(arrays) < 2:
        raise ValueError("at least 2 groups are needed")
    if any(a.size < 2 for a in arrays):
        raise ValueError("every group needs at least 2 values")
    if not all(np.isfinite(a).all() for a in arrays):
        raise ValueError("values must be finite")
    largest = max(float(np.abs(a).max()) for a in arrays)
    exponent = int(np.frexp(largest)[1]) if largest > 0 else 0
    scaled = tuple(np.ldexp(a, -exponent) for a in arrays)
    variances = np.array([0.0 if a.max() == a.min() else float(np.var(a, ddof=1))
                          for a in scaled])
    return _Groups(scaled, exponent, np.array([a.size for a in scaled], dtype=float),
                   np.array([a.mean() for a in scaled]), variances)


def _pairs(k: int) -> list[tuple[int, int]]:
    """R's order of pairs (TukeyHSD, pairwise.*.test): (0, 1), (0, 2), …, (1, 2), …"""
    return list(itertools.combinations(range(k), 2))


def average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1 of finite ``values`` (the readers let no other through), ties given the
    mean of their ranks: ``scipy.stats.rankdata(values)`` and R's ``rank(values)`` (each rank
    an integer or a half, so exactly theirs). Written out: scipy.stats costs a versions run
    0.35-0.45 s to import, for this one function."""
    order = np.argsort(values)
    position = np.empty(order.size, dtype=np.intp)
    position[order] = np.arange(order.size)
    ordered = values[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    dense = np.cumsum(starts)[position]  # the tie group of each value, from 1
    bounds = np.r_[np.flatnonzero(starts), starts.size]
    return 0.5 * (bounds[dense] + bounds[dense - 1] + 1)


def _pooled_ranks(data: _Groups) -> tuple[np.ndarray, np.ndarray, float]:
    """Average ranks of the pooled values, each group's mean rank and Σ(t³ − t) over ties."""
    pooled = np.concatenate(data.values)
    ranks = average_ranks(pooled)
    _, ties = np.unique(pooled, return_counts=True)
    bounds = np.cumsum(data.n.astype(int))[:-1]
    mean_ranks = np.array([r.mean() for r in np.split(ranks, bounds)])
    return ranks, mean_ranks, float(np.sum(ties.astype(float) ** 3 - ties))


def holm(p_values: Sequence[float | None]) -> tuple[float | None, ...]:
    """Holm's step-down adjustment, as R's ``p.adjust(p, "holm")``; ``None`` stays ``None``
    and does not count among the m hypotheses (R's NA)."""
    known = [(p, i) for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    m, running = len(known), 0.0
    for rank, (p, i) in enumerate(sorted(known)):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return tuple(adjusted)


# --------------------------------------------------------------------------- omnibus tests


def _classic_f(data: _Groups) -> AnovaResult:
    k, total = data.k, data.total
    grand = float(np.sum(data.n * data.means) / total)
    between = float(np.sum(data.n * (data.means - grand) ** 2))
    within = float(np.sum((data.n - 1) * data.variances))
    df1, df2 = k - 1, total - k
    if within == 0:
        return AnovaResult("classic", None, df1, df2, None,
                           note="every group's values are identical within the group")
    statistic = (between / df1) / (within / df2)
    return AnovaResult("classic", statistic, df1, df2, float(special.fdtrc(df1, df2, statistic)))


def _welch_f(data: _Groups) -> AnovaResult:
    k = data.k
    if np.any(data.variances == 0):
        return AnovaResult("welch", None, k - 1, None, None,
                           note="a group's values are all identical: Welch's ANOVA weighs "
                                "each group by n/s², which needs a positive variance")
    weights = data.n / data.variances
    weighted_mean = float(np.sum(weights * data.means) / weights.sum())
    spread = float(np.sum(weights * (data.means - weighted_mean) ** 2)) / (k - 1)
    lam = float(np.sum((1 - weights / weights.sum()) ** 2 / (data.n - 1)))
    statistic = spread / (1 + 2 * (k - 2) / (k * k - 1) * lam)
    df2 = (k * k - 1) / (3 * lam)
    return AnovaResult("welch", statistic, k - 1, df2,
                       float(special.fdtrc(k - 1, df2, statistic)))


def anova(groups: Sequence[np.ndarray], *, equal_var: bool = True) -> AnovaResult:
    """One-way ANOVA of the group means.

    ``equal_var=True``: the classic F-test, F = [SSB/(k − 1)] / [SSW/(N − k)], as R's
    ``summary(aov(x ~ g))`` and ``oneway.test(var.equal = TRUE)`` (Fisher). ``equal_var=False``:
    Welch's heteroscedastic F-test (Welch 1951, Biometrika 38), as R's ``oneway.test`` and
    statsmodels ``anova_oneway(use_var="unequal")``.
    """
    data = _prepare(groups)
    return _classic_f(data) if equal_var else _welch_f(data)


def _kruskal(data: _Groups) -> KruskalResult:
    _, mean_ranks, tie_sum = _pooled_ranks(data)
    total, df = data.total, data.k - 1
    correction = 1 - tie_sum / (total**3 - total)
    if correction <= 0:
        return KruskalResult(None, df, None, note="all values are identical")
    h = 12 / (total * (total + 1)) * float(np.sum(data.n * mean_ranks**2)) - 3 * (total + 1)
    statistic = max(h, 0.0) / correction
    return KruskalResult(statistic, df, float(special.chdtrc(df, statistic)))


def kruskal_wallis(groups: Sequence[np.ndarray]) -> KruskalResult:
    """Kruskal–Wallis H test with the tie correction (Kruskal and Wallis 1952), as R's
    ``kruskal.test`` and ``scipy.stats.kruskal``: chi-squared with k − 1 degrees of freedom."""
    return _kruskal(_prepare(groups))


def _levene(data: _Groups) -> LeveneResult:
    deviations = [np.abs(v - np.median(v)) for v in data.values]
    result = _classic_f(_prepare(deviations))
    df2 = int(data.total - data.k)
    if result.statistic is None:
        return LeveneResult(None, data.k - 1, df2, None,
                            note="the absolute deviations from each group's median are "
                                 "constant within every group")
    return LeveneResult(result.statistic, data.k - 1, df2, result.p_value)


def levene(groups: Sequence[np.ndarray]) -> LeveneResult:
    """Levene's test of equal variances centred on the group medians (Brown and Forsythe 1974,
    JASA 69): the classic ANOVA of |x − median(group)|, as R's ``car::leveneTest`` default and
    ``scipy.stats.levene(center="median")``. Robust to non-normal data."""
    return _levene(_prepare(groups))


def _bartlett(data: _Groups) -> BartlettResult:
    k, total, df = data.k, data.total, data.k - 1
    if np.any(data.variances == 0):
        return BartlettResult(None, df, None,
                              note="a group's values are all identical (zero variance)")
    pooled = float(np.sum((data.n - 1) * data.variances)) / (total - k)
    statistic = ((total - k) * math.log(pooled)
                 - float(np.sum((data.n - 1) * np.log(data.variances))))
    statistic /= 1 + (float(np.sum(1 / (data.n - 1))) - 1 / (total - k)) / (3 * (k - 1))
    statistic = max(statistic, 0.0)  # equal variances can round to -1e-14
    return BartlettResult(statistic, df, float(special.chdtrc(df, statistic)))


def bartlett(groups: Sequence[np.ndarray]) -> BartlettResult:
    """Bartlett's test of equal variances (Bartlett 1937), as R's ``bartlett.test``: valid for
    normal data, where it is more powerful than Levene's."""
    return _bartlett(_prepare(groups))


# ---------------------------------------------------------------- studentized range distribution

#: log P(range of k standard normals > w) is tabulated per k by Chebyshev interpolation on
#: these pieces of [0, 30] (error below 1e-12); beyond 30 (probabilities below 1e-98) the
#: Gaussian decay exp(−w²/4) continues it.
_RANGE_PIECES = ((0.0, 3.0), (3.0, 8.0), (8.0, 16.0), (16.0, 30.0))
_RANGE_DEGREE = 32
_RANGE_MAX = 30.0


@lru_cache(maxsize=8)
def _legendre_nodes(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [-1, 1] (an eigenvalue problem each time:
    0.2 ms, for each of the many degrees of freedom of Welch-type post-hoc tests)."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    x.flags.writeable = w.flags.writeable = False  # shared by every call
    return x, w


def _gauss_legendre(a: float, b: float, panels: int, nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights of composite Gauss–Legendre quadrature on [a, b]."""
    x, w = _legendre_nodes(nodes)
    edges = np.linspace(a, b, panels + 1)
    half = np.diff(edges)[:, None] / 2
    middle = (edges[:-1] + edges[1:])[:, None] / 2
    return (middle + half * x).ravel(), (half * w).ravel()


def _range_sf_quadrature(w: np.ndarray, k: int) -> np.ndarray:
    """P(R > w) for the range R of k independent N(0, 1), by quadrature over the minimum z:

        P(R > w) = k ∫ φ(z) [a^(k−1) − b^(k−1)] dz,  a = Φ̄(z), c = Φ̄(z + w), b = a − c,

    with the bracket written c·Σ a^j b^(k−2−j), whose terms are all positive, so that tails
    near 1e-98 keep their relative precision."""
    z, weights = _gauss_legendre(-_RANGE_MAX - 12.0, 12.0, 108, 16)
    a = special.ndtr(-z)
    c = special.ndtr(-z - w[:, None])
    b = a - c
    total = np.zeros_like(c)
    for j in range(k - 1):
        total += a**j * b ** (k - 2 - j)
    density = k * np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    return (density * c * total) @ weights


@lru_cache(maxsize=64)
def _range_table(k: int) -> np.ndarray:
    """Chebyshev coefficients of log P(R > w) (row 0) and of its derivative in w (row 1,
    padded) on each piece of :data:`_RANGE_PIECES`: shape (pieces, 2, degree + 1)."""
    nodes = np.cos(np.pi * (np.arange(_RANGE_DEGREE + 1) + 0.5) / (_RANGE_DEGREE + 1))
    table = np.zeros((len(_RANGE_PIECES), 2, _RANGE_DEGREE + 1))
    for piece, (low, high) in enumerate(_RANGE_PIECES):
        w = low + (high - low) * (nodes + 1) / 2
        coefficients = chebyshev.chebfit(nodes, np.log(_range_sf_quadrature(w, k)),
                                         _RANGE_DEGREE)
        table[piece, 0] = coefficients
        table[piece, 1, :-1] = chebyshev.chebder(coefficients) * 2 / (high - low)
    return table


_PIECE_LOW = np.array([low for low, _ in _RANGE_PIECES])
_PIECE_HIGH = np.array([high for _, high in _RANGE_PIECES])


def _log_range_sf(w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """log P(R > w) and its derivative in w, for w ≥ 0 (one vectorised Clenshaw recurrence
    over all pieces: numpy's chebval per piece cost most of a p-value)."""
    clipped = np.minimum(w, _RANGE_MAX)
    piece = np.clip(np.searchsorted(_PIECE_LOW, clipped, side="right") - 1, 0,
                    len(_RANGE_PIECES) - 1)
    low, high = _PIECE_LOW[piece], _PIECE_HIGH[piece]
    t = (2 * clipped - low - high) / (high - low)
    coefficients = _range_table(k)[piece]  # (n, 2, degree + 1)
    b1 = np.zeros((2, clipped.size))
    b2 = np.zeros_like(b1)
    for column in range(_RANGE_DEGREE, 0, -1):
        b1, b2 = coefficients[:, :, column].T + 2 * t * b1 - b2, b1
    value, slope = coefficients[:, :, 0].T + t * b1 - b2
    beyond = w > _RANGE_MAX
    value[beyond] -= (w[beyond] ** 2 - _RANGE_MAX**2) / 4
    slope[beyond] = -w[beyond] / 2
    return value, slope


@lru_cache(maxsize=256)
def _scale_nodes(df: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes s and weights for E f(s), s = √(χ²_df / df), by composite Gauss–Legendre in
    u = log s, whose density ∝ exp(df·(u − (e^{2u} − 1)/2)) peaks at u = 0 with spread
    1/√(2 df); the range covers the density down to e^-60 of its peak. The weights are
    normalised to sum to 1, which cancels the (Gamma-function) constant and most of the
    quadrature error."""
    if math.isinf(df):
        return np.ones(1), np.ones(1)

    def log_density(u: float) -> float:
        return df * (u - math.expm1(2 * u) / 2) + 60.0

    low = optimize.brentq(log_density, -60.0 / df - 5, 0.0)
    high = optimize.brentq(log_density, 0.0, 0.5 * math.log1p(120.0 / df + 2) + 1)
    # Panels of at most 1.5 spreads, and at most 0.75 wide for the long left tail of small df.
    panels = max(4, math.ceil((high - low) / min(0.75, 1.5 / math.sqrt(df))))
    u, weights = _gauss_legendre(low, high, panels, 10)
    weights = weights * np.exp(df * (u - np.expm1(2 * u) / 2))
    return np.exp(u), weights / weights.sum()


def _sr_sf_and_slope(q: float, k: int, df: float) -> tuple[float, float]:
    """P(Q > q) and d log P(Q > q) / dq for one q ≥ 0."""
    s, weights = _scale_nodes(float(df))
    log_sf, slope = _log_range_sf(q * s, k)
    terms = weights * np.exp(log_sf)
    sf = float(terms.sum())
    return sf, float(np.sum(terms * s * slope)) / sf if sf > 0 else -math.inf


def studentized_range_sf(q: float, k: int, df: float) -> float:
    """P(Q > q) for the studentized range of k means with ``df`` degrees of freedom (``df``
    may be ``math.inf``): the upper-tail p-value of Tukey HSD and Games–Howell, R's
    ``ptukey(q, k, df, lower.tail = FALSE)``.

    Q = R / s with R the range of k independent N(0, 1) and s = √(χ²_df / df):
    P(Q > q) = E P(R > q·s). The inner probability is tabulated once per k (Chebyshev
    interpolation of its logarithm, from a quadrature over the minimum) and the expectation
    over s is a fixed Gauss–Legendre rule, so a p-value costs ~0.3 ms. Relative error below
    1e-9 for p-values above 1e-20 (checked against ``scipy.stats.studentized_range``, against
    an adaptive double integral in R, and for k = 2 against the exact √2·|t|). R's ``ptukey``
    is less accurate in the far tail with few degrees of freedom (1e-3 relative at df = 2,
    q = 20; 1e-6 near the 5% point at df = 3.4), scipy's at large df (it matches the
    infinite-df limit at df = 1e5, 1e-3 away from the t distribution for k = 2, q = 6).
    """
    if not q > 0:
        return 1.0
    if math.isinf(q):
        return 0.0
    return min(1.0, _sr_sf_and_slope(q, k, df)[0])


@lru_cache(maxsize=1024)
def studentized_range_isf(p: float, k: int, df: float) -> float:
    """The q with P(Q > q) = p (so ``isf(α)`` is the critical value at risk α): R's
    ``qtukey(1 − p, k, df)``. Newton's method on log P(Q > q), kept inside a bracket."""
    if not 0 < p < 1:
        raise ValueError("p must be in (0, 1)")
    target = math.log(p)
    low, high = 0.0, math.inf
    q = 3.5
    for _ in range(200):
        sf, slope = _sr_sf_and_slope(q, k, df)
        gap = math.log(sf) - target if sf > 0 else -math.inf
        if gap > 0:
            low = q
        else:
            high = q
        candidate = q - gap / slope if slope < 0 and math.isfinite(gap) else math.nan
        if abs(candidate - q) <= 1e-13 * q:
            return candidate
        if not low < candidate < high:  # Newton left the bracket: widen it or bisect
            candidate = 2 * q if math.isinf(high) else (low + high) / 2
        q = candidate
    return q


def _sr_sf_and_slope_many(q: np.ndarray, k: int, df: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_sr_sf_and_slope` of many (q, df) at once, q > 0 finite: one evaluation of the
    tabulated range distribution over every quadrature node of every pair."""
    nodes = [_scale_nodes(float(d)) for d in df]
    sizes = [s.size for s, _ in nodes]
    owner = np.repeat(np.arange(q.size), sizes)
    s = np.concatenate([s for s, _ in nodes])
    weights = np.concatenate([w for _, w in nodes])
    log_sf, slope = _log_range_sf(q[owner] * s, k)
    terms = weights * np.exp(log_sf)
    sf = np.bincount(owner, terms, minlength=q.size)
    moment = np.bincount(owner, terms * s * slope, minlength=q.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        return sf, np.where(sf > 0, moment / np.where(sf > 0, sf, 1.0), -math.inf)


def studentized_range_sf_many(q: np.ndarray, k: int, df: np.ndarray) -> np.ndarray:
    """:func:`studentized_range_sf` of many q, each with its degrees of freedom, computed
    together (a post-hoc table at once)."""
    q, df = np.asarray(q, dtype=float), np.asarray(df, dtype=float)
    result = np.where(q > 0, 0.0, 1.0)
    inner = (q > 0) & np.isfinite(q)
    if inner.any():
        result[inner] = np.minimum(1.0, _sr_sf_and_slope_many(q[inner], k, df[inner])[0])
    return result


def studentized_range_isf_many(p: np.ndarray, k: int, df: np.ndarray) -> np.ndarray:
    """:func:`studentized_range_isf` of many (p, df), by the same safeguarded Newton
    iteration run on all of them together."""
    p, df = np.asarray(p, dtype=float), np.asarray(df, dtype=float)
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("p must be in (0, 1)")
    target = np.log(p)
    low, high = np.zeros_like(p), np.full_like(p, math.inf)
    q = np.full_like(p, 3.5)
    result = np.full_like(p, math.nan)
    active = np.arange(p.size)
    for _ in range(200):
        if active.size == 0:
            break
        sf, slope = _sr_sf_and_slope_many(q[active], k, df[active])
        with np.errstate(divide="ignore", invalid="ignore"):
            gap = np.where(sf > 0, np.log(np.where(sf > 0, sf, 1.0)) - target[active],
                           -math.inf)
            above = gap > 0
            low[active] = np.where(above, q[active], low[active])
            high[active] = np.where(above, high[active], q[active])
            usable = (slope < 0) & np.isfinite(gap)
            candidate = np.where(usable, q[active] - gap / np.where(usable, slope, -1.0),
                                 math.nan)
            converged = np.abs(candidate - q[active]) <= 1e-13 * q[active]
        result[active[converged]] = candidate[converged]
        outside = ~((low[active] < candidate) & (candidate < high[active]))
        fallback = np.where(np.isinf(high[active]), 2 * q[active],
                            (low[active] + high[active]) / 2)
        q[active] = np.where(outside, fallback, candidate)
        active = active[~converged]
    result[active] = q[active]
    return result


# ---------------------------------------------------------------------------- post-hoc tests


def _mean_pairs(data: _Groups, pairs: Sequence[tuple[int, int]], std_errors: Sequence[float],
                dfs: Sequence[float], criticals: Sequence[float] | None
                ) -> list[PairComparison]:
    """Comparisons of means: t = d / se, studentized q = √2·|t|; the studentized range
    p-values of all pairs computed together."""
    differences = [float(data.means[j] - data.means[i]) for i, j in pairs]
    ts = [d / se for d, se in zip(differences, std_errors, strict=True)]
    qs = [math.sqrt(2) * abs(t) for t in ts]
    adjusted = studentized_range_sf_many(np.array(qs), data.k, np.array(dfs, dtype=float))
    found = []
    for index, ((i, j), difference, t, q, df, std_error) in enumerate(
            zip(pairs, differences, ts, qs, dfs, std_errors, strict=True)):
        lower = upper = None
        if criticals is not None:
            half = criticals[index] / math.sqrt(2) * std_error
            lower, upper = data.unscale(difference - half), data.unscale(difference + half)
        found.append(PairComparison(i, j, data.unscale(difference), q, df,
                                    float(2 * special.stdtr(df, -abs(t))),
                                    float(adjusted[index]), lower, upper))
    return found


def _undefined_pair(data: _Groups, i: int, j: int, note: str,
                    difference: float | None = None) -> PairComparison:
    if difference is None:
        difference = data.unscale(float(data.means[j] - data.means[i]))
    return PairComparison(i, j, difference, None, None, None, None, note=note)


def _tukey(data: _Groups, confidence: float) -> PostHocResult:
    df = data.total - data.k
    mse = float(np.sum((data.n - 1) * data.variances)) / df
    if mse == 0:
        return PostHocResult("tukey", data.k, confidence, tuple(
            _undefined_pair(data, i, j, "every group's values are identical")
            for i, j in _pairs(data.k)))
    critical = studentized_range_isf(1 - confidence, data.k, df)
    pairs = _pairs(data.k)
    std_errors = [math.sqrt(mse * (1 / data.n[i] + 1 / data.n[j])) for i, j in pairs]
    return PostHocResult("tukey", data.k, confidence, tuple(_mean_pairs(
        data, pairs, std_errors, [float(df)] * len(pairs), [critical] * len(pairs))))


def tukey_hsd(groups: Sequence[np.ndarray], confidence: float = 0.95) -> PostHocResult:
    """Tukey's honestly significant difference for all pairs of means (Tukey 1953), with the
    Tukey–Kramer standard error √(MSE/2·(1/nᵢ + 1/nⱼ)) when sizes differ (Kramer 1956), as R's
    ``TukeyHSD(aov(x ~ g), conf.level = confidence)``: adjusted p = P(Q > |dᵢⱼ|/se) with
    Q the studentized range of k means on N − k degrees of freedom, and simultaneous
    intervals dᵢⱼ ± q(confidence)·se. Assumes normal data with equal variances.

    Each pair's ``p_value`` is the unadjusted two-sided t-test with the pooled variance (R's
    ``pairwise.t.test(p.adjust.method = "none")``).
    """
    return _tukey(_prepare(groups), confidence)


def _games_howell(data: _Groups, confidence: float) -> PostHocResult:
    found: dict[tuple[int, int], PairComparison] = {}
    defined, std_errors, dfs = [], [], []
    for i, j in _pairs(data.k):
        part_i, part_j = data.variances[i] / data.n[i], data.variances[j] / data.n[j]
        if part_i + part_j == 0:
            found[i, j] = _undefined_pair(data, i, j, "both groups' values are identical")
            continue
        defined.append((i, j))
        std_errors.append(math.sqrt(part_i + part_j))
        dfs.append(float((part_i + part_j) ** 2 / (part_i**2 / (data.n[i] - 1)
                                                   + part_j**2 / (data.n[j] - 1))))
    if defined:
        criticals = studentized_range_isf_many(np.full(len(dfs), 1 - confidence), data.k,
                                               np.array(dfs))
        for pair in _mean_pairs(data, defined, std_errors, dfs, list(criticals)):
            found[pair.first, pair.second] = pair
    return PostHocResult("games-howell", data.k, confidence,
                         tuple(found[pair] for pair in _pairs(data.k)))


def games_howell(groups: Sequence[np.ndarray], confidence: float = 0.95) -> PostHocResult:
    """Games–Howell comparisons of all pairs of means for unequal variances (Games and Howell
    1976, J. Educ. Stat. 1): t = dᵢⱼ / √(sᵢ²/nᵢ + sⱼ²/nⱼ) with Welch–Satterthwaite degrees of
    freedom νᵢⱼ; adjusted p = P(Q > √2·|t|) for the studentized range of k means on νᵢⱼ
    degrees of freedom; simultaneous intervals dᵢⱼ ± q(confidence)/√2 · se.

    Each pair's ``p_value`` is Welch's two-sided t-test (R's ``t.test(var.equal = FALSE)``).
    """
    return _games_howell(_prepare(groups), confidence)


def _rank_posthoc(method: PostHocMethod, data: _Groups, scale: float | None, df: float | None,
                  note: str) -> PostHocResult:
    """Pairs of mean ranks, z (``df`` None) or t statistics on se = √(scale·(1/nᵢ + 1/nⱼ))."""
    _, mean_ranks, _ = _pooled_ranks(data)
    raw: list[PairComparison] = []
    for i, j in _pairs(data.k):
        difference = float(mean_ranks[j] - mean_ranks[i])
        if scale is None:
            raw.append(_undefined_pair(data, i, j, note, difference))
            continue
        statistic = difference / math.sqrt(scale * (1 / data.n[i] + 1 / data.n[j]))
        p_value = (2 * special.ndtr(-abs(statistic)) if df is None
                   else 2 * special.stdtr(df, -abs(statistic)))
        raw.append(PairComparison(i, j, difference, statistic, df, float(p_value), None))
    adjusted = holm([pair.p_value for pair in raw])
    pairs = tuple(PairComparison(p.first, p.second, p.difference, p.statistic, p.df, p.p_value,
                                 a, note=p.note) for p, a in zip(raw, adjusted, strict=True))
    return PostHocResult(method, data.k, None, pairs)


def _dunn(data: _Groups) -> PostHocResult:
    total = data.total
    _, _, tie_sum = _pooled_ranks(data)
    variance = total * (total + 1) / 12 - tie_sum / (12 * (total - 1))
    scale = variance if variance > 1e-12 * total * (total + 1) / 12 else None
    return _rank_posthoc("dunn", data, scale, None, "all values are identical")


def dunn(groups: Sequence[np.ndarray]) -> PostHocResult:
    """Dunn's test of all pairs of mean ranks (Dunn 1964, Technometrics 6), the post-hoc test
    of Kruskal–Wallis: z = (R̄ⱼ − R̄ᵢ) / √([N(N+1)/12 − Σ(t³ − t)/(12(N − 1))]·(1/nᵢ + 1/nⱼ))
    on the pooled average ranks (tie-corrected), two-sided normal p-values, Holm-adjusted."""
    return _dunn(_prepare(groups))


def _conover(data: _Groups) -> PostHocResult:
    total, k = data.total, data.k
    ranks, _, _ = _pooled_ranks(data)
    rank_variance = (float(np.sum(ranks**2)) - total * (total + 1) ** 2 / 4) / (total - 1)
    kruskal_h = _kruskal(data).statistic
    residual = (total - 1 - (kruskal_h or 0.0)) / (total - k)
    defined = kruskal_h is not None and residual * (total - k) > 1e-12 * (total - 1)
    return _rank_posthoc("conover", data, rank_variance * residual if defined else None,
                         float(total - k),
                         "every group's values are identical within the group")


def conover(groups: Sequence[np.ndarray]) -> PostHocResult:
    """Conover–Iman test of all pairs of mean ranks (Conover and Iman 1979, LA-7677-MS; as
    PMCMRplus ``kwAllPairsConoverTest``): t = (R̄ⱼ − R̄ᵢ) / √(S²·(N − 1 − H)/(N − k)·
    (1/nᵢ + 1/nⱼ)) on N − k degrees of freedom, S² the variance of the pooled average ranks and
    H the tie-corrected Kruskal–Wallis statistic; two-sided, Holm-adjusted. More powerful than
    Dunn's test."""
    return _conover(_prepare(groups))


def _pairwise_wilcoxon(data: _Groups) -> PostHocResult:
    raw = []
    for i, j in _pairs(data.k):
        result = wilcoxon_mann_whitney(data.values[j], data.values[i], alternative="two-sided")
        raw.append((result.statistic, result.p_value, result.note))
    adjusted = holm([p for _, p, _ in raw])
    pairs = tuple(PairComparison(i, j, None, statistic, None, p, a, note=note)
                  for (i, j), (statistic, p, note), a in zip(_pairs(data.k), raw, adjusted,
                                                            strict=True))
    return PostHocResult("wilcoxon", data.k, None, pairs)


def pairwise_wilcoxon(groups: Sequence[np.ndarray]) -> PostHocResult:
    """Two-sided Wilcoxon–Mann–Whitney test of every pair, Holm-adjusted, as R's
    ``pairwise.wilcox.test(x, g, p.adjust.method = "holm")`` (exact below 50 values per side
    without ties, else normal with tie and continuity correction)."""
    return _pairwise_wilcoxon(_prepare(groups))


# --------------------------------------------------------------------------- the decision


def _p(value: float | None) -> str:
    if value is None:
        return "not computed"
    return "> 0.999" if value > 0.999 else f"= {value:.3g}"


def _normality(names: Sequence[str], shapiro: Sequence[ShapiroResult],
               alpha: float) -> tuple[str, list[str], list[str]]:
    """The Shapiro–Wilk step in words, the versions rejected and those not checkable."""
    rejected = [f"{n} (p {_p(r.p_value)})" for n, r in zip(names, shapiro, strict=True)
                if r.rejects(alpha)]
    unchecked = [f"{n} ({r.note})" for n, r in zip(names, shapiro, strict=True)
                 if not r.computed]
    if not rejected and not unchecked:
        text = f"Shapiro–Wilk per version: normality not rejected for any version at α = {alpha:g}."
    else:
        parts = []
        if rejected:
            parts.append("normality rejected (p ≤ α) for " + ", ".join(rejected))
        if unchecked:
            parts.append("not computed for " + ", ".join(unchecked))
        text = "Shapiro–Wilk per version: " + "; ".join(parts) + "."
    return text, rejected, unchecked


def _omnibus_step(route: Route, result: AnovaResult | KruskalResult, alpha: float) -> str:
    name = {"anova": "Classic one-way ANOVA", "welch": "Welch's ANOVA",
            "kruskal": "Kruskal–Wallis"}[route]
    if not result.computed:
        return f"{name}: not computed ({result.note})."
    if isinstance(result, KruskalResult):
        head = f"{name}: H = {result.statistic:.4g}, df = {result.df}, p {_p(result.p_value)}"
        what = "the versions' distributions"
    else:
        head = (f"{name}: F({result.df_numerator:.4g}, {result.df_denominator:.4g}) = "
                f"{result.statistic:.4g}, p {_p(result.p_value)}")
        what = "the versions' mean times"
    if result.rejects(alpha):
        return f"{head} ≤ α: {what} differ."
    return f"{head} > α: no difference between {what} is shown."


def _posthoc_steps(posthoc: PostHocResult, omnibus: AnovaResult | KruskalResult,
                   names: Sequence[str], alpha: float) -> list[str]:
    found = [f"{names[i]}–{names[j]}" for i, j in posthoc.significant_pairs(alpha)]
    count = len(posthoc.pairs)
    if found:
        steps = [f"{posthoc.label}, {count} pairs, family-wise risk α = {alpha:g}: "
                 f"{len(found)} differ ({', '.join(found)})."]
    else:
        steps = [f"{posthoc.label}, {count} pairs, family-wise risk α = {alpha:g}: no pair "
                 "differs."]
    if omnibus.rejects(alpha) and not found:
        steps.append("The omnibus test rejects but no single pair does: the difference is "
                     "spread over several versions, none far enough from another alone.")
    elif omnibus.computed and not omnibus.rejects(alpha) and found:
        steps.append("The post-hoc test controls the family-wise risk on its own, so its pairs "
                     "stand although the omnibus test does not reject.")
    return steps


def _route(small: bool, rejected: list[str], unchecked: list[str], tests: VersionTests,
           alpha: float) -> tuple[Route, list[str]]:
    """Which omnibus test and post-hoc apply, and why in words."""
    if small and (rejected or unchecked):
        return "kruskal", ["Small samples that are not all shown normal: the ANOVA's normality "
                           "assumption cannot be relied on, so the rank route: Kruskal–Wallis "
                           "(tie-corrected) and Dunn's test with Holm's correction."]
    normal = not rejected and not unchecked
    steps = ["Every version normal: ANOVA route." if normal else
             "Large samples: ANOVA route (the means are close to normal even if the times "
             "are not)."]
    variance = tests.bartlett if normal else tests.levene
    name = "Bartlett's test" if normal else "Levene's test (Brown–Forsythe, median-centred)"
    if variance.computed and not variance.rejects(alpha):
        steps.append(f"{name} of equal variances: p {_p(variance.p_value)} > α, equal "
                     "variances not rejected: classic ANOVA and Tukey HSD.")
        return "anova", steps
    why = (f"p {_p(variance.p_value)} ≤ α, variances differ" if variance.computed
           else f"not computed ({variance.note}), equal variances not assumed")
    steps.append(f"{name} of equal variances: {why}: Welch's ANOVA and Games–Howell.")
    return "welch", steps


def _choice_notices(small: bool, rejected: list[str], sizes: np.ndarray,
                    large_sample: int) -> list[Notice]:
    notices = []
    if not small and rejected:
        notices.append(Notice(
            "versions-large-not-normal",
            f"Normality is rejected for {', '.join(rejected)}; the samples are large, so the "
            "ANOVA route is taken anyway, but its risk level may not be preserved.",
            "Look at the distributions for outliers or several modes; the Kruskal–Wallis "
            "test in the table is more robust.",
        ))
    elif small and not rejected and sizes.min() < LOW_POWER_SIZE:
        notices.append(Notice(
            "versions-normality-unverified",
            f"Normality is not rejected, but with {int(sizes.min())} values in a version "
            "Shapiro–Wilk can hardly detect non-normal data, so the ANOVA's normality "
            "assumption is unverified.",
            f"Collect at least {LOW_POWER_SIZE} (better more than {large_sample}) runs per "
            "version, or weigh the Kruskal–Wallis test too.",
        ))
    return notices


def choose_omnibus(
    groups: Sequence[np.ndarray],
    alpha: float = DEFAULT_ALPHA,
    large_sample: int = DEFAULT_LARGE_SAMPLE,
    *,
    names: Sequence[str] | None = None,
    confidence: float | None = None,
    rank_posthoc: Literal["dunn", "conover"] = "dunn",
    shapiro: Sequence[ShapiroResult] | None = None,
) -> OmnibusChoice:
    """Compare k versions by the logic of the Speedup-Test protocol (Touati et al. 2013,
    section 4), for k groups.

    *Small* means some version has at most ``large_sample`` values.

    1. Shapiro–Wilk on every version at risk α.
    2. Small and normality rejected (or not checkable) for some version → rank route:
       Kruskal–Wallis and Dunn's test with Holm (or Conover's with ``rank_posthoc``), as the
       protocol falls back on the rank test when the t-test is not valid.
    3. Otherwise (every version normal, or all large) → ANOVA route. Equal variances are
       tested by Bartlett when every version is normal, by Levene (Brown–Forsythe) otherwise;
       not rejected (p > α) → classic ANOVA and Tukey HSD, rejected → Welch's ANOVA and
       Games–Howell (as the protocol picks Student or Welch after its F-test).

    The post-hoc test always runs: it controls the family-wise risk α over all pairs by
    itself, so a pair is declared different when its adjusted p ≤ α, whatever the omnibus
    test says (requiring the omnibus to reject as well would only make it more conservative;
    the steps say when the two disagree). The pre-tests that pick the route are themselves
    random, so the route's family-wise risk is checked by simulation
    (benchmarks/posthoc_fwer.py). Every omnibus test is computed and kept in ``tests``.
    Intervals are at ``confidence`` (default 1 − α). ``shapiro``: the Shapiro–Wilk test of
    each group when already computed (by the two-version protocol, on the same values).
    """
    data = _prepare(groups)
    names = tuple(names) if names is not None else tuple(f"version {i + 1}"
                                                         for i in range(data.k))
    if len(names) != data.k:
        raise ValueError("one name per group is needed")
    confidence = 1 - alpha if confidence is None else confidence
    if shapiro is None:
        shapiro = tuple(shapiro_wilk(v) for v in data.values)
    elif len(shapiro) != data.k:
        raise ValueError("one Shapiro–Wilk result per group is needed")
    shapiro = tuple(shapiro)
    tests = VersionTests(shapiro, _bartlett(data), _levene(data), _classic_f(data),
                         _welch_f(data), _kruskal(data))
    small = bool(data.n.min() <= large_sample)
    steps = [f"Small samples: the smallest version has {int(data.n.min())} values (at most "
             f"{large_sample})." if small else
             f"Large samples: every version has more than {large_sample} values."]
    text, rejected, unchecked = _normality(names, shapiro, alpha)
    steps.append(text)
    route, route_steps = _route(small, rejected, unchecked, tests, alpha)
    steps += route_steps
    if route == "anova":
        posthoc = _tukey(data, confidence)
    elif route == "welch":
        posthoc = _games_howell(data, confidence)
    else:
        posthoc = _dunn(data) if rank_posthoc == "dunn" else _conover(data)
    omnibus = {"anova": tests.anova, "welch": tests.welch, "kruskal": tests.kruskal}[route]
    steps.append(_omnibus_step(route, omnibus, alpha))
    steps += _posthoc_steps(posthoc, omnibus, names, alpha)
    _, mean_ranks, _ = _pooled_ranks(data)
    return OmnibusChoice(
        names=names, alpha=alpha, large_sample=large_sample, small=small, route=route,
        tests=tests, posthoc=posthoc, means=tuple(data.unscale(m) for m in data.means),
        mean_ranks=tuple(float(r) for r in mean_ranks), steps=tuple(steps),
        notices=tuple(_choice_notices(small, rejected, data.n, large_sample)),
    )


# ------------------------------------------------------------------------ compact letters


def _absorb(columns: list[set[int]]) -> list[set[int]]:
    """Drop every column contained in another (and duplicates, keeping the first)."""
    kept: list[set[int]] = []
    for index, column in enumerate(columns):
        covered = any(column < other or (column == other and later < index)
                      for later, other in enumerate(columns) if later != index)
        if not covered:
            kept.append(column)
    return kept


def _sweep(columns: list[set[int]]) -> list[set[int]]:
    """Piepho's sweeping step: remove a letter from a version when every version it links it
    to shares another letter with it, and the version keeps a letter."""
    for column in columns:
        for member in sorted(column):
            others = [c for c in columns if c is not column]
            if not any(member in c for c in others):
                continue
            if all(any(member in c and peer in c for c in others)
                   for peer in column if peer != member):
                column.discard(member)
    return [c for c in columns if c]


def compact_letters(
    names: Sequence[Name],
    means_or_order: Sequence[float],
    significant_pairs: Iterable[tuple[Name, Name]],
) -> dict[Name, str]:
    """Compact letter display: versions sharing a letter are not declared different.

    Piepho's insert-absorb algorithm (H.-P. Piepho, "An algorithm for a letter-based
    representation of all-pairwise comparisons", J. Comput. Graph. Stat. 13(2), 2004): start
    from one letter shared by all; for each pair found different, split every letter column
    that holds both into two (one without each), then absorb columns contained in others;
    finally sweep redundant letters. Letters are assigned in the order of
    ``means_or_order`` (lower is better: mean times), so "a" marks the best version.
    """
    names = list(names)
    if len(names) != len(means_or_order):
        raise ValueError("one mean (or rank) per name is needed")
    if len(set(names)) != len(names):
        raise ValueError("names must be unique")
    position = {name: index for index, name in enumerate(names)}
    columns: list[set[int]] = [set(range(len(names)))]
    for a, b in significant_pairs:
        i, j = position[a], position[b]
        split: list[set[int]] = []
        for column in columns:
            if i in column and j in column:
                split += [column - {j}, column - {i}]
            else:
                split.append(column)
        columns = _absorb(split)
    columns = _absorb(_sweep(columns))
    rank = {index: r for r, index in
            enumerate(sorted(range(len(names)), key=lambda i: (means_or_order[i], i)))}
    columns.sort(key=lambda column: sorted(rank[i] for i in column))
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    if len(columns) > len(alphabet):
        raise ValueError(f"more than {len(alphabet)} letters would be needed")
    return {name: "".join(alphabet[c] for c, column in enumerate(columns) if position[name]
                          in column) for name in names}

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
``p.adjust``; see ``tests/fixtures/generate_version_cases.R``), except the studentized range's
far tail, where ``ptukey`` loses its digits (an mpmath reference there).

The studentized range distribution (Tukey HSD, Games–Howell) is computed here rather than with
``scipy.stats.studentized_range``, whose adaptive double integral costs ~15 ms per p-value and
~200 ms per quantile: a Games–Howell table needs one quantile per pair. It is accurate from
the body of the distribution down to p-values of 1e-300 (:func:`studentized_range_sf`), so
that an adjusted p-value is never below the pair's own (Tukey's and Games–Howell's as much as
Holm's).

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
from scipy import special

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
#
# Q = R / s: R the range of k independent N(0, 1), s = √(χ²_df / df) independent of it.
#
# The range, by pairs. P(R > w) ≤ Σ over the k(k − 1)/2 pairs of P(|Zᵢ − Zⱼ| > w)
# = k(k − 1)·Φ̄(w/√2), and the ratio of the two tends to 1 in the tail (two normals far apart
# leave the others between them). So log P(R > w) = log(k(k − 1)) + log Φ̄(w/√2) + r(w): the
# first two terms are exact at any w (scipy's erfcx: no underflow), and r, a smooth function
# that rises from −log(k(k − 1)/2) at 0 to 0 (as −Φ̄(w/√6): for k ≤ 10, |r| < 1e-17 from
# w = 22 on and 1e-21 at 24), is tabulated once per k by Chebyshev interpolation of its own
# quadrature (absolute error below 1e-14 up to k = 52).
#
# The scale. P(Q > q) = ∫ f(u) P(R > q·eᵘ) du over u = log s, whose density f is known exactly.
# The logarithm of the integrand is concave (f and the range's survival function are both
# log-concave), so it has one peak: found by Newton's method, then the two points where the
# integrand has fallen to e^-40 of the peak, and a composite Gauss–Legendre rule between them.
# Far in the tail the peak moves to small s (a p-value of 1e-300 at df = 2 is q ≈ 1e150), which
# a rule fixed on the density alone would miss: that was the error of earlier versions below
# about 1e-50.

#: r(w) is tabulated on these pieces of [0, 24]; 0 beyond.
_RANGE_PIECES = ((0.0, 2.0), (2.0, 4.0), (4.0, 7.0), (7.0, 11.0), (11.0, 16.0), (16.0, 24.0))
_RANGE_DEGREE = 28
_RANGE_TOP = 24.0
_RANGE_ORDERS = np.arange(_RANGE_DEGREE + 1, dtype=float)
_PIECE_LOW = np.array([low for low, _ in _RANGE_PIECES])
_PIECE_HIGH = np.array([high for _, high in _RANGE_PIECES])
#: The integral over the scale covers the integrand down to e^-_LEVEL of its peak.
_LEVEL = 40.0
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


@lru_cache(maxsize=8)
def _legendre_nodes(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [-1, 1] (cached: an eigenvalue problem each
    time)."""
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


def _log_erfcx(x: np.ndarray) -> np.ndarray:
    """log(exp(x²)·erfc(x)) for any real x, without overflow."""
    return np.where(x > 0, np.log(special.erfcx(np.maximum(x, 0.0))),
                    x * x + np.log(special.erfc(np.minimum(x, 0.0))))


def _range_ratio_quadrature(w: np.ndarray, k: int) -> np.ndarray:
    """r(w) = log[P(R > w) / (k(k − 1)·Φ̄(w/√2))] for the range R of k independent N(0, 1).

    P(R > w) = k ∫ φ(z)·c·Σⱼ aʲ b^(k−2−j) dz over the minimum z, a = Φ̄(z), c = Φ̄(z + w),
    b = a − c = P(z < Z < z + w) (every term positive, so no cancellation in the tail). With
    z = t − w/2, φ(z)·c / Φ̄(w/√2) = e^(−t²)/√(2π)·erfcx((t + w/2)/√2) / erfcx(w/2): the
    factors e^(−w²/4) cancel exactly, and the integrand is a Gaussian in t for any w."""
    t, weights = _gauss_legendre(-13.0, 13.0, 26, 16)
    w = np.asarray(w, dtype=float)[:, None]
    z = t - w / 2
    a = special.ndtr(-z)
    # b from the side where it is a difference of small probabilities (no cancellation).
    b = np.where(t < 0, special.ndtr(z + w) - special.ndtr(z), a - special.ndtr(-z - w))
    total = np.zeros_like(b)
    for j in range(k - 1):
        total += a**j * b ** (k - 2 - j)
    rest = (-t * t - _LOG_SQRT_2PI + _log_erfcx((t + w / 2) / math.sqrt(2))
            - _log_erfcx(w / 2) - math.log(k - 1))
    return np.log((np.exp(rest) * total) @ weights)


@lru_cache(maxsize=64)
def _range_table(k: int) -> np.ndarray:
    """Chebyshev coefficients of r(w) (row 0) and of its first two derivatives in w (rows 1
    and 2, padded) on each piece of :data:`_RANGE_PIECES`: shape (pieces, degree + 1, 3).
    r = 0 for k = 2 (the range of two is one pair)."""
    table = np.zeros((len(_RANGE_PIECES), 3, _RANGE_DEGREE + 1))
    if k == 2:
        return table.transpose(0, 2, 1).copy()
    nodes = np.cos(np.pi * (np.arange(_RANGE_DEGREE + 1) + 0.5) / (_RANGE_DEGREE + 1))
    for piece, (low, high) in enumerate(_RANGE_PIECES):
        w = low + (high - low) * (nodes + 1) / 2
        coefficients = chebyshev.chebfit(nodes, _range_ratio_quadrature(w, k), _RANGE_DEGREE)
        first = chebyshev.chebder(coefficients) * 2 / (high - low)
        table[piece, 0] = coefficients
        table[piece, 1, :-1] = first
        table[piece, 2, :-2] = chebyshev.chebder(first) * 2 / (high - low)
    table = table.transpose(0, 2, 1).copy()
    table.flags.writeable = False  # shared by every call
    return table


def _log_range_sf(w: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log P(R > w) and its first two derivatives in w, for w ≥ 0."""
    w = np.minimum(w, 1e6)  # beyond, log P(R > w) < -2.5e11: nothing of it is ever used
    clipped = np.minimum(w, _RANGE_TOP)
    piece = np.minimum(np.searchsorted(_PIECE_LOW, clipped, side="right") - 1,
                       len(_RANGE_PIECES) - 1)
    low, high = _PIECE_LOW[piece], _PIECE_HIGH[piece]
    t = (2 * clipped - low - high) / (high - low)
    table = _range_table(k)
    if w.size <= 64:
        # Every Chebyshev polynomial at once, T_j(t) = cos(j·arccos t): a few array
        # operations whatever the degree, where a recurrence would take one per degree.
        polynomials = np.cos(np.arccos(np.clip(t, -1.0, 1.0))[:, None] * _RANGE_ORDERS)
        r = np.einsum("nj,njr->rn", polynomials, table[piece])
    else:  # by their recurrence (cheaper than a cosine each), then one product per piece
        polynomials = np.empty((w.size, _RANGE_DEGREE + 1))
        polynomials[:, 0] = 1.0
        polynomials[:, 1] = t
        for j in range(2, _RANGE_DEGREE + 1):
            polynomials[:, j] = 2 * t * polynomials[:, j - 1] - polynomials[:, j - 2]
        r = np.empty((3, w.size))
        for index in range(len(_RANGE_PIECES)):
            members = piece == index
            r[:, members] = (polynomials[members] @ table[index]).T
    r[:, w > _RANGE_TOP] = 0.0
    x = w / math.sqrt(2)
    scaled = special.erfcx(w / 2)  # Φ̄(x) = erfcx(x/√2)·e^(−x²/2)/2
    mills = math.sqrt(2 / math.pi) / scaled  # φ(x)/Φ̄(x)
    value = math.log(k * (k - 1) / 2) + np.log(scaled) - x * x / 2 + r[0]
    slope = -mills / math.sqrt(2) + r[1]
    curvature = -0.5 * mills * (mills - x) + r[2]
    return value, slope, curvature


def _log_density_constant(df: np.ndarray) -> np.ndarray:
    """log of the constant of the density of u = log √(χ²_df / df),
    f(u) = C·exp(df·(u − (e^(2u) − 1)/2)): log C = ½·log(df/π) − δ(df/2), with δ Stirling's
    error lgamma(x) − (x − ½)·log x + x − ½·log 2π, by its series where the difference would
    cancel (so that df = 10⁶ loses nothing)."""
    x = df / 2
    safe = np.maximum(x, 15.0)
    square = safe * safe
    series = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * square)) / square)
                        / square) / square) / safe
    small = np.minimum(x, 15.0)
    direct = special.gammaln(small) - (small - 0.5) * np.log(small) + small - _LOG_SQRT_2PI
    return 0.5 * np.log(df / math.pi) - np.where(x >= 15, series, direct)


def _scale_terms(u: np.ndarray, q: np.ndarray, df: np.ndarray, k: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """h(u) = log f(u) − log C + log P(R > q·eᵘ), its first two derivatives in u, and
    d log P(R > q·eᵘ) / dq."""
    scale = np.exp(u)
    w = q * scale
    value, slope, curvature = _log_range_sf(w, k)
    square = np.exp(2 * u)
    h = df * (u - np.expm1(2 * u) / 2) + value
    h1 = df * (1 - square) + w * slope
    h2 = -2 * df * square + w * slope + w * w * curvature
    return h, h1, h2, scale * slope


def _scale_peak(q: np.ndarray, df: np.ndarray, k: int, start: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The u where h is largest, with h and h'' there: Newton's method on h' (h is concave),
    kept in a bracket, from ``start`` if given (the peak of a nearby q). Otherwise from where
    the peak is near: u = 0 (s = 1) while q is moderate, w = q·eᵘ = √(2 df) when q is
    large."""
    if start is None:
        with np.errstate(over="ignore"):  # q below 1e-300: the peak is at u = 0
            start = np.minimum(0.0, np.log((np.sqrt(2 * df) + 1) / q))
    u = start
    low, high = np.full_like(u, -np.inf), np.full_like(u, np.inf)
    for attempt in range(100):
        h, h1, h2, _ = _scale_terms(u, q, df, k)
        # Close enough: the peak only centres the rule and scales the integrand (a tenth of
        # a spread off, h is within 0.005 of its top).
        if np.all((h2 < 0) & (np.abs(h1) < 0.1 * np.sqrt(np.abs(h2)))) or attempt == 99:
            break
        rising = h1 > 0
        low, high = np.where(rising, u, low), np.where(rising, high, u)
        with np.errstate(divide="ignore", invalid="ignore"):
            # At most 2 (a factor e² in s) at a time: where the density's tail makes h
            # nearly straight, a full step would fly off.
            step = u - np.clip(h1 / h2, -2.0, 2.0)
        usable = (h2 < 0) & (step > low) & (step < high)
        fallback = np.where(np.isinf(high), u + 2, np.where(np.isinf(low), u - 2,
                                                             (low + high) / 2))
        u = np.clip(np.where(usable, step, fallback), -800.0, 50.0)
    return u, h, h2


def _level_points(peak: np.ndarray, top: np.ndarray, curvature: np.ndarray, q: np.ndarray,
                  df: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Points on either side of the peak where h ≤ top − _LEVEL, near where it equals it:
    from the Gaussian guess, one Newton step towards that level. h is concave, so its tangent
    lies above it and the step lands at or beyond the point (the rule covers at least the
    integrand down to e^-_LEVEL of its peak); a guess already far beyond stays."""
    reach = math.sqrt(2 * _LEVEL) / np.sqrt(-curvature)
    side = np.repeat([-1.0, 1.0], q.size)
    u = np.concatenate([peak - reach, peak + reach])
    level = np.tile(top - _LEVEL, 2)
    h, h1, _, _ = _scale_terms(u, np.tile(q, 2), np.tile(df, 2), k)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = u - (h - level) / h1
    u = np.where((side * h1 < 0) & np.isfinite(step) & (h > level - 1e3), step, u)
    return u[:peak.size], u[peak.size:]


def _log_sf_and_slope(q: np.ndarray, k: int, df: np.ndarray, peaks: np.ndarray | None = None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """log P(Q > q) and d log P(Q > q) / dq for arrays of q > 0 (finite) and df > 0 (∞ too).
    ``peaks``: where to start the search for each peak (a nearby q's, for finite df), and
    where to put the peaks found."""
    q, df = np.asarray(q, dtype=float), np.asarray(df, dtype=float)
    log_sf, slope = np.empty_like(q), np.empty_like(q)
    infinite = np.isinf(df)
    if infinite.any():  # s = 1: the range itself
        log_sf[infinite], slope[infinite], _ = _log_range_sf(q[infinite], k)
    finite = ~infinite
    if not finite.any():
        return log_sf, slope
    q, df = q[finite], df[finite]
    start = None
    if peaks is not None and not np.isnan(peaks[finite]).any():
        start = peaks[finite]
    peak, top, curvature = _scale_peak(q, df, k, start)
    if peaks is not None:
        peaks[finite] = peak
    low, high = _level_points(peak, top, curvature, q, df, k)
    spread = 1 / np.sqrt(-curvature)
    # Panels of 16 nodes, at most 3 spreads of the peak wide, and at most 1.5 for the long
    # left tail of small df (the density falls there as s^df only).
    panels = np.maximum(2, np.ceil((high - low) / np.minimum(3 * spread, 1.5))).astype(int)
    x, weights = _legendre_nodes(16)
    owner_panel = np.repeat(np.arange(q.size), panels)
    index = np.arange(owner_panel.size) - np.repeat(np.cumsum(panels) - panels, panels)
    width = ((high - low) / panels)[owner_panel]
    start = low[owner_panel] + index * width
    u = (start[:, None] + width[:, None] * (x + 1) / 2).ravel()
    weight = (width[:, None] * weights / 2).ravel()
    owner = np.repeat(owner_panel, x.size)
    h, _, _, dq = _scale_terms(u, q[owner], df[owner], k)
    terms = weight * np.exp(h - top[owner])
    total = np.bincount(owner, terms, minlength=q.size)
    log_sf[finite] = _log_density_constant(df) + top + np.log(total)
    slope[finite] = np.bincount(owner, terms * dq, minlength=q.size) / total
    return log_sf, slope


def studentized_range_logsf(q: np.ndarray, k: int, df: np.ndarray) -> np.ndarray:
    """log P(Q > q) of each q on its degrees of freedom (see :func:`studentized_range_sf`),
    finite where P(Q > q) itself underflows (below 1e-308)."""
    q, df = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(df, dtype=float))
    if not np.all(df > 0) or np.any(np.isnan(q)):
        raise ValueError("df must be positive and q a number")
    result = np.where(q > 0, -np.inf, 0.0)
    inner = (q > 0) & np.isfinite(q)
    if inner.any():
        result[inner] = np.minimum(0.0, _log_sf_and_slope(q[inner], k, df[inner])[0])
    return result


def studentized_range_sf(q: float, k: int, df: float) -> float:
    """P(Q > q) for the studentized range of k means with ``df`` degrees of freedom (``df``
    may be ``math.inf``): the upper-tail p-value of Tukey HSD and Games–Howell, R's
    ``ptukey(q, k, df, lower.tail = FALSE)``.

    Q = R / s with R the range of k independent N(0, 1) and s = √(χ²_df / df):
    P(Q > q) = E P(R > q·s). The range's survival function is its sum over pairs times a
    tabulated correction, and the expectation over s a Gauss–Legendre rule placed where the
    integrand is, for each q (the method: the comment at the head of this section of the
    source). Relative error below 1e-12 from the body down to p-values of 1e-295, for
    k = 3…10 and df = 2…∞, against a high-precision mpmath integral
    (tests/fixtures/studentized_range_reference.json;
    ``python benchmarks/studentized_range_accuracy.py``), and for k = 2 the t distribution's
    2·P(T > q/√2) to 1e-11 down to 1e-300. Below 2.2e-308 a double holds fewer digits
    (:func:`studentized_range_logsf` does not underflow). R's ``ptukey`` computes
    1 − P(Q ≤ q), rounding noise below about 1e-14, and is less accurate in the far tail
    with few degrees of freedom; scipy's ``studentized_range`` is slower (~15 ms a p-value)
    and drifts at large df (1e-3 relative at df = 10⁵).
    """
    if not q > 0:
        return 1.0
    if math.isinf(q):
        return 0.0
    log_sf, _ = _log_sf_and_slope(np.array([float(q)]), k, np.array([float(df)]))
    return min(1.0, math.exp(float(log_sf[0])))


def _isf(p: np.ndarray, k: int, df: np.ndarray) -> np.ndarray:
    """The q with P(Q > q) = p: Newton's method on log P(Q > q), kept inside a bracket, on
    all of them together."""
    if np.any((p <= 0) | (p >= 1)):
        raise ValueError("p must be in (0, 1)")
    target = np.log(p)
    # Bonferroni's bound, P(Q > q) ≤ k(k − 1)·P(T > q/√2) over the pairs: its q is above
    # the quantile, a bracket's end and a start close to it in the tail.
    tail = np.minimum(p / (k * (k - 1)), 0.5)
    high = math.sqrt(2) * np.where(np.isinf(df), -special.ndtri(tail),
                                   -special.stdtrit(np.where(np.isinf(df), 1.0, df), tail))
    high = np.where(np.isfinite(high) & (high > 0), high, math.inf)
    low = np.zeros_like(p)
    q = np.where(np.isfinite(high), high, 3.5)
    peaks = np.full_like(p, math.nan)
    result = np.full_like(p, math.nan)
    active = np.arange(p.size)
    for _ in range(200):
        if active.size == 0:
            break
        found = peaks[active]
        log_sf, slope = _log_sf_and_slope(q[active], k, df[active], found)
        peaks[active] = found
        gap = log_sf - target[active]
        above = gap > 0
        low[active] = np.where(above, q[active], low[active])
        high[active] = np.where(above, high[active], q[active])
        # Newton's step in log q, where the tail is closer to straight (a power of q for
        # finite df).
        elasticity = slope * q[active]
        usable = (elasticity < 0) & np.isfinite(gap)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            candidate = np.where(usable, q[active] * np.exp(
                -gap / np.where(usable, elasticity, -1.0)), math.nan)
            # Newton's error squares at each step: a step of 1e-7 leaves ~1e-14.
            converged = np.abs(candidate - q[active]) <= 1e-7 * q[active]
        result[active[converged]] = candidate[converged]
        outside = ~((low[active] < candidate) & (candidate < high[active]))
        fallback = np.where(np.isinf(high[active]), 2 * q[active],
                            (low[active] + high[active]) / 2)
        q[active] = np.where(outside, fallback, candidate)
        active = active[~converged]
    result[active] = q[active]
    return result


@lru_cache(maxsize=1024)
def studentized_range_isf(p: float, k: int, df: float) -> float:
    """The q with P(Q > q) = p (so ``isf(α)`` is the critical value at risk α): R's
    ``qtukey(1 − p, k, df)``. Newton's method on log P(Q > q), kept inside a bracket."""
    return float(_isf(np.array([float(p)]), k, np.array([float(df)]))[0])


def studentized_range_sf_many(q: np.ndarray, k: int, df: np.ndarray) -> np.ndarray:
    """:func:`studentized_range_sf` of many q, each with its degrees of freedom, computed
    together (a post-hoc table at once)."""
    return np.exp(studentized_range_logsf(q, k, df))


def studentized_range_isf_many(p: np.ndarray, k: int, df: np.ndarray) -> np.ndarray:
    """:func:`studentized_range_isf` of many (p, df), by the same safeguarded Newton
    iteration run on all of them together."""
    return _isf(np.asarray(p, dtype=float), k, np.asarray(df, dtype=float))


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
        raw = float(2 * special.stdtr(df, -abs(t)))
        # P(Q > √2·|t|) ≥ P(√2·|T| > √2·|t|): the range of k means is at least the distance
        # of any two, so the family-wise p is never below the pair's own (equal for k = 2,
        # where the two computations may differ in the last bit).
        found.append(PairComparison(i, j, data.unscale(difference), q, df, raw,
                                    max(float(adjusted[index]), raw), lower, upper))
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

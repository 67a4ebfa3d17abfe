"""Comparing k ≥ 3 versions (speeduptest.stats.omnibus) against R, and its invariants.

The R reference is tests/fixtures/version_cases.json, written by
tests/fixtures/generate_version_cases.R (base R: aov, oneway.test, kruskal.test, bartlett.test,
TukeyHSD, pairwise.t.test, pairwise.wilcox.test, and Games–Howell, Dunn and Conover–Iman from
their formulas with ptukey/qtukey, pnorm, pt and p.adjust).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import special
from scipy import stats as scipy_stats

from speeduptest.stats import omnibus as versions
from speeduptest.stats.normality import shapiro_wilk

FIXTURES = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "version_cases.json").read_text(encoding="utf-8")
)
CASES = {case["name"]: case for case in FIXTURES["cases"]}
RELATIVE = 1e-6  # the agreement asked of every p-value
NEAR_ZERO = 1e-9  # absolute tolerance for p-values near 0


def close(actual: float | None, expected: float, *, near_zero: float = 0.0) -> bool:
    return actual is not None and actual == pytest.approx(expected, rel=RELATIVE,
                                                          abs=near_zero)


def close_p(actual: float | None, expected: float) -> bool:
    return close(actual, expected, near_zero=NEAR_ZERO)


def groups_of(case: dict) -> list[np.ndarray]:
    return [np.array(values, dtype=float) for values in case["groups"]]


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request: pytest.FixtureRequest) -> dict:
    return CASES[request.param]


# ------------------------------------------------------------------------- omnibus vs R


def test_fixture_covers_the_issue():
    sizes = [len({len(g) for g in c["groups"]}) for c in CASES.values()]
    assert {len(c["groups"]) for c in CASES.values()} >= {3, 4, 5, 6}
    assert any(s == 1 for s in sizes) and any(s > 1 for s in sizes)  # balanced, unbalanced
    assert any(len(np.unique(np.concatenate(c["groups"]))) < sum(map(len, c["groups"]))
               for c in CASES.values())  # ties
    assert {c["route"] for c in CASES.values()} == {"anova", "welch", "kruskal"}


def test_classic_anova(case):
    result = versions.anova(groups_of(case))
    for expected in (case["anova"], case["oneway_equal"]):  # aov and oneway.test agree
        assert close(result.statistic, expected["statistic"])
        assert close_p(result.p_value, expected["p_value"])
        assert (result.df_numerator, result.df_denominator) == (expected["df1"],
                                                                expected["df2"])


def test_welch_anova(case):
    result, expected = versions.anova(groups_of(case), equal_var=False), case["welch"]
    assert result.variant == "welch"
    assert close(result.statistic, expected["statistic"])
    assert close(result.df_denominator, expected["df2"])
    assert result.df_numerator == expected["df1"]
    assert close_p(result.p_value, expected["p_value"])


def test_kruskal_wallis(case):
    result, expected = versions.kruskal_wallis(groups_of(case)), case["kruskal"]
    assert close(result.statistic, expected["statistic"])
    assert result.df == expected["df"]
    assert close_p(result.p_value, expected["p_value"])


def test_bartlett(case):
    result, expected = versions.bartlett(groups_of(case)), case["bartlett"]
    assert close(result.statistic, expected["statistic"])
    assert result.df == expected["df"]
    assert close_p(result.p_value, expected["p_value"])


def test_levene_brown_forsythe(case):
    result, expected = versions.levene(groups_of(case)), case["levene"]
    assert close(result.statistic, expected["statistic"])
    assert (result.df_numerator, result.df_denominator) == (expected["df1"], expected["df2"])
    assert close_p(result.p_value, expected["p_value"])


def test_shapiro_per_group_and_route(case):
    choice = versions.choose_omnibus(groups_of(case), case["alpha"], case["large_sample"])
    for result, expected in zip(choice.tests.shapiro, case["shapiro"], strict=True):
        assert close(result.statistic, expected["statistic"])
        assert close_p(result.p_value, expected["p_value"])
    assert choice.route == case["route"]
    assert choice.posthoc.method == {"anova": "tukey", "welch": "games-howell",
                                     "kruskal": "dunn"}[choice.route]
    assert choice.omnibus is getattr(choice.tests, {"anova": "anova", "welch": "welch",
                                                    "kruskal": "kruskal"}[choice.route])


# ------------------------------------------------------------------------ post-hoc vs R


def studentized_p_matches(actual: float | None, row: dict) -> bool:
    """R's ptukey loses digits with few degrees of freedom in the tail (see the R script):
    the p-value must match it, or the independent accurate integral (to 1e-8)."""
    return close_p(actual, row["p_adj"]) or (
        actual is not None
        and actual == pytest.approx(row["p_adj_accurate"], rel=1e-8, abs=1e-12))


def interval_close(actual: float | None, expected: float, width: float) -> bool:
    return actual is not None and actual == pytest.approx(expected, rel=RELATIVE,
                                                          abs=NEAR_ZERO * width)


def bounds_match(pair: versions.PairComparison, row: dict) -> bool:
    """R's qtukey stops its search at |Δq| < 1e-4, and below 10 degrees of freedom ptukey
    itself is off by ~1e-6 near the 5% point: the bounds must match R's, or those with the
    quantile refined by uniroot on ptukey, or (df < 10) on the accurate integral."""
    width = row["upr"] - row["lwr"]
    return any(row[f"lwr{suffix}"] is not None
               and interval_close(pair.lower, row[f"lwr{suffix}"], width)
               and interval_close(pair.upper, row[f"upr{suffix}"], width)
               for suffix in ("", "_refined", "_accurate"))


def test_tukey_hsd(case):
    result = versions.tukey_hsd(groups_of(case))
    assert result.confidence == 0.95
    assert len(result.pairs) == len(case["tukey"])
    for pair, row in zip(result.pairs, case["tukey"], strict=True):
        assert (pair.first, pair.second) == (row["first"], row["second"])
        width = row["upr"] - row["lwr"]
        assert close(pair.difference, row["diff"], near_zero=1e-12 * width)
        assert close(pair.statistic, row["q"])
        assert studentized_p_matches(pair.p_adjusted, row)
        assert bounds_match(pair, row)
        assert close_p(pair.p_value, row["p_raw"])  # pairwise.t.test, pooled sd


def test_games_howell(case):
    result = versions.games_howell(groups_of(case))
    for pair, row in zip(result.pairs, case["games_howell"], strict=True):
        assert (pair.first, pair.second) == (row["first"], row["second"])
        width = row["upr"] - row["lwr"]
        assert close(pair.difference, row["diff"], near_zero=1e-12 * width)
        assert close(pair.statistic, row["q"])
        assert close(pair.df, row["df"])
        assert studentized_p_matches(pair.p_adjusted, row)
        assert bounds_match(pair, row)
        assert close_p(pair.p_value, row["p_raw"])  # t.test(var.equal = FALSE)


@pytest.mark.parametrize("method", ["dunn", "conover"])
def test_rank_posthoc(case, method):
    result = getattr(versions, method)(groups_of(case))
    for pair, row in zip(result.pairs, case[method], strict=True):
        assert (pair.first, pair.second) == (row["first"], row["second"])
        assert close(pair.difference, row["diff"], near_zero=1e-12)
        assert close(pair.statistic, row["statistic"], near_zero=1e-12)
        assert close_p(pair.p_value, row["p_value"])
        assert close_p(pair.p_adjusted, row["p_holm"])
        assert pair.df == (None if method == "dunn" else sum(map(len, case["groups"]))
                           - len(case["groups"]))


def test_pairwise_wilcoxon(case):
    result = versions.pairwise_wilcoxon(groups_of(case))
    for pair, row in zip(result.pairs, case["wilcoxon"], strict=True):
        assert (pair.first, pair.second) == (row["first"], row["second"])
        assert pair.statistic == row["statistic"]
        assert close_p(pair.p_value, row["p_value"])
        assert close_p(pair.p_adjusted, row["p_holm"])


def test_accurate_studentized_range_agrees_with_r_integral():
    """Our quadrature against R's independent adaptive integral, in every case."""
    for case in CASES.values():
        k = len(case["groups"])
        df = sum(map(len, case["groups"])) - k
        for row in case["tukey"]:
            assert versions.studentized_range_sf(row["q"], k, df) == pytest.approx(
                row["p_adj_accurate"], rel=1e-8, abs=1e-13)
        for row in case["games_howell"]:
            assert versions.studentized_range_sf(row["q"], k, row["df"]) == pytest.approx(
                row["p_adj_accurate"], rel=1e-8, abs=1e-13)


# ------------------------------------------------------------- other libraries agree with R


def test_statsmodels_and_scipy_agree_with_r(case):
    """The libraries the issue names, kept as witnesses: they match R as well."""
    from statsmodels.stats.oneway import anova_oneway

    groups = groups_of(case)
    for use_var, key in (("equal", "anova"), ("unequal", "welch")):
        result = anova_oneway(groups, use_var=use_var)
        assert close(float(result.statistic), case[key]["statistic"])
        assert close_p(float(result.pvalue), case[key]["p_value"])
    tukey = scipy_stats.tukey_hsd(*groups)
    interval = tukey.confidence_interval(0.95)
    for row in case["tukey"]:
        i, j = row["first"], row["second"]
        assert close_p(float(tukey.pvalue[j, i]), row["p_adj"])
        assert interval_close(float(interval.low[j, i]), row["lwr"], row["upr"] - row["lwr"])


# ---------------------------------------------------------- studentized range distribution


@pytest.mark.parametrize("k", [3, 5, 10])
@pytest.mark.parametrize("df", [1.0, 2.0, 4.5, 17.0, 120.0, math.inf])
def test_studentized_range_matches_scipy(k, df):
    q = np.array([0.3, 1.0, 2.5, 4.0, 6.0, 8.0])
    expected = scipy_stats.studentized_range.sf(q, k, df)
    actual = [versions.studentized_range_sf(value, k, df) for value in q]
    assert actual == pytest.approx(expected, rel=1e-8, abs=1e-14)
    for p in (0.5, 0.05, 0.01):
        critical = versions.studentized_range_isf(p, k, df)
        assert critical == pytest.approx(scipy_stats.studentized_range.isf(p, k, df), rel=1e-9)
        assert versions.studentized_range_sf(critical, k, df) == pytest.approx(p, rel=1e-10)


@pytest.mark.parametrize("df", [3.0, 57.3, 400.0, 1e5])
def test_studentized_range_of_two_means_is_a_t_test(df):
    """k = 2: Q = √2·|T|, exactly; scipy and R drift from it in the far tail at large df."""
    for q in (0.5, 2.0, 6.0, 9.0):
        expected = 2 * special.stdtr(df, -q / math.sqrt(2))
        assert versions.studentized_range_sf(q, 2, df) == pytest.approx(expected, rel=1e-9)


def test_studentized_range_edges():
    assert versions.studentized_range_sf(0.0, 4, 10.0) == 1.0
    assert versions.studentized_range_sf(math.inf, 4, 10.0) == 0.0
    assert versions.studentized_range_sf(200.0, 4, 10.0) < 1e-12
    with pytest.raises(ValueError):
        versions.studentized_range_isf(1.0, 4, 10.0)


# ----------------------------------------------------------------- Holm, degenerate data


def test_holm_as_p_adjust():
    # p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02
    assert versions.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx((0.03, 0.06, 0.06, 0.02))
    # NA does not count: p.adjust(c(0.02, NA, 0.5), "holm") = 0.04 NA 0.5
    adjusted = versions.holm([0.02, None, 0.5])
    assert adjusted[1] is None and adjusted[0] == pytest.approx(0.04)
    assert adjusted[2] == pytest.approx(0.5)
    assert versions.holm([0.9, 0.8]) == (1.0, 1.0)


def test_constant_group_is_reported_not_nan():
    groups = [np.array([1.0, 1.0, 1.0, 1.0]), np.array([1.1, 1.2, 1.15, 1.3]),
              np.array([1.0, 1.05, 0.98, 1.02])]
    assert versions.anova(groups).computed
    for result in (versions.anova(groups, equal_var=False), versions.bartlett(groups)):
        assert not result.computed and result.note and result.statistic is None
    games_howell = versions.games_howell(groups)
    assert all(p.p_adjusted is not None for p in games_howell.pairs)  # one side varies
    choice = versions.choose_omnibus(groups)
    assert choice.route == "kruskal"  # small, normality not checkable for version 1
    assert any("not computed" in step for step in choice.steps)


def test_all_values_identical():
    groups = [np.full(5, 2.0)] * 3
    for result in (versions.anova(groups), versions.anova(groups, equal_var=False),
                   versions.kruskal_wallis(groups), versions.levene(groups),
                   versions.bartlett(groups)):
        assert not result.computed and result.note
    for posthoc in (versions.tukey_hsd(groups), versions.games_howell(groups),
                    versions.dunn(groups), versions.conover(groups),
                    versions.pairwise_wilcoxon(groups)):
        assert all(p.p_adjusted is None and p.note for p in posthoc.pairs)
        assert posthoc.significant_pairs(0.05) == ()
    choice = versions.choose_omnibus(groups)
    assert choice.letters() == {f"version {i}": "a" for i in (1, 2, 3)}


def test_constant_groups_that_differ():
    groups = [np.full(6, 1.0), np.full(6, 2.0), np.full(6, 3.0)]
    assert not versions.anova(groups).computed
    assert all(p.p_adjusted is None for p in versions.conover(groups).pairs)
    dunn = versions.dunn(groups)
    assert all(p.p_adjusted is not None for p in dunn.pairs)


@pytest.mark.parametrize("groups", [
    [np.array([1.0, 2.0])],
    [np.array([1.0, 2.0]), np.array([3.0])],
    [np.array([1.0, 2.0]), np.array([3.0, np.nan])],
])
def test_bad_groups_raise(groups):
    with pytest.raises(ValueError):
        versions.anova(groups)


def test_extreme_scales_do_not_overflow():
    rng = np.random.default_rng(5)
    base = [rng.lognormal(0, 0.1, 8) * m for m in (1.0, 1.2, 1.4)]
    reference = versions.choose_omnibus(base)
    for scale in (1e-300, 1e300):
        choice = versions.choose_omnibus([g * scale for g in base])
        assert choice.route == reference.route
        for mine, ref in zip(choice.posthoc.pairs, reference.posthoc.pairs, strict=True):
            assert mine.p_adjusted == pytest.approx(ref.p_adjusted, rel=1e-9)
            if ref.lower is not None:
                assert mine.lower == pytest.approx(ref.lower * scale, rel=1e-9)


# ------------------------------------------------------------------------ the decision


def normal_scores(n: int) -> np.ndarray:
    """Blom's normal scores: a sample Shapiro–Wilk never rejects."""
    return scipy_stats.norm.ppf((np.arange(1, n + 1) - 0.375) / (n + 0.25))


def test_choose_omnibus_routes():
    scores = normal_scores(20)
    normal = [10 + 0.5 * scores + shift for shift in (0, 0.1, 0.6)]
    choice = versions.choose_omnibus(normal, names=["O2", "O3", "Os"])
    assert choice.route == "anova" and choice.posthoc.method == "tukey"
    assert "Bartlett" in choice.steps[3] and choice.small
    assert choice.letters() == {"O2": "a", "O3": "a", "Os": "b"}
    assert choice.significant_pairs == ((0, 2), (1, 2))

    unequal = [10 + sd * scores for sd in (0.05, 0.5, 2.0)]
    choice = versions.choose_omnibus(unequal)
    assert choice.route == "welch" and choice.posthoc.method == "games-howell"
    assert not choice.significant_pairs
    assert choice.letters() == {f"version {i}": "a" for i in (1, 2, 3)}

    rng = np.random.default_rng(12)
    skewed = [np.exp(2 * normal_scores(20)) + shift for shift in (0, 0.1, 0.2)]
    assert versions.choose_omnibus(skewed).route == "kruskal"
    conover = versions.choose_omnibus(skewed, rank_posthoc="conover")
    assert conover.posthoc.method == "conover"

    large_skewed = [rng.lognormal(0, 1.0, 40) for _ in range(3)]
    choice = versions.choose_omnibus(large_skewed)
    assert choice.route in ("anova", "welch") and not choice.small
    assert "Levene" in choice.steps[3]
    assert any(n.code == "versions-large-not-normal" for n in choice.notices)


def test_choose_omnibus_validates():
    with pytest.raises(ValueError):
        versions.choose_omnibus([np.ones(3) + i for i in range(3)], names=["a", "b"])


def test_confidence_of_intervals_follows_alpha():
    rng = np.random.default_rng(3)
    groups = [rng.normal(5, 0.2, 12) + s for s in (0.0, 0.1, 0.2)]
    choice = versions.choose_omnibus(groups, alpha=0.01)
    assert choice.posthoc.confidence == pytest.approx(0.99)
    wide = choice.posthoc.pairs[0]
    narrow = versions.tukey_hsd(groups, confidence=0.95).pairs[0]
    assert wide.upper - wide.lower > narrow.upper - narrow.lower


# --------------------------------------------------------------------- compact letters


def test_letters_all_equal():
    assert versions.compact_letters(["A", "B", "C"], [1.0, 2.0, 3.0], []) == {
        "A": "a", "B": "a", "C": "a"}


def test_letters_chain():
    letters = versions.compact_letters(["A", "B", "C"], [1.0, 2.0, 3.0], [("A", "C")])
    assert letters == {"A": "a", "B": "ab", "C": "b"}


def test_letters_all_different():
    pairs = [("A", "B"), ("A", "C"), ("B", "C")]
    assert versions.compact_letters(["A", "B", "C"], [1.0, 2.0, 3.0], pairs) == {
        "A": "a", "B": "b", "C": "c"}


def test_letters_start_at_the_fastest():
    letters = versions.compact_letters(["slow", "mid", "fast"], [3.0, 2.0, 1.0],
                                       [("slow", "fast")])
    assert letters == {"fast": "a", "mid": "ab", "slow": "b"}


def test_letters_four_versions():
    # A~B, B~C, C~D; A≠C, A≠D, B≠D (checked by hand: a, ab, bc, c)
    pairs = [("A", "C"), ("A", "D"), ("B", "D")]
    letters = versions.compact_letters(list("ABCD"), [1.0, 2.0, 3.0, 4.0], pairs)
    assert letters == {"A": "a", "B": "ab", "C": "bc", "D": "c"}


def test_letters_two_pairs_need_four_letters():
    # A≠B and C≠D only: A–C, A–D, B–C, B–D each need a letter of their own.
    letters = versions.compact_letters(list("ABCD"), [1.0, 2.0, 3.0, 4.0],
                                       [("A", "B"), ("C", "D")])
    for x, y in itertools.combinations("ABCD", 2):
        assert bool(set(letters[x]) & set(letters[y])) == ({x, y} not in ({"A", "B"},
                                                                           {"C", "D"}))
    assert len(set("".join(letters.values()))) == 4


@settings(max_examples=150, deadline=None)
@given(k=st.integers(2, 7), data=st.data())
def test_letters_share_a_letter_exactly_when_not_different(k, data):
    names = [f"v{i}" for i in range(k)]
    all_pairs = list(itertools.combinations(names, 2))
    different = data.draw(st.lists(st.sampled_from(all_pairs), unique=True)) if all_pairs else []
    means = data.draw(st.permutations(list(range(k))))
    letters = versions.compact_letters(names, means, different)
    assert all(letters[name] for name in names)
    for x, y in all_pairs:
        shares = bool(set(letters[x]) & set(letters[y]))
        assert shares == ((x, y) not in different)
    best = names[int(np.argmin(means))]
    assert "a" in letters[best]


# ------------------------------------------------------------------- invariants (hypothesis)

times = st.lists(st.floats(0.5, 50.0, allow_nan=False, allow_infinity=False), min_size=3,
                 max_size=15).map(lambda v: np.round(np.array(v), 3))
group_lists = st.lists(times, min_size=3, max_size=5)
scales = st.sampled_from([1e-6, 1e-3, 0.37, 3.0, 1000.0, 2.0**20])
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def approx_equal(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == pytest.approx(b, rel=1e-7, abs=1e-12)


def every_p_value(groups: list[np.ndarray]) -> list[float | None]:
    values = [versions.anova(groups).p_value, versions.anova(groups, equal_var=False).p_value,
              versions.kruskal_wallis(groups).p_value, versions.levene(groups).p_value,
              versions.bartlett(groups).p_value]
    values += [shapiro_wilk(g).p_value for g in groups]
    for method in (versions.tukey_hsd, versions.games_howell, versions.dunn, versions.conover,
                   versions.pairwise_wilcoxon):
        for pair in method(groups).pairs:
            values += [pair.p_value, pair.p_adjusted]
    return values


@SETTINGS
@given(groups=group_lists, scale=scales)
def test_scaling_all_times_changes_no_p_value(groups, scale):
    base, scaled = every_p_value(groups), every_p_value([g * scale for g in groups])
    for a, b in zip(base, scaled, strict=True):
        assert approx_equal(a, b)


@SETTINGS
@given(groups=group_lists, data=st.data())
def test_permuting_the_versions_permutes_the_results(groups, data):
    k = len(groups)
    order = data.draw(st.permutations(list(range(k))))  # new position p holds old order[p]
    permuted = [groups[i] for i in order]
    for omnibus in (versions.anova, versions.kruskal_wallis, versions.levene,
                    versions.bartlett):
        assert approx_equal(omnibus(groups).p_value, omnibus(permuted).p_value)
    for method in (versions.tukey_hsd, versions.games_howell, versions.dunn, versions.conover,
                   versions.pairwise_wilcoxon):
        original, moved = method(groups), method(permuted)
        for pair in moved.pairs:
            old_first, old_second = order[pair.first], order[pair.second]
            reference = original.pair(old_first, old_second)
            assert approx_equal(pair.p_value, reference.p_value)
            assert approx_equal(pair.p_adjusted, reference.p_adjusted)
            flipped = old_first > old_second
            if pair.difference is not None:
                sign = -1.0 if flipped else 1.0
                assert pair.difference == pytest.approx(sign * reference.difference,
                                                        rel=1e-9, abs=1e-12)
            if pair.lower is not None:
                lower, upper = ((-reference.upper, -reference.lower) if flipped
                                else (reference.lower, reference.upper))
                assert (pair.lower, pair.upper) == pytest.approx((lower, upper), rel=1e-9,
                                                                 abs=1e-12)


@SETTINGS
@given(groups=group_lists, confidence=st.sampled_from([0.8, 0.95, 0.99]))
def test_simultaneous_intervals_contain_the_estimate_and_match_the_p_value(groups, confidence):
    for method in (versions.tukey_hsd, versions.games_howell):
        for pair in method(groups, confidence=confidence).pairs:
            if pair.lower is None:
                continue
            assert pair.lower <= pair.difference <= pair.upper
            # Duality: the interval excludes 0 exactly when the adjusted p is below 1 − conf.
            risk = 1 - confidence
            if abs(pair.p_adjusted - risk) > 1e-6 * risk:
                assert (pair.lower > 0 or pair.upper < 0) == (pair.p_adjusted < risk)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.5, 1.0, 1.0 + 2**-52, 2.0, 3.0, 1e-300, 7e200]), min_size=1,
                max_size=40)
       | st.lists(st.floats(1e-3, 1e3), min_size=1, max_size=40))
def test_average_ranks_are_scipys_rankdata(values):
    """versions.average_ranks (written out to spare the import of scipy.stats) gives exactly
    scipy.stats.rankdata's average ranks, ties (many, or none) included."""
    values = np.array(values)
    assert np.array_equal(versions.average_ranks(values), scipy_stats.rankdata(values))


def test_versions_runs_do_not_import_scipy_stats(tmp_path):
    """A run of several versions needs nothing from scipy.stats (0.35-0.45 s to import)."""
    import subprocess
    import sys

    config = Path(__file__).parents[2] / "samples" / "compiler-flags" / "flags4.csv"
    check = ("import sys; from speeduptest.cli import main; "
             f"status = main([{str(config)!r}, '--baseline', 'O0', '-o', "
             f"{str(tmp_path / 'out')!r}, '--quiet', '--format', 'json']); "
             "print(status, 'scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["0", "False"], done.stderr

"""The results model: one class for any number of versions, two being the case k = 2."""

from __future__ import annotations

from pathlib import Path

import pytest

FLAGS = Path(__file__).resolve().parents[2] / "samples" / "compiler-flags"


def test_two_versions_are_the_case_k_2_of_one_results_model():
    """One pipeline, one model: two versions are one comparison with the baseline and
    nothing else; three or more are the same kind of results with each version's
    comparison, each benchmark across the versions and the ranking."""
    import speeduptest

    settings = speeduptest.Settings(bootstrap=200)
    two = speeduptest.analyse_config(FLAGS / "O2-vs-O0.csv", settings)
    several = speeduptest.analyse_config(FLAGS / "flags.csv", settings, baseline="O0")
    assert type(two) is type(several) is speeduptest.Results
    assert not two.several and two.versions == ("initial", "optimized")
    assert two.comparisons == (two.pair,) and two.across == () and two.standings == ()
    assert (two.pair.baseline, two.pair.version) == ("initial", "optimized")
    assert several.several and several.baseline_name == "O0"
    assert [(c.baseline, c.version) for c in several.comparisons] == [("O0", "O2"),
                                                                      ("O0", "O3-native")]
    assert len(several.across) == len(several.comparisons[0].by_benchmark)
    assert {s.name for s in several.standings} == set(several.versions)
    with pytest.raises(ValueError, match="3 versions make 2 comparisons"):
        several.pair  # noqa: B018
    # A comparison of the several is what two versions alone give, but for the calls'
    # correction (over every comparison of the run) and the Holm adjustment.
    assert [b.name for b in several.comparisons[0].benchmarks] == [
        b.name for b in several.across]


def test_a_dataframe_of_several_versions_has_a_row_per_comparison():
    pytest.importorskip("pandas")
    import speeduptest

    results = speeduptest.analyse_config(FLAGS / "flags.csv", speeduptest.Settings(
        bootstrap=200), baseline="O0")
    frame = results.to_dataframe()
    assert list(frame.columns[:2]) == ["version", "benchmark"]
    assert len(frame) == sum(len(c.benchmarks) for c in results.comparisons)
    assert set(frame["version"]) == {"O2", "O3-native"}
    first = results.comparisons[0].benchmarks[0]
    row = frame[(frame["version"] == "O2") & (frame["benchmark"] == first.name)].iloc[0]
    assert row["speedup_mean"] == first.analysis.speedup.mean
    assert row["call"] == first.change.call



def test_a_compare_source_keeps_the_arguments_in_order():
    """The references are the arguments as given, one per version; compared names the
    baseline's file first, wherever it was given."""
    from speeduptest.model.results import Source

    first = Source("a.json, b.json", "compare", ("a.json", "b.json"))
    second = Source("a.json, b.json", "compare", ("a.json", "b.json"), baseline=1)
    assert first.compared == ("a.json", "b.json") and second.compared == ("b.json", "a.json")
    assert second.references == ("a.json", "b.json")
    assert Source("x.csv", "wide").compared is None
    assert Source("a, b, c", "compare", ("a", "b", "c")).compared is None
    assert Source("runs/c.csv", "pair").short == "c.csv"

"""Finite positive times at extreme scales (issue 10): no overflow, no NaN, strict JSON."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from speeduptest.cli import main
from speeduptest.stats.effect_size import delta_interval, effect_inputs, effect_inputs_of
from speeduptest.stats.hierarchy import Hierarchy, variance_components


@pytest.mark.parametrize(("initial", "optimized"), [
    ([1e200, 1.1e200, 0.9e200, 1.05e200], [0.5e200, 0.55e200, 0.45e200, 0.5e200]),
    ([1e-300, 1.1e-300, 0.9e-300, 1.05e-300], [0.5e-300, 0.55e-300, 0.45e-300, 0.5e-300]),
    ([1e-310, 1.1e-310, 0.9e-310, 1.05e-310], [2e-310, 2.2e-310, 1.9e-310, 2.1e-310]),
    ([1.0, 2.0, 3.0, 4.0], [1e-320, 2.0, 3.0, 4.0]),
    ([1e-300, 2e-300, 3e-300], [1e-30, 2e-30, 3e-30]),
    # The overall speedup of the minima underflows to 0 (its gain is below every float).
    ([1e-320, 2.0, 3.0, 4.0], [1e5, 2e5, 3e5, 4e5]),
    # Resampled speedups underflow to 0 (the log of the bootstrap aggregate: -inf).
    ([1e-320, 2.0, 3.0, 4.0], [2.0, 1e5, 1e5, 1e5]),
])
@pytest.mark.filterwarnings("error::RuntimeWarning")  # nothing for the user to wonder about
def test_extreme_times_are_analysed_into_strict_json(tmp_path, initial, optimized):
    (tmp_path / "x.txt").write_text("\n".join(map(repr, initial)))
    (tmp_path / "y.txt").write_text("\n".join(map(repr, optimized)))
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized\nb,x.txt,y.txt\n")
    for aggregate, formats in (("delta", "json,md,csv,tex,html"), ("bootstrap", "json")):
        status = main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--quiet",
                       "--format", formats, "--bootstrap", "200",
                       "--aggregate-interval", aggregate])
        assert status == 0
        text = (tmp_path / "out" / "results.json").read_text()
        assert "NaN" not in text and "Infinity" not in text
        benchmark = json.loads(text)["benchmarks"][0]
        assert benchmark["status"] == "ok" and benchmark["change"]["call"]


def test_huge_times_keep_their_verdict():
    """Times near 1e200 gave a t-test overflow; they give the verdicts of times near 1."""
    from speeduptest.stats.protocol import analyse_pair

    rng = np.random.default_rng(0)
    x, y = rng.normal(10, 1, 20), rng.normal(9, 1, 20)
    for scale in (1e-300, 1e-100, 1e100, 1e200, 1e300):
        analysis = analyse_pair(x * scale, y * scale)
        assert analysis.mean.verdict == analyse_pair(x, y).mean.verdict == "significant"


def test_the_delta_interval_never_reports_a_negative_speedup():
    wide = Hierarchy.flat([1.0, 9.0, 20.0, 0.5])
    narrow = Hierarchy.flat([5.0, 5.1, 4.9, 5.0])
    interval = delta_interval(variance_components(wide), variance_components(narrow), 0.99)
    assert interval.low == 0.0 and "below 0" in interval.note


def test_a_speedup_beyond_float_range_is_a_located_error(tmp_path):
    (tmp_path / "x.txt").write_text("1e-300\n2e-300\n3e-300\n")
    (tmp_path / "y.txt").write_text("1e30\n2e30\n3e30\n")
    (tmp_path / "ok.txt").write_text("1\n2\n3\n")
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized\nb,x.txt,y.txt\n"
                                    "good,ok.txt,ok.txt\n")
    assert main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--quiet",
                 "--format", "json", "--bootstrap", "200"]) == 1
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["benchmarks"][0]["status"] == "error"
    assert "c.csv:2: " in data["benchmarks"][0]["errors"][0]
    assert "beyond what a floating-point number can hold" in data["benchmarks"][0]["errors"][0]
    assert data["benchmarks"][1]["status"] == "ok"


def test_weights_of_1e308_give_the_same_overall_figures(tmp_path):
    (tmp_path / "a.txt").write_text("1\n2\n3\n")
    (tmp_path / "b.txt").write_text("0.5\n1\n1.5\n")
    (tmp_path / "c.txt").write_text("2\n4\n6\n")
    figures = []
    for weight in ("1", "1e308"):
        (tmp_path / "c.csv").write_text(f"benchmark,initial,optimized,weight\nx,a.txt,b.txt,"
                                        f"{weight}\ny,c.txt,a.txt,{weight}\n")
        out = tmp_path / f"out-{weight}"
        assert main([str(tmp_path / "c.csv"), "-o", str(out), "--quiet", "--format", "json",
                     "--bootstrap", "200"]) == 0
        overall = json.loads((out / "results.json").read_text())["overall"]
        figures.append((overall["mean"]["speedup"], overall["geometric_mean"]["speedup"],
                        overall["geometric_mean"]["ci"]))
    assert figures[0] == figures[1]


def test_a_read_only_folder_is_one_line_and_changes_nothing(tmp_path, monkeypatch, capsys):
    import errno
    from pathlib import Path

    from speeduptest import output

    out = tmp_path / "out"
    config = Path(__file__).parents[2] / "config.example.csv"
    assert main([str(config), "-o", str(out), "--quiet", "--format", "json"]) == 0
    before = (out / "results.json").read_bytes()

    def read_only(path, content):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(output, "_write_file", read_only)
    assert main([str(config), "-o", str(out), "--quiet", "--format", "json", "--seed", "3"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1
    assert error[0].startswith(f"speeduptest: error: could not write the reports in {out} (")
    assert error[0].endswith(": Read-only file system); it was not changed")
    assert (out / "results.json").read_bytes() == before


def test_times_near_the_largest_float_are_analysed(tmp_path):
    (tmp_path / "a.txt").write_text("1.5e308\n1.6e308\n1.7e308\n")
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized\nx,a.txt,a.txt\n")
    with np.errstate(over="raise"):  # no overflow anywhere on the way
        status = main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--quiet",
                       "--format", "json", "--bootstrap", "100"])
    assert status == 0
    benchmark = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"][0]
    assert benchmark["speedup"]["mean"] == 1.0 and benchmark["change"]["call"] == "uncertain"


_EXTREME_SAMPLES = st.one_of(
    st.lists(st.sampled_from([5e-324, 1e-320, 1e5, 1e300, 1e308, 1.7e308, 1.0, 2.0]),
             min_size=3, max_size=12),
    st.lists(st.floats(1e-300, 1e300), min_size=3, max_size=12),
    st.builds(lambda value, n: [value] * n, st.sampled_from([1e-320, 1.0, 1e308, 1.7e308]),
              st.integers(3, 31)),
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(samples=st.lists(_EXTREME_SAMPLES, min_size=1, max_size=8))
def test_grand_means_computed_together_are_each_samples_own(samples):
    """Hierarchy.cache_grand_means (one array per size) gives what each sample's grand_mean
    gives by itself, bit for bit, at every magnitude."""
    together = [Hierarchy.flat(values) for values in samples]
    Hierarchy.cache_grand_means(together)
    for values, sample in zip(samples, together, strict=True):
        alone = Hierarchy.flat(values).grand_mean
        assert sample.__dict__["grand_mean"] == alone or (np.isnan(alone)
                                                         and np.isnan(sample.grand_mean))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(pairs=st.lists(st.tuples(_EXTREME_SAMPLES, _EXTREME_SAMPLES), min_size=1, max_size=6))
def test_effect_inputs_computed_together_are_each_pairs_own(pairs):
    """effect_inputs_of (flat pairs of one size as rows of arrays) gives what effect_inputs
    gives pair by pair, bit for bit, the components in the unit of the measurements too (a
    variance beyond the floats there: None)."""
    samples = [(Hierarchy.flat(x), Hierarchy.flat(y)) for x, y in pairs]
    inputs, ratio = effect_inputs_of(samples)
    for row, (together, (x, y)) in enumerate(zip(inputs, samples, strict=True)):
        alone = effect_inputs(x, y)
        assert repr(together) == repr(alone)
        assert repr(ratio.row(row)) == repr(alone.ratio)


@settings(max_examples=40, deadline=None, derandomize=True)  # the same suites in every CI run
# Found by random runs: the median of four times of 1.7e308 overflowed to inf (its speedup
# read "nan"); Shapiro–Wilk of times made infinite by the common scale read "p = nan".
@example(benchmarks=[([1e-320] * 3, [1e-320] * 3, "1"), ([1.7e308] * 4, [1e308] * 4, "1")],
         aggregate="delta", correction="fcr", threshold=0.0)
@example(benchmarks=[([5e-324, 5e-324, 1e300], [1.0, 2.657578584752986e-121,
                                                  2.657578584752986e-121], "1")],
         aggregate="delta", correction="fcr", threshold=0.0)
@given(benchmarks=st.lists(st.tuples(_EXTREME_SAMPLES, _EXTREME_SAMPLES,
                                     st.sampled_from(["1", "2", "1e300", "1e-300"])),
                           min_size=1, max_size=3),
       aggregate=st.sampled_from(["delta", "bootstrap"]),
       correction=st.sampled_from(["fcr", "bonferroni", "none"]),
       threshold=st.sampled_from([0.0, 0.01]))
def test_suites_of_extreme_times_never_crash(benchmarks, aggregate, correction, threshold):
    """Times from 5e-324 to 1.7e308, constant or spanning every order of magnitude, weights
    of 1e±300: the analysis, results.json (strict), the tables, the HTML report with its
    figures and the terminal summary are all made, without a RuntimeWarning
    (speeduptest.floats) (found by a fuzzer: the overall speedup of
    sums below every float, Welch's df of variances near 1e308, an interval's end of 0 in
    words, a linear axis ending beyond the floats)."""
    import tempfile
    from pathlib import Path

    from speeduptest.analysis.run import analyse_config
    from speeduptest.model.results import Settings
    from speeduptest.output import Streamed
    from speeduptest.render.formats import render_formats
    from speeduptest.render.terminal import render_terminal

    with tempfile.TemporaryDirectory() as folder:
        rows = ["benchmark,initial,optimized,weight"]
        for index, (initial, optimized, weight) in enumerate(benchmarks):
            for side, values in (("i", initial), ("o", optimized)):
                (Path(folder) / f"{index}{side}.txt").write_text("\n".join(map(repr, values)))
            rows.append(f"b{index},{index}i.txt,{index}o.txt,{weight}")
        (Path(folder) / "c.csv").write_text("\n".join(rows) + "\n")
        with warnings.catch_warnings():  # nor a warning for the user to wonder about
            warnings.simplefilter("error", RuntimeWarning)
            results = analyse_config(Path(folder) / "c.csv", Settings(
                bootstrap=200, aggregate_interval=aggregate, correction=correction,
                threshold=threshold))
            files = render_formats(results, ("json", "md", "csv", "tex", "html"), workers=1)
            render_terminal(results, ("json",))
    content = files["results.json"]
    text = b"".join(content) if isinstance(content, Streamed) else content
    assert b"NaN" not in text and b"Infinity" not in text
    # Nor a number that is not one in the words (an interval "[0, nan]": its end is then
    # the widest, change.percentile_ends).
    for words in (text, files["summary.md"]):
        assert re.search(rb"\bnan\b", words) is None


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_versions_further_apart_than_the_floats_are_ranked(tmp_path):
    """Two versions each within reach of the baseline (1e-300 and 1e300 times against 1) are
    1e600 apart: the ranking's factor between them is beyond the floats (null in
    results.json), not an OverflowError (found by fuzzing several-version configs)."""
    rng = np.random.default_rng(3)
    for name, scale in (("base", 1.0), ("tiny", 1e-300), ("huge", 1e300)):
        (tmp_path / f"{name}.txt").write_text(
            "\n".join(map(repr, (scale * rng.uniform(1, 1.2, 10)).tolist())))
    (tmp_path / "v.csv").write_text("benchmark,base,tiny,huge\nb,base.txt,tiny.txt,huge.txt\n")
    status = main([str(tmp_path / "v.csv"), "--baseline", "base", "-o", str(tmp_path / "out"),
                   "--quiet", "--format", "json,md,csv,tex,html"])
    assert status == 0
    text = (tmp_path / "out" / "results.json").read_text()
    assert "NaN" not in text and "Infinity" not in text


def test_a_tiny_risk_on_a_wild_sample_is_no_internal_error(tmp_path):
    """The overall speedup's delta interval at 1 − 1e-6 over 3 values of which one is 9×
    the others: its upper end is beyond the floats (inf), not an OverflowError."""
    from speeduptest.cli import main

    (tmp_path / "x.txt").write_text("1\n1\n9\n")
    (tmp_path / "y.txt").write_text("1\n1\n1\n")
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized\nb,x.txt,y.txt\n")
    assert main([str(tmp_path / "c.csv"), "--alpha", "1e-6", "-o", str(tmp_path / "out"),
                 "--format", "json,md", "--quiet"]) == 0
    assert (tmp_path / "out" / "results.json").exists()

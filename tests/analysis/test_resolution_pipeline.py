"""The timer's resolution through the analysis: which sides it bounds, in which unit, and
what the warnings and results.json say (the statistics: tests/stats/test_resolution.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import _resolution, main


def _run(folder: Path, initial: list[float], optimized: list[float], *options: str,
         unit: str = "") -> dict:
    (folder / "a.txt").write_text("\n".join(map(repr, initial)) + "\n")
    (folder / "b.txt").write_text("\n".join(map(repr, optimized)) + "\n")
    header, row = ("benchmark,initial,optimized,unit", f"x,a.txt,b.txt,{unit}") if unit else (
        "benchmark,initial,optimized", "x,a.txt,b.txt")
    (folder / "c.csv").write_text(f"{header}\n{row}\n")
    out = folder / f"out{len(list(folder.iterdir()))}"
    assert main([str(folder / "c.csv"), "-o", str(out), "--format", "json", "--quiet",
                 "--bootstrap", "200", *options]) == 0
    return json.loads((out / "results.json").read_text())


@pytest.mark.parametrize(("text", "expected"), [
    ("1us", (1e-6, "s")), ("1 µs", (1e-6, "s")), ("0.5ms", (0.5e-3, "s")),
    ("2NS", (2e-9, "s")), ("1e-6s", (1e-6, "s")), ("1e-6", (1e-6, None)), ("0", (0.0, None)),
])
def test_the_option_reads_a_duration_or_a_bare_number(text, expected):
    assert _resolution(text) == (pytest.approx(expected[0]), expected[1])


def test_only_the_quantised_side_is_bounded(tmp_path):
    rng = np.random.default_rng(4)
    quantised = [float(v) for v in rng.choice([10.0, 11.0], 30)]
    continuous = [float(f"{v:.6g}") for v in rng.normal(10.5, 0.3, 30)]
    benchmark = _run(tmp_path, quantised, continuous)["benchmarks"][0]
    resolution = benchmark["effect_size"]["resolution"]
    assert resolution["optimized"] is None
    assert resolution["initial"] == {"value": 1.0, "source": "detected",
                                     "variance_floor": pytest.approx(1 / 12)}
    timer = [w for w in benchmark["warnings"] if "timer's resolution" in w]
    assert len(timer) == 1 and "(resolution 1, detected from the spacing" in timer[0]


def test_continuous_samples_are_untouched_by_a_given_resolution(tmp_path):
    rng = np.random.default_rng(6)
    x = [float(f"{v:.6g}") for v in rng.normal(10, 0.2, 20)]
    y = [float(f"{v:.6g}") for v in rng.normal(9.8, 0.2, 20)]
    plain = _run(tmp_path, x, y)
    given = _run(tmp_path, x, y, "--resolution", "0.5")
    assert given["settings"]["resolution"] == {"value": 0.5, "unit": None}
    plain["settings"].pop("resolution"), given["settings"].pop("resolution")
    assert plain == given


def test_a_duration_does_not_apply_to_plain_samples_without_a_unit(tmp_path):
    benchmark = _run(tmp_path, [1.0] * 10, [1.001] * 10, "--resolution", "1us")["benchmarks"][0]
    assert benchmark["effect_size"]["resolution"]["initial"]["source"] == "detected"
    assert benchmark["effect_size"]["resolution"]["initial"]["value"] == pytest.approx(0.001)
    assert all("a duration, does not apply to plain samples without a unit" in w
               for w in benchmark["warnings"] if "timer's resolution" in w)
    # With the config's unit column the duration applies, in seconds.
    benchmark = _run(tmp_path, [1.0] * 10, [1.001] * 10, "--resolution", "4us",
                     unit="ms")["benchmarks"][0]
    assert benchmark["effect_size"]["resolution"]["optimized"] == {
        "value": 4e-6, "source": "given", "variance_floor": pytest.approx(16e-12 / 12)}
    assert any("(resolution 4 µs, given by --resolution)" in w
               for w in benchmark["warnings"])


def test_resolution_0_takes_the_values_as_exact(tmp_path):
    data = _run(tmp_path, [1.0] * 10, [1.001] * 10, "--resolution", "0")
    benchmark = data["benchmarks"][0]
    assert "resolution" not in benchmark["effect_size"]
    assert benchmark["change"]["interval"]["p_value_no_change"] == 0.0  # as before the floor
    assert any("--resolution 0 the values are taken as exact" in w
               for w in benchmark["warnings"])


def test_a_larger_given_resolution_widens_the_interval(tmp_path):
    intervals = []
    for given in ("0.001", "0.004", "0.1"):
        change = _run(tmp_path, [1.0] * 31, [1.001] * 31, "--resolution", given,
                      "--threshold", "0")["benchmarks"][0]["change"]
        intervals.append((change["interval"]["low"], change["interval"]["high"],
                          change["call"]))
    assert intervals[0][2] == "slower" and intervals[1][2] == intervals[2][2] == "uncertain"
    assert intervals[0][0] > intervals[1][0] > intervals[2][0]
    assert intervals[0][1] < intervals[1][1] < intervals[2][1]


def test_the_resolution_is_found_on_the_values_as_analysed(tmp_path):
    """After the warm-up is left out: a side that is constant once its first values are gone
    is limited by its timer, though the file's values are not."""
    warm = [9.0, 7.0, 5.0, 3.0] + [1.0] * 40
    steady = [1.0] * 20 + [2.0] * 24
    benchmark = _run(tmp_path, warm, steady, "--warmup", "4", "--dependence", "ignore",
                     "--resolution", "1")["benchmarks"][0]
    assert benchmark["initial"]["values_analysed"] == 40
    resolution = benchmark["effect_size"]["resolution"]
    assert resolution["initial"]["value"] == 1.0 and resolution["initial"]["source"] == "given"
    assert any("initial times" in w and "are all identical (1)" in w
               for w in benchmark["warnings"])


def test_the_detected_step_counts_from_zero(tmp_path):
    """Two constant sides far apart: the timer's step divides both times (2 ms), not their
    difference (998 ms), and the change is called."""
    benchmark = _run(tmp_path, [1.0] * 20, [0.002] * 20, unit="s",
                     )["benchmarks"][0]
    resolution = benchmark["effect_size"]["resolution"]
    assert resolution["initial"]["value"] == pytest.approx(0.002)
    assert benchmark["change"]["call"] == "faster"


def test_a_bare_resolution_is_in_the_unit_the_values_were_written_in(tmp_path):
    """With a unit column of ms, --resolution 1 is 1 ms (the values' unit), not 1 s."""
    benchmark = _run(tmp_path, [100.0] * 20, [101.0] * 20, "--resolution", "1",
                     unit="ms")["benchmarks"][0]
    assert benchmark["effect_size"]["resolution"]["initial"]["value"] == pytest.approx(1e-3)
    assert any("(resolution 1 ms, given by --resolution)" in w for w in benchmark["warnings"])


def test_a_tool_file_against_a_plain_sample_with_a_unit_column(tmp_path):
    """A hyperfine file (seconds) against plain samples in ms: both quantised sides are
    found, in seconds."""
    hyperfine = {"results": [{"command": "x", "times": [0.5] * 10 + [0.501] * 10,
                              "mean": 0.5005, "stddev": 0.0005, "median": 0.5005,
                              "user": 0.1, "system": 0.0, "min": 0.5, "max": 0.501}]}
    (tmp_path / "h.json").write_text(json.dumps(hyperfine))
    (tmp_path / "b.txt").write_text("\n".join(["498"] * 10 + ["499"] * 10) + "\n")
    (tmp_path / "c.csv").write_text("benchmark,initial,optimized,unit\nx,h.json,b.txt,ms\n")
    assert main([str(tmp_path / "c.csv"), "-o", str(tmp_path / "out"), "--format", "json",
                 "--quiet", "--bootstrap", "200"]) == 0
    benchmark = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"][0]
    resolution = benchmark["effect_size"]["resolution"]
    assert resolution["initial"]["value"] == pytest.approx(1e-3)
    assert resolution["optimized"]["value"] == pytest.approx(1e-3)
    assert sum("timer's resolution" in w for w in benchmark["warnings"]) == 2

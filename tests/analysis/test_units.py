"""Plain samples have no unit: a config's unit column states it, and a speedup near a power
of 1000 between unit-less samples is flagged as a likely change of unit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from speeduptest.analysis.validity import power_of_thousand
from speeduptest.cli import main


@pytest.mark.parametrize(("speedup", "expected"), [
    (1000.0, 1), (1030.0, 1), (1060.0, None), (1e-3, -1), (0.98e-6, -2), (1e9, 3),
    (1e12, None), (1.0, None), (31.6, None), (0.0, None), (float("inf"), None),
])
def test_powers_of_thousand(speedup, expected):
    assert power_of_thousand(speedup) == expected


def _write(folder, name, values):
    (folder / name).write_text("\n".join(f"{v:.17g}" for v in values) + "\n")


def _run(folder, config: str, capsys) -> tuple[int, dict, str]:
    (folder / "config.csv").write_text(config)
    status = main([str(folder / "config.csv"), "-o", str(folder / "out"), "--format", "json"])
    out = capsys.readouterr().out
    return status, json.loads((folder / "out" / "results.json").read_text()), out


def test_seconds_against_milliseconds_is_flagged_under_the_answer(tmp_path, capsys):
    values = np.random.default_rng(1).normal(2.31, 0.02, 30)
    _write(tmp_path, "s.txt", values)
    _write(tmp_path, "ms.txt", values * 1000)
    status, data, out = _run(tmp_path, "benchmark,initial,optimized\nb,ms.txt,s.txt\n", capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[1].startswith("Warning: Different units?")
    benchmark = data["benchmarks"][0]
    assert any(d["code"] == "different-units" for d in benchmark["warning_details"])
    assert any(d["code"] == "different-units" for d in data["warning_details"])


def test_a_unit_column_converts_plain_samples_to_seconds(tmp_path, capsys):
    values = np.random.default_rng(2).normal(2.31, 0.02, 30)
    _write(tmp_path, "ms.txt", values)
    _write(tmp_path, "ms2.txt", values * 1.001)
    status, data, _ = _run(
        tmp_path, "benchmark,initial,optimized,unit\nb,ms.txt,ms2.txt,ms\n"
                  "c,ms.txt,ms2.txt,parsec\n", capsys)
    assert status == 1  # the row with an unknown unit is an error, the other is analysed
    b, c = data["benchmarks"]
    assert b["unit"] == "s" and b["initial"]["mean"] == pytest.approx(values.mean() / 1000)
    assert c["status"] == "error" and "unit 'parsec'" in c["errors"][0]
    assert "config.csv:3" in c["errors"][0]

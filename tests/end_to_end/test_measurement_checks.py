"""The measurement checks on real JIT data and on dependent series, through the command.

tests/data/jit/node.csv holds real Node.js (V8) measurements: 6 benchmarks × 2 versions × 6
invocations × 300 iterations, every invocation warming up (see that folder's README);
node-aa.csv is its ``default`` version split in two by invocation (an A/A comparison).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import main

JIT = Path(__file__).parents[1] / "data" / "jit"


def _run(arguments: list[str], out: Path) -> tuple[int, dict]:
    status = main([*arguments, "-o", str(out), "--format", "json", "--quiet"])
    return status, json.loads((out / "results.json").read_text())


@pytest.fixture(scope="module")
def node(tmp_path_factory) -> dict:
    return _run(["compare", str(JIT / "node.csv")], tmp_path_factory.mktemp("node") / "out")[1]


def test_real_warmups_are_found_and_left_out(node):
    """Every side of the real V8 data warms up; most invocations' detected starts are early
    (the first 60 iterations), and what is left out is said per invocation."""
    starts, dropped = [], 0
    for benchmark in node["benchmarks"]:
        for role in ("initial", "optimized"):
            steady = benchmark[role]["steady_state"]
            assert steady["class"] in ("warmup", "inconsistent")
            assert len(steady["starts"]) == 6 and steady["warmup"] == "auto"
            starts += steady["starts"]
            dropped += steady["dropped"]
            assert benchmark[role]["values_analysed"] + steady["dropped"] == 6 * 300
    assert sum(0 < start <= 60 for start in starts) >= 0.8 * len(starts)
    assert 0 < dropped < 0.2 * 6 * 2 * 6 * 300
    assert any(d["code"] == "measurement-quality" for d in node["warning_details"])


def test_real_change_is_still_called(node):
    """richards is about 1.55× slower without inlining: still called so."""
    calls = {b["name"]: b["change"]["call"] for b in node["benchmarks"]}
    assert calls["richards"] == "slower"


def test_real_aa_calls_nothing(tmp_path):
    """The same VM, its invocations split in two: no call."""
    status, data = _run(["compare", str(JIT / "node-aa.csv"), "--fail-on-slowdown"],
                        tmp_path / "out")
    assert status == 0
    assert data["overall"]["calls"]["faster"] == data["overall"]["calls"]["slower"] == 0


def _ar1(rng: np.random.Generator, n: int, phi: float, sd: float) -> np.ndarray:
    noise = np.empty(n)
    noise[0] = rng.normal(0, sd)
    for i in range(1, n):
        noise[i] = phi * noise[i - 1] + rng.normal(0, sd * np.sqrt(1 - phi * phi))
    return np.exp(noise)


@pytest.mark.parametrize("phi", [0.8, 0.95])
def test_dependent_single_invocations_aa_calls_nothing(tmp_path, phi):
    """30 unchanged benchmarks, each side one invocation of 300 autocorrelated iterations:
    analysed as independent values they give false calls (the contrast, at --threshold 0),
    analysed under the defaults (batch means) none."""
    rng = np.random.default_rng(7)
    rows = ["benchmark,initial,optimized"]
    for index in range(30):
        for role in ("a", "b"):
            values = 0.01 * (1 + index) * _ar1(rng, 300, phi, 0.03)
            (tmp_path / f"{index}-{role}.txt").write_text(
                "\n".join(f"{v:.9g}" for v in values) + "\n")
        rows.append(f"b{index},{index}-a.txt,{index}-b.txt")
    config = tmp_path / "config.csv"
    config.write_text("\n".join(rows) + "\n")

    def calls(*extra: str) -> tuple[int, dict]:
        _, data = _run([str(config), *extra], tmp_path / "out")
        return data["overall"]["calls"]["faster"] + data["overall"]["calls"]["slower"], data

    assert calls("--dependence", "ignore", "--threshold", "0")[0] >= 5
    false_calls, data = calls()
    assert false_calls == 0
    batched = [b[role]["dependence"]["batch"] for b in data["benchmarks"]
               for role in ("initial", "optimized")]
    assert all(batch > 1 for batch in batched)


def test_a_drift_in_hyperfine_runs_says_the_versions_were_not_interleaved(tmp_path):
    """hyperfine runs every run of one command, then those of the next: a drift across one
    command's runs (here a slowdown of 0.2% a run) is a drift of the session, confounded
    with the change, and its warning says so."""
    rng = np.random.default_rng(3)
    results = []
    for command, times in (("old", 0.100 * (1 + 0.002 * np.arange(40))
                            * np.exp(rng.normal(0, 0.003, 40))),
                           ("new", 0.110 * np.exp(rng.normal(0, 0.003, 40)))):
        results.append({"command": command, "mean": float(times.mean()),
                        "stddev": float(times.std()), "median": float(np.median(times)),
                        "user": 0.0, "system": 0.0, "min": float(times.min()),
                        "max": float(times.max()), "times": times.tolist(),
                        "exit_codes": [0] * 40})
    path = tmp_path / "hf.json"
    path.write_text(json.dumps({"results": results}))
    _, data = _run(["compare", f"{path}#old", f"{path}#new"], tmp_path / "out")
    details = data["benchmarks"][0]["warning_details"]
    drift = next(d for d in details if d["code"] in ("series-slowdown", "run-order-trend"))
    assert drift["message"].startswith("initial: ")
    assert "not interleaved (hyperfine runs all the runs of one command" in drift["message"]
    assert all("not interleaved" not in d["message"] for d in details
               if d["message"].startswith("optimized: "))

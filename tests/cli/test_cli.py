"""The command line on the bundled samples, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from speeduptest.cli import main

ROOT = Path(__file__).resolve().parents[2]
TRUFFLESOM = ROOT / "samples" / "trufflesom-splitting" / "config.csv"


def test_json_only_writes_results_json_and_is_reproducible(tmp_path, capsys):
    first, second = tmp_path / "a", tmp_path / "b"
    assert main([str(TRUFFLESOM), "-o", str(first), "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert main([str(TRUFFLESOM), "-o", str(second), "--format", "json", "--quiet"]) == 0
    assert capsys.readouterr().out == ""
    assert sorted(p.name for p in first.iterdir()) == [".speeduptest-report", "results.json"]
    assert (first / "results.json").read_bytes() == (second / "results.json").read_bytes()
    data = json.loads((first / "results.json").read_text())
    assert data["tool"]["name"] == "speeduptest"
    assert data["settings"] == {"alpha": 0.05, "proportion_confidence": 0.95, "precision": 0.05,
                                "large_sample": 30, "bootstrap": 10000,
                                "aggregate_interval": "delta", "seed": 0,
                                "threshold": 0.01, "correction": "fcr",
                                "fail_on_slowdown": False, "warmup": "auto",
                                "dependence": "batch", "resolution": None}
    assert len(data["benchmarks"]) == 22
    assert all(b["status"] == "ok" for b in data["benchmarks"])
    # The terminal summary: the answer first, then one line per benchmark, then the
    # Speedup-Test figures (overall speedups, accelerated counts).
    calls = data["overall"]["calls"]
    assert out.startswith("Optimized is ")
    assert (f"{calls['faster']} faster, {calls['slower']} slower" in out.splitlines()[0])
    assert "Overall speedup" in out
    assert f"{data['overall']['mean']['accelerated']}/22 accelerated" in out
    for benchmark in data["benchmarks"]:
        assert benchmark["name"] in out


def test_results_json_has_the_spec_fields(tmp_path):
    main([str(TRUFFLESOM), "-o", str(tmp_path), "--format", "json", "--quiet"])
    data = json.loads((tmp_path / "results.json").read_text())
    benchmark = data["benchmarks"][0]
    for key in ("name", "weight", "alpha", "status", "initial", "optimized", "speedup", "tests",
                "mean", "median", "effect_size", "warnings", "errors"):
        assert key in benchmark
    assert set(benchmark["initial"]) == {"n", "mean", "median", "min", "max", "std",
                                         "steady_state", "dependence", "order",
                                         "values_analysed"}
    assert set(benchmark["initial"]["steady_state"]) >= {"class", "consistent", "starts",
                                                         "dropped", "method", "penalty"}
    assert set(benchmark["speedup"]) == {"mean", "median", "min"}
    tests = benchmark["tests"]
    assert set(tests) == {"shapiro_initial", "shapiro_optimized", "f_test", "t_test", "ks_test",
                          "wilcoxon"}
    assert tests["t_test"]["variant"] in ("student", "welch")
    assert tests["wilcoxon"]["method"] in ("exact", "normal")
    for key in ("statistic", "p_value"):
        assert all(key in test for test in tests.values())
    assert {"verdict", "max_confidence"} <= set(benchmark["mean"])
    for estimator in ("mean", "median"):
        figure = data["overall"][estimator]
        assert {"speedup", "gain", "accelerated", "total", "proportion", "ci", "ci_valid",
                "required_benchmarks"} <= set(figure)
        low, high = figure["ci"]
        assert low <= figure["proportion"] <= high
    assert set(data["overall"]["min"]) >= {"speedup", "gain"}
    assert isinstance(data["warnings"], list) and data["errors"] == []


def test_per_row_confidence_overrides_alpha(tmp_path, project):
    config = project.config("benchmark,initial,optimized,confidence\n"
                            + project.good_pair("a") + ",0.99\n" + project.good_pair("b") + ",\n")
    status, data = project.run(config, "--alpha", "0.1")
    assert status == 0
    assert [b["alpha"] for b in data["benchmarks"]] == [0.01, 0.1]
    assert data["settings"]["proportion_confidence"] == 0.9


def test_python_dash_m_entry_point(tmp_path):
    completed = subprocess.run(
        [sys.executable, "-m", "speeduptest", str(TRUFFLESOM), "-o", str(tmp_path),
         "--format", "json"], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert "Bounce" in completed.stdout
    assert (tmp_path / "results.json").exists()


def test_command_ends_with_its_status_and_all_of_its_output(project):
    """Run as a command with its output on a pipe: what it printed is all there, and its
    exit status is the run's (1: a benchmark with errors; 3: --fail-on-slowdown)."""
    slower = (f"s,{project.sample('s-initial.txt', 8.0)},"
              f"{project.sample('s-optimized.txt', 10.0)}")
    config = project.config("benchmark,initial,optimized\n" + project.good_pair("a") + "\n"
                            + slower + "\nmissing,nowhere.txt,nowhere-either.txt\n")
    for extra, status in (((), 1), (("--fail-on-slowdown",), 3)):
        completed = subprocess.run(
            [sys.executable, "-m", "speeduptest", str(config), "-o", str(project.root / "out"),
             "--format", "json", *extra], capture_output=True, text=True, check=False)
        assert completed.returncode == status, completed.stderr
        assert completed.stdout.rstrip().endswith(f"Wrote: {project.root / 'out' / 'results.json'}")
        if status == 3:
            assert completed.stderr.startswith("speeduptest: s is slower:")


def test_a_profiler_gets_to_write_its_data(tmp_path):
    """The command ends its process as usual (no os._exit shortcut), so that a profiler's
    or a coverage tool's exit handler writes what it gathered."""
    profile = tmp_path / "run.prof"
    completed = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "speeduptest",
         str(TRUFFLESOM), "-o", str(tmp_path / "out"), "--format", "json", "--quiet"],
        capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    assert profile.stat().st_size > 0


def test_help_documents_several_versions(capsys):
    import pytest

    for command in ([], ["compare"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--baseline VERSION" in text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "benchmark,version,sample" in " ".join(capsys.readouterr().out.split())


def test_three_version_config_from_the_readme(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    status = main(["samples/compiler-flags/flags.csv", "--baseline", "O0", "-o",
                   str(tmp_path), "--format", "json"])
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith("O3-native is the fastest of 3 versions")
    data = json.loads((tmp_path / "results.json").read_text())
    assert [v["name"] for v in data["versions"]] == ["O0", "O2", "O3-native"]

"""CI gating (--fail-on-slowdown) and the Python API."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import speeduptest


def test_fail_on_slowdown_exits_3_and_names_the_benchmark(project, capsys):
    slower = project.good_pair("slower")
    initial, optimized = "slower-initial.txt", "slower-optimized.txt"
    slower = slower.replace(initial, "TMP").replace(optimized, initial).replace("TMP", optimized)
    config = project.config("benchmark,initial,optimized\n" + project.good_pair("faster")
                            + "\n" + slower + "\n")
    status, data = project.run(config, "--fail-on-slowdown")
    assert status == 3
    error = capsys.readouterr().err
    assert "slower is slower: the 95% Fieller interval [" in error
    assert "faster" not in error
    checks = {b["name"]: b["slowdown"] for b in data["benchmarks"]}
    assert checks["slower"]["significant"] and not checks["faster"]["significant"]
    calls = {b["name"]: b["change"]["call"] for b in data["benchmarks"]}
    assert calls == {"faster": "faster", "slower": "slower"}
    assert data["settings"]["fail_on_slowdown"] is True


def test_without_the_option_a_slowdown_does_not_fail_but_is_shown(project):
    slower = project.good_pair("slower")
    initial, optimized = "slower-initial.txt", "slower-optimized.txt"
    slower = slower.replace(initial, "TMP").replace(optimized, initial).replace("TMP", optimized)
    status, data = project.run(project.config("benchmark,initial,optimized\n" + slower + "\n"))
    assert status == 0
    # The reverse protocol always runs: the slowdown is in results.json whatever the options.
    assert data["benchmarks"][0]["slowdown"]["significant"]
    assert data["benchmarks"][0]["change"]["call"] == "slower"
    assert data["overall"]["calls"] == {"faster": 0, "slower": 1, "unchanged": 0,
                                        "uncertain": 0}


def test_python_api(project):
    rng = np.random.default_rng(1)
    analysis = speeduptest.analyse_pair(rng.normal(10, 0.2, 40), rng.normal(9, 0.2, 40))
    assert analysis.mean.verdict == "significant"
    config = project.config("benchmark,initial,optimized\n" + project.good_pair("a") + "\n"
                            + "broken,missing.txt,a-optimized.txt\n")
    results = speeduptest.analyse_config(str(config), speeduptest.Settings(bootstrap=500))
    frame = results.to_dataframe()
    assert list(frame["benchmark"]) == ["a", "broken"]
    assert list(frame["status"]) == ["ok", "error"]
    assert frame.loc[0, "speedup_mean"] > 1
    assert "not found" in frame.loc[1, "errors"]


def test_python_api_compare_files():
    tools = Path(__file__).parents[1] / "data" / "tools" / "pyperf"
    results = speeduptest.compare_files(str(tools / "initial.json"),
                                        str(tools / "optimized.json"),
                                        speeduptest.Settings(bootstrap=200))
    frame = results.to_dataframe()
    assert "sort" in set(frame["benchmark"]) and set(frame["unit"]) == {"s"}


def test_version_is_the_installed_distributions() -> None:
    """__version__ is written once (speeduptest/__init__.py) and pyproject.toml reads it."""
    from importlib.metadata import version

    import speeduptest

    assert version("speeduptest") == speeduptest.__version__

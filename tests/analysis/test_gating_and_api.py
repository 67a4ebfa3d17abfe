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


def _long_csv(path: Path, names: list[str], scale: float, rng) -> str:
    lines = ["benchmark,version,invocation,iteration,value"]
    for name in names:
        for invocation in range(1, 4):
            for iteration in range(1, 11):
                value = rng.normal(10.0, 0.1) * scale
                lines.append(f"{name},v,{invocation},{iteration},{value}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_a_ci_gate_fails_on_what_it_did_not_compare(tmp_path, capsys):
    """102 benchmarks against a file that has 3 of them, one renamed GO: the 2 that pair are
    unchanged, but the gate fails with its own status and says what was left out, with the
    likely renaming."""
    from speeduptest.cli import main

    rng = np.random.default_rng(3)
    names = ["go", "json", "nbody"] + [f"bench{i}" for i in range(99)]
    before = _long_csv(tmp_path / "before.csv", names, 1.0, rng)
    after = _long_csv(tmp_path / "after.csv", ["GO", "json", "nbody"], 1.0, rng)
    out = tmp_path / "out"
    status = main(["compare", before, after, "--fail-on-slowdown", "-o", str(out),
                   "--format", "json", "--quiet"])
    assert status == 5
    error = capsys.readouterr().err
    assert "101 of the benchmarks named in the files (98%) were not compared" in error
    assert main(["compare", before, after, "--fail-on-slowdown", "--max-unpaired", "99%",
                 "-o", str(out), "--format", "json", "--quiet"]) == 0
    results = speeduptest.compare_files(before, after, speeduptest.Settings(bootstrap=200))
    assert len(results.pair.benchmarks) == 2
    first, second = results.unpaired
    assert len(first.names) == 100 and first.suggestions() == [("go", "GO")]
    assert second.names == ("GO",) and second.suggestions() == [("GO", "go")]
    assert any("Did you mean go → GO" in notice.message for notice in results.notices)
    # Without --fail-on-slowdown the run succeeds: the warnings say what was left out.
    assert main(["compare", before, after, "-o", str(out), "--format", "json",
                 "--quiet"]) == 0

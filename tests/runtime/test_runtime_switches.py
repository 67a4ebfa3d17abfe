"""The runtime's speed mechanisms switched off (SPEEDUPTEST_WITHOUT, see speeduptest/runtime/)
change nothing but the speed: the command writes the same results.json with all of them off."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from speeduptest.runtime import MECHANISMS, WITHOUT_VARIABLE, switched_off

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config

ROOT = Path(__file__).parents[2]


def _results(config: Path, out: Path, without: str | None) -> bytes:
    """results.json of the command run in a process of its own, ``without`` in the
    environment (None: the variable unset)."""
    environment = {key: value for key, value in os.environ.items() if key != WITHOUT_VARIABLE}
    if without is not None:
        environment[WITHOUT_VARIABLE] = without
    run = subprocess.run(
        [sys.executable, "-m", "speeduptest", str(config), "-o", str(out), "--format", "json",
         "--quiet"], env=environment, capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    return (out / "results.json").read_bytes()


@pytest.mark.parametrize("config", ["config.example.csv", "samples/trufflesom-splitting/config.csv",
                                    "generated"])
def test_all_switched_off_writes_the_same_results(config: str, tmp_path: Path) -> None:
    # (generated: enough files and benchmarks for every child to start)
    path = make_config(tmp_path, 2_100, 10) if config == "generated" else ROOT / config
    assert (_results(path, tmp_path / "on", None)
            == _results(path, tmp_path / "off", "all"))


def test_the_variable(monkeypatch, capsys) -> None:
    monkeypatch.delenv(WITHOUT_VARIABLE, raising=False)
    assert switched_off() == frozenset()
    monkeypatch.setenv(WITHOUT_VARIABLE, "all")
    assert switched_off() == frozenset(MECHANISMS)
    monkeypatch.setenv(WITHOUT_VARIABLE, " prefetch, batch-child,,parallel ")
    assert switched_off() == {"prefetch", "batch_child", "parallel"}
    monkeypatch.setenv(WITHOUT_VARIABLE, "prefetch,prefech")  # a misspelt one: said, ignored
    assert switched_off() == {"prefetch"}
    assert "prefech" in capsys.readouterr().err

"""The input stage: every way in becomes one Experiment, and the analysis takes only that."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

import speeduptest.inputs.files as files_module
from speeduptest.analysis.run import analyse, analyse_config
from speeduptest.inputs.compare import compared_experiment
from speeduptest.inputs.experiment import Experiment, with_run_alpha
from speeduptest.inputs.forms import read_experiment
from speeduptest.model.results import Results, Settings
from speeduptest.model.versions import VersionsResults
from speeduptest.render.json_results import render_json as results_json

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ROOT / "samples" / "compiler-flags"
TRUFFLE = ROOT / "samples" / "trufflesom-splitting"
TOOLS = ROOT / "tests" / "data" / "tools"


def _described(experiment: Experiment) -> tuple:
    return (experiment.versions, experiment.baseline, experiment.origin.form,
            [b.name for b in experiment.benchmarks])


def test_every_way_in_is_an_experiment() -> None:
    pair = read_experiment(FLAGS / "O2-vs-O0.csv")
    assert _described(pair)[:3] == (("initial", "optimized"), 0, "pair")
    wide = read_experiment(FLAGS / "flags.csv", baseline="O2")
    assert _described(wide)[:3] == (("O0", "O2", "O3-native"), 1, "wide")
    long = read_experiment(FLAGS / "sessions.csv")
    assert long.origin.form == "long" and len(long.versions) >= 2
    within = compared_experiment([str(TRUFFLE / "long.csv")])  # a file of several versions
    assert within.origin.form == "compare" and len(within.versions) == 2
    two = compared_experiment([str(TOOLS / "pyperf" / "initial.json"),
                               str(TOOLS / "pyperf" / "optimized.json")])
    assert _described(two)[:3] == (("initial", "optimized"), 0, "compare")
    inside = compared_experiment([str(TOOLS / "rebench" / "benchmark.data")])
    assert inside.origin.form == "compare" and len(inside.versions) >= 2
    assert all(r.startswith(str(TOOLS / "rebench" / "benchmark.data") + "#")
               for r in inside.origin.references)
    chosen = compared_experiment([str(TOOLS / "pyperf" / "initial.json"),
                                  str(TOOLS / "pyperf" / "optimized.json")],
                                 baseline="optimized")
    assert chosen.baseline == 1
    for experiment in (pair, wide, long, within, two, inside):
        for benchmark in experiment.benchmarks:
            assert len(benchmark.samples) == len(experiment.versions)


def test_the_analysis_reads_no_line_of_config(tmp_path: Path) -> None:
    """Once read, the config can go: the analysis takes the Experiment only, and gives what
    the whole run gives."""
    folder = tmp_path / "flags"
    shutil.copytree(FLAGS, folder)
    settings = Settings(bootstrap=200)
    whole = analyse_config(folder / "O2-vs-O0.csv", settings)
    experiment = read_experiment(folder / "O2-vs-O0.csv")
    (folder / "O2-vs-O0.csv").unlink()
    alone = analyse(experiment, settings)
    assert isinstance(alone, Results)
    assert results_json(alone) == results_json(whole)


def test_several_versions_are_the_same_analysis(tmp_path: Path) -> None:
    experiment = read_experiment(FLAGS / "flags.csv", baseline="O0")
    results = analyse(experiment, Settings(bootstrap=200), workers=1)
    assert isinstance(results, VersionsResults)
    assert [c.version for c in results.comparisons] == ["O2", "O3-native"]


def test_each_file_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline's files serve every comparison of a several-versions run."""
    read: list[str] = []
    original = files_module.read_source

    def counted(file, *arguments, **options):
        read.append(str(file))
        return original(file, *arguments, **options)

    monkeypatch.setattr(files_module, "read_source", counted)
    monkeypatch.setenv("SPEEDUPTEST_WITHOUT", "prefetch")  # every file read here
    experiment = read_experiment(FLAGS / "flags.csv", baseline="O0")
    analyse(experiment, Settings(bootstrap=200), workers=1)
    assert read and len(read) == len(set(read))
    named = {ref.file for b in experiment.benchmarks for ref in b.samples if ref}
    assert len(read) == len(named)


def test_the_runs_alpha_meets_the_benchmarks_in_one_place(tmp_path: Path) -> None:
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"{name}.txt").write_text("\n".join(str(10 + i % 3) for i in range(12)))
    config = tmp_path / "c.csv"
    config.write_text("benchmark,initial,optimized,confidence\n"
                      "own,a.txt,b.txt,0.9\nrun,c.txt,d.txt,\nbad,a.txt,d.txt,lots\n")
    experiment = read_experiment(config)
    assert [b.alpha for b in experiment.benchmarks][:2] == [pytest.approx(0.1), None]
    given = with_run_alpha(experiment, 0.01)
    assert [b.alpha for b in given.benchmarks] == [pytest.approx(0.1), 0.01, None]
    assert with_run_alpha(given, 0.2) == given  # (a transform: Experiment to Experiment)
    data = json.loads(results_json(analyse(experiment, Settings(alpha=0.01,
                                                                bootstrap=200))))
    assert [b["alpha"] for b in data["benchmarks"]] == [pytest.approx(0.1), 0.01, None]


def test_an_experiment_needs_two_versions_and_a_baseline() -> None:
    experiment = read_experiment(FLAGS / "O2-vs-O0.csv")
    with pytest.raises(ValueError):
        dataclasses.replace(experiment, versions=("only",))
    with pytest.raises(ValueError):
        dataclasses.replace(experiment, baseline=2)

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
    assert isinstance(alone, Results) and not alone.several
    assert results_json(alone) == results_json(whole)


def test_several_versions_are_the_same_analysis(tmp_path: Path) -> None:
    experiment = read_experiment(FLAGS / "flags.csv", baseline="O0")
    results = analyse(experiment, Settings(bootstrap=200), workers=1)
    assert isinstance(results, Results) and results.several
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


@pytest.mark.parametrize(("references", "names"), [
    (["raw/default/bm.json", "raw/JIT/bm.json", "raw/PYTHON_UOPS/bm.json"],
     ["default", "JIT", "PYTHON_UOPS"]),
    (["/abs/p/default/bm.json", "/abs/p/JIT/bm.json"], ["default", "JIT"]),
    (["a/x/bm.json", "a/y/bm.json", "b/x/bm.json"], ["a/x", "a/y", "b/x"]),
    (["old.txt", "new.txt"], ["old", "new"]),
    (["hf.json#gzip", "hf.json#zstd"], ["gzip", "zstd"]),
    (["bm.json", "JIT/bm.json"], ["bm.json", "JIT/bm.json"]),  # nothing short tells them
])
def test_versions_are_named_by_what_tells_them_apart(references, names) -> None:
    from speeduptest.inputs.compare import version_names

    assert version_names(references) == names


def test_the_user_names_the_versions() -> None:
    from speeduptest.inputs.compare import named_versions
    from speeduptest.inputs.config import ConfigError

    references = ["raw/default/bm.json", "raw/JIT/bm.json", "raw/x/bm.json"]
    assert named_versions(references, ("a", "b", "c")) == ["a", "b", "c"]
    assert named_versions(references, ("raw/JIT/bm.json=jit", "x=X")) == ["default", "jit",
                                                                           "X"]
    for wrong in (("a", "b"), ("a", "a", "b"), ("nowhere.json=n",), ("a", "", "c")):
        with pytest.raises(ConfigError):
            named_versions(references, wrong)


def test_same_named_files_read_as_their_folders(tmp_path: Path) -> None:
    for version, side in (("default", "initial"), ("JIT", "optimized")):
        (tmp_path / version).mkdir()
        shutil.copy(TOOLS / "pyperf" / f"{side}.json", tmp_path / version / "bm.json")
    experiment = compared_experiment([str(tmp_path / "default" / "bm.json"),
                                      str(tmp_path / "JIT" / "bm.json")], baseline="JIT")
    assert experiment.versions == ("default", "JIT") and experiment.baseline == 1


@pytest.mark.parametrize("reference", ["a.txt", "sub/a.txt", "./sub/a.txt", "sub//a.txt",
                                       "../up/a.txt", "sub/../a.txt", "a..b.txt"])
def test_config_paths_as_a_path_gives_them(tmp_path: Path, reference: str) -> None:
    """A config's sample paths are kept as text (no Path per file): the file read and the
    path shown are those of the config's folder joined with the cell as a Path, normalised."""
    import os

    from speeduptest.inputs.config import read_config

    folder = tmp_path / "cfg"
    (folder / "sub").mkdir(parents=True)
    config = folder / "config.csv"
    config.write_text(f"benchmark,initial,optimized\nb,{reference},{reference}\n")
    spec = read_config(config).benchmarks[0]
    assert os.fspath(spec.initial) == str(folder / reference)
    assert spec.initial_display == os.path.normpath(str(folder / reference))

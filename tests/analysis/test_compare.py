"""``speeduptest compare`` and configs naming benchmarks inside result files (``path#name``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from speeduptest.cli import main

TOOLS = Path(__file__).parents[1] / "data" / "tools"
TRUFFLESOM = Path(__file__).parents[2] / "samples" / "trufflesom-splitting"
QUICK = ["--bootstrap", "200", "--quiet"]


def run(arguments: list[str], output: Path) -> tuple[int, dict]:
    status = main([*arguments, "-o", str(output), "--format", "json,md", *QUICK])
    results = output / "results.json"
    return status, json.loads(results.read_text()) if results.exists() else {}


def _compare_to_ratios(printed: str) -> dict[str, float]:
    """Speedups as `pyperf compare_to` prints them: "name: … : 1.45x faster" (or slower)."""
    lines = re.findall(r"^(\S+): .*: ([\d.]+)x (faster|slower)$", printed, re.MULTILINE)
    return {name: float(ratio) if direction == "faster" else 1 / float(ratio)
            for name, ratio, direction in lines}


def test_pyperf_compare_agrees_with_pyperf_compare_to(tmp_path):
    initial, optimized = TOOLS / "pyperf/initial.json", TOOLS / "pyperf/optimized.json"
    status, results = run(["compare", str(initial), str(optimized)], tmp_path)
    assert status == 0
    ours = {b["name"]: b["speedup"]["mean"] for b in results["benchmarks"]}

    # What `pyperf compare_to` printed when the files were made (tests/data/tools/pyperf),
    # and what it prints now: the same speedups to its two decimals.
    outputs = [(TOOLS / "pyperf/compare_to.txt").read_text()]
    pyperf = pytest.importorskip("pyperf")
    outputs.append(subprocess.run(
        [sys.executable, "-m", "pyperf", "compare_to", str(initial), str(optimized)],
        capture_output=True, text=True, check=True).stdout)
    for printed in outputs:
        theirs = _compare_to_ratios(printed)
        assert sorted(theirs) == sorted(ours)
        for name, ratio in theirs.items():
            shown = ours[name] if ours[name] >= 1 else 1 / ours[name]
            assert f"{shown:.2f}" == f"{(ratio if ratio >= 1 else 1 / ratio):.2f}", name

    # pyperf's own means give the same ratio to rounding.
    reference = {b.get_name(): b for b in pyperf.BenchmarkSuite.load(str(initial))}
    changed = {b.get_name(): b for b in pyperf.BenchmarkSuite.load(str(optimized))}
    for name, speedup in ours.items():
        assert speedup == pytest.approx(reference[name].mean() / changed[name].mean(),
                                        rel=1e-12)


def test_compare_lists_unpaired_benchmarks_as_warnings(tmp_path):
    status, results = run(["compare", str(TOOLS / "pyperf/initial.json"),
                           str(TOOLS / "pyperf/optimized.json.gz")], tmp_path)
    assert status == 0
    unpaired = [w for w in results["warning_details"] if w["code"] == "unpaired-benchmarks"]
    assert len(unpaired) == 1 and "fib_memo" in unpaired[0]["message"]
    assert results["input"]["compared"][1].endswith("optimized.json.gz")
    assert all(b["unit"] == "s" for b in results["benchmarks"])
    summary = (tmp_path / "summary.md").read_text()
    assert "| fib\\_memo" not in summary  # not a row of the table,
    assert "⚠️ 1 benchmark of" in summary and "fib\\_memo" in summary  # but named


def test_compare_rebench_executors_of_one_file(tmp_path):
    data = TRUFFLESOM / "are-we-there-yet.data.gz"
    status, results = run(["compare", f"{data}#TruffleSOM-graal-no-split",
                           f"{data}#TruffleSOM-graal"], tmp_path)
    assert status == 0
    assert len(results["benchmarks"]) == 22
    # Same numbers as the plain-text copy of the same runs (milliseconds there, seconds here).
    loop = next(b for b in results["benchmarks"] if b["name"] == "Loop")
    baseline = [float(v) for v in (TRUFFLESOM / "baseline/Loop.txt").read_text().split()]
    assert loop["initial"]["mean"] == pytest.approx(sum(baseline) / len(baseline) / 1000)


def test_compare_hyperfine_one_command_each_side(tmp_path):
    status, results = run(["compare", str(TOOLS / "hyperfine/initial.json") + "#compress",
                           str(TOOLS / "hyperfine/optimized.json") + "#compress"], tmp_path)
    assert status == 0
    assert [b["name"] for b in results["benchmarks"]] == ["compress"]


def test_compare_google_benchmark_cpu_time(tmp_path):
    base = ["compare", str(TOOLS / "google-benchmark/initial.json"),
            str(TOOLS / "google-benchmark/optimized.json")]
    _, real = run(base, tmp_path / "real")
    _, cpu = run([*base, "--time", "cpu"], tmp_path / "cpu")
    assert [b["name"] for b in real["benchmarks"]] == [b["name"] for b in cpu["benchmarks"]]
    assert real["benchmarks"][0]["initial"]["mean"] != cpu["benchmarks"][0]["initial"]["mean"]
    assert any("BM_Checksum" in w for w in real["warnings"])  # only in initial.json


@pytest.mark.parametrize(("initial", "optimized", "message"), [
    ("google-benchmark/initial.json", "hyperfine/optimized.json",
     "no benchmark name in common"),
    ("rebench/benchmark.data", "rebench/benchmark.data", "holds 2 versions"),
    ("rebench/benchmark.data#nope", "rebench/benchmark.data",
     "no version or benchmark 'nope' (it holds: initial, optimized)"),
    ("hyperfine/initial.json#compres", "hyperfine/optimized.json#compress",
     "did you mean 'compress'?"),
    ("pyperf/missing.json", "pyperf/initial.json", "file not found"),
])
def test_compare_refuses_what_cannot_pair(tmp_path, capsys, initial, optimized, message):
    status = main(["compare", str(TOOLS / initial), str(TOOLS / optimized),
                   "-o", str(tmp_path), *QUICK])
    assert status == 2
    assert message in capsys.readouterr().err


def test_config_rows_name_benchmarks_inside_result_files(tmp_path):
    config = tmp_path / "config.csv"
    tools = TOOLS.resolve()
    config.write_text(
        "benchmark,initial,optimized\n"
        f"sort,{tools}/pyperf/initial.json#sort,{tools}/pyperf/optimized.json.gz#sort\n"
        f"loop,{tools}/rebench/benchmark.data#initial/Loop,"
        f"{tools}/rebench/benchmark.data#optimized/Loop\n"
        f"gb,{tools}/google-benchmark/initial.json#BM_Sort/4096,"
        f"{tools}/google-benchmark/optimized.json#BM_Sort/4096\n"
        f"typo,{tools}/pyperf/initial.json#srot,{tools}/pyperf/optimized.json#sort\n")
    status, results = run([str(config)], tmp_path / "out")
    assert status == 1  # one benchmark with an error, the others analysed
    by_name = {b["name"]: b for b in results["benchmarks"]}
    assert [by_name[n]["status"] for n in ("sort", "loop", "gb")] == ["ok"] * 3
    assert by_name["loop"]["files"]["initial"].endswith("benchmark.data#initial/Loop")
    (error,) = by_name["typo"]["errors"]
    assert "config.csv:5" in error and "has no benchmark 'srot'" in error
    assert "did you mean 'sort'?" in error


def test_a_plain_sample_against_a_file_with_units_is_an_error(tmp_path):
    (tmp_path / "times.txt").write_text("1.2 1.3 1.25 1.22\n")
    config = tmp_path / "config.csv"
    config.write_text("benchmark,initial,optimized\n"
                      f"sort,times.txt,{TOOLS.resolve()}/hyperfine/optimized.json#sort\n")
    status, results = run([str(config)], tmp_path / "out")
    assert status == 2
    assert "plain sample without a unit" in results["benchmarks"][0]["errors"][0]


def test_compare_warns_when_the_tools_differ(tmp_path):
    status, results = run(["compare", str(TOOLS / "pyperf/initial.json") + "#sort",
                           str(TOOLS / "hyperfine/optimized.json") + "#sort"], tmp_path)
    assert status == 0
    assert any(w["code"] == "different-tools" for w in results["warning_details"])


def test_compare_gates_on_a_slower_benchmark(tmp_path):
    # list_copy is about 7x slower in optimized.json (pyperf compare_to: "7.72x slower").
    status, _ = run(["compare", str(TOOLS / "pyperf/initial.json"),
                     str(TOOLS / "pyperf/optimized.json"), "--fail-on-slowdown"], tmp_path)
    assert status == 3
    row = next(line for line in (tmp_path / "summary.md").read_text().splitlines()
               if line.startswith("| list\\_copy"))
    assert row.startswith("| list\\_copy | 🔻 slower | 7.72× slower |")
    assert row.endswith("| 0% | slower | slower |")


def test_plan_reads_one_benchmark_of_a_result_file(capsys):
    status = main(["plan", str(TOOLS / "rebench/benchmark.data") + "#initial/Loop",
                   "--cost", "iteration=1", "--cost", "invocation=10"])
    assert status == 0
    assert "3 invocation › 4 iteration" in capsys.readouterr().out


def test_unpaired_benchmarks_are_on_the_global_report(tmp_path):
    status = main(["compare", str(TOOLS / "pyperf/initial.json"),
                   str(TOOLS / "pyperf/optimized.json"), "--format", "html", "-o",
                   str(tmp_path), *QUICK])
    assert status == 0
    page = (tmp_path / "global.html").read_text()
    assert "fib_memo" in page and "each of weight W = 1" in page
    assert "Compared <code>" in page


def test_terminal_names_unpaired_benchmarks(tmp_path, capsys):
    main(["compare", str(TOOLS / "pyperf/initial.json"), str(TOOLS / "pyperf/optimized.json"),
          "--format", "json", "-o", str(tmp_path), "--bootstrap", "200"])
    assert "Warning: 1 benchmark of" in capsys.readouterr().out


def test_compare_a_plain_sample_with_a_plain_sample(tmp_path):
    (tmp_path / "old.txt").write_text("1.0 1.1 1.05 0.98 1.02\n")
    (tmp_path / "new.txt").write_text("0.8 0.82 0.79 0.81 0.8\n")
    status, results = run(["compare", str(tmp_path / "old.txt"), str(tmp_path / "new.txt")],
                          tmp_path / "out")
    assert status == 0
    assert results["benchmarks"][0]["name"] == "old → new"
    assert results["benchmarks"][0]["unit"] is None


def test_two_commands_of_one_hyperfine_file(tmp_path):
    hf = str(TOOLS / "hyperfine/initial.json")
    status, results = run(["compare", f"{hf}#compress", f"{hf}#sort"], tmp_path)
    assert status == 0
    assert results["benchmarks"][0]["name"] == "compress → sort"
    assert not [w for w in results["warning_details"] if w["code"] == "paired-by-position"]


def test_compare_takes_any_number_of_files(tmp_path):
    """Three pyperf files (two of them the same suite, one gzipped): every version against
    the first, all of them together per benchmark; names that would clash are the paths."""
    files = [TOOLS / "pyperf/initial.json", TOOLS / "pyperf/optimized.json",
             TOOLS / "pyperf/optimized.json.gz"]
    status, results = run(["compare", *map(str, files)], tmp_path)
    assert status == 0
    assert [v["name"] for v in results["versions"]] == [str(f) for f in files]
    assert results["input"] == {"compared": [str(f) for f in files]}
    assert {b["name"] for b in results["benchmarks"]} == {
        "sort", "str_join", "dict_lookup", "list_copy", "regex"}
    # The two copies of the same file are never told apart.
    for benchmark in results["benchmarks"]:
        letters = benchmark["letters"]
        assert letters[str(files[1])] == letters[str(files[2])]
    assert any("fib_memo" in warning for warning in results["warnings"])


def test_compare_of_one_file_needs_several_versions_in_it(tmp_path, capsys):
    status, _ = run(["compare", str(TOOLS / "pyperf/initial.json")], tmp_path)
    assert status == 2
    assert "give at least two result files" in capsys.readouterr().err


def test_one_hyperfine_run_of_several_commands_is_compared_alone(tmp_path):
    status, results = run(["compare", str(TOOLS / "hyperfine/initial.json")], tmp_path)
    assert status == 0
    assert [version["name"] for version in results["versions"]] == ["compress", "sort",
                                                                    "checksum"]


def test_two_files_without_compare_get_the_command_that_compares_them(tmp_path, capsys):
    initial, optimized = (str(TOOLS / f"pyperf/{side}.json") for side in ("initial",
                                                                          "optimized"))
    with pytest.raises(SystemExit) as stop:
        main([initial, optimized, "-o", str(tmp_path / "out")])
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert f"run: speeduptest compare {initial} {optimized}" in error
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("tool_file", "suggested"), [
    ("pyperf/initial.json", "speeduptest compare {} OTHER_FILE"),
    ("rebench/benchmark.data", "to compare its versions, run: speeduptest compare {}"),
    ("hyperfine/initial.json", "to compare its versions, run: speeduptest compare {}"),
])
def test_a_tool_file_given_as_the_config_gets_the_command_for_it(tmp_path, capsys,
                                                                 tool_file, suggested):
    path = str(TOOLS / tool_file)
    assert main([path, "-o", str(tmp_path / "out")]) == 2
    error = capsys.readouterr().err
    assert "result file, not a config" in error and suggested.format(path) in error

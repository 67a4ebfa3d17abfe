"""Several versions end to end: the config forms, compare of several files, results.json
("versions", "benchmarks", "comparisons"), the terminal answer, bad input and exit status."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from speeduptest.cli import main

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ROOT / "samples" / "compiler-flags"
TOOLS = ROOT / "tests" / "data" / "tools"
QUICK = ["--bootstrap", "200"]


def run(arguments: list[str], output: Path, *extra: str) -> tuple[int, dict | None]:
    # The values as read: R computed the expected figures on them.
    status = main([*arguments, "-o", str(output), "--format", "json", "--quiet", *extra,
                   "--warmup", "none", "--dependence", "ignore"])
    results = output / "results.json"
    return status, json.loads(results.read_text()) if results.exists() else None


@pytest.fixture
def in_root(monkeypatch):
    """Run from the repository's root, as the README's commands do."""
    monkeypatch.chdir(ROOT)


def _wide(path: Path, versions: list[str], rows: dict[str, list[str]], extra: str = "") -> Path:
    lines = ["benchmark," + ",".join(versions) + extra]
    lines += [f"{name}," + ",".join(cells) for name, cells in rows.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def _flags_rows(versions: list[str], kernels=("collatz", "crc32", "matmul", "sieve")):
    return {k: [str(FLAGS / v / f"{k}.txt") for v in versions] for k in kernels}


# ---------------------------------------------------------------- the three-version example


def test_three_flag_sets_results_json(tmp_path, in_root, capsys):
    status = main(["samples/compiler-flags/flags.csv", "--baseline", "O2", "-o",
                   str(tmp_path), "--format", "json"])
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith("O3-native is the fastest of 3 versions: 5.3% faster than the next "
                          "best, the baseline O2 (97.5% CI 1.041–1.073)")
    data = json.loads((tmp_path / "results.json").read_text())
    assert set(data) >= {"tool", "input", "settings", "versions", "benchmarks", "comparisons",
                         "overall", "warnings", "errors"}
    assert data["input"] == {"config": "samples/compiler-flags/flags.csv", "form": "wide"}
    assert data["settings"]["baseline"] == "O2"
    assert data["overall"]["ranking"] == ["O3-native", "O2", "O0"]
    assert data["overall"]["best"] == ["O3-native"]
    versions = {v["name"]: v for v in data["versions"]}
    assert versions["O2"]["baseline"] and versions["O2"]["geometric_mean"] is None
    assert versions["O3-native"]["versus_best"] is None
    assert versions["O2"]["versus_best"]["call"] == "faster"
    assert versions["O3-native"]["geometric_mean"]["speedup"] == pytest.approx(
        versions["O2"]["versus_best"]["speedup"])
    assert [c["version"] for c in data["comparisons"]] == ["O0", "O3-native"]
    benchmarks = {b["name"]: b for b in data["benchmarks"]}
    assert len(benchmarks) == 11 and all(b["status"] == "ok" for b in benchmarks.values())
    collatz = benchmarks["collatz"]
    assert collatz["letters"] == {"O0": "c", "O2": "a", "O3-native": "b"}
    assert collatz["omnibus"]["route"] in ("anova", "welch", "kruskal")
    assert len(collatz["posthoc"]["pairs"]) == 3
    assert benchmarks["linkedlist"]["letters"] == {"O0": "a", "O2": "a", "O3-native": "a"}
    # Every comparison holds the two-version entry of each benchmark, with Holm over k − 1.
    entry = data["comparisons"][1]["benchmarks"][0]
    assert entry["name"] == "collatz" and entry["change"]["call"] == "slower"
    assert entry["versions_holm"]["comparisons"] == 2
    assert "over 22 comparisons" in entry["change"]["reason"]


def test_comparisons_are_the_two_version_analysis(tmp_path, in_root):
    """O3-native against O2 inside the three-version run is the two-version analysis of the
    same pair; with --correction none even the calls agree (nothing depends on the family)."""
    for correction in ("fcr", "none"):
        _, three = run(["samples/compiler-flags/flags.csv", "--baseline", "O2"],
                       tmp_path / f"three-{correction}", "--correction", correction)
        _, two = run(["samples/compiler-flags/O3-vs-O2.csv"], tmp_path / f"two-{correction}",
                     "--correction", correction)
        pair = next(c for c in three["comparisons"] if c["version"] == "O3-native")
        assert len(pair["benchmarks"]) == len(two["benchmarks"]) == 11
        for ours, theirs in zip(pair["benchmarks"], two["benchmarks"], strict=True):
            for key in ("name", "initial", "optimized", "speedup", "tests", "mean", "median",
                        "effect_size", "slowdown", "probability_faster"):
                assert ours[key] == theirs[key], (ours["name"], key)
            if correction == "none":
                for key in ("call", "low", "high", "confidence"):
                    value = ours["change"]["interval"].get(key, ours["change"].get(key))
                    assert value == theirs["change"]["interval"].get(
                        key, theirs["change"].get(key))
        if correction == "none":
            assert pair["overall"]["calls"] == two["overall"]["calls"]
            assert pair["overall"]["geometric_mean"] == two["overall"]["geometric_mean"]


def test_two_versions_in_a_wide_or_long_config_are_the_two_version_run(tmp_path, in_root):
    source = (FLAGS / "O2-vs-O0.csv").read_text().splitlines()
    wide = ["# wide"] + ["benchmark,O0,O2,weight"] + [line for line in source[2:]]
    (tmp_path / "wide.csv").write_text("\n".join(wide) + "\n")
    long = ["# long", "benchmark,version,sample,weight"]
    for line in source[2:]:
        name, initial, optimized, weight = line.split(",")
        long += [f"{name},O0,{initial},{weight}", f"{name},O2,{optimized},{weight}"]
    (tmp_path / "long.csv").write_text("\n".join(long) + "\n")
    for folder in ("O0", "O2"):  # the configs name the samples relative to themselves
        os.symlink(FLAGS / folder, tmp_path / folder)
    _, pair = run(["samples/compiler-flags/O2-vs-O0.csv"], tmp_path / "pair")
    for name, extra in (("wide.csv", ["--baseline", "O0"]), ("long.csv", [])):
        _, data = run([str(tmp_path / name), *extra], tmp_path / f"out-{name}")
        assert "versions" not in data and "comparisons" not in data
        for entry, reference in zip(data["benchmarks"], pair["benchmarks"], strict=True):
            for key in ("name", "weight", "speedup", "tests", "mean", "median", "effect_size",
                        "change", "slowdown"):
                assert entry[key] == reference[key], (name, key)
        assert data["overall"] == pair["overall"]
    # The baseline named the other way round swaps initial and optimized.
    _, swapped = run([str(tmp_path / "wide.csv"), "--baseline", "O2"], tmp_path / "swapped")
    assert swapped["benchmarks"][0]["speedup"]["mean"] == pytest.approx(
        1 / pair["benchmarks"][0]["speedup"]["mean"])


def test_long_config_gives_the_same_analysis_as_the_wide_one(tmp_path):
    versions = ["O0", "O2", "O3-native"]
    wide = _wide(tmp_path / "wide.csv", versions, _flags_rows(versions))
    lines = ["benchmark,version,sample,confidence"]
    for kernel, files in _flags_rows(versions).items():
        lines += [f"{kernel},{v},{f}," for v, f in zip(versions, files, strict=True)]
    lines[1] = lines[1] + "0.95"  # given once, on any of the benchmark's rows
    (tmp_path / "long.csv").write_text("\n".join(lines) + "\n")
    _, by_columns = run([str(wide), "--baseline", "O0"], tmp_path / "wide", *QUICK)
    _, by_rows = run([str(tmp_path / "long.csv")], tmp_path / "long", *QUICK)
    assert by_rows["input"]["form"] == "long"
    for key in ("versions", "benchmarks", "comparisons", "overall"):
        assert _without_lines(by_rows[key]) == _without_lines(by_columns[key])


def _without_lines(value):
    """The same data without the config line numbers (the two forms differ there only)."""
    if isinstance(value, dict):
        return {k: _without_lines(v) for k, v in value.items()
                if k not in ("config_line", "input")}
    if isinstance(value, list):
        return [_without_lines(v) for v in value]
    return value


# ---------------------------------------------------------------- compare of several files


def test_compare_hyperfine_commands_as_versions(tmp_path):
    hf = TOOLS / "hyperfine" / "initial.json"
    refs = [f"{hf}#compress", f"{hf}#sort", f"{hf}#checksum"]
    status, data = run(["compare", *refs], tmp_path, *QUICK)
    assert status == 0
    assert [v["name"] for v in data["versions"]] == ["compress", "sort", "checksum"]
    assert data["input"] == {"compared": refs}
    assert len(data["benchmarks"]) == 1
    assert set(data["benchmarks"][0]["letters"]) == {"compress", "sort", "checksum"}
    status, again = run(["compare", *refs, "--baseline", "sort"], tmp_path / "b", *QUICK)
    assert again["settings"]["baseline"] == "sort"
    assert again["overall"]["ranking"] == data["overall"]["ranking"]


def test_compare_one_file_with_several_versions(tmp_path):
    """A long CSV of three versions stands for all of them; a benchmark one version lacks is
    compared without it (a warning), one the baseline lacks is not analysed."""
    lines = ["benchmark,version,run,value"]
    for version, factor in (("a", 1.0), ("b", 0.9), ("c", 0.95)):
        for benchmark in ("x", "y", "z"):
            if (version, benchmark) in (("c", "z"), ("a", "y")):
                continue
            lines += [f"{benchmark},{version},{r},{factor * (1 + 0.01 * (r % 5))}"
                      for r in range(1, 13)]
    (tmp_path / "runs.csv").write_text("\n".join(lines) + "\n")
    status, data = run(["compare", str(tmp_path / "runs.csv")], tmp_path / "out", *QUICK)
    assert status == 0
    assert [v["name"] for v in data["versions"]] == ["a", "b", "c"]
    assert [b["name"] for b in data["benchmarks"]] == ["x", "z"]
    z = data["benchmarks"][1]
    assert z["status"] == "partial"
    assert [v["analysed"] for v in z["versions"]] == [True, True, False]
    assert set(z["letters"]) == {"a", "b"}
    warnings = " ".join(data["warnings"])
    assert "compared without it: z" in warnings and "not analysed: y" in warnings
    assert data["overall"]["benchmarks_ranked"] == 1


def test_compare_two_files_keeps_the_two_version_run(tmp_path):
    initial, optimized = TOOLS / "pyperf/initial.json", TOOLS / "pyperf/optimized.json"
    _, forward = run(["compare", str(initial), str(optimized)], tmp_path / "a", *QUICK)
    _, named = run(["compare", str(optimized), str(initial), "--baseline", "initial"],
                   tmp_path / "b", *QUICK)
    assert forward == named
    assert "versions" not in forward


# ---------------------------------------------------------------- bad input, exit status


def test_a_missing_sample_of_one_version_is_a_located_error(tmp_path, capsys):
    versions = ["O0", "O2", "O3-native"]
    rows = _flags_rows(versions)
    rows["crc32"][2] = str(tmp_path / "missing.txt")
    rows["sieve"][1] = ""
    config = _wide(tmp_path / "c.csv", versions, rows)
    status, data = run([str(config), "--baseline", "O0"], tmp_path / "out", *QUICK)
    assert status == 1
    benchmarks = {b["name"]: b for b in data["benchmarks"]}
    assert benchmarks["collatz"]["status"] == "ok"
    crc32 = benchmarks["crc32"]
    assert crc32["status"] == "partial" and crc32["letters"].keys() == {"O0", "O2"}
    assert any("missing.txt" in e and f"{config}:3" in e for e in crc32["errors"])
    assert any(f"{config}:5: no sample file for version 'O2'" in e
               for e in benchmarks["sieve"]["errors"])
    assert data["overall"]["benchmarks_ranked"] == 2  # collatz and matmul have every version
    pair = next(c for c in data["comparisons"] if c["version"] == "O3-native")
    assert [b["status"] for b in pair["benchmarks"]] == ["ok", "error", "ok", "ok"]


@pytest.mark.parametrize(("arguments", "message"), [
    (["--baseline", "O4"], "--baseline 'O4' is not one of its versions ('O0', 'O2', 'O3-native')"),
    ([], "missing required column(s) initial, optimized"),
])
def test_config_problems_exit_2(tmp_path, capsys, arguments, message):
    versions = ["O0", "O2", "O3-native"]
    config = _wide(tmp_path / "c.csv", versions, _flags_rows(versions))
    status, data = run([str(config), *arguments], tmp_path / "out", *QUICK)
    assert status == 2 and data is None
    err = capsys.readouterr().err
    assert message in err
    if not arguments:
        assert "--baseline VERSION" in err  # the hint for several versions


def test_compare_unknown_baseline_exits_2(tmp_path, capsys):
    hf = TOOLS / "hyperfine" / "initial.json"
    status, _ = run(["compare", f"{hf}#compress", f"{hf}#sort", f"{hf}#checksum",
                     "--baseline", "gzip"], tmp_path, *QUICK)
    assert status == 2
    assert "--baseline 'gzip' is none of the versions compared" in capsys.readouterr().err


def test_fail_on_slowdown_names_version_and_benchmark(tmp_path, in_root, capsys):
    status = main(["samples/compiler-flags/flags.csv", "--baseline", "O2", "-o",
                   str(tmp_path), "--format", "json", "--quiet", "--fail-on-slowdown"])
    assert status == 3
    err = capsys.readouterr().err
    assert "speeduptest: collatz: O3-native is slower than O2: the " in err
    assert "speeduptest: collatz: O0 is slower than O2" in err


def test_all_formats_are_written(tmp_path, in_root):
    status = main(["samples/compiler-flags/flags.csv", "--baseline", "O0", "-o",
                   str(tmp_path), "--format", "html,json,md,csv,tex", "--quiet"])
    assert status == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [".speeduptest-report", "benchmarks.html", "errors.html", "global.html",
                     "results.csv", "results.json", "summary.md", "table.tex", "warnings.html"]
    page = (tmp_path / "global.html").read_text()
    assert "O3-native is the fastest of 3 versions" in page
    assert page.count('class="letters"') >= 33
    assert "summary" not in (tmp_path / "summary.md").read_text()[:0]
    csv = (tmp_path / "results.csv").read_text().splitlines()
    assert len(csv) == 1 + 11 * 3


# ---------------------------------------------------------------- the answer in one sentence


def test_sentence_when_versions_tie_with_the_best(tmp_path, in_root, capsys):
    main(["samples/compiler-flags/flags4.csv", "--baseline", "O0", "-o", str(tmp_path),
          "--format", "json", "--warmup", "none", "--dependence", "ignore"])
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("O2-flto is the fastest of 4 versions, 2.72× faster than the "
                            "baseline O0 (95% CI 2.597–2.849), but O2 and O3-native are "
                            "indistinguishable from it (it is 0.7% faster than O2, 98.33% CI")
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["overall"]["best"] == ["O2-flto", "O2", "O3-native"]


def test_sentence_when_the_baseline_is_the_best(tmp_path, in_root, capsys):
    """The long-form sample: the same flags measured in two sessions."""
    status = main(["samples/compiler-flags/sessions.csv", "-o", str(tmp_path), "--format",
                   "json", "--warmup", "none", "--dependence", "ignore"])
    assert status == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("The baseline, O2 (session 1), is the fastest of 3 versions: "
                            "1.28× faster than the next best, O2-flto (session 2)")


def test_two_versions_of_a_wide_config_are_called_by_their_names(tmp_path, capsys):
    """A wide config of two version columns is two versions like any other: the answer and
    the summary name them (results.json, which has no names for a config, is unchanged)."""
    lines = [line for line in (FLAGS / "flags.csv").read_text().splitlines()
             if not line.startswith("#")]
    config = tmp_path / "two.csv"
    config.write_text("\n".join(",".join(line.split(",")[:3]) for line in lines) + "\n")
    for line in lines[1:]:
        for cell in line.split(",")[1:3]:
            (tmp_path / cell).parent.mkdir(exist_ok=True)
            (tmp_path / cell).write_bytes((FLAGS / cell).read_bytes())
    status = main([str(config), "--baseline", "O0", "-o", str(tmp_path / "out"),
                   "--format", "json,md", *QUICK])
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith("O2 is ") and " faster than O0 overall" in out.splitlines()[0]
    assert "O0 → O2" in out
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert summary.startswith("### speeduptest: is O2 faster than O0?")
    document = json.loads((tmp_path / "out" / "results.json").read_text())
    assert document["input"] == {"config": str(config)}

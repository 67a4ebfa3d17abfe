"""The readers of pytest-benchmark, asv and Criterion.rs files, on files the real tools
wrote (tests/data/tools/<tool>/make.sh), on damaged copies of them, and end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import main
from speeduptest.inputs.readers import parse_source, read_source, select

TOOLS = Path(__file__).parents[1] / "data" / "tools"
PYTEST_BENCHMARK, ASV = TOOLS / "pytest-benchmark", TOOLS / "asv"
CRITERION = TOOLS / "criterion" / "criterion"


def parse_json(document: object, name: str = "file.json"):
    return parse_source(json.dumps(document).encode(), name, name)


def compare(tmp_path: Path, *arguments: str) -> dict:
    status = main(["compare", *arguments, "-o", str(tmp_path / "out"), "--format", "json",
                   "--bootstrap", "1000", "--quiet"])
    assert status == 0
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    return {b["name"]: b for b in data["benchmarks"]} | {"": data}


# ---------------------------------------------------------------- pytest-benchmark


@pytest.mark.parametrize("name", ["initial.json", "optimized.json"])
def test_pytest_benchmark_rounds_are_stats_data(name):
    document = json.loads((PYTEST_BENCHMARK / name).read_text())
    source = read_source(PYTEST_BENCHMARK / name, name)
    assert source.format == "pytest-benchmark"
    assert [s.name for s in source.samples] == [b["name"] for b in document["benchmarks"]]
    for sample, entry in zip(source.samples, document["benchmarks"], strict=True):
        stats = entry["stats"]
        assert sample.ok and sample.unit == "s"
        assert sample.data.level_names == ("round",)
        np.testing.assert_array_equal(sample.data.root, stats["data"])
        assert len(stats["data"]) == stats["rounds"]
        assert np.mean(sample.data.root) == pytest.approx(stats["mean"], rel=1e-12)
        assert sample.notes[0].startswith(f"{stats['rounds']} rounds")


def test_pytest_benchmark_summaries_only_say_which_flag():
    source = read_source(PYTEST_BENCHMARK / "optimized-saved-stats-only.json")
    assert len(source.samples) == 4
    for sample in source.samples:
        assert sample.data is None
        message = sample.errors[0].message
        assert "summary statistics only" in message
        assert "--benchmark-save-data" in message and "--benchmark-json" in message


def test_pytest_benchmark_bad_rounds_and_names_shared_by_two_files():
    document = json.loads((PYTEST_BENCHMARK / "initial.json").read_text())
    document["benchmarks"][1]["stats"]["data"][4] = -1.0
    document["benchmarks"][2]["stats"]["data"][0] = "fast"
    twin = json.loads(json.dumps(document["benchmarks"][3]))
    document["benchmarks"][3]["fullname"] = "tests/one.py::test_join"
    twin["fullname"] = "tests/other.py::test_join"
    document["benchmarks"].append(twin)
    source = parse_json(document, "bench.json")
    assert "round 5: -1.0 is not a valid execution time" in str(select(source,
                                                                        "test_sort[100]").errors[0])
    assert "round 1: 'fast' is not a number" in str(select(source, "test_sort[10000]").errors[0])
    assert [s.name for s in source.samples][3:] == ["test_join [tests/one.py]",
                                                    "test_join [tests/other.py]"]
    assert select(source, "test_unique_words").ok


def test_compare_two_pytest_benchmark_runs(tmp_path):
    results = compare(tmp_path, str(PYTEST_BENCHMARK / "initial.json"),
                      str(PYTEST_BENCHMARK / "optimized.json"))
    assert results["test_unique_words"]["change"]["call"] == "faster"
    assert results["test_unique_words"]["change"]["interval"]["low"] > 10


# ---------------------------------------------------------------- asv


def _asv_columns(name: str) -> tuple[dict, dict[str, dict]]:
    document = json.loads((ASV / name).read_text())
    return document, {key: dict(zip(document["result_columns"], value, strict=False))
                      for key, value in document["results"].items()}


@pytest.mark.parametrize("name", ["initial.json", "optimized.json"])
def test_asv_samples_per_parameter_combination(name):
    _, results = _asv_columns(name)
    source = read_source(ASV / name, name)
    assert source.format == "asv"
    expected = {}
    for key, columns in results.items():
        if not key.rpartition(".")[2].startswith("time_"):
            continue
        if columns["params"]:
            combinations = [f"({size}, {kind})" for size in columns["params"][0]
                            for kind in columns["params"][1]]
        else:
            combinations = [""]
        for shown, samples, result in zip(combinations, columns["samples"], columns["result"],
                                          strict=True):
            expected[key + shown] = (samples, result)
    assert [s.name for s in source.samples] == list(expected)
    assert "benchmarks.TimeSort.time_sorted(10000, 'tuple')" in expected
    for sample in source.samples:
        samples, result = expected[sample.name]
        assert sample.ok and sample.unit == "s" and sample.data.level_names == ("sample",)
        np.testing.assert_array_equal(sample.data.root, samples)
        assert result == pytest.approx(np.median(samples), rel=1e-12)  # asv's own summary
    (notice,) = source.notices
    assert "benchmarks.track_unique_count" in notice.message


def test_asv_without_record_samples_or_with_a_failed_combination():
    document, _ = _asv_columns("initial.json")
    samples_at = document["result_columns"].index("samples")
    plain = json.loads(json.dumps(document))
    for values in plain["results"].values():
        del values[samples_at:]  # as asv writes them without --record-samples
    source = parse_json(plain)
    assert all("run asv with --record-samples" in s.errors[0].message for s in source.samples)
    document["results"]["benchmarks.TimeSort.time_sorted"][samples_at][1] = None
    document["results"]["benchmarks.time_join"][samples_at][0][3] = 0
    source = parse_json(document)
    failed = select(source, "benchmarks.TimeSort.time_sorted(100, 'tuple')")
    assert "no samples (the benchmark failed or was skipped" in failed.errors[0].message
    assert "sample 4: 0 is not a valid execution time" in select(
        source, "benchmarks.time_join").errors[0].message
    assert select(source, "benchmarks.TimeSort.time_sorted(100, 'list')").ok


def test_asv_benchmarks_json_is_named_for_what_it_is():
    source = read_source(ASV / "benchmarks.json")
    assert source.samples == () and "asv's list of benchmarks" in source.problem
    assert ".asv/results/MACHINE/COMMIT-ENVIRONMENT.json" in source.problem


def test_compare_two_asv_commits(tmp_path):
    results = compare(tmp_path, str(ASV / "initial.json"), str(ASV / "optimized.json"))
    assert results["benchmarks.time_unique_words"]["change"]["call"] == "faster"


# ---------------------------------------------------------------- Criterion.rs


def _criterion_runs():
    for sample_file in sorted(CRITERION.rglob("sample.json")):
        run = sample_file.parent
        name = json.loads((run / "benchmark.json").read_text())["full_id"]
        yield run.name, name, json.loads(sample_file.read_text()), json.loads(
            (run / "estimates.json").read_text())


def test_criterion_folder_every_run_a_version_with_criterions_means():
    source = read_source(CRITERION, "target/criterion")
    assert source.format == "Criterion" and source.notices == ()
    assert [s.label for s in source.samples] == [
        "base/count_primes", "base/sort/100", "base/sort/2000",
        "new/count_primes", "new/sort/100", "new/sort/2000"]
    by_label = {s.label: s for s in source.samples}
    for variant, name, sample, estimates in _criterion_runs():
        read = by_label[f"{variant}/{name}"]
        assert read.ok and read.unit == "s" and read.data.level_names == ("sample",)
        expected = [t / i * 1e-9 for t, i in zip(sample["times"], sample["iters"], strict=True)]
        np.testing.assert_allclose(read.data.root, expected, rtol=1e-15)
        # Criterion's own mean of the per-iteration times, in ns.
        assert np.mean(read.data.root) * 1e9 == pytest.approx(
            estimates["mean"]["point_estimate"], rel=1e-9)


def test_criterion_one_benchmark_one_run_and_one_sample_file():
    benchmark = read_source(CRITERION / "sort" / "100")
    assert [s.label for s in benchmark.samples] == ["base/sort/100", "new/sort/100"]
    run = read_source(CRITERION / "sort" / "100" / "new")
    assert [s.label for s in run.samples] == ["new/sort/100"]
    single = read_source(CRITERION / "sort" / "100" / "new" / "sample.json")
    assert single.format == "Criterion" and single.samples[0].name is None
    np.testing.assert_array_equal(single.samples[0].data.root, run.samples[0].data.root)


def test_compare_a_criterion_folder_base_against_new(tmp_path):
    results = compare(tmp_path, str(CRITERION))
    assert results[""]["input"]["compared"] == [f"{CRITERION}#base", f"{CRITERION}#new"]
    for name in ("sort/100", "sort/2000"):
        assert results[name]["change"]["call"] == "faster"
    assert results["sort/2000"]["change"]["interval"]["low"] > 10


def test_compare_two_run_folders_of_one_benchmark(tmp_path):
    results = compare(tmp_path, str(CRITERION / "sort" / "2000" / "base"),
                      str(CRITERION / "sort" / "2000" / "new"))
    assert results["sort/2000"]["change"]["call"] == "faster"


def test_criterion_base_copied_from_new_is_a_warning(tmp_path):
    folder = tmp_path / "criterion"
    shutil.copytree(CRITERION, folder)
    shutil.copy(folder / "sort/100/new/sample.json", folder / "sort/100/base/sample.json")
    source = read_source(folder)
    (notice,) = source.notices
    assert "sort/100 (base)" in notice.message and "--baseline base" in notice.advice


def test_criterion_named_baselines_are_versions_between_base_and_new(tmp_path):
    folder = tmp_path / "criterion"
    shutil.copytree(CRITERION / "sort", folder / "sort")
    shutil.copytree(folder / "sort/100/base", folder / "sort/100/before")
    source = read_source(folder)
    assert [s.label for s in source.samples] == [
        "base/sort/100", "base/sort/2000", "before/sort/100", "new/sort/100", "new/sort/2000"]


def test_criterion_damaged_sample_file_is_an_error_of_that_run(tmp_path):
    folder = tmp_path / "criterion"
    shutil.copytree(CRITERION, folder)
    path = folder / "sort/100/new/sample.json"
    path.write_text(path.read_text()[:200])
    sample = folder / "count_primes/base/sample.json"
    document = json.loads(sample.read_text())
    document["times"][2] = -5.0
    sample.write_text(json.dumps(document))
    source = read_source(folder, "criterion")
    broken = select(source, "new/sort/100")
    assert str(broken.errors[0]) == (
        "criterion/sort/100/new/sample.json: benchmark 'sort/100' (new): sample.json is not "
        "valid JSON (was it truncated?)")
    negative = select(source, "base/count_primes")
    assert "sample 3: -5.0 is not a valid execution time" in str(negative.errors[0])
    assert str(negative.errors[0]).startswith("criterion/count_primes/base/sample.json: ")
    assert select(source, "new/sort/2000").ok


def test_a_folder_without_criterion_results_is_still_a_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    source = read_source(tmp_path / "empty")
    assert source.problem == "is a directory, not a file"

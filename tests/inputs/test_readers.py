"""Readers of benchmark tools' result files, on files the real tools wrote (tests/data/tools,
with the commands that made them), and on damaged copies of those files."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from speeduptest.inputs.readers import parse_source, read_source, select
from speeduptest.inputs.readers.units import seconds_per

TOOLS = Path(__file__).parents[1] / "data" / "tools"
SHARED_REBENCH = Path(__file__).parents[2] / "samples" / "trufflesom-splitting"


def read(relative: str):
    return read_source(TOOLS / relative, relative)


def values(sample) -> np.ndarray:
    """Every measurement of a sample, in file order (any depth)."""
    def flatten(node):
        if isinstance(node, np.ndarray):
            return list(node)
        return [v for child in node for v in flatten(child)]
    return np.array(flatten(sample.data.root))


# ---------------------------------------------------------------- each format, real files


def test_pyperf_processes_values_and_warmups_dropped():
    source = read("pyperf/initial.json")
    document = json.loads((TOOLS / "pyperf/initial.json").read_text())
    assert source.format == "pyperf"
    sort = select(source, "sort")
    assert sort.unit == "s"
    runs = [run for run in document["benchmarks"][0]["runs"] if "values" in run]
    assert sort.data.level_names == ("process", "value")
    assert sort.data.top_level_means.size == len(runs)
    np.testing.assert_allclose(values(sort), [v for run in runs for v in run["values"]])
    assert any("warm-up values left out" in note for note in sort.notes)


def test_pyperf_gzip_reads_like_plain_json():
    plain, packed = read("pyperf/optimized.json"), read("pyperf/optimized.json.gz")
    assert [s.name for s in plain.samples] == [s.name for s in packed.samples]
    for a, b in zip(plain.samples, packed.samples, strict=True):
        np.testing.assert_array_equal(values(a), values(b))


def test_hyperfine_commands_and_seconds():
    source = read("hyperfine/initial.json")
    document = json.loads((TOOLS / "hyperfine/initial.json").read_text())
    assert source.format == "hyperfine"
    assert [s.name for s in source.samples] == [r["command"] for r in document["results"]]
    first = source.samples[0]
    np.testing.assert_array_equal(values(first), document["results"][0]["times"])
    assert first.data.level_names == ("run",)


@pytest.mark.parametrize("time", ["real", "cpu"])
def test_google_benchmark_repetitions_units_and_time_choice(time):
    raw = (TOOLS / "google-benchmark/initial.json").read_bytes()
    source = parse_source(raw, "gb.json", "gb.json", _options(time))
    document = json.loads(raw)
    assert source.format == "Google Benchmark"
    for sample in source.samples:
        rows = [b for b in document["benchmarks"]
                if b.get("run_name") == sample.name and b["run_type"] == "iteration"]
        expected = [b[f"{time}_time"] * seconds_per(b["time_unit"]) for b in rows]
        np.testing.assert_allclose(values(sample), expected, rtol=1e-15)
        assert sample.data.level_names == ("repetition",)
    units = {b["time_unit"] for b in document["benchmarks"]}
    assert len(units) > 1, "the fixture should mix units (ms and ns) to test conversion"


def _options(time):
    from speeduptest.inputs.readers import ReadOptions
    return ReadOptions(time=time)


def test_google_benchmark_aggregates_only_is_an_error_with_advice():
    source = read("google-benchmark/optimized-aggregates-only.json")
    sample = select(source, "BM_Sort/256")
    assert sample.data is None
    message = str(sample.errors[0])
    assert "optimized-aggregates-only.json" in message and "BM_Sort/256" in message
    assert "--benchmark_repetitions" in message


def test_rebench_invocations_iterations_and_warmup():
    source = read("rebench/benchmark.data")
    assert source.format == "ReBench"
    sample = select(source, "initial/Loop")
    assert sample.data.level_names == ("invocation", "iteration")
    # rebench.conf: 3 invocations × 5 iterations, the first iteration of each a warm-up.
    assert sample.data.describe() == "3 invocation › 4 iteration"
    lines = [line.split("\t") for line in (TOOLS / "rebench/benchmark.data").read_text()
             .splitlines() if not line.startswith(("#", "invocation"))]
    expected = [float(c[2]) * 1e-3 for c in lines
                if c[5] == "Loop" and c[6] == "initial" and c[1] != "1"]
    np.testing.assert_allclose(values(sample), expected)


def test_rebench_old_format_from_are_we_fast_yet():
    source = read_source(SHARED_REBENCH / "are-we-there-yet.data.gz", "awty.data.gz")
    sample = select(source, "TruffleSOM-graal/Loop")
    assert sample.unit == "s" and sample.data.top_level_means.size == 100
    assert any("old ReBench format" in note for note in sample.notes)
    ambiguous = select(source, "Loop")
    assert "3 benchmarks matching 'Loop'" in ambiguous.problem


def test_long_csv_benchmark_version_levels():
    source = read_source(SHARED_REBENCH / "long.csv", "long.csv")
    assert source.format == "long CSV"
    towers = select(source, "optimized/Towers")
    assert towers.unit is None  # no unit column: values as they are
    # One invocation is too few units: its iterations are used instead, with a warning.
    assert towers.data.top_level_means.size == 100
    assert [n.code for n in towers.notices] == ["few-top-level-units"]


def test_long_csv_unit_column_converts(tmp_path):
    file = tmp_path / "long.csv"
    file.write_text("benchmark,version,run,value,unit\n"
                    + "".join(f"a,old,{i},{v},ms\n" for i, v in enumerate([1, 2, 3], 1))
                    + "".join(f"a,new,{i},{v},us\n" for i, v in enumerate([500, 600, 700], 1)))
    source = read_source(file, "long.csv")
    np.testing.assert_allclose(values(select(source, "old/a")), [1e-3, 2e-3, 3e-3])
    np.testing.assert_allclose(values(select(source, "new/a")), [5e-4, 6e-4, 7e-4])


# ---------------------------------------------------------------- selection


def test_a_file_of_many_benchmarks_needs_a_name():
    sample = select(read("pyperf/initial.json"), None)
    assert sample.data is None
    assert "choose one with" in sample.problem and "'sort'" in sample.problem


def test_an_unknown_name_lists_what_the_file_holds():
    sample = select(read("hyperfine/initial.json"), "nope")
    assert "has no benchmark 'nope'" in sample.problem and "'compress'" in sample.problem


def test_a_name_on_a_plain_sample_is_refused(tmp_path):
    (tmp_path / "x.txt").write_text("1 2 3\n")
    sample = select(read_source(tmp_path / "x.txt", "x.txt"), "a")
    assert "single sample" in sample.problem


def test_units_table():
    assert seconds_per("ms") == 1e-3 and seconds_per("µs") == 1e-6 == seconds_per("us")
    assert seconds_per("ns") == 1e-9 and seconds_per("second") == 1.0
    assert seconds_per("bytes") is None


# ---------------------------------------------------------------- damaged files


TRUNCATED = [
    ("pyperf/initial.json", "sort"),
    ("hyperfine/initial.json", "compress"),
    ("google-benchmark/initial.json", "BM_Sort/256"),
]


@pytest.mark.parametrize(("relative", "name"), TRUNCATED)
def test_truncated_json_names_file_and_benchmark(tmp_path, relative, name):
    raw = (TOOLS / relative).read_bytes()
    file = tmp_path / Path(relative).name
    file.write_bytes(raw[: len(raw) // 2])
    sample = select(read_source(file, "cut.json"), name)
    assert sample.data is None
    assert sample.path == f"cut.json#{name}"
    assert "not valid JSON" in sample.problem and "truncated" in sample.problem
    assert f"benchmark '{name}' cannot be read" in sample.problem


def test_truncated_gzip_is_reported(tmp_path):
    raw = (TOOLS / "pyperf/optimized.json.gz").read_bytes()
    file = tmp_path / "cut.json.gz"
    file.write_bytes(raw[: len(raw) // 2])
    sample = select(read_source(file, "cut.json.gz"), "sort")
    assert "cannot be decompressed" in sample.problem and "sort" in sample.problem


def _cut(tmp_path: Path, source: Path, keep: int, name: str) -> tuple[Path, int]:
    """A copy of ``source`` ending ``keep`` characters into its last line (no newline)."""
    text = source.read_text().rstrip("\n")
    body, last = text.rsplit("\n", 1)
    file = tmp_path / name
    file.write_text(body + "\n" + last[:keep])
    return file, len(text.splitlines())


@pytest.mark.parametrize("keep", [6, 40])  # in the value; in the suite
def test_rebench_cut_last_line_is_a_located_warning(tmp_path, keep):
    file, line = _cut(tmp_path, TOOLS / "rebench/benchmark.data", keep, "cut.data")
    source = read_source(file, "cut.data")
    assert len(source.samples) == 7  # no benchmark made up from the cut line
    for sample in (select(source, "optimized/Lookup"), select(source, "initial/Sort")):
        assert sample.data is not None and not sample.errors
        (notice,) = [n for n in sample.notices if n.code == "input-last-line-cut"]
        assert f"cut.data:{line}:" in notice.message
        assert ("benchmark 'Lookup' (optimized)" in notice.message) == (keep == 40)


def test_rebench_cut_line_inside_the_file_is_an_error(tmp_path):
    lines = (TOOLS / "rebench/benchmark.data").read_text().splitlines()
    index = next(i for i, line in enumerate(lines) if "\tLoop\tinitial\t" in line)
    lines[index] = "\t".join(lines[index].split("\t")[:8])
    file = tmp_path / "bad.data"
    file.write_text("\n".join(lines) + "\n")
    sample = select(read_source(file, "bad.data"), "initial/Loop")
    assert sample.data is None
    assert str(sample.errors[0]).startswith(f"bad.data:{index + 1}: benchmark 'Loop' (initial)")


def test_long_csv_cut_last_line_and_bad_value(tmp_path):
    long_csv = SHARED_REBENCH / "long.csv"
    file, line = _cut(tmp_path, long_csv, 8, "cut.csv")
    source = read_source(file, "cut.csv")
    sample = select(source, "baseline/Bounce")
    assert any(f"cut.csv:{line}:" in n.message for n in sample.notices)
    text = long_csv.read_text().replace("Bounce,baseline,1,3,50.873", "Bounce,baseline,1,3,x")
    (tmp_path / "bad.csv").write_text(text)
    source = read_source(tmp_path / "bad.csv", "bad.csv")
    bad = select(source, "baseline/Bounce")
    assert "bad.csv:4: benchmark 'Bounce' (baseline): 'x' is not a number" in str(bad.errors[0])
    assert select(source, "optimized/Bounce").data is not None


@pytest.mark.parametrize("relative", ["jmh/average-time.json", "pyperf/optimized.json.gz"])
def test_truncated_jmh_and_gzip_name_the_benchmark(tmp_path, relative):
    raw = (TOOLS / relative).read_bytes()
    # For .gz: a complete gzip stream of a cut document.
    raw = gzip.compress(gzip.decompress(raw)[:3000]) if relative.endswith(".gz") else raw[:3000]
    file = tmp_path / Path(relative).name
    file.write_bytes(raw)
    name = read(relative).samples[0].name
    sample = select(read_source(file, "cut"), name)
    assert "truncated" in sample.problem and f"benchmark '{name}'" in sample.problem


def test_malformed_values_name_benchmark_and_run(tmp_path):
    document = json.loads((TOOLS / "pyperf/initial.json").read_text())
    runs = [run for run in document["benchmarks"][1]["runs"] if "values" in run]
    runs[1]["values"][0] = "fast"
    file = tmp_path / "bad.json"
    file.write_text(json.dumps(document))
    source = read_source(file, "bad.json")
    name = document["benchmarks"][1]["metadata"]["name"]
    broken = select(source, name)
    assert broken.data is None
    assert f"benchmark '{name}', run" in str(broken.errors[0])
    assert "'fast' is not a number" in str(broken.errors[0])
    assert select(source, "sort").data is not None  # the others are still read


def test_google_benchmark_failed_repetition(tmp_path):
    document = json.loads((TOOLS / "google-benchmark/initial.json").read_text())
    row = next(b for b in document["benchmarks"] if b["run_type"] == "iteration")
    row.update(error_occurred=True, error_message="out of memory")
    file = tmp_path / "gb.json"
    file.write_text(json.dumps(document))
    sample = select(read_source(file, "gb.json"), row["run_name"])
    assert "failed" in str(sample.errors[0]) and "out of memory" in str(sample.errors[0])


def test_unknown_json_and_hyperfine_without_times(tmp_path):
    file = tmp_path / "x.json"
    file.write_text('{"hello": 1}')
    assert "no format speeduptest reads" in read_source(file, "x.json").problem
    file.write_text('{"results": [{"command": "a", "mean": 1.0}]}')
    sample = select(read_source(file, "x.json"), "a")
    assert "command 'a': no 'times' list" in str(sample.errors[0])


def test_gzip_of_a_plain_sample(tmp_path):
    file = tmp_path / "times.txt.gz"
    file.write_bytes(gzip.compress(b"1 2 3 4\n"))
    sample = select(read_source(file, "times.txt.gz"), None)
    assert sample.data.top_level_means.size == 4 and sample.unit is None


# ---------------------------------------------------------------- JMH (public result files)


def test_jmh_average_time_forks_iterations_units():
    raw = json.loads((TOOLS / "jmh/average-time.json").read_text())
    source = read("jmh/average-time.json")
    assert source.format == "JMH"
    for entry, sample in zip(raw, source.samples, strict=True):
        assert sample.name == entry["benchmark"]
        metric = entry["primaryMetric"]
        factor = seconds_per(metric["scoreUnit"].split("/")[0])
        assert sample.data.level_names == ("fork", "iteration")
        np.testing.assert_allclose(values(sample),
                                   [v * factor for fork in metric["rawData"] for v in fork])
        # The mean of the fork means is JMH's score when forks are balanced.
        assert sample.data.top_level_means.mean() == pytest.approx(metric["score"] * factor)


def test_jmh_throughput_becomes_time_per_operation():
    raw = json.loads((TOOLS / "jmh/throughput.json").read_text())
    source = read("jmh/throughput.json")
    entry, sample = raw[0], source.samples[0]
    unit = entry["primaryMetric"]["scoreUnit"]  # ops/ms
    per = seconds_per(unit.split("/")[1])
    np.testing.assert_allclose(
        values(sample), [per / v for fork in entry["primaryMetric"]["rawData"] for v in fork])
    assert any("turned into time per operation" in note for note in sample.notes)
    # Two forks are too few independent units: the iterations are used, with a warning.
    assert [n.code for n in sample.notices] == ["few-top-level-units"]


def test_jmh_missing_raw_data_and_bad_unit(tmp_path):
    raw = json.loads((TOOLS / "jmh/average-time.json").read_text())
    del raw[0]["primaryMetric"]["rawData"]
    raw[1]["primaryMetric"]["scoreUnit"] = "B/op"
    file = tmp_path / "jmh.json"
    file.write_text(json.dumps(raw))
    source = read_source(file, "jmh.json")
    first, second = source.samples[:2]
    assert "no rawData" in str(first.errors[0]) and first.name in str(first.errors[0])
    assert "'B/op' is neither a time per operation" in str(second.errors[0])
    assert source.samples[2].data is not None


def test_hyperfine_failed_runs_are_a_warning(tmp_path):
    document = json.loads((TOOLS / "hyperfine/initial.json").read_text())
    document["results"][0]["exit_codes"][2] = 1
    file = tmp_path / "hf.json"
    file.write_text(json.dumps(document))
    sample = select(read_source(file, "hf.json"), document["results"][0]["command"])
    (notice,) = sample.notices
    assert notice.code == "input-failed-runs" and "1 of 10 runs" in notice.message


def test_csv_with_an_unclosed_quote_is_a_located_error(tmp_path):
    file = tmp_path / "q.csv"
    file.write_text('benchmark,version,value\n"a,v1,1\na,v1,2\na,v1,3\na,v1,4\n')
    sample = select(read_source(file, "q.csv"), "v1/a")
    assert not sample.ok  # the line's benchmark is unknown: every benchmark of the file
    assert str(sample.errors[0]).startswith("q.csv:2: not valid CSV")
    file.write_text('run,value\n1,"2\n')
    sample = select(read_source(file, "q.csv"), None)
    assert str(sample.errors[0]).startswith("q.csv:2: not valid CSV")


def test_rebench_names_pair_across_executors(tmp_path):
    header = ("invocation\titeration\tvalue\tunit\tcriterion\tbenchmark\texecutor\tsuite\t"
              "extraArgs\tcores\tinputSize\tvarValue\ttag\tmachine\trunId")
    lines = [header] + [
        f"{inv}\t{it}\t{1 + inv / 100 + it / 1000}\tms\ttotal\tLoop\t{executor}\t{suite}\t\t1"
        "\t\t\t\t\t0"
        for executor, suites in (("A", ["micro", "macro"]), ("B", ["micro"]))
        for suite in suites for inv in range(1, 4) for it in range(1, 4)]
    file = tmp_path / "two-suites.data"
    file.write_text("\n".join(lines) + "\n")
    labels = sorted(s.label for s in read_source(file, "t.data").samples)
    # A ran Loop in two suites: the suite names it, for B too, so that A and B pair.
    assert labels == ["A/Loop [macro]", "A/Loop [micro]", "B/Loop [micro]"]


def test_rebench_header_without_executor_is_a_file_problem(tmp_path):
    text = (TOOLS / "rebench/benchmark.data").read_text().replace("\texecutor\t", "\tvm\t")
    file = tmp_path / "vm.data"
    file.write_text(text)
    assert "the header has no column executor" in read_source(file, "vm.data").problem


def test_google_benchmark_complexity_rows_and_old_aggregate_names(tmp_path):
    document = json.loads((TOOLS / "google-benchmark/initial.json").read_text())
    document["benchmarks"] += [
        {"name": "BM_Sort_BigO", "run_name": "BM_Sort", "run_type": "aggregate",
         "aggregate_name": "BigO", "cpu_coefficient": 1.0, "real_coefficient": 1.0,
         "big_o": "NlgN", "time_unit": "ns"},
        {"name": "BM_Sort_RMS", "run_name": "BM_Sort", "run_type": "aggregate",
         "aggregate_name": "RMS", "rms": 0.01},
        "not an object",
    ]
    file = tmp_path / "gb.json"
    file.write_text(json.dumps(document))
    source = read_source(file, "gb.json")
    assert "BM_Sort" not in [s.name for s in source.samples]  # a fit, not a benchmark
    assert "entry #" in str(source.errors[0]) and "not a JSON object" in str(source.errors[0])
    # Before version 1.5: no run_type, aggregates named by a suffix.
    old = {"benchmarks": [
        {"name": "BM_X", "real_time": t, "cpu_time": t, "time_unit": "ns"} for t in (1, 2, 3)
    ] + [{"name": "BM_X_mean", "real_time": 2, "cpu_time": 2, "time_unit": "ns"},
         {"name": "BM_X_BigO", "real_coefficient": 1}], "context": {}}
    file.write_text(json.dumps(old))
    (sample,) = read_source(file, "old.json").samples
    assert sample.name == "BM_X" and sample.data.top_level_means.size == 3
    # Versions with run_type but before run_name: NAME_mean rows carry aggregate_name.
    for row in old["benchmarks"]:
        row["run_type"] = "iteration"
    old["benchmarks"][3].update(run_type="aggregate", aggregate_name="mean")
    del old["benchmarks"][4]
    file.write_text(json.dumps(old))
    (sample,) = read_source(file, "old.json").samples
    assert sample.name == "BM_X" and sample.data.top_level_means.size == 3


def test_names_repeated_by_jmh_modes_and_hyperfine_scans_are_qualified(tmp_path):
    raw = json.loads((TOOLS / "jmh/average-time.json").read_text())
    twin = json.loads(json.dumps(raw[0]))
    twin["mode"] = "ss"
    file = tmp_path / "jmh.json"
    file.write_text(json.dumps([raw[0], twin]))
    names = [s.name for s in read_source(file, "jmh.json").samples]
    assert names == [f"{raw[0]['benchmark']} [avgt]", f"{raw[0]['benchmark']} [ss]"]

    document = json.loads((TOOLS / "hyperfine/initial.json").read_text())
    scan = []
    for size in (10, 20):
        entry = json.loads(json.dumps(document["results"][0]))
        entry.update(command="gzip", parameters={"size": str(size)})
        scan.append(entry)
    file = tmp_path / "hf.json"
    file.write_text(json.dumps({"results": scan}))
    source = read_source(file, "hf.json")
    assert [s.name for s in source.samples] == ["gzip [size=10]", "gzip [size=20]"]
    assert select(source, "gzip [size=20]").data is not None


def test_references_split_at_the_first_hash_after_an_existing_file(tmp_path):
    from speeduptest.inputs.readers import split_reference
    (tmp_path / "dir#1").mkdir()
    (tmp_path / "dir#1" / "a.json").write_text("{}")
    assert split_reference("dir#1/a.json#gzip # level 9", tmp_path) == (
        tmp_path / "dir#1/a.json", "gzip # level 9")
    assert split_reference("dir#1/a.json", tmp_path) == (tmp_path / "dir#1/a.json", None)
    assert split_reference("missing.json#x#y", tmp_path) == (tmp_path / "missing.json", "x#y")


def test_empty_json_and_zero_hyperfine_times(tmp_path):
    file = tmp_path / "empty.json"
    file.write_text("\n")
    assert read_source(file, "empty.json").problem == "is empty"
    document = json.loads((TOOLS / "hyperfine/initial.json").read_text())
    document["results"][0]["times"][0] = 0.0
    file.write_text(json.dumps(document))
    sample = select(read_source(file, "hf.json"), document["results"][0]["command"])
    assert "hyperfine rounds it to 0" in str(sample.errors[0])


def test_a_plain_sample_named_dot_data_is_still_a_plain_sample(tmp_path):
    (tmp_path / "run.data").write_text("# seconds\n1.5 1.6\n1.55\n")
    sample = select(read_source(tmp_path / "run.data", "run.data"), None)
    assert sample.ok and sample.data.top_level_means.size == 3


_PIECES = ["1", "2.5", " ", "\n", "\t", "-1", "0", "1e400", "1e-400", "+3", ".5", "5.", "#",
           "x", "nan", "\x00", "\ufeff", "{", "[", "1,2", "\r\n", "1e5", "E", "..", "1_0",
           "invocation\titeration\tvalue\tunit\tcriterion", "#!rebench", "\x1c", "\u00e9"]
_NAMES = ["a.txt", "a.json", "a.csv", "a.JSON", ".json", "a", "a.data", "a.txt.gz", "..csv",
          "a.csv.", "x.b.CSV"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8), st.sampled_from(_NAMES),
       st.sampled_from([b"", b"\xef\xbb\xbf"]), st.sampled_from([b"", b"\xff"]))
def test_property_plain_fast_path_is_what_parse_source_reads(
        pieces: list[str], name: str, bom: bytes, tail: bytes) -> None:
    """read_source's shortcut for plain samples takes only files that parse_source reads as
    one plain sample without a problem, with the same values."""
    from speeduptest.inputs.readers import _plain_sample
    from speeduptest.inputs.samples import Sample

    raw = bom + "".join(pieces).encode() + tail
    plain = _plain_sample(raw, name)
    if plain is None:
        return
    full = parse_source(raw, "p", name)
    assert (full.format, full.problem, full.errors, full.notices) == ("sample", None, (), ())
    (sample,) = full.samples
    assert dataclasses.replace(sample, data=None) == Sample("p", None)
    assert sample.data.level_names == ("measurement",)
    assert sample.data.root.tobytes() == plain.tobytes()


def test_plain_fast_path_is_taken_for_plain_files(tmp_path: Path) -> None:
    import hashlib

    from speeduptest.inputs.readers import _plain_sample

    path = tmp_path / "times.txt"
    path.write_text("1.5\n2.5 3e-1\n")
    raw = path.read_bytes()
    assert _plain_sample(raw, path.name).tolist() == [1.5, 2.5, 0.3]
    fast, full = read_source(path), parse_source(raw, str(path), path.name)
    assert (fast.path, fast.format, fast.sha256) == (full.path, full.format,
                                                    hashlib.sha256(raw).hexdigest())
    assert fast.samples[0].data.root.tolist() == full.samples[0].data.root.tolist()


@given(st.text(alphabet=".aJjSsOoNnCcVv_ x", max_size=12))
def test_the_last_suffix_is_the_last_of_the_suffixes(filename: str) -> None:
    from speeduptest.inputs.readers import _last_suffix, _suffixes

    assert _last_suffix(filename) == (_suffixes(filename)[-1:] or [""])[0]

"""The reader of Go benchmark results (``go test -bench`` text), on the two runs that the real
``go test`` wrote in tests/data/tools/go (make.sh: the same module before and after a change
of textproc.SortWords), and on damaged or edited copies of them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import main
from speeduptest.inputs.readers import ReadOptions, parse_source, read_source, select

GO = Path(__file__).parents[1] / "data" / "tools" / "go"
INITIAL, OPTIMIZED = GO / "initial.txt", GO / "optimized.txt"


def read(text: str, name: str = "old.txt", metric: str | None = None):
    return parse_source(text.encode(), name, name, ReadOptions(metric=metric))


def lines_of(path: Path) -> list[tuple[int, str, str, dict[str, str]]]:
    """Go's own result lines, split independently of the reader: (line, package, name as
    written, {unit: value as written})."""
    rows, package = [], ""
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if line.startswith("pkg: "):
            package = line[5:]
        if re.match(r"Benchmark\S*\s+\d+\s", line):
            fields = line.split()
            rows.append((number, package, fields[0],
                         dict(zip(fields[3::2], fields[2::2], strict=True))))
    return rows


def test_every_run_is_the_ns_per_op_that_go_wrote_in_seconds():
    source = read_source(INITIAL, "initial.txt")
    assert source.format == "Go" and source.problem is None
    rows = lines_of(INITIAL)
    assert len(rows) == 7 * 8  # 7 benchmarks, -count 8
    by_name = {}
    for _, package, name, metrics in rows:
        by_name.setdefault((package, name), []).append(float(metrics["ns/op"]) * 1e-9)
    assert len(source.samples) == len(by_name)
    for sample, ((package, name), expected) in zip(source.samples, by_name.items(),
                                                   strict=True):
        assert sample.ok, sample.errors
        assert sample.unit == "s"
        assert sample.data.level_names == ("run",)
        assert sample.name.removesuffix(f" [{package}]") == name.removesuffix("-2")
        np.testing.assert_array_equal(sample.data.root, expected)
        assert sample.notes[0].startswith("8 runs of ns/op in seconds, each a mean over its ")
        assert "GOMAXPROCS 2: the -2 suffix of the names left out" in sample.notes
        assert f"pkg {package}" in sample.notes[-1] and "goos linux" in sample.notes[-1]


def test_sub_benchmarks_and_names_shared_by_two_packages():
    names = [sample.name for sample in read_source(INITIAL).samples]
    assert names == [
        "BenchmarkDigest", "BenchmarkBucket", "BenchmarkParse [example.com/gobench/hashing]",
        "BenchmarkSortWords/size=10", "BenchmarkSortWords/size=1000", "BenchmarkJoin",
        "BenchmarkParse [example.com/gobench/textproc]"]
    # A name of one package only is not qualified, even in a file of several packages.
    one_package = INITIAL.read_text().split("goos: linux\n")[2]
    assert [s.name for s in read("goos: linux\n" + one_package).samples][-1] == "BenchmarkParse"


@pytest.mark.parametrize(("metric", "unit", "expected"), [
    ("B/op", None, lambda metrics: float(metrics["B/op"])),
    ("allocs/op", None, lambda metrics: float(metrics["allocs/op"])),
    ("MB/s", "s", lambda metrics: 1 / float(metrics["MB/s"])),
    ("hits/op", None, lambda metrics: float(metrics["hits/op"])),
])
def test_other_metrics_are_read_when_chosen(metric, unit, expected):
    source = read(INITIAL.read_text(), metric=metric)
    rows = lines_of(INITIAL)
    reporting = {}
    for _, package, name, metrics in rows:
        if float(metrics.get(metric, 0)) > 0:
            reporting.setdefault((package, name), []).append(expected(metrics))
    assert len(source.samples) == len(reporting)
    for sample, values in zip(source.samples, reporting.values(), strict=True):
        assert sample.unit == unit
        np.testing.assert_allclose(sample.data.root, values, rtol=1e-15)
    left_out = len({(p, n) for _, p, n, _ in rows}) - len(reporting)
    assert len(source.notices) == 1
    assert f"{left_out} benchmarks" in source.notices[0].message


def test_an_unknown_metric_names_those_the_file_holds():
    source = read(INITIAL.read_text(), metric="furlongs/op")
    assert source.samples == ()
    assert "no benchmark reports the metric 'furlongs/op'" in source.problem
    assert "B/op, MB/s, allocs/op, hits/op, ns/op" in source.problem
    assert "--metric" in source.problem


def test_a_metric_that_is_0_in_some_runs_only_is_a_located_error():
    text = INITIAL.read_text()
    lines = text.splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("BenchmarkJoin"))
    lines[number] = re.sub(r"\s100 allocs/op", " 0 allocs/op", lines[number])
    join = select(read("".join(lines), metric="allocs/op"), "BenchmarkJoin")
    assert not join.ok
    assert "allocs/op is 0 in 1 of its runs" in join.errors[0].message


def test_a_gomaxprocs_suffix_that_differs_between_files_still_pairs():
    """Two machines: the optimized run had GOMAXPROCS 8. Each file strips its own suffix."""
    moved = OPTIMIZED.read_text().replace("-2 ", "-8 ")
    names = [s.name for s in read(moved).samples]
    assert names == [s.name for s in read_source(INITIAL).samples]
    assert "GOMAXPROCS 8: the -8 suffix of the names left out" in read(moved).samples[0].notes


def test_suffixes_that_differ_within_a_file_are_kept():
    """-cpu 1,2: GOMAXPROCS 1 has no suffix; the names are kept as written."""
    text = INITIAL.read_text()
    digest = [line for line in text.splitlines() if line.startswith("BenchmarkDigest")]
    mixed = "pkg: p\n" + "\n".join(line.replace("-2 ", "   ") for line in digest) + "\n" + \
        "\n".join(digest) + "\n"
    assert [s.name for s in read(mixed).samples] == ["BenchmarkDigest", "BenchmarkDigest-2"]


def test_configuration_lines_and_other_lines():
    text = ("goos: linux\ngoarch: amd64\npkg: example.com/m\ncpu: Some CPU @ 2.0GHz\n"
            "commit: abc123\nnote:\n"
            "BenchmarkA-4   \t 100\t 12.5 ns/op\n=== RUN something\nsome output\n"
            "BenchmarkA-4   \t 100\t 13.5 ns/op\nBenchmarkA-4\n--- BENCH: BenchmarkA-4\n"
            "BenchmarkA-4   \t 100\t 11.5 ns/op\nPASS\nok  \texample.com/m\t1.2s\n")
    source = read(text)
    (sample,) = source.samples
    assert sample.name == "BenchmarkA"
    np.testing.assert_allclose(sample.data.root, [12.5e-9, 13.5e-9, 11.5e-9], rtol=1e-15)
    assert sample.notes[-1] == ("configuration: goos linux, goarch amd64, pkg example.com/m, "
                                "cpu Some CPU @ 2.0GHz, commit abc123, note ")


def test_benchstat_units_and_names_without_procs_suffix():
    """benchfmt writes sec/op; Go omits the suffix at GOMAXPROCS 1."""
    source = read("BenchmarkX 10 0.5 sec/op\nBenchmarkX 10 0.25 sec/op\n"
                  "BenchmarkX 10 0.75 sec/op\n")
    np.testing.assert_array_equal(source.samples[0].data.root, [0.5, 0.25, 0.75])
    assert source.samples[0].name == "BenchmarkX"


@pytest.mark.parametrize("text", [
    "1.0 2.0 3.0\n", "# comment\n1 2 3\n", "Benchmarking is fun\n1 2 3\n",
    "benchmark,version,value\na,b,1\n"])
def test_other_texts_are_not_go(text):
    assert read(text, "file.txt").format != "Go"


def test_a_failed_benchmark_is_an_error_located_at_its_fail_line():
    text = INITIAL.read_text()
    lines = text.splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("BenchmarkJoin"))
    lines.insert(number, "--- FAIL: BenchmarkJoin-2\n    textproc_test.go:30: boom\n")
    source = read("".join(lines))
    join = select(source, "BenchmarkJoin")
    assert not join.ok
    assert join.errors[0].line == number + 1
    assert "failed (--- FAIL)" in join.errors[0].message
    assert select(source, "BenchmarkDigest").ok


def test_damaged_lines_are_located_errors_of_their_benchmark():
    text = INITIAL.read_text()
    lines = text.splitlines(keepends=True)
    bucket = next(i for i, line in enumerate(lines) if line.startswith("BenchmarkBucket"))
    lines[bucket] = lines[bucket].replace("79.41", "7x.41")
    lines[bucket + 1] = lines[bucket + 1].split("ns/op")[0] + "\n"  # cut after the value
    lines[bucket + 2] = lines[bucket + 2].replace("74.00", "-74.00")
    source = read("".join(lines), "old.txt")
    bucket_sample = select(source, "BenchmarkBucket")
    assert [error.line for error in bucket_sample.errors] == [bucket + 1, bucket + 2, bucket + 3]
    messages = [str(error) for error in bucket_sample.errors]
    assert messages[0].startswith(f"old.txt:{bucket + 1}: ")
    assert "'7x.41' 'ns/op' is not a number" in messages[0]
    assert "the line is cut?" in messages[1]
    assert "it must be > 0" in messages[2]
    assert all(select(source, name).ok for name in ("BenchmarkDigest", "BenchmarkJoin"))


def test_a_file_cut_in_its_last_line_is_a_warning():
    text = INITIAL.read_text()
    cut = text[: text.index("BenchmarkJoin") + 45]
    source = read(cut, "old.txt")
    assert any(n.code == "input-last-line-cut" for n in source.notices)
    assert select(source, "BenchmarkSortWords/size=1000").ok


def test_a_text_with_configuration_lines_only_holds_no_results():
    source = read("goos: linux\ngoarch: amd64\npkg: x\nPASS\n")
    assert source.format == "Go"
    assert "holds no Go benchmark result line" in source.problem


def test_compare_two_go_runs_calls_the_real_change(tmp_path, capsys):
    """End to end: the optimized run replaces an insertion sort by sort.Strings; on 1000
    words it is about ten times faster, and called so."""
    status = main(["compare", str(INITIAL), str(OPTIMIZED), "-o", str(tmp_path / "out"),
                   "--format", "json", "--bootstrap", "1000"])
    assert status == 0
    out = capsys.readouterr().out
    assert "BenchmarkSortWords/size=1000" in out.split("\n\n")[1]
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    by_name = {b["name"]: b for b in data["benchmarks"]}
    assert len(by_name) == 7 and all(b["status"] == "ok" for b in by_name.values())
    sort = by_name["BenchmarkSortWords/size=1000"]
    assert sort["change"]["call"] == "faster"
    assert sort["change"]["interval"]["low"] > 5
    assert sort["initial"]["n"] == sort["optimized"]["n"] == 8
    assert sort["unit"] == "s"


def test_compare_with_a_metric(tmp_path):
    status = main(["compare", str(INITIAL), str(OPTIMIZED), "--metric", "B/op",
                   "-o", str(tmp_path / "out"), "--format", "json", "--quiet"])
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    names = {b["name"] for b in data["benchmarks"]}
    # Only the benchmarks that allocate on both sides pair (the others are 0 B/op).
    assert "BenchmarkJoin" in names and "BenchmarkDigest" not in names
    assert status in (0, 1)
    join = next(b for b in data["benchmarks"] if b["name"] == "BenchmarkJoin")
    assert join["unit"] is None

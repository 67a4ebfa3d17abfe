"""Bad input never crashes the run: the benchmark gets an error naming file and line, every
other benchmark is still analysed, and the exit status says so."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

HEADER = "benchmark,initial,optimized,weight,confidence\n"


def by_name(data: dict) -> dict[str, dict]:
    return {b["name"]: b for b in data["benchmarks"]}


def assert_only_bad_fails(status: int, data: dict, bad: str, *fragments: str) -> str:
    """The bad benchmark has an error with every fragment; the good one was analysed."""
    assert status == 1
    benchmarks = by_name(data)
    assert benchmarks["good"]["status"] == "ok"
    assert benchmarks["good"]["mean"]["verdict"] == "significant"
    assert benchmarks[bad]["status"] == "error"
    assert benchmarks[bad]["mean"] is None and benchmarks[bad]["tests"] is None
    message = " | ".join(benchmarks[bad]["errors"])
    for fragment in fragments:
        assert fragment in message, message
    assert message in " | ".join(data["errors"])
    assert data["overall"]["mean"]["total"] == 1
    return message


def test_missing_sample_file(project):
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,nowhere.txt,good-optimized.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", "nowhere.txt", "not found",
                          "initial")


def test_unreadable_sample_file(project):
    (project.root / "folder.txt").mkdir()
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,good-initial.txt,folder.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", "folder.txt", "directory",
                          "optimized")


def test_binary_sample_file(project):
    (project.root / "binary.txt").write_bytes(b"1.0\n\xff\xfe\x00\x01\n")
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,binary.txt,good-optimized.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", "binary.txt", "not a text file")


@pytest.mark.parametrize("content", ["", "\n\n", "# only a comment\n"])
def test_empty_sample_file(project, content):
    (project.root / "empty.txt").write_text(content)
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,empty.txt,good-optimized.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", "empty.txt", "no values")


@pytest.mark.parametrize(("token", "fragment"), [
    ("abc", "'abc' is not a number"),
    ("1,5", "separate values with white space"),
    ("1_000", "'1_000' is not a number"),
    ("nan", "'nan' is not a finite number"),
    ("NaN", "'NaN' is not a finite number"),
    ("inf", "'inf' is not a finite number"),
    ("-Infinity", "not a finite number"),
    ("1e999", "overflows to infinity"),
    ("0", "0 is not a valid execution time"),
    ("0.0", "must be > 0"),
    ("-2.5", "-2.5 is not a valid execution time"),
])
def test_bad_value_in_sample(project, token, fragment):
    (project.root / "bad.txt").write_text(f"# header comment\n1.0 2.0\n3.0 {token} 4.0\n5.0\n")
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,bad.txt,good-optimized.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "bad.txt:3", fragment)


def test_all_bad_values_of_a_file_are_listed(project):
    (project.root / "bad.txt").write_text("x\n1\ny 2\n3\nz\n")
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,bad.txt,good-optimized.txt\n")
    status, data = project.run(config)
    message = assert_only_bad_fails(status, data, "bad", "bad.txt:1", "bad.txt:3", "bad.txt:5")
    assert message.count("is not a number") == 3


@pytest.mark.parametrize("values", [[1.0], [1.0, 2.0]])
def test_too_few_values(project, values):
    (project.root / "few.txt").write_text(" ".join(map(str, values)))
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,good-initial.txt,few.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", "few.txt",
                          f"only {len(values)} value", "at least 3")


def test_duplicate_benchmark_names(project):
    good = project.good_pair("good")
    config = project.config(HEADER + "# a comment line still counts\n" + good + "\n"
                            + good.replace("good,", "dup,", 1) + "\n"
                            + good.replace("good,", "dup,", 1) + "\n")
    status, data = project.run(config)
    assert status == 1
    dups = [b for b in data["benchmarks"] if b["name"] == "dup"]
    assert [b["status"] for b in dups] == ["ok", "error"]
    assert "config.csv:5" in dups[1]["errors"][0]
    assert "duplicate benchmark name 'dup' (first defined at line 4)" in dups[1]["errors"][0]
    assert by_name(data)["good"]["status"] == "ok"


@pytest.mark.parametrize(("weight", "fragment"), [
    ("abc", "weight 'abc' is not a number"),
    ("0", "weight '0' must be a finite number > 0"),
    ("-1", "must be a finite number > 0"),
    ("inf", "must be a finite number > 0"),
    ("nan", "must be a finite number > 0"),
])
def test_bad_weight(project, weight, fragment):
    bad = project.good_pair("bad")
    config = project.config(HEADER + project.good_pair("good") + "\n" + f"{bad},{weight}\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", fragment)


@pytest.mark.parametrize(("confidence", "fragment"), [
    ("high", "confidence 'high' is not a number"),
    ("95", "write 0.95 for 95%"),
    ("1", "strictly between 0 and 1"),
    ("0", "strictly between 0 and 1"),
    ("-0.5", "strictly between 0 and 1"),
    ("nan", "strictly between 0 and 1"),
])
def test_bad_confidence(project, confidence, fragment):
    bad = project.good_pair("bad")
    config = project.config(HEADER + project.good_pair("good") + "\n" + f"{bad},1,{confidence}\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", fragment)


def test_missing_cells_in_a_row(project):
    config = project.config(HEADER + project.good_pair("good") + "\n" + "bad,,\n"
                            + ",good-initial.txt,good-optimized.txt\n")
    status, data = project.run(config)
    message = assert_only_bad_fails(status, data, "bad", "config.csv:3",
                                    "initial sample file is not given",
                                    "optimized sample file is not given")
    assert message
    unnamed = by_name(data)["(line 4)"]
    assert "config.csv:4: the benchmark name is empty" in unnamed["errors"][0]


def test_too_many_cells_in_a_row(project):
    config = project.config("benchmark,initial,optimized\n" + project.good_pair("good") + "\n"
                            + project.good_pair("bad") + ",1,0.9\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", "config.csv:3", "5 cells but the header has 3")


def test_every_benchmark_bad_exits_2_with_reports(project):
    config = project.config(HEADER + "a,x.txt,y.txt\nb,x.txt,y.txt\n")
    status, data = project.run(config)
    assert status == 2
    assert [b["status"] for b in data["benchmarks"]] == ["error", "error"]
    assert data["overall"]["mean"]["speedup"] is None
    assert data["overall"]["mean"]["total"] == 0


# ---------------------------------------------------------------- configs that cannot be used


def run_fatal(project, config, capsys) -> str:
    status, data = project.run(config)
    assert status == 2
    assert data is None  # nothing written
    assert not (project.root / "report").exists() or not any((project.root / "report").iterdir())
    return capsys.readouterr().err


def test_config_does_not_exist(project, capsys):
    err = run_fatal(project, project.root / "missing.csv", capsys)
    assert "missing.csv: config file not found" in err


def test_config_is_binary(project, capsys):
    config = project.root / "config.csv"
    config.write_bytes(b"benchmark,initial,optimized\n\x89PNG\r\n\x1a\n\xff\xd8")
    err = run_fatal(project, config, capsys)
    assert "config.csv:2: not a CSV text file" in err


def test_config_is_empty(project, capsys):
    err = run_fatal(project, project.config("# nothing here\n"), capsys)
    assert "config.csv: the config is empty" in err


def test_config_has_no_rows(project, capsys):
    err = run_fatal(project, project.config(HEADER), capsys)
    assert "header but no benchmark rows" in err


@pytest.mark.parametrize(("header", "missing"), [
    ("name,initial,optimized", "benchmark"),
    ("benchmark,before,after", "initial, optimized"),
])
def test_config_missing_required_columns(project, capsys, header, missing):
    config = project.config(f"# comment\n{header}\n" + project.good_pair("good") + "\n")
    err = run_fatal(project, config, capsys)
    assert f"config.csv:2: missing required column(s) {missing}" in err


def test_config_with_semicolons(project, capsys):
    config = project.config("benchmark;initial;optimized\na;x.txt;y.txt\n")
    err = run_fatal(project, config, capsys)
    assert "must be comma-separated" in err


def test_config_not_csv_at_all(project, capsys):
    config = project.config("<html><body>not a config</body></html>\n")
    err = run_fatal(project, config, capsys)
    assert "missing required column(s)" in err


@pytest.mark.parametrize("argument", [["--alpha", "0"], ["--alpha", "1.5"], ["--alpha", "x"],
                                      ["--format", "docx"], ["--large-sample", "-1"]])
def test_bad_command_line_exits_2(project, capsys, argument):
    config = project.config(HEADER + project.good_pair("good") + "\n")
    with pytest.raises(SystemExit) as exit_info:
        project.run(config, *argument)
    assert exit_info.value.code == 2


# ---------------------------------------------------------------- degenerate but valid data


def test_identical_values_never_crash_or_emit_nan(project):
    (project.root / "constant.txt").write_text("5 5 5 5 5 5 5 5 5 5\n")
    (project.root / "constant2.txt").write_text("4 4 4 4 4 4 4 4 4 4\n")
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "one,constant.txt,good-optimized.txt\n"
                            + "both,constant.txt,constant2.txt\n"
                            + "same,constant.txt,constant.txt\n")
    status, data = project.run(config)  # strict JSON parse: NaN would not load
    assert status == 0
    benchmarks = by_name(data)
    one = benchmarks["one"]
    assert one["tests"]["shapiro_initial"]["p_value"] is None
    assert one["tests"]["shapiro_initial"]["note"] == "all values are identical"
    assert one["mean"]["verdict"] == "inconclusive"  # small, normality cannot be checked
    assert any("identical" in w for w in one["warnings"])
    both = benchmarks["both"]
    assert both["tests"]["t_test"]["p_value"] is None
    assert both["mean"]["verdict"] == "inconclusive"
    assert both["median"]["verdict"] == "significant"  # 5 > 4 every time
    same = benchmarks["same"]
    assert same["tests"]["wilcoxon"]["p_value"] is None
    assert same["median"]["verdict"] == "inconclusive"
    for benchmark in benchmarks.values():
        for verdict in ("mean", "median"):
            if benchmark[verdict]["verdict"] != "significant":
                assert benchmark["warnings"], benchmark["name"]


# ---------------------------------------------------------------- hierarchical (.csv) samples


@pytest.mark.parametrize(("content", "fragment"), [
    ("build,time\n1,3\n", "bad.csv:1: a .csv sample needs a 'value' column"),
    ("build,value\n1,3\n1,abc\n", "bad.csv:3: 'abc' is not a number"),
    ("build,value\n1,3\n,4\n", "bad.csv:3: a grouping cell is empty"),
    ("build,value\n1,3\n1,4,5\n", "bad.csv:3: 3 cells, the header has 2"),
    ("build,value\n1,-3\n", "bad.csv:2: -3 is not a valid execution time"),
    ("build,invocation,value\n1,1,3\n1,2,4\n2,1,5\n", "has only 2 builds"),
])
def test_bad_hierarchical_sample(project, content, fragment):
    (project.root / "bad.csv").write_text(content)
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + "bad,bad.csv,good-optimized.txt\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", fragment)


def test_hierarchical_sample_is_analysed_on_top_level_means(project):
    rows = ["build,invocation,value"] + [f"{b},{i},{10 + b * 0.1 + i * 0.01:.3f}"
                                         for b in range(1, 6) for i in range(1, 4)]
    (project.root / "h.csv").write_text("\n".join(rows) + "\n")
    config = project.config(HEADER + "h,h.csv,good-optimized.txt\n"
                            + project.good_pair("good") + "\n")
    project.sample("good-optimized.txt", 8.0)
    status, data = project.run(config)
    assert status == 0
    benchmark = by_name(data)["h"]
    assert benchmark["initial"]["n"] == 5  # five builds
    # One value per (build, invocation): the invocation column only numbers the measurements.
    assert benchmark["effect_size"]["variance_components"]["initial"]["levels"] == [
        "invocation", "build"]


_TOOLS = Path(__file__).parents[1] / "data" / "tools"


def _damaged_go(text: str) -> str:
    return text.replace("79.41 ns/op", "7x.41 ns/op", 1)


def _damaged_catch2(text: str) -> str:
    """The mean of 'sort 1000' in the third run (line 88) is not a number."""
    lines = text.splitlines(keepends=True)
    lines[87] = re.sub(r'<mean value="[^"]*"', '<mean value="3.5x"', lines[87])
    return "".join(lines)


def _damaged_json(path: str, change) -> str:
    document = json.loads((_TOOLS / path).read_text())
    change(document)
    return json.dumps(document, indent=1)


@pytest.mark.parametrize(("damaged", "make", "intact", "name", "fragments"), [
    ("old.txt", lambda: _damaged_go((_TOOLS / "go/initial.txt").read_text()),
     "go/optimized.txt", "#BenchmarkBucket", ("old.txt:13", "'7x.41' 'ns/op' is not a number")),
    ("ptb.json", lambda: _damaged_json(
        "pytest-benchmark/initial.json",
        lambda d: d["benchmarks"][3]["stats"]["data"].__setitem__(4, -1)),
     "pytest-benchmark/optimized.json", "#test_join",
     ("ptb.json", "'test_join', round 5", "not a valid execution time")),
    ("asv.json", lambda: _damaged_json(
        "asv/initial.json",
        lambda d: d["results"]["benchmarks.time_join"][11][0].__setitem__(3, "x")),
     "asv/optimized.json", "#benchmarks.time_join",
     ("asv.json", "'benchmarks.time_join', sample 4", "is not a number")),
    ("sample.json", lambda: (_TOOLS / "criterion/criterion/sort/100/base/sample.json")
     .read_text()[:300], "criterion/criterion/sort/100/new/sample.json", "",
     ("sample.json", "not valid JSON", "truncated")),
    ("catch2.xml", lambda: _damaged_catch2((_TOOLS / "catch2/initial.xml").read_text()),
     "catch2/optimized.xml", "#sort 1000",
     ("catch2.xml:88", "'sort 1000', run 3", "mean '3.5x' ns is not a number")),
])
def test_damaged_files_of_the_newer_tools(project, damaged, make, intact, name, fragments):
    """A damaged copy of a real file of Go, pytest-benchmark, asv, Criterion and Catch2 is an
    error of its benchmark, located, and the other benchmark is analysed."""
    (project.root / damaged).write_text(make())
    shutil.copy(_TOOLS / intact, project.root / f"intact-{(_TOOLS / intact).name}")
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + f"bad,{damaged}{name},intact-{(_TOOLS / intact).name}{name}\n")
    status, data = project.run(config)
    assert_only_bad_fails(status, data, "bad", *fragments)

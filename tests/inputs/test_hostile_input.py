"""Hostile input through the real command line: damaged copies of the real tool files, configs,
plain and hierarchical samples with wrong types, huge or deep values, control characters,
lone surrogates, bombs and path tricks. Every case must give the bad benchmark a located error
(file and line, or file and benchmark/run), keep analysing the good benchmark beside it
(results.json has it with status ok), exit with status 1, and quote the input only briefly."""

from __future__ import annotations

import errno
import gzip
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from speeduptest.inputs import readers

TOOLS = Path(__file__).parents[1] / "data" / "tools"
HEADER = "benchmark,initial,optimized,weight,confidence\n"
#: results.json stays small whatever the input holds.
MAX_RESULTS = 200_000


def by_name(data: dict) -> dict[str, dict]:
    return {b["name"]: b for b in data["benchmarks"]}


def run_beside_good(project, row: str) -> tuple[int, dict]:
    """Run a config of one good benchmark (line 2) and ``row`` (line 3)."""
    config = project.config(HEADER + project.good_pair("good") + "\n" + row + "\n")
    status, data = project.run(config)
    assert data is not None, "results.json was not written"
    assert len(json.dumps(data)) < MAX_RESULTS
    return status, data


def assert_bad_alone(status: int, data: dict, *fragments: str, bad: str = "bad") -> str:
    """The bad benchmark has a short error holding every fragment; the good one was analysed."""
    assert status == 1
    benchmarks = by_name(data)
    assert benchmarks["good"]["status"] == "ok"
    assert benchmarks["good"]["mean"]["verdict"] == "significant"
    assert benchmarks[bad]["status"] == "error"
    message = " | ".join(benchmarks[bad]["errors"])
    for fragment in fragments:
        assert fragment in message, message
    assert all(len(error) < 1000 for error in benchmarks[bad]["errors"]), message
    return message


# ---------------------------------------------------------------- damaged tool files

Change = Callable[[object], object]


def _set(path: tuple, value) -> Change:
    """A change of a JSON document: the node at ``path`` becomes ``value``."""
    def change(document):
        node = document
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        return document
    return change


def _raw(path: tuple, text: str) -> Change:
    """The node at ``path`` becomes raw JSON text (numbers json.dumps cannot write)."""
    def change(document):
        return json.dumps(_set(path, "@@RAW@@")(document)).replace('"@@RAW@@"', text)
    return change


def _first_run_with_values(document) -> int:
    return next(i for i, run in enumerate(document["benchmarks"][0]["runs"]) if "values" in run)


def _pyperf_values(value) -> Change:
    def change(document):
        run = _first_run_with_values(document)
        document["benchmarks"][0]["runs"][run]["values"][0] = value
        return document
    return change


def _pyperf_run(key: str, value) -> Change:
    def change(document):
        document["benchmarks"][0]["runs"][_first_run_with_values(document)][key] = value
        return document
    return change


def _gb_first(key: str, value) -> Change:
    """Set ``key`` in the first repetition of BM_Sort/256."""
    return _set(("benchmarks", 0, key), value)


def _gb_failed(document):
    document["benchmarks"][0].update(error_occurred=True, error_message="x" * 1_000_000)
    return document


def _histogram(pairs) -> Change:
    """JMH in sample-time mode, with one iteration's histogram replaced by ``pairs``."""
    def change(document):
        entry = document[0]
        entry["mode"] = "sample"
        metric = entry["primaryMetric"]
        metric["scoreUnit"] = "ns/op"
        forks = metric.pop("rawData")
        metric["rawDataHistogram"] = [[[[score, 2]] for score in fork] for fork in forks]
        metric["rawDataHistogram"][0][0] = pairs
        return document
    return change


HYPERFINE = "hyperfine/initial.json"
PYPERF = "pyperf/initial.json"
GOOGLE = "google-benchmark/initial.json"
JMH_AVGT = "jmh/average-time.json"
JMH_THRPT = "jmh/throughput.json"
AVGT_NAME = "cn.crane4j.core.benchmark.PropertyOperatorBenchmarkTest.directGet"
THRPT_NAME = "net.fisenko.utils.ids.benchmark.IdGeneratorsBenchmark.snowflake"

JSON_CASES = [
    # hyperfine
    (HYPERFINE, "compress", _set(("results", 0, "exit_codes"), 1),
     ["command 'compress': 'exit_codes' 1 is not a list"]),
    (HYPERFINE, "compress", _set(("results", 0, "exit_codes"), ["0"] * 10),
     ["command 'compress', run 1: exit code '0' is not a whole number"]),
    (HYPERFINE, "compress", _set(("results", 0, "times"), "fast"),
     ["command 'compress': no 'times' list"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 2), "0.5"),
     ["command 'compress', run 3: '0.5' is not a number"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 0), True),
     ["command 'compress', run 1: true is not a number"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 1), None),
     ["run 2: null is not a number"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 0), [[0.1, [0.2]]]),
     ["run 1: [[0.1, [0.2]]] is not a number"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 0), {"s": 0.1}),
     ["run 1: {'s': 0.1} is not a number"]),
    (HYPERFINE, "compress", _raw(("results", 0, "times", 0), "9" * 400),
     ["run 1: (a number of about 400 digits) is too large for a float"]),
    (HYPERFINE, "compress", _raw(("results", 0, "times", 0), "1" * 5000),
     ["bad.json#compress: is not read: it holds a number with too many digits"]),
    (HYPERFINE, "compress", _raw(("results", 0, "times", 0), "NaN"),
     ["run 1: nan is not a finite number"]),
    (HYPERFINE, "compress", _raw(("results", 0, "times", 0), "-Infinity"),
     ["run 1: -inf is not a finite number"]),
    (HYPERFINE, "compress", _raw(("results", 0, "times", 0), "1e400"),
     ["run 1: inf is not a finite number"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 0), -0.5),
     ["run 1: -0.5 is not a valid execution time"]),
    (HYPERFINE, "compress", _raw(("results", 0, "times"), "[" * 100_000 + "]" * 100_000),
     ["bad.json#compress: is not read: its JSON is nested too deeply"]),
    (HYPERFINE, "compress", _set(("results", 0), "compress"),
     ["has no benchmark 'compress'", "'command #1'"]),
    (HYPERFINE, "compress", _set(("results", 0, "times", 0), "x" * 10_000_000),
     ["run 1: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (10,000,000 characters) is not a "
      "number"]),
    # pyperf
    (PYPERF, "sort", _pyperf_run("warmups", 3), ["benchmark 'sort', run 2: 'warmups' 3 is not"]),
    (PYPERF, "sort", _pyperf_run("values", 3), ["benchmark 'sort', run 2: 'values' 3 is not"]),
    (PYPERF, "sort", _pyperf_values("1.0"), ["benchmark 'sort', run 2, value 1: '1.0' is not"]),
    (PYPERF, "sort", _pyperf_values(False), ["run 2, value 1: false is not a number"]),
    (PYPERF, "sort", _pyperf_values(0), ["run 2, value 1: 0 is not a valid execution time"]),
    (PYPERF, "sort", _set(("benchmarks", 0, "runs", 1), "run"),
     ["benchmark 'sort', run 2: not a JSON object"]),
    (PYPERF, "sort", _set(("metadata",), "second"),
     ["bad.json#sort: the file's metadata 'second' is not a JSON object"]),
    (PYPERF, "sort", _set(("metadata",), [{"unit": "second"}]),
     ["the file's metadata [{'unit': 'second'}] is not a JSON object"]),
    (PYPERF, "sort", _set(("benchmarks", 0, "metadata", "unit"), 5),
     ["benchmark 'sort': unit 5 is not a unit of time"]),
    (PYPERF, "sort", _set(("benchmarks", 0, "metadata", "unit"), "byte"),
     ["benchmark 'sort': unit 'byte' is not a unit of time"]),
    (PYPERF, "sort", _set(("benchmarks", 0), "sort"),
     ["has no benchmark 'sort'", "'benchmark #1'"]),
    (PYPERF, "sort", _set(("benchmarks", 0, "runs"), {"values": [1.0]}),
     ["benchmark 'sort': no 'runs' list"]),
    # Google Benchmark
    (GOOGLE, "BM_Sort/256", _gb_first("real_time", "12"),
     ["benchmark 'BM_Sort/256', repetition 1: real_time '12' is not a number"]),
    (GOOGLE, "BM_Sort/256", _gb_first("real_time", None),
     ["repetition 1: real_time null is not a number"]),
    (GOOGLE, "BM_Sort/256", _gb_first("time_unit", 7),
     ["benchmark 'BM_Sort/256', repetition 1: unit 7 is not a unit of time"]),
    (GOOGLE, "BM_Sort/256", lambda d: _gb_first("real_time", 1e305)(_gb_first("time_unit", "h")(d)),
     ["repetition 1: real_time 1e+305 overflows once converted to seconds"]),
    (GOOGLE, "BM_Sort/256", _gb_first("run_name", ["BM_Sort/256"]),
     ["entry #1 of 'benchmarks': its name ['BM_Sort/256'] is not a string"]),
    (GOOGLE, "BM_Sort/256", _set(("benchmarks", 0), "BM_Sort/256"),
     ["entry #1 of 'benchmarks' is not a JSON object"]),
    (GOOGLE, "BM_Sort/256", _gb_failed,
     ["benchmark 'BM_Sort/256' failed in repetition 1: 'xxxxxxxxx", "(1,000,000 characters)"]),
    # JMH
    (JMH_AVGT, AVGT_NAME, _set((0, "primaryMetric", "rawData", 0, 0), "1.2"),
     [f"benchmark '{AVGT_NAME}', fork 1, iteration 1: '1.2' is not a number"]),
    (JMH_AVGT, AVGT_NAME, _set((0, "primaryMetric", "rawData"), [1.0, 2.0]),
     [f"benchmark '{AVGT_NAME}': rawData is not a list of forks"]),
    (JMH_AVGT, AVGT_NAME, _set((0, "primaryMetric", "scoreUnit"), None),
     ["score unit null is neither a time per operation nor operations per time"]),
    (JMH_AVGT, AVGT_NAME, _set((0, "primaryMetric", "rawData", 1), None),
     ["rawData is not a list of forks"]),
    (JMH_AVGT, AVGT_NAME, _histogram([[1.5, "2"]]),
     ["fork 1, iteration 1: rawDataHistogram count '2' is not a whole number"]),
    (JMH_AVGT, AVGT_NAME, _histogram([[1.5, 0]]),
     ["fork 1, iteration 1: rawDataHistogram its counts are all 0"]),
    (JMH_AVGT, AVGT_NAME, _histogram("1.5"),
     ["rawDataHistogram '1.5' is not a list of [value, count] pairs"]),
    (JMH_AVGT, AVGT_NAME, _histogram([[1.5, 10**400]]),
     ["rawDataHistogram count (a number of about 400 digits) is not a whole number"]),
    (JMH_THRPT, THRPT_NAME, _set((0, "primaryMetric", "rawData", 0, 0), 1e-320),
     [f"benchmark '{THRPT_NAME}', fork 1, iteration 1: 1e-320 overflows once converted"]),
    (JMH_THRPT, THRPT_NAME, _set((0, "params"), {"size": [[["deep"]]]}),
     [f"has no benchmark '{THRPT_NAME}'", "[size=[[['deep'"]),
]


@pytest.mark.parametrize(("relative", "name", "change", "fragments"), JSON_CASES,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(JSON_CASES)])
def test_damaged_tool_file(project, relative, name, change, fragments):
    document = change(json.loads((TOOLS / relative).read_text()))
    text = document if isinstance(document, str) else json.dumps(document)
    (project.root / "bad.json").write_text(text, encoding="utf-8")
    shutil.copy(TOOLS / relative, project.root / "same.json")
    status, data = run_beside_good(project, f"bad,bad.json#{name},same.json#{name}")
    assert_bad_alone(status, data, "config.csv:3: initial sample file", f"bad.json#{name}: ",
                     *fragments)


def _rebench(project, edit: Callable[[list[str]], None]) -> None:
    lines = (TOOLS / "rebench/benchmark.data").read_text().splitlines()
    edit(lines)
    (project.root / "bad.data").write_text("\n".join(lines) + "\n")
    shutil.copy(TOOLS / "rebench/benchmark.data", project.root / "same.data")


def _meta(prefix: str, text: str) -> Callable[[list[str]], None]:
    """Replace the details of ``# benchmark: 1=`` or ``# run_id: 1=`` (initial/Loop)."""
    def edit(lines):
        index = next(i for i, line in enumerate(lines) if line.startswith(prefix))
        lines[index] = prefix + text
    return edit


def _loop_cell(column: int, value: str) -> Callable[[list[str]], None]:
    """Set a cell of the third measurement of initial/Loop."""
    def edit(lines):
        indices = [i for i, line in enumerate(lines) if "\tLoop\tinitial\t" in line]
        cells = lines[indices[2]].split("\t")
        cells[column] = value
        lines[indices[2]] = "\t".join(cells)
    return edit


def _loop_line(lines: list[str], cell: int) -> int:
    return [i for i, line in enumerate(lines) if "\tLoop\tinitial\t" in line][cell] + 1


REBENCH_CASES = [
    (_meta("# run_id: 1=", "not json"), "the details of run '1' are not valid JSON"),
    (_meta("# run_id: 1=", "[1, 2]"), "the details of run '1' [1, 2] are not a JSON object"),
    (_meta("# run_id: 1=", "[" * 100_000), "the details of run '1' are nested too deeply"),
    (_meta("# benchmark: 1=", '"Loop"'), "the details of benchmark '1' 'Loop' are not a JSON"),
    (_meta("# run_id: 1=", '{"benchmark_id": 1, "runDetails": "fast"}'),
     "runDetails 'fast' of run '1' is not a JSON object"),
    (_meta("# run_id: 1=", '{"benchmark_id": 1, "runDetails": {"warmup": "1"}}'),
     "warmup '1' of run '1' is not a whole number"),
    (_meta("# run_id: 1=", '{"benchmark_id": 1, "runDetails": {"warmup": true}}'),
     "warmup true of run '1' is not a whole number"),
    (_loop_cell(2, "1_000"), "'1_000' is not a number"),
    (_loop_cell(2, "nan"), "'nan' is not a finite number"),
    (_loop_cell(2, "\x1b[2J"), "'\\x1b[2J' is not a number"),
    (_loop_cell(3, "parsecs"), "unit 'parsecs' is not a unit of time"),
    (_loop_cell(0, "1_0"), "invocation '1_0' and iteration '3' must be whole numbers"),
    (_loop_cell(1, "٣"), "invocation '1' and iteration '٣' must be whole numbers"),
    (_loop_cell(0, "9" * 5000), "'999999999999999999999999999999999999999…' (5,000 characters)"),
]


@pytest.mark.parametrize(("edit", "fragment"), REBENCH_CASES)
def test_damaged_rebench_file(project, edit, fragment):
    _rebench(project, edit)
    status, data = run_beside_good(project, "bad,bad.data#initial/Loop,same.data#optimized/Loop")
    message = assert_bad_alone(status, data, "benchmark 'Loop' (initial)", fragment)
    assert "bad.data:" in message  # located at a line


def test_rebench_value_out_of_range_once_in_seconds(project):
    _rebench(project, lambda lines: (_loop_cell(2, "1e307")(lines), _loop_cell(3, "h")(lines)))
    status, data = run_beside_good(project, "bad,bad.data#initial/Loop,same.data#optimized/Loop")
    lines = (project.root / "bad.data").read_text().splitlines()
    assert_bad_alone(status, data, f"bad.data:{_loop_line(lines, 2)}: benchmark 'Loop' (initial)",
                     "'1e307' 'h' is out of range in seconds")


LONG_HEADER = "benchmark,version,unit,invocation,value\n"


def _long_rows(value: str = "10.5", unit: str = "ms") -> str:
    rows = [f"Bounce,{v},ms,{i},{10 + i / 10 + (v == 'new')}" for v in ("old", "new")
            for i in range(1, 6)]
    rows[2] = f"Bounce,old,{unit},3,{value}"
    return "\n".join(rows) + "\n"


@pytest.mark.parametrize(("text", "fragment"), [
    (LONG_HEADER + _long_rows("1_000"), "bad.csv:4: benchmark 'Bounce' (old): '1_000' is not"),
    (LONG_HEADER + _long_rows("0x10"), "bad.csv:4: benchmark 'Bounce' (old): '0x10' is not a"),
    (LONG_HEADER + _long_rows(unit="furlong"), "bad.csv:4: benchmark 'Bounce' (old): unit "
     "'furlong' is not a unit of time"),
    (LONG_HEADER + _long_rows("1e308", unit="h"), "'1e308' 'h' is out of range in seconds"),
    ("benchmark,version,value,value\n" + "Bounce,old,1,2\n" * 5,
     "bad.csv#old/Bounce: line 1: column(s) 'value' appear more than once in the header"),
    ("benchmark,version,,value\n" + "Bounce,old,1,2\n" * 5,
     "bad.csv#old/Bounce: line 1: column 3 of the header has no name"),
    (LONG_HEADER + _long_rows().replace("Bounce,old,ms,2", '"Bounce,old,ms,2'),
     "bad.csv:3: not valid CSV"),
    (LONG_HEADER + _long_rows().replace("Bounce,old,ms,2,", "Bounce,old,ms,2,,,"),
     "bad.csv:3: 7 cells, the header has 5"),
])
def test_damaged_long_csv(project, text, fragment):
    (project.root / "bad.csv").write_text(text)
    status, data = run_beside_good(project, "bad,bad.csv#old/Bounce,bad.csv#new/Bounce")
    assert_bad_alone(status, data, fragment)


def test_long_csv_of_many_bad_lines_lists_three(project):
    (project.root / "bad.csv").write_text(LONG_HEADER + _long_rows() + "x,y\n" * 100_000)
    (project.root / "same.csv").write_text(LONG_HEADER + _long_rows())
    status, data = run_beside_good(project, "bad,bad.csv#old/Bounce,same.csv#new/Bounce")
    message = assert_bad_alone(status, data, "bad.csv:12: 2 cells, the header has 5",
                               "and 99997 more problems")
    assert message.count("2 cells") == 3


# ---------------------------------------------------------------- names: visible replacements


@pytest.mark.parametrize(("raw", "shown"), [
    ("comp\ud800ress", "comp\ufffdress"),      # a lone surrogate from a JSON escape
    ("comp\x1b[31mress", "comp\ufffd[31mress"),  # a terminal escape
    ("comp\u202eress", "comp\ufffdress"),      # a bidirectional override
    ("comp\tress", "comp ress"),               # a tab
])
def test_names_with_bad_characters_are_replaced_visibly(project, raw, shown):
    document = json.loads((TOOLS / HYPERFINE).read_text())
    document["results"][0]["command"] = raw
    (project.root / "h.json").write_text(json.dumps(document))  # \ud800 escaped by dumps
    status, data = run_beside_good(project, f"named,h.json#{shown},h.json#sort")
    assert status == 0
    named = by_name(data)["named"]
    assert named["status"] == "ok"
    assert any("held control characters or invalid text" in w and shown in w
               for w in named["warnings"]), named["warnings"]
    assert by_name(data)["good"]["status"] == "ok"


def test_names_equal_once_replaced_cannot_be_told_apart(project):
    document = json.loads((TOOLS / HYPERFINE).read_text())
    document["results"][0]["command"] = "x\x01"
    document["results"][1]["command"] = "x\x02"
    (project.root / "bad.json").write_text(json.dumps(document))
    status, data = run_beside_good(project, "bad,bad.json#x\ufffd,bad.json#checksum")
    assert_bad_alone(status, data, "config.csv:3", "2 benchmarks are named 'x\ufffd' once "
                     "their control characters are replaced")


def test_control_characters_in_a_config_name_are_replaced(project):
    status, data = run_beside_good(project, project.good_pair("be\x07ll"))
    assert status == 0
    assert by_name(data)["be\ufffdll"]["status"] == "ok"
    assert any("config.csv:3: the benchmark name held control characters" in w
               for w in data["warnings"])


# ---------------------------------------------------------------- sizes: bombs and floods


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(readers, "MAX_BYTES", 1 << 20)


def test_gzip_bomb_is_stopped_at_the_limit(project, small_limit):
    (project.root / "bomb.txt.gz").write_bytes(gzip.compress(b"1.0\n" * (1 << 20)))
    status, data = run_beside_good(project, "bad,bomb.txt.gz,good-optimized.txt")
    assert_bad_alone(status, data, "config.csv:3: initial sample file",
                     "bomb.txt.gz: decompresses to more than 1 MiB: not read")


def test_gzip_just_below_the_limit_is_read(project, small_limit):
    (project.root / "fits.txt.gz").write_bytes(gzip.compress(b"10.0 10.5 9.5 \n" * 60_000))
    status, data = run_beside_good(project, "fits,fits.txt.gz,good-optimized.txt")
    assert status == 0 and by_name(data)["fits"]["initial"]["n"] == 180_000


def test_plain_file_over_the_limit_is_not_read(project, small_limit):
    (project.root / "big.txt").write_bytes(b"1.0\n" * (1 << 19))
    status, data = run_beside_good(project, "bad,big.txt,good-optimized.txt")
    assert_bad_alone(status, data, "config.csv:3: initial sample file",
                     "big.txt: is larger than 1 MiB: not read")


@pytest.mark.parametrize(("tail", "fragment"), [
    (b"garbage", "data after the end of the compressed stream"),
    (b"\x00" * 16, None),  # zero padding after a member is allowed
    (gzip.compress(b"10.1 9.9\n"), None),  # a second member is read too
])
def test_gzip_members_and_trailing_data(project, tail, fragment):
    packed = gzip.compress(b"10.0 10.5 9.5 10.2 9.8\n") + tail
    (project.root / "s.txt.gz").write_bytes(packed)
    status, data = run_beside_good(project, "bad,s.txt.gz,good-optimized.txt")
    if fragment is None:
        assert status == 0
    else:
        assert_bad_alone(status, data, "config.csv:3: initial sample file", "s.txt.gz: ",
                         fragment)


def test_damaged_gzip_is_an_error(project):
    packed = bytearray(gzip.compress(b"10.0 10.5 9.5 10.2 9.8\n" * 100))
    packed[30] ^= 0xFF
    (project.root / "s.txt.gz").write_bytes(bytes(packed))
    status, data = run_beside_good(project, "bad,s.txt.gz,good-optimized.txt")
    assert_bad_alone(status, data, "config.csv:3: initial sample file",
                     "s.txt.gz: cannot be decompressed")


def test_a_huge_token_is_quoted_short(project):
    (project.root / "bad.txt").write_text("10 11 12\n" + "7" * 10_000_000 + "z\n")
    status, data = run_beside_good(project, "bad,bad.txt,good-optimized.txt")
    assert_bad_alone(status, data, "bad.txt:2: '777777777777777777777777777777777777777…' "
                     "(10,000,001 characters) is not a number")


def test_many_bad_tokens_list_three(project):
    (project.root / "bad.txt").write_text("10 11 12\n" + "abc " * 10_000 + "\n")
    status, data = run_beside_good(project, "bad,bad.txt,good-optimized.txt")
    message = assert_bad_alone(status, data, "bad.txt:2: 'abc' is not a number",
                               "and 9997 more bad values")
    assert message.count("'abc'") == 3


def test_a_key_file_outside_the_config_folder_is_not_copied(project):
    outside = project.root / "secret"
    outside.mkdir()
    key_lines = ["-----BEGIN OPENSSH PRIVATE KEY-----"] + [
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW" + str(i)
        for i in range(6)] + ["-----END OPENSSH PRIVATE KEY-----"]
    (outside / "id_ed25519").write_text("\n".join(key_lines) + "\n")
    inside = project.root / "suite"
    inside.mkdir()
    project.root = inside  # the config and its samples live in suite/
    status, data = run_beside_good(project, "bad,../secret/id_ed25519,good-optimized.txt")
    message = assert_bad_alone(status, data, "id_ed25519:1:", "is not a number")
    text = json.dumps(data)
    for line in key_lines:
        assert line not in text
    assert message.count("is not a number") == 3


# ---------------------------------------------------------------- plain and hierarchical samples


@pytest.mark.parametrize(("token", "fragment"), [
    ("1_000", "'1_000' is not a number"),
    ("٣", "'٣' is not a number"),          # a digit of another script
    ("１", "'１' is not a number"),          # a full-width digit
    ("0x1A", "'0x1A' is not a number"),
    ("1e-400", "1e-400 is too small for a float (it rounds to 0"),
    ("\x1b[2J", "'\\x1b[2J' is not a number"),
    ("a\x7fb", "'a\\x7fb' is not a number"),
    ("9" * 400, "'999999999999999999999999999999999999999…' (400 characters) overflows to "
     "infinity"),
])
def test_bad_token_in_a_plain_sample(project, token, fragment):
    (project.root / "bad.txt").write_text(f"10 11\n12 {token} 13\n", encoding="utf-8")
    status, data = run_beside_good(project, "bad,bad.txt,good-optimized.txt")
    assert_bad_alone(status, data, f"bad.txt:2: {fragment}")


def test_line_numbers_count_only_real_line_breaks(project):
    # A form feed or U+2028 is not a line break for an editor: the bad value is on line 2.
    (project.root / "bad.txt").write_text("10 \x0c 11 \u2028 12\n13 x 14\n", encoding="utf-8")
    status, data = run_beside_good(project, "bad,bad.txt,good-optimized.txt")
    assert_bad_alone(status, data, "bad.txt:2: 'x' is not a number")


@pytest.mark.parametrize(("content", "fragment"), [
    ("build,value,value\n1,3,4\n", "bad.csv:1: column(s) 'value' appear more than once"),
    ("build,build,value\n1,1,3\n", "bad.csv:1: column(s) 'build' appear more than once"),
    (",value\n1,3\n", "bad.csv:1: column 1 of the header has no name"),
    ("build,value\n1,3\n1,1_000\n", "bad.csv:3: '1_000' is not a number"),
    ('build,value\n1,3\n"2,4\n3,5\n', "bad.csv:3: not valid CSV"),
    ("build,value\n" + "1,x\n" * 50, "and 47 more problems"),
    ('"unclosed,value\n1,3\n', "bad.csv:1: not valid CSV"),
    ("b\x1bd,value\n" + "".join(f"{i},{i}\n" for i in range(1, 6)) + "x,0\n",
     "bad.csv:7: 0 is not a valid execution time"),
])
def test_bad_hierarchical_sample(project, content, fragment):
    (project.root / "bad.csv").write_text(content)
    status, data = run_beside_good(project, "bad,bad.csv,good-optimized.txt")
    assert_bad_alone(status, data, fragment)


# ---------------------------------------------------------------- configs


def test_unclosed_quote_does_not_swallow_the_next_row(project):
    row = project.good_pair("next")
    config = project.config(HEADER + project.good_pair("good") + "\n"
                            + 'bad,"good-initial.txt,good-optimized.txt\n' + row + "\n")
    status, data = project.run(config)
    assert status == 1
    benchmarks = by_name(data)
    assert benchmarks["next"]["status"] == "ok"
    assert benchmarks["good"]["status"] == "ok"
    (error,) = benchmarks["(line 3)"]["errors"]
    assert error.endswith("config.csv:3: this row is not valid CSV (unexpected end of data)")


@pytest.mark.parametrize(("cells", "fragment"), [
    ("1_000,", "weight '1_000' is not a number"),
    ("١,", "weight '١' is not a number"),
    (" 0x10 ,", "weight '0x10' is not a number"),
    ("1e999,", "weight '1e999' must be a finite number > 0"),
    ("-inf,", "weight '-inf' must be a finite number > 0"),
    ("1,0_95", "confidence '0_95' is not a number"),
    ("1,.9_5", "confidence '.9_5' is not a number"),
    ("1,Infinity", "confidence 'Infinity' must be strictly between 0 and 1"),
    ("9" * 10_000 + ",", "weight '999999999999999999999999999999999999999…' (10,000 characters) "
     "must be a finite number > 0"),
    ("w" * 10_000 + ",", "weight 'wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww…' (10,000 characters) "
     "is not a number"),
])
def test_bad_weight_or_confidence(project, cells, fragment):
    status, data = run_beside_good(project, project.good_pair("bad") + "," + cells)
    assert_bad_alone(status, data, f"config.csv:3: {fragment}")


def test_symbolic_link_loop(project):
    os.symlink("loop.txt", project.root / "loop.txt")
    status, data = run_beside_good(project, "bad,loop.txt,good-optimized.txt")
    assert_bad_alone(status, data, "config.csv:3: initial sample file",
                     f"loop.txt: cannot be read ({os.strerror(errno.ELOOP)})")


@pytest.mark.parametrize("reference", [
    "d/" + "x#y" * 3000,                      # too long, with '#' to split at
    "x" * 300 + ".txt",                        # one name longer than a file system allows
    "good-initial.txt#" + "n" * 5000,          # a file, then a long name: no such benchmark
    "#" * 5000,
])
def test_over_long_paths(project, reference):
    status, data = run_beside_good(project, f"bad,{reference},good-optimized.txt")
    message = assert_bad_alone(status, data, "config.csv:3: initial sample file")
    assert ("too long" in message or "not found" in message or "single sample" in message
            or "is a directory" in message), message


def test_long_duplicate_name_is_quoted_short(project):
    row = "n" * 50_000 + ",good-initial.txt,good-optimized.txt"
    status, data = run_beside_good(project, row + "\n" + row)
    assert status == 1
    (error,) = [e for b in data["benchmarks"] for e in b["errors"]]
    assert error.endswith(f"config.csv:4: duplicate benchmark name '{'n' * 79}…' (50,000 "
                          "characters) (first defined at line 3)")


def test_config_header_is_quoted_short(project, capsys):
    config = project.config("x" * 100_000 + ",initial\n" + project.good_pair("good") + "\n")
    status, data = project.run(config)
    assert status == 2 and data is None
    err = capsys.readouterr().err
    assert "config.csv:1: missing required column(s) benchmark, optimized" in err
    assert "(100,000 characters)" in err and len(err) < 2000


def test_config_header_that_is_not_csv(project, capsys):
    config = project.config('benchmark,"initial,optimized\n' + project.good_pair("good") + "\n")
    status, _ = project.run(config)
    assert status == 2
    assert "config.csv:1: the header is not valid CSV" in capsys.readouterr().err


def test_nothing_usable_exits_2_with_every_error_located(project):
    (project.root / "deep.json").write_text("[" * 100_000)
    config = project.config(HEADER + "a,deep.json,deep.json\n" + 'b,"x,y\n' + "c,x,y,1_0\n")
    status, data = project.run(config)
    assert status == 2
    errors = [e for b in data["benchmarks"] for e in b["errors"]]
    assert any("config.csv:2:" in e and "nested too deeply" in e for e in errors)
    assert any("config.csv:3:" in e and "not valid CSV" in e for e in errors)
    assert any("config.csv:4:" in e and "weight '1_0'" in e for e in errors)

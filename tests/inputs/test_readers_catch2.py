"""The reader of Catch2 XML reports, one per run of the test program, on the runs that the real
Catch2 wrote in tests/data/tools/catch2 (make.sh: 10 runs of each of two builds, fibonacci a
recursion, then a loop), on the folder of its --out files, and on damaged or edited copies."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import main
from speeduptest.inputs.readers import parse_source, read_source, select

CATCH2 = Path(__file__).parents[1] / "data" / "tools" / "catch2"
INITIAL, OPTIMIZED, OUT = CATCH2 / "initial.xml", CATCH2 / "optimized.xml", CATCH2 / "optimized-out"
NAMES = ["fibonacci 15", "fibonacci 20", "sort 1000"]


def read(text: str, name: str = "runs.xml"):
    return parse_source(text.encode(), name, name)


def reports(path: Path) -> list[str]:
    """The reports of a file, each from its XML declaration (split independently of the
    reader)."""
    text = path.read_text()
    starts = [match.start() for match in re.finditer(r"<\?xml ", text)]
    return [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]


def means(path: Path) -> dict[str, list[str]]:
    """Each benchmark's <mean value> as written, run by run, parsed with ElementTree."""
    found: dict[str, list[str]] = {}
    for report in reports(path):
        root = ElementTree.fromstring(report.encode())
        for result in root.iter("BenchmarkResults"):
            found.setdefault(result.get("name"), []).append(result.find("mean").get("value"))
    return found


def line_of(text: str, fragment: str, occurrence: int = 1) -> int:
    """The line (from 1) of the occurrence-th line holding ``fragment``."""
    hits = [number for number, line in enumerate(text.splitlines(), start=1) if fragment in line]
    return hits[occurrence - 1]


def compare(tmp_path: Path, *arguments: str) -> dict:
    status = main(["compare", *arguments, "-o", str(tmp_path / "out"), "--format", "json",
                   "--bootstrap", "1000", "--quiet"])
    assert status in (0, 1)
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    return {b["name"]: b for b in data["benchmarks"]}


@pytest.mark.parametrize("path", [INITIAL, OPTIMIZED])
def test_every_run_is_the_mean_catch2_wrote_in_seconds(path):
    written = means(path)
    assert list(written) == NAMES and all(len(values) == 10 for values in written.values())
    source = read_source(path, path.name)
    assert source.format == "Catch2" and source.problem is None and source.notices == ()
    assert [sample.name for sample in source.samples] == NAMES
    for sample in source.samples:
        assert sample.ok, sample.errors
        assert sample.unit == "s" and sample.data.level_names == ("run",)
        # Run by run, in the order of the file: the nanoseconds written, in seconds.
        np.testing.assert_array_equal(sample.data.root,
                                      [float(value) * 1e-9 for value in written[sample.name]])
        assert sample.notes[0].startswith("10 runs of the test program, each a mean over 100 "
                                          "samples of ")
        assert sample.notes[1] == f"test program 'catch2-{path.stem}', Catch2 2.x (<Catch>)"


def test_the_folder_of_out_files_is_the_same_runs():
    """optimized.xml is the concatenation of optimized-out/run-NN.xml (make.sh)."""
    folder = read_source(OUT, "optimized-out")
    joined = read_source(OPTIMIZED)
    assert folder.format == "Catch2" and folder.problem is None
    for one, other in zip(folder.samples, joined.samples, strict=True):
        assert one.name == other.name
        np.testing.assert_array_equal(one.data.root, other.data.root)


def test_a_folder_is_read_in_the_order_of_its_names_numbers_as_numbers(tmp_path):
    runs = reports(INITIAL)
    folder = tmp_path / "runs"
    folder.mkdir()
    for number, report in enumerate(runs, start=1):
        (folder / f"run-{number}.xml").write_text(report)  # run-10 sorts before run-2 as text
    (folder / "notes.txt").write_text("not read\n")
    (folder / "junit.xml").write_text('<?xml version="1.0"?>\n<testsuites/>\n')
    source = read_source(folder, "runs")
    for sample, expected in zip(source.samples, read_source(INITIAL).samples, strict=True):
        np.testing.assert_array_equal(sample.data.root, expected.data.root)
    (notice,) = source.notices
    assert notice.code == "catch2-files-left-out" and "junit.xml (not a Catch2 report)" in \
        notice.message


def test_runs_in_another_order_are_read_in_that_order():
    runs = reports(INITIAL)
    source = read("".join(reversed(runs)))
    for sample, expected in zip(source.samples, read_source(INITIAL).samples, strict=True):
        np.testing.assert_array_equal(sample.data.root, expected.data.root[::-1])


def test_compare_calls_the_real_change_faster(tmp_path):
    """The optimized build computes fibonacci by a loop instead of the recursion: tens to
    thousands of times faster, and called so; sort 1000 is the same code."""
    results = compare(tmp_path, str(INITIAL), str(OPTIMIZED))
    for name in ("fibonacci 15", "fibonacci 20"):
        benchmark = results[name]
        assert benchmark["status"] == "ok" and benchmark["unit"] == "s"
        assert benchmark["change"]["call"] == "faster"
        assert benchmark["change"]["interval"]["low"] > 10
        assert benchmark["initial"]["n"] == benchmark["optimized"]["n"] == 10
    assert results["sort 1000"]["change"]["call"] != "faster"


def test_compare_a_file_with_a_folder_of_out_files(tmp_path):
    results = compare(tmp_path, str(INITIAL), str(OUT))
    assert results["fibonacci 20"]["change"]["call"] == "faster"


@pytest.mark.parametrize("path", [INITIAL, OPTIMIZED])
def test_the_same_builds_runs_split_in_two_call_nothing(tmp_path, path):
    """A/A: the odd and the even runs of one build (interleaved, as a drift of the machine
    then falls on both halves alike) are called neither faster nor slower."""
    runs = reports(path)
    (tmp_path / "odd.xml").write_text("".join(runs[0::2]))
    (tmp_path / "even.xml").write_text("".join(runs[1::2]))
    results = compare(tmp_path, str(tmp_path / "odd.xml"), str(tmp_path / "even.xml"))
    assert sorted(results) == NAMES
    for benchmark in results.values():
        assert benchmark["status"] == "ok" and benchmark["initial"]["n"] == 5
        assert benchmark["change"]["call"] in ("unchanged", "uncertain"), benchmark["name"]


# ---------------------------------------------------------------- too few runs


def test_a_single_run_says_what_to_run(tmp_path, capsys):
    one = tmp_path / "one.xml"
    one.write_text(reports(INITIAL)[0])
    source = read_source(one, "one.xml")
    assert source.samples == ()
    assert source.problem.startswith("line 5: holds a single run of the Catch2 test program: ")
    assert "('fibonacci 15', 'fibonacci 20', 'sort 1000')" in source.problem
    assert ("for i in $(seq 10); do ./catch2-initial --reporter xml --benchmark-no-analysis; "
            "done > one.xml") in source.problem
    status = main(["compare", str(one), str(OPTIMIZED), "-o", str(tmp_path / "out"),
                   "--quiet"])
    assert status == 2
    assert f"{one}: line 5: holds a single run" in capsys.readouterr().err


def test_two_runs_are_too_few_and_a_folder_says_so_with_its_file(tmp_path):
    runs = reports(INITIAL)
    assert "holds 2 runs of the Catch2 test program" in read("".join(runs[:2])).problem
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "run-01.xml").write_text(runs[0])
    source = read_source(folder, "out")
    assert source.problem.startswith("run-01.xml, line 5: holds a single run")
    assert "--out DIR/run-$i.xml" in source.problem


# ---------------------------------------------------------------- runs that went wrong


def test_a_benchmark_that_failed_in_a_run_is_an_error_at_its_line():
    text = INITIAL.read_text()
    number = line_of(text, 'name="fibonacci 20"', 4) + 2  # its <mean> in run 4
    lines = text.splitlines(keepends=True)
    lines[number - 1] = '        <failed message="std::bad_alloc"/>\n'
    source = read("".join(lines))
    failed = select(source, "fibonacci 20")
    assert not failed.ok
    assert str(failed.errors[0]) == (
        f"runs.xml:{number}: benchmark 'fibonacci 20', run 4: failed ('std::bad_alloc'): its "
        "results are not used")
    assert select(source, "fibonacci 15").ok and select(source, "sort 1000").ok


def test_a_benchmark_missing_from_some_runs_is_a_warning_and_analysed_on_the_others():
    runs = reports(INITIAL)
    for index in (1, 4):  # runs 2 and 5: the test case "sorting" left out (a test filter)
        runs[index] = re.sub(r'    <TestCase name="sorting".*?</TestCase>\n', "", runs[index],
                             flags=re.S)
    source = read("".join(runs))
    sort = select(source, "sort 1000")
    assert sort.ok and sort.data.root.size == 8
    (notice,) = sort.notices
    assert notice.code == "catch2-missing-runs"
    assert notice.message == ("runs.xml: benchmark 'sort 1000' has no result in runs 2 and 5 "
                              "of 10: it was analysed on the other 8 runs.")
    assert select(source, "fibonacci 15").notices == ()


def test_runs_with_different_numbers_of_samples_are_a_warning_at_the_line():
    text = INITIAL.read_text()
    number = line_of(text, 'name="fibonacci 15"', 10)
    lines = text.splitlines(keepends=True)
    lines[number - 1] = lines[number - 1].replace('samples="100"', 'samples="50"')
    source = read("".join(lines))
    sample = select(source, "fibonacci 15")
    assert sample.ok and sample.data.root.size == 10
    (notice,) = sample.notices
    assert notice.code == "catch2-samples-differ"
    assert notice.message.startswith(
        f"runs.xml:{number}: benchmark 'fibonacci 15' took '100' samples in 9 runs but '50' "
        "in run 10 (first: run 10)")
    assert "--benchmark-samples" in notice.advice
    assert sample.notes[0].startswith("10 runs of the test program, each a mean over 100/50 "
                                      "samples")


def test_damaged_xml_in_a_run_is_an_error_of_the_benchmarks_it_lost():
    text = INITIAL.read_text()
    number = line_of(text, 'name="fibonacci 20"', 3) + 3  # inside its result, run 3
    lines = text.splitlines(keepends=True)
    lines[number - 1] = lines[number - 1].replace('value="0"', 'value=0"', 1)
    source = read("".join(lines))
    fibonacci = select(source, "fibonacci 20")
    assert str(fibonacci.errors[0]).startswith(
        f"runs.xml:{number - 3}: benchmark 'fibonacci 20', run 3: the report of run 3 is "
        f"damaged at line {number}, column ")
    assert "(not well-formed (invalid token)) inside this benchmark's result: not read" in \
        fibonacci.errors[0].message
    sort = select(source, "sort 1000")  # after the damage: run 3 holds no result of it
    assert str(sort.errors[0]).startswith(f"runs.xml:{number}: benchmark 'sort 1000': the "
                                          "report of run 3 is damaged at line ")
    assert "the rest of run 3 is not read" in sort.errors[0].message
    assert select(source, "fibonacci 15").ok  # read before the damage
    assert select(source, "fibonacci 15").data.root.size == 10


def test_a_last_run_cut_is_a_warning_of_the_benchmarks_it_had_not_finished():
    text = INITIAL.read_text()
    cut = text[: text.rindex('name="fibonacci 20"') + 40]  # the loop interrupted in run 10
    source = read(cut)
    assert select(source, "fibonacci 15").data.root.size == 10
    for name in ("fibonacci 20", "sort 1000"):
        sample = select(source, name)
        assert sample.ok and sample.data.root.size == 9
        (notice,) = sample.notices
        assert notice.code == "catch2-last-run-cut"
        assert notice.message.startswith(f"runs.xml:{len(cut.splitlines())}: the file ends "
                                         "inside run 10")


def test_a_run_cut_and_followed_by_another_is_damage():
    """The program stopped in the middle of run 3 (it crashed), and run 4 went on."""
    runs = reports(INITIAL)
    runs[2] = runs[2][: runs[2].index('name="sort 1000"')]
    source = read("".join(runs))
    sort = select(source, "sort 1000")
    assert not sort.ok
    assert "the report of run 3 is damaged" in sort.errors[0].message
    assert "(unclosed token), before any result of this benchmark" in sort.errors[0].message
    assert select(source, "fibonacci 20").ok


def test_text_after_a_report_is_a_warning_when_every_result_was_read():
    runs = reports(INITIAL)
    runs[4] += "terminate called after throwing an instance of 'std::runtime_error'\n"
    source = read("".join(runs))
    assert all(sample.ok and sample.data.root.size == 10 for sample in source.samples)
    (notice,) = source.notices
    assert notice.code == "catch2-report-damaged"
    assert "the report of run 5 is damaged" in notice.message
    assert "(junk after document element), after its last benchmark result: its results " \
           "were read" in notice.message


def test_a_benchmark_reported_twice_in_a_run_is_an_error():
    runs = reports(INITIAL)
    runs = [run.replace('name="fibonacci 15"', 'name="fibonacci 20"') for run in runs]
    source = read("".join(runs))
    assert [sample.name for sample in source.samples] == ["fibonacci 20", "sort 1000"]
    twice = select(source, "fibonacci 20")
    assert "run 1 reports it 2 times (lines 5, 11)" in twice.errors[0].message
    assert select(source, "sort 1000").ok


def test_names_shared_by_two_test_cases_are_qualified_by_them():
    runs = [run.replace('name="sort 1000"', 'name="fibonacci 15"') for run in reports(INITIAL)]
    names = [sample.name for sample in read("".join(runs)).samples]
    assert names == ["fibonacci 15 [fibonacci]", "fibonacci 20", "fibonacci 15 [sorting]"]


def test_a_mean_that_is_not_a_time():
    text = INITIAL.read_text()
    number = line_of(text, 'name="sort 1000"', 2) + 2
    lines = text.splitlines(keepends=True)
    lines[number - 1] = re.sub(r'<mean value="[^"]*"', '<mean value="0"', lines[number - 1])
    sample = select(read("".join(lines)), "sort 1000")
    assert str(sample.errors[0]).startswith(
        f"runs.xml:{number}: benchmark 'sort 1000', run 2: mean '0' ns is not a valid time")


# ---------------------------------------------------------------- Catch2 3.x, safety


def _report_3x(mean: str, version: str = "3.5.2") -> str:
    """A report as Catch2 3.x's XML reporter writes it (XmlReporter::testRunStarting:
    name, rng-seed, xml-format-version, catch2-version)."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<Catch2TestRun name="tests" rng-seed="42" xml-format-version="3" '
        f'catch2-version="{version}">\n'
        '  <TestCase name="hashing" tags="[!benchmark]" filename="t.cpp" line="3">\n'
        '    <BenchmarkResults name="crc32" samples="100" resamples="100000" iterations="9" '
        'clockResolution="20.1" estimatedDuration="1.2e+06">\n'
        '      <!-- All values in nano seconds -->\n'
        f'      <mean value="{mean}" lowerBound="{mean}" upperBound="{mean}" ci="0.95"/>\n'
        '      <standardDeviation value="1" lowerBound="1" upperBound="1" ci="0.95"/>\n'
        '      <outliers variance="0" lowMild="0" lowSevere="0" highMild="0" highSevere="0"/>\n'
        '    </BenchmarkResults>\n'
        '    <OverallResult success="true" skips="0"/>\n'
        '  </TestCase>\n'
        '  <OverallResults successes="0" failures="0" expectedFailures="0" skips="0"/>\n'
        '  <OverallResultsCases successes="1" failures="0" expectedFailures="0" skips="0"/>\n'
        '</Catch2TestRun>\n')


def test_catch2_3x_reports_and_their_version():
    written = ("1250.5", "1300", "1.2e+03")
    source = read("".join(_report_3x(mean) for mean in written))
    (sample,) = source.samples
    np.testing.assert_array_equal(sample.data.root, [float(mean) * 1e-9 for mean in written])
    assert sample.notes == ("3 runs of the test program, each a mean over 100 samples of 9 "
                            "iterations (Catch2's <mean>, read in seconds)",
                            "test program 'tests', Catch2 3.5.2")


def test_catch2_truncated_and_without_benchmarks():
    text = INITIAL.read_text()
    cut = read(text[:400])
    assert cut.format == "Catch2" and cut.problem.startswith("is not valid XML")
    assert "was it truncated?" in cut.problem
    bare = read('<?xml version="1.0"?>\n<Catch name="t"><Group name="t"/></Catch>\n')
    assert "without benchmark results" in bare.problem


def test_catch2_entities_are_not_expanded():
    bomb = ('<?xml version="1.0"?>\n<!DOCTYPE Catch [<!ENTITY a "aaaaaaaaaa">'
            '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<Catch name="&b;"/>\n')
    source = read(bomb)
    assert source.problem == "is not read: entity declarations are not read"
    many = read(INITIAL.read_text() + bomb)  # in any of the reports
    assert many.problem == "is not read: entity declarations are not read"


def test_a_folder_copied_with_a_damaged_file_names_that_file(tmp_path):
    folder = tmp_path / "out"
    shutil.copytree(OUT, folder)
    path = folder / "run-04.xml"
    text = path.read_text()
    path.write_text(text.replace('<mean value="', '<mean value="x', 1))
    source = read_source(folder, "out")
    broken = select(source, "fibonacci 15")
    line = line_of(text, "<mean value=")
    assert str(broken.errors[0]).startswith(
        f"out/run-04.xml:{line}: benchmark 'fibonacci 15', run 4: mean 'x")
    assert select(source, "sort 1000").ok


def test_a_folders_file_names_that_are_not_text_are_shown_replaced(tmp_path):
    """A run file whose name is not valid UTF-8 (bytes of another encoding) and holds a
    failed benchmark, and another left out: errors, warnings and results.json show the names
    with U+FFFD, and the run ends normally."""
    runs = reports(INITIAL)
    folder = tmp_path / "runs"
    folder.mkdir()
    for number, report in enumerate(runs, start=1):
        if number == 3:
            report = report.replace("<mean ", '<failed message="boom"/>\n<mean ', 1)
        name = f"run-{number}.xml" if number != 3 else "run-3-\udcff.xml"
        (folder / name).write_text(report)
    (folder / "x-\udcfe.xml").write_text('<?xml version="1.0"?>\n<testsuites/>\n')
    status = main(["compare", str(folder), str(OPTIMIZED), "-o", str(tmp_path / "out"),
                   "--format", "json", "--quiet"])
    assert status == 1  # (the failed benchmark is an error; the others are analysed)
    text = (tmp_path / "out" / "results.json").read_text(encoding="utf-8")
    assert "run-3-\ufffd.xml" in text and "x-\ufffd.xml" in text

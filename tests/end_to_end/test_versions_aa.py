"""A/A with several versions, on real data: one pyperf build (40 worker processes,
tests/data/tools/pyperf-aa) dealt into three "versions" must call nothing."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

from speeduptest.cli import main

SAME_BUILD = Path(__file__).parents[1] / "data" / "tools" / "pyperf-aa" / "same-build.json.gz"


def _deal(folder: Path, parts: int) -> list[Path]:
    """The build's measured processes dealt in turn into ``parts`` pyperf files."""
    document = json.loads(gzip.decompress(SAME_BUILD.read_bytes()))
    files = []
    for part in range(parts):
        split = copy.deepcopy(document)
        for benchmark in split["benchmarks"]:
            runs = benchmark["runs"]
            calibration = [run for run in runs if not run.get("values")]
            measured = [run for run in runs if run.get("values")]
            benchmark["runs"] = calibration + measured[part::parts]
        files.append(folder / f"part{part}.json")
        files[-1].write_text(json.dumps(split))
    return files


def test_three_parts_of_one_build_call_nothing(tmp_path, capsys):
    files = _deal(tmp_path, 3)
    status = main(["compare", *map(str, files), "-o", str(tmp_path / "out"), "--format", "json",
                   "--fail-on-slowdown"])
    assert status == 0
    answer = capsys.readouterr().out.splitlines()[0]
    assert answer.startswith("No version is shown faster than the others: of 3 versions")
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert all(version["best"] for version in results["versions"])
    calls = [benchmark["change"]["call"] for comparison in results["comparisons"]
             for benchmark in comparison["benchmarks"]]
    assert len(calls) == 40 and not {"faster", "slower"} & set(calls)

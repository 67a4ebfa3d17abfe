"""The renderers only read the results.

The per-benchmark classes of the results model are not frozen dataclasses (a frozen one sets
each field through ``object.__setattr__``: 0.2-0.3 s of a 10,000-benchmark run, see
:mod:`speeduptest.model.results`), so nothing in the language stops a renderer from changing them.
This test does: the results pickle to the same bytes before and after every format and the
terminal summary are rendered from them.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from speeduptest.analysis.run import analyse_config
from speeduptest.model.results import Settings
from speeduptest.output import Streamed
from speeduptest.render.formats import render_formats
from speeduptest.render.terminal import render_terminal

ROOT = Path(__file__).resolve().parents[2]
EVERY_FORMAT = ("json", "html", "pdf", "md", "csv", "tex")


def _rendered(files: dict) -> None:
    for content in files.values():
        if isinstance(content, Streamed):
            b"".join(content)


def test_rendering_two_versions_changes_nothing_in_the_results(tmp_path: Path) -> None:
    config = tmp_path / "c.csv"
    rows = (ROOT / "config.example.csv").read_text().replace("samples/", str(ROOT / "samples")
                                                             + "/")
    # A benchmark with an error besides the analysed ones.
    rows += "broken,missing.txt,samples/none.txt,1,\n"
    config.write_text(rows)
    results = analyse_config(config, Settings(bootstrap=200))
    before = pickle.dumps(results)
    render_terminal(results, EVERY_FORMAT)
    _rendered(render_formats(results, EVERY_FORMAT, workers=1))
    assert pickle.dumps(results) == before


def test_rendering_several_versions_changes_nothing_in_the_results() -> None:
    results = analyse_config(ROOT / "samples" / "compiler-flags" / "flags.csv",
                             Settings(bootstrap=200), baseline="O0", workers=1)
    before = pickle.dumps(results)
    render_terminal(results, EVERY_FORMAT)
    _rendered(render_formats(results, EVERY_FORMAT, workers=1))
    assert pickle.dumps(results) == before

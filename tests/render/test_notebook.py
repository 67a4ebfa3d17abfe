"""A result in a notebook: ``_repr_html_`` shows the answer sentence and the forest plot, for
two versions and for several. The model imports no renderer: the package sets its display hook
(speeduptest/model/display.py), and the renderer is imported when a result is first shown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from markupsafe import escape

from speeduptest import analyse_config
from speeduptest.model import display
from speeduptest.model.settings import Settings
from speeduptest.render.formatting import answer_sentence
from speeduptest.render.html import notebook_html

ROOT = Path(__file__).resolve().parents[2]
QUICK = Settings(bootstrap=200)


@pytest.fixture(scope="module")
def two():
    return analyse_config(ROOT / "config.example.csv", QUICK)


@pytest.fixture(scope="module")
def three():
    return analyse_config(ROOT / "samples" / "compiler-flags" / "flags.csv", QUICK,
                          baseline="O0")


@pytest.mark.parametrize("which", ["two", "three"])
def test_repr_html_shows_answer_and_forest(request, which):
    results = request.getfixturevalue(which)
    shown = results._repr_html_()
    assert shown == notebook_html(results)
    assert str(escape(answer_sentence(results))) in shown
    assert shown.count('<img class="forest" src="data:image/svg+xml') >= 1
    assert "<script" not in shown and "<style" not in shown  # nothing leaks into the notebook


def test_ipython_displays_a_result_as_html(two):
    formatters = pytest.importorskip("IPython.core.formatters")
    data, _ = formatters.DisplayFormatter().format(two)
    assert data["text/html"] == notebook_html(two)


def test_without_a_renderer_a_result_shows_as_text(two, monkeypatch):
    monkeypatch.setattr(display, "renderer", None)
    assert two._repr_html_() is None  # (IPython then shows its repr)


def test_the_model_imports_no_renderer():
    """Importing the model, and the package that wires the hook, loads no renderer."""
    code = ("import sys, speeduptest.model.results, speeduptest.model.versions\n"
            "from speeduptest.model import display\n"
            "assert display.renderer is not None\n"
            "print(sorted(m for m in sys.modules if m.startswith('speeduptest.render')))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout
    assert shown.strip() == "[]"

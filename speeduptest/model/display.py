"""How a results object shows itself in a notebook: ``Results._repr_html_`` (Jupyter calls
it) hands the object to the function set here.

The model draws nothing and imports no renderer (pyproject.toml's import contracts): it only
holds this hook. The package itself (``speeduptest/__init__.py``, above every layer) sets it to
the HTML renderer's ``speeduptest.render.html.notebook_html``, imported when a result is
first shown, so that any result, however it was made, shows its answer and forest plot."""

from __future__ import annotations

from collections.abc import Callable

#: The function that turns a result into HTML; None: nothing set it (the notebook then shows
#: the plain ``repr``).
renderer: Callable[[object], str] | None = None


def html(results: object) -> str | None:
    """The HTML of ``results`` for a notebook, or None when no renderer is set."""
    return None if renderer is None else renderer(results)

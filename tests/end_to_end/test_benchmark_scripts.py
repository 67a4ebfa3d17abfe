"""The measurement scripts of benchmarks/ still import: a name the package no longer has
breaks them at once, not when someone next needs their figures. (Each runs its work only as
a script.)"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.parametrize("script", sorted(path.stem for path in BENCHMARKS.glob("*.py")))
def test_the_script_imports(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # (they import each other's helpers)
    try:
        module = importlib.import_module(script)
    except ModuleNotFoundError as error:
        # A tool a script draws or measures with (matplotlib) that the tests do not install;
        # a name missing from the package is an ImportError of speeduptest's, not this.
        root = (error.name or "").split(".")[0]
        if root == "speeduptest" or (BENCHMARKS / f"{root}.py").exists():
            raise
        pytest.skip(f"{script}.py needs {root}, not installed")
    assert callable(getattr(module, "main", None)), f"{script}.py has no main()"
    sys.modules.pop(script, None)

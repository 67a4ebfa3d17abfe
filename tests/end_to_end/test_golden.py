"""Golden outputs: results.json and summary.md of the bundled samples are byte for byte what
tests/fixtures/generate_golden.py froze (neither holds a date or a command line). A refactor
keeps them; an intended change regenerates them, with the reason in its commit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
from generate_golden import CASES, FILES, GOLDEN, outputs  # noqa: E402


@pytest.mark.parametrize("name", sorted(CASES))
def test_outputs_are_the_golden_ones(name):
    written = outputs(CASES[name])
    for file in FILES:
        assert written[file] == (GOLDEN / name / file).read_bytes(), f"{name}/{file}"

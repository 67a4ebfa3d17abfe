"""Two versions keep today's outputs: results.json of two-version configs and compares is
byte for byte what the code wrote before several versions existed (issue 12).

The fixtures were written by tests/fixtures/generate_two_version_results.py from the code
before the change; results.json holds no date or command line, so nothing is masked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES))
from generate_two_version_results import CASES, results_json  # noqa: E402


@pytest.mark.parametrize("name", sorted(CASES))
def test_two_version_results_json_is_unchanged(name):
    expected = (FIXTURES / "two_versions" / f"{name}.json").read_bytes()
    assert results_json(CASES[name]) == expected

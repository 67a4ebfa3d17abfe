from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from speeduptest.cli import main

# CI (.ci/run) runs the property tests on Hypothesis's fixed examples, so that whether it
# passes does not depend on the draw; a run on one's own machine explores new examples each
# time (and Hypothesis keeps the failing ones it finds in .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def write_values(path: Path, values) -> str:
    path.write_text("\n".join(repr(float(v)) for v in values) + "\n", encoding="utf-8")
    return path.name


class Project:
    """A folder with a config and sample files, and a way to run speeduptest on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.rng = np.random.default_rng(42)

    def sample(self, name: str, mean: float = 10.0, n: int = 12, sd: float = 0.5) -> str:
        return write_values(self.root / name, self.rng.normal(mean, sd, n).round(6))

    def good_pair(self, name: str) -> str:
        initial = self.sample(f"{name}-initial.txt", 10.0)
        optimized = self.sample(f"{name}-optimized.txt", 8.0)
        return f"{name},{initial},{optimized}"

    def config(self, text: str, name: str = "config.csv") -> Path:
        path = self.root / name
        path.write_text(text, encoding="utf-8")
        return path

    def run(self, config: Path, *extra: str) -> tuple[int, dict | None]:
        out = self.root / "report"
        status = main([str(config), "-o", str(out), "--format", "json", "--quiet", *extra])
        results = out / "results.json"
        data = json.loads(results.read_text(encoding="utf-8")) if results.exists() else None
        return status, data


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path)

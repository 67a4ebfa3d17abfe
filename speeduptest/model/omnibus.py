"""The results of the omnibus and post-hoc tests of several versions: they live beside the
code that makes them (:mod:`speeduptest.stats.omnibus`); the model holds them
(:class:`speeduptest.model.versions.VersionsBenchmark`) and the renderers read them from here.

A module of its own: importing it loads scipy's optimizer, which a run of two versions does
not need (:mod:`speeduptest.model.versions` imports these types for type checking only).
"""

from __future__ import annotations

from speeduptest.stats.omnibus import (
    AnovaResult,
    BartlettResult,
    KruskalResult,
    LeveneResult,
    OmnibusChoice,
    PairComparison,
    PostHocResult,
    VersionTests,
)

__all__ = ["AnovaResult", "BartlettResult", "KruskalResult", "LeveneResult", "OmnibusChoice",
           "PairComparison", "PostHocResult", "VersionTests"]

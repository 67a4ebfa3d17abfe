"""Number formats shared by every renderer (no statistics here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import BenchmarkResult


def speedup(value: float | None) -> str:
    """A ratio with four significant digits, e.g. 1.057×; — when missing."""
    return "—" if value is None else f"{value:.4g}×"


@dataclass(frozen=True)
class TimeScale:
    """How to show times read in seconds: in the SI unit that keeps them readable."""

    factor: float  # multiply a time in seconds by this
    label: str  # "ms"; "" for numbers whose unit the input did not state


UNSTATED = TimeScale(1.0, "")
#: (seconds per unit, display scale); the last one also serves below a nanosecond.
_PREFIXES = ((1.0, TimeScale(1.0, "s")), (1e-3, TimeScale(1e3, "ms")),
             (1e-6, TimeScale(1e6, "µs")), (1e-9, TimeScale(1e9, "ns")))


def time_scale(unit: str | None, magnitude: float) -> TimeScale:
    """The display unit for times of about ``magnitude`` (in ``unit``: "s", or None)."""
    if unit is None:
        return UNSTATED
    return next((scale for size, scale in _PREFIXES if magnitude >= size), _PREFIXES[-1][1])


def benchmark_scale(benchmark: BenchmarkResult) -> TimeScale:
    """The display unit of a benchmark's times: the smaller mean shows as 1 or more."""
    analysis = benchmark.analysis
    if analysis is None:
        return UNSTATED
    return time_scale(benchmark.unit, min(analysis.initial.mean, analysis.optimized.mean))

"""Time units as benchmark tools write them, and their size in seconds.

Every reader converts the times it reads to seconds, so that the two sides of a benchmark are
in the same unit whatever each tool wrote (Google Benchmark picks a unit per benchmark, JMH
per run).
"""

from __future__ import annotations

#: The unit of every time read from a file that states its unit.
SECONDS = "s"

_SECONDS_PER_UNIT = {
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "msec": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3,
    "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "usec": 1e-6, "microsecond": 1e-6,
    "microseconds": 1e-6,
    "ns": 1e-9, "nsec": 1e-9, "nanosecond": 1e-9, "nanoseconds": 1e-9,
    "min": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hour": 3600.0, "hours": 3600.0,
}


def seconds_per(unit: str) -> float | None:
    """How many seconds one ``unit`` is; None when ``unit`` is not a unit of time."""
    return _SECONDS_PER_UNIT.get(unit.strip().lower().replace("μ", "µ"))


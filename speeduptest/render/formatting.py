"""Number formats shared by every renderer (no statistics here)."""

from __future__ import annotations


def speedup(value: float | None) -> str:
    """A ratio with four significant digits, e.g. 1.057×; — when missing."""
    return "—" if value is None else f"{value:.4g}×"

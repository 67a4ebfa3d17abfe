"""Moved to :mod:`speeduptest.floats` (shared by the analysis, the runtime and the renderers;
nothing of the statistics uses it). Kept for ``speeduptest.runtime.bootstrap_child``'s import
until it reads :mod:`speeduptest.floats`; then this module goes."""

from speeduptest.floats import complement, special_values_expected

__all__ = ["complement", "special_values_expected"]

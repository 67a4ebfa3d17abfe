"""speeduptest: is the optimized version really faster? The Speedup-Test protocol, with reports."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("speeduptest")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

from .protocol import analyse_pair

__all__ = ["__version__", "analyse_pair"]

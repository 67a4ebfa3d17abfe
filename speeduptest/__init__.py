"""speeduptest: is the optimized version really faster? The Speedup-Test protocol, with reports.

Python API: ``analyse_pair(initial, optimized, alpha=…)`` for one pair of arrays,
``analyse_config(path, Settings(…))`` for a whole config and ``compare_files(initial,
optimized, Settings(…))`` for two result files of a benchmark tool; ``Results`` has
``to_dataframe()``.
"""

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it from here)

__all__ = ["Results", "Settings", "__version__", "analyse_config", "analyse_pair",
           "compare_files"]

#: Where each name of the API lives: imported on first use (PEP 562), so that the command
#: line answers --help without loading scipy and statsmodels.
_API = {"analyse_config": "analysis.benchmarks", "compare_files": "analysis.compare",
        "Results": "model.results", "Settings": "model.settings",
        "analyse_pair": "stats.protocol"}


def __getattr__(name: str):
    if name in _API:
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

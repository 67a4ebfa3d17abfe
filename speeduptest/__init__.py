"""speeduptest: is the optimized version really faster? The Speedup-Test protocol, with reports.

Python API: ``analyse_pair(initial, optimized, alpha=…)`` for one pair of arrays,
``analyse_config(path, Settings(…))`` for a whole config and ``compare_files(initial,
optimized, Settings(…))`` for two result files of a benchmark tool; ``Results`` has
``to_dataframe()``. In steps: ``read_experiment(path)`` or ``compared_experiment([a, b, …])``
give the ``Experiment`` (versions × benchmarks, as read), and ``analyse(experiment,
Settings(…))`` its results.
"""

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it from here)

__all__ = ["Experiment", "Results", "Settings", "__version__", "analyse", "analyse_config",
           "analyse_pair", "compare_files", "compared_experiment", "read_experiment"]

#: Where each name of the API lives: imported on first use (PEP 562), so that the command
#: line answers --help without loading scipy and statsmodels.
_API = {"analyse_config": "analysis.run", "compare_files": "analysis.run",
        "Results": "model.results", "Settings": "model.settings",
        "analyse_pair": "stats.protocol", "analyse": "analysis.run",
        "Experiment": "inputs.experiment", "read_experiment": "inputs.forms",
        "compared_experiment": "inputs.compare"}


def __getattr__(name: str):
    if name in _API:
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

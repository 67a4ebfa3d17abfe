"""speeduptest: is the optimized version really faster? The Speedup-Test protocol, with reports.

Python API: ``analyse_pair(initial, optimized, alpha=…)`` for one pair of arrays,
``analyse_config(path, Settings(…))`` for a whole config and ``compare_files(initial,
optimized, Settings(…))`` for two result files of a benchmark tool. ``Results`` is the same
for any number of versions: a ``Comparison`` of each version with the baseline
(``results.pair`` for two versions), and ``to_dataframe()``. In steps:
``read_experiment(path)`` or ``compared_experiment([a, b, …])`` give the ``Experiment``
(versions × benchmarks, as read), ``with_transform(experiment, step)`` adds a step of one's
own that changes its samples' values (after the run's: the unit conversion and the
measurement checks), and ``analyse(experiment, Settings(…))`` gives its results. In a
notebook a result shows its answer and forest plot.
"""

__version__ = "0.1.0"  # the package's version (pyproject.toml reads it from here)

__all__ = ["Comparison", "Experiment", "Results", "Settings", "__version__", "analyse",
           "analyse_config",
           "analyse_pair", "compare_files", "compared_experiment", "read_experiment",
           "with_transform"]

#: Where each name of the API lives: imported on first use (PEP 562), so that the command
#: line answers --help without loading scipy and statsmodels.
_API = {"analyse_config": "analysis.run", "compare_files": "analysis.run",
        "Results": "model.results", "Comparison": "model.results",
        "Settings": "model.settings",
        "analyse_pair": "stats.protocol", "analyse": "analysis.run",
        "Experiment": "inputs.experiment", "read_experiment": "inputs.forms",
        "compared_experiment": "inputs.compare", "with_transform": "analysis.transforms"}


def __getattr__(name: str):
    if name in _API:
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _notebook_html(results) -> str:
    """A result in a notebook (its ``_repr_html_``): the model's display hook, set here, above
    the layers, to the HTML renderer, imported as a result is first shown (the model imports
    no renderer; see speeduptest/model/display.py)."""
    from importlib import import_module

    return import_module(".render.html", __name__).notebook_html(results)


def _wire_display() -> None:
    from speeduptest.model import display

    display.renderer = _notebook_html


_wire_display()

"""speeduptest: is the optimized version really faster? The Speedup-Test protocol, with reports.

Python API: ``analyse_pair(initial, optimized, alpha=…)`` for one pair of arrays,
``analyse_config(path, Settings(…))`` for a whole config and ``compare_files(initial,
optimized, Settings(…))`` for two result files of a benchmark tool; ``Results`` has
``to_dataframe()``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("speeduptest")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.1.0"

from .analysis import analyse_config
from .compare import compare_files
from .model import Results, Settings
from .protocol import analyse_pair

__all__ = ["Results", "Settings", "__version__", "analyse_config", "analyse_pair",
           "compare_files"]

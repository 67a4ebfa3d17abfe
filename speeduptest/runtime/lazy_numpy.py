"""numpy's submodules that scipy imports for nothing, loaded only when used.

``scipy.special`` imports scipy's array-API layer, which copies numpy's namespace
(``array_api_compat``'s ``clone_module``: ``hasattr(numpy, name)`` for every name), and so
imports every submodule numpy loads on first access, ``numpy.f2py`` (with charset_normalizer
and the evaluation of f2py's rules) and ``numpy.testing`` (unittest, email, subprocess) among
them, which the command never uses: ~60 ms of a run's start (``python -X importtime``).

:func:`defer_numpy_submodules` puts a :class:`importlib.util.LazyLoader` module for each of
them into ``sys.modules`` and onto ``numpy`` before scipy loads: the copy then takes the
module object without touching it, and the module runs its code in full at its first
attribute access (an ``import numpy.testing`` statement is one: the import system reads the
module's ``__spec__``). The command's entry point calls it once, before anything imports
scipy; this is the package's one change to another package's import state.
"""

from __future__ import annotations

import importlib.util
import sys

#: numpy's submodules that ``clone_module`` loads and the command does not use (each one's
#: import after numpy's, fresh process: f2py 45 ms, testing 30 ms; ~60 ms together). The
#: others are used or cheap: numpy.ma (8 ms) is used by numpy itself (np.median, np.unique).
DEFERRED = ("f2py", "testing")


def defer_numpy_submodules(names: tuple[str, ...] = DEFERRED) -> None:
    """Make each of numpy's submodules ``names`` that is not loaded yet a module loaded at
    its first use (10,000 pairs: the run's imports ~60 ms shorter)."""
    import numpy

    for short in names:
        name = f"numpy.{short}"
        if name in sys.modules or short in vars(numpy):
            continue  # loaded already (or being loaded): nothing to defer
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            continue
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        # An attribute of numpy, so that numpy's __getattr__ (which imports it) is not asked.
        setattr(numpy, short, module)

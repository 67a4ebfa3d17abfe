"""numpy's submodules deferred before scipy loads (speeduptest.runtime.lazy_numpy): not run by
scipy's import, run in full at their first use. In a fresh interpreter, since the test
process has loaded them already (and the deferral then leaves them alone)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]

SCRIPT = """
import sys
from speeduptest.runtime.lazy_numpy import DEFERRED, defer_numpy_submodules
defer_numpy_submodules()
import numpy, scipy.special
assert "numpy.f2py.crackfortran" not in sys.modules, "f2py ran"
assert "numpy.testing._private.utils" not in sys.modules, "testing ran"
for short in DEFERRED:
    assert getattr(numpy, short) is sys.modules["numpy." + short]
from numpy.testing import assert_array_equal  # an import is a use: the module runs in full
assert_array_equal(numpy.arange(3), [0, 1, 2])
assert "numpy.testing._private.utils" in sys.modules
assert callable(numpy.f2py.run_main) and "numpy.f2py.crackfortran" in sys.modules
defer_numpy_submodules()  # loaded: left alone
assert type(sys.modules["numpy.testing"]) is type(sys)
print("ok")
"""


def test_deferred_until_used_then_whole() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_command_defers_them(tmp_path: Path) -> None:
    script = ("import sys\nsys.argv = ['speeduptest', '--help']\n"
              "from speeduptest.command import entry_point\n"
              "try:\n    entry_point()\nexcept SystemExit:\n    pass\n"
              "import numpy\nprint(type(numpy.__dict__['testing']).__name__)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT)}, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "_LazyModule"

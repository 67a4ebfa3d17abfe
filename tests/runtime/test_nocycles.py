"""The cycle collector around the analysis (speeduptest.runtime.nocycles): paused while the results
are built, then leaving them alone while they are read, and as it was afterwards."""

from __future__ import annotations

import gc
import sys
import weakref
from pathlib import Path

import pytest

from speeduptest.cli import main
from speeduptest.runtime.nocycles import built_then_read, cycle_collection_paused

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config


@pytest.fixture(autouse=True)
def _collector_on():
    assert gc.isenabled() and gc.get_freeze_count() == 0
    yield
    gc.enable()
    gc.unfreeze()


def test_paused_while_built_then_on_without_walking_what_was_built() -> None:
    with built_then_read() as built:
        assert not gc.isenabled()
        structure = [{"value": [index]} for index in range(1000)]
        built(structure)
        assert gc.isenabled()
        assert gc.get_freeze_count() >= len(structure)  # out of the collector's sight
        built(structure)  # a second call changes nothing
        garbage: list = []
        garbage.append(garbage)  # a cycle made while the results are read is still collected
        del garbage
        assert gc.collect() >= 1
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_collector_back_as_it_was_without_built_or_when_off() -> None:
    with built_then_read():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == 0
    gc.disable()
    with built_then_read() as built:
        built([])
        assert not gc.isenabled() and gc.get_freeze_count() == 0
    assert not gc.isenabled()


def test_an_error_in_the_block_unfreezes() -> None:
    with pytest.raises(RuntimeError), built_then_read() as built:
        built([])
        raise RuntimeError
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_nested_pauses_leave_the_outer_one_in_charge() -> None:
    with built_then_read() as built:
        with cycle_collection_paused():  # the analysis's own pause
            pass
        assert not gc.isenabled()
        built([])
        assert gc.isenabled()


class _Results:
    """Something a weak reference can follow."""


def test_when_the_process_ends_the_structure_is_never_taken_apart() -> None:
    """process_ends: what built() was given outlives every reference the program had (the
    program's own objects are collectable again after the block, as without it); without
    it, the structure goes with its last reference as usual."""
    for process_ends in (False, True):
        with built_then_read(process_ends) as built:
            structure = _Results()
            watch = weakref.ref(structure)
            built(structure)
        del structure
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert (watch() is not None) is process_ends


def test_when_the_process_ends_its_last_collection_leaves_everything_alone() -> None:
    """The interpreter's last collection would walk the structure: it is frozen at exit."""
    import subprocess

    program = """if True:
        import atexit, gc
        from speeduptest.runtime.nocycles import built_then_read
        atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
        with built_then_read(process_ends=True) as built:
            built([[] for _ in range(10)])
        print("frozen after the block:", gc.get_freeze_count() > 0)
    """
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines() == ["frozen after the block: False", "frozen at exit: True"]


def test_the_command_leaves_the_collector_as_it_was(tmp_path: Path) -> None:
    """A program calling main() finds the collector on and nothing frozen afterwards; during
    the run no collection started with the results among the young objects to walk."""
    config = make_config(tmp_path, 300, 9, seed=5)
    young_at_start = []

    def record(phase: str, info: dict) -> None:
        if phase == "start":
            young_at_start.append(gc.get_count()[0])

    gc.callbacks.append(record)
    try:
        assert main([str(config), "--quiet", "--format", "json", "-o",
                     str(tmp_path / "out")]) == 0
    finally:
        gc.callbacks.remove(record)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    threshold = gc.get_threshold()[0]
    assert max(young_at_start, default=0) < 10 * threshold  # (none at all is fine)

"""What lets the analysis scale (issue 11): the resample count, the cached best case of the
rank test, the summaries computed together."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from speeduptest.cli import main
from speeduptest.stats.effect_size import (
    default_resamples,
    draw_table,
    resampled_means,
    shared_table_draws,
)
from speeduptest.stats.hierarchy import Hierarchy, variance_components
from speeduptest.stats.protocol import (
    _best_rank_p_value,
    _tie_sizes,
    common_scale,
    summarise_rows,
)
from speeduptest.stats.wilcoxon import wilcoxon_mann_whitney

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from throughput import make_config


@pytest.mark.parametrize(("benchmarks", "method", "expected"), [
    (1, "delta", 10_000), (100, "delta", 10_000), (200, "delta", 5_000),
    (500, "delta", 2_000), (100_000, "delta", 2_000), (100_000, "bootstrap", 10_000)])
def test_default_resamples(benchmarks, method, expected):
    assert default_resamples(benchmarks, method) == expected


@pytest.mark.parametrize(("options", "expected"), [((), 5_000), (("--bootstrap", "300"), 300)])
def test_results_state_the_resamples_used(tmp_path, options, expected):
    config = make_config(tmp_path, 200, 5)
    assert main([str(config), "--format", "json", "--quiet", "-o", str(tmp_path / "out"),
                 *options]) == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["settings"]["bootstrap"] == expected


def test_best_rank_case_depends_only_on_sizes_and_ties():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n, m = rng.integers(3, 12, size=2)
        x = rng.integers(1, 6, n).astype(float) * rng.choice([1.0, 1e-300, 1e300])
        y = rng.integers(1, 6, m).astype(float) * rng.choice([1.0, 1e-3])
        x, y = common_scale(x, y)
        best_x = x - x.min() + 2 * y.max()
        direct = wilcoxon_mann_whitney(best_x, y).p_value
        assert _best_rank_p_value(n, m, _tie_sizes(best_x), _tie_sizes(y)) == direct


def one_sample_summary(values: np.ndarray) -> tuple:
    """A sample's figures computed alone, the way the per-pair path did."""
    exponent = int(np.frexp(values.max())[1])
    scaled = np.ldexp(values, -exponent)
    return (values.size, float(np.ldexp(scaled.mean(), exponent)), float(np.median(values)),
            float(values.min()), float(values.max()),
            float(np.ldexp(scaled.std(ddof=1), exponent)) if values.size > 1 else None)


def test_summaries_of_rows_are_those_of_each_sample_alone():
    rng = np.random.default_rng(4)
    for size in (1, 2, 3, 8, 31, 100):
        rows = rng.lognormal(0, 1, (50, size)) * 10.0 ** rng.integers(-300, 300, (50, 1))
        for row, summary in zip(rows, summarise_rows(rows), strict=True):
            assert (summary.n, summary.mean, summary.median, summary.min, summary.max,
                    summary.std) == one_sample_summary(row)


@pytest.mark.parametrize("shape", [(20, 3), (5, 4, 3), (3, 2), (10, 1), (2, 2, 2, 2), (7,)])
def test_balanced_components_are_those_of_the_walk_over_units(shape, monkeypatch):
    values = np.random.default_rng(5).lognormal(0, 0.3, shape)
    fast = variance_components(Hierarchy.from_nested(values.tolist()) if len(shape) > 1
                               else Hierarchy.flat(values))
    monkeypatch.setattr(Hierarchy, "balanced", lambda self: None)
    walked = variance_components(Hierarchy.from_nested(values.tolist()) if len(shape) > 1
                                 else Hierarchy.flat(values))
    assert fast == walked


def test_shared_draws_of_balanced_hierarchies_give_the_bootstrap_distribution():
    """The shared draws resample like a benchmark's own stream: same distribution of means."""
    rng = np.random.default_rng(6)
    sample = Hierarchy.from_nested(rng.lognormal(0, 0.2, (20, 3)).tolist())
    table = draw_table(sample)
    shared = np.take(table.ravel(), shared_table_draws(table.shape, 20_000, 0, 0)).mean(axis=1)
    own = resampled_means(sample, 20_000, np.random.default_rng(7))
    assert abs(shared.mean() - own.mean()) < 4 * own.std() / np.sqrt(10_000)
    assert shared.std() == pytest.approx(own.std(), rel=0.03)


@pytest.mark.parametrize(("options", "computed"), [((), False), (("--bootstrap", "100"), True)])
def test_samples_too_large_to_resample_say_so_unless_forced(tmp_path, options, computed):
    """30,000 values per side × 10,000 resamples exceed the draws budget: the bootstrap
    interval is not computed (and says why), the call and statement rest on Fieller's;
    --bootstrap N computes it whatever the size."""
    rng = np.random.default_rng(3)
    for name, scale in (("a.txt", 1.1), ("b.txt", 1.0)):
        np.savetxt(tmp_path / name, scale * rng.lognormal(0, 0.1, 30_000), fmt="%.6g")
    (tmp_path / "config.csv").write_text("benchmark,initial,optimized,weight\nbig,a.txt,b.txt,1\n")
    assert main([str(tmp_path / "config.csv"), "-o", str(tmp_path / "out"), "--format", "json",
                 "--quiet", *options]) == 0
    benchmark = json.loads((tmp_path / "out" / "results.json").read_text())["benchmarks"][0]
    intervals = benchmark["effect_size"]["intervals"]
    assert intervals["fieller"]["bounded"] and benchmark["change"]["call"] == "faster"
    bootstrap = intervals["bootstrap"]
    assert bootstrap["bounded"] is computed
    if computed:
        fieller = intervals["fieller"]
        assert abs(bootstrap["low"] - fieller["low"]) < 0.003
        assert abs(bootstrap["high"] - fieller["high"]) < 0.003
    else:
        assert bootstrap["low"] is None and "not computed" in bootstrap["note"]
        assert "--bootstrap N" in bootstrap["note"]


def test_a_call_whose_interval_reaches_0_is_the_same_however_large_the_sample(tmp_path):
    """Three builds of 2,000+ values, one far off: Fieller's interval of this ~27× slowdown
    reaches 0 (the initial mean is not significantly different from 0), and its upper end
    alone makes the call slower, with or without the bootstrap (over the draws budget it is
    drawn only with --bootstrap; the call never rests on it)."""
    rng = np.random.default_rng(5)
    for name, means in (("a.csv", (1.0, 1.2, 9.0)), ("b.csv", (100.0, 101.0, 99.0))):
        rows = ["build,value"] + [f"{build},{value:.17g}" for build, mean in enumerate(means)
                                  for value in rng.normal(mean, 0.01 * mean, 2_000 + 100 * build)]
        (tmp_path / name).write_text("\n".join(rows) + "\n")
    (tmp_path / "config.csv").write_text("benchmark,initial,optimized\nx,a.csv,b.csv\n")
    changes = []
    for options in ((), ("--bootstrap", "10000")):
        out = tmp_path / f"out{len(options)}"
        assert main([str(tmp_path / "config.csv"), "-o", str(out), "--format", "json",
                     "--quiet", *options]) == 0
        changes.append(json.loads((out / "results.json").read_text())["benchmarks"][0]["change"])
    assert changes[0] == changes[1]
    assert changes[0]["call"] == "slower" and changes[0]["interval"]["method"] == "fieller"
    assert changes[0]["interval"]["low"] is None and changes[0]["interval"]["high"] < 0.99


@pytest.mark.skipif(sys.platform != "linux", reason="threads counted in /proc")
def test_the_command_loads_numpy_with_one_blas_thread() -> None:
    """The command's entry point sets OPENBLAS_NUM_THREADS before numpy loads (its threads
    would spin on the core the children use), unless the user set it; it imports nothing
    that loads numpy itself."""
    import subprocess

    script = (
        "import os, sys\n"
        "from speeduptest import command\n"
        "assert 'numpy' not in sys.modules\n"
        "sys.argv = ['speeduptest', '--version']\n"
        "try:\n"
        "    command.entry_point()\n"
        "except SystemExit:\n"
        "    pass\n"
        "import numpy\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n")
    environment = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env=environment)
    assert ran.stdout.split()[-2:] == ["1", "1"]
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env={**environment, "OPENBLAS_NUM_THREADS": "2"})
    assert ran.stdout.split()[-2] == "2"
    script = script.replace("os.environ['OPENBLAS_NUM_THREADS']",
                            "os.environ.get('OPENBLAS_NUM_THREADS')")
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env={**environment, "OMP_NUM_THREADS": "2"})
    assert ran.stdout.split()[-2] == "None"  # OpenBLAS takes the user's OMP_NUM_THREADS


def test_quick_switches_lower_the_switch_interval_and_restore_it() -> None:
    """While the bootstrap thread runs beside the analysis the GIL changes hands sooner
    (speeduptest.runtime.switching); the interpreter's setting is given back, and never raised."""
    from speeduptest.runtime.switching import quick_switches

    before = sys.getswitchinterval()
    try:
        with quick_switches(0.0002):
            assert sys.getswitchinterval() == pytest.approx(0.0002, abs=2e-6)
        assert sys.getswitchinterval() == before
        sys.setswitchinterval(0.0001)
        with quick_switches(0.0002):
            assert sys.getswitchinterval() == pytest.approx(0.0001, abs=2e-6)
        with pytest.raises(KeyError), quick_switches(0.0005):
            raise KeyError("restored on the way out too")
        assert sys.getswitchinterval() == pytest.approx(0.0001, abs=2e-6)
    finally:
        sys.setswitchinterval(before)


def test_quick_switches_leave_a_program_with_threads_alone(tmp_path) -> None:
    """The switch interval is the process's: a program running analyses in threads of its
    own (here two at once) keeps its setting, during the runs and after them."""
    import threading

    from speeduptest.analysis.run import analyse_config
    from speeduptest.model.results import Settings

    config = make_config(tmp_path, 300, 31)
    before = sys.getswitchinterval()
    seen: list[float] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(sys.getswitchinterval())

    watcher = threading.Thread(target=watch)
    watcher.start()
    runs = [threading.Thread(target=analyse_config, args=(config, Settings()))
            for _ in range(2)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    stop.set()
    watcher.join()
    assert sys.getswitchinterval() == before
    assert seen and set(seen) == {before}


@pytest.mark.parametrize("chunk", [1, 2_000, 1 << 18])
def test_shared_bootstrap_intervals_do_not_depend_on_the_chunks(chunk, monkeypatch) -> None:
    """flat_bootstrap_intervals computes the benchmarks in chunks of rows: each row's interval
    is the same whatever rows share its chunk (one row per chunk, several, all)."""
    from speeduptest.stats import effect_size

    rng = np.random.default_rng(7)
    initial = rng.lognormal(0, 0.3, (37, 12))
    optimized = rng.lognormal(-0.1, 0.3, (37, 9))
    confidence = [0.95] * 30 + [0.99] * 7
    expected = effect_size.flat_bootstrap_intervals(initial, optimized, confidence, 500, 3)
    monkeypatch.setattr(effect_size, "_CHUNK_ROWS_ELEMENTS", chunk)
    found = effect_size.flat_bootstrap_intervals(initial, optimized, confidence, 500, 3)
    assert found == expected
    alone = [effect_size.flat_bootstrap_intervals(initial[row], optimized[row],
                                                  confidence[row:row + 1], 500, 3)[0]
             for row in (0, 36)]
    assert alone == [expected[0], expected[36]]

"""The analysis of an experiment, of any number k ≥ 2 of versions.

:func:`analyse` takes an :class:`~speeduptest.inputs.experiment.Experiment` and compares every
version with the baseline, in one run over every comparison
(:func:`speeduptest.analysis.benchmarks.analyse_benchmarks`: the Speedup-Test protocol both
ways, the effect-size intervals, the calls corrected over all of them, the overall figures).
Two versions are one comparison, and that is all; three or more add each version's own
figures, the comparison of all versions per benchmark and their ranking
(:func:`speeduptest.analysis.versions.with_all_versions`).

:func:`analyse_config` and :func:`compare_files` are the library's shortcuts: the experiment of
a config or of result files, analysed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from speeduptest import __version__
from speeduptest.analysis.benchmarks import Progress, analyse_benchmarks
from speeduptest.analysis.transforms import prepared
from speeduptest.inputs.config import reading_ahead
from speeduptest.inputs.experiment import Experiment
from speeduptest.inputs.files import SampleFiles
from speeduptest.inputs.forms import read_experiment
from speeduptest.inputs.readers import DEFAULT_OPTIONS, ReadOptions
from speeduptest.model.results import (
    DEFAULT_NAMES,
    Comparison,
    Notice,
    Results,
    RunInfo,
    Settings,
    Source,
)
from speeduptest.runtime.nocycles import cycle_collection_paused

# The analysis of several versions (and scipy.stats with it) is imported only for three or
# more versions: two take the one comparison, whose imports stay as light as before.


def _source(experiment: Experiment) -> Source:
    """What the results say was analysed, with two versions' names where the user knows them
    by others than initial and optimized (compare's files, a wide or long config's
    columns)."""
    origin = experiment.origin
    names = None
    if len(experiment.versions) == 2:
        baseline, other = experiment.baseline, experiment.others[0]
        names = (experiment.versions[baseline], experiment.versions[other])
        names = None if names == DEFAULT_NAMES else names
    if origin.form != "compare":
        return Source(str(origin.path), origin.form, names=names)
    return Source(origin.label, origin.form, origin.references, names, experiment.baseline)


def analyse(experiment: Experiment, settings: Settings, progress: Progress | None = None,
            run: RunInfo | None = None, workers: int | None = None) -> Results:
    """The results of ``experiment``, of any number of versions (see the module's
    docstring). The experiment is first :func:`prepared` for ``settings`` (the run's α, the
    unit conversion, the measurement checks)."""
    experiment = prepared(experiment, settings)
    versions, baseline = experiment.versions, experiment.baseline
    several = len(versions) > 2
    notices = list(experiment.notices)
    if several and settings.aggregate_interval != "delta":
        notices.append(Notice(
            "versions-aggregate-delta",
            "With several versions the aggregate intervals are made by the delta method: "
            "--aggregate-interval bootstrap applies to two versions only.",
            "Compare two versions at a time for bootstrap aggregate intervals."))
        settings = dataclasses.replace(settings, aggregate_interval="delta")
    # Every version against the baseline, benchmark by benchmark: one run, whose calls are
    # corrected over all of them.
    specs, where = [], []
    for v in experiment.others:
        for j, row in enumerate(experiment.benchmarks):
            spec = experiment.comparison(row, v)
            if spec is not None:
                specs.append(spec)
                where.append((v, j))
    source = _source(experiment)
    analysed = analyse_benchmarks(
        specs, settings, " vs ".join(source.compared) if source.compared else source.label,
        experiment.files, progress=progress, workers=workers,
        extra_files=experiment.input_files, transforms=experiment.transforms)
    # Two versions: their one comparison is the run's. More: each version's is made of the
    # run's benchmarks (with_all_versions).
    comparisons = () if several else (Comparison(
        versions[baseline], versions[experiment.others[0]], analysed.benchmarks,
        analysed.overall),)
    results = Results(
        tool_version=__version__, settings=analysed.settings, source=source,
        versions=versions, baseline=baseline, comparisons=comparisons,
        notices=tuple(notices) + (() if several else analysed.notices),
        errors=tuple(error for b in analysed.benchmarks for error in b.errors),
        input_files=analysed.input_files, run=run, unpaired=experiment.unpaired)
    if not several:
        return results
    from speeduptest.analysis.versions import with_all_versions

    return with_all_versions(experiment, analysed, where, results, workers)


@cycle_collection_paused()  # the config's rows too (100,000 rows: 3.5 s -> 2.4 s)
def analyse_config(
    path: Path | str, settings: Settings, progress: Progress | None = None,
    run: RunInfo | None = None, workers: int | None = None,
    options: ReadOptions = DEFAULT_OPTIONS, baseline: str | None = None,
) -> Results:
    """Analyse every benchmark of a config file, of any form (two versions, or several:
    wide with ``baseline``, or long). Raises ``ConfigError`` if it is unusable. The config is
    read once: it may come from a pipe."""
    path = Path(path)
    with reading_ahead(path) as ahead:  # (a child reads its sample files meanwhile)
        experiment = read_experiment(path, baseline, SampleFiles(options, ahead))
        return analyse(experiment, settings, progress, run, workers)


@cycle_collection_paused()
def compare_files(
    initial: str, optimized: str, settings: Settings, progress: Progress | None = None,
    run: RunInfo | None = None, workers: int | None = None,
    options: ReadOptions = DEFAULT_OPTIONS,
) -> Results:
    """Analyse the benchmarks that two result files have in common (``speeduptest compare``;
    ``file#VERSION`` for one version of a file). Raises ``ConfigError`` when a file is
    unusable or nothing pairs, or when the same file is given twice."""
    from speeduptest.inputs.compare import compared_experiment

    return analyse(compared_experiment((initial, optimized), None, options), settings,
                   progress, run, workers)

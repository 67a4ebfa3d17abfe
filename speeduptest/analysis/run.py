"""The analysis of an experiment, of any number of versions.

:func:`analyse` takes an :class:`~speeduptest.inputs.experiment.Experiment` and compares every
version with the baseline: two versions are one comparison
(:func:`speeduptest.analysis.benchmarks.analyse_benchmarks`: the Speedup-Test protocol both
ways, the effect-size intervals, the calls, the overall figures); three or more add the
comparison of all versions per benchmark and their ranking
(:func:`speeduptest.analysis.versions.analyse_versions`, which runs the same comparisons).

:func:`analyse_config` and :func:`compare_files` are the library's shortcuts: the experiment of
a config or of result files, analysed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from speeduptest.analysis.benchmarks import Progress, analyse_benchmarks
from speeduptest.analysis.transforms import prepared
from speeduptest.inputs.config import reading_ahead
from speeduptest.inputs.experiment import Experiment
from speeduptest.inputs.files import SampleFiles
from speeduptest.inputs.forms import read_experiment
from speeduptest.inputs.readers import DEFAULT_OPTIONS, ReadOptions
from speeduptest.model.results import DEFAULT_NAMES, Results, RunInfo, Settings, Source
from speeduptest.model.versions import VersionsResults, VersionsSource
from speeduptest.runtime.nocycles import cycle_collection_paused

# The analysis of several versions (and scipy.stats with it) is imported only for three or
# more versions: two take the one comparison, whose imports stay as light as before.


def _source(experiment: Experiment) -> Source:
    """What the results of two versions say was analysed."""
    origin = experiment.origin
    if origin.form != "compare":
        return Source(str(origin.path), config=True)
    baseline, other = experiment.baseline, experiment.others[0]
    compared = (origin.references[baseline], origin.references[other])
    names = (experiment.versions[baseline], experiment.versions[other])
    return Source(" vs ".join(compared), compared=compared,
                  names=None if names == DEFAULT_NAMES else names)


def _versions_source(experiment: Experiment) -> VersionsSource:
    origin = experiment.origin
    return VersionsSource(origin.label, origin.form,
                          origin.references if origin.form == "compare" else ())


def analyse(experiment: Experiment, settings: Settings, progress: Progress | None = None,
            run: RunInfo | None = None, workers: int | None = None
            ) -> Results | VersionsResults:
    """The results of ``experiment``: :class:`Results` for two versions,
    :class:`VersionsResults` for more. The experiment is first :func:`prepared` for
    ``settings`` (the run's α, the unit conversion, the measurement checks)."""
    experiment = prepared(experiment, settings)
    if len(experiment.versions) == 2:
        other = experiment.others[0]
        comparisons = [experiment.comparison(benchmark, other)
                       for benchmark in experiment.benchmarks]
        results = analyse_benchmarks(
            [spec for spec in comparisons if spec is not None], settings,
            _source(experiment), experiment.files, progress=progress, run=run,
            workers=workers, notices=experiment.notices,
            extra_files=experiment.input_files, transforms=experiment.transforms)
        return (dataclasses.replace(results, unpaired=experiment.unpaired)
                if experiment.unpaired else results)
    from speeduptest.analysis.versions import analyse_versions

    return analyse_versions(experiment, settings, _versions_source(experiment), progress,
                            run, workers)


@cycle_collection_paused()  # the config's rows too (100,000 rows: 3.5 s -> 2.4 s)
def analyse_config(
    path: Path | str, settings: Settings, progress: Progress | None = None,
    run: RunInfo | None = None, workers: int | None = None,
    options: ReadOptions = DEFAULT_OPTIONS, baseline: str | None = None,
) -> Results | VersionsResults:
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
) -> Results | VersionsResults:
    """Analyse the benchmarks that two result files have in common (``speeduptest compare``;
    ``file#VERSION`` for one version of a file). Raises ``ConfigError`` when a file is
    unusable or nothing pairs, or when the same file is given twice."""
    from speeduptest.inputs.compare import compared_experiment

    return analyse(compared_experiment((initial, optimized), None, options), settings,
                   progress, run, workers)

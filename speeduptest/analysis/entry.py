"""Entry points for any number of versions: a config (any form) or ``compare`` of files.

Two versions take the two-version pipeline exactly as before (the same results.json byte for
byte: ``tests/end_to_end/test_golden.py``); three or more take
:func:`speeduptest.analysis.versions.analyse_versions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from speeduptest.analysis import benchmarks as analysis
from speeduptest.analysis import compare
from speeduptest.analysis.benchmarks import Progress
from speeduptest.analysis.compare_versions import expand_versions, match_files, version_names
from speeduptest.inputs.config import BenchmarkSpec, ConfigError, config_input, read_once
from speeduptest.inputs.forms import VersionsConfig, config_form, read_versions_config
from speeduptest.inputs.readers import DEFAULT_OPTIONS, ReadOptions
from speeduptest.inputs.samples import MAX_NAME, listed, quote
from speeduptest.model.results import InputFile, Results, RunInfo, Settings, Source
from speeduptest.model.versions import VersionsResults, VersionsSource
from speeduptest.runtime.prefetch import Fetch

# The analysis of several versions (and scipy.stats with it) is imported only for three or
# more versions: two take the two-version pipeline, whose imports stay as light as before.


def _pair_specs(config: VersionsConfig) -> list[BenchmarkSpec]:
    """A config of two versions as the two-version config of the same rows."""
    base, other = config.baseline, 1 - config.baseline
    specs = []
    for row in config.rows:
        initial, optimized = row.samples[base], row.samples[other]
        specs.append(BenchmarkSpec(
            name=row.name, line=row.line,
            initial=initial.file if initial else None,
            optimized=optimized.file if optimized else None,
            initial_display=initial.display if initial else None,
            optimized_display=optimized.display if optimized else None,
            weight=row.weight, alpha=row.alpha,
            errors=tuple(dict.fromkeys(row.errors + row.errors_of(base)
                                       + row.errors_of(other))),
            initial_selection=initial.selection if initial else None,
            optimized_selection=optimized.selection if optimized else None))
    return specs


def analyse_any_config(
    path: Path, settings: Settings, baseline: str | None = None,
    progress: Progress | None = None, run: RunInfo | None = None,
    options: ReadOptions = DEFAULT_OPTIONS, workers: int | None = None,
    fetch: Fetch | None = None,
) -> Results | VersionsResults:
    """Analyse a config of two versions (``benchmark,initial,optimized``) or of several
    (wide or long form, see :mod:`speeduptest.inputs.forms`). Raises ``ConfigError``
    when it is unusable.
    ``fetch``: the sample files of a two-version config read ahead
    (:func:`speeduptest.inputs.config.reading_ahead`). The config is read once
    (:func:`speeduptest.inputs.config.read_once`): it may come from a pipe."""
    path = Path(path)
    with read_once(path):
        return _analyse_any_config(path, settings, baseline, progress, run, options, workers,
                                   fetch)


def _analyse_any_config(
    path: Path, settings: Settings, baseline: str | None, progress: Progress | None,
    run: RunInfo | None, options: ReadOptions, workers: int | None, fetch: Fetch | None,
) -> Results | VersionsResults:
    form = config_form(path)
    if form == "pair" or (form == "wide" and baseline is None):
        # Without --baseline a header that is not a two-version one is the error it always
        # was (a misspelt column is not taken for a version).
        if baseline not in (None, "initial"):
            raise ConfigError(f"{path}: --baseline {quote(baseline, MAX_NAME)}: this config "
                              "compares two versions (columns initial and optimized; the "
                              "baseline is initial)")
        return analysis.analyse_config(path, settings, progress, run, workers=workers,
                                       options=options, fetch=fetch)
    config = read_versions_config(path, settings.alpha, baseline)
    extra = (InputFile(str(path), config_input(path).sha256()),)
    if len(config.versions) == 2:
        return analysis.analyse_benchmarks(
            _pair_specs(config), settings, Source(str(path), config=True), progress=progress,
            run=run, workers=workers, options=options, notices=config.notices,
            extra_files=extra)
    from speeduptest.analysis.versions import analyse_versions

    return analyse_versions(
        config.rows, config.versions, config.baseline, settings,
        VersionsSource(str(path), config.form), progress=progress, run=run, workers=workers,
        options=options, notices=config.notices, extra_files=extra)


def _baseline_index(references: Sequence[str], names: Sequence[str],
                    baseline: str | None) -> int:
    if baseline is None:
        return 0
    for candidates in (names, references):
        if baseline in candidates:
            return list(candidates).index(baseline)
    raise ConfigError(f"--baseline {quote(baseline, MAX_NAME)} is none of the versions "
                      f"compared ({listed(list(names), 12)})")


def compare_any(
    references: Sequence[str], settings: Settings, baseline: str | None = None,
    progress: Progress | None = None, run: RunInfo | None = None,
    options: ReadOptions = DEFAULT_OPTIONS, workers: int | None = None,
) -> Results | VersionsResults:
    """``speeduptest compare`` of any number of result files (see
    :mod:`speeduptest.analysis.compare_versions`). Raises ``ConfigError`` when nothing can be
    compared, or when a file (or a version of it) is given twice."""
    references, sources = expand_versions(list(references), options)
    names = version_names(references)
    chosen = _baseline_index(references, names, baseline)
    if len(references) == 2:
        other = 1 - chosen
        return compare.compare_files(references[chosen], references[other], settings, progress, run,
                             workers=workers, options=options)
    rows, notices, sources = match_files(references, chosen, settings.alpha, options, sources)
    compare.check_distinct(references)  # (once their files' own problems are said)
    source = VersionsSource(", ".join(references), "compare", tuple(references))
    from speeduptest.analysis.versions import analyse_versions

    return analyse_versions(rows, names, chosen, settings, source, progress=progress, run=run,
                            workers=workers, options=options, notices=notices,
                            sources=sources)

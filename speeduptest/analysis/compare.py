"""``speeduptest compare INITIAL OPTIMIZED``: pair the benchmarks of two result files by name.

Each side is a result file, or ``file#VERSION`` to take one version (a ReBench executor, a long
CSV's version, a hyperfine command) out of a file that holds several. Benchmarks found on one
side only are listed as warnings. When each side holds a single benchmark, the two are paired
whatever their names (``hyperfine.json#old`` with ``hyperfine.json#new``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from speeduptest.analysis.benchmarks import Progress, analyse_benchmarks, file_key
from speeduptest.inputs.config import BenchmarkSpec, ConfigError
from speeduptest.inputs.readers import (
    DEFAULT_OPTIONS,
    ReadOptions,
    SourceFile,
    read_source,
    samples_of,
    split_reference,
)
from speeduptest.inputs.samples import Sample, visible
from speeduptest.model.results import Results, RunInfo, Settings, Source
from speeduptest.notices import Notice, counted, first_names


@dataclass(frozen=True)
class Pairing:
    """The benchmarks to analyse, and what could not be paired."""

    specs: tuple[BenchmarkSpec, ...]
    notices: tuple[Notice, ...]
    sources: dict  # the two files, read once, by analysis.file_key


def _side(reference: str, options: ReadOptions) -> tuple[Path, SourceFile, list[Sample]]:
    path, version = split_reference(reference, Path())
    source = read_source(path, options=options)
    try:
        return path, source, samples_of(source, version)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def check_distinct(references: Sequence[str]) -> None:
    """Raises ``ConfigError`` when two arguments name the same file (the same version of it,
    for ``file#VERSION``), however written (``a.json``, ``./a.json``, a link to it): its
    samples would be compared with themselves, as versions of the same name."""
    seen: dict[tuple, str] = {}
    for reference in references:
        path, selection = split_reference(reference, Path())
        key = (file_key(path), selection)
        if key in seen:
            what = "version of a file" if selection else "file"
            given = dict.fromkeys(visible(r) for r in (seen[key], reference))
            raise ConfigError(f"the same {what} is given twice: {' and '.join(given)}")
        seen[key] = reference


def _spec(name: str, initial: tuple[Path, Sample], optimized: tuple[Path, Sample],
          alpha: float) -> BenchmarkSpec:
    (initial_path, initial_sample), (optimized_path, optimized_sample) = initial, optimized
    return BenchmarkSpec(
        name=name, line=None, initial=initial_path, optimized=optimized_path,
        initial_display=initial_sample.path, optimized_display=optimized_sample.path,
        weight=1.0, alpha=alpha, initial_selection=initial_sample.label or None,
        optimized_selection=optimized_sample.label or None)


def _unpaired(names: list[str], here: str, there: str) -> Notice | None:
    if not names:
        return None
    shown = first_names(names, 20)
    return Notice(
        "unpaired-benchmarks",
        f"{counted(len(names), 'benchmark')} of {here} {'has' if len(names) == 1 else 'have'} "
        f"no counterpart in {there} and {'was' if len(names) == 1 else 'were'} not analysed: "
        f"{shown}.",
        "Benchmarks are paired by name: check that both files come from the same suite, or "
        "write a config to pair differently named benchmarks.",
    )


def pair_files(initial: str, optimized: str, alpha: float,
               options: ReadOptions = DEFAULT_OPTIONS) -> Pairing:
    """Pair the benchmarks of two result files. Raises ``ConfigError`` when nothing pairs."""
    initial_path, initial_source, initial_samples = _side(initial, options)
    optimized_path, optimized_source, optimized_samples = _side(optimized, options)
    sources = {file_key(initial_path): initial_source, file_key(optimized_path): optimized_source}
    tools = () if initial_source.format == optimized_source.format else (Notice(
        "different-tools",
        f"{initial} is a {initial_source.format} file and {optimized} a "
        f"{optimized_source.format} file.",
        "Tools measure differently (warm-up, loops, what a value is): compare files of the "
        "same tool, or check that the values mean the same thing."),)
    if not initial_samples or not optimized_samples:
        empty = initial if not initial_samples else optimized
        raise ConfigError(f"{empty}: holds no benchmark")
    if len(initial_samples) == 1 and len(optimized_samples) == 1:
        first, second = initial_samples[0], optimized_samples[0]
        names = [sample.name or Path(sample.path).stem for sample in (first, second)]
        chosen = "#" in initial or "#" in optimized  # the user named what to compare
        unnamed = None in (first.name, second.name)
        renamed = () if names[0] == names[1] or unnamed or chosen else (Notice(
            "paired-by-position",
            f"{initial} and {optimized} hold one benchmark each, with different names "
            f"('{names[0]}', '{names[1]}'): they were compared with each other.",
            "Check that they measure the same work."),)
        name = names[0] if names[0] == names[1] else f"{names[0]} → {names[1]}"
        return Pairing((_spec(name, (initial_path, first), (optimized_path, second), alpha),),
                       tools + renamed, sources)
    by_name = {sample.name: sample for sample in optimized_samples}
    specs = tuple(
        _spec(sample.name, (initial_path, sample), (optimized_path, by_name[sample.name]),
              alpha)
        for sample in initial_samples if sample.name in by_name)
    if not specs:
        raise ConfigError(f"{initial} and {optimized} have no benchmark name in common")
    initial_names = {sample.name for sample in initial_samples}
    notices = (
        _unpaired([s.name for s in initial_samples if s.name not in by_name], initial, optimized),
        _unpaired([s.name for s in optimized_samples if s.name not in initial_names], optimized,
                  initial),
    )
    return Pairing(specs, tools + tuple(notice for notice in notices if notice), sources)


def compare_files(
    initial: str,
    optimized: str,
    settings: Settings,
    progress: Progress | None = None,
    run: RunInfo | None = None,
    workers: int | None = None,
    options: ReadOptions = DEFAULT_OPTIONS,
) -> Results:
    """Analyse the benchmarks two result files have in common, as a config of them would be.
    Raises ``ConfigError`` when a file is unusable or nothing pairs, or when the same file is
    given twice."""
    pairing = pair_files(initial, optimized, settings.alpha, options)
    check_distinct((initial, optimized))  # (once their files' own problems are said)
    source = Source(f"{initial} vs {optimized}", compared=(initial, optimized))
    return analyse_benchmarks(pairing.specs, settings, source, progress=progress, run=run,
                              workers=workers, options=options, notices=pairing.notices,
                              sources=pairing.sources)

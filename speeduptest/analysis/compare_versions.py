"""``speeduptest compare A B C …``: the benchmarks of several result files, matched by name.

Each argument is a result file, or ``file#VERSION`` for one version of a file that holds
several (a ReBench executor, a long CSV's version, a hyperfine command). A single file that
holds several versions (a long CSV, a ReBench file) stands for all of them, in the order of
the file. The first version is the baseline unless ``--baseline`` names another (by its name:
the ``#VERSION`` part, else the file name without its extensions; or by the argument as
given).

Benchmarks are matched by name with the baseline's: a benchmark that a version lacks is
compared without that version, and one that the baseline lacks is not analysed (both listed
as warnings, as for two files). When every file holds a single benchmark, they are matched
whatever their names (``hf.json#gzip hf.json#zstd hf.json#xz``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from speeduptest.analysis.benchmarks import file_key
from speeduptest.analysis.compare import _unpaired
from speeduptest.inputs.config import ConfigError
from speeduptest.inputs.forms import VersionSample, VersionsRow
from speeduptest.inputs.readers import (
    DEFAULT_OPTIONS,
    ReadOptions,
    SourceFile,
    read_source,
    samples_of,
)
from speeduptest.inputs.readers import split_reference as split
from speeduptest.inputs.samples import MAX_NAME, Sample, quote
from speeduptest.model.results import Notice


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".json", ".data", ".csv", ".txt"):
        name = name.removesuffix(suffix)
    return name or path.name


def version_names(references: Sequence[str]) -> list[str]:
    """A name per argument: its ``#VERSION``, else its file name without extensions; where
    two would be equal, the arguments themselves."""
    names = []
    for reference in references:
        path, selection = split(reference, Path())
        names.append(selection or _stem(path))
    if len(set(names)) < len(names):
        names = [os.path.normpath(reference) if "#" not in reference else reference
                 for reference in references]
    return names


def expand_versions(references: Sequence[str], options: ReadOptions = DEFAULT_OPTIONS,
                    ) -> tuple[list[str], dict]:
    """A single argument naming a file that holds several versions becomes one argument per
    version (``file#v1``, ``file#v2``, …). Returns the arguments and the files read."""
    sources: dict = {}
    if len(references) != 1:
        return list(references), sources
    path, selection = split(references[0], Path())
    source = read_source(path, options=options)
    sources[file_key(path)] = source
    variants = list(dict.fromkeys(s.variant for s in source.samples if s.variant))
    if selection is None and len(variants) >= 2:
        return [f"{references[0]}#{variant}" for variant in variants], sources
    raise ConfigError(f"{references[0]}: give at least two result files to compare (or one "
                      "file holding several versions: a long CSV, a ReBench file)")


def _side(reference: str, options: ReadOptions, sources: dict
          ) -> tuple[Path, SourceFile, list[Sample]]:
    path, version = split(reference, Path())
    key = file_key(path)
    if key not in sources:
        sources[key] = read_source(path, options=options)
    try:
        return path, sources[key], samples_of(sources[key], version)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _version_sample(path: Path, sample: Sample) -> VersionSample:
    return VersionSample(path, sample.path, sample.label or None)


def _without(names: list[str], baseline: str, version: str) -> Notice:
    shown = ", ".join(names[:20]) + (f", … ({len(names) - 20} more)" if len(names) > 20 else "")
    return Notice(
        "unpaired-benchmarks",
        f"{len(names)} benchmark(s) of {baseline} (the baseline) have no counterpart in "
        f"{version}: they were compared without it: {shown}.",
        "Benchmarks are matched by name: check that every file comes from the same suite, or "
        "write a config with one column per version.")


def match_files(references: Sequence[str], baseline: int, alpha: float,
                options: ReadOptions = DEFAULT_OPTIONS, sources: dict | None = None,
                ) -> tuple[tuple[VersionsRow, ...], tuple[Notice, ...], dict]:
    """The benchmarks of several result files, matched by name with the baseline's (see the
    module's docstring). Raises ``ConfigError`` when a file is unusable or nothing matches.
    Returns the rows, warnings, and the files read by :func:`analysis.file_key`."""
    sources = dict(sources or {})
    sides = [_side(reference, options, sources) for reference in references]
    for reference, (_, _, samples) in zip(references, sides, strict=True):
        if not samples:
            raise ConfigError(f"{reference}: holds no benchmark")
    formats = list(dict.fromkeys(source.format for _, source, _ in sides))
    notices: list[Notice] = []
    if len(formats) > 1:
        notices.append(Notice(
            "different-tools",
            "The files come from different tools ("
            + ", ".join(f"{r}: {s.format}" for r, (_, s, _) in zip(references, sides,
                                                                     strict=True)) + ").",
            "Tools measure differently (warm-up, loops, what a value is): compare files of the "
            "same tool, or check that the values mean the same thing."))
    if all(len(samples) == 1 for _, _, samples in sides):
        names = [samples[0].name or Path(samples[0].path).stem for _, _, samples in sides]
        name = names[baseline]
        row = VersionsRow(name, None, 1.0, alpha, tuple(
            _version_sample(path, samples[0]) for path, _, samples in sides))
        if len(set(names)) > 1 and not any("#" in r for r in references) and None not in [
                samples[0].name for _, _, samples in sides]:
            notices.append(Notice(
                "paired-by-position",
                f"The files hold one benchmark each, with different names "
                f"({', '.join(quote(n, MAX_NAME) for n in names)}): they were compared with "
                "each other.", "Check that they measure the same work."))
        return (row,), tuple(notices), sources
    by_name = [{sample.name: sample for sample in samples} for _, _, samples in sides]
    base_samples = sides[baseline][2]
    rows = []
    for sample in base_samples:
        found = [table.get(sample.name) for table in by_name]
        if sum(s is not None for s in found) < 2:
            continue
        rows.append(VersionsRow(sample.name, None, 1.0, alpha, tuple(
            None if s is None else _version_sample(path, s)
            for (path, _, _), s in zip(sides, found, strict=True))))
    if not rows:
        raise ConfigError(f"{references[baseline]} (the baseline) has no benchmark name in "
                          "common with the other files")
    base_names = {sample.name for sample in base_samples}
    for position, (reference, (_, _, samples)) in enumerate(zip(references, sides,
                                                                strict=True)):
        if position == baseline:
            continue
        missing = [s.name for s in base_samples if s.name not in by_name[position]]
        extra = [s.name for s in samples if s.name not in base_names]
        if missing:
            notices.append(_without(missing, references[baseline], reference))
        notice = _unpaired(extra, reference, references[baseline])
        if notice is not None:
            notices.append(notice)
    return tuple(rows), tuple(notices), sources

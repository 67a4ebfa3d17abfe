"""``speeduptest compare A B [C …]``: the experiment of result files, their benchmarks matched
by name.

Each argument is a result file, or ``file#VERSION`` for one version of a file that holds
several (a ReBench executor, a long CSV's version, a hyperfine command). A single file that
holds several versions (a long CSV, a ReBench file, a hyperfine run of several commands)
stands for all of them, in the order of the file. The first version is the baseline unless
``--baseline`` names another (by its name, :func:`version_names`, or by the argument as
given).

Two versions: benchmarks found on one side only are listed as warnings. When each side holds
a single benchmark, the two are paired whatever their names (``hyperfine.json#old`` with
``hyperfine.json#new``).

More versions: benchmarks are matched by name with the baseline's: a benchmark that a version
lacks is compared without that version, and one that the baseline lacks is not analysed (both
listed as warnings). When every file holds a single benchmark, they are matched whatever their
names (``hf.json#gzip hf.json#zstd hf.json#xz``).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from speeduptest.inputs.config import BenchmarkSpec, ConfigError
from speeduptest.inputs.experiment import (
    Benchmark,
    Experiment,
    Origin,
    SampleRef,
    pair_benchmark,
)
from speeduptest.inputs.files import SampleFiles, file_key
from speeduptest.inputs.readers import (
    DEFAULT_OPTIONS,
    ReadOptions,
    SourceFile,
    read_source,
    samples_of,
    split_reference,
)
from speeduptest.inputs.samples import MAX_NAME, Sample, listed, quote, visible
from speeduptest.model.results import Unpaired
from speeduptest.notices import Notice, counted, first_names


@dataclass(frozen=True)
class Pairing:
    """The benchmarks to analyse, and what could not be paired."""

    specs: tuple[BenchmarkSpec, ...]
    notices: tuple[Notice, ...]
    sources: dict  # the two files, read once, by file_key
    unpaired: tuple[Unpaired, ...] = ()


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


def _spec(name: str, initial: tuple[Path, Sample], optimized: tuple[Path, Sample]
          ) -> BenchmarkSpec:
    (initial_path, initial_sample), (optimized_path, optimized_sample) = initial, optimized
    return BenchmarkSpec(
        name=name, line=None, initial=initial_path, optimized=optimized_path,
        initial_display=initial_sample.path, optimized_display=optimized_sample.path,
        weight=1.0, alpha=None, initial_selection=initial_sample.label or None,
        optimized_selection=optimized_sample.label or None)


#: Unpaired names for which a close name is looked for (difflib: quadratic in the names).
SUGGESTED = 20


def _close_names(names: Sequence[str], candidates: Sequence[str]) -> tuple[str | None, ...]:
    """For each of the first names, the candidate it most likely is: the same name in another
    case, else a close spelling (:func:`difflib.get_close_matches`); None where none is."""
    folded = {candidate.casefold(): candidate for candidate in candidates}
    close: list[str | None] = []
    for name in names[:SUGGESTED]:
        match = folded.get(name.casefold())
        if match is None:
            found = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.8)
            match = folded[found[0]] if found else None
        close.append(match)
    return tuple(close)


def _unpaired_group(names: list[str], here: str, there: str,
                    candidates: Sequence[str]) -> Unpaired | None:
    return Unpaired(here, there, tuple(names), _close_names(names, candidates)) if names else None


def _guesses(group: Unpaired) -> str:
    found = group.suggestions()
    return (" Did you mean " + ", ".join(f"{name} → {close}" for name, close in found)
            + f" ({group.other})?") if found else ""


def _unpaired(group: Unpaired | None) -> Notice | None:
    if group is None:
        return None
    names, here, there = list(group.names), group.file, group.other
    shown = first_names(names, 20)
    return Notice(
        "unpaired-benchmarks",
        f"{counted(len(names), 'benchmark')} of {here} {'has' if len(names) == 1 else 'have'} "
        f"no counterpart in {there} and {'was' if len(names) == 1 else 'were'} not analysed: "
        f"{shown}.{_guesses(group)}",
        "Benchmarks are paired by name: check that both files come from the same suite, or "
        "write a config to pair differently named benchmarks.",
    )


def pair_files(initial: str, optimized: str, options: ReadOptions = DEFAULT_OPTIONS,
               names: tuple[str, str] | None = None) -> Pairing:
    """Pair the benchmarks of two result files. Raises ``ConfigError`` when nothing pairs.
    ``names``: the versions' names, for what is said of the benchmarks that do not pair
    (default: the arguments)."""
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
        return Pairing((_spec(name, (initial_path, first), (optimized_path, second)),),
                       tools + renamed, sources)
    by_name = {sample.name: sample for sample in optimized_samples}
    specs = tuple(
        _spec(sample.name, (initial_path, sample), (optimized_path, by_name[sample.name]))
        for sample in initial_samples if sample.name in by_name)
    initial_names = {sample.name for sample in initial_samples}
    said = names or (initial, optimized)
    only_initial = [s.name for s in initial_samples if s.name not in by_name]
    only_optimized = [s.name for s in optimized_samples if s.name not in initial_names]
    groups = tuple(group for group in (
        _unpaired_group(only_initial, *said, only_optimized),
        _unpaired_group(only_optimized, *said[::-1], only_initial)) if group)
    if not specs:
        raise ConfigError(f"{initial} and {optimized} have no benchmark name in common."
                          + (_guesses(groups[0]) if groups else ""))
    notices = tuple(notice for notice in map(_unpaired, groups) if notice)
    return Pairing(specs, tools + notices, sources, groups)


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".json", ".data", ".csv", ".txt"):
        name = name.removesuffix(suffix)
    return name or path.name


def _telling_apart(paths: Sequence[Path]) -> list[str] | None:
    """The shortest trailing part of each path's folders that tells the files apart, their
    common trailing part left out (``raw/default/bm.json``, ``raw/JIT/bm.json``: ``default``,
    ``JIT``); None where nothing short does (a file in the current folder beside one in a
    folder, or more than two folders needed)."""
    parts = [(*Path(os.path.normpath(path)).parts[:-1], _stem(path)) for path in paths]
    common = 0
    while all(len(p) > common for p in parts) and len({p[-1 - common] for p in parts}) == 1:
        common += 1
    left = [p[:len(p) - common] for p in parts]
    for depth in (1, 2):
        if any(len(p) < depth for p in left):
            return None
        names = ["/".join(p[-depth:]) for p in left]
        if len(set(names)) == len(names) and not any(n in ("", ".", "..") for n in names):
            return names
    return None


def version_names(references: Sequence[str]) -> list[str]:
    """A name per argument: its ``#VERSION``, else its file name without extensions; where
    two would be equal, the shortest part of their paths that tells them apart (the folders
    of same-named files: ``default/bm.json`` and ``JIT/bm.json`` are ``default`` and
    ``JIT``); else the arguments themselves."""
    split = [split_reference(reference, Path()) for reference in references]
    names = [selection or _stem(path) for path, selection in split]
    if len(set(names)) == len(names):
        return names
    if not any(selection for _, selection in split):
        telling = _telling_apart([path for path, _ in split])
        if telling is not None:
            return telling
    return [os.path.normpath(reference) if "#" not in reference else reference
            for reference in references]


def named_versions(references: Sequence[str], names: Sequence[str]) -> list[str]:
    """The names the user gave (``--names``): one per version in order (``A,B,…``), or by
    argument (``FILE=NAME``, the others named as :func:`version_names` names them). Raises
    ``ConfigError`` when they do not fit."""
    found = version_names(references)
    if not names:
        return found
    by_argument = [name.partition("=") for name in names]
    if all(sep for _, sep, _ in by_argument):
        given = {argument: name for argument, _, name in by_argument}
        unknown = [a for a in given if a not in references and a not in found]
        if unknown:
            raise ConfigError(f"--names: {listed(unknown)} is none of the versions compared "
                              f"({listed(list(references), 12)})")
        chosen = [given.get(reference, given.get(name, name))
                  for reference, name in zip(references, found, strict=True)]
    elif len(names) != len(references):
        raise ConfigError(f"--names gives {len(names)} name(s) for {len(references)} "
                          f"versions ({listed(list(references), 12)})")
    else:
        chosen = list(names)
    chosen = [visible(name).strip() for name in chosen]
    if any(not name for name in chosen) or len(set(chosen)) < len(chosen):
        raise ConfigError(f"--names: every version needs a name of its own (got "
                          f"{listed(chosen)})")
    return chosen


def expand_versions(references: Sequence[str], options: ReadOptions = DEFAULT_OPTIONS,
                    ) -> tuple[list[str], dict]:
    """A single argument naming a file that holds several versions becomes one argument per
    version (``file#v1``, ``file#v2``, …). Returns the arguments and the files read."""
    sources: dict = {}
    if len(references) != 1:
        return list(references), sources
    path, selection = split_reference(references[0], Path())
    source = read_source(path, options=options)
    sources[file_key(path)] = source
    variants = list(dict.fromkeys(s.variant for s in source.samples if s.variant))
    if selection is None and len(variants) >= 2:
        return [f"{references[0]}#{variant}" for variant in variants], sources
    commands = [sample.label for sample in source.samples if sample.label]
    if selection is None and source.format == "hyperfine" and len(commands) >= 2:
        # (hyperfine compares commands: each is a version of the one thing measured)
        return [f"{references[0]}#{command}" for command in commands], sources
    raise ConfigError(f"{references[0]}: give at least two result files to compare (or one "
                      "file holding several versions: a long CSV, a ReBench file, a hyperfine "
                      "run of several commands)")


def _version_side(reference: str, options: ReadOptions, sources: dict
          ) -> tuple[Path, SourceFile, list[Sample]]:
    path, version = split_reference(reference, Path())
    key = file_key(path)
    if key not in sources:
        sources[key] = read_source(path, options=options)
    try:
        return path, sources[key], samples_of(sources[key], version)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _version_sample(path: Path, sample: Sample) -> SampleRef:
    return SampleRef(path, sample.path, sample.label or None)


def _without(names: list[str], baseline: str, version: str, guesses: str) -> Notice:
    shown = ", ".join(names[:20]) + (f", … ({len(names) - 20} more)" if len(names) > 20 else "")
    return Notice(
        "unpaired-benchmarks",
        f"{len(names)} benchmark(s) of {baseline} (the baseline) have no counterpart in "
        f"{version}: they were compared without it: {shown}.{guesses}",
        "Benchmarks are matched by name: check that every file comes from the same suite, or "
        "write a config with one column per version.")


def match_files(references: Sequence[str], baseline: int,
                options: ReadOptions = DEFAULT_OPTIONS, sources: dict | None = None,
                names: Sequence[str] | None = None,
                ) -> tuple[tuple[Benchmark, ...], tuple[Notice, ...], dict,
                           tuple[Unpaired, ...]]:
    """The benchmarks of several result files, matched by name with the baseline's (see the
    module's docstring). Raises ``ConfigError`` when a file is unusable or nothing matches.
    Returns the rows, warnings, the files read by :func:`file_key`, and the benchmarks not
    matched."""
    sources = dict(sources or {})
    sides = [_version_side(reference, options, sources) for reference in references]
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
        row = Benchmark(name, None, 1.0, None, tuple(
            _version_sample(path, samples[0]) for path, _, samples in sides))
        if len(set(names)) > 1 and not any("#" in r for r in references) and None not in [
                samples[0].name for _, _, samples in sides]:
            notices.append(Notice(
                "paired-by-position",
                f"The files hold one benchmark each, with different names "
                f"({', '.join(quote(n, MAX_NAME) for n in names)}): they were compared with "
                "each other.", "Check that they measure the same work."))
        return (row,), tuple(notices), sources, ()
    by_name = [{sample.name: sample for sample in samples} for _, _, samples in sides]
    base_samples = sides[baseline][2]
    rows = []
    for sample in base_samples:
        found = [table.get(sample.name) for table in by_name]
        if sum(s is not None for s in found) < 2:
            continue
        rows.append(Benchmark(sample.name, None, 1.0, None, tuple(
            None if s is None else _version_sample(path, s)
            for (path, _, _), s in zip(sides, found, strict=True))))
    if not rows:
        raise ConfigError(f"{references[baseline]} (the baseline) has no benchmark name in "
                          "common with the other files")
    base_names = {sample.name for sample in base_samples}
    said = list(names or references)  # (what is said of the benchmarks that do not match)
    groups = []
    for position, (_, _, samples) in enumerate(sides):
        if position == baseline:
            continue
        missing = [s.name for s in base_samples if s.name not in by_name[position]]
        extra = [s.name for s in samples if s.name not in base_names]
        lacking = _unpaired_group(missing, said[baseline], said[position], extra)
        if lacking is not None:
            groups.append(lacking)
            notices.append(_without(missing, said[baseline], said[position],
                                    _guesses(lacking)))
        group = _unpaired_group(extra, said[position], said[baseline], missing)
        if group is not None:
            groups.append(group)
            notices.append(_unpaired(group))
    return tuple(rows), tuple(notices), sources, tuple(groups)


def _baseline_index(references: Sequence[str], names: Sequence[str],
                    baseline: str | None) -> int:
    if baseline is None:
        return 0
    for candidates in (names, references):
        if baseline in candidates:
            return list(candidates).index(baseline)
    raise ConfigError(f"--baseline {quote(baseline, MAX_NAME)} is none of the versions "
                      f"compared ({listed(list(names), 12)})")


def compared_experiment(references: Sequence[str], baseline: str | None = None,
                        options: ReadOptions = DEFAULT_OPTIONS,
                        names: Sequence[str] = ()) -> Experiment:
    """The experiment of ``speeduptest compare`` of result files (see the module's
    docstring); ``baseline``: a version's name or argument (None: the first); ``names``:
    the versions' names as the user gives them (:func:`named_versions`). Raises
    ``ConfigError`` when nothing can be compared, or when a file (or a version of it) is
    given twice."""
    references, sources = expand_versions(list(references), options)
    names = named_versions(references, names)
    chosen = _baseline_index(references, names, baseline)
    files = SampleFiles(options)
    origin = Origin("compare", references=tuple(references))
    if len(references) == 2:
        pairing = pair_files(references[chosen], references[1 - chosen], options,
                             (names[chosen], names[1 - chosen]))
        check_distinct(references)  # (once their files' own problems are said)
        for key, source in pairing.sources.items():
            files.add(key, source)
        return Experiment(tuple(names), chosen, tuple(
            pair_benchmark(spec, chosen) for spec in pairing.specs), origin, files,
            pairing.notices, unpaired=pairing.unpaired)
    rows, notices, sources, unpaired = match_files(references, chosen, options, sources, names)
    check_distinct(references)  # (once their files' own problems are said)
    for key, source in sources.items():
        files.add(key, source)
    return Experiment(tuple(names), chosen, rows, origin, files, notices, unpaired=unpaired)

"""Configs that name several versions of every benchmark (issue 12).

Two forms besides the two-version config (``benchmark,initial,optimized``), told apart
by the header:

- **wide**: ``benchmark,<version 1>,<version 2>,…[,weight][,confidence]``, one column per
  version holding its sample file (``path`` or ``path#name``), marked by ``--baseline VERSION``
  on the command line (a wide header without it is today's "missing required column" error,
  so that a misspelt ``initial`` column is never taken for a version);
- **long**: ``benchmark,version,sample[,weight][,confidence]``, one row per benchmark and
  version; the baseline is ``--baseline`` or the first version named in the file.

Versions are in the order of their columns (wide) or of their first row (long). A cell left
empty, or a benchmark without a row for some version, leaves that version out of the
benchmark: an error of that benchmark and version, located in the config, while every other
version and benchmark is analysed. Weights and confidences are per benchmark (in the long form
they may be given on any of its rows, and must agree).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from speeduptest.inputs.config import (
    OPTIONAL_COLUMNS,
    ConfigError,
    ConfigInput,
    _display,
    _parse_alpha,
    _parse_weight,
    _path_problem,
    _read_text,
    _shown_path,
    config_input,
    header_notices,
    read_config,
    read_once,
)
from speeduptest.inputs.experiment import Benchmark, Experiment, Origin, SampleRef, pair_benchmark
from speeduptest.inputs.files import SampleFiles
from speeduptest.inputs.readers import read_source, split_reference
from speeduptest.inputs.samples import MAX_NAME, csv_rows, listed, quote, visible
from speeduptest.model.results import InputError, InputFile, Notice

LONG_COLUMNS = ("benchmark", "version", "sample")
Form = str  # "pair" (benchmark,initial,optimized), "wide" or "long"


@dataclass(frozen=True)
class VersionsConfig:
    """Every benchmark of a config with several versions, and which version is the baseline."""

    path: Path
    form: Form
    versions: tuple[str, ...]
    baseline: int
    rows: tuple[Benchmark, ...]
    notices: tuple[Notice, ...] = ()


def _header(path: Path, limit: int | None = None
            ) -> tuple[int, list[str], list[tuple[int, list[str] | str]]]:
    """The header row (its line and cells) and the rows after it (``limit`` rows in all)."""
    rows = csv_rows(_read_text(path), limit)
    if not rows:
        raise ConfigError(f"{path}: the config is empty (it needs a header row and benchmarks)")
    line, cells = rows[0]
    if isinstance(cells, str):
        raise ConfigError(f"{path}:{line}: the header is {cells}")
    return line, cells, rows[1:]


def config_form(path: Path) -> Form:
    """Which form a config has, from its header: "pair" (``initial``/``optimized`` columns,
    and anything unreadable: :func:`speeduptest.inputs.config.read_config` says why), "long" (a
    ``version`` column) or "wide" (anything else)."""
    try:
        _, cells, _ = _header(path, limit=1)
    except ConfigError:
        return "pair"
    header = [cell.lower() for cell in cells]
    if "initial" in header or "optimized" in header:
        return "pair"
    return "long" if "version" in header else "wide"


def _sample(cell: str, config: ConfigInput) -> tuple[SampleRef, str | None]:
    """The sample that a config's cell names (relative to the config's folder, if it has
    one), and why it cannot be read when that shows already."""
    file, selection = split_reference(cell, config.folder)
    sample = SampleRef(file, _display(file, selection), selection)
    problem = _path_problem(file, cell, config)
    return sample, (f"sample file {_shown_path(sample.display)}: {problem}" if problem else None)


def _choose_baseline(path: Path, versions: list[str], baseline: str | None) -> int:
    if baseline is None:
        return 0
    if baseline in versions:
        return versions.index(baseline)
    folded = [v for v in versions if v.lower() == baseline.lower()]
    if len(folded) == 1:
        return versions.index(folded[0])
    raise ConfigError(f"{path}: --baseline {quote(baseline, MAX_NAME)} is not one of its "
                      f"versions ({listed(versions, 12)})")


def _checked_versions(path: Path, line: int, versions: list[str]) -> list[str]:
    if len(versions) < 2:
        raise ConfigError(f"{path}:{line}: a config with several versions needs at least 2 "
                          f"(found: {listed(versions) or 'none'})")
    shown = [visible(v) for v in versions]
    if any(not v for v in shown):
        raise ConfigError(f"{path}:{line}: a version column of the header has no name")
    repeated = sorted({v for v in shown if shown.count(v) > 1})
    if repeated:
        raise ConfigError(f"{path}:{line}: version(s) {listed(repeated)} appear twice")
    return shown


def _wide(path: Path, baseline: str | None) -> VersionsConfig:
    source = config_input(path)
    header_line, cells, rows = _header(path)
    header = [cell.lower() for cell in cells]
    if "benchmark" not in header:
        raise ConfigError(f"{path}:{header_line}: missing required column benchmark in the "
                          f"header (found: {listed(header) or 'nothing'})")
    positions = [i for i, column in enumerate(header)
                 if column not in ("benchmark", *OPTIONAL_COLUMNS)]
    versions = _checked_versions(path, header_line, [cells[i] for i in positions])
    duplicated = sorted({c for c in header if header.count(c) > 1 and c in
                         ("benchmark", *OPTIONAL_COLUMNS)})
    if duplicated:
        raise ConfigError(f"{path}:{header_line}: column(s) {listed(duplicated)} appear twice")
    chosen = _choose_baseline(path, versions, baseline)
    if not rows:
        raise ConfigError(f"{path}: the config has a header but no benchmark rows")
    first_seen: dict[str, int] = {}
    result = []
    for line, row in rows:
        errors: list[str] = []
        if isinstance(row, str):
            errors.append(f"this row is {row}")
            row = []
        elif len(row) > len(header):
            errors.append(f"this row has {len(row)} cells but the header has {len(header)} "
                          "columns")
        record = {column: (row[i] if i < len(row) else "") for i, column in enumerate(header)}
        name = _name(record["benchmark"], line, errors, first_seen)
        samples: list[SampleRef | None] = []
        version_errors: list[tuple[InputError, ...]] = []
        for version, position in zip(versions, positions, strict=True):
            cell = row[position] if position < len(row) else ""
            if not cell:
                samples.append(None)
                version_errors.append(() if not row else (InputError(
                    str(path), line, f"no sample file for version {quote(version, MAX_NAME)}"),))
                continue
            sample, problem = _sample(cell, source)
            samples.append(sample)
            version_errors.append(() if problem is None else (
                InputError(str(path), line, f"version {quote(version, MAX_NAME)}: {problem}"),))
        weight, weight_error = _parse_weight(record.get("weight", ""))
        alpha, alpha_error = _parse_alpha(record.get("confidence", ""))
        errors += [e for e in (weight_error, alpha_error) if e]
        result.append(Benchmark(
            name, line, weight, alpha, tuple(samples),
            tuple(InputError(str(path), line, message) for message in errors),
            tuple(version_errors), alpha_given=bool(record.get("confidence"))))
    return VersionsConfig(path, "wide", tuple(versions), chosen, tuple(result))


def _name(cell: str, line: int, errors: list[str], first_seen: dict[str, int]) -> str:
    name = visible(cell)
    if not name and not errors:
        errors.append("the benchmark name is empty")
    if not name:
        return f"(line {line})"
    if name in first_seen:
        errors.append(f"duplicate benchmark name {quote(name, MAX_NAME)} (first defined at "
                      f"line {first_seen[name]})")
    else:
        first_seen[name] = line
    return name


@dataclass
class _LongBenchmark:
    name: str
    line: int
    samples: dict[str, tuple[int, SampleRef | None, str | None]]
    weights: list[tuple[int, str]]
    confidences: list[tuple[int, str]]
    errors: list[tuple[int, str]]


def _agreed(cells: list[tuple[int, str]], what: str) -> tuple[str, str | None]:
    """The one value given for a benchmark over its rows ("" when none), or a conflict."""
    given = {cell for _, cell in cells if cell}
    if len(given) > 1:
        lines = ", ".join(str(line) for line, cell in cells if cell)
        return "", f"the {what} differs between its rows (lines {lines})"
    return (given.pop() if given else ""), None


def _long(path: Path, baseline: str | None) -> VersionsConfig:
    source = config_input(path)
    header_line, cells, rows = _header(path)
    header = [cell.lower() for cell in cells]
    missing = [column for column in LONG_COLUMNS if column not in header]
    if missing:
        raise ConfigError(f"{path}:{header_line}: a config with a version column needs the "
                          f"columns {', '.join(LONG_COLUMNS)}; missing {', '.join(missing)} "
                          f"(found: {listed(header)})")
    notices = header_notices(path, header_line, header, LONG_COLUMNS + OPTIONAL_COLUMNS)
    if not rows:
        raise ConfigError(f"{path}: the config has a header but no benchmark rows")
    versions: dict[str, int] = {}  # name → first line
    benchmarks: dict[str, _LongBenchmark] = {}
    loose: list[InputError] = []  # rows that name no benchmark
    for line, row in rows:
        if isinstance(row, str):
            loose.append(InputError(str(path), line, f"this row is {row}; it was not read"))
            continue
        record = {column: (row[i] if i < len(row) else "") for i, column in enumerate(header)}
        name, version = visible(record["benchmark"]), visible(record["version"])
        if not name:
            loose.append(InputError(str(path), line, "the benchmark name is empty; the row "
                                    "was not read"))
            continue
        entry = benchmarks.setdefault(name, _LongBenchmark(name, line, {}, [], [], []))
        if len(row) > len(header):
            entry.errors.append((line, f"this row has {len(row)} cells but the header has "
                                       f"{len(header)} columns"))
        if not version:
            entry.errors.append((line, "the version is empty"))
            continue
        versions.setdefault(version, line)
        if version in entry.samples:
            entry.errors.append((line, f"version {quote(version, MAX_NAME)} is given twice "
                                       f"(first at line {entry.samples[version][0]})"))
            continue
        if not record["sample"]:
            entry.samples[version] = (line, None, f"no sample file for version "
                                                  f"{quote(version, MAX_NAME)}")
        else:
            sample, problem = _sample(record["sample"], source)
            entry.samples[version] = (line, sample, problem and
                                      f"version {quote(version, MAX_NAME)}: {problem}")
        entry.weights.append((line, record.get("weight", "")))
        entry.confidences.append((line, record.get("confidence", "")))
    names = _checked_versions(path, header_line, list(versions))
    chosen = _choose_baseline(path, names, baseline)
    result = []
    for entry in benchmarks.values():
        errors = [InputError(str(path), line, message) for line, message in entry.errors]
        weight_cell, conflict = _agreed(entry.weights, "weight")
        confidence_cell, clash = _agreed(entry.confidences, "confidence")
        weight, weight_error = _parse_weight(weight_cell)
        alpha, alpha_error = _parse_alpha(confidence_cell)
        errors += [InputError(str(path), entry.line, message) for message in
                   (conflict, clash, weight_error, alpha_error) if message]
        samples: list[SampleRef | None] = []
        version_errors: list[tuple[InputError, ...]] = []
        for version in versions:
            line, sample, problem = entry.samples.get(version, (None, None, None))
            samples.append(sample)
            if line is None:
                version_errors.append((InputError(
                    str(path), entry.line, f"no row for version {quote(version, MAX_NAME)} "
                    f"(the benchmark's first row is line {entry.line})"),))
            else:
                version_errors.append(() if problem is None else (
                    InputError(str(path), line, problem),))
        result.append(Benchmark(entry.name, entry.line, weight, alpha, tuple(samples),
                                tuple(errors), tuple(version_errors),
                                alpha_given=bool(confidence_cell)))
    if loose:
        notices.append(Notice(
            "config-rows-not-read",
            f"{len(loose)} row(s) of {path} name no benchmark and were not read: "
            + "; ".join(str(error) for error in loose[:3])
            + (f"; … and {len(loose) - 3} more" if len(loose) > 3 else "") + ".",
            "Give every row a benchmark name, a version and a sample file."))
    if not result:
        raise ConfigError(f"{path}: no row names a benchmark")
    return VersionsConfig(path, "long", tuple(names), chosen, tuple(result), tuple(notices))


def read_versions_config(path: Path, baseline: str | None = None) -> VersionsConfig:
    """Read a wide or long config (see the module's docstring). Raises :class:`ConfigError`
    when it cannot be used at all (no versions, an unknown ``baseline``). The config is read
    once (:func:`speeduptest.inputs.config.read_once`)."""
    with read_once(path):
        form = config_form(path)
        if form == "pair":
            raise ConfigError(f"{path}: has initial and optimized columns: a config of two "
                              "versions, without --baseline")
        return (_long if form == "long" else _wide)(path, baseline)


def _tool_file(path: Path) -> str | None:
    """What to say of a config that is a tool's result file (a slip for ``compare``); None
    for anything else."""
    raw = config_input(path).raw
    if raw is None:
        return None
    try:
        source = read_source(path, content=raw)
    except (OSError, ValueError):
        return None
    if source.format == "sample" or not source.samples:
        return None
    several = (len({sample.variant for sample in source.samples if sample.variant}) >= 2
               or (source.format == "hyperfine" and len(source.samples) >= 2))
    others = "" if several else " OTHER_FILE …"
    return (f"{path}: a {source.format} result file, not a config: to compare "
            f"{'its versions' if several else 'result files'}, run: speeduptest compare "
            f"{shlex.quote(str(path))}{others}")


def _with_hint(error: ConfigError, path: Path) -> ConfigError:
    """The error of a config that cannot be read, or what it is if it is a tool's file."""
    said = _tool_file(path)
    return ConfigError(said) if said else error


def read_experiment(path: Path | str, baseline: str | None = None,
                    files: SampleFiles | None = None) -> Experiment:
    """The experiment a config describes, in any form: two versions
    (``benchmark,initial,optimized``; see :func:`speeduptest.inputs.config.read_config`), or
    several (wide, marked by ``baseline``, or long; see the module's docstring). Raises
    :class:`ConfigError` when the config is unusable. ``files``: where its sample files will be
    read from; their ``ahead`` (a child reading the files named in ``initial`` and
    ``optimized`` columns, :func:`speeduptest.inputs.config.reading_ahead`) serves a
    two-version config only. The config is read once (:func:`read_once`): it may come from a
    pipe."""
    path = Path(path)
    files = files if files is not None else SampleFiles()
    with read_once(path):
        form = config_form(path)
        if form == "pair" or (form == "wide" and baseline is None):
            # Without --baseline a header that is not a two-version one is the error it
            # always was (a misspelt column is not taken for a version).
            if baseline not in (None, "initial"):
                raise ConfigError(f"{path}: --baseline {quote(baseline, MAX_NAME)}: this "
                                  "config compares two versions (columns initial and "
                                  "optimized; the baseline is initial)")
            status = files.ahead.status if files.ahead is not None else None
            try:
                config = read_config(path, status=status)
            except ConfigError as error:
                raise _with_hint(error, path) from None
            checksum = (InputFile(str(path), config_input(path).sha256()),)
            return Experiment(("initial", "optimized"), 0,
                              tuple(pair_benchmark(spec) for spec in config.benchmarks),
                              Origin("pair", path), files, config.notices, checksum)
        try:
            several = read_versions_config(path, baseline)
        except ConfigError as error:
            raise _with_hint(error, path) from None
        checksum = (InputFile(str(path), config_input(path).sha256()),)
        if files.ahead is not None:  # (it read ahead the files of two-version configs only)
            files = SampleFiles(files.options)
        return Experiment(several.versions, several.baseline, several.rows,
                          Origin(several.form, path), files, several.notices, checksum)

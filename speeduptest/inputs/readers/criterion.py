"""Criterion.rs results: the folder ``target/criterion`` that ``cargo bench`` writes, or one
``sample.json`` of it.

Each benchmark has a folder (``target/criterion/GROUP/FUNCTION/PARAMETER``) holding one folder
per saved run: ``new/`` (the latest run), ``base/`` (the baseline, Criterion's default name)
and any baseline named with ``--save-baseline NAME``; ``change/`` and ``report/`` are
Criterion's own analyses and are left out. In each run's folder, ``sample.json`` is
``{"sampling_mode", "iters": [...], "times": [...]}``: sample *i* timed ``iters[i]``
iterations in ``times[i]`` nanoseconds, so ``times[i] / iters[i]`` is its mean time per
iteration (read in seconds); all samples run one after the other in one process, after a
warm-up that is not written. ``benchmark.json`` beside it gives the benchmark's name
(``full_id``: ``sort/100``). Levels: sample.

A folder given to speeduptest is read whole: every run folder found in it is a version
(``base`` first, ``new`` last, other baselines between them in name order), so
``speeduptest compare target/criterion`` compares base with new, and
``target/criterion#new`` is one version. The folder of one benchmark, or of one run, works
the same way. Criterion copies ``new/`` to ``base/`` after every run made without
``--baseline``: a run folder that holds the same samples as ``new/`` is said in a warning.

Reference: Criterion.rs user guide ("Command-Line Options": ``--save-baseline``,
``--baseline``; "Analysis Process"), and its ``src/analysis/mod.rs`` (``sample.json``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    in_seconds,
    json_repr,
    make_sample,
    mark_duplicates,
    named,
    value_problem,
)
from speeduptest.notices import Notice, first_names

#: Folders of a benchmark folder that are not runs.
_NOT_RUNS = ("change", "report")
#: Names looked at in a folder, at most: a folder of more is not searched whole.
MAX_ENTRIES = 100_000
#: Folders below the one given, at most (group / function / parameter / run is 4).
MAX_DEPTH = 16


def looks_like(document: dict) -> bool:
    """A ``sample.json``: ``iters`` and ``times`` lists."""
    return isinstance(document.get("iters"), list) and isinstance(document.get("times"), list)


def _values(document: dict, where: str, errors: ErrorList) -> list[float]:
    iters, times = document["iters"], document["times"]
    if len(iters) != len(times):
        errors.add(f"{where}: {len(iters)} 'iters' but {len(times)} 'times'")
        return []
    values = []
    for index, (count, total) in enumerate(zip(iters, times, strict=True), start=1):
        problem = value_problem(count) or value_problem(total)
        if problem is None:
            mean, problem = in_seconds(total / count, 1e-9)
            if mean is not None:
                values.append(mean)
        if problem:
            errors.add(f"{where}, sample {index}: {problem}")
    return values


def _notes(document: dict, count: int) -> list[str]:
    mode = document.get("sampling_mode")
    shown = f", sampling mode {mode}" if isinstance(mode, str) and len(mode) < 20 else ""
    return [f"{count} samples, each the mean time per iteration (times / iters){shown}"]


def parse_sample(document: dict, path: str, name: str | None = None,
                 variant: str | None = None) -> SourceFile:
    """One ``sample.json``, read as a file: a single benchmark, its name unknown."""
    errors = ErrorList(path)
    values = _values(document, "sample.json", errors)
    sample = make_sample(path, name or "", values, ("sample",), errors,
                         _notes(document, len(values)), variant=variant)
    return SourceFile(path, "Criterion", (dataclasses.replace(sample, name=name),))


class _TooMany(Exception):
    pass


def _sample_files(folder: Path) -> list[Path]:
    """Every ``RUN/sample.json`` below ``folder`` (and ``folder/sample.json``), in a sorted
    walk that follows no symbolic link."""
    found: list[Path] = []
    seen = 0
    for root, folders, files in os.walk(folder, followlinks=False):
        seen += len(folders) + len(files)
        if seen > MAX_ENTRIES:
            raise _TooMany
        depth = len(Path(root).relative_to(folder).parts)
        folders[:] = sorted(f for f in folders if f not in _NOT_RUNS and depth < MAX_DEPTH)
        if "sample.json" in files and Path(root).name not in _NOT_RUNS:
            found.append(Path(root) / "sample.json")
    return found


def _name(run: Path, folder: Path, read: Callable[[Path], bytes | None]) -> str:
    """``full_id`` of the run's ``benchmark.json``, else the benchmark folder's path."""
    try:
        raw = read(run / "benchmark.json")
        details = json.loads(raw) if raw else None
    except (OSError, ValueError, RecursionError):
        details = None
    if isinstance(details, dict) and isinstance(details.get("full_id"), str) \
            and details["full_id"]:
        return details["full_id"]
    benchmark = run.parent
    relative = benchmark.relative_to(folder) if benchmark != folder.parent else Path()
    return relative.as_posix() if relative.parts else benchmark.name


def _order(variant: str) -> tuple[int, str]:
    return (0 if variant == "base" else 2 if variant == "new" else 1, variant)


def read_folder(folder: Path, display: str, read: Callable[[Path], bytes | None]
                ) -> SourceFile | None:
    """The Criterion results below ``folder`` (see the module's docstring); None when it
    holds no ``sample.json`` (not a Criterion folder). ``read``: a file's bytes (None when
    too large), raising ``OSError`` when it cannot be read."""
    try:
        files = _sample_files(folder)
    except _TooMany:
        return SourceFile(display, "Criterion", (), problem=(
            f"is a folder of more than {MAX_ENTRIES:,} files and folders: give the folder "
            "of the Criterion results (target/criterion) or of one benchmark"))
    except OSError as error:
        return SourceFile(display, "Criterion", (), problem=(
            f"cannot be read ({error.strerror or error})"))
    if not files:
        return None
    digest = hashlib.sha256()
    read_runs: list[tuple[str, str, list, ErrorList, list[str], bytes]] = []
    for file in files:
        run = file.parent
        relative = file.relative_to(folder).as_posix()
        shown = f"{display}/{relative}" if relative != "sample.json" else f"{display}/sample.json"
        errors = ErrorList(shown)
        variant = run.name
        name = _name(run, folder, read)
        values: list[float] = []
        notes: list[str] = []
        try:
            raw = read(file)
        except OSError as error:
            raw, problem = b"", f"cannot be read ({error.strerror or error})"
        else:
            problem = None if raw is not None else "is too large: not read"
        document = None
        if problem is None:
            try:
                document = json.loads(raw)
            except (ValueError, RecursionError):
                problem = "is not valid JSON (was it truncated?)"
        if problem is None and not (isinstance(document, dict) and looks_like(document)):
            problem = (f"{json_repr(document)} is not a Criterion sample ('iters' and 'times' "
                       "lists)")
        if problem is not None:
            errors.add(f"benchmark {named(name)} ({variant}): sample.json {problem}")
        else:
            values = _values(document, f"benchmark {named(name)} ({variant})", errors)
            notes = _notes(document, len(values))
        digest.update(relative.encode("utf-8", "surrogateescape") + b"\0" + (raw or b"") + b"\0")
        read_runs.append((variant, name, values, errors, notes, raw or b""))
    read_runs.sort(key=lambda run: (_order(run[0]), run[1]))
    samples = mark_duplicates([
        make_sample(display, name, values, ("sample",), errors, notes, variant=variant)
        for variant, name, values, errors, notes, _ in read_runs], "benchmark")
    newest = {name: raw for variant, name, _, _, _, raw in read_runs if variant == "new"}
    copies = [f"{name} ({variant})" for variant, name, _, _, _, raw in read_runs
              if variant != "new" and raw and newest.get(name) == raw]
    notices = (Notice(
        "same-samples",
        f"{display}: {len(copies)} run folder(s) hold the same samples as new/: "
        f"{first_names(copies, 8)}.",
        "Criterion copies new/ to base/ after every run made without --baseline: run the "
        "optimized version with `cargo bench -- --baseline base` so that base/ keeps the "
        "initial run."),) if copies else ()
    return SourceFile(display, "Criterion", tuple(samples), sha256=digest.hexdigest(),
                      notices=notices)

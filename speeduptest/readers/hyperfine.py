"""hyperfine result files (``hyperfine --export-json FILE``).

``{"results": [{"command", "times": [...], "exit_codes": [...], "mean", ...}]}``: one entry per
command, named by ``--command-name`` when given, ``times`` in seconds, one per run of the
command (each run a new process: the runs are the independent measurements). Warm-up runs are
not exported. Levels: run.

Reference: hyperfine's ``src/export/json.rs``.
"""

from __future__ import annotations

from ..notices import Notice
from .common import (
    ErrorList,
    SourceFile,
    disambiguate,
    make_sample,
    mark_duplicates,
    value_problem,
)


def _command(entry: object, position: int, path: str):
    errors = ErrorList(path)
    name = entry.get("command") if isinstance(entry, dict) else None
    name = name if isinstance(name, str) and name else f"command #{position}"
    where = f"command '{name}'"
    times = entry.get("times") if isinstance(entry, dict) else None
    if not isinstance(times, list):
        errors.add(f"{where}: no 'times' list (hyperfine versions before 1.5 did not export "
                   "the individual runs)")
        times = []
    for index, value in enumerate(times, start=1):
        problem = value_problem(value)
        if problem and value == 0:
            problem += " (too short to time: hyperfine rounds it to 0; time more work per run)"
        if problem:
            errors.add(f"{where}, run {index}: {problem}")
    exit_codes = entry.get("exit_codes") if isinstance(entry, dict) else None
    failed = sum(1 for code in exit_codes or () if code not in (0, None))
    notices = [Notice(
        "input-failed-runs",
        f"{path}: {failed} of {len(times)} runs of command '{name}' exited with a non-zero "
        "status (hyperfine -i kept them).",
        "A failed run may have done less work: check the command, or rerun without -i.",
    )] if failed else []
    return make_sample(path, name, times, ("run",), errors, [f"{len(times)} runs"],
                       notices=notices)


def parse(document: dict, path: str) -> SourceFile:
    results = document["results"]
    samples = [_command(entry, position, path) for position, entry in enumerate(results, start=1)]
    # -P with -n NAME names every value of the scan alike: the parameters tell them apart.
    parameters = [", ".join(f"{key}={value}" for key, value in entry["parameters"].items())
                  if isinstance(entry, dict) and isinstance(entry.get("parameters"), dict)
                  else "" for entry in results]
    samples = disambiguate(samples, parameters)
    return SourceFile(path, "hyperfine", tuple(mark_duplicates(samples, "command")))

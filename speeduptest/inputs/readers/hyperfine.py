"""hyperfine result files (``hyperfine --export-json FILE``).

``{"results": [{"command", "times": [...], "exit_codes": [...], "mean", ...}]}``: one entry per
command, named by ``--command-name`` when given, ``times`` in seconds, one per run of the
command (each run a new process: the runs are the independent measurements). Warm-up runs are
not exported. Levels: run.

Reference: hyperfine's ``src/export/json.rs``.
"""

from __future__ import annotations

from speeduptest.inputs.readers.common import (
    ErrorList,
    SourceFile,
    disambiguate,
    json_repr,
    make_sample,
    mark_duplicates,
    named,
    value_problem,
)
from speeduptest.notices import Notice


def _command(entry: object, position: int, path: str):
    errors = ErrorList(path)
    if not isinstance(entry, dict):
        errors.add(f"command #{position}: {json_repr(entry)} is not a JSON object")
        return make_sample(path, f"command #{position}", [], ("run",), errors)
    name = entry.get("command")
    name = name if isinstance(name, str) and name else f"command #{position}"
    where = f"command {named(name)}"
    times = entry.get("times")
    if not isinstance(times, list):
        errors.add(f"{where}: no 'times' list (hyperfine versions before 1.5 did not export "
                   "the individual runs)")
        times = []
    for index, value in enumerate(times, start=1):
        problem = value_problem(value)
        if problem and value == 0 and not isinstance(value, bool):
            problem += " (too short to time: hyperfine rounds it to 0; time more work per run)"
        if problem:
            errors.add(f"{where}, run {index}: {problem}")
    exit_codes = entry.get("exit_codes")
    if exit_codes is None:
        exit_codes = []
    elif not isinstance(exit_codes, list):
        errors.add(f"{where}: 'exit_codes' {json_repr(exit_codes)} is not a list")
        exit_codes = []
    for index, code in enumerate(exit_codes, start=1):
        # null: hyperfine had no exit code (the run was killed by a signal).
        if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
            errors.add(f"{where}, run {index}: exit code {json_repr(code)} is not a whole number")
    failed = sum(1 for code in exit_codes if code not in (0, None))
    notices = [Notice(
        "input-failed-runs",
        f"{path}: {failed} of {len(times)} runs of command {named(name)} exited with a non-zero "
        "status (hyperfine -i kept them).",
        "A failed run may have done less work: check the command, or rerun without -i.",
    )] if failed else []
    return make_sample(path, name, times, ("run",), errors, [f"{len(times)} runs"],
                       notices=notices)


def _parameters(entry: object) -> str:
    """What tells apart the commands of a parameter scan (-P with -n NAME names all alike)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("parameters"), dict):
        return ""
    return ", ".join(f"{key}={value if isinstance(value, str) else json_repr(value)}"
                     for key, value in entry["parameters"].items())


def parse(document: dict, path: str) -> SourceFile:
    results = document["results"]
    samples = [_command(entry, position, path) for position, entry in enumerate(results, start=1)]
    samples = disambiguate(samples, [_parameters(entry) for entry in results])
    return SourceFile(path, "hyperfine", tuple(mark_duplicates(samples, "command")))

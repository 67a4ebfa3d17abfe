"""Mutation fuzzing of every reader and of the config: bad input must never raise.

Usage: python benchmarks/fuzz.py [--cases 10000] [--seed 0] [--case N] [--save DIR] [--analyse]

Each case takes a seed input (the real tool files of tests/data/tools, a plain sample, a
hierarchical .csv sample, a long CSV, an old ReBench file, a config with its sample files),
damages it with one to three mutations (byte flips, truncations, duplications, insertions of
huge numbers, NaN, control characters and invalid UTF-8, and in JSON documents type swaps,
deletions and deep nesting), writes it to a temporary folder and reads it in-process as the
command line does: ``read_source`` and ``select`` for every benchmark of a file, and
``read_config`` followed by reading every sample it names. The only exceptions allowed are
the documented ones (``ConfigError`` from ``read_config``, ``ValueError`` from
``samples_of``). What is read must also be usable: every message printable UTF-8 without
control characters and of bounded length, every value read finite and > 0.

Prints the count of uncaught exceptions and broken invariants by place (the file:line of the
raise in speeduptest, or the invariant), one reproducible case number for each (``--case N``
runs that case alone and shows the traceback), and the run time. Case N depends only on the
seed and N. tests/end_to_end/test_fuzz.py runs a few hundred cases of the same mutator.

``--analyse`` also runs the whole command line (``speeduptest CONFIG --format json --debug``,
200 resamples) on every config case, so that what the readers accept is checked downstream
too: the statistics, the JSON writer. It is much slower (about 0.3 s a case).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import math
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from speeduptest.inputs.config import ConfigError, read_config  # noqa: E402
from speeduptest.inputs.readers import read_source, samples_of, select  # noqa: E402

TOOLS = ROOT / "tests" / "data" / "tools"
PACKAGE = str(ROOT / "speeduptest")

#: A message longer than this quotes too much of the input.
MAX_MESSAGE = 2000
#: Messages per sample (its own, the file's, the "and N more" lines).
MAX_MESSAGES = 12

# ---------------------------------------------------------------- seed inputs


@dataclasses.dataclass(frozen=True)
class Seed:
    """An input to damage: the file read (``target``) and the files beside it."""

    name: str
    files: dict[str, bytes]
    target: str  # the file damaged and read
    kind: str  # "source" (read_source + select) or "config" (read_config + every sample)


def _tool(relative: str) -> bytes:
    return (TOOLS / relative).read_bytes()


def _lines(raw: bytes, count: int) -> bytes:
    return b"\n".join(raw.splitlines()[:count]) + b"\n"


_PLAIN = b"# times of the initial build, seconds\n1.02 1.05 0.99\n1.01\n\n1.03e0 # last\n"
_HIERARCHICAL = b"build,invocation,value\n" + b"".join(
    f"{b},{i},{1 + b / 10 + i / 100:.3f}\n".encode() for b in range(1, 5) for i in range(1, 4))
_LONG_CSV = b"benchmark,version,unit,invocation,iteration,value\n" + b"".join(
    f"{name},{version},ms,{i},{j},{10 + i + j / 10 + (version == 'new'):.2f}\n".encode()
    for name in ("Bounce", "Sieve") for version in ("old", "new")
    for i in range(1, 4) for j in range(1, 3))
_HISTOGRAM = json.dumps([{
    "benchmark": "org.example.Bench.sample", "mode": "sample", "params": {"size": "10"},
    "primaryMetric": {"scoreUnit": "us/op", "rawDataHistogram": [
        [[[1.5, 3], [2.0, 1]], [[1.6, 2], [2.1, 2]]],
        [[[1.4, 4]], [[1.7, 1], [1.9, 3]]],
        [[[1.5, 2], [1.8, 2]], [[1.6, 4]]]]}}]).encode()
_HYPERFINE_SCAN = json.dumps({"results": [
    {"command": "sleep", "times": [0.11, 0.12, 0.1, 0.13], "exit_codes": [0, 0, 0, 0],
     "parameters": {"n": str(n)}} for n in (1, 2)]}).encode()
_PYPERF_UNIT = json.dumps({"version": "1.0", "metadata": {"name": "suite"}, "benchmarks": [
    {"metadata": {"name": "bench", "unit": "second", "loops": 4},
     "runs": [{"metadata": {"calibrate_loops": 4}, "warmups": [[1, 0.5]]}] + [
        {"warmups": [[4, 0.2]], "values": [0.1 + i / 100, 0.11, 0.12]} for i in range(3)]}]}
).encode()
_CONFIG = (
    b"# a config naming every kind of sample\n"
    b"benchmark,initial,optimized,weight,confidence\n"
    b"plain,initial.txt,optimized.txt,1,0.95\n"
    b"csv,initial.csv,initial.csv,2,\n"
    b'pyperf,pyperf.json#sort,pyperf.json#sort,1.5,0.99\n'
    b'"quoted, name",initial.txt,optimized.txt,,\n'
    b"hyperfine,hyperfine.json#compress,hyperfine.json#sort,1,0.9\n"
    b"rebench,benchmark.data#optimized/Cache,benchmark.data#optimized/Cache,,\n"
    b"loop,loop.txt,optimized.txt,1,\n"
)


def _rounds(relative: str, count: int = 20) -> bytes:
    """A pytest-benchmark file of the real tool with its first ``count`` rounds only."""
    document = json.loads(_tool(relative))
    for entry in document["benchmarks"]:
        entry["stats"]["data"] = entry["stats"]["data"][:count]
    return json.dumps(document, indent=1).encode()


def seeds() -> list[Seed]:
    """Every input the mutator starts from."""
    awfy = gzip.decompress((ROOT / "samples/trufflesom-splitting/are-we-there-yet.data.gz")
                           .read_bytes())
    sources = {
        "pyperf.json": _tool("pyperf/initial.json"),
        "pyperf.json.gz": _tool("pyperf/optimized.json.gz"),
        "pyperf-unit.json": _PYPERF_UNIT,
        "hyperfine.json": _tool("hyperfine/initial.json"),
        "hyperfine-scan.json": _HYPERFINE_SCAN,
        "google-benchmark.json": _tool("google-benchmark/initial.json"),
        "google-benchmark-aggregates.json": _tool(
            "google-benchmark/optimized-aggregates-only.json"),
        "jmh-avgt.json": _tool("jmh/average-time.json"),
        "jmh-thrpt.json": _tool("jmh/throughput.json"),
        "jmh-sample.json": _HISTOGRAM,
        "benchmark.data": _tool("rebench/benchmark.data"),
        "old.data": _lines(awfy, 120),
        "long.csv": _LONG_CSV,
        "go.txt": _tool("go/initial.txt"),
        "pytest-benchmark.json": _rounds("pytest-benchmark/initial.json"),
        "asv.json": _tool("asv/initial.json"),
        "sample.json": _tool("criterion/criterion/sort/100/new/sample.json"),
        "catch2.xml": _tool("catch2/initial.xml"),
        "initial.csv": _HIERARCHICAL,
        "initial.txt": _PLAIN,
    }
    result = [Seed(name, {name: raw}, name, "source") for name, raw in sources.items()]
    beside = {"initial.txt": _PLAIN, "optimized.txt": _PLAIN.replace(b"1.0", b"0.9"),
              "initial.csv": _HIERARCHICAL, "pyperf.json": sources["pyperf.json"],
              "hyperfine.json": sources["hyperfine.json"],
              "benchmark.data": sources["benchmark.data"], "config.csv": _CONFIG}
    result.append(Seed("config.csv", beside, "config.csv", "config"))
    return result


# ---------------------------------------------------------------- the mutator

_BIG = "9" * 400
_HUGE_DIGITS = "1" * 5000  # beyond Python's 4300-digit limit for int(str)
_DEEP = "[" * 100_000 + "]" * 100_000  # beyond what json reads
_NESTED = "[" * 400 + "1.5" + "]" * 400  # read, then rendered in messages
_TOKENS = [
    "nan", "NaN", "-nan", "inf", "-Infinity", "Infinity", "1e999", "-1e999", "1e-400", "1e-320",
    "5e-324", "1e308", "0", "-0", "0.0", "-1", "1_000", "0x10", "1,5", "1;5", "٣", "１", "+",
    "-", ".", "e5", "1e", "1..2", _BIG, _HUGE_DIGITS, "\x00", "\x1b[31m", "\r", "\t", "\x0b",
    "\x0c", "\x85", "\u2028", "\u202e", "\ufeff", '"', "'", ",", "#", "\\", "{", "}", "[", "]",
    ":", "\n", "\r\n", "\\ud800", "\\u0000", "\\u001b", "true", "null", "x" * 5000, "é",
]
_BYTES = [b"\xff", b"\xed\xa0\x80", b"\xc3", b"\x00", b"\x1f\x8b", b"\xef\xbb\xbf"]
_MARK = "@@{}@@"


def _json_values(rng: random.Random) -> list:
    return [
        0, -1, 1, 2.5, True, False, None, "", "x", "1.0", "nan", "second", "ms", "ns/op",
        "ops/s", [], {}, [1, 2], [[1.0]], [[[1.0]]], {"a": 1}, {"warmup": "3"},
        float("nan"), float("inf"), -float("inf"), 1e308, 1e-320, 5e-324, -0.0, 10**18,
        _MARK.format("BIG"), _MARK.format("HUGE"), _MARK.format("DEEP"), _MARK.format("NESTED"),
        {"name": _MARK.format("NESTED")}, "\ud800", "\udfff",
        "a\x1bb", "line\nbreak", "tab\there", "\u202eevil", "x" * rng.choice((50, 5000, 200_000)),
        "€", [None], [True, 1.0], ["1", "2", "3"], [1e-320, 1e-320, 1e-320], [0, 0, 0],
        [[1.0, 2.0], "x"], {"": None}, [[1.0, 3]], [[1.0, 0]], [[1.0, -1]], [["a", 1]],
    ]


def _unmark(text: str) -> str:
    return (text.replace(f'"{_MARK.format("BIG")}"', _BIG)
            .replace(f'"{_MARK.format("HUGE")}"', _HUGE_DIGITS)
            .replace(f'"{_MARK.format("DEEP")}"', _DEEP)
            .replace(f'"{_MARK.format("NESTED")}"', _NESTED))


def _token_bytes(rng: random.Random) -> bytes:
    if rng.random() < 0.15:
        return rng.choice(_BYTES)
    return rng.choice(_TOKENS).encode("utf-8")


def _nodes(document, path=(), found=None, limit=4000) -> list[tuple]:
    """Paths to (a sample of) the nodes of a JSON document."""
    found = [] if found is None else found
    if len(found) >= limit:
        return found
    found.append(path)
    if isinstance(document, dict):
        for key, value in document.items():
            _nodes(value, (*path, key), found, limit)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            _nodes(value, (*path, index), found, limit)
    return found


def _at(document, path):
    for key in path:
        document = document[key]
    return document


def mutate_json(document, rng: random.Random):
    """Change one node of a JSON document: a new value, deleted, wrapped or duplicated."""
    paths = _nodes(document)
    path = rng.choice(paths)
    if not path:
        return rng.choice([document, [document], {"x": document}, rng.choice(_json_values(rng))])
    parent, key = _at(document, path[:-1]), path[-1]
    action = rng.random()
    if action < 0.6:
        parent[key] = rng.choice(_json_values(rng))
    elif action < 0.75:
        del parent[key]
    elif action < 0.85:
        parent[key] = [parent[key]] if rng.random() < 0.5 else {"value": parent[key]}
    elif isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(parent[key])))
    else:
        parent[rng.choice(["metadata", "name", "unit", "values", "times", "rawData", "x"])] = (
            json.loads(json.dumps(parent[key])))
    return document


def mutate_bytes(raw: bytes, rng: random.Random) -> bytes:
    """One byte-level damage."""
    size = len(raw)
    at = rng.randrange(size + 1) if size else 0
    action = rng.randrange(8)
    if action == 0 and size:  # flip bits of a few bytes
        data = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(size)] ^= 1 << rng.randrange(8)
        return bytes(data)
    if action == 1:  # truncate
        return raw[:at]
    if action == 2 and size:  # delete a range
        return raw[:at] + raw[at + rng.randint(1, 64):]
    if action == 3 and size:  # duplicate a range
        end = min(size, at + rng.randint(1, 200))
        return raw[:end] + raw[at:end] + raw[end:]
    if action == 4:  # swap two lines
        lines = raw.split(b"\n")
        if len(lines) > 2:
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if action == 5:  # replace a number with a hostile token
        numbers = list(re.finditer(rb"[0-9][0-9.eE+\-]*", raw[:200_000]))
        if numbers:
            match = rng.choice(numbers)
            return raw[:match.start()] + _token_bytes(rng) + raw[match.end():]
    if action == 6:  # replace a cell or word with a hostile token
        cells = list(re.finditer(rb"[^,\t\n\" ]+", raw[:200_000]))
        if cells:
            match = rng.choice(cells)
            return raw[:match.start()] + _token_bytes(rng) + raw[match.end():]
    return raw[:at] + _token_bytes(rng) + raw[at:]  # insert


def damage(raw: bytes, rng: random.Random) -> bytes:
    """One to three mutations of a file's content (of its decompressed content, mostly, when
    it is gzip: then compressed again)."""
    packed = raw[:2] == b"\x1f\x8b"
    if packed and rng.random() < 0.8:
        raw = gzip.decompress(raw)
    else:
        packed = False
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        document = None
        if rng.random() < 0.6 and raw[:1] in (b"{", b"["):
            try:
                document = json.loads(raw)
            except (ValueError, RecursionError):
                document = None
        if document is not None:
            text = json.dumps(mutate_json(document, rng), indent=rng.choice((None, 1)))
            raw = _unmark(text).encode("utf-8", "surrogatepass")
            raw = raw.replace(b"\xed\xa0\x80", b"\\ud800")  # dumps escapes; keep JSON valid
        else:
            raw = mutate_bytes(raw, rng)
    if packed:
        raw = gzip.compress(raw, mtime=0)
        if rng.random() < 0.2:
            raw = mutate_bytes(raw, rng)
    elif rng.random() < 0.03:
        raw = gzip.compress(raw, mtime=0)
    return raw


def mutate(seed: Seed, rng: random.Random) -> dict[str, bytes]:
    """The files of one case: the seed's, with its target damaged (and, for a config, half
    the time one of the sample files it names, or only that file)."""
    files = dict(seed.files)
    others = sorted(name for name in files if name != seed.target)
    if others and rng.random() < 0.5:
        other = rng.choice(others)
        files[other] = damage(files[other], rng)
        if rng.random() < 0.5:
            return files
    files[seed.target] = damage(files[seed.target], rng)
    return files


# ---------------------------------------------------------------- running a case


@dataclasses.dataclass
class Failure:
    place: str  # file:line of the raise in speeduptest, or "invariant: …"
    detail: str
    trace: str = ""


def _bad_characters(text: str) -> str | None:
    for character in text:
        category = unicodedata.category(character)
        if category in ("Cc", "Cs") or character in "\u2028\u2029":
            return f"character {character!r}"
    return None


def _check_text(text: object, what: str, failures: list[Failure], limit: int = MAX_MESSAGE):
    if text is None:
        return
    text = str(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        failures.append(Failure(f"invariant: {what} not UTF-8", repr(text[:80])))
        return
    bad = _bad_characters(text)
    if bad:
        failures.append(Failure(f"invariant: {what} holds a control character",
                                f"{bad} in {text[:80]!r}"))
    if len(text) > limit:
        failures.append(Failure(f"invariant: {what} too long", f"{len(text)} characters"))


def _values(node) -> list[float]:
    if isinstance(node, list):
        return [v for child in node for v in _values(child)]
    return [float(v) for v in node]


def check_sample(sample, failures: list[Failure], where: str) -> None:
    """What the analysis relies on: printable bounded messages, finite positive values."""
    _check_text(sample.problem, f"{where} problem", failures)
    _check_text(sample.name, f"{where} name", failures, limit=10**9)
    _check_text(sample.variant, f"{where} variant", failures, limit=10**9)
    messages = list(sample.errors) + [n.message for n in sample.notices] + list(sample.notes)
    for message in messages:
        _check_text(message, f"{where} message", failures)
    if len(sample.errors) > MAX_MESSAGES:
        failures.append(Failure(f"invariant: {where} too many errors",
                                f"{len(sample.errors)} errors"))
    if sample.data is not None:
        for name in sample.data.level_names:
            _check_text(name, f"{where} level name", failures)
        values = _values(sample.data.root) if sample.data.depth > 1 else list(sample.data.root)
        if not values or not all(math.isfinite(v) and v > 0 for v in values):
            failures.append(Failure(f"invariant: {where} value not finite > 0",
                                    str([v for v in values if not (math.isfinite(v) and v > 0)]
                                        [:3])))
        if not all(math.isfinite(m) for m in sample.data.top_level_means):
            failures.append(Failure(f"invariant: {where} mean not finite", ""))


def _read(file: Path, selection: str | None, failures: list[Failure]) -> None:
    source = read_source(file)
    _check_text(source.problem, "file problem", failures)
    names = [None, "no such benchmark", *(s.label for s in source.samples[:20]),
             *(s.name for s in source.samples[:5] if s.name)]
    if selection is not None:
        names.append(selection)
    for name in names:
        check_sample(select(source, name), failures, "sample")
    try:
        for sample in samples_of(source, None):
            check_sample(sample, failures, "compared sample")
    except ValueError as error:
        _check_text(error, "samples_of error", failures, limit=10 * MAX_MESSAGE)


def _analyse(config: Path, failures: list[Failure]) -> None:
    """The whole command line on a config case: only exit statuses 0, 1 and 2 are expected,
    with a results.json in strict JSON when it was written."""
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO

    from speeduptest.cli import main as command_line

    out = config.parent / "report"
    with redirect_stdout(StringIO()), redirect_stderr(StringIO()):
        status = command_line([str(config), "-o", str(out), "--format", "json", "--quiet",
                               "--bootstrap", "200", "--debug"])
    if status not in (0, 1, 2):
        failures.append(Failure(f"invariant: exit status {status}", str(config)))
    results = out / "results.json"
    if results.exists():
        json.loads(results.read_text(encoding="utf-8"), parse_constant=_no_constant)


def _no_constant(name: str):
    raise ValueError(f"results.json holds {name}: not strict JSON")


def run_files(seed: Seed, files: dict[str, bytes], folder: Path,
              analyse: bool = False) -> list[Failure]:
    """Write a case's files to ``folder`` and read them as the command line would."""
    for name, raw in files.items():
        (folder / name).write_bytes(raw)
    if seed.kind == "config":
        loop = folder / "loop.txt"
        if not loop.is_symlink():
            loop.symlink_to("loop.txt")
    failures: list[Failure] = []
    try:
        if seed.kind == "source":
            _read(folder / seed.target, None, failures)
            return failures
        try:
            config = read_config(folder / seed.target)
        except ConfigError as error:
            _check_text(error, "config error", failures)
            return failures
        for notice in config.notices:
            _check_text(notice.message, "config notice", failures)
        for spec in config.benchmarks:
            _check_text(spec.name, "benchmark name", failures, limit=10**9)
            for error in spec.errors:
                _check_text(error, "config row error", failures)
            if spec.errors:
                continue
            for file, selection in ((spec.initial, spec.initial_selection),
                                    (spec.optimized, spec.optimized_selection)):
                Path(file).resolve()  # (a hostile path resolves without an error)
                _read(file, selection, failures)
        if analyse:
            _analyse(folder / seed.target, failures)
    except Exception as error:  # what the fuzzer is looking for
        failures.append(Failure(_place(error), f"{type(error).__name__}: {str(error)[:120]}",
                                traceback.format_exc()))
    return failures


def _place(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if frame.filename.startswith(PACKAGE)]
    frame = (ours or frames)[-1]
    shown = Path(frame.filename)
    shown = shown.relative_to(ROOT) if shown.is_relative_to(ROOT) else shown
    return f"{shown}:{frame.lineno} {type(error).__name__}"


def case(seed_value: int, number: int, all_seeds: list[Seed]) -> tuple[Seed, dict[str, bytes]]:
    """Case ``number``: depends only on the seed value and the number."""
    rng = random.Random(f"{seed_value}:{number}")
    seed = all_seeds[number % len(all_seeds)]
    return seed, mutate(seed, rng)


@dataclasses.dataclass
class Report:
    cases: int
    seconds: float
    failures: Counter  # place → count
    examples: dict[str, tuple[int, str]]  # place → (case number, detail)
    slowest: list[tuple[float, int, str]]


def run(cases: int, seed_value: int = 0, save: Path | None = None,
        first: int = 0, analyse: bool = False) -> Report:
    """Run cases ``first`` … ``first + cases - 1`` (with ``analyse``: the config cases only,
    through the whole command line)."""
    all_seeds = seeds()
    failures: Counter = Counter()
    examples: dict[str, tuple[int, str]] = {}
    timings: list[tuple[float, int, str]] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="speeduptest-fuzz-") as temporary:
        for number in range(first, first + cases):
            seed, files = case(seed_value, number, all_seeds)
            if analyse and seed.kind != "config":
                continue
            folder = Path(temporary) / str(number)
            folder.mkdir()
            began = time.perf_counter()
            found = run_files(seed, files, folder, analyse)
            timings.append((time.perf_counter() - began, number, seed.name))
            for failure in found:
                failures[failure.place] += 1
                examples.setdefault(failure.place, (number, f"{seed.name}: {failure.detail}"))
                if save is not None:
                    target = save / f"case-{number}"
                    if not target.exists():
                        shutil.copytree(folder, target, symlinks=True)
            shutil.rmtree(folder)
    timings.sort(reverse=True)
    return Report(len(timings), time.perf_counter() - start, failures, examples, timings[:5])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case", type=int, help="run this case alone, with tracebacks")
    parser.add_argument("--save", type=Path, help="copy the files of failing cases here")
    parser.add_argument("--analyse", action="store_true",
                        help="also run the whole command line on the config cases")
    args = parser.parse_args(argv)
    if args.case is not None:
        seed, files = case(args.seed, args.case, seeds())
        with tempfile.TemporaryDirectory(prefix="speeduptest-fuzz-") as temporary:
            found = run_files(seed, files, Path(temporary), args.analyse)
            print(f"case {args.case}: {seed.name}, {len(found)} failure(s)")
            for failure in found:
                print(f"{failure.place}: {failure.detail}\n{failure.trace}")
        return 1 if found else 0
    if args.save is not None:
        args.save.mkdir(parents=True, exist_ok=True)
    report = run(args.cases, args.seed, args.save, analyse=args.analyse)
    exceptions = sum(count for place, count in report.failures.items()
                     if not place.startswith("invariant"))
    broken = sum(report.failures.values()) - exceptions
    print(f"{report.cases} cases in {report.seconds:.1f} s: {exceptions} uncaught exceptions, "
          f"{broken} broken invariants, in {len(report.failures)} places")
    for place, count in report.failures.most_common():
        number, detail = report.examples[place]
        print(f"  {count:6d}  {place}  (e.g. case {number}: {detail})")
    print("slowest cases: " + ", ".join(f"{number} ({name}) {seconds:.2f} s"
                                       for seconds, number, name in report.slowest))
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())

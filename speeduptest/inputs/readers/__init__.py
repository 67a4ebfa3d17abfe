"""Reading the files benchmark tools write, whatever the tool.

A *source file* holds one or more samples. A plain sample file (numbers, or a hierarchical
``.csv`` sample) holds one; a result file of pyperf, hyperfine, Google Benchmark, JMH or ReBench,
or a long CSV, holds one per benchmark (and per version, for ReBench and long CSVs). The format
is recognised from the content, helped by the extension; ``.gz`` files are decompressed first.

A config names a sample as ``path`` or ``path#name``, where name selects a benchmark, command or
version inside the file. Every reader converts times to seconds and says so (``Sample.unit``).

Problems are located as precisely as the format allows: a line for text formats, the benchmark
and run for JSON formats. A problem that cannot be tied to one benchmark of a file (a truncated
JSON document, a line without a benchmark name) is reported for every benchmark read from that
file: no value is ever dropped without the user being told.

Files are untrusted input: whatever their content, reading them raises nothing (problems become
located errors), no file larger than ``MAX_BYTES`` is read and no gzip file is decompressed
beyond it, and names holding control characters or invalid text (a lone surrogate from a JSON
escape) are shown with those characters replaced, with a warning. Nor does reading wait for
what may never come: only regular files are read, and pipes that the shell made for the
command (``<(…)``, a standard input on a pipe), not named pipes, devices or sockets.
"""

from __future__ import annotations

import codecs
import dataclasses
import difflib
import functools
import hashlib
import importlib
import json
import os
import stat
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Literal

import numpy as np

from speeduptest.inputs.readers.common import InputError, SourceFile, bounded, csv_sample, named
from speeduptest.inputs.samples import (
    MAX_NAME,
    NUMBER_START,
    Sample,
    parse_sample_text,
    plain_values,
    shortened,
    visible,
)
from speeduptest.notices import Notice
from speeduptest.stats.hierarchy import Hierarchy

__all__ = ["DEFAULT_OPTIONS", "ReadOptions", "SourceFile", "plain_digest", "read_digest",
           "read_source", "select", "split_reference"]


@dataclass(frozen=True)
class ReadOptions:
    """Choices a user makes about how result files are read."""

    #: Google Benchmark records both wall-clock ("real") and CPU time per repetition.
    time: Literal["real", "cpu"] = "real"
    #: The samples are to be resampled by the hierarchical bootstrap (an analysis): one too
    #: unbalanced to be resampled within bounds is an error (``speeduptest plan`` reads them).
    bootstrap: bool = True
    #: The metric of Go benchmark results to compare, by its unit as written (``B/op``,
    #: ``allocs/op``, ``MB/s``, a ``b.ReportMetric`` unit); None: the time per call.
    metric: str | None = None


DEFAULT_OPTIONS = ReadOptions()


def _reader(name: str) -> ModuleType:
    """The reader of a tool's files (a module of this package), imported when a file asks
    for it: most runs read plain samples only, and the eleven readers are ~15 ms of a run's
    start-up where their source is compiled."""
    return importlib.import_module(f"{__name__}.{name}")


#: No file larger than this is read, and no gzip file is decompressed beyond it.
MAX_BYTES = 1 << 30
#: Decompressed at a time, so that a gzip bomb is stopped soon after ``MAX_BYTES``.
_CHUNK = 1 << 24

#: Shown when a JSON document is none of the formats known.
JSON_FORMATS = ("pyperf, hyperfine --export-json, Google Benchmark --benchmark_format=json, "
                "JMH -rf json, pytest-benchmark --benchmark-json, asv results, Criterion "
                "sample.json")


def split_reference(reference: str, base: Path) -> tuple[Path, str | None]:
    """``path#name`` → (path, name), relative to ``base``. The split is at the first ``#``
    after which a file exists, so that both paths and names may hold a ``#`` (hyperfine
    names a command by its command line: ``gzip -9 # level``)."""
    if "#" not in reference or _is_file(base / reference):
        return base / reference, None
    cuts = [i for i, character in enumerate(reference) if character == "#"]
    cut = next((i for i in cuts if _is_file(base / reference[:i])), cuts[0])
    return base / reference[:cut], reference[cut + 1:].strip() or None


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; False when it cannot be known (a path too long, a symbolic
    link loop: ``Path.is_file`` raises for some of these)."""
    return os.path.isfile(path)


def _size(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"


def _gunzip(raw: bytes, limit: int) -> tuple[bytes | None, str | None]:
    """The content of a gzip file (all its members), or why it cannot be had: damaged,
    truncated, or more than ``limit`` bytes once decompressed (a decompression bomb is stopped
    there, not decompressed whole)."""
    out = bytearray()
    data = raw
    while True:
        decompressor = zlib.decompressobj(wbits=31)  # one gzip member
        try:
            while not decompressor.eof:
                chunk = decompressor.decompress(data, _CHUNK)
                data = decompressor.unconsumed_tail
                if not chunk and not data:
                    break  # out of input before the end of the member
                out += chunk
                if len(out) > limit:
                    return None, f"decompresses to more than {_size(limit)}: not read"
        except zlib.error as error:
            return None, f"cannot be decompressed ({error}): is it damaged?"
        if not decompressor.eof:
            return None, "cannot be decompressed (it ends early): was it truncated?"
        data = decompressor.unused_data.lstrip(b"\x00")  # gzip allows zero padding
        if not data:
            return bytes(out), None
        if data[:2] != b"\x1f\x8b":
            return None, ("cannot be decompressed (data after the end of the compressed "
                          "stream): is it damaged?")


def _json_problem(error: json.JSONDecodeError, text: str) -> str:
    ended_early = not text.rstrip().endswith(("}", "]"))
    hint = " (the file ends early: was it truncated?)" if ended_early else ""
    return f"is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno}){hint}"


def _parse_json(text: str, path: str, options: ReadOptions) -> SourceFile:
    if not text.strip():
        return SourceFile(path, "JSON", (), problem="is empty")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        return SourceFile(path, "JSON", (), problem=_json_problem(error, text))
    except RecursionError:
        return SourceFile(path, "JSON", (), problem=(
            "is not read: its JSON is nested too deeply (lists or objects inside one another "
            "more deeply than Python can read)"))
    except ValueError:  # an integer of more digits than Python converts (4300)
        return SourceFile(path, "JSON", (), problem=(
            "is not read: it holds a number with too many digits to be a time"))
    if isinstance(document, dict):
        if "context" in document and isinstance(document.get("benchmarks"), list):
            return _reader("google_benchmark").parse(document, path, options.time)
        if _reader("pytest_benchmark").looks_like(document):
            return _reader("pytest_benchmark").parse(document, path)
        if _reader("asv").looks_like(document):
            return _reader("asv").parse(document, path)
        if _reader("criterion").looks_like(document):
            return _reader("criterion").parse_sample(document, path)
        if _reader("asv").is_benchmark_list(document):
            return SourceFile(path, "asv", (), problem=(
                "is asv's list of benchmarks (benchmarks.json), which holds no result: give "
                "a result file, .asv/results/MACHINE/COMMIT-ENVIRONMENT.json"))
        if isinstance(document.get("results"), list):
            return _reader("hyperfine").parse(document, path)
        if isinstance(document.get("benchmarks"), list):
            return _reader("pyperf").parse(document, path)
    if isinstance(document, list) and document and all(
            isinstance(item, dict) and "primaryMetric" in item for item in document):
        return _reader("jmh").parse(document, path)
    return SourceFile(path, "JSON", (),
                      problem=f"is a JSON file of no format speeduptest reads ({JSON_FORMATS})")


def parse_source(raw: bytes, path: str, filename: str,
                 options: ReadOptions = DEFAULT_OPTIONS) -> SourceFile:
    """Recognise the format of a file's content and read it. ``path`` locates errors."""
    source = _printable(_parse(raw, path, filename, options))
    return bounded(source) if options.bootstrap else source


def _suffixes(filename: str) -> list[str]:
    """``Path(filename).suffixes`` in lower case, without building a Path (20,000 files)."""
    if filename.endswith("."):
        return []
    return ["." + suffix.lower() for suffix in filename.lstrip(".").split(".")[1:]]


def _last_suffix(filename: str) -> str:
    """The last of :func:`_suffixes` ("" for none), found four times faster."""
    if filename.endswith("."):
        return ""
    name = filename.lstrip(".")
    dot = name.rfind(".")
    return "" if dot < 0 else name[dot:].lower()


def _parse(raw: bytes, path: str, filename: str, options: ReadOptions) -> SourceFile:
    suffixes = _suffixes(filename)
    if raw[:2] == b"\x1f\x8b":
        raw, problem = _gunzip(raw, MAX_BYTES)
        if raw is None:
            return SourceFile(path, "gzip", (), problem=problem)
        suffixes = suffixes[:-1] if suffixes[-1:] == [".gz"] else suffixes
    try:  # as "utf-8-sig" decodes (the codec's Python wrapper costs more than the decoding)
        text = (raw[3:] if raw[:3] == codecs.BOM_UTF8 else raw).decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return SourceFile(path, "text", (), problem=f"is not a text file (bad byte at line {line})")
    if "\x00" in text:
        return SourceFile(path, "text", (), problem="is not a text file (it contains NUL bytes)")
    suffix = suffixes[-1] if suffixes else ""
    start = text.lstrip()[:1]
    if suffix == ".json" or start in ("{", "["):
        return _parse_json(text, path, options)
    rebench = _reader("rebench")
    if rebench.looks_like(text):  # not by extension: plain samples may be called .data
        return rebench.parse(text, path)
    if start == "<" and _reader("catch2").looks_like(text):
        return _reader("catch2").parse(text, path)
    if suffix == ".csv":
        if _reader("long_csv").looks_like(text):
            return _reader("long_csv").parse(text, path)
        return SourceFile(path, "sample", (csv_sample(text, path),))
    if _reader("go_bench").looks_like(text):
        return _reader("go_bench").parse(text, path, options.metric)
    return SourceFile(path, "sample", (parse_sample_text(text, path),))


def read_source(file: Path, display: str | None = None,
                options: ReadOptions = DEFAULT_OPTIONS, content: bytes | None = None
                ) -> SourceFile:
    """Read and recognise a file; ``display`` is how its path is shown to the user (by
    default, the path as given, normalised). ``content``: the file's bytes when already read
    (:mod:`speeduptest.runtime.prefetch`)."""
    display = visible(display) if display is not None else _display_of(file)
    if content is None and os.path.isdir(file):
        folder = (_reader("criterion").read_folder(Path(file), display, _read_within_limit)
                  or _reader("catch2").read_folder(Path(file), display, _read_within_limit))
        if folder is not None:
            folder = _printable(folder)
            return bounded(folder) if options.bootstrap else folder
    try:
        raw = _read_bytes(file) if content is None else content
    except _NotAFile as error:
        return SourceFile(display, "file", (), problem=not_a_file(error.mode))
    except FileNotFoundError:
        return SourceFile(display, "file", (), problem="file not found")
    except IsADirectoryError:
        return SourceFile(display, "file", (), problem="is a directory, not a file")
    except OSError as error:
        return SourceFile(display, "file", (), problem=f"cannot be read ({error.strerror})")
    except ValueError:  # a NUL character in the path
        return SourceFile(display, "file", (), problem="cannot be read (invalid file name)")
    if raw is None or len(raw) > MAX_BYTES:
        return SourceFile(display, "file", (), problem=f"is larger than {_size(MAX_BYTES)}: "
                          "not read")
    sha256 = hashlib.sha256(raw).hexdigest()
    filename = os.path.basename(file)
    plain = _plain_sample(raw, filename)
    if plain is not None:
        return _plain_source(display, plain, sha256)
    source = parse_source(raw, display, filename, options)
    return SourceFile(source.path, source.format, source.samples, problem=source.problem,
                      errors=source.errors, sha256=sha256, notices=source.notices)


def _read_within_limit(file: Path) -> bytes | None:
    """A file's bytes for a reader of folders (Criterion's, Catch2's); None when larger than
    ``MAX_BYTES``; ``OSError`` when it cannot be read or is not a regular file."""
    try:
        raw = _read_bytes(file)
    except _NotAFile as error:
        raise OSError(not_a_file(error.mode)) from None
    except ValueError:
        raise OSError("invalid file name") from None
    return raw if raw is not None and len(raw) <= MAX_BYTES else None


def _plain_source(display: str, values: np.ndarray, sha256: str) -> SourceFile:
    """What :func:`parse_source` makes of a plain sample, without its steps (and the sample
    with its checksum already, as :func:`select` gives it)."""
    return SourceFile(display, "sample", (Sample(display, Hierarchy.flat(values), sha256=sha256),),
                      sha256=sha256)


#: Bytes of a SHA-256 in hexadecimal, at the start of a :func:`plain_digest`.
_HEX_DIGEST = 64


def plain_digest(file: str | Path, raw: bytes) -> bytes | None:
    """What the prefetch child sends of a plain sample file instead of its bytes (the step of
    :func:`read_source` that it can take over): its SHA-256 in hexadecimal and its values as
    float64 bytes; None for any other file."""
    plain = _plain_sample(raw, os.path.basename(file))
    if plain is None:
        return None
    return hashlib.sha256(raw).hexdigest().encode("ascii") + plain.tobytes()


def read_digest(file: str | Path, digest: bytes, display: str | None = None) -> SourceFile:
    """:func:`read_source` of a plain sample file from its :func:`plain_digest`; ``display``:
    how its path is shown, when known already (by default, as given, normalised)."""
    values = np.frombuffer(digest, dtype=float, offset=_HEX_DIGEST)
    return _plain_source(_display_of(file) if display is None else display, values,
                         digest[:_HEX_DIGEST].decode("ascii"))


def _display_of(file: Path) -> str:
    """How a file read without a display name is shown: its path as given, normalised."""
    return visible(os.path.normpath(str(file)))


def _plain_sample(raw: bytes, filename: str) -> np.ndarray | None:
    """The values of a file that :func:`_parse` reads as a plain sample without a problem
    (the common case, 20,000 files for 10,000 benchmarks), found with its checks in a few
    lines; None for anything else, which goes the whole way."""
    if raw[:2] == b"\x1f\x8b" or raw[:3] == codecs.BOM_UTF8:
        return None
    if _last_suffix(filename) in (".json", ".csv"):
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.lstrip()[:1] not in NUMBER_START:  # also: empty
        return None
    return plain_values(text)  # (a NUL is not plain either)


class _NotAFile(Exception):
    """A file that is not read: neither a regular file nor a pipe made for the command."""

    def __init__(self, mode: int) -> None:
        super().__init__(mode)
        self.mode = mode


def not_a_file(mode: int) -> str:
    """Why a file of this type (``stat.S_IFMT``, or the whole ``st_mode``) is not read as a
    sample: anything but a regular file could make the command wait forever (a named pipe
    nobody writes to, a terminal) or read without end (``/dev/zero``)."""
    kind = stat.S_IFMT(mode)
    if kind == stat.S_IFDIR:
        return "is a directory, not a file"
    what = {stat.S_IFIFO: "a pipe (FIFO)", stat.S_IFCHR: "a character device",
            stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}.get(kind, "a special file")
    return f"is {what}, not a regular file: it was not read (give a file)"


@functools.cache
def _pipe_device() -> int | None:
    """The device of the pipes that the kernel makes for programs (not named pipes, which
    belong to the file system holding them); None if no pipe can be had to find it."""
    try:
        ends = os.pipe()
    except OSError:
        return None
    try:
        return os.fstat(ends[0]).st_dev
    finally:
        for end in ends:
            os.close(end)


def made_for_the_command(status: os.stat_result) -> bool:
    """Whether the file of this stat is a pipe that the shell made for the command (``<(…)``,
    a standard input on a pipe): read, waiting for its writer, which is running (or has
    written all and ended). A named pipe is not: opened while no program writes to it, it
    could wait forever."""
    return stat.S_ISFIFO(status.st_mode) and status.st_dev == _pipe_device()


def _read_bytes(file: Path) -> bytes | None:
    """A file's content, or None when it states more than MAX_BYTES (more than MAX_BYTES
    bytes returned: it grew beyond). With the system calls themselves: ``open()`` adds an
    fstat, an ioctl and an lseek per file (60,000 calls for 10,000 benchmarks). Opened
    without waiting (a named pipe nobody writes to, a terminal line): raises ``_NotAFile``
    for anything but a regular file or a pipe made for the command
    (:func:`made_for_the_command`)."""
    descriptor = os.open(file, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        status = os.fstat(descriptor)
        regular = stat.S_ISREG(status.st_mode)
        if not regular:
            if not made_for_the_command(status):
                raise _NotAFile(status.st_mode)
            os.set_blocking(descriptor, True)  # the data comes as its writer sends it
        elif status.st_size > MAX_BYTES:
            return None
        # Asking for the stated size (+1) spares an allocation of MAX_BYTES per file (25 µs
        # each). A regular file that returns no more is read whole; a pipe states no size (a
        # read may return less than is to come), and a file may have grown.
        raw = os.read(descriptor, status.st_size + 1)
        if len(raw) <= status.st_size and regular:
            return raw
        chunks, total = [raw], len(raw)
        while total <= MAX_BYTES:
            chunk = os.read(descriptor, min(MAX_BYTES + 1 - total, 1 << 24))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _printable(source: SourceFile) -> SourceFile:
    """Names with control characters or lone surrogates shown with those replaced (U+FFFD;
    tabs and line breaks as spaces), with a warning; any such character left in a message
    replaced too, so that nothing read can break a terminal, a report or an encoder."""
    if _all_visible(source):
        return source
    samples, changed = [], False
    for sample in source.samples:
        name = None if sample.name is None else visible(sample.name)
        variant = None if sample.variant is None else visible(sample.variant)
        if (name, variant) != (sample.name, sample.variant):
            shown = "/".join(part for part in (variant, name) if part)
            sample = dataclasses.replace(sample, name=name, variant=variant, notices=(
                *sample.notices, Notice(
                    "input-name-replaced",
                    f"{source.path}: the name {named(shown)} held control characters or "
                    "invalid text (a lone surrogate); they are shown as '\ufffd' (tabs and line "
                    "breaks as spaces).",
                    "Give the benchmark a printable name in the tool (e.g. hyperfine "
                    "--command-name); in the config, name it as shown here.")))
            changed = True
        samples.append(dataclasses.replace(
            sample, problem=_visible(sample.problem),
            errors=tuple(_visible_error(error) for error in sample.errors),
            notes=tuple(visible(note) for note in sample.notes),
            notices=tuple(_visible_notice(notice) for notice in sample.notices)))
    if changed:  # names that differed only by such characters cannot be told apart
        samples = _mark_same_labels(samples)
    return dataclasses.replace(
        source, samples=tuple(samples), problem=_visible(source.problem),
        errors=tuple(_visible_error(error) for error in source.errors),
        notices=tuple(_visible_notice(notice) for notice in source.notices))


def _all_visible(source: SourceFile) -> bool:
    """Nothing to replace (the common case, checked without building anything)."""
    texts = [source.problem, *(text for error in source.errors
                               for text in (error.message, error.path)),
             *(text for notice in source.notices for text in (notice.message, notice.advice))]
    for sample in source.samples:
        texts += [sample.name, sample.variant, sample.problem, *sample.notes,
                  *(text for error in sample.errors for text in (error.message, error.path)),
                  *(text for notice in sample.notices for text in (notice.message,
                                                                    notice.advice))]
    return all(text is None or visible(text) == text for text in texts)


def _visible(text: str | None) -> str | None:
    return None if text is None else visible(text)


def _visible_error(error: InputError) -> InputError:
    message, path = visible(error.message), _visible(error.path)
    return (error if (message, path) == (error.message, error.path)
            else dataclasses.replace(error, message=message, path=path))


def _visible_notice(notice: Notice) -> Notice:
    message, advice = visible(notice.message), _visible(notice.advice)
    return (notice if (message, advice) == (notice.message, notice.advice)
            else dataclasses.replace(notice, message=message, advice=advice))


def _mark_same_labels(samples: list[Sample]) -> list[Sample]:
    counts: dict[str, int] = {}
    for sample in samples:
        counts[sample.label] = counts.get(sample.label, 0) + 1
    return [sample if counts[sample.label] == 1 else Sample(
        sample.path, None, (InputError(sample.path, None, (
            f"{counts[sample.label]} benchmarks are named {named(sample.label)} once their "
            "control characters are replaced: speeduptest cannot tell which one to use")),),
        name=sample.name, variant=sample.variant, unit=sample.unit, notices=sample.notices)
        for sample in samples]


def _listing(samples: tuple[Sample, ...] | list[Sample], limit: int = 8) -> str:
    labels = [sample.label for sample in samples]
    more = f", … ({len(labels) - limit} more)" if len(labels) > limit else ""
    return ", ".join(named(label) for label in labels[:limit]) + more


def _guess(name: str, labels: list[str]) -> str:
    """"; did you mean 'X'?" for a close label (short names only: the comparison is slow on
    long ones)."""
    if len(name) > 200:
        return ""
    close = difflib.get_close_matches(name, [label for label in labels[:10_000]
                                             if len(label) <= 200], 1)
    return f"; did you mean {named(close[0])}?" if close else ""


def _failed(source: SourceFile, display: str, problem: str) -> Sample:
    return Sample(display, None, problem=problem, sha256=source.sha256)


def _in_file(source: SourceFile, sample: Sample, display: str) -> Sample:
    """A sample as the user named it, with its file's checksum and the file-wide problems."""
    if (sample.path == display and sample.sha256 == source.sha256 and not source.errors
            and not source.notices):
        return sample  # already so (a plain sample file)
    return Sample(display, sample.data, source.errors + sample.errors, problem=sample.problem,
                  sha256=source.sha256, name=sample.name, variant=sample.variant,
                  unit=sample.unit, notes=sample.notes, notices=source.notices + sample.notices)


def select(source: SourceFile, name: str | None) -> Sample:
    """The one sample of ``source`` that ``name`` designates (all of it when ``name`` is None).

    The result carries every problem that concerns it: its own, and those of its file that no
    benchmark could be blamed for.
    """
    display = f"{source.path}#{shortened(visible(name), MAX_NAME)}" if name else source.path
    wanted = f"benchmark {named(name)}" if name else "it"
    if source.problem is not None:
        what = f"; {wanted} cannot be read" if name else ""
        return _failed(source, display, f"{source.problem}{what}")
    if name is None:
        if len(source.samples) > 1:
            return _failed(source, display, (
                f"is a {source.format} file with {len(source.samples)} benchmarks; choose one "
                f"with {source.path}#NAME, NAME one of {_listing(source.samples)}"))
        chosen = list(source.samples)
    elif source.format == "sample":
        return _failed(source, display, "holds a single sample: '#name' selects a benchmark "
                       f"only in a result file ({JSON_FORMATS}, ReBench .data, long CSV)")
    else:
        positions = {*source.by_label.get(name, ()), *source.by_label.get(visible(name), ())}
        chosen = [source.samples[position] for position in sorted(positions)]
        if not chosen:
            guess = _guess(name, [s.label for s in source.samples])
            return _failed(source, display, (
                f"has no benchmark {named(name)} (this {source.format} file holds "
                f"{_listing(source.samples)}){guess}"))
        if len(chosen) > 1 and len({sample.label for sample in chosen}) == 1 and all(
                sample.errors for sample in chosen):
            chosen = chosen[:1]  # a name the file repeats: the error says so
        if len(chosen) > 1:
            return _failed(source, display, (
                f"has {len(chosen)} benchmarks matching {named(name)} ({_listing(chosen)}); "
                "name one of them"))
    if not chosen:
        return Sample(display, None, source.errors, sha256=source.sha256)
    return _in_file(source, chosen[0], display)


def samples_of(source: SourceFile, variant: str | None) -> list[Sample]:
    """Every sample of ``source`` (of one version, when ``variant`` names one), for
    ``speeduptest compare``. Raises ``ValueError`` with the reason when there are none."""
    if source.problem is not None:
        raise ValueError(f"{source.path}: {source.problem}")
    samples = list(source.samples)
    if variant is not None:
        samples = [s for s in samples if variant in (s.variant, s.name)
                   or visible(variant) in (s.variant, s.name)]
        if not samples:
            choices = sorted({s.variant or s.name or "" for s in source.samples} - {""})
            shown = ", ".join(shortened(choice, MAX_NAME) for choice in choices[:12]) or "nothing"
            raise ValueError(f"{source.path}: no version or benchmark {named(variant)} (it "
                             f"holds: {shown}){_guess(variant, choices)}")
    variants = sorted({s.variant for s in samples if s.variant})
    if len(variants) > 1:
        shown = ", ".join(shortened(v, MAX_NAME) for v in variants[:12]) + (
            ", …" if len(variants) > 12 else "")
        raise ValueError(
            f"{source.path} holds {len(variants)} versions ({shown}): choose one with "
            f"{source.path}#VERSION")
    return [_in_file(source, s, f"{source.path}#{s.label}" if s.label else source.path)
            for s in samples]


__all__ += ["InputError", "made_for_the_command", "not_a_file", "parse_source", "samples_of"]

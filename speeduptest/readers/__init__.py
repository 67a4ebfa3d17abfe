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
"""

from __future__ import annotations

import dataclasses
import difflib
import gzip
import hashlib
import json
import os
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..samples import Sample, parse_sample_csv, parse_sample_text
from . import google_benchmark, hyperfine, jmh, long_csv, pyperf, rebench
from .common import InputError, SourceFile

__all__ = ["DEFAULT_OPTIONS", "ReadOptions", "SourceFile", "read_source", "select",
           "split_reference"]


@dataclass(frozen=True)
class ReadOptions:
    """Choices a user makes about how result files are read."""

    #: Google Benchmark records both wall-clock ("real") and CPU time per repetition.
    time: Literal["real", "cpu"] = "real"


DEFAULT_OPTIONS = ReadOptions()


#: Shown when a JSON document is none of the formats known.
JSON_FORMATS = ("pyperf, hyperfine --export-json, Google Benchmark --benchmark_format=json, "
                "JMH -rf json")


def split_reference(reference: str, base: Path) -> tuple[Path, str | None]:
    """``path#name`` → (path, name), relative to ``base``. The split is at the first ``#``
    after which a file exists, so that both paths and names may hold a ``#`` (hyperfine
    names a command by its command line: ``gzip -9 # level``)."""
    if "#" not in reference or (base / reference).is_file():
        return base / reference, None
    cuts = [i for i, character in enumerate(reference) if character == "#"]
    cut = next((i for i in cuts if (base / reference[:i]).is_file()), cuts[0])
    return base / reference[:cut], reference[cut + 1:].strip() or None


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
    if isinstance(document, dict):
        if "context" in document and isinstance(document.get("benchmarks"), list):
            return google_benchmark.parse(document, path, options.time)
        if isinstance(document.get("results"), list):
            return hyperfine.parse(document, path)
        if isinstance(document.get("benchmarks"), list):
            return pyperf.parse(document, path)
    if isinstance(document, list) and document and all(
            isinstance(item, dict) and "primaryMetric" in item for item in document):
        return jmh.parse(document, path)
    return SourceFile(path, "JSON", (),
                      problem=f"is a JSON file of no format speeduptest reads ({JSON_FORMATS})")


def parse_source(raw: bytes, path: str, filename: str,
                 options: ReadOptions = DEFAULT_OPTIONS) -> SourceFile:
    """Recognise the format of a file's content and read it. ``path`` locates errors."""
    suffixes = [suffix.lower() for suffix in Path(filename).suffixes]
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as error:
            return SourceFile(path, "gzip", (), problem=f"cannot be decompressed ({error}): "
                              "was it truncated?")
        suffixes = suffixes[:-1] if suffixes[-1:] == [".gz"] else suffixes
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return SourceFile(path, "text", (), problem=f"is not a text file (bad byte at line {line})")
    if "\x00" in text:
        return SourceFile(path, "text", (), problem="is not a text file (it contains NUL bytes)")
    suffix = suffixes[-1] if suffixes else ""
    start = text.lstrip()[:1]
    if suffix == ".json" or start in ("{", "["):
        return _parse_json(text, path, options)
    if rebench.looks_like(text):  # not by extension: plain samples may be called .data
        return rebench.parse(text, path)
    if suffix == ".csv":
        if long_csv.looks_like(text):
            return long_csv.parse(text, path)
        return SourceFile(path, "sample", (parse_sample_csv(text, path),))
    return SourceFile(path, "sample", (parse_sample_text(text, path),))


def read_source(file: Path, display: str | None = None,
                options: ReadOptions = DEFAULT_OPTIONS) -> SourceFile:
    """Read and recognise a file; ``display`` is how its path is shown to the user (by
    default, the path as given, normalised)."""
    display = display if display is not None else os.path.normpath(str(file))
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return SourceFile(display, "file", (), problem="file not found")
    except IsADirectoryError:
        return SourceFile(display, "file", (), problem="is a directory, not a file")
    except OSError as error:
        return SourceFile(display, "file", (), problem=f"cannot be read ({error.strerror})")
    source = parse_source(raw, display, file.name, options)
    return dataclasses.replace(source, sha256=hashlib.sha256(raw).hexdigest())


def _matches(sample: Sample, name: str) -> bool:
    return name in (sample.name, sample.label)


def _listing(samples: tuple[Sample, ...] | list[Sample], limit: int = 8) -> str:
    labels = [sample.label for sample in samples]
    more = f", … ({len(labels) - limit} more)" if len(labels) > limit else ""
    return ", ".join(f"'{label}'" for label in labels[:limit]) + more


def _failed(source: SourceFile, display: str, problem: str) -> Sample:
    return Sample(display, None, problem=problem, sha256=source.sha256)


def _in_file(source: SourceFile, sample: Sample, display: str) -> Sample:
    """A sample as the user named it, with its file's checksum and the file-wide problems."""
    return dataclasses.replace(sample, path=display, sha256=source.sha256,
                               errors=source.errors + sample.errors,
                               notices=source.notices + sample.notices)


def select(source: SourceFile, name: str | None) -> Sample:
    """The one sample of ``source`` that ``name`` designates (all of it when ``name`` is None).

    The result carries every problem that concerns it: its own, and those of its file that no
    benchmark could be blamed for.
    """
    display = f"{source.path}#{name}" if name else source.path
    wanted = f"benchmark '{name}'" if name else "it"
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
        chosen = [sample for sample in source.samples if _matches(sample, name)]
        if not chosen:
            close = difflib.get_close_matches(name, [s.label for s in source.samples], 1)
            guess = f"; did you mean '{close[0]}'?" if close else ""
            return _failed(source, display, (
                f"has no benchmark '{name}' (this {source.format} file holds "
                f"{_listing(source.samples)}){guess}"))
        if len(chosen) > 1:
            return _failed(source, display, (
                f"has {len(chosen)} benchmarks matching '{name}' ({_listing(chosen)}); "
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
        samples = [s for s in samples if variant in (s.variant, s.name)]
        if not samples:
            choices = sorted({s.variant or s.name or "" for s in source.samples} - {""})
            close = difflib.get_close_matches(variant, choices, 1)
            guess = f"; did you mean '{close[0]}'?" if close else ""
            raise ValueError(f"{source.path}: no version or benchmark '{variant}' (it holds: "
                             f"{', '.join(choices[:12]) or 'nothing'}){guess}")
    variants = sorted({s.variant for s in samples if s.variant})
    if len(variants) > 1:
        raise ValueError(
            f"{source.path} holds {len(variants)} versions ({', '.join(variants)}): choose one "
            f"with {source.path}#VERSION")
    return [_in_file(source, s, f"{source.path}#{s.label}" if s.label else source.path)
            for s in samples]


__all__ += ["InputError", "parse_source", "samples_of"]

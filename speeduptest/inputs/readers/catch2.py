"""Catch2 XML reports (``--reporter xml``) of benchmarks (``BENCHMARK`` with
``CATCH_CONFIG_ENABLE_BENCHMARKING``).

Each benchmark is a ``<BenchmarkResults name samples resamples iterations …>`` element whose
children are the *summary* of its samples: ``<mean value lowerBound upperBound ci>``,
``<standardDeviation …>`` and ``<outliers …>`` (times in nanoseconds), or ``<failed
message>``. The samples themselves are not written, in Catch2 2.x (the root element
``<Catch>``) as in 3.x (``<Catch2TestRun>``), nor by its console reporter: a mean and a
standard deviation cannot be analysed as a sample. The file is recognised, and its
benchmarks named in an error that says so (with the line of the first one), rather than
read as something else.

Reference: Catch2's documentation ("Authoring benchmarks", "Reporters") and its XML reporter
(``XmlReporter::benchmarkStarting``, ``benchmarkEnded``).
"""

from __future__ import annotations

import xml.parsers.expat

from speeduptest.inputs.readers.common import SourceFile, named
from speeduptest.notices import first_names

_ROOTS = ("<Catch ", "<Catch>", "<Catch2TestRun")


def looks_like(text: str) -> bool:
    head = text[:4096]
    return head.lstrip().startswith("<") and any(root in head for root in _ROOTS)


def parse(text: str, path: str) -> SourceFile:
    benchmarks: list[tuple[str, int]] = []
    failed: list[str] = []
    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)

    def start(tag: str, attributes: dict[str, str]) -> None:
        if tag == "BenchmarkResults":
            benchmarks.append((attributes.get("name", ""), parser.CurrentLineNumber))
        elif tag == "failed" and benchmarks:
            failed.append(benchmarks[-1][0])

    def no_entities(*_: object) -> None:
        raise ValueError("entity declarations are not read")

    parser.StartElementHandler = start
    parser.EntityDeclHandler = no_entities
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as error:
        return SourceFile(path, "Catch2", (), problem=(
            f"is not valid XML: {xml.parsers.expat.ErrorString(error.code)} (line "
            f"{error.lineno}, column {error.offset + 1}); was it truncated?"))
    except ValueError as error:
        return SourceFile(path, "Catch2", (), problem=f"is not read: {error}")
    if not benchmarks:
        return SourceFile(path, "Catch2", (), problem=(
            "is a Catch2 XML report without benchmark results (BENCHMARK, with "
            "CATCH_CONFIG_ENABLE_BENCHMARKING)"))
    names = [named(name) for name, _ in benchmarks]
    failures = f"; {len(failed)} failed" if failed else ""
    return SourceFile(path, "Catch2", (), problem=(
        f"line {benchmarks[0][1]}: a Catch2 XML report holds only a summary of each benchmark "
        f"({first_names(names, 3)}{failures}): mean, standard deviation, outliers, not the "
        "samples that speeduptest needs (its XML and console reports omit them). Time them with "
        "a tool that writes them, e.g. Google Benchmark --benchmark_repetitions=N"))

"""The experiment: every way in (a config of any form, ``compare`` of result files, a
``FILE#VERSION``) becomes this one value before any analysis.

An :class:`Experiment` is versions × benchmarks: for each benchmark its weight, its risk α
(None: the run's), the unit of its plain samples, where it was declared (the config's line),
and per version where its sample is (:class:`SampleRef`: the file, the benchmark in it, as
the user names it), with the errors found while reading the config; plus the notices found
while reading, and the files' contents (:class:`speeduptest.inputs.files.SampleFiles`, read
when the analysis first needs them: a large run is analysed while its files are still being
read).

Transforms of the experiment are functions from ``Experiment`` to ``Experiment``: the run's α
(:func:`with_run_alpha`), and those that change the samples' values
(:mod:`speeduptest.analysis.transforms`: the unit conversion, the measurement checks that leave
warm-ups out), which add a step (:class:`Transform`) that the analysis runs as the samples
are read. It is made by :func:`speeduptest.inputs.forms.read_experiment` (a
config) or :func:`speeduptest.inputs.compare.compared_experiment` (result files); the analysis
(:func:`speeduptest.analysis.run.analyse`) takes one and never reads a line of config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from speeduptest.inputs.config import BenchmarkSpec
from speeduptest.inputs.files import FileKey, SampleFiles
from speeduptest.model.results import InputError, InputFile, Notice, Unpaired

#: How the experiment was given: a config of two versions ("pair": ``initial``/``optimized``
#: columns), of several ("wide", "long"), or result files (``compare``).
FORMS = ("pair", "wide", "long", "compare")


class Transform(Protocol):
    """A step that changes the values of the experiment's samples (its implementations:
    :mod:`speeduptest.analysis.transforms`). The analysis calls it on each batch of
    comparisons (their two samples as read, ``ReadPair``) as soon as they are read; it gives
    each comparison as changed, or a message saying why it cannot be analysed."""

    def __call__(self, pairs: Sequence[Any]) -> list[Any]: ...


@dataclass
class SampleRef:
    """Where one version's sample of one benchmark is: a file, and a benchmark in it. (Not
    frozen, as :class:`Benchmark`.)"""

    file: str | Path  # (a config's rows give text: see BenchmarkSpec)
    display: str  # how the user can find it from the current folder
    selection: str | None = None  # the benchmark selected in the file (``path#name``)
    key: FileKey | None = None  # the file's identity when the config looked it up


@dataclass
class Benchmark:
    """One benchmark of the experiment: a sample per version (None: missing, see
    ``version_errors``), its weight, its α (None: the run's) and the unit of its plain
    samples (None: as read). (Not frozen, though nothing changes one once made: a frozen
    dataclass sets each field through ``object.__setattr__``, and a config of 10,000 rows
    makes 30,000 of these and :class:`SampleRef`: 37 ms more.)"""

    name: str
    line: int | None  # its row in the config (None: found in result files)
    weight: float | None
    alpha: float | None
    samples: tuple[SampleRef | None, ...]
    errors: tuple[InputError, ...] = ()  # of the whole benchmark
    version_errors: tuple[tuple[InputError, ...], ...] = ()  # per version
    unit: str | None = None
    alpha_given: bool = False  # (``alpha`` None then: the confidence given is not valid)

    def errors_of(self, version: int) -> tuple[InputError, ...]:
        return self.version_errors[version] if self.version_errors else ()


@dataclass(frozen=True)
class Origin:
    """Where the experiment comes from: a config's path and form, or the arguments of
    ``compare`` (one per version, as given)."""

    form: str  # one of FORMS
    path: Path | None = None  # the config
    references: tuple[str, ...] = ()  # compare: the arguments

    @property
    def label(self) -> str:
        return str(self.path) if self.path is not None else ", ".join(self.references)


@dataclass(frozen=True)
class Experiment:
    """Versions × benchmarks, as read (see the module's docstring)."""

    versions: tuple[str, ...]
    baseline: int
    benchmarks: tuple[Benchmark, ...]
    origin: Origin
    files: SampleFiles
    notices: tuple[Notice, ...] = ()
    input_files: tuple[InputFile, ...] = ()  # the config, with its checksum
    unpaired: tuple[Unpaired, ...] = ()  # compare: benchmarks of one file only
    # The steps that change the samples' values, in order (see Transform).
    transforms: tuple[Transform, ...] = ()

    def __post_init__(self) -> None:
        if len(self.versions) < 2 or not 0 <= self.baseline < len(self.versions):
            raise ValueError("at least 2 versions and a baseline among them are needed")

    @property
    def others(self) -> list[int]:
        """The versions compared with the baseline, in order."""
        return [v for v in range(len(self.versions)) if v != self.baseline]

    def comparison(self, benchmark: Benchmark, version: int) -> BenchmarkSpec | None:
        """``version`` against the baseline on ``benchmark``: what the two-sample analysis
        takes; None where the version has no such benchmark and nothing is wrong (a file of
        ``compare`` without it)."""
        errors = (benchmark.errors + benchmark.errors_of(self.baseline)
                  + benchmark.errors_of(version))
        base, other = benchmark.samples[self.baseline], benchmark.samples[version]
        if not errors:
            if base is None or other is None:
                return None
            # (Both samples, no error: nearly every benchmark; 10,000 of them, 10 ms less.)
            return BenchmarkSpec(
                benchmark.name, benchmark.line, base.file, other.file, base.display,
                other.display, benchmark.weight, benchmark.alpha, (), base.selection,
                other.selection, base.key, other.key, benchmark.unit)
        return BenchmarkSpec(
            name=benchmark.name, line=benchmark.line,
            initial=base.file if base else None, optimized=other.file if other else None,
            initial_display=base.display if base else None,
            optimized_display=other.display if other else None,
            weight=benchmark.weight, alpha=benchmark.alpha,
            errors=tuple(dict.fromkeys(errors)) if errors else (),
            initial_selection=base.selection if base else None,
            optimized_selection=other.selection if other else None,
            initial_key=base.key if base else None,
            optimized_key=other.key if other else None,
            unit=benchmark.unit)


def with_run_alpha(experiment: Experiment, alpha: float) -> Experiment:
    """The experiment with ``alpha`` for every benchmark that has no α of its own: the one
    place where the run's α meets the benchmarks'. (One whose confidence is not valid keeps
    None: it is not analysed, and has no α.)"""
    return dataclasses.replace(experiment, benchmarks=tuple(
        _with_alpha(benchmark, alpha)
        if benchmark.alpha is None and not benchmark.alpha_given else benchmark
        for benchmark in experiment.benchmarks))


def _with_alpha(benchmark: Benchmark, alpha: float) -> Benchmark:
    """``dataclasses.replace(benchmark, alpha=alpha)``, as a copy of its fields: the same
    value (a Benchmark checks nothing as it is made) in a fifth of the time (10,000
    benchmarks: 45 ms)."""
    copied = object.__new__(Benchmark)
    fields = copied.__dict__
    fields.update(benchmark.__dict__)
    fields["alpha"] = alpha
    return copied


def pair_benchmark(spec: BenchmarkSpec, baseline: int = 0) -> Benchmark:
    """A benchmark of two versions (a two-version config's row, two files' benchmark) as a
    benchmark of the experiment, its samples in the order of the versions: ``baseline`` 0
    when the initial sample is the first version's, 1 when it is the second's."""
    # (Written out for the two sides: 10,000 rows, 20 ms less than a generator over them.)
    initial, optimized = spec.initial, spec.optimized
    pair = (None if initial is None else SampleRef(
                initial, spec.initial_display or str(initial), spec.initial_selection,
                spec.initial_key),
            None if optimized is None else SampleRef(
                optimized, spec.optimized_display or str(optimized), spec.optimized_selection,
                spec.optimized_key))
    return Benchmark(name=spec.name, line=spec.line, weight=spec.weight, alpha=spec.alpha,
                     samples=pair if baseline == 0 else pair[::-1], errors=spec.errors,
                     unit=spec.unit, alpha_given=spec.alpha_given)

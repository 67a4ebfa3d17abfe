"""The pipeline from a config file to the results model: read, analyse, aggregate."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import __version__
from .config import BenchmarkSpec, read_config
from .effect_size import effect_size, resampled_means
from .model import (
    BenchmarkResult,
    InputError,
    InputFile,
    Results,
    RunInfo,
    Settings,
    complement,
)
from .overall import BootstrapAggregate, overall_figures
from .protocol import analyse_pair
from .samples import Sample, read_sample

MIN_VALUES = 3

Progress = Callable[[int, int, str], None]


def _sample_errors(spec: BenchmarkSpec, role: str, sample: Sample, config: str) -> list[InputError]:
    """Problems that keep this sample out of the analysis, each with file and line."""
    if sample.problem is not None:
        return [InputError(config, spec.line,
                           f"{role} sample file {sample.path}: {sample.problem}")]
    if sample.errors:
        return list(sample.errors)
    if sample.data is None:
        return [InputError(config, spec.line,
                           f"{role} sample file {sample.path} contains no values")]
    if sample.top_units < MIN_VALUES:
        unit = "value(s)" if sample.data.depth == 1 else f"{sample.data.level_names[0]}(s)"
        return [InputError(
            config, spec.line,
            f"{role} sample file {sample.path} has only {sample.top_units} {unit}; at least "
            f"{MIN_VALUES} independent observations are needed",
        )]
    return []


def _analyse_benchmark(
    spec: BenchmarkSpec,
    settings: Settings,
    config: str,
    samples: dict[Path, Sample],
    rng: np.random.Generator,
    aggregate: BootstrapAggregate,
) -> BenchmarkResult:
    result = BenchmarkResult(
        name=spec.name, weight=spec.weight, alpha=spec.alpha, config_line=spec.line,
        initial_path=spec.initial_display, optimized_path=spec.optimized_display,
        errors=spec.errors,
    )
    if spec.errors:
        return result
    read = {}
    errors: list[InputError] = []
    for role, file, display in (("initial", spec.initial, spec.initial_display),
                                ("optimized", spec.optimized, spec.optimized_display)):
        key = file.resolve()
        if key not in samples:
            samples[key] = read_sample(file, display)
        read[role] = samples[key]
        errors += _sample_errors(spec, role, read[role], config)
    if errors:
        return dataclasses.replace(result, errors=tuple(errors))
    initial, optimized = read["initial"].data, read["optimized"].data
    # The protocol's independent observations are the top-level units (SPEC §7).
    analysis = analyse_pair(initial.top_level_means, optimized.top_level_means,
                            alpha=spec.alpha, large_sample=settings.large_sample)
    initial_means = resampled_means(initial, settings.bootstrap, rng)
    optimized_means = resampled_means(optimized, settings.bootstrap, rng)
    aggregate.add(spec.weight, initial_means, optimized_means)
    effect = effect_size(initial, optimized, complement(spec.alpha), initial_means,
                         optimized_means)
    design = None
    if initial.depth > 1 or optimized.depth > 1:
        design = (f"initial: {initial.describe()}; optimized: {optimized.describe()}. The "
                  f"Speedup-Test protocol ran on the means of the top-level units "
                  f"({initial.level_names[0]}, {optimized.level_names[0]}); the effect-size "
                  "intervals use the whole hierarchy.")
    return dataclasses.replace(result, analysis=analysis, effect=effect, design=design)


def analyse_config(
    config_path: Path,
    settings: Settings,
    progress: Progress | None = None,
    run: RunInfo | None = None,
) -> Results:
    """Analyse every benchmark of a config file. Raises ``ConfigError`` if it is unusable."""
    config = read_config(config_path, settings.alpha)
    samples: dict[Path, Sample] = {}
    benchmarks = []
    aggregate = BootstrapAggregate(settings.bootstrap)
    for index, spec in enumerate(config.benchmarks, start=1):
        if progress is not None:
            progress(index, len(config.benchmarks), spec.name)
        # One random stream per benchmark: results do not depend on what else is analysed.
        rng = np.random.default_rng([settings.seed, index])
        benchmarks.append(_analyse_benchmark(spec, settings, str(config_path), samples, rng,
                                             aggregate))
    analysed = [(b.weight, b.analysis) for b in benchmarks if b.status == "ok"]
    overall = overall_figures(analysed, confidence=settings.effective_proportion_confidence,
                              precision=settings.precision, aggregate=aggregate,
                              aggregate_confidence=settings.confidence)
    config_hash = hashlib.sha256(config_path.read_bytes()).hexdigest()
    input_files = [InputFile(str(config_path), config_hash)]
    input_files += [InputFile(s.path, s.sha256) for s in samples.values() if s.sha256]
    return Results(
        tool_version=__version__,
        settings=settings,
        config_path=config_path,
        benchmarks=tuple(benchmarks),
        overall=overall,
        notices=config.notices + overall.notices,
        errors=tuple(error for b in benchmarks for error in b.errors),
        input_files=tuple(input_files),
        run=run,
    )

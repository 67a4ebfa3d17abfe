"""Transforms of an experiment: functions from ``Experiment`` to ``Experiment`` that change the
values its samples are analysed with.

- :func:`prepared`: the experiment as a run with its settings analyses it: the run's α, then
  its steps: :class:`InSeconds` (the plain samples of a benchmark that states their unit, a
  ``unit`` column, converted to seconds, the unit of every tool's file; a benchmark with one
  side in seconds and the other a plain sample of no stated unit cannot be compared),
  :class:`MeasurementChecks` (each side's series checked,
  :func:`speeduptest.analysis.validity.check_pairs`: warm-ups left out as ``--warmup`` says,
  dependent values of a one-level sample replaced by batch means as ``--dependence`` says),
  any step of the user's, and last
  :class:`~speeduptest.analysis.resolution.TimerResolution` (which sides a timer's
  resolution bounds, on the values as analysed).
- :func:`with_transform`: a step of the user's added.

An experiment holds where its samples are, not their values, so that a large run is analysed
while its files are still being read. A transform therefore adds its step to
:attr:`~speeduptest.inputs.experiment.Experiment.transforms`; the analysis runs the steps, in
order, over each batch of comparisons as soon as their samples are read. A step gives each
comparison as it changed it (:class:`ReadPair`), or why it cannot be analysed: that becomes
the benchmark's error, and the other benchmarks go on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from speeduptest.analysis.resolution import Resolutions, TimerResolution
from speeduptest.analysis.validity import check_pairs, series_of
from speeduptest.inputs.config import UNITS
from speeduptest.inputs.experiment import Experiment, Transform, with_run_alpha
from speeduptest.model.results import Notice, Settings, SideValidity
from speeduptest.stats.hierarchy import Hierarchy
from speeduptest.stats.steady import RowChecks, SeriesMatrix, trends_checked

#: The fewest top-level units a side needs, as read and after the transforms.
MIN_VALUES = 3


@dataclass(slots=True)
class ReadPair:
    """One comparison whose samples were read without error (initial: the baseline's), as the
    transforms leave it for the analysis. (Not frozen: one is made per comparison, and each
    step changes it in place: a copy costs 10 µs, 0.1 s of a 10,000-benchmark run.)"""

    index: int  # 1-based position among the comparisons: seeds its random stream
    weight: float
    alpha: float
    initial: Hierarchy
    optimized: Hierarchy
    paths: tuple[str, str] = ("", "")  # the samples' paths, as messages show them
    tools: tuple[str, str] = ("", "")  # the formats of their files ("sample", "hyperfine"…)
    # The unit of each side's values: "s" (a tool's file, or converted), None: as in the file.
    units: tuple[str | None, str | None] = (None, None)
    declared_unit: str | None = None  # the benchmark's unit of its plain samples, if stated
    # What the measurement checks found, and their warnings.
    validity: tuple[SideValidity, SideValidity] | None = None
    notices: tuple[Notice, ...] = ()
    # Per side, the timer's resolution that bounds its mean (analysis.resolution), or None.
    resolution: Resolutions = (None, None)


@dataclass(frozen=True)
class InSeconds:
    """The step of :func:`in_seconds`."""

    def __call__(self, pairs: Sequence[ReadPair]) -> list[ReadPair | str]:
        return [self._converted(pair) for pair in pairs]

    @staticmethod
    def _converted(pair: ReadPair) -> ReadPair | str:
        if pair.declared_unit is not None and None in pair.units:
            factor = UNITS[pair.declared_unit]
            if pair.units[0] is None:
                pair.initial = pair.initial.times(factor)
            if pair.units[1] is None:
                pair.optimized = pair.optimized.times(factor)
            pair.units = ("s", "s")
        if (pair.units[0] is None) == (pair.units[1] is None):
            return pair
        known, unknown = pair.paths if pair.units[0] else pair.paths[::-1]
        return (f"{known} states its time unit (values converted to seconds) but {unknown} is "
                "a plain sample without a unit: the speedup would depend on a guess. Give "
                "both sides in result files of a tool, or both as plain samples in the same "
                "unit")


@dataclass(frozen=True)
class MeasurementChecks:
    """The step of :func:`measurement_checked`: every comparison of the batch checked together
    (a sample in several comparisons, the baseline of several versions, once)."""

    warmup: str
    dependence: str
    min_values: int = MIN_VALUES

    def __call__(self, pairs: Sequence[ReadPair],
                 checked: Sequence[tuple[SeriesMatrix, RowChecks]] | None = None
                 ) -> list[ReadPair | str]:
        """The pairs checked; ``checked``: each matrix of :meth:`series` with its
        ``row_checks``, computed elsewhere (None: here)."""
        found = check_pairs([(pair.initial, pair.optimized) for pair in pairs], self.warmup,
                            self.dependence, self.min_values,
                            tools=[pair.tools for pair in pairs], checked=checked)
        changed: list[ReadPair | str] = []
        for pair, sides in zip(pairs, found, strict=True):
            if isinstance(sides, str):
                changed.append(sides)
                continue
            pair.initial, pair.optimized = sides.initial, sides.optimized
            pair.validity = sides.validity
            if sides.notices:
                pair.notices += sides.notices
            changed.append(pair)
        return changed

    def series(self, pairs: Sequence[ReadPair]) -> list[SeriesMatrix]:
        """The matrices of series whose array work the checks of ``pairs`` do: each one's
        ``row_checks(matrix.rows, self.trend)`` is what :meth:`__call__` takes with it as
        ``checked``."""
        return series_of([(pair.initial, pair.optimized) for pair in pairs])

    @property
    def trend(self) -> bool:
        """Whether the matrices' rows get Mann–Kendall's tests
        (:func:`speeduptest.stats.steady.trends_checked`)."""
        return trends_checked(self.warmup)


#: The run's own steps, made by :func:`prepared` from its settings.
RUN_STEPS = (InSeconds, MeasurementChecks, TimerResolution)


def with_transform(experiment: Experiment, transform: Transform) -> Experiment:
    """``experiment`` with ``transform``, a step of the user's, after its other steps. (The
    run's own steps come from its settings: ``Settings(warmup=…, dependence=…,
    resolution=…)``.)"""
    if isinstance(transform, RUN_STEPS):
        raise ValueError(f"{type(transform).__name__} is a step of the run: set it through "
                         "Settings")
    return dataclasses.replace(experiment, transforms=(*experiment.transforms, transform))


def prepared(experiment: Experiment, settings: Settings) -> Experiment:
    """The experiment as a run with ``settings`` analyses it: the run's α for the benchmarks
    without their own; the plain samples in seconds; the measurement checks; the user's
    steps, in their order; last, the timer's resolution, on the values as analysed."""
    users = tuple(step for step in experiment.transforms if not isinstance(step, RUN_STEPS))
    steps = (InSeconds(), MeasurementChecks(settings.warmup, settings.dependence), *users,
             TimerResolution(settings.resolution, settings.resolution_unit))
    return dataclasses.replace(with_run_alpha(experiment, settings.alpha), transforms=steps)

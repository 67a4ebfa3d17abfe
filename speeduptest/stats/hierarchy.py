"""Measurements with levels (e.g. build › invocation › iteration), and their variance components.

A *unit* at level 1 is one measurement; a unit at a higher level groups units of the level
below (an invocation groups iterations, a build groups invocations). Levels are numbered from
the measurements (1) to the top (k), as in Kalibera & Jones. A plain list of measurements is
the one-level case: each measurement is a top-level unit.

In memory a sample is a nested structure: a 1-D array of measurements for the lowest groups,
wrapped in lists for each level above. Designs may be unbalanced: a unit's mean is the mean of
its children's means (each child counts equally), as in the nested bootstrap.

Level names are distinct (a ``--cost`` of ``speeduptest plan`` names one level): a name
that a level above already has is told apart (see :func:`distinct_level_names`).

Reference: T. Kalibera, R. Jones, "Rigorous benchmarking in reasonable time", ISMM 2013,
section 9 (variance estimators S²ᵢ, T²ᵢ, with the corrected T²ᵢ = S²ᵢ − S²ᵢ₋₁/nᵢ₋₁).
"""

from __future__ import annotations

import decimal
import functools
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

Node = float | np.ndarray | list  # a measurement, a lowest group, or a higher unit

#: Levels above the measurements that a sample may have (the grouping columns of a ``.csv``
#: sample): a deeper sample is refused as it is read. Its nested structure is walked
#: recursively, and numpy's arrays (the padded sample of the bootstrap) have at most 64
#: dimensions; real designs have two or three (build › invocation › iteration).
MAX_GROUPING_LEVELS = 32
#: A sample is padded to a rectangular array for the hierarchical bootstrap (:meth:`padded`),
#: whose every resample costs as much as the array's cells (15 ns each: 4,096 cells take
#: 0.6 s for 10,000 resamples, 6 s for the 100,000 of a call that rests on the bootstrap). A
#: design so unbalanced that the array has more than this many cells per measurement (and
#: more than ``PADDED_CELLS_FLOOR``) is refused as it is read for an analysis: one build of
#: 1,000 invocations among builds of one would pad each of them to 1,000 (real designs:
#: 1 to 4 cells per measurement).
MAX_PADDING_FACTOR = 8
PADDED_CELLS_FLOOR = 1 << 12
#: The name the measurement level takes when a level above has its name (a grouping column
#: named ``iteration``, the default name of the measurements).
MEASUREMENT_NAME = "measurement"


def _children(node: Node) -> list:
    return list(node) if isinstance(node, (list, np.ndarray)) else []


def _mean(node: Node) -> float:
    """The unit's mean (each child counts equally); ``inf`` where the sum of its times
    overflows (times near 1e308: the analysis then says that the benchmark's means are beyond
    the floats, and :func:`variance_components` works at a scale near 1)."""
    if isinstance(node, np.ndarray):
        # (identical values: that value exactly, where a sum over a count may be an ulp off)
        return float(node[0]) if node.size and node.min() == node.max() else float(node.mean())
    if isinstance(node, list):
        means = [_mean(child) for child in node]
        return means[0] if min(means) == max(means) else float(np.mean(means))
    return float(node)


def distinct_level_names(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` (top level first) with every name that a level above already has told
    apart: the measurement level becomes ``measurement`` (a grouping column may be named
    ``iteration``, the measurements' default name), any other gets a suffix ``-2``, ``-3``…
    (two long column names cut to the same shown name)."""
    names = tuple(names)
    if len(set(names)) == len(names):
        return names
    taken = set(names)
    distinct: list[str] = []
    for position, name in enumerate(names):
        if name in distinct:
            last = position == len(names) - 1
            if last and MEASUREMENT_NAME not in taken:
                name = MEASUREMENT_NAME
            else:
                base, number = name, 2
                while f"{base}-{number}" in taken:
                    number += 1
                name = f"{base}-{number}"
            taken.add(name)
        distinct.append(name)
    return tuple(distinct)


@dataclass
class Hierarchy:
    """One side's measurements, grouped by levels.

    ``root`` holds the top-level units: a 1-D array when the sample has one level, else a list
    of units. ``level_names`` names the levels from the top down to the measurements, e.g.
    ``("build", "invocation", "iteration")``.
    """

    root: np.ndarray | list
    level_names: tuple[str, ...] = ("measurement",)
    _top_means: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # (One level, the common case, has nothing to tell apart: 20,000 samples.)
        if len(self.level_names) > 1 and len(set(self.level_names)) != len(self.level_names):
            self.level_names = distinct_level_names(self.level_names)
        if isinstance(self.root, np.ndarray):
            means = np.asarray(self.root, dtype=float)
        else:
            with np.errstate(over="ignore"):  # a numpy warning says nothing to the user
                means = np.array([_mean(unit) for unit in self.root])
        self._top_means = means

    @classmethod
    def flat(cls, values: Sequence[float] | np.ndarray) -> Hierarchy:
        return cls(np.asarray(values, dtype=float))

    @classmethod
    def from_nested(cls, nested, level_names: Sequence[str] | None = None) -> Hierarchy:
        """From nested lists of numbers (innermost lists are the lowest groups)."""

        def convert(node):
            if node and isinstance(node[0], (list, tuple)):
                return [convert(child) for child in node]
            return np.asarray(node, dtype=float)

        root = convert(list(nested))
        depth = _depth(root)
        names = tuple(level_names) if level_names else tuple(
            f"level {i}" for i in range(depth, 0, -1))
        return cls(root, names)

    @property
    def depth(self) -> int:
        # (A flat sample answered here: asked several times per benchmark.)
        return 1 if isinstance(self.root, np.ndarray) else _depth(self.root)

    @functools.cached_property
    def measurements(self) -> int:
        """How many measurements (values of the lowest level) the sample has."""
        if isinstance(self.root, np.ndarray):
            return self.root.size
        return self.values().size

    def times(self, factor: float) -> Hierarchy:
        """Every measurement multiplied by ``factor`` (a change of unit)."""

        def scale(node):
            if isinstance(node, np.ndarray):
                return node * factor
            return [scale(child) for child in node]

        return Hierarchy(scale(self.root), self.level_names)

    def scaled(self, exponent: int) -> Hierarchy:
        """Every measurement multiplied by 2**exponent (exact, short of under/overflow)."""

        def scale(node):
            if isinstance(node, np.ndarray):
                return np.ldexp(node, exponent)
            return [scale(child) for child in node]

        return Hierarchy(scale(self.root), self.level_names)

    @property
    def top_level_means(self) -> np.ndarray:
        """The independent observations: one mean per top-level unit."""
        return self._top_means

    @functools.cached_property
    def grand_mean(self) -> float:
        return _row_means(self._top_means[None, :])[0]

    @staticmethod
    def cache_grand_means(samples: Sequence[Hierarchy]) -> None:
        """Compute the :attr:`grand_mean` of many samples together, those with as many
        top-level units as one array, and keep each as if it had been asked for. One by one,
        20,000 samples take 0.07 s; together 0.01 s."""
        by_size: dict[int, list[Hierarchy]] = {}
        for sample in samples:
            if "grand_mean" not in sample.__dict__:
                by_size.setdefault(sample._top_means.size, []).append(sample)
        for group in by_size.values():
            found = _row_means(np.stack([sample._top_means for sample in group]))
            for sample, grand_mean in zip(group, found, strict=True):
                sample.__dict__["grand_mean"] = grand_mean  # cached_property's own storage

    def balanced(self) -> np.ndarray | None:
        """The measurements as an array of shape (n_k, …, n_1) when every unit of a level has
        as many children, else None."""
        if isinstance(self.root, np.ndarray):
            return self.root
        try:
            values = np.array(self.root, dtype=float)
        except ValueError:  # ragged
            return None
        return values if values.ndim == self.depth else None

    def describe(self) -> str:
        """The design in words, e.g. "3 build › 2 execution › 2 iteration" (unbalanced
        levels show the range of counts, e.g. "1–5 iteration")."""
        parts = []
        level = [self.root]
        for name in self.level_names:
            counts = [len(_children(unit)) for unit in level]
            low, high = min(counts), max(counts)
            parts.append(f"{low} {name}" if low == high else f"{low}–{high} {name}")
            level = [child for unit in level for child in _children(unit)]
        return " › ".join(parts)

    def values(self) -> np.ndarray:
        """Every measurement, flattened."""
        if isinstance(self.root, np.ndarray):
            return self.root
        leaves: list[np.ndarray] = []

        def collect(node):
            if isinstance(node, np.ndarray):
                leaves.append(node)
            else:
                for child in node:
                    collect(child)

        collect(self.root)
        return np.concatenate(leaves)

    def padded_cells(self) -> int:
        """The cells of the array of :meth:`padded`, counted without making it."""
        if isinstance(self.root, np.ndarray):
            return self.root.size
        cells, level = len(self.root), list(self.root)
        while level:
            cells *= max(len(unit) for unit in level)
            if isinstance(level[0], np.ndarray):
                break
            level = [child for unit in level for child in unit]
        return cells

    def padding_problem(self) -> str | None:
        """Why the hierarchical bootstrap cannot resample this sample within bounds (its
        padded array has more than ``MAX_PADDING_FACTOR`` cells per measurement, and more
        than ``PADDED_CELLS_FLOOR``), or None."""
        if isinstance(self.root, np.ndarray):
            return None
        cells = self.padded_cells()
        if cells <= PADDED_CELLS_FLOOR:
            return None
        limit = max(PADDED_CELLS_FLOOR, MAX_PADDING_FACTOR * self.measurements)
        if cells <= limit:
            return None
        return (f"its levels are too unbalanced to resample ({self.describe()}): the "
                "hierarchical bootstrap pads every unit to the largest count of its level, "
                f"{cells:,} cells for {self.measurements:,} values (at most {limit:,}); "
                "measure the units of each level alike, or split the sample")

    def padded(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """The measurements in a rectangular array padded with NaN, and the child counts.

        Returns ``values`` of shape (n_k, m_{k-1}, …, m_1) where m_i is the largest number of
        children of any unit at level i+1, and ``counts[j]`` (j = 0 … k-2), the number of
        children of every unit at level k − j, of shape ``values.shape[:j + 1]``.
        """
        depth = self.depth
        if depth == 1:
            return np.asarray(self.root, dtype=float), []
        shape = [len(self.root)]
        level = list(self.root)
        for _ in range(depth - 1):
            shape.append(max(len(unit) for unit in level))
            level = [child for unit in level for child in _children(unit)]
        values = np.full(shape, np.nan)
        counts = [np.zeros(shape[: j + 1], dtype=np.int64) for j in range(depth - 1)]

        def fill(node, index: tuple[int, ...]):
            if isinstance(node, np.ndarray):
                counts[len(index) - 1][index] = node.size
                values[index][: node.size] = node
                return
            counts[len(index) - 1][index] = len(node)
            for position, child in enumerate(node):
                fill(child, (*index, position))

        for position, unit in enumerate(self.root):
            fill(unit, (position,))
        return values, counts


def _row_means(rows: np.ndarray) -> list[float]:
    """The mean of each row, summed at a scale near 1 (an exact power of two: the sum of
    times near 1e308 overflows). The sum over the count is numpy's mean without its wrapper,
    and numpy sums each C-contiguous row as it sums a 1-D array: the same numbers for a row
    alone or among others."""
    largest = np.maximum.reduce(rows, axis=1)
    exponents = np.frexp(largest)[1]
    scaled = np.ldexp(rows, -exponents[:, None])
    means = np.ldexp(np.add.reduce(scaled, axis=1) / scaled.shape[1], exponents)
    # Identical values: that value, exactly (a sum of n copies over n may be an ulp off).
    constant = np.minimum.reduce(rows, axis=1) == largest
    return np.where(constant, largest, means).tolist()


def _depth(node) -> int:
    if isinstance(node, np.ndarray):
        return 1
    return 1 + _depth(node[0])


@dataclass(slots=True)
class VarianceComponents:
    """Kalibera–Jones variance estimators of one side, level 1 (measurements) first.

    ``s2[i]`` is S²ᵢ₊₁: the mean, over the units of the level above, of the sample variance of
    their children's means; ``n[i]`` the mean number of children per parent; ``t2[i]`` is T²ᵢ₊₁
    = S²ᵢ₊₁ − S²ᵢ / nᵢ, the variance that level i+1 itself adds (≤ 0: none measurable).
    """

    level_names: tuple[str, ...]  # level 1 first
    grand_mean: float
    s2: tuple[float | None, ...]
    t2: tuple[float | None, ...]
    n: tuple[float, ...]
    #: The figures are those of the measurements multiplied by 2**-scale_exponent: 0 (in their
    #: unit) but where :func:`variance_components` meets times whose variances the floats
    #: cannot hold in their unit (times near 1e308 or 1e-320); a variance in the unit is then
    #: S² · 4**scale_exponent (see :func:`scaled_figure`).
    scale_exponent: int = 0

    @property
    def top_units(self) -> int:
        return round(self.n[-1])

    @property
    def variance_of_mean(self) -> float | None:
        """S²ₖ / nₖ: the variance of the grand mean, from the top-level units."""
        top = self.s2[-1]
        return None if top is None else top / self.n[-1]

    def scaled(self, exponent: int) -> VarianceComponents:
        """The components of the measurements multiplied by 2**exponent; a variance that
        is not representable at that scale becomes None."""
        def variance(value: float | None) -> float | None:
            if value is None:
                return None
            try:
                return math.ldexp(value, 2 * exponent)
            except OverflowError:
                return None

        return VarianceComponents(
            self.level_names, math.ldexp(self.grand_mean, exponent),
            tuple(variance(v) for v in self.s2), tuple(variance(v) for v in self.t2), self.n,
            self.scale_exponent)


#: Grand means within 2**±MODERATE_EXPONENT have variance components that the floats hold
#: in the unit of the measurements: squares of their times do not overflow, and squares of
#: their smallest differences (a rounding step of the mean) do not fall below the normal floats.
MODERATE_EXPONENT = 300


def variance_components(sample: Hierarchy) -> VarianceComponents:
    """S²ᵢ, T²ᵢ and nᵢ for every level (Kalibera & Jones; unbalanced designs: S²ᵢ averages
    the variances of the parents that have two or more children, nᵢ is the mean count).

    In the unit of the measurements, unless their grand mean is beyond 2**±300 (times near
    1e308 overflow their squares; near 1e-320 their squares round to 0): those are computed
    with the times multiplied by the power of two that brings the grand mean near 1 (exact),
    and say so by their ``scale_exponent``."""
    exponent = _scale_exponent(sample)
    if abs(exponent) > MODERATE_EXPONENT:
        scaled = variance_components(sample.scaled(-exponent))
        return VarianceComponents(scaled.level_names, scaled.grand_mean, scaled.s2, scaled.t2,
                                  scaled.n, exponent)
    balanced = sample.balanced()
    if balanced is not None:
        return balanced_components(balanced, sample.level_names, sample.grand_mean)
    depth = sample.depth
    s2: list[float | None] = [None] * depth
    n: list[float] = [0.0] * depth
    parents: list = [sample.root]
    for level in range(depth, 0, -1):  # top level first
        variances, counts, next_parents = [], [], []
        for parent in parents:
            children = _children(parent)
            counts.append(len(children))
            if len(children) >= 2:
                means = [_mean(c) for c in children]
                # (identical means: a spread of exactly 0, where numpy's may be 1e-45)
                variances.append(0.0 if min(means) == max(means)
                                 else float(np.var(means, ddof=1)))
            next_parents.extend(children)
        s2[level - 1] = float(np.mean(variances)) if variances else None
        n[level - 1] = float(np.mean(counts))
        parents = next_parents
    return _with_t2(sample.level_names, sample.grand_mean, s2, n)


def _scale_exponent(sample: Hierarchy) -> int:
    """The power of two that brings the sample's grand mean near 1; where the means of times
    near 1e308 overflowed, the one that brings the largest time near 1."""
    mean = sample.grand_mean
    if math.isfinite(mean):
        return math.frexp(mean)[1]
    largest = float(np.max(sample.values()))
    return math.frexp(largest)[1] if math.isfinite(largest) else 0


def balanced_components(values: np.ndarray, level_names: Sequence[str],
                        grand_mean: float) -> VarianceComponents:
    """:func:`variance_components` of a balanced sample given as an array of shape
    (n_k, …, n_1), level by level over whole arrays instead of unit by unit."""
    s2: list[float | None] = []
    n: list[float] = []
    means = values
    for _ in range(values.ndim):  # from the measurements up
        count = means.shape[-1]
        s2.append(float(means.var(axis=-1, ddof=1).mean()) if count >= 2 else None)
        n.append(float(count))
        means = means.mean(axis=-1)
    return _with_t2(level_names, grand_mean, s2, n)


def _with_t2(level_names: Sequence[str], grand_mean: float, s2: list[float | None],
             n: list[float]) -> VarianceComponents:
    """The components with T²ᵢ = S²ᵢ − S²ᵢ₋₁/nᵢ₋₁ (T²₁ = S²₁)."""
    t2: list[float | None] = [s2[0]]
    for level in range(1, len(s2)):
        upper, lower = s2[level], s2[level - 1]
        t2.append(None if upper is None or lower is None else upper - lower / n[level - 1])
    return VarianceComponents(tuple(reversed(level_names)), grand_mean, tuple(s2), tuple(t2),
                              tuple(n))


def scaled_figure(value: float, exponent: int, digits: int = 5) -> str:
    """``value × 2**exponent`` written with ``digits`` significant digits (as the ``g``
    format), also where the product is beyond the floats (a variance of times near 1e308 is
    near 1e616): "1.2346e+616", never "inf" nor a "0" that only underflowed."""
    if value == 0 or not math.isfinite(value):
        return f"{value:.{digits}g}"
    try:
        product = math.ldexp(value, exponent)
    except OverflowError:
        product = math.inf
    if math.isfinite(product) and abs(product) >= sys.float_info.min:
        return f"{product:.{digits}g}"
    with decimal.localcontext() as context:  # exact: a float times a power of two
        context.prec = digits + 20
        context.Emin, context.Emax = decimal.MIN_EMIN, decimal.MAX_EMAX
        exact = decimal.Decimal(value) * decimal.Decimal(2) ** exponent
        mantissa, _, power = f"{exact:.{digits}g}".partition("e")
    if "." in mantissa:  # as the g format of a float: no trailing zeros
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}e{power}" if power else mantissa

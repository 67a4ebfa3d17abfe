"""A timer's resolution as a floor on the uncertainty of a mean.

A timer that ticks every r seconds reports each time as a multiple of r. For a true time
anywhere within a tick, the rounding error of one reading is uniform over a width r: its
variance is r²/12 (GUM, JCGM 100:2008, F.2.2.1, "resolution of a digital indication"; the same
r²/12 is Sheppard's (1898) correction of the variance of grouped data). What it does to the
mean of n readings depends on how the readings' errors are related:

- When the program's own noise spreads the readings over several ticks (Gaussian noise of
  standard deviation σ ≳ r/2: Widrow & Kollár 2008, the quantisation theorems), the rounding
  errors are nearly independent and uniform. They add r²/12 to the variance of the readings
  (Sheppard), so S²/n, the variance of the mean the intervals use, counts them already, and
  they average out with n like the rest of the noise: nothing is to be added.
- When the noise is small against a tick, every reading is rounded the same way: the sample
  is constant, or takes two or three values. Its S² says nothing of the rounding (0 for a
  constant sample), and the error of the mean is the error of one reading, variance r²/12,
  which does **not** shrink with n (Lira & Wöger 1997 analyse this case: repeated
  indications of a device of limited resolution).

A sample whose values take at most :data:`FEW_DISTINCT` distinct values spans at most two
ticks: it is taken to be in the second case, and the variance of its mean is at least r²/12,
max(S²/n, r²/12), in the relative variances that Fieller's interval, the delta interval and
the call are made from (:func:`relative_floor`). A sample of more distinct values is left as it is
(the first case: S² already holds the rounding). Where a sample has no repeated value the
floor never binds: n distinct multiples of r have S²/n ≥ (n + 1)r²/12 > r²/12.

The intervals treat the floored error as normal with the uniform's variance. The error is
bounded (|e| ≤ r/2), and a normal of variance r²/12 reaches further than the uniform at every
level from 86.7% on (z₍₁₊c₎/₂·r/√12 ≥ c·r/2), with a t quantile further still: the floor is
conservative at the levels of the intervals and calls.

The resolution is given (``--resolution``) or detected from the values: the largest step that
every difference between the distinct values is a whole multiple of (:func:`common_spacing`;
the analysis counts the values from zero, a time being a whole number of ticks).

References: W. F. Sheppard, "On the calculation of the most probable values of
frequency-constants, for data arranged according to equidistant division of a scale", Proc.
London Math. Soc. 29, 1898; JCGM 100:2008 (GUM), F.2.2.1; I. Lira, W. Wöger, "The evaluation
of standard uncertainty in the presence of limited resolution of indicating devices", Meas.
Sci. Technol. 8, 1997; B. Widrow, I. Kollár, "Quantization Noise", Cambridge UP, 2008.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

#: A sample whose values take at most this many distinct values is limited by its timer: its
#: spread spans at most two ticks, and every reading may be rounded alike.
FEW_DISTINCT = 3
#: The detected step is the smallest gap between the distinct values divided by 1, 2, … up
#: to this: values of a 1 ns timer 3 and 7 ns apart give 1 ns (3 / 3).
MAX_DIVISOR = 10
#: A difference is a whole multiple of the step when it is within this share of a step of
#: one (printed values, rounded to their digits, are not exact multiples).
SPACING_TOLERANCE = 0.01
#: Gaps within this many units in the last place of the largest value are the floats'
#: rounding (a unit's conversion), not a timer's tick.
_FLOAT_SLACK = 16

#: The floor of a relative variance of a mean is at most 1 (a standard error as large as the
#: mean): the most that any sample of positive times shows (Σx² ≤ (Σx)², so S²/n ≤ Ȳ²). It
#: binds only for a resolution over √12 ≈ 3.5 times the mean time, where the side's mean is
#: not significantly different from 0 at any usual level and its interval is open; beyond
#: it, (r/Ȳ)² would reach past the floats (constant sides of 1e-300 and 1 s, 1 s apart).
MAX_RELATIVE_FLOOR = 1.0

Source = Literal["detected", "given"]


@dataclass(frozen=True, slots=True)
class SideResolution:
    """The resolution that bounds one side's mean from below, in the unit of its values."""

    value: float
    source: Source  # detected from the values' spacing, or given (--resolution)

    @property
    def variance_floor(self) -> float:
        """r²/12: the variance of one reading's rounding error, the least of the mean's (inf
        beyond the floats, for times near 1e200: the intervals use the relative floor,
        :func:`relative_floor`, computed at a scale near 1)."""
        root = self.value / math.sqrt(12)
        return root * root  # (a product of floats overflows to inf, where ** raises)


def is_quantised(distinct: int) -> bool:
    """Whether a sample of ``distinct`` distinct values is limited by its timer."""
    return distinct <= FEW_DISTINCT


def common_spacing(distinct: Sequence[float] | np.ndarray) -> float | None:
    """The largest step r such that every difference between the sorted ``distinct`` values
    is a whole multiple of it (within :data:`SPACING_TOLERANCE` of a step): the smallest gap
    divided by the first of 1, 2, …, :data:`MAX_DIVISOR` that divides every difference. With
    two values it is their difference, the coarsest resolution they allow (an upper bound:
    the timer may be finer). None for fewer than two values, for gaps that are only the
    floats' rounding, or when no such step divides them all. (On Python floats: a handful
    of values, where each numpy call would cost more than the arithmetic.)"""
    values = [float(value) for value in distinct]
    if len(values) < 2:
        return None
    offsets = [value - values[0] for value in values[1:]]
    smallest = min(high - low for low, high in itertools.pairwise(values))
    slack = _FLOAT_SLACK * math.ulp(max(abs(values[0]), abs(values[-1])))
    if not smallest > slack:
        return None
    for divisor in range(1, MAX_DIVISOR + 1):
        step = smallest / divisor
        if all(abs(offset - round(offset / step) * step) <= SPACING_TOLERANCE * step + slack
               for offset in offsets):
            # The largest difference over its count of steps: the step to the most digits.
            return offsets[-1] / round(offsets[-1] / step)
    return None


def relative_floor(resolution: np.ndarray | float, mean: np.ndarray | float) -> np.ndarray:
    """The least relative variance of a mean, (r/Ȳ)²/12, at most :data:`MAX_RELATIVE_FLOOR`
    (0 where r is 0: no floor); r and Ȳ in one unit, at any scale."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        floor = np.minimum((np.asarray(resolution, dtype=float) / mean) ** 2 / 12,
                           MAX_RELATIVE_FLOOR)
    return np.where(np.asarray(resolution) > 0, floor, 0.0)

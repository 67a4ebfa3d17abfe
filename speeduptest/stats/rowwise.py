"""Computing over rows of samples with the numbers of scalar arithmetic.

The tests run over the rows of arrays (one benchmark per row) and give, for every row, the bits
that the same formula gives on that row alone with Python floats and the C library's ``math``:
numpy's own SIMD ``log``, ``exp``, ``arccos`` and ``square`` differ from the C library in the
last bit for a few arguments in a hundred (``square``: in ten thousand), and Python's ``min``,
``max`` and ``**`` treat NaN and overflow in their own ways. Row-wise numpy reductions
(``mean``, ``var``, ``median`` along the last axis of C-contiguous rows) give the bits of the
same reduction of each row alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

#: Rows of at least this many values (both samples of a pair together) are ranked one at a time
#: from the sorted samples (merge, searchsorted) rather than by an argsort and gather of the
#: pooled rows: measured for the Wilcoxon–Mann–Whitney and Kolmogorov–Smirnov counts,
#: 2 × 512 values: 0.058 s against 0.065 s per 600,000 values, 2 × 10⁶ values: 0.26 s against
#: 0.81 s; 2 × 256 values: 0.067 s against 0.061 s.
LONG_ROW_SIZE = 1024


def as_rows(values: np.ndarray, name: str = "samples") -> np.ndarray:
    """``values`` as C-contiguous floats of shape (rows, size): one sample per row."""
    rows = np.ascontiguousarray(values, dtype=float)
    if rows.ndim != 2:
        raise ValueError(f"{name} must have shape (rows, values), got {rows.shape}")
    return rows


def paired_rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both samples of every pair: shapes (B, n) and (B, m) with the same number of rows B."""
    x, y = np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float)
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have shapes (B, n) and (B, m) with the same B, got "
                         f"{x.shape} and {y.shape}")
    return x, y


def frozen(array: np.ndarray) -> np.ndarray:
    """A cached array, read-only."""
    array.flags.writeable = False
    return array


def libm(function: Callable[[float], float], values: np.ndarray, valid: np.ndarray,
         fallback: np.ndarray) -> np.ndarray:
    """``function`` (from ``math``, i.e. the C library) on ``values[valid]``; ``fallback``
    (numpy's result, for arguments where ``math`` raises instead of returning inf or NaN)
    elsewhere."""
    out = np.array(fallback, dtype=float, copy=True)
    if valid.any():
        out[valid] = np.fromiter(map(function, values[valid].tolist()), dtype=float)
    return out


def libm_log(values: np.ndarray) -> np.ndarray:
    """``math.log`` of every value (numpy's -inf and NaN where ``math.log`` raises)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        fallback = np.log(values)
    return libm(math.log, values, values > 0, fallback)


def _square(value: float) -> float:
    try:
        return math.pow(value, 2.0)
    except OverflowError:
        return math.nan


def python_square(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Python's ``value ** 2`` of every value (the C library's ``pow``, which differs from
    ``value * value`` in the last bit for a few arguments in ten thousand), and where it raises
    ``OverflowError`` (a finite value whose square is not: NaN there)."""
    squares = np.fromiter(map(_square, values.tolist()), dtype=float, count=values.size)
    squares = squares.reshape(values.shape)
    return squares, np.isnan(squares) & ~np.isnan(values)


def python_min(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Python's ``min(a, b)``: ``a`` unless ``b < a`` (so that NaNs behave as in scalar code)."""
    return np.where(np.less(b, a), b, a)


def python_max(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Python's ``max(a, b)``: ``a`` unless ``b > a``."""
    return np.where(np.greater(b, a), b, a)


def argsort_rows(values: np.ndarray) -> np.ndarray:
    """Argsort of each row, for uses that read whole blocks of equal values (where the order
    within a block does not matter): numpy's default sort is the fastest on short rows
    (10,000 rows of 62 values: 3 ms, against 17 ms for the stable sort)."""
    return np.argsort(values, axis=1)


def once_per_distinct(function: Callable[[np.ndarray, np.ndarray], np.ndarray],
                      first: np.ndarray | float, second: np.ndarray | float) -> np.ndarray:
    """``function(first, second)`` of an elementwise function of two arguments (a ufunc),
    computed once per distinct value where one argument holds one value throughout and the
    other few (the same loop on the same numbers, so the same bits): a run's t quantiles at
    one level for a few sample sizes (``special.stdtrit``: 0.4 µs an element, 20,000 of them
    for 10,000 pairs). For float64 arguments only: the distinct values are taken as float64,
    so a ufunc's float32 loop would not be the one that runs."""
    a, b = np.broadcast_arrays(np.asarray(first, dtype=float), np.asarray(second, dtype=float))
    if a.size < 2:
        return function(first, second)
    if _constant(b):
        values, inverse = np.unique(a.view(np.int64), return_inverse=True)
        return function(values.view(np.float64), b.flat[0])[inverse.reshape(a.shape)]
    if _constant(a):
        values, inverse = np.unique(b.view(np.int64), return_inverse=True)
        return function(a.flat[0], values.view(np.float64))[inverse.reshape(b.shape)]
    return function(first, second)


def _constant(array: np.ndarray) -> bool:
    """Whether every element of the float array has the bits of the first (-0.0 is not
    0.0)."""
    bits = array.view(np.int64)
    return bool((bits == bits.flat[0]).all())

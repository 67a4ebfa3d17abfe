"""The call of every benchmark: faster, slower, unchanged or uncertain.

The Speedup-Test verdicts answer "is the optimized version significantly faster?" one
benchmark at a time. The call answers what a reader or a CI job acts on, over a whole suite:

1. the speedup of the means, θ = mean(initial) / mean(optimized), gets Fieller's confidence
   set on the top-level units among the positive speedups, at a confidence level widened for
   the number b of benchmarks. It is an interval [L, H]; where one version's mean is not
   significantly different from 0 at that level it is open on one side, [L, ∞) or (0, H],
   and where neither is, it is every positive speedup. The levels:

   - ``bonferroni``: 1 − α/b for every benchmark, so that all intervals hold at once with
     probability ≥ 1 − α (family-wise error of the calls ≤ α);
   - ``fcr``: Benjamini & Yekutieli's false-coverage-rate intervals: Benjamini–Hochberg at
     q = α on the p-values of "θ = 1" that the intervals invert selects R benchmarks, and every
     interval is at 1 − max(R, 1)·α/b; only selected benchmarks can be called faster or
     slower, and the expected share of false calls among the calls is ≤ α;
   - ``none``: 1 − α for each benchmark on its own.

2. a practical threshold τ ≥ 0 turns the interval [L, H] into the call: ``faster`` when
   L > 1 + τ, ``slower`` when H < 1/(1 + τ), ``unchanged`` when the interval lies inside
   (1/(1 + τ), 1 + τ) (an equivalence statement, as two one-sided tests would make it), and
   ``uncertain`` otherwise.

Everything is computed on arrays over the benchmarks of a run: Fieller's set in
:mod:`speeduptest.stats.fieller`, the corrections in :mod:`speeduptest.stats.corrections`.

References
----------
E. C. Fieller, "Some problems in interval estimation", JRSS B 16(2), 1954.
R. K. Banerjee, "On confidence interval for two-means problem based on separate estimates of
variances and tabulated values of t-table", Sankhyā A 23, 1961.
Y. Benjamini, D. Yekutieli, "False discovery rate–adjusted multiple confidence intervals for
selected parameters", JASA 100(469), 2005.
Y. Benjamini, Y. Hochberg, "Controlling the false discovery rate", JRSS B 57(1), 1995.
S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Stat. 6, 1979.
T. Kalibera, R. Jones, "Quantifying performance changes with effect size confidence
intervals", University of Kent TR 4-12, 2012.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from speeduptest.notices import Notice
from speeduptest.stats.corrections import Correction, adjusted_p_values, corrected_confidence
from speeduptest.stats.defaults import DEFAULT_CORRECTION, DEFAULT_THRESHOLD
from speeduptest.stats.fieller import MeanRatio, call_fieller_bounds, fieller_p_value

Call = Literal["faster", "slower", "unchanged", "uncertain"]

CALLS: tuple[Call, ...] = ("faster", "slower", "unchanged", "uncertain")
#: The methods of a call's interval, in words (the reasons below say them; the renderers
#: read them, with the other labels, from speeduptest.model.wording).
METHOD_LABELS = {"fieller": "Fieller", "bootstrap": "bootstrap"}


def classify(low: np.ndarray, high: np.ndarray, bounded: np.ndarray, threshold: float
             ) -> np.ndarray:
    """The call from the interval [low, high] and the threshold τ (an array of names)."""
    lower, upper = threshold_band(threshold)
    with np.errstate(invalid="ignore"):
        faster = bounded & (low > upper)
        slower = bounded & (high < lower)
        unchanged = bounded & (low > lower) & (high < upper)
    return np.select([faster, slower, unchanged], ["faster", "slower", "unchanged"],
                     "uncertain")


def classify_interval(low: float, high: float, threshold: float) -> str:
    """:func:`classify` of one bounded interval (an aggregate's, a version's against the
    best)."""
    return str(classify(np.array([low]), np.array([high]), np.array([True]), threshold)[0])


@dataclass(slots=True)
class Change:
    """The call of one benchmark, with the interval and the figures it was made from."""

    call: Call
    threshold: float
    correction: Correction
    # The corrected interval of the speedup of the means; None for an end it does not have:
    # low where it reaches 0 (the initial mean is not significantly different from 0 at this
    # level), high where it has no upper end (the optimized mean is not).
    low: float | None
    high: float | None
    confidence: float
    method: str  # "fieller" (Fieller's set among the positive speedups)
    p_value_no_change: float  # two-sided p-value of speedup = 1 that the interval inverts
    selected: bool  # its interval excludes 1 (fcr: Benjamini–Hochberg selects it)
    benchmarks: int  # b, the number of benchmarks the correction is over
    reason: str
    why: str = "includes-1"  # the reason in a word: a key of speeduptest.model.wording.WHY
    notices: tuple[Notice, ...] = ()
    p_value: float | None = None  # the deciding test of the mean verdict (forward)
    holm: float | None = None  # its Holm adjustment over the analysed benchmarks
    bh: float | None = None  # its Benjamini–Hochberg adjustment

    @property
    def bounded(self) -> bool:
        """Whether the interval has both ends."""
        return self.low is not None and self.high is not None


@functools.lru_cache(maxsize=64)  # (the same few levels in every benchmark of a run)
def percent_level(confidence: float) -> str:
    """A confidence level as a percentage with the digits that keep it below 100%:
    "95%", "99.55%", "99.995%" (not "100%" for 1 − 0.05/1000)."""
    digits = 4
    while f"{confidence * 100:.{digits}g}" == "100" and confidence < 1 and digits < 12:
        digits += 1
    return f"{confidence * 100:.{digits}g}%"


def threshold_band(threshold: float) -> tuple[float, float]:
    """The band (1/(1 + τ), 1 + τ) of speedups that count as no change."""
    return 1 / (1 + threshold), 1 + threshold


def bound_texts(low: float, high: float, edges: Sequence[float] = ()) -> tuple[str, str]:
    """Both ends of an interval with the significant digits that tell them apart from each
    other and from ``edges`` (the threshold band): 1.00993 rather than 1.01 next to 1.01."""
    # As Python floats: formatting a numpy float is ~20 times slower.
    low, high = float(low), float(high)
    # Four digits nearly always do: tried first, written out (two calls per benchmark).
    texts = f"{low:.4g}", f"{high:.4g}"
    if low == high:
        return texts
    if texts[0] != texts[1]:
        for edge in edges:
            if f"{float(edge):.4g}" in texts:
                break
        else:
            return texts
    edges = [float(edge) for edge in edges]
    for digits in range(4, 15):
        texts = _significant(low, digits), _significant(high, digits)
        if low == high or (texts[0] != texts[1] and not any(
                _significant(edge, digits) in texts for edge in edges)):
            return texts
    return f"{low:.15g}", f"{high:.15g}"


def _significant(value: float, digits: int) -> str:
    """``value`` with ``digits`` significant digits (%g); 4, nearly always asked for, written
    out: a computed precision costs twice as much to format (two calls per benchmark)."""
    return f"{value:.4g}" if digits == 4 else f"{value:.{digits}g}"


def percentile_ends(speedups: np.ndarray, tails: Sequence[float], axis: int | None = None,
                    overwrite: bool = False) -> np.ndarray:
    """The resampled speedups' quantiles at ``tails`` (low, high). An end that is not a
    number (between infinite resamples, or of 0/0 ones: times spanning more than the floats)
    is the widest it can be: 0 below, infinity above. ``overwrite``: ``speedups`` may be
    reordered (no copy is made)."""
    ends = np.quantile(speedups, tails, axis=axis, overwrite_input=overwrite)
    if np.isnan(ends).any():
        ends[0], ends[1] = widest_where_undefined(ends[0], ends[1])
    return ends


def widest_where_undefined(low: np.ndarray | float, high: np.ndarray | float
                           ) -> tuple[np.ndarray, np.ndarray]:
    """The ends of an interval of speedups, each that is not a number (NaN: from infinities
    or 0/0, times spanning more than the floats) made the widest it can be: 0, infinity."""
    return np.where(np.isnan(low), 0.0, low), np.where(np.isnan(high), math.inf, high)


def _why(call: str, low: float, high: float, threshold: float,
         band: tuple[float, float]) -> str:
    """The reason of a call in a word; ``band``: :func:`threshold_band` of ``threshold``."""
    if call == "faster":
        return "above"
    if call == "slower":
        return "below"
    if call == "unchanged":
        return "within"
    if low == 0 and high == math.inf:
        return "unbounded"
    lower, upper = band
    if low > upper or high < lower:  # clear of the band, yet not called
        return "not-selected"
    return "includes-1" if threshold == 0 else "spans-edge"


def _end_text(value: float, edges: Sequence[float]) -> str:
    """One end of an interval with the significant digits that tell it apart from
    ``edges``."""
    for digits in range(4, 15):
        text = _significant(value, digits)
        if not any(_significant(edge, digits) == text for edge in edges):
            return text
    return f"{value:.15g}"


def _interval_text(low: float, high: float, edges: Sequence[float]) -> str:
    """[L, H], [L, ∞) or (0, H]."""
    if high == math.inf:
        return f"[{_end_text(low, edges)}, ∞)"
    if low == 0:
        return f"(0, {_end_text(high, edges)}]"
    low_text, high_text = bound_texts(low, high, edges)
    return f"[{low_text}, {high_text}]"


#: Why an interval is open, by the end it lacks.
_OPEN = {"high": "no upper end: the optimized mean is not significantly different from 0 at "
                 "this level",
         "low": "reaches 0: the initial mean is not significantly different from 0 at this "
                "level"}


def _widened(correction: Correction, benchmarks: int, selections: int) -> str:
    """What a call's reason says of the correction of its level (the same for every
    benchmark of a run)."""
    return ("" if benchmarks == 1 or correction == "none" else
            f" (Bonferroni over {benchmarks} benchmarks)" if correction == "bonferroni" else
            f" (FCR over {benchmarks} benchmarks, {selections} selected)")


def _reason(why: str, low: float, high: float, confidence: float, label: str, widened: str,
            threshold: float, band: tuple[float, float]) -> str:
    """A call's reason in words; ``label``: its interval's method, ``widened``:
    :func:`_widened`, ``band``: :func:`threshold_band` of ``threshold`` (the same for every
    benchmark of a run: made once)."""
    level = percent_level(confidence)
    if why == "unbounded":
        return (f"the {level} {label} interval is unbounded (neither version's mean is "
                f"significantly different from 0 at this level){widened}")
    lower, upper = band
    edges = band if threshold else (1.0,)
    interval = f"the {level} {label} interval {_interval_text(low, high, edges)}"
    if high == math.inf or low == 0:
        interval += f" ({_OPEN['high' if high == math.inf else 'low']})"
    # Only the sentence that is said is written out (10,000 benchmarks: one each).
    if why == "not-selected":
        return f"{interval} excludes 1, but Benjamini–Hochberg did not select it{widened}"
    if why == "includes-1":
        return f"{interval} includes 1{widened}"
    lower_text, upper_text = bound_texts(lower, upper, [end for end in (low, high)
                                                        if 0 < end < math.inf])
    sentence = (f"{interval} lies above {upper_text}" if why == "above" else
                f"{interval} lies below {lower_text}" if why == "below" else
                f"{interval} lies within the threshold, {lower_text} to {upper_text}"
                if why == "within" else  # spans-edge
                f"{interval} reaches into the threshold ({lower_text} to {upper_text}) "
                "and beyond it")
    return sentence + widened


def decide_calls(
    ratio: MeanRatio,
    alphas: Sequence[float],
    protocol_p_values: Sequence[float | None],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    correction: Correction = DEFAULT_CORRECTION,
) -> list[Change]:
    """The call of every analysed benchmark of a run, from Fieller's set among the positive
    speedups (:func:`call_fieller_bounds`) at each benchmark's corrected level.
    ``protocol_p_values``: the deciding test of each mean verdict, adjusted by Holm and
    Benjamini–Hochberg.

    Where a version's mean is not significantly different from 0 at that level (a few noisy
    top-level units) the set is open on one side and the call can be faster or slower, never
    unchanged; where neither's is, the call is uncertain. No bootstrap interval takes its
    place: with few units a percentile bootstrap has few distinct resamples, and at corrected
    levels its interval shrinks to the range of the data, which makes calls out of noise
    (benchmarks/few_units_calls.py).
    """
    alpha = np.asarray(alphas, dtype=float)
    b = alpha.size
    p_no_change = fieller_p_value(ratio)
    confidence, selected, selections = corrected_confidence(p_no_change, alpha, correction)
    low, high = call_fieller_bounds(ratio, confidence)
    calls = classify(low, high, np.ones(b, dtype=bool), threshold)
    if correction == "fcr":
        calls = np.where(~selected & np.isin(calls, ("faster", "slower")), "uncertain", calls)
    present = [i for i, p in enumerate(protocol_p_values) if p is not None]
    holm, bh = adjusted_p_values([protocol_p_values[i] for i in present])
    adjusted = {i: (float(h), float(q)) for i, h, q in zip(present, holm, bh, strict=True)}
    changes = []
    # What every benchmark's reason shares, made once.
    band, widened = threshold_band(threshold), _widened(correction, b, selections)
    label = METHOD_LABELS["fieller"]
    # Element by element as Python objects (indexing numpy arrays costs more than the rest).
    columns = zip(calls.tolist(), low.tolist(), high.tolist(), confidence.tolist(),
                  p_no_change.tolist(), selected.tolist(), ratio.initial_df.tolist(),
                  ratio.optimized_df.tolist(), strict=True)
    for i, (call, low_i, high_i, level, p_zero, selected_i, df_initial,
            df_optimized) in enumerate(columns):
        why = _why(call, low_i, high_i, threshold, band)
        notices = () if low_i > 0 and high_i < math.inf else (
            _open_notice(low_i, high_i, level, df_initial + 1, df_optimized + 1),)
        holm_i, bh_i = adjusted.get(i, (None, None))
        changes.append(Change(
            call=call, threshold=threshold, correction=correction,
            low=None if low_i == 0 else low_i, high=None if high_i == math.inf else high_i,
            confidence=level, method="fieller", p_value_no_change=p_zero,
            selected=selected_i, benchmarks=b, why=why, notices=notices,
            reason=_reason(why, low_i, high_i, level, label, widened, threshold, band),
            p_value=protocol_p_values[i], holm=holm_i, bh=bh_i))
    return changes


def _open_notice(low: float, high: float, confidence: float, initial_units: float,
                 optimized_units: float) -> Notice:
    """Why a call's interval lacks an end, and what to do."""
    level = percent_level(confidence)
    if low == 0 and high == math.inf:
        what = (f"neither version's mean is significantly different from 0 at the {level} "
                f"level of the call ({initial_units:.0f} and {optimized_units:.0f} top-level "
                "units): Fieller's interval is unbounded and the call uncertain")
    else:
        side, units, shape, only = (
            ("optimized", optimized_units, "has no upper end", "faster") if high == math.inf
            else ("initial", initial_units, "reaches 0", "slower"))
        what = (f"the {side} mean is not significantly different from 0 at the {level} level "
                f"of the call ({units:.0f} top-level units): Fieller's interval {shape}, so "
                f"the call can only be {only} or uncertain")
    return Notice("call-interval-open", what[0].upper() + what[1:] + ".",
                  "Collect more top-level units (builds, invocations, processes) of both "
                  "versions.")

"""Command line: ``speeduptest CONFIG.csv [--alpha 0.05] [-o DIR] [--format html,pdf,json] …``."""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from speeduptest import __version__
from speeduptest.exits import (
    EXIT_BENCHMARK_ERRORS,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_NOTHING_ANALYSED,
    EXIT_OK,
    EXIT_SLOWER,
    EXIT_TERMINATED,
    EXIT_UNPAIRED,
)
from speeduptest.model.settings import Settings
from speeduptest.notices import elide
from speeduptest.output import (
    DEFAULT_FORMATS,
    FORMATS,
    OutputError,
    ReportFolder,
    claim_report_folder,
    shown_path,
)
from speeduptest.runtime.nocycles import built_then_read
from speeduptest.stats.corrections import CORRECTIONS, SMALLEST_RISK

if TYPE_CHECKING:
    from speeduptest.model.results import Results
    from speeduptest.runtime.prefetch import Fetch

# The analysis, the readers and the renderers are imported where they are used: the options
# are parsed (and --help answered) without scipy, statsmodels or matplotlib.

EXIT_STATUS_HELP = (
    "exit status: 0 every benchmark analysed; 1 reports written, but some benchmarks have "
    "errors (see errors.html or results.json); 2 bad usage or options, or nothing could be "
    "analysed, or a file or folder could not be used (-o takes a new or empty folder, or "
    "a report folder speeduptest wrote); 3 with --fail-on-slowdown, some benchmark is "
    "called slower; 4 an internal error (please report it; --debug shows the traceback); "
    "5 with --fail-on-slowdown, none called slower, but more benchmarks of the compared "
    "files did not pair than --max-unpaired allows; "
    "130 interrupted, 143 terminated (the message says what the report folder holds)")
#: The longest line of a message on standard error; longer ones are cut.
MESSAGE_WIDTH = 400


class _Parser(argparse.ArgumentParser):
    """Usage errors in one line, exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        _to_stderr(f"{self.prog}: error: {message} (see {self.prog} --help)")
        sys.exit(EXIT_NOTHING_ANALYSED)


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if "_" in text or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number")
    return value


def _risk(text: str) -> float:
    value = _number(text)
    if not SMALLEST_RISK <= value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least {SMALLEST_RISK:g} and below 1")
    return value


def _confidence(text: str) -> float:
    value = _number(text)
    if not 0 < value <= 1 - SMALLEST_RISK:
        raise argparse.ArgumentTypeError(
            f"{text} must be above 0 and at most {1 - SMALLEST_RISK:.10f}")
    return value


def _precision(text: str) -> float:
    value = _number(text)
    if not 1e-6 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text} must be at least 1e-06 and below 1")
    return value


def _count(minimum: int, maximum: int = 10**9) -> type:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
        if "_" in text or not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{text} must be a whole number from {minimum} to {maximum:,}")
        return value
    return parse  # type: ignore[return-value]


def _fraction(text: str, example: str) -> float:
    """A fraction (0.01) or a percentage (1%)."""
    percent = text.strip().endswith("%")
    try:
        value = float(text.strip().removesuffix("%")) / (100 if percent else 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number (e.g. {example})") from None
    return value


def _threshold(text: str) -> float:
    """τ as a fraction (0.01) or a percentage (1%)."""
    value = _fraction(text, "0.01 or 1%")
    if not math.isfinite(value) or not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text}: the threshold must be at least 0 and below 1")
    return value


def _resolution(text: str) -> tuple[float, str | None]:
    """A timer's resolution: a duration (1us, 0.5ms, 1e-6s; in seconds, unit "s") or a bare
    number (in the unit the values were written in: the config's unit column, else the
    files' own; unit None)."""
    from speeduptest.inputs.config import UNITS  # (only when the option is given)

    stripped = text.strip()
    unit = next((name for name in sorted(UNITS, key=len, reverse=True)
                 if stripped.lower().endswith(name)), None)
    number = stripped[:len(stripped) - len(unit)].strip() if unit else stripped
    try:
        value = _number(number)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not a resolution: a number, with a unit of "
            f"{', '.join(name for name in UNITS if name != 'μs')} or without one "
            "(e.g. 1us, 0.5ms, 1e-6)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text}: the resolution must be 0 or more")
    return (value * UNITS[unit], "s") if unit else (value, None)


def _warmup(text: str) -> str:
    """auto, none, or a number of values (0 is none)."""
    word = text.strip().lower()
    if word in ("auto", "none"):
        return word
    if word.isdigit() and len(word) <= 9:
        return str(int(word)) if int(word) else "none"
    raise argparse.ArgumentTypeError(
        f"'{text}' is none of auto, none, or a number of values (e.g. 10)")


def _share(text: str) -> float:
    """A share from 0 to 1, as a fraction (0.05) or a percentage (5%)."""
    value = _fraction(text, "0.05 or 5%")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: a share must be from 0 to 1 (0% to 100%)")
    return value


def _names(text: str) -> tuple[str, ...]:
    """Versions' names: NAME,NAME,… or FILE=NAME,…"""
    names = tuple(part.strip() for part in text.split(","))
    if not any(names):
        raise argparse.ArgumentTypeError("give the versions' names, separated by commas")
    return names


def _formats(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(part.strip().lower() for part in text.split(",") if part.strip()))
    unknown = [name for name in names if name not in FORMATS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown format(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(FORMATS)}")
    return names


def _choices(default: str, described: Sequence[tuple[str, str]]) -> str:
    """The choices of an option for its help, each with what it does, the default said:
    "fcr (…; the default), bonferroni (…), none"."""
    texts = []
    for name, description in described:
        said = (description, "the default" if name == default else "")
        notes = "; ".join(note for note in said if note)
        texts.append(f"{name} ({notes})" if notes else name)
    return ", ".join(texts)


def _add_analysis_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by a config run and ``speeduptest compare``; their defaults are
    ``Settings()``'s."""
    defaults = Settings()
    parser.add_argument("--alpha", type=_risk, default=defaults.alpha,
                        help="risk of every test, unless a config row sets its confidence "
                             f"(default {defaults.alpha:g})")
    parser.add_argument("-o", "--output", type=Path, default=Path("speeduptest-report"),
                        help="folder for the reports (default speeduptest-report)")
    parser.add_argument("--format", type=_formats, default=DEFAULT_FORMATS,
                        help="comma-separated: html, pdf, json, md (summary for a pull "
                             "request), csv, tex (booktabs table); default html,pdf,json")
    parser.add_argument("--proportion-confidence", type=_confidence,
                        default=defaults.proportion_confidence,
                        help="confidence level of the accelerated-proportion interval "
                             "(default 1 - alpha)")
    parser.add_argument("--precision", type=_precision, default=defaults.precision,
                        help="half-width wanted for the proportion interval "
                             f"(default {defaults.precision:g})")
    parser.add_argument("--large-sample", type=_count(1), default=defaults.large_sample,
                        help="a sample is large when it has more values than this "
                             f"(default {defaults.large_sample})")
    parser.add_argument("--bootstrap", type=_count(1, 10**7), default=defaults.bootstrap,
                        help="resamples of each benchmark's bootstrap interval, and of the "
                             "aggregate intervals with --aggregate-interval bootstrap "
                             "(default 10000 for up to 100 benchmarks, then 10^6 shared out "
                             "over the benchmarks but at least 2000 each; 10000 with "
                             "--aggregate-interval bootstrap; a call that rests on a "
                             "bootstrap interval draws more, up to 100000)")
    delta = defaults.aggregate_interval == "delta"
    parser.add_argument("--aggregate-interval", choices=("delta", "bootstrap"),
                        default=defaults.aggregate_interval,
                        help="how the intervals of the geometric mean of the speedups and of "
                             "the overall speedup are made: the delta method on their log "
                             f"{'(default) ' if delta else ''}or the bootstrap (every "
                             "benchmark resampled independently, --bootstrap times"
                             f"{'' if delta else '; the default'})")
    parser.add_argument("--seed", type=_count(0, 2**63 - 1), default=defaults.seed,
                        help=f"random seed (default {defaults.seed})")
    parser.add_argument("--time", choices=("real", "cpu"), default="real",
                        help="which time of Google Benchmark files to compare: wall-clock "
                             "(real, the default) or CPU time")
    _add_metric_option(parser)
    parser.add_argument("--threshold", type=_threshold, default=defaults.threshold,
                        help="practical threshold τ of the calls: a change whose interval "
                             "lies within ±τ is 'unchanged', and only one beyond it is "
                             f"'faster' or 'slower' (default {defaults.threshold:g}, i.e. "
                             f"{defaults.threshold * 100:g}%%; 0: any change whose interval "
                             "excludes 1)")
    parser.add_argument("--correction", choices=CORRECTIONS, default=defaults.correction,
                        help="how the calls' intervals are widened for the number of "
                             "benchmarks: " + _choices(defaults.correction, (
                                 ("fcr", "Benjamini–Yekutieli: at most α of the calls false, "
                                         "on average"),
                                 ("bonferroni", "no false call at all in 1 − α of the runs"),
                                 ("none", ""))))
    parser.add_argument("--fail-on-slowdown", action="store_true",
                        help="exit with status 3 when some benchmark is called slower (its "
                             "corrected interval lies below 1/(1 + τ)); for CI")
    parser.add_argument("--resolution", type=_resolution, default=None,
                        metavar="DURATION",
                        help="the timer's resolution: the mean of a sample whose values take "
                             "at most 3 distinct values is uncertain by at least resolution/√12 "
                             "in the intervals and the calls. A duration (1us, 0.5ms, 1ns) "
                             "for samples whose unit is known (a tool's files, a config's "
                             "unit column), or a bare number in the unit the values were written "
                             "in (the unit column's, else the files'); 0: "
                             "the values are exact (counts), no floor (default: detected "
                             "from the spacing of those values)")
    parser.add_argument("--warmup", type=_warmup, default=defaults.warmup,
                        metavar="auto|none|N",
                        help="what to leave out of each invocation's values, in measurement "
                             "order, before the analysis: its warm-up as detected (auto), "
                             "nothing (none; the checks still run and report), or its first "
                             f"N values (default {defaults.warmup})")
    parser.add_argument("--dependence", choices=("batch", "ignore"),
                        default=defaults.dependence,
                        help="when the values of a one-level sample (one invocation's "
                             "iterations) are correlated: analyse means of batches of them "
                             "(batch) or the values as they are (ignore; the check still "
                             f"reports); default {defaults.dependence}")
    parser.add_argument("--baseline", metavar="VERSION", default=None,
                        help="with several versions: the one every other is compared with "
                             "(a version column of a wide config, a version of a long "
                             "config, or a file of compare: its #VERSION, its name without "
                             "extensions, or the argument as given); default: the first")
    parser.add_argument("--quiet", action="store_true",
                        help="print nothing but fatal errors")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an internal error")
    parser.add_argument("--version", action="version", version=f"speeduptest {__version__}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="speeduptest", epilog=EXIT_STATUS_HELP,
        description="Is the optimized version really faster? Runs the Speedup-Test protocol on "
                    "every benchmark of CONFIG and writes reports. See also: speeduptest "
                    "compare --help (two result files of a benchmark tool), speeduptest plan "
                    "--help (experiment planning).",
    )
    parser.add_argument("config", type=Path, help="CSV with columns benchmark, initial, "
                        "optimized[, weight, confidence]; a sample is a file, or FILE#NAME "
                        "for one benchmark of a tool's result file. Several versions: "
                        "benchmark,VERSION1,VERSION2,…[,weight,confidence] with --baseline "
                        "VERSION, or benchmark,version,sample[,weight,confidence]. It may "
                        "come from a pipe (<(…), /dev/stdin): its relative sample paths are "
                        "then from the current folder")
    _add_analysis_options(parser)
    return parser


def build_compare_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="speeduptest compare", epilog=EXIT_STATUS_HELP,
        usage="%(prog)s INITIAL OPTIMIZED [MORE …] [options]",
        description="Compare result files of the same benchmark tool (pyperf, hyperfine, "
                    "Google Benchmark, JMH, ReBench, go test -bench, pytest-benchmark, asv, "
                    "Catch2, Criterion.rs, long CSV), benchmarks paired by name, "
                    "with the same analysis and reports as a config. With three or more "
                    "versions, each is compared with the baseline (the first, or "
                    "--baseline) and all of them with each other.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="result files, one per version, the initial (baseline) first; "
                             "FILE#VERSION takes one version (ReBench executor, long-CSV "
                             "version, hyperfine command) of a file holding several, and a "
                             "single file holding several versions stands for all of them")
    parser.add_argument("--max-unpaired", type=_share, default=0.0, metavar="SHARE",
                        help="with --fail-on-slowdown: the share of the benchmarks named in "
                             "the files that may go without a counterpart (not compared) "
                             "before the job fails with exit status 5, e.g. 0.05 or 5%%; "
                             "default 0: every benchmark must pair")
    parser.add_argument("--names", type=_names, default=(), metavar="NAME,NAME,…",
                        help="the versions' names in the reports, one per file in order, or "
                             "FILE=NAME,… for some of them; default: each file's #VERSION, "
                             "else its name without extensions, else (same-named files) the "
                             "shortest part of their folders that tells them apart")
    _add_analysis_options(parser)
    return parser


class _Progress:
    """A one-line progress indicator on stderr, for terminals only."""

    def __init__(self, enabled: bool, verb: str = "analysing") -> None:
        self.enabled = enabled
        self.verb = verb

    def __call__(self, index: int, total: int, name: str) -> None:
        if self.enabled:
            with contextlib.suppress(OSError):
                sys.stderr.write(_encodable(
                    f"\r\x1b[K{self.verb} {index}/{total}: {elide(name, 50)}", sys.stderr))
                sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            with contextlib.suppress(OSError):
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()


def _cost(text: str) -> tuple[str, float]:
    name, _, value = text.rpartition("=")
    try:
        cost = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not LEVEL=COST") from None
    if not name.strip() or not math.isfinite(cost) or cost <= 0:
        raise argparse.ArgumentTypeError(f"'{text}': the cost must be a number > 0")
    return name.strip().lower(), cost


def _positive(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be a number > 0")
    return value


def _add_metric_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--metric", metavar="UNIT", default=None,
                        help="which metric of Go benchmark results (go test -bench) to "
                             "compare, by its unit as written: B/op, allocs/op, MB/s (read "
                             "as time per MB), or a unit of b.ReportMetric; default: the "
                             "time per call (ns/op)")


def build_plan_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="speeduptest plan",
        description="From an initial experiment (a hierarchical .csv sample), print the "
                    "variance each level adds and the optimal number of repetitions per level "
                    "(Kalibera & Jones, ISMM 2013).",
    )
    parser.add_argument("sample", help="CSV with grouping columns and a value column, or "
                        "FILE#NAME for one benchmark of a tool's result file (pyperf, JMH, "
                        "ReBench, long CSV)")
    parser.add_argument("--cost", type=_cost, action="append", default=[], required=True,
                        metavar="LEVEL=COST",
                        help="cost of one more unit at a level, e.g. iteration=1 "
                             "invocation=19 build=5343 (one per level, any time unit)")
    parser.add_argument("--budget", type=_positive, default=None,
                        help="time available, in the unit of the costs: prints how many "
                             "top-level units it buys")
    _add_metric_option(parser)
    parser.add_argument("--warmup", type=_warmup, default=Settings().warmup,
                        metavar="auto|none|N",
                        help="what to leave out of each invocation before planning, as the "
                             "analysis does: its detected warm-up (auto), nothing, or its "
                             f"first N values (default {Settings().warmup})")
    return parser


def plan_main(argv: Sequence[str]) -> int:
    """``speeduptest plan``, for programs (the command goes through :func:`main`)."""
    return _guarded(["plan", *argv], _Ended())


def _plan(args: argparse.Namespace) -> int:
    from speeduptest.inputs.readers import ReadOptions, read_source, select, split_reference
    from speeduptest.render.terminal import render_plan
    from speeduptest.stats.hierarchy import variance_components
    from speeduptest.stats.planning import plan_experiment
    from speeduptest.stats.steady import WarmupError, check_side, measurement_advice

    file, name = split_reference(args.sample, Path())
    # (plan never resamples: a design too unbalanced to bootstrap is still planned)
    sample = select(read_source(file, options=ReadOptions(bootstrap=False, metric=args.metric)),
                    name)
    if not sample.ok or sample.data is None:
        problems = [f"{args.sample}: {sample.problem}"] if sample.problem else [
            str(error) for error in sample.errors] or [f"{args.sample}: contains no values"]
        for problem in problems:
            _to_stderr(f"speeduptest plan: error: {problem}")
        return EXIT_NOTHING_ANALYSED
    try:  # the values the analysis would take: warm-ups left out
        data, validity = check_side(sample.data, args.warmup, "ignore")
    except WarmupError as error:
        _to_stderr(f"speeduptest plan: error: {args.sample}: {error}")
        return EXIT_NOTHING_ANALYSED
    components = variance_components(data)
    costs = dict(args.cost)
    missing = [name for name in components.level_names if name not in costs]
    unknown = [name for name in costs if name not in components.level_names]
    if missing or unknown:
        _to_stderr(f"speeduptest plan: error: give one --cost per level of {args.sample}: "
                   f"{', '.join(reversed(components.level_names))}"
                   + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
        return EXIT_NOTHING_ANALYSED
    plan = plan_experiment(components, [costs[name] for name in components.level_names],
                           args.budget)
    _print(render_plan(plan, str(args.sample), sample.data.describe(),
                       measurement_advice(validity)), end="")
    return EXIT_OK


class Terminated(KeyboardInterrupt):
    """SIGTERM (sent by ``timeout``, CI runners, systemd): ends the run as Ctrl-C does, its
    workers with it."""


def _terminate(signum: int, frame: object) -> None:
    raise Terminated


def console_main() -> int:
    """The ``speeduptest`` command (and ``python -m speeduptest``, both through
    :func:`speeduptest.command.entry_point`): :func:`main`, in a process of its own, which
    ends on SIGTERM as on Ctrl-C, and leaves the results to the end of the process instead of
    taking them apart (:func:`speeduptest.runtime.nocycles.built_then_read`); programs calling
    :func:`main` themselves are left alone."""
    signal.signal(signal.SIGTERM, _terminate)
    return _main(sys.argv[1:], process_ends=True)


def main(argv: Sequence[str] | None = None) -> int:
    """The command, for programs: ``argv`` are its arguments (default: ``sys.argv[1:]``);
    returns the exit status."""
    return _main(list(sys.argv[1:] if argv is None else argv), process_ends=False)


@dataclass
class _Ended:
    """What the guard says of a run that ended early: what it was analysing, and its report
    folder once claimed."""

    what: str = "the command line"
    folder: ReportFolder | None = None


def _main(arguments: list[str], process_ends: bool) -> int:
    return _guarded(arguments, _Ended(), process_ends)


def _guarded(arguments: list[str], ended: _Ended, process_ends: bool = False) -> int:
    """Every subcommand through one guard: an interrupt, a file or folder that cannot be
    used (exit 2) and an internal error (exit 4, the traceback under --debug) each end in
    one line."""
    name = "speeduptest plan" if arguments[:1] == ["plan"] else "speeduptest"
    try:
        return _dispatch(arguments, ended, process_ends)
    except KeyboardInterrupt as interrupt:
        how = "terminated" if isinstance(interrupt, Terminated) else "interrupted"
        folder = f"; {ended.folder.label} {ended.folder.state()}" if ended.folder else ""
        _to_stderr(f"\n{name}: {how}{folder}")
        return EXIT_TERMINATED if isinstance(interrupt, Terminated) else EXIT_INTERRUPTED
    except OutputError as error:
        _to_stderr(f"{name}: error: {error}")
        return EXIT_NOTHING_ANALYSED
    except OSError as error:
        _to_stderr(f"{name}: error: {_os_error(error)}")
        return EXIT_NOTHING_ANALYSED
    except Exception as error:
        if "--debug" in arguments:
            raise
        _to_stderr(f"speeduptest {__version__}: internal error while analysing {ended.what}: "
                   f"{type(error).__name__}: {str(error)[:200]} (run again with --debug for the "
                   "traceback, and please report it)")
        return EXIT_INTERNAL


def _os_error(error: OSError) -> str:
    """An OSError as "path: the system's reason"."""
    reason = error.strerror or str(error)
    paths = [shown_path(path) for path in (error.filename, error.filename2)
             if isinstance(path, (str, bytes, os.PathLike))]
    return ": ".join([" -> ".join(paths), reason] if paths else [reason])


def _run_arguments(arguments: list[str]) -> argparse.Namespace:
    """The arguments of a run on a config; several files (``speeduptest a.json b.json``, a
    slip for ``compare``) get the command that compares them."""
    parser = build_parser()
    args, extra = parser.parse_known_args(arguments)
    if extra:
        hint = ""
        if not any(argument.startswith("-") for argument in extra):
            hint = ("; to compare result files, run: "
                    + shlex.join(["speeduptest", "compare", str(args.config), *extra]))
        parser.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    return args


def _dispatch(arguments: list[str], ended: _Ended, process_ends: bool) -> int:
    if arguments[:1] == ["plan"]:
        args = build_plan_parser().parse_args(arguments[1:])
        ended.what = shown_path(args.sample)
        return _plan(args)
    comparing = arguments[:1] == ["compare"]
    args = (build_compare_parser().parse_args(arguments[1:]) if comparing
            else _run_arguments(arguments))
    inputs = ([file.rpartition("#")[0] or file for file in args.files] if comparing
              else [args.config])
    ended.what = " vs ".join(map(shown_path, inputs))
    folder = claim_report_folder(args.output, inputs)
    ended.folder = folder
    with built_then_read(process_ends) as built:
        return _run(args, arguments, comparing, folder, built)


def _cut(line: str) -> str:
    """A line of at most :data:`MESSAGE_WIDTH` characters."""
    if len(line) <= MESSAGE_WIDTH:
        return line
    more = f"… ({len(line) - MESSAGE_WIDTH + 30:,} more characters)"
    return line[:MESSAGE_WIDTH - 30] + more


def _to_stderr(text: str) -> None:
    """Print to standard error, each line cut to :data:`MESSAGE_WIDTH`; nowhere when the
    command was started without one (2>&-: ``print(file=None)`` would write it among the
    answer, on standard output), or when it cannot be written (a full device, a reader that
    went away): the exit status never depends on that."""
    if sys.stderr is None:
        return
    text = "\n".join(map(_cut, text.split("\n")))
    try:
        print(_encodable(text, sys.stderr), file=sys.stderr, flush=True)
    except OSError:
        _write_nowhere(sys.stderr)


def _encodable(text: str, stream: object) -> str:
    """``text`` with what the stream's encoding cannot show replaced (a terminal that is not
    UTF-8: "–" becomes "?"), and file names that are not UTF-8 escaped."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        return (text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                .encode(encoding, "replace").decode(encoding))
    except LookupError:
        return text


def _write_nowhere(stream: object) -> None:
    """Later writes to the stream (and the interpreter's final flush) go nowhere instead of
    failing."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())  # type: ignore[attr-defined]


def _print(text: str, end: str = "\n") -> None:
    """Print to stdout; a reader that went away (``| head``) or a standard output that cannot
    be written (a full device: said once on stderr) does not stop the run."""
    try:
        print(_encodable(text, sys.stdout), end=end, flush=True)
    except OSError as error:
        if not isinstance(error, BrokenPipeError):
            _to_stderr(f"speeduptest: warning: could not write to standard output "
                       f"({error.strerror or error}); the reports are written all the same")
        _write_nowhere(sys.stdout)


def _analyse(args: argparse.Namespace, arguments: list[str], comparing: bool,
             progress: _Progress, fetch: Fetch | None) -> Results:
    """The results of the run (``fetch``: the config's sample files read ahead)."""
    from speeduptest.analysis.run import analyse
    from speeduptest.inputs.files import SampleFiles
    from speeduptest.inputs.forms import read_experiment
    from speeduptest.inputs.readers import ReadOptions
    from speeduptest.model.results import RunInfo

    settings = Settings(
        alpha=args.alpha,
        proportion_confidence=args.proportion_confidence,
        precision=args.precision,
        large_sample=args.large_sample,
        bootstrap=args.bootstrap,
        aggregate_interval=args.aggregate_interval,
        seed=args.seed,
        threshold=args.threshold,
        correction=args.correction,
        fail_on_slowdown=args.fail_on_slowdown,
        warmup=args.warmup,
        dependence=args.dependence,
        resolution=args.resolution[0] if args.resolution else None,
        resolution_unit=args.resolution[1] if args.resolution else None,
    )
    run = RunInfo(
        command=shlex.join(["speeduptest", *arguments]),
        started=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"),
    )
    options = ReadOptions(time=args.time, metric=args.metric)
    if comparing:
        from speeduptest.inputs.compare import compared_experiment

        experiment = compared_experiment(args.files, args.baseline, options, args.names)
    else:
        experiment = read_experiment(args.config, args.baseline, SampleFiles(options, fetch))
    return analyse(experiment, settings, progress, run)


def _run(args: argparse.Namespace, arguments: list[str], comparing: bool,
         folder: ReportFolder, built: Callable[[object], None]) -> int:
    """Analyse, print the answer, write the reports; ``built`` is called once the results are
    complete (:func:`speeduptest.runtime.nocycles.built_then_read`)."""
    from speeduptest.inputs.config import ConfigError, reading_ahead

    # (No standard error at all when the command is started with it closed: 2>&-.)
    progress = _Progress(enabled=not args.quiet and sys.stderr is not None
                         and sys.stderr.isatty())
    try:
        # A child reads the config's sample files while scipy and the analysis are imported
        # (a third of a second) and the config is checked.
        with (contextlib.nullcontext() if comparing
              else reading_ahead(args.config)) as fetch:
            results = _analyse(args, arguments, comparing, progress, fetch)
    except ConfigError as error:
        progress.done()
        _to_stderr(f"speeduptest: error: {error}")
        return EXIT_NOTHING_ANALYSED
    finally:
        progress.done()
    from speeduptest.render.formats import render_formats
    built(results)  # complete: the renderers only read them
    if not args.quiet:  # the answer before the (slower) rendering
        from speeduptest.render.terminal import render_terminal

        _print(render_terminal(results, args.format), end="")
    rendering = _Progress(enabled=progress.enabled, verb="rendering")
    try:
        files = render_formats(results, args.format, progress=rendering)
    finally:
        rendering.done()
    try:
        written = folder.write(files, on_wait=lambda: _to_stderr(
            f"speeduptest: waiting for another run writing beside {folder.label}"))
    except OSError as error:
        _to_stderr(f"speeduptest: error: could not write the reports in {folder.label} "
                   f"({_os_error(error)}); it {folder.state()}")
        return EXIT_NOTHING_ANALYSED
    if not args.quiet:
        _print("Wrote: " + ", ".join(os.path.join(folder.shown, name) for name in written))
    if not results.analysed:
        return EXIT_NOTHING_ANALYSED
    unpaired = (args.fail_on_slowdown
                and results.unpaired_share > getattr(args, "max_unpaired", 0.0))
    if unpaired:  # (even under --quiet: this is why the job fails)
        left_out = sum(len(group.names) for group in results.unpaired)
        _to_stderr(f"speeduptest: {left_out} of the benchmarks named in the files "
                   f"({results.unpaired_share:.0%}) were not compared, more than "
                   f"--max-unpaired {args.max_unpaired:g} allows: "
                   + "; ".join(f"{len(group.names)} of {group.file} not in {group.other}"
                               for group in results.unpaired))
    if args.fail_on_slowdown and results.slower:
        # Even under --quiet: this is why the job fails.
        for version, benchmark in results.slower:
            slower = (f": {version} is slower than {results.baseline_name}" if results.several
                      else " is slower")
            _to_stderr(f"speeduptest: {benchmark.name}{slower}: {benchmark.change.reason}")
        return EXIT_SLOWER
    if unpaired:
        return EXIT_UNPAIRED
    return EXIT_BENCHMARK_ERRORS if results.failed else EXIT_OK

"""`benchlab warmup`: each execution's class (flat, warm-up, slowdown, no steady state) and
where its steady state starts; each benchmark consistent or not (stats/warmup.py)."""

from __future__ import annotations

import argparse

from benchlab.cli import common, output_options
from benchlab.errors import InputError, UsageError
from benchlab.escape import terminal
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab warmup iterations.csv --by benchmark --levels fork --value time
  benchlab warmup iterations.csv --by benchmark --levels fork --order iteration --plot w.png
  benchlab warmup jmh-result.json          # JMH forks are the executions
"""


def _fraction(text: str) -> float:
    """'1/6', '0.1667' or '16.7%' → a fraction strictly between 0 and 1."""
    try:
        if "/" in text:
            num, den = text.split("/", 1)
            value = float(num) / float(den)
        elif text.endswith("%"):
            value = float(text[:-1]) / 100.0
        else:
            value = float(text)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"not a fraction: {text!r} (say 1/6 or 0.2)") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"the steady fraction must be between 0 and 1: {text!r}")
    return value


def _penalty(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1e6:
        raise argparse.ArgumentTypeError(f"the penalty factor must be positive: {text!r}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    from benchlab.stats.warmup_defaults import PENALTY_FACTOR, THRESHOLD

    p = sub.add_parser(
        "warmup", help="warm-up and steady state of each execution (Barrett et al.'s classes)",
        description="Classify each execution (the lowest --levels unit: a process, a JMH fork, "
                    "a pyperf run) as flat, warm-up, slowdown or no steady state from change "
                    "points (PELT on mean and variance), say where its steady state starts, "
                    "and whether each benchmark warms up consistently (docs/warmup.md).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_table_input(p)
    common.add_benchmark_option(p, "the classes")
    a = p.add_argument_group("analysis")
    a.add_argument("--order", metavar="COLUMN", help="numeric column giving the iterations' "
                   "order within an execution (default: the order of the file)")
    a.add_argument("--steady-fraction", type=_fraction, default=None, metavar="F",
                   help="the last fraction of an execution its steady state must cover "
                        "(default 1/6: the last 500 of 3,000 iterations)")
    a.add_argument("--threshold", type=common.percent_type("threshold"), default=THRESHOLD,
                   help="segments (and benchmarks' steady means) closer than this are "
                        f"equivalent (default {100 * THRESHOLD:g}%%)")
    a.add_argument("--penalty", type=_penalty, default=PENALTY_FACTOR, metavar="K",
                   help=f"PELT's penalty is K·log n per change point (default {PENALTY_FACTOR:g})")
    a.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence of the segments' ratio intervals (default 95)")
    output_options.add(p)
    p.set_defaults(run=noting(run))


def executions(args: argparse.Namespace, samples, level_names: list[str]):
    """(benchmark, levels, values) of every execution of every sample, each in file order
    or by --order (data/steady_state.execution_rows)."""
    import numpy as np

    from benchlab.data.steady_state import execution_rows

    out = []
    for s in samples:
        values = np.asarray(s.values, dtype=float)
        out.extend((s.name, label, values[idx]) for label, idx in
                   execution_rows(s, level_names, order=_order(args, s.dataset)))
    return out


def _order(args: argparse.Namespace, ds):
    """The --order column as numbers (None without --order)."""
    import numpy as np

    if not getattr(args, "order", None):
        return None
    if args.order not in ds.columns:
        raise UsageError(f"no column {args.order!r} for --order", ds.source)
    try:
        return np.asarray(ds.columns[args.order], dtype=float)
    except ValueError:
        raise InputError(f"--order column {args.order!r} is not numeric", ds.source) from None


def add_cut_options(p: argparse.ArgumentParser) -> None:
    """--warmup auto and --no-steady-state for the commands that analyse executions."""
    g = p.add_argument_group("warm-up")
    g.add_argument("--warmup", choices=("none", "auto"), default="none",
                   help="auto: cut each execution (the lowest --levels unit) at the start of "
                        "its steady state, as `benchlab warmup` finds it (default none)")
    g.add_argument("--no-steady-state", choices=("keep", "drop"), default="keep",
                   help="with --warmup auto, an execution without a steady state: keep it "
                        "whole (default) or leave it out; either way a warning names it")


def cut_of(args: argparse.Namespace):
    """The WarmupCut the options ask for (None without --warmup auto): decided once, here,
    for every command (compare and report keep it in their AnalysisSpec)."""
    from benchlab.stats.spec import WarmupCut

    if getattr(args, "warmup", "none") != "auto":
        if getattr(args, "no_steady_state", "keep") != "keep":
            raise UsageError("--no-steady-state goes with --warmup auto")
        return None
    return WarmupCut(no_steady_state=args.no_steady_state)


def cut(spec, samples, level_names: list[str], higher_is_better: bool | None,
        within: tuple[str, ...] = ()):
    """The samples cut as `spec` (a WarmupCut) says (data/steady_state.py), each sample
    without a steady state named on standard error; a usage error without levels."""
    import sys

    from benchlab.data.steady_state import cut_to_steady_state

    if not level_names:
        raise UsageError("--warmup auto needs the column naming each execution: --levels "
                         "(e.g. --levels fork, or build,run)")
    found = cut_to_steady_state(samples, level_names, spec,
                                higher_is_better=higher_is_better, within=within)
    for warning in found.warnings:
        print(f"benchlab: warning: {terminal(warning)}", file=sys.stderr)
    return found


def run(args: argparse.Namespace) -> int:
    from benchlab.data.samples import unify_units
    from benchlab.stats.warmup import STEADY_FRACTION, analyse

    confidence = common.confidence(args.confidence)
    output_options.check(args, args.files)
    pairs, samples, level_names = common.levelled_samples(args)
    if not level_names:
        raise UsageError("warmup needs the column naming each execution: --levels COLUMN "
                         "(e.g. --levels fork, or build,run)")
    samples, unit, note = unify_units(samples, args.unit, args.higher_is_better)
    result = analyse(executions(args, samples, level_names), level_names=tuple(level_names),
                     unit=unit.name, higher_is_better=bool(unit.higher_is_better),
                     penalty_factor=args.penalty,
                     steady_fraction=args.steady_fraction or STEADY_FRACTION,
                     threshold=args.threshold, confidence=confidence,
                     notes=(note,) if note else ())
    output_options.emit(args, result, output_options.context(args, "warmup", args.files),
                        args.files)
    return 0

"""`benchlab warmup`: each execution's class (flat, warm-up, slowdown, no steady state) and
where its steady state starts; each benchmark consistent or not (stats/warmup.py)."""

from __future__ import annotations

import argparse

from benchlab.cli import common, output_options
from benchlab.errors import InputError, UsageError
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


def execution_rows(args: argparse.Namespace, sample, level_names: list[str]):
    """(levels, row indices) of each execution of one sample: its rows grouped by the level
    columns, in order of first appearance, each in file order or by --order."""
    import numpy as np

    from benchlab.stats.warmup import MIN_ITERATIONS

    ds = sample.dataset
    if not ds.ordered:
        raise InputError(f"{sample.name!r}: the values are not in measurement order (JMH "
                         "sample mode keeps a histogram); warmup needs the iterations",
                         ds.source)
    arrays = [np.asarray(a).astype(str) for a in common.level_arrays(sample, level_names)]
    order = None
    if getattr(args, "order", None):
        if args.order not in ds.columns:
            raise UsageError(f"no column {args.order!r} for --order", ds.source)
        try:
            order = np.asarray(ds.columns[args.order], dtype=float)
        except ValueError:
            raise InputError(f"--order column {args.order!r} is not numeric",
                             ds.source) from None
    groups: dict[tuple[str, ...], list[int]] = {}
    for row, key in enumerate(zip(*arrays, strict=True)):
        groups.setdefault(key, []).append(row)
    out = []
    for key, rows in groups.items():
        idx = np.asarray(rows)
        if order is not None:
            idx = idx[np.argsort(order[idx], kind="stable")]
        label = tuple(zip(level_names, key, strict=True))
        if idx.size < MIN_ITERATIONS:
            where = ", ".join(f"{k} {v}" for k, v in label)
            raise InputError(f"{sample.name!r} {where}: {idx.size} iterations; an execution "
                             f"needs at least {MIN_ITERATIONS}", ds.source)
        out.append((label, idx))
    return out


def executions(args: argparse.Namespace, samples, level_names: list[str]):
    """(benchmark, levels, values) of every execution of every sample."""
    import numpy as np

    out = []
    for s in samples:
        values = np.asarray(s.values, dtype=float)
        out.extend((s.name, label, values[idx])
                   for label, idx in execution_rows(args, s, level_names))
    return out


def add_cut_options(p: argparse.ArgumentParser) -> None:
    """--warmup auto and --no-steady-state for the commands that analyse executions."""
    g = p.add_argument_group("warm-up")
    g.add_argument("--warmup", choices=("none", "auto"), default="none",
                   help="auto: cut each execution (the lowest --levels unit) at the start of "
                        "its steady state, as `benchlab warmup` finds it (default none)")
    g.add_argument("--no-steady-state", choices=("keep", "drop"), default="keep",
                   help="with --warmup auto, an execution without a steady state: keep it "
                        "whole (default) or leave it out; the notes say how many")


def cut_for(args: argparse.Namespace, samples, level_names: list[str],
            higher_is_better: bool):
    """--warmup auto's samples and notes; a usage error without levels."""
    if not level_names:
        raise UsageError("--warmup auto needs the column naming each execution: --levels")
    return cut_to_steady_state(args, samples, level_names,
                               drop=args.no_steady_state == "drop",
                               higher_is_better=higher_is_better)


def cut_to_steady_state(args: argparse.Namespace, samples, level_names: list[str], *,
                        drop: bool, higher_is_better: bool = False):
    """`--warmup auto` of other commands: each execution cut at the start of its steady
    state (stats/warmup.classify_execution, default settings); an execution without one
    kept whole, or left out with `drop`. Returns the samples and the notes that say what
    was cut."""
    from dataclasses import replace

    import numpy as np

    from benchlab.data.samples import Sample
    from benchlab.stats.warmup import classify_execution

    out, notes = [], []
    for s in samples:
        keep = np.zeros(len(s.values), dtype=bool)
        values = np.asarray(s.values, dtype=float)
        cut = none = 0
        runs = execution_rows(args, s, level_names)
        for _, idx in runs:
            e = classify_execution(values[idx], higher_is_better=higher_is_better)
            if e.steady_start is None:
                none += 1
                keep[idx] = not drop
            else:
                keep[idx[e.steady_start:]] = True
                cut += e.steady_start
        if not keep.any():
            raise InputError(f"{s.name!r}: no execution reaches a steady state, and "
                             "--no-steady-state drop leaves nothing", s.dataset.source)
        ds = s.dataset
        subset = replace(ds, columns={k: v[keep] for k, v in ds.columns.items()},
                         lines=None if ds.lines is None else ds.lines[keep])
        out.append(Sample(s.name, values[keep], subset))
        note = (f"{s.name}: --warmup auto cut {cut} of {values.size} iterations at the steady "
                f"states' starts ({len(runs)} executions)")
        if none:
            note += (f"; {none} without a steady state "
                     f"{'left out' if drop else 'kept whole'}")
        notes.append(note)
    return out, notes


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

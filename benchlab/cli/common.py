"""Argument groups and parsers shared by the commands that read measurement files."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from contextlib import contextmanager

from benchlab.cli.option_types import text as utf8
from benchlab.errors import UsageError

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zµ]*)\s*$")
_SECONDS = {"": 1.0, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
            "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}


def duration(text: str) -> float:
    """'20m', '6s', '1.5h', '250ms' → seconds (a bare number is seconds)."""
    match = _DURATION.match(text)
    if not match or match.group(2) not in _SECONDS:
        raise UsageError(f"not a duration: {text!r} (say 6s, 20m, 1.5h)")
    seconds = float(match.group(1)) * _SECONDS[match.group(2)]
    if not seconds < 1e15:  # about 30 million years; beyond it (or inf) is not a plan
        raise UsageError(f"duration too large: {text!r}")
    return seconds


def duration_type(text: str) -> float:
    """duration() for argparse `type=`: its error becomes a usage message, not a traceback."""
    try:
        return duration(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def confidence(text: str | None) -> float:
    """'95', '95%' or '0.95' → 0.95; None → 0.95.

    A percentage from 50 to 99.99, or a fraction from 0.5 to 0.9999; anything else
    (1, which could mean 1% or 100%; 30; 99.999) is refused rather than guessed."""
    if text is None:
        return 0.95
    try:
        value = float(text.strip().rstrip("%"))
    except ValueError:
        raise UsageError(f"not a confidence level: {text!r} (say 95 or 0.95)") from None
    percent = text.strip().endswith("%") or value > 1.0
    fraction = value / 100.0 if percent else value
    if not (0.5 <= fraction <= 0.9999) or (percent and not 50.0 <= value <= 99.99):
        raise UsageError(f"confidence must be between 50% and 99.99% (95 or 0.95): {text!r}")
    return fraction


def percent_type(what: str):
    """An argparse `type=` reading '2%' or '0.02' as 0.02, naming `what` in its errors."""

    def parse(text: str) -> float:
        try:
            value = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"not a {what}: {text!r} (say 2% or 0.02)") from None
        if not 0.0 <= value < 1.0:
            raise argparse.ArgumentTypeError(f"{what} must be between 0% and 100%: {text!r}")
        return value

    return parse


def levels(text: str | None) -> list[str]:
    """'build,run' → ['build', 'run'] (highest first)."""
    if not text:
        return []
    names = [t.strip() for t in text.split(",") if t.strip()]
    if len(set(names)) != len(names):
        raise UsageError(f"--levels names a column twice: {text!r}")
    return names


def add_table_input(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Files and the options that say how to read them into samples; returns the group."""
    from benchlab.data.readers import ALIASES, READERS

    p.add_argument("files", nargs="*", help="measurement files (CSV/TSV, plain numbers, "
                   "foreign formats); - for stdin")
    g = p.add_argument_group("input")
    g.add_argument("-C", dest="column", type=int, default=1, metavar="N",
                   help="column of a plain file to read (1-based, default 1)")
    g.add_argument("-d", dest="delimiters", default=" \t", metavar="DELIMS",
                   help="field delimiter characters of a plain file (default space and tab)")
    g.add_argument("--value", help="column of a CSV/TSV table holding the measurements")
    g.add_argument("--by", help="column naming the group (system) of each row")
    g.add_argument("--levels", help="level columns of the hierarchy, highest first, e.g. "
                   "build,run (the measurement is the lowest level); default: the levels the "
                   "file format records (JMH forks, pyperf runs); none: no hierarchy")
    g.add_argument("--metric", metavar="NAME", help="the metric to analyse: of a store (wall, "
                   "user, sys, maxrss, instructions, ...) or of a multi-metric format (go test: "
                   "B/op, allocs/op; Google Benchmark: cpu_time; pytest-benchmark: ops; "
                   "Criterion: throughput; perf stat and cachegrind: an event; BMF: a measure; "
                   "JMH: a secondary metric); compare and report take several, comma-separated")
    g.add_argument("--mode", help="JMH: the benchmark mode to read (thrpt, avgt, sample, ss) "
                   "when a file has results of several")
    formats = sorted({*READERS, *ALIASES})
    g.add_argument("--input-format", choices=formats, metavar="FORMAT",
                   help="read inputs as this format instead of guessing from the content: "
                        + ", ".join(formats))
    g.add_argument("--unit", type=utf8, help="unit of the values (s, ms, us, ns, MB/s, ...)")
    g.add_argument("--higher-is-better", action="store_true", default=None,
                   help="higher values are better (throughput); default from the unit")
    return g


def resolved_levels(args: argparse.Namespace, samples) -> list[str]:
    """--levels, else the levels every sample's format records (for a store, the levels its
    default analysis uses: data/store_design.recorded_levels); `--levels none` for none."""
    from benchlab.data.store_design import recorded_levels

    if args.levels is not None:
        return [] if args.levels.strip().lower() == "none" else levels(args.levels)
    return list(recorded_levels(samples))


def metric_names(args: argparse.Namespace) -> tuple[str, ...]:
    """--metric as names, in the order given: 'wall,instructions' → ('wall', 'instructions');
    () without it. A name given twice, or an empty one, is a usage error."""
    text = getattr(args, "metric", None)
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise UsageError(f"--metric: an empty metric name in {text!r}")
    if len(set(names)) != len(names):
        raise UsageError(f"--metric names a metric twice: {text!r}")
    return names


def one_metric(args: argparse.Namespace, command: str) -> str | None:
    """The one metric --metric names (None: the input's default); several are refused by the
    commands that analyse one metric at a time (compare and report take several)."""
    names = metric_names(args)
    if len(names) > 1:
        raise UsageError(f"{command} analyses one metric at a time, not {', '.join(names)}: "
                         f"run it once per metric (compare and report take several)")
    return names[0] if names else None


def load(args: argparse.Namespace, min_values: int = 2, *, by: str | None = None,
         metric: str | None = None, command: str | None = None):
    """Read args.files into samples (and a suite's benchmark column) as every command does;
    `by` and `metric`, when given, instead of --by and --metric (which must then name one
    metric: `command` names the command in the refusal of several)."""
    from benchlab.data.samples import load_inputs

    if metric is None:
        metric = one_metric(args, command or getattr(args, "command", None) or "this command")
    if args.delimiters == "":
        raise UsageError("-d needs at least one delimiter character")
    if args.column < 1:
        raise UsageError("-C must be 1 or more")
    return load_inputs(args.files, format=args.input_format, column=args.column,
                       delimiters=args.delimiters, value=args.value,
                       by=args.by if by is None else by, unit=args.unit,
                       higher_is_better=args.higher_is_better,
                       metric=metric, mode=args.mode,
                       min_values=min_values)


def level_arrays(sample, names: list[str]) -> list:
    """The level columns of one sample, refusing names the data does not have."""
    columns = sample.dataset.columns
    missing = [n for n in names if n not in columns]
    if missing:
        have = [c for c in sample.dataset.file_columns if c != sample.dataset.value]
        listed = f"columns: {', '.join(have)}" if have else "a plain file of numbers has none"
        raise UsageError(f"no level column {missing[0]!r} ({listed})", sample.dataset.source)
    return [columns[n] for n in names]


@contextmanager
def naming_files(samples) -> Iterator[None]:
    """Give a level error from the statistics the file of the sample it is about."""
    from benchlab.stats.hierarchy import LevelError

    try:
        yield
    except LevelError as exc:
        if exc.where is None:
            exc.where = next((s.dataset.source for s in samples if s.name == exc.sample), None)
        raise


def add_benchmark_option(p: argparse.ArgumentParser, what: str) -> None:
    """--benchmark COL for the commands that treat each benchmark of a suite on its own."""
    p.add_argument("--benchmark", metavar="COLUMN", help="column naming the benchmark of a "
                   f"suite: {what} per benchmark and system (default: the benchmark names "
                   "of go test, JMH, ... files)")


def levelled_samples(args: argparse.Namespace) -> tuple[list, list, list[str]]:
    """The inputs read and split per benchmark, as (benchmark, sample) pairs, the samples
    alone, and the levels they are analysed by (resolved_levels): what summary, plan and
    warmup start from."""
    pairs = per_benchmark(args, load(args))
    samples = [s for _, s in pairs]
    return pairs, samples, resolved_levels(args, samples)


def per_benchmark(args: argparse.Namespace, inputs) -> list[tuple[str | None, object]]:
    """(benchmark, sample) pairs: each sample split by the suite's benchmark column.

    Without a benchmark column (--benchmark, or the names of a suite format read
    from several files) the samples stay whole, with benchmark None; split ones
    are renamed "benchmark / system" and ordered benchmark by benchmark.
    """
    from benchlab.data.samples import Sample
    from benchlab.errors import InputError

    column = args.benchmark or inputs.benchmark
    if column is None:
        return [(None, s) for s in inputs.samples]
    parts: dict[str, list] = {}
    for s in inputs.samples:
        if column not in s.dataset.columns:
            raise UsageError(f"no column {column!r} for --benchmark", s.dataset.source)
        for bench, part in s.dataset.split(column):
            if len(part.values) < 2:
                raise InputError(f"benchmark {bench!r} of {s.name!r} has "
                                 f"{len(part.values)} value; at least 2 are needed",
                                 s.dataset.source)
            parts.setdefault(bench, []).append(Sample(f"{bench} / {s.name}", part.values, part))
    return [(bench, s) for bench, samples in parts.items() for s in samples]


def add_comparison_options(p: argparse.ArgumentParser, g: argparse._ArgumentGroup,
                           *, names: bool = False) -> argparse._ArgumentGroup:
    """The options of a comparison that compare and report share: --baseline, (--name),
    --benchmark in the input group `g`, and the analysis group with -c and --threshold
    (returned, for the command to add its own)."""
    g.add_argument("--baseline", help="name of the baseline sample (default: the first)")
    if names:
        g.add_argument("--name", action="append", metavar="OLD=LABEL", help="call sample OLD "
                       "(a name or a file) LABEL in every output; repeatable")
    g.add_argument("--benchmark", metavar="COLUMN", help="column naming the benchmark of a "
                   "suite: one comparison per benchmark, their geometric mean and Holm's "
                   "adjustment")
    a = p.add_argument_group("analysis")
    a.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level, e.g. 95 or 0.99 (default 95)")
    a.add_argument("--threshold", type=percent_type("threshold"), default=0.0,
                   help="smallest change of practical interest, e.g. 2%% (default 0)")
    return a

"""`compare` on multi-metric inputs: one analysis per metric, rendered together.

A `go test -benchmem` file carries sec/op, B/op, allocs/op (and any custom
metric); benchstat shows a table for each without being asked, and so does
`compare` when no `--metric` is given. The metrics compared are those every
input carries (a note names the others); the default metric (the one read
without `--metric`) comes first, and its JSON document stays the top level.
Standard input is read once, so `-` keeps to the default metric.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from copy import copy

from benchlab.errors import BenchlabError


def of_inputs(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """The metrics every input carries (when more than one) and notes on the others.

    Empty when the inputs have a single metric, when their reader cannot list
    metrics, or when reading fails (the ordinary path then reports the error).
    """
    from benchlab.data import readers
    from benchlab.data.source import open_source

    files = list(args.files) or ["-"]
    if "-" in files:
        return [], []
    found = []
    try:
        for path in files:
            source = open_source(path)
            if source.sqlite:
                return [], []
            listing = getattr(readers.reader_for(source, args.input_format), "metrics", None)
            if listing is None:
                return [], []
            found.append(listing(source))
    except BenchlabError:
        return [], []
    shared = [m for m in found[0] if all(m in f for f in found[1:])]
    if len(shared) < 2:
        return [], []
    others = dict.fromkeys(m for f in found for m in f if m not in shared)
    notes = [f"metric {m!r} is not in every input: not compared" for m in others]
    return shared, notes


def run_each(args: argparse.Namespace, metrics: list[str], notes: list[str],
             run: Callable[[argparse.Namespace], int]) -> int:
    """Run `run` (compare's analysis) once per metric and emit one PerMetric result.

    `run` hands its result to `args.collect` instead of printing it. The exit
    status is the default metric's, raised to 1 when --fail-on trips on any
    metric (another metric without a ratio, e.g. 0 B/op, says so in its table).
    """
    from benchlab.cli import common, output_options
    from benchlab.stats.metrics import PerMetric

    inputs = common.load(args)
    default = inputs.samples[0].dataset.metric
    ordered = [default, *(m for m in metrics if m != default)] if default in metrics \
        else metrics
    results, per_metric, code = [], {}, 0
    notes = list(notes)
    for metric in ordered:
        sub = copy(args)
        sub.metric, sub.collect = metric, []
        if inputs.benchmark and not args.benchmark:  # a suite in every metric, even one
            sub.benchmark = inputs.benchmark  # only some benchmarks report (MB/s)
            sub.benchmark_from_inputs = True
        try:
            status = run(sub)
        except BenchlabError as exc:  # e.g. MB/s of one benchmark only: one sample
            if metric == ordered[0]:
                raise
            notes.append(f"metric {metric!r} not compared: {exc.message}")
            continue
        code = status if metric == ordered[0] else max(code, 1 if status == 1 else 0)
        result, named = sub.collect[0]
        results.append((metric, result))
        if named is not None:
            per_metric[metric] = {"samples": named, "plot": not args.no_plot}
    ctx = output_options.context(args, "compare", args.files, per_metric=per_metric)
    output_options.emit(args, PerMetric(tuple(results), tuple(notes)), ctx, args.files)
    return code

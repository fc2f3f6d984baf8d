"""`compare` on multi-metric inputs: one analysis per metric, rendered together.

A `go test -benchmem` file carries sec/op, B/op, allocs/op (and any custom
metric); benchstat shows a table for each without being asked, and so does
`compare` when no `--metric` is given. The metrics compared are those every
input carries (a note names the others); the default metric (the one read
without `--metric`) comes first, and its JSON document stays the top level.
Standard input is read once, so `-` keeps to the default metric. Every input
file is read once (data.source.reading_once, around the whole command).
"""

from __future__ import annotations

import argparse
from typing import Any

from benchlab.errors import BenchlabError
from benchlab.stats.spec import AnalysisSpec


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


def analyse_each(args: argparse.Namespace, spec: AnalysisSpec, metrics: list[str],
                 notes: list[str]) -> tuple[Any, dict[str, dict], list[Any]]:
    """Compare's analysis (cli/analysis.py) once per metric, the default metric first.

    Returns the PerMetric result, the render options per metric (the samples to plot
    of each comparison that is not a suite) and the results in order, for the exit
    status. A metric other than the default that cannot be compared (e.g. MB/s of one
    benchmark only: one sample) becomes a note.
    """
    from benchlab.cli import analysis, common
    from benchlab.stats.metrics import PerMetric

    inputs = common.load(args)
    default = inputs.samples[0].dataset.metric
    ordered = [default, *(m for m in metrics if m != default)] if default in metrics \
        else metrics
    # a suite in every metric, even one only some benchmarks report (MB/s)
    benchmark = args.benchmark or inputs.benchmark
    results, per_metric = [], {}
    notes = list(notes)
    for metric in ordered:
        try:
            found = analysis.analyse(args, "compare", spec, metric=metric, benchmark=benchmark)
        except BenchlabError as exc:
            if metric == ordered[0]:
                raise
            notes.append(f"metric {metric!r} not compared: {exc.message}")
            continue
        results.append((metric, found.result))
        named = found.samples.get(None)
        if named is not None:
            per_metric[metric] = {"samples": named, "plot": not args.no_plot}
    return PerMetric(tuple(results), tuple(notes)), per_metric, [r for _, r in results]

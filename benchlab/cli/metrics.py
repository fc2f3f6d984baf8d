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


def analyse_each(args: argparse.Namespace, spec: AnalysisSpec,
                 metrics: list[str] | tuple[str, ...],
                 notes: list[str], *, command: str = "compare", asked: bool = False
                 ) -> tuple[Any, list[tuple[str, Any]]]:
    """The analysis of compare and report (cli/analysis.py) once per metric, each with the
    spec of its metric (`spec` with `metric` replaced): the metrics `asked` for (--metric
    a,b: in that order, and a metric the inputs lack is an error listing those they
    have), else the inputs' shared metrics, the default metric first.

    Returns the PerMetric result and each metric's Analysis (its samples, its benchmark
    column), in order. A metric found (not asked for) other than the default that
    cannot be compared (e.g. MB/s of one benchmark only: one sample) becomes a note.
    """
    from dataclasses import replace

    from benchlab.cli import analysis, common
    from benchlab.stats.metrics import PerMetric

    ordered = list(metrics)
    benchmark = None
    if not asked:
        inputs = common.load(args, command=command)  # no --metric: the default metric
        default = inputs.samples[0].dataset.metric
        ordered = [default, *(m for m in metrics if m != default)] if default in metrics \
            else ordered
        # a suite in every metric, even one only some benchmarks report (MB/s)
        benchmark = args.benchmark or inputs.benchmark
    analyses = []
    notes = list(notes)
    for metric in ordered:
        try:
            found = analysis.analyse(args, command, replace(spec, metric=metric),
                                     benchmark=benchmark)
        except BenchlabError as exc:
            if asked or metric == ordered[0]:
                raise
            notes.append(f"metric {metric!r} not compared: {exc.message}")
            continue
        analyses.append((metric, found))
    return PerMetric(tuple((m, a.result) for m, a in analyses), tuple(notes), asked), \
        analyses

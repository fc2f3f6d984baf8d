"""`benchlab summary`: descriptives of each group and, with --levels, its variance components."""

from __future__ import annotations

import argparse

from benchlab.cli import common, output_options, warmup
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab summary runs.csv --levels build,run --by system --unit s
  benchlab summary times.txt
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "summary", help="one dataset: descriptives, CI of the mean, variance components",
        description="Describe each group (--by): the grand mean and its CI and, with --levels, "
                    "the Kalibera-Jones variance components of every level.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_table_input(p)
    common.add_benchmark_option(p, "one summary")
    p.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level (default 95)")
    warmup.add_cut_options(p)
    output_options.add(p)
    p.set_defaults(run=noting(run))


def run(args: argparse.Namespace) -> int:
    from benchlab.cli.analysis import caches_document, caches_note
    from benchlab.data.samples import unify_units
    from benchlab.stats.hierarchy import summarize
    from benchlab.stats.summary import SummaryGroup, SummaryReport, flat_summary

    confidence = common.confidence(args.confidence)
    cut_spec = warmup.cut_of(args)
    output_options.check(args, args.files)
    pairs, samples, level_names = common.levelled_samples(args)
    samples, unit, note = unify_units(samples, args.unit, args.higher_is_better)
    notes = [note] if note else []
    caches = caches_note(args, samples[0].dataset.metric) if samples else None
    notes += [caches] if caches else []  # a store's cache metric: which caches were simulated
    cut = None
    if cut_spec is not None:
        cut = warmup.cut(cut_spec, samples, level_names, bool(unit.higher_is_better))
        samples = list(cut.samples)
        notes += cut.notes
    groups = []
    for (bench, _), s in zip(pairs, samples, strict=True):
        if not level_names:
            groups.append(SummaryGroup(bench, flat_summary(s.values, s.name, confidence)))
            continue
        with common.naming_files(samples):
            h = summarize(s.values, common.level_arrays(s, level_names), level_names,
                          name=s.name, confidence=confidence)
        groups.append(SummaryGroup(bench, h))
    result = SummaryReport(confidence, unit, tuple(level_names), tuple(groups), tuple(notes))
    caches_key = caches_document(args, samples[0].dataset.metric) if samples else None
    output_options.emit(args, result, output_options.context(args, "summary", args.files,
                                                             simulated_caches=caches_key,
                                                             warmup_cut=cut), args.files)
    return 0

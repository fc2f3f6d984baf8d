"""`benchlab summary`: descriptives of each group and, with --levels, its variance components."""

from __future__ import annotations

import argparse
import json
import sys

from benchlab.cli import common
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
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.set_defaults(run=noting(run))


def _flat(sample, confidence: float, unit) -> tuple[dict, str]:
    """No levels: the descriptives and the t CI of the mean (measurements independent)."""
    from benchlab.stats.descriptive import describe
    from benchlab.stats.distributions import critical_t

    d = describe(sample.values, sample.name)
    half = critical_t(confidence, d.n - 1) * d.sem
    doc = {"name": d.name, "n": d.n, "mean": d.mean, "low": d.mean - half,
           "high": d.mean + half, "confidence": confidence, "df": float(d.n - 1),
           "median": d.median, "stddev": d.stddev, "min": d.min, "max": d.max, "levels": [],
           "warnings": []}
    line = (f"{d.name}: n = {d.n}, mean {unit.format(d.mean)}  {100 * confidence:g}% CI "
            f"{unit.format(d.mean - half)} .. {unit.format(d.mean + half)}, median "
            f"{unit.format(d.median)}, stddev {unit.format(d.stddev)}")
    return doc, line


def run(args: argparse.Namespace) -> int:
    from benchlab import __version__
    from benchlab.data.samples import unify_units
    from benchlab.report.hierarchy import summary_document, summary_text
    from benchlab.stats.hierarchy import summarize

    confidence = common.confidence(args.confidence)
    pairs = common.per_benchmark(args, common.load(args))
    samples = [s for _, s in pairs]
    level_names = common.resolved_levels(args, samples)
    samples, unit, note = unify_units(samples, args.unit, args.higher_is_better)
    docs, lines, warnings = [], [], []
    for (bench, _), s in zip(pairs, samples, strict=True):
        if not level_names:
            doc, line = _flat(s, confidence, unit)
            lines.append(line)
        else:
            with common.naming_files(samples):
                h = summarize(s.values, common.level_arrays(s, level_names), level_names,
                              name=s.name, confidence=confidence)
            doc = summary_document(h)
            lines.extend(summary_text(h, unit))
            warnings.extend(h.warnings)
        docs.append(doc if bench is None else {"benchmark": bench, **doc})
    if args.json:
        json.dump({"benchlab_version": __version__, "command": "summary",
                   "confidence": confidence, "unit": unit.name, "notes": [note] if note else [],
                   "level_columns": level_names, "groups": docs}, sys.stdout, indent=2,
                  allow_nan=False)
        sys.stdout.write("\n")
    else:
        if note:
            lines += ["", f"note: {note}"]
        if warnings:
            lines += ["", "warnings:"] + [f"  - {w}" for w in warnings]
        from benchlab.escape import terminal_lines  # names from data: no controls

        sys.stdout.write(terminal_lines(lines) + "\n")
    return 0

"""`benchlab compare`: parse arguments, run the comparison, render it, set the exit code."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace

from benchlab.cli import analysis, common, output_options, suite_view
from benchlab.errors import UsageError
from benchlab.stats.spec import DEFAULT_REPLICATES
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab compare old.txt new.txt --unit s
  benchlab compare runs.csv --by kernel --value real --unit s --threshold 1%
  benchlab compare runs.csv --by kernel --value real --paired --pair-by boot_run
  benchlab compare old.txt new.txt --json --fail-on regression --threshold 2%
  benchlab compare --ministat -s -w 60 iguana chameleon
"""


def prepare_argv(argv: list[str]) -> list[str]:
    """Let `--bootstrap` go before the file names: a bare flag means the default B.

    argparse would otherwise read the next file name as B and fail. A number after
    it, even a negative or fractional one, is B, so that `--bootstrap -1` is refused
    as B, not as "unrecognized arguments: -1".
    """
    out = list(argv)
    for i, token in enumerate(out):
        if token == "--bootstrap" and (i + 1 == len(out) or not _INTEGER.fullmatch(out[i + 1])):
            out[i] = f"--bootstrap={DEFAULT_REPLICATES}"
    return out


_INTEGER = re.compile(r"[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")  # B, good or bad


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare", help="compare samples: ratio CI, difference, verdict (or ministat's output)",
        description="Compare each sample with the baseline (the first, or --baseline): the "
                    "ratio of means with Fieller's CI, the difference of means, and a verdict "
                    "against --threshold.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = common.add_table_input(p)
    a = analysis.add_options(p, g)
    a.add_argument("--tests", action="store_true",
                   help="also Student's t, Mann-Whitney, Kolmogorov-Smirnov, Shapiro-Wilk, F")
    o = output_options.add(p)
    suite_view.add_view(o)
    o.add_argument("--no-plot", action="store_true",
                   help="omit the distribution plot from the text output")
    o.add_argument("--fail-on", choices=["change", "regression"],
                   help="exit 1 if a verdict is a change / a change in the bad direction")
    m = p.add_argument_group("ministat mode (FreeBSD ministat's exact output)")
    m.add_argument("--ministat", action="store_true", help="print exactly what ministat prints")
    m.add_argument("-A", dest="all_stats", action="store_true",
                   help="ministat: statistics and comparisons only, no plot")
    m.add_argument("-n", dest="stats_only", action="store_true",
                   help="ministat: summary statistics only, no plot or test")
    m.add_argument("-q", dest="quiet", action="store_true",
                   help="ministat: no data-set names or table header")
    m.add_argument("-s", dest="separate", action="store_true",
                   help="ministat: each data set's bars on its own line")
    m.add_argument("-w", dest="width", type=int, default=None, metavar="WIDTH",
                   help="ministat: plot width (default 74, or the terminal's)")
    p.set_defaults(run=noting(run))


def run(args: argparse.Namespace) -> int:
    """Parse → spec → the library's analysis → render → exit status, in this order."""
    if args.ministat:
        from benchlab.cli import ministat_mode

        if args.column < 1:  # ministat's own usage messages
            raise UsageError("Column number should be positive.")
        if args.delimiters == "":
            raise UsageError("Can't use empty delimiter string")
        return ministat_mode.run(
            args.files, all_stats=args.all_stats, column=args.column,
            confidence=args.confidence or "95", delimiters=args.delimiters,
            stats_only=args.stats_only, quiet=args.quiet, separate=args.separate,
            width=args.width, stdout=sys.stdout, stderr=sys.stderr)
    if args.width is not None or args.all_stats or args.stats_only or args.quiet or args.separate:
        raise UsageError("-A, -n, -q, -s and -w belong to --ministat mode")
    spec = analysis.spec_of(args)  # the analysis, checked once before any work
    output_options.check(args, args.files)  # before the work: the targets can be written
    suite_view.check_view(args)
    from benchlab import progress
    from benchlab.data.source import reading_once

    with reading_once(), progress.showing(args.format != "json"):  # a bar for long bootstraps
        shown, ctx, results = _analyse(args, spec)
    suite_view.check_suite(shown, args)
    shown = suite_view.apply_sort(shown, args.sort)
    if args.compact:
        ctx = replace(ctx, options={**ctx.options, "compact": True})
    output_options.emit(args, shown, ctx, args.files)
    return exit_status(results, args.fail_on)


def _analyse(args: argparse.Namespace, spec):
    """(the result to render, its render context, every result analysed — the default
    metric's first): one analysis, or one per metric of a go test -benchmem file."""
    from benchlab.cli import metrics

    asked = common.metric_names(args)  # --metric wall,instructions: side by side
    found_metrics, notes = (list(asked), []) if asked else metrics.of_inputs(args)
    if len(found_metrics) > 1:  # or go test -benchmem: a table per metric
        shown, analyses = metrics.analyse_each(args, spec, found_metrics, notes,
                                               asked=bool(asked))
        per_metric = {m: {"samples": a.samples[None], "plot": not args.no_plot}
                      for m, a in analyses if None in a.samples}  # what each plot draws
        return shown, output_options.context(args, "compare", args.files,
                                             per_metric=per_metric), \
            [a.result for _, a in analyses]
    found = analysis.analyse(args, "compare", spec)
    named = found.samples.get(None)
    if named is None:  # a suite
        return found.result, output_options.context(
            args, "compare", args.files, warmup_cut=found.cut,
            simulated_caches=analysis.caches_document(args, found.metric)), [found.result]
    return found.result, output_options.context(
        args, "compare", args.files, samples=named, plot=not args.no_plot,
        warmup_cut=found.cut,
        simulated_caches=analysis.caches_document(args, found.metric)), [found.result]


def exit_status(results: list, fail_on: str | None) -> int:
    """compare's exit status over its results (the default metric's first): 2 when the
    first is a comparison whose ratio could not be formed and whose samples are not exactly
    equal (its note on standard error;
    another metric's says so in its table and here), else 1 when --fail-on trips on any
    result whose ratios were formed (stats/verdict.trips), else 0."""
    from benchlab.escape import terminal  # the note names a sample: no controls
    from benchlab.stats.suite import SuiteResult
    from benchlab.stats.verdict import trips

    code = 0
    for k, result in enumerate(results):
        if isinstance(result, SuiteResult):
            comparisons = [c for _, r in result.benchmarks for c in r.comparisons]
        else:
            comparisons = list(result.comparisons)
            no_ratio = [c for c in comparisons  # not exactly equal (0 vs 0): an answer
                        if c.ratio is None and c.verdict.outcome != "equivalent"]
            if no_ratio:
                print(f"benchlab: {terminal(no_ratio[0].ratio_note or '')}", file=sys.stderr)
                code = 2 if k == 0 else code
                continue
        if trips((c.verdict for c in comparisons), fail_on):
            code = max(code, 1)
    return code

"""`benchlab compare`: parse arguments, run the comparison, render it, set the exit code."""

from __future__ import annotations

import argparse
import re
import sys

from benchlab.cli import analysis, common, output_options
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
    from benchlab import progress

    with progress.showing(args.format != "json"):  # a bar on stderr for long bootstraps
        return _run_default(args)


def _run_default(args: argparse.Namespace) -> int:
    if args.width is not None or args.all_stats or args.stats_only or args.quiet or args.separate:
        raise UsageError("-A, -n, -q, -s and -w belong to --ministat mode")
    if args.metric is None and getattr(args, "collect", None) is None:
        from benchlab.cli import metrics  # go test -benchmem: a table per metric

        found, notes = metrics.of_inputs(args)
        if found:
            return metrics.run_each(args, found, notes, _run_default)
    spec = analysis.spec_of(args)  # the analysis, checked once before any work
    output_options.check(args, args.files)  # before the work: the targets can be written
    found = analysis.analyse(args, "compare", spec)
    from benchlab.stats.suite import SuiteResult

    if isinstance(found.result, SuiteResult):
        return _emit_suite(args, found.result)
    _render(args, found.result, found.samples[None])
    return _finish(args, found.result)


def _emit_suite(args: argparse.Namespace, result) -> int:
    """Print a suite; exit 1 when --fail-on trips on any benchmark."""
    if getattr(args, "collect", None) is not None:  # cli/metrics.py: one result per metric
        args.collect.append((result, None))
    else:
        output_options.emit(args, result, output_options.context(args, "compare", args.files),
                            args.files)
    comparisons = [c for _, r in result.benchmarks for c in r.comparisons]
    if args.fail_on == "change" and any(c.verdict.outcome == "change" for c in comparisons):
        return 1
    if args.fail_on == "regression" and any(c.verdict.regression for c in comparisons):
        return 1
    return 0


def _render(args: argparse.Namespace, result, named) -> None:
    if getattr(args, "collect", None) is not None:  # cli/metrics.py: one result per metric
        args.collect.append((result, named))
        return
    ctx = output_options.context(args, "compare", args.files, samples=named,
                                 plot=not args.no_plot)
    output_options.emit(args, result, ctx, args.files)


def _finish(args: argparse.Namespace, result) -> int:
    """Exit status: 2 when a ratio could not be formed, 1 when --fail-on trips, else 0."""
    no_ratio = [c for c in result.comparisons if c.ratio is None]
    if no_ratio:
        from benchlab.escape import terminal  # the note names a sample: no controls

        print(f"benchlab: {terminal(no_ratio[0].ratio_note or '')}", file=sys.stderr)
        return 2
    if args.fail_on == "change" and any(c.verdict.outcome == "change"
                                        for c in result.comparisons):
        return 1
    if args.fail_on == "regression" and any(c.verdict.regression for c in result.comparisons):
        return 1
    return 0

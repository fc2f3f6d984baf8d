"""`benchlab anova`: factorial analysis of a response — effects, allocation of variation, checks."""

from __future__ import annotations

import argparse

from benchlab.cli import factor_options, output_options
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab anova examples/factorial/results.csv --response time \\
      --factors sched,machine,vmstat,load --interactions 2
  benchlab anova data.csv --response latency --factors machine,sched \\
      --level-order machine=core2,p4 --log --plot residuals.png
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "anova", help="factorial analysis: effects, allocation of variation, diagnostics",
        description="Analyse a factorial experiment (the plan CSV of `benchlab design` plus a\n"
                    "response column). Balanced two-level designs get Jain's sign-table\n"
                    "analysis (effects q with CIs, sums of squares, allocation of variation);\n"
                    "other designs an OLS fit and ANOVA table. Residual diagnostics say when\n"
                    "the mean-based analysis fails and `benchlab qreg` is the better tool.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    factor_options.add_factor_table_input(p)
    p.add_argument("--log", action="store_true",
                   help="analyse ln(response): multiplicative effects, exp(2q) ratios")
    p.add_argument("--ss", type=int, choices=(1, 2, 3), default=2,
                   help="sums of squares of unbalanced or general designs: 1 sequential (R's "
                        "anova), 2 (default, car::Anova), 3")
    p.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level of the effect CIs (default 95)")
    p.add_argument("--plot", metavar="FILE", help="write residuals-vs-fitted and normal Q-Q "
                   "plots (.png, .svg or .pdf)")
    output_options.add(p, plot=False)
    p.set_defaults(run=noting(run))


def _runs(table):
    """The run column (`run` or `execution`, as qreg's cluster bootstrap), if the table has one."""
    for name in ("run", "execution"):
        if name in table.columns and name not in table.factors:
            return table.columns[name]
    return None


def run(args: argparse.Namespace) -> int:
    from benchlab import progress

    with progress.showing(args.format != "json"):  # a bar on stderr for long work, not in JSON
        return _run(args)


def _run(args: argparse.Namespace) -> int:

    from benchlab.cli import common
    from benchlab.errors import UsageError
    from benchlab.report.anova import PLOT_FORMATS, residual_plots
    from benchlab.stats.anova import anova

    confidence = common.confidence(args.confidence)
    if args.plot and args.plot.rsplit(".", 1)[-1].lower() not in PLOT_FORMATS:
        raise UsageError(f"--plot wants a .png, .svg or .pdf file name: {args.plot!r}")
    if args.plot:
        from benchlab.output_file import check_target

        check_target(args.plot, [args.file])  # before the work, not after it
    output_options.check(args, [args.file])
    table = factor_options.load(args)
    order = factor_options.interactions(args.interactions, len(table.factors))
    result = anova(table.response, table.codes, table.factors, table.levels,
                   response_name=args.response, interactions=order, log=args.log,
                   confidence=confidence, ss_type=args.ss, lines=table.lines,
                   source=table.source, runs=_runs(table))
    if args.plot:
        residual_plots(result, args.plot)
    ctx = output_options.context(args, "anova", [args.file], source=table.source)
    output_options.emit(args, result, ctx, [args.file])
    return 0

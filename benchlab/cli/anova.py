"""`benchlab anova`: factorial analysis of a response — effects, allocation of variation, checks."""

from __future__ import annotations

import argparse

from benchlab.cli import factor_options, output_options, unit_level
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
    unit_level.add_options(p, levels=True)
    output_options.add(p, plot=False)
    p.set_defaults(run=noting(run))


def _runs(table):
    """The run column (`run` or `execution`, as qreg's cluster bootstrap), if the table has one;
    a store's `trial` first, its one id per execution (its `execution` counts within a cell,
    so every cell's first execution would look like one run)."""
    for name in ("run", "trial", "execution"):
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
    table, level, note, warning = _units(args, table)
    order = factor_options.interactions(args.interactions, len(table.factors))
    result = anova(table.response, table.codes, table.factors, table.levels,
                   response_name=args.response, interactions=order, log=args.log,
                   confidence=confidence, ss_type=args.ss, lines=table.lines,
                   source=table.source, runs=_runs(table) if level is None else None)
    if level is not None:
        from dataclasses import replace

        result = replace(result, unit_level=level, unit_note=note,
                         warnings=result.warnings + ((warning,) if warning else ()))
    if args.plot:
        residual_plots(result, args.plot)
    ctx = output_options.context(args, "anova", [args.file], source=table.source)
    output_options.emit(args, result, ctx, [args.file])
    return 0


def _units(args: argparse.Namespace, table):
    """The table of the units to analyse, their level, the note and a warning.

    With levels (a store's builds and executions, or --levels) one row per unit
    of the chosen level — by default the top one — in place of the measurements
    (data/units.py); level None when the data have no levels.
    """
    from dataclasses import replace

    from benchlab.data.store_design import is_store

    store = args.file != "-" and is_store(args.file)
    levels = unit_level.data_levels(args, table.columns, store)
    if not levels:
        if args.unit_level not in (None, "measurement"):
            from benchlab.errors import UsageError

            raise UsageError(f"--unit-level {args.unit_level} needs levels (a store, or "
                             "--levels)")
        return table, None, None, None
    keys = [*table.factors, *(["case"] if store and "case" in table.columns else [])]
    level = unit_level.chosen(args, levels)
    if level == "measurement":
        note = (f"analysed the {len(table)} measurements as independent replicates "
                "(--unit-level measurement)")
        return table, level, note, unit_level.measurement_warning(
            levels, table.columns, keys, len(table))
    units = unit_level.unit_means({**table.columns, table.response_name: table.response},
                                  table.response_name, keys, levels, level)
    rows = units.first_rows
    table = replace(table, response=units.values, codes=table.codes[rows],
                    columns={**units.columns, table.response_name: units.values},
                    lines=None if table.lines is None else table.lines[rows])
    counts = table.cell_counts()
    counts = counts[counts > 0]
    per_cell = (f"{counts.min()} per cell" if counts.min() == counts.max()
                else f"{counts.min()} to {counts.max()} per cell")
    below = unit_level.below(level, levels)
    note = (f"analysed the {len(table)} {level} means ({per_cell}), not the "
            f"{units.measurements} measurements: {below} are not independent "
            "replicates (--unit-level chooses another level)")
    return table, level, note, None

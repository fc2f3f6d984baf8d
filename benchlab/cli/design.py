"""`benchlab design`: a full factorial plan with replicates and a reproducible run order."""

from __future__ import annotations

import argparse
import sys

from benchlab.cli import option_types, output_options

EXAMPLE = """examples:
  benchlab design --factor sched=BFS,CFS --factor machine=core2,p4 \\
      --factor vmstat=off,on --factor load=compile,encode --replicates 5 --seed 7 -o plan.csv
  benchlab design --factor A=lo,hi --factor B=lo,hi --factor C=lo,hi --sign-table
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "design", help="factorial designs and randomized run orders",
        description="Write the plan of a full factorial experiment (2^k or general): every\n"
                    "combination of the factors' levels, each replicated, in a randomized run\n"
                    "order reproducible from --seed. The CSV (run, id, factors, replicate) is\n"
                    "what anova and qreg read once a response column is added.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--factor", action="append", default=[], metavar="NAME=L1,L2[,...]",
                   help="a factor and its levels, first level low (-1); repeat per factor")
    p.add_argument("--replicates", "-r", type=int, default=1, metavar="R",
                   help="runs of every cell (default 1)")
    p.add_argument("--order", choices=("random", "blocks", "standard"), default="random",
                   help="run order: random (default), blocks (each replicate a shuffled block "
                        "of every cell), standard (Yates order, first factor fastest)")
    p.add_argument("--seed", type=option_types.seed, default=None,
                   help="seed of the random order (default: drawn and reported)")
    p.add_argument("--sign-table", action="store_true",
                   help="print the sign table of the 2^k design (I, A, B, AB, ...)")
    g = output_options.add(p, plot=False)
    g.description = ("text (the default) is the plan CSV, or the sign table with "
                     "--sign-table; -o FILE with text writes the plan CSV there")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from benchlab.design.factorial import full_factorial, parse_factor
    from benchlab.output_file import write_text
    from benchlab.report.design import describe, plan_csv

    output_options.check(args, [])
    design = full_factorial([parse_factor(text) for text in args.factor],
                            replicates=args.replicates, order=args.order, seed=args.seed)
    if args.sign_table:
        design.sign_table()  # refuse a general design before writing anything
    ctx = output_options.context(args, "design", [], sign_table=args.sign_table)
    if args.output and args.format == "text":  # the plan file: the CSV anova and qreg read
        write_text(args.output, plan_csv(design), force=args.force)
        if args.sign_table:  # the table on standard output, the plan in the file
            output_options.emit(args, design, ctx, stdout=True)
        sys.stdout.write(f"wrote {args.output}: {describe(design)}\n")
        return 0
    output_options.emit(args, design, ctx)
    return 0

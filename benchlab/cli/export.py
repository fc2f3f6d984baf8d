"""`benchlab export`: a result store's measurements as a long-format CSV, TSV or Parquet file."""

from __future__ import annotations

import argparse

from benchlab.cli.output_options import add_overwrite

EXAMPLE = """examples:
  benchlab export results.db -o data.csv                 # every metric, warm-up flagged
  benchlab export results.db -o data.csv --metric wall --no-warmup
  benchlab compare data.csv --by alternative --levels build,execution
  benchlab export results.db -o data.parquet             # needs pyarrow
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="a result store as a long-format CSV/TSV/Parquet file",
        description="Write the measurements of a store made by `benchlab run` in long format, one\n"
                    "row per measurement: alternative, factors, build, execution, iteration,\n"
                    "warmup, metric, unit, value, trial. Warm-up measurements are included and\n"
                    "flagged (warmup = 1) unless --no-warmup.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("store", help="the store (SQLite file written by benchlab run)")
    p.add_argument("-o", dest="output", default="-", metavar="FILE",
                   help="output file; .csv, .tsv or .parquet (default: CSV on stdout)")
    p.add_argument("--format", choices=("csv", "tsv", "parquet"),
                   help="output format (default: from the file's extension)")
    p.add_argument("--metric", help="one metric (default: all, with a metric column)")
    p.add_argument("--no-warmup", action="store_true", help="leave out warm-up measurements")
    add_overwrite(p, "write even over a store or over the input (refused by default)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from benchlab.output_file import check_target
    from benchlab.runner.export import format_for, long_table, write

    fmt = format_for(args.output, args.format)
    if args.output != "-":
        check_target(args.output, (args.store,), force=args.force)  # before reading
    header, rows = long_table(args.store, metric=args.metric, warmup=not args.no_warmup)
    write(header, rows, args.output, fmt, inputs=(args.store,), force=args.force)
    return 0

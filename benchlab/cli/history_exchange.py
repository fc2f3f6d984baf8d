"""`benchlab history export|import`: a history as one portable file (history/exchange.py),
to move it between SQLite and PostgreSQL."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from benchlab.cli import output_options
from benchlab.conninfo import shown
from benchlab.notation import plural

EXAMPLE = """examples:
  benchlab history export --db history.db -o history.jsonl
  benchlab history import history.jsonl --db postgresql://ci@db.example.org/bench
  benchlab history export --db postgresql://ci@db.example.org/bench \\
      | benchlab history import - --db copy.db
"""


def add_parsers(inner: argparse._SubParsersAction,
                subcommand: Callable[..., argparse.ArgumentParser]) -> None:
    """`history export` and `history import`, made by history.py's `subcommand`."""
    p = subcommand(inner, "export", "write the whole history as one file (JSON Lines) to "
                   "import elsewhere", "Write every commit and every series' results, as "
                   "stored, into one JSON Lines file (format in docs/history.md); `history "
                   "import` adds it to a history in SQLite or PostgreSQL.", EXAMPLE)
    p.add_argument("-o", "--output", metavar="FILE", default="-",
                   help="the file to write (default -: standard output)")
    output_options.add_overwrite(p, "replace FILE even if it is a store or an input")
    p.set_defaults(history_run=run_export)
    p = subcommand(inner, "import", "add a file `history export` wrote to a history (created "
                   "if absent)", "Add every commit of an export file, in its order, in one "
                   "transaction: a commit that already has results of one of its series, or a "
                   "PR check of a head and machine already checked, is refused (nothing is "
                   "added) unless --replace.", EXAMPLE, created=True)
    p.add_argument("file", metavar="FILE", help="the export file (- for standard input)")
    p.add_argument("--replace", action="store_true",
                   help="replace the results a commit already has, and the checks of the "
                   "same head and machine (else refused)")
    p.set_defaults(history_run=run_import)


def run_export(args: argparse.Namespace) -> int:
    from benchlab.history.exchange import export_lines
    from benchlab.history.store import History
    from benchlab.output_file import check_target, writing

    to_stdout = args.output in ("-", "")
    if not to_stdout:
        check_target(args.output, [shown(args.db)], force=args.force)
    with History.open(args.db) as history:
        lines = list(export_lines(history))
    if to_stdout:
        sys.stdout.writelines(lines)
        sys.stdout.flush()
    else:
        with writing(args.output, [shown(args.db)], force=args.force) as handle:
            handle.writelines(lines)
    import json

    header = json.loads(lines[0])
    checks = header["checks"]
    last = (f", {plural(header['measurements'], 'measurement')} and "
            f"{plural(checks, 'PR check')}" if checks else
            f" and {plural(header['measurements'], 'measurement')}")
    print(f"exported {plural(header['commits'], 'commit')}, {header['series']} series"
          f"{last} of {shown(args.db)} to "
          f"{'standard output' if to_stdout else args.output}", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from benchlab.data.source import open_source
    from benchlab.errors import InputError, UsageError
    from benchlab.history.exchange import read_export
    from benchlab.history.store import History

    if args.file == args.db:
        raise UsageError("FILE and --db are the same: import reads an export file into "
                         "another history")
    source = open_source(args.file)
    if source.sqlite:
        raise InputError("a SQLite database, not an export file: write one with benchlab "
                         "history export --db FILE -o EXPORT", source.name)
    export = read_export(source.text or "", source.name)
    with History.open_or_create(args.db) as history:
        written = history.add(export.commits, replace=args.replace, checks=export.checks)
        counts = history.counts()
    series = {(s.benchmark, s.metric, s.machine) for c in export.commits for s in c.series}
    checks = f" and {plural(len(export.checks), 'PR check')}" if export.checks else ""
    print(f"imported {plural(written, 'measurement')} of {len(series)} series and "
          f"{plural(len(export.commits), 'commit')}{checks} from {source.name} into "
          f"{shown(args.db)} (now {plural(counts['commits'], 'commit')}, "
          f"{counts['series']} series)")
    return 0

"""`benchlab history add|check|compare|show`: results across commits (docs/history.md);
export and import are history_exchange.py."""

from __future__ import annotations

import argparse

from benchlab.cli import common, output_options, warmup
from benchlab.cli.option_types import text as utf8
from benchlab.conninfo import shown
from benchlab.errors import UsageError
from benchlab.notation import plural
from benchlab.warnings_capture import noting

EXAMPLE = """examples (from the repository root, on its example history):
  benchlab history add examples/history/past.csv --by benchmark --value time --unit s \\
      --levels run --commit-column commit --date-column date --db history.db
  benchlab history add examples/history/head.csv --by benchmark --value time --unit s \\
      --levels run --db history.db --commit 9b1e004 --date 2024-05-16T08:00:00Z --branch main
  benchlab history check --db history.db --threshold 2% --fail-on regression
  benchlab history compare --db history.db --head 9b1e004 --format markdown
  benchlab history show --db history.db --benchmark sort --last 100 --plot sort.svg
"""


DB_HELP = ("the history: a SQLite file, or a PostgreSQL database as "
           "postgresql://USER@HOST:PORT/NAME (libpq's PG* variables and service file apply)")


def subcommand(inner: argparse._SubParsersAction, name: str, summary: str, description: str,
               example: str = EXAMPLE, created: bool = False) -> argparse.ArgumentParser:
    """The parser of `history NAME` with its required --db (a history `created` if absent
    when NAME writes one): its line in `history --help`, its description, and `example`
    after its options, laid out as written."""
    p = inner.add_parser(name, help=summary, description=description, epilog=example,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", required=True, metavar="DB",
                   help=DB_HELP + (" (created if absent)" if created else ""))
    return p


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "history", help="results across commits: add them, find changes, check a head commit",
        description="A history of benchmark results across commits, in one SQLite file or "
                    "a PostgreSQL database: "
                    "add a commit's results, find the changes along every series, compare a "
                    "head commit with its branch's baseline.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    inner = p.add_subparsers(dest="history_command", metavar="subcommand")
    _add_add(inner)
    _add_check(inner)
    _add_compare(inner)
    _add_show(inner)
    _add_publish(inner)
    from benchlab.cli import history_exchange

    history_exchange.add_parsers(inner, subcommand)  # export, import: history_exchange.py
    from benchlab.cli import bisect

    bisect.add_history_parser(inner)  # history bisect: its options are bisect's
    p.set_defaults(run=noting(run))


def _add_add(inner: argparse._SubParsersAction) -> None:
    p = inner.add_parser(
        "add", help="add one commit's results (or a table of past commits) to the history",
        description="Add the measurements of one commit, with their levels, read from any "
                    "input benchlab reads; each sample (or --by group) is a benchmark.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_table_input(p)
    h = p.add_argument_group("history")
    h.add_argument("--db", required=True, metavar="DB", help=DB_HELP + " (created if absent)")
    h.add_argument("--commit", metavar="SHA", type=utf8,
                   help="the commit these results are of")
    h.add_argument("--date", metavar="ISO", help="the commit's date (ISO 8601); with dates on "
                   "every commit the history is ordered by date, else as added")
    h.add_argument("--branch", metavar="NAME", type=utf8,
                   help="the commit's branch")
    h.add_argument("--machine", metavar="NAME", default=None, type=utf8,
                   help="the machine the results were measured on (default: default; a "
                   "store run on several machines as a factor gives each its own series)")
    h.add_argument("--commit-column", metavar="COL", help="bulk import: the column naming each "
                   "row's commit (commits in file order unless --date-column)")
    h.add_argument("--date-column", metavar="COL", help="bulk import: the column of each row's "
                   "commit date")
    h.add_argument("--replace", action="store_true",
                   help="replace the results a commit already has (else refused)")
    warmup.add_cut_options(p)
    p.set_defaults(history_run=_run_add)



def _analysis_group(p: argparse.ArgumentParser, seed_help: str = "random seed (default 0)"
                    ) -> argparse._ArgumentGroup:
    """-c, --threshold (2% by default: a history judges practical changes) and --seed, which
    check, compare and show share."""
    a = p.add_argument_group("analysis")
    a.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level, e.g. 95 or 0.99 (default 95)")
    a.add_argument("--threshold", type=common.percent_type("threshold"), default=0.02,
                   help="smallest change of practical interest (default 2%%)")
    a.add_argument("--seed", type=int, default=0, help=seed_help)
    a.add_argument("--metric", metavar="NAME[,NAME...]", type=utf8,
                   help="the series of these metrics only (default: every metric)")
    return a


def _series_of(args: argparse.Namespace, series: list) -> list:
    """The series of the metrics --metric names (all without it); a metric the history
    does not hold is refused, naming those it does."""
    names = common.metric_names(args)
    if not names:
        return series
    held = list(dict.fromkeys(s.metric for s in series))
    missing = [n for n in names if n not in held]
    if missing:
        raise UsageError(f"no metric {missing[0]!r} in {shown(args.db)} (metrics: "
                         f"{', '.join(held) or 'none: the history is empty'})")
    return [s for s in series if s.metric in names]

def _add_check(inner: argparse._SubParsersAction) -> None:
    p = subcommand(inner, "check", "find the changes along every series, each judged by a "
                   "ratio CI", "For every series (benchmark, metric, machine): change points "
                   "by E-Divisive means on the per-commit means, then the ratio CI of the "
                   "segment after each one to the segment before it; only changes whose CI "
                   "clears --threshold are reported.")
    a = _analysis_group(p, "random seed (default 0; E-Divisive's default t-test draws none)")
    w = a.add_mutually_exclusive_group()
    w.add_argument("--since", metavar="COMMIT", type=utf8,
                   help="report only changes from this commit on "
                   "(all the history is still used)")
    w.add_argument("--last", type=int, metavar="N", help="report only changes in the last N "
                   "commits (all the history is still used)")
    a.add_argument("--min-segment", type=int, default=2, metavar="N",
                   help="fewest commits a short segment (an episode) may have, 2 to 32 "
                   "(default 2); one commit is a transient, never a change")
    o = output_options.add(p, plot=False)
    o.add_argument("--fail-on", choices=["change", "regression"],
                   help="exit 1 if a reported change (a step, an episode, a change at the "
                   "head) is a regression / any change; transients never trip it")
    p.set_defaults(history_run=_run_check)


def _add_compare(inner: argparse._SubParsersAction) -> None:
    p = subcommand(inner, "compare", "compare a head commit with its branch's baseline (a PR "
                   "check)", "The head commit's results against the baseline segment of its "
                   "branch (the commits since the last confirmed change), benchmark by "
                   "benchmark, with compare's suite table and family-wise (Holm) decisions; "
                   "the head's mean carries the commit-to-commit spread the baseline shows. "
                   "With one earlier commit the head's runs are compared with the parent's "
                   "(within-commit variance only; the output says the commit-to-commit "
                   "variance is unknown). A benchmark without a baseline gets a row 'new "
                   "benchmark, no baseline'.")
    p.add_argument("--head", required=True, metavar="SHA", type=utf8,
                   help="the commit to check")
    _analysis_group(p)
    o = output_options.add(p, plot=False)
    o.add_argument("--fail-on", choices=["change", "regression"],
                   help="exit 1 if a verdict is a change / a change in the bad direction")
    p.add_argument("--store", action="store_true",
                   help="also keep this result in the history (a PR check; `history "
                   "publish` gives it a page); a check of the same head and machine is "
                   "replaced")
    p.set_defaults(history_run=_run_compare)


def _add_show(inner: argparse._SubParsersAction) -> None:
    p = subcommand(inner, "show", "show every series: means per commit with CIs, and its "
                   "changes", "Each series' per-commit means with their CIs and the changes "
                   "`history check` confirms: a sparkline in text and Markdown, every commit "
                   "in JSON and CSV, a timeline per benchmark with --plot and in --format html.")
    p.add_argument("--benchmark", metavar="NAME", type=utf8,
                   help="show this benchmark only")
    p.add_argument("--last", type=int, metavar="N", help="show the last N commits only (the "
                   "changes are still found on the whole history)")
    _analysis_group(p)
    output_options.add(p)
    p.set_defaults(history_run=_run_show)


def _add_publish(inner: argparse._SubParsersAction) -> None:
    p = subcommand(inner, "publish", "write a static site of every series: index, a page per "
                   "series", "A static site of the history (docs/history-publish.md): an "
                   "index of every series with its trend, latest change and verdict, sortable "
                   "and filterable, and a page per series with every commit, its changes and "
                   "their ratio CIs as `history check` finds them. It fetches nothing (its "
                   "script ships with benchlab) and works from the file system; publishing "
                   "again rewrites only the files that changed.")
    p.add_argument("-o", "--output", dest="directory", required=True, metavar="DIR",
                   help="the site's directory (created; an existing one must hold a site "
                   "benchlab published)")
    p.add_argument("--commit-url", metavar="TEMPLATE", type=utf8, help="link each commit: "
                   "{sha} is replaced by its id, e.g. https://github.com/o/r/commit/{sha}")
    p.add_argument("--title", default="benchlab history", type=utf8,
                   help="the site's title (default: benchlab history)")
    a = _analysis_group(p)
    a.add_argument("--min-segment", type=int, default=2, metavar="N",
                   help="as history check's (default 2)")
    p.add_argument("--json", dest="format", action="store_const", const="json",
                   default="text", help="say what was written as JSON")
    p.set_defaults(history_run=_run_publish)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "history_run", None) is None:
        raise UsageError("history needs a subcommand: add, check, compare, show, publish, "
                         "bisect, export or import (see benchlab history --help)")
    return args.history_run(args)


# -- add -------------------------------------------------------------------------------
def _run_add(args: argparse.Namespace) -> int:
    from benchlab.history.store import History

    if (args.commit is None) == (args.commit_column is None):
        raise UsageError("history add needs --commit SHA, or --commit-column COL for a table "
                         "of many commits")
    if args.date_column and not args.commit_column:
        raise UsageError("--date-column goes with --commit-column (one commit: --date)")
    if args.commit_column and args.date:
        raise UsageError("--date is for one --commit; a table's dates come from --date-column")
    if args.commit is not None and not args.commit.strip():
        raise UsageError("--commit is empty")
    if args.db in args.files:
        raise UsageError("--db is also an input; the history is not a result file")
    commits, cut_notes = _every_metric(args)
    with History.open_or_create(args.db) as history:
        written = history.add(commits, replace=args.replace)
        counts = history.counts()
    bench = {s.benchmark for c in commits for s in c.series}
    what = f"commit {commits[0].sha}" if len(commits) == 1 else f"{len(commits)} commits"
    print(f"added {plural(written, 'measurement')} of {plural(len(bench), 'benchmark')} for "
          f"{what} to {shown(args.db)} (now {plural(counts['commits'], 'commit')}, "
          f"{counts['series']} series)")
    for note in cut_notes:
        print(f"note: {note}")
    return 0


def _every_metric(args: argparse.Namespace):
    """The CommitResults of every metric --metric names (one series per benchmark and
    metric), or of the input's default metric, and with --warmup auto the notes of each
    metric's cut (each metric's executions are classified on its own values)."""
    from dataclasses import replace

    names = common.metric_names(args) or (None,)
    merged: dict[str, object] = {}
    notes: list[str] = []
    for metric in names:
        commits, cut = _commit_results(args, metric)
        if cut is not None:
            notes += [f"{metric}: {n}" if len(names) > 1 else n for n in cut.notes]
        for c in commits:
            known = merged.get(c.sha)
            merged[c.sha] = c if known is None else replace(known, series=known.series
                                                             + c.series)
    return list(merged.values()), notes


def _commit_results(args: argparse.Namespace, metric: str | None):
    """The inputs as CommitResults (one for --commit, one per commit of --commit-column) and,
    with --warmup auto, what the cut did (else None)."""
    from dataclasses import replace

    from benchlab.history.store import CommitResults, normalize_date

    cut_spec = warmup.cut_of(args)
    inputs = common.load(args, min_values=1, metric=metric)
    samples = inputs.samples
    names = common.resolved_levels(args, samples)
    for column in (args.commit_column, args.date_column):
        if column and column in names:
            raise UsageError(f"--levels names the commit or date column {column!r}")
    cut = None
    if cut_spec is not None:  # each execution from its steady state on, per commit
        within = tuple(c for c in (inputs.benchmark, args.commit_column) if c)
        cut = warmup.cut(cut_spec, samples, names, None, within)
        inputs = replace(inputs, samples=list(cut.samples))
    pieces = _by_machine(args, _pieces(args, inputs, names), names)
    if args.commit is not None:
        return [CommitResults(args.commit.strip(), args.date, args.branch,
                              tuple(_series(b, d, names, m) for b, d, m in pieces))], cut
    by_commit: dict[str, list] = {}
    dates: dict[str, str | None] = {}
    for bench, dataset, machine in pieces:
        for column, flag in ((args.commit_column, "--commit-column"),
                             (args.date_column, "--date-column")):
            if column and column not in dataset.columns:
                raise UsageError(f"no column {column!r} for {flag}", dataset.source)
        for sha, part in dataset.split(args.commit_column):
            by_commit.setdefault(sha, []).append(_series(bench, part, names, machine))
            if args.date_column:
                found = {normalize_date(str(d), "--date-column") for d in
                         part.columns[args.date_column]}
                known = dates.get(sha)
                found |= {known} if known else set()
                if len(found) > 1:
                    raise UsageError(f"commit {sha!r} is given with different dates: "
                                     f"{', '.join(sorted(found))}", dataset.source)
                dates[sha] = found.pop()
    return [CommitResults(sha, dates.get(sha), args.branch, tuple(series))
            for sha, series in by_commit.items()], cut


def _pieces(args: argparse.Namespace, inputs, names: list[str]) -> list:
    """(benchmark, dataset) per benchmark: a suite's files split by their benchmark column."""
    if inputs.benchmark is None:
        return [(s.name, s.dataset) for s in inputs.samples]
    from benchlab.data.dataset import Dataset

    merged: dict[str, list] = {}
    for s in inputs.samples:
        for bench, part in s.dataset.split(inputs.benchmark):
            merged.setdefault(bench, []).append(part)
    out = []
    for bench, parts in merged.items():
        if len(parts) == 1:
            out.append((bench, parts[0]))
            continue
        import numpy as np

        keep = [args.commit_column, args.date_column, *names]
        cols = {"value": np.concatenate([p.values for p in parts])}
        for c in keep:
            if c and all(c in p.columns for p in parts):
                cols[c] = np.concatenate([p.columns[c] for p in parts])
        first = parts[0]
        out.append((bench, Dataset(cols, "value", levels=tuple(n for n in names if n in cols),
                                   metric=first.metric, unit=first.unit, source=first.source)))
    return out


def _by_machine(args: argparse.Namespace, pieces: list, names: list[str]) -> list:
    """(benchmark, dataset, machine) per piece. A store run with `[machines] role = "factor"`
    (docs/cluster.md) names each case with its `machine=NAME`: each machine's data becomes
    the series of that machine, under the benchmark's name without it, so the history keys
    them by machine as it does results added with --machine. Identical machines (role
    "level") stay one series, the machine a level of it."""
    out = []
    split: set[str] = set()
    for bench, dataset in pieces:
        column = dataset.columns.get("machine")
        tokens = str(bench).split(" ")
        if column is None or "machine" in names or not any(
                t.startswith("machine=") for t in tokens):
            out.append((bench, dataset, args.machine or "default"))
            continue
        for machine, part in dataset.split("machine"):
            split.add(str(machine))
            name = " ".join(t for t in tokens if t != f"machine={machine}")
            out.append((name, part, str(machine)))
    if split and args.machine is not None:
        raise UsageError(f"--machine {args.machine}: the input was run on machines "
                         f"{', '.join(sorted(split))} (its machine factor), and each becomes "
                         "its own series' machine; leave --machine out")
    return out


def _series(bench: str, dataset, names: list[str], machine: str):
    from benchlab.history.store import SeriesData

    sample = type("S", (), {"dataset": dataset})
    levels = tuple(common.level_arrays(sample, names)) if names else ()
    unit = dataset.unit
    return SeriesData(bench, dataset.metric or "value", machine, unit.name or "",
                      unit.higher_is_better, tuple(names), dataset.values, levels)



# -- check -----------------------------------------------------------------------------
def _run_check(args: argparse.Namespace) -> int:
    from benchlab.history.check import check
    from benchlab.history.store import History
    from benchlab.stats.window_scan import MAX_LENGTH

    confidence = common.confidence(args.confidence)
    if args.last is not None and args.last < 1:
        raise UsageError(f"--last must be 1 or more, not {args.last}")
    if not 2 <= args.min_segment <= MAX_LENGTH:
        raise UsageError(f"--min-segment must be between 2 and {MAX_LENGTH}, not "
                         f"{args.min_segment}")
    output_options.check(args, [shown(args.db)])
    with History.open(args.db) as history:
        commits = history.commits()
        series = _series_of(args, history.series())
    since = 0
    if args.since is not None:
        found = [i for i, c in enumerate(commits) if c.sha == args.since]
        if not found:
            raise UsageError(f"--since: no commit {args.since!r} in {shown(args.db)}")
        since = found[0]
    elif args.last is not None:
        since = max(0, len(commits) - args.last)
    result = check(series, commits, threshold=args.threshold, confidence=confidence,
                   since=since, seed=args.seed, min_segment=args.min_segment)
    output_options.emit(args, result, output_options.context(args, "history check",
                                                             [shown(args.db)]), [shown(args.db)])
    from benchlab.stats.verdict import trips

    return 1 if trips((c.verdict for c in result.changes), args.fail_on) else 0


# -- compare ---------------------------------------------------------------------------
def _run_compare(args: argparse.Namespace) -> int:
    from benchlab.errors import InputError
    from benchlab.history.compare import HistoryCompare, compare_head
    from benchlab.history.store import History

    confidence = common.confidence(args.confidence)
    output_options.check(args, [shown(args.db)])
    with History.open(args.db) as history:
        commits = history.commits()
        series = _series_of(args, history.series())
    if args.head not in {c.sha for c in commits}:
        raise UsageError(f"--head: no commit {args.head!r} in {shown(args.db)}")
    try:
        result = compare_head(series, commits, args.head, threshold=args.threshold,
                              confidence=confidence, seed=args.seed)
    except InputError as exc:
        exc.where = exc.where or shown(args.db)
        raise
    context = output_options.context(args, "history compare", [shown(args.db)])
    if args.store:
        _store_check(args, result, context, series)
    output_options.emit(args, result, context, [shown(args.db)])
    if not isinstance(result, HistoryCompare):
        return 0
    from benchlab.stats.verdict import trips

    verdicts = [c.verdict for _, r in result.benchmarks for c in r.comparisons]
    return 1 if trips(verdicts, args.fail_on) else 0


def _store_check(args: argparse.Namespace, result, context, series: list) -> None:
    """Keep the comparison in the history (history/checks.py): the document `--json`
    prints, with the settings; says on standard error what it stored or replaced."""
    import json
    import sys

    from benchlab.history.checks import check_of
    from benchlab.history.compare import series_names
    from benchlab.history.store import History
    from benchlab.sqlite_file import timestamp

    document = json.loads(output_options.rendered(result, "json", context))
    settings = {"confidence": document["confidence"], "threshold": args.threshold,
                "seed": args.seed, "metrics": common.metric_names(args) or None}
    check = check_of(document, series_names(series), timestamp(), settings)
    with History.open(args.db, write=True) as history:
        replaced = history.store_check(check)
    said = "" if replaced is None else f", replacing the one recorded {replaced}"
    print(f"stored the check of head {check.head} on machine {check.machine} in "
          f"{shown(args.db)}{said}", file=sys.stderr)


# -- show ------------------------------------------------------------------------------
def _run_show(args: argparse.Namespace) -> int:
    from benchlab.history.show import show
    from benchlab.history.store import History

    confidence = common.confidence(args.confidence)
    if args.last is not None and args.last < 1:
        raise UsageError(f"--last must be 1 or more, not {args.last}")
    output_options.check(args, [shown(args.db)])
    with History.open(args.db) as history:
        commits = history.commits()
        series = _series_of(args, history.series())
    if args.benchmark is not None and args.benchmark not in {s.benchmark for s in series}:
        raise UsageError(f"--benchmark: no benchmark {args.benchmark!r} in "
                         f"{shown(args.db)}")
    result = show(series, commits, benchmark=args.benchmark, last=args.last,
                  threshold=args.threshold, confidence=confidence, seed=args.seed)
    output_options.emit(args, result, output_options.context(args, "history show",
                                                             [shown(args.db)]), [shown(args.db)])
    return 0


# -- publish ---------------------------------------------------------------------------
def _run_publish(args: argparse.Namespace) -> int:
    import os
    from urllib.parse import urlsplit

    from benchlab.history import analysis_cache
    from benchlab.history.publish import site_data
    from benchlab.history.store import History
    from benchlab.report.history_site import publish
    from benchlab.report.history_site.pages import Options
    from benchlab.stats.window_scan import MAX_LENGTH

    confidence = common.confidence(args.confidence)
    if not 2 <= args.min_segment <= MAX_LENGTH:
        raise UsageError(f"--min-segment must be between 2 and {MAX_LENGTH}, not "
                         f"{args.min_segment}")
    url = args.commit_url
    if url is not None and ("{sha}" not in url
                            or urlsplit(url).scheme.lower() not in ("", "http", "https")):
        raise UsageError(f"--commit-url must hold {{sha}} and be an http(s) or relative "
                         f"address, not {url!r}")
    with History.open(args.db) as history:
        commits = history.commits()
        series = _series_of(args, history.series())
        checks = history.checks()
    names = common.metric_names(args)
    if names:  # a check's rows of those metrics, as the series are
        from benchlab.history.checks import of_metrics

        checks = [k for c in checks if (k := of_metrics(c, names)) is not None]
    if not series:
        raise UsageError("the history holds no series yet (benchlab history add fills it)",
                         shown(args.db))
    data = site_data(series, commits, threshold=args.threshold, confidence=confidence,
                     seed=args.seed, min_segment=args.min_segment, checks=tuple(checks),
                     kept=os.path.join(args.directory, analysis_cache.FILE))
    result = publish(data, args.directory, Options(args.title, url))
    output_options.emit(args, result, output_options.context(args, "history publish",
                                                             [shown(args.db)]), stdout=True)
    return 0

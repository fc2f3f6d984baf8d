"""`benchlab report`: one self-contained HTML page of a comparison (docs/report.md).

The inputs are read and compared by the very function `compare` uses
(cli/analysis.py, with the same input and analysis options): a store alone by its
design (blocked by interleaving round when the runner interleaved), a suite with
--benchmark, the hierarchy on the levels the data records, or the samples. The
result is laid out by report/html_page.py — naming each verdict's method and CI
level — with the figures, the run-order plots and the environment of every store,
and a provenance footer.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from benchlab.cli import analysis, common
from benchlab.cli.output_options import add_overwrite
from benchlab.errors import UsageError
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab report examples/experiments/loop.db -o report.html
  benchlab report examples/kamp/current.txt examples/kamp/buf_work.txt -o report.html
  benchlab report tests/fixtures/hierarchy/suite.csv --by system --benchmark benchmark \\
      --levels build,run --seed 1 -o report.html
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="one self-contained HTML report: tables, figures, run order, machine",
        description="Run exactly the analysis `benchlab compare` runs on the same inputs "
                    "and options (a store alone by its design) and write one HTML file: "
                    "the sortable table of every comparison with the CI each verdict used, "
                    "its level and its method, per benchmark its figures and "
                    "tables, for a store the run-order plot and the machine's environment, "
                    "and the provenance (version, command, input hashes, seed, date). "
                    "Nothing in it is fetched from the network.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = common.add_table_input(p)
    analysis.add_options(p, g)  # compare's own analysis options, meaning the same
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", metavar="FILE",
                   help="the HTML file to write (default: standard output when it is not "
                        "a terminal)")
    o.add_argument("--title", default="benchlab report", help="the page's title")
    o.add_argument("--no-figures", action="store_true",
                   help="leave out the distribution figures (tables and run order stay)")
    add_overwrite(o, "write even over a benchlab store or one of the inputs")
    p.set_defaults(run=noting(run))


def run(args: argparse.Namespace) -> int:
    from benchlab.output_file import check_target, write_text

    if args.output is None and sys.stdout.isatty():
        raise UsageError("report writes HTML: say -o report.html (or redirect the output)")
    if args.output:
        check_target(args.output, args.files, force=args.force)
    page, context = analyse(args)
    from benchlab.report.html_page import build_page

    text = build_page(page, context)
    if args.output:
        write_text(args.output, text, args.files, force=args.force)
    else:
        sys.stdout.write(text)
    return 0


def analyse(args: argparse.Namespace):
    """The comparison of the inputs — exactly `compare`'s (cli/analysis.py) — and what the
    page shows beside it: (PageInput, context)."""
    from benchlab.cli import metrics
    from benchlab.report import html_page

    spec = analysis.spec_of(args)
    asked = common.metric_names(args)  # --metric wall,instructions: a section each
    found_metrics, notes = (list(asked), []) if asked else metrics.of_inputs(args)
    context = _context(args, ())

    def page_of(found, metric=None):
        steady = found.cut.by_trial() if found.cut is not None else None
        return html_page.PageInput(found.result, found.samples,
                                   tuple(_stores(args, found.benchmark, found.metric, steady)),
                                   args.title, not args.no_figures,
                                   figure_limit=html_page.FIGURE_LIMIT, metric=metric)

    if len(found_metrics) > 1:  # or every metric of a go test -benchmem file
        shown, analyses = metrics.analyse_each(args, spec, found_metrics, notes,
                                               command="report", asked=bool(asked))
        (first, found), *rest = analyses
        if shown.notes:
            found = replace(found, result=analysis.with_note(found.result,
                                                             "; ".join(shown.notes)))
        page = replace(page_of(found, first), overview=shown,
                       metrics=tuple(page_of(a, m) for m, a in rest))
        return page, context
    found = analysis.analyse(args, "report", spec)
    return page_of(found), context


def _context(args: argparse.Namespace, notes: tuple[str, ...]):
    from benchlab.report.envelope import file_sha256
    from benchlab.result import RenderContext

    argv = tuple(getattr(args, "argv", None) or sys.argv[1:])
    if argv and argv[0] == "report":
        argv = argv[1:]
    hashed = tuple((path, file_sha256(path)) for path in args.files)
    return RenderContext(command="report", argv=argv, inputs=hashed, notes=notes,
                         options={"fragment": True})


def _stores(args: argparse.Namespace, benchmark: str | None, metric: str | None,
            steady: dict[str, str | None] | None = None):
    """A StoreRecord (sessions, run order per benchmark) for every input that is a store,
    in `metric`; `steady` (--warmup auto: each trial's steady-state start) marks the cuts."""
    from benchlab.report.figures.run_order import run_orders
    from benchlab.report.html_page import StoreRecord
    from benchlab.runner.bisect_store import is_bisect_store
    from benchlab.runner.store import Store
    from benchlab.sqlite_file import is_sqlite

    for path in dict.fromkeys(args.files):
        if path == "-" or not is_sqlite(path) or is_bisect_store(path):
            continue  # a bisect's store has no sessions of benchlab run
        store = Store.open(path)
        try:
            sessions, meta = store.sessions(), dict(store.meta)
        finally:
            store.close()
        profiles, note = _profile_diffs(path)
        yield StoreRecord(path, sessions, run_orders(path, metric, benchmark, steady), meta,
                          profiles, note)


PROFILE_TOP = 10  # the functions each "which functions changed" table shows


def _profile_diffs(path: str) -> tuple[tuple, str | None]:
    """A store's profile-diffs, each alternative against the baseline (as `profile-diff
    STORE --new ALTERNATIVE` ranks them), when it keeps profiles (counter = "callgrind");
    else none, or none and why when they cannot be compared (an experiment with factors)."""
    from benchlab.data.profile_diff import diff
    from benchlab.data.store_profiles import against_baseline, has_profiles
    from benchlab.errors import InputError

    if not has_profiles(path):
        return (), None
    try:
        pairs = against_baseline(path)
    except InputError as exc:
        return (), f"left out: {exc.message}"
    return tuple(diff(p.old, p.new, top=PROFILE_TOP) for p in pairs), None

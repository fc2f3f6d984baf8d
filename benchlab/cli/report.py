"""`benchlab report`: one self-contained HTML page of a comparison (docs/report.md).

The inputs are read as `compare` reads them (the same input options; a store
from `benchlab run` is the main case), compared the same way (single,
hierarchical on the levels the data records, or a suite with --benchmark), and
laid out by report/html_page.py with the figures, the run-order plots and the
environment of every store, and a provenance footer.
"""

from __future__ import annotations

import argparse
import sys

from benchlab.cli import common, option_types
from benchlab.errors import UsageError
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab report examples/experiments/loop.db --by alternative --benchmark n -o report.html
  benchlab report old.txt new.txt --unit s -o report.html
  benchlab report runs.csv --by kernel --value real --levels build,run -o report.html
"""



def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="one self-contained HTML report: tables, figures, run order, machine",
        description="Compare the inputs as `benchlab compare` does and write one HTML file: "
                    "the sortable table of every comparison, per benchmark its figures and "
                    "tables, for a store the run-order plot and the machine's environment, "
                    "and the provenance (version, command, input hashes, seed, date). "
                    "Nothing in it is fetched from the network.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = common.add_table_input(p)
    a = common.add_comparison_options(p, g)
    a.add_argument("--df", dest="df_method", choices=["welch", "conservative", "pooled"],
                   default="welch", help="degrees of freedom of Fieller's interval")
    a.add_argument("--seed", type=option_types.seed, default=None,
                   help="random seed for the bootstraps (the suite's geometric mean, "
                   "--statistic median; 0 or more)")
    a.add_argument("--statistic", choices=["mean", "median"], default="mean",
                   help="the verdicts' ratio: of means (Fieller's CI; default) or of medians "
                   "(bootstrap percentile CI, B = 10000), as `compare --statistic`")
    a.add_argument("--no-diagnostics", action="store_true",
                   help="skip the outlier/drift/autocorrelation/multimodality checks")
    a.add_argument("--no-adjust", action="store_true",
                   help="suites: decide each benchmark alone at the confidence level, not "
                   "family-wise over the benchmarks (Holm), as `compare --no-adjust`")
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", metavar="FILE",
                   help="the HTML file to write (default: standard output when it is not "
                        "a terminal)")
    o.add_argument("--title", default="benchlab report", help="the page's title")
    o.add_argument("--no-figures", action="store_true",
                   help="leave out the distribution figures (tables and run order stay)")
    o.add_argument("--force", action="store_true",
                   help="write even over a benchlab store or one of the inputs")
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
    """The comparison of the inputs and what the page shows beside it: (PageInput, context)."""
    from benchlab.data.samples import pick_baseline, unify_units
    from benchlab.report import html_page

    confidence = common.confidence(args.confidence)
    _store_defaults(args)
    inputs = common.load(args)
    samples = inputs.samples
    if inputs.benchmark and not args.benchmark:
        args.benchmark = inputs.benchmark
    if len(samples) < 2:
        raise UsageError("report needs at least two samples (two files, or --by with a "
                         "column that has two or more groups)")
    names = common.resolved_levels(args, samples)
    samples, unit, unit_note = unify_units(samples, args.unit, args.higher_is_better)
    baseline = pick_baseline(samples, args.baseline)
    if args.statistic == "median":  # B = 10000 resamples of the data
        from benchlab import limits

        limits.check_resampled(10_000, sum(len(s.values) for s in samples), "--statistic")
    shared = {"confidence": confidence, "threshold": args.threshold,
              "df_method": args.df_method, "unit": unit,
              "diagnostics": not args.no_diagnostics, "statistic": args.statistic}
    if args.benchmark:
        result, per_bench = _suite(args, samples, baseline, names, shared)
    elif args.no_adjust:
        raise UsageError("--no-adjust applies to suites (--benchmark or a store with factors): "
                         "one comparison has nothing to adjust for")
    else:
        result = _single(samples, baseline, names, {**shared, "seed": args.seed})
        per_bench = {None: [(s.name, s.values) for s in samples]}
    notes = (unit_note,) if unit_note else ()
    context = _context(args, notes)
    page = html_page.PageInput(result, per_bench, tuple(_stores(args)), args.title,
                               not args.no_figures, figure_limit=html_page.FIGURE_LIMIT)
    return page, context


def _store_defaults(args: argparse.Namespace) -> None:
    """A store alone, with no flag saying how to read it: its design gives the defaults, as
    for `benchlab compare STORE` — alternatives are the groups (the file's baseline first),
    each factor combination a benchmark, builds and executions the levels."""
    from benchlab.cli import store_design
    from benchlab.data.readers.store import combination_column

    if not store_design.applies(args):
        return
    info = store_design.store_info(args.files[0])
    args.by = "alternative"
    if info.factors:
        args.benchmark = combination_column(info.factors)
    if getattr(args, "baseline", None) is None and info.baseline:
        args.baseline = info.baseline


def _single(samples, baseline: int, names: list[str], shared: dict):
    from benchlab.stats.compare import compare_hierarchical, compare_samples

    if names:
        data = [(s.name, s.values, common.level_arrays(s, names)) for s in samples]
        with common.naming_files(samples):
            return compare_hierarchical(data, names, baseline=baseline,
                                        ordered=[s.dataset.ordered for s in samples], **shared)
    return compare_samples([(s.name, s.values) for s in samples], baseline=baseline, **shared)


def _suite(args: argparse.Namespace, samples, baseline: int, names: list[str], shared: dict):
    """The suite comparison and each benchmark's samples (for its figure)."""
    from benchlab.stats.suite import compare_suite

    data: dict = {}
    per_bench: dict = {}
    for s in samples:
        if args.benchmark not in s.dataset.columns:
            raise UsageError(f"no column {args.benchmark!r} for --benchmark", s.dataset.source)
        levels = common.level_arrays(s, names) if names else []
        for bench, part in s.dataset.split(args.benchmark):
            mask = s.dataset.columns[args.benchmark] == bench
            data.setdefault(bench, []).append((s.name, part.values, [lv[mask] for lv in levels]))
            per_bench.setdefault(bench, []).append((s.name, part.values))
    with common.naming_files(samples):
        result = compare_suite(data, names, baseline=samples[baseline].name, seed=args.seed,
                               ordered={s.name: s.dataset.ordered for s in samples},
                               adjust="none" if args.no_adjust else "holm", **shared)
    return result, per_bench


def _context(args: argparse.Namespace, notes: tuple[str, ...]):
    from benchlab.report.envelope import file_sha256
    from benchlab.result import RenderContext

    argv = tuple(getattr(args, "argv", None) or sys.argv[1:])
    if argv and argv[0] == "report":
        argv = argv[1:]
    hashed = tuple((path, file_sha256(path)) for path in args.files)
    return RenderContext(command="report", argv=argv, inputs=hashed, notes=notes,
                         options={"fragment": True})


def _stores(args: argparse.Namespace):
    """A StoreRecord (sessions, run order) for every input that is a benchlab store."""
    from benchlab.output_file import is_sqlite
    from benchlab.report.figures.run_order import run_orders
    from benchlab.report.html_page import StoreRecord
    from benchlab.runner.store_checks import open_for_reading

    for path in dict.fromkeys(args.files):
        if path == "-" or not is_sqlite(path):
            continue
        store = open_for_reading(path)
        try:
            sessions, meta = store.sessions(), dict(store.meta)
        finally:
            store.close()
        yield StoreRecord(path, sessions, run_orders(path, args.metric, args.benchmark), meta)

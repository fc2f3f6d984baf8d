"""`benchlab compare`: parse arguments, run the comparison, render it, set the exit code."""

from __future__ import annotations

import argparse
import re
import sys

from benchlab import limits
from benchlab.cli import common, option_types, output_options
from benchlab.errors import UsageError
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
            out[i] = "--bootstrap=10000"
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
    a = common.add_comparison_options(p, g, names=True)
    a.add_argument("--df", dest="df_method", choices=["welch", "conservative", "pooled"],
                   default=None, help="degrees of freedom of Fieller's interval (default "
                   "welch; paired data always use n - 1)")
    a.add_argument("--tests", action="store_true",
                   help="also Student's t, Mann-Whitney, Kolmogorov-Smirnov, Shapiro-Wilk, F")
    a.add_argument("--bootstrap", nargs="?", type=int, const=10_000, default=None, metavar="B",
                   help="bootstrap CIs of the ratios of means and medians (B = 10000)")
    a.add_argument("--statistic", choices=["mean", "median"], default="mean",
                   help="the headline verdict's ratio: of means (Fieller's CI; default) or of "
                   "medians (bootstrap percentile CI, B = --bootstrap or 10000)")
    a.add_argument("--seed", type=option_types.seed, default=None,
                   help="random seed for the bootstrap (0 or more)")
    a.add_argument("--resample", metavar="SPEC", help="with --levels: R (resample) or N (keep) "
                   "per level, highest first, e.g. RRN; or flat (default: R at every level)")
    a.add_argument("--no-adjust", action="store_true",
                   help="suites: decide each benchmark alone at the confidence level, not "
                   "family-wise over the benchmarks (Holm)")
    a.add_argument("--paired", action="store_true",
                   help="samples are paired by position (or by --pair-by)")
    a.add_argument("--pair-by", metavar="COLUMN", help="column whose values pair the rows")
    a.add_argument("--no-diagnostics", action="store_true",
                   help="skip the outlier/drift/autocorrelation/multimodality checks")
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
    from benchlab.data.samples import align_pairs, pick_baseline, rename, unify_units
    from benchlab.stats.compare import compare_samples

    if args.width is not None or args.all_stats or args.stats_only or args.quiet or args.separate:
        raise UsageError("-A, -n, -q, -s and -w belong to --ministat mode")
    if args.metric is None and getattr(args, "collect", None) is None:
        from benchlab.cli import metrics  # go test -benchmem: a table per metric

        found, notes = metrics.of_inputs(args)
        if found:
            return metrics.run_each(args, found, notes, _run_default)
    if args.bootstrap is not None and args.bootstrap < 100:
        raise UsageError(f"--bootstrap needs at least 100 replicates, not {args.bootstrap}")
    if args.bootstrap is not None:
        limits.check_replicates(args.bootstrap, "--bootstrap")
    confidence = common.confidence(args.confidence)
    if args.pair_by:
        args.paired = True
    if args.paired and args.df_method is not None:
        raise UsageError("--df does not apply to --paired: paired data use n - 1 degrees "
                         "of freedom")
    output_options.check(args, args.files)  # before the work: the targets can be written
    from benchlab.cli import store_design  # a store alone: its design is the default

    if store_design.applies(args):
        if args.statistic == "median":
            raise UsageError("--statistic median needs the analysis named (a store's default "
                             "design analysis uses the means): add e.g. --by alternative")
        return store_design.run(args, confidence)
    inputs = common.load(args)
    samples = rename(inputs.samples, args.name)
    if inputs.benchmark and not args.benchmark:
        args.benchmark = inputs.benchmark  # one system per file, benchmark by benchmark
    level_names = [] if args.paired and args.levels is None else common.resolved_levels(
        args, samples)
    if len(samples) < 2:
        raise UsageError("compare needs at least two samples (two files, or --by with a "
                         "column that has two or more groups)")
    samples, unit, args.unit_note = unify_units(samples, args.unit, args.higher_is_better)
    baseline = pick_baseline(samples, args.baseline)
    if args.bootstrap is not None or args.statistic == "median":  # B times the data
        limits.check_resampled(args.bootstrap or 10_000, sum(len(s.values) for s in samples),
                               "--bootstrap")
    spec = _resample_spec(args, level_names)
    if args.benchmark:
        return _run_suite(args, samples, unit, baseline, confidence, level_names, spec)
    if spec is not None and args.bootstrap is None:
        raise UsageError("--resample says how --bootstrap resamples: add --bootstrap")
    if args.no_adjust:
        raise UsageError("--no-adjust applies to suites (--benchmark): one comparison has "
                         "nothing to adjust for")
    if level_names:
        return _run_hierarchical(args, samples, unit, baseline, confidence, level_names, spec)
    if args.pair_by:
        samples = align_pairs(samples, args.pair_by, baseline)
    named = [(s.name, s.values) for s in samples]
    result = compare_samples(named, baseline=baseline, confidence=confidence,
                             threshold=args.threshold, df_method=args.df_method or "welch",
                             paired=args.paired, unit=unit, bootstrap=args.bootstrap,
                             seed=args.seed, tests=args.tests,
                             diagnostics=not args.no_diagnostics, statistic=args.statistic)
    _render(args, result, named)

    return _finish(args, result)


def _resample_spec(args: argparse.Namespace, names: list[str]) -> str | None:
    """--resample checked against the levels: R/N per level (upper-cased) or "flat"."""
    if args.resample is None:
        return None
    if not names:
        raise UsageError("--resample needs --levels (the hierarchy it resamples)")
    spec = "flat" if args.resample.lower() == "flat" else args.resample.upper()
    if spec != "flat" and (len(spec) != len(names) + 1 or set(spec) - {"R", "N"}):
        raise UsageError(f"--resample wants R or N for each of the {len(names) + 1} levels "
                         f"({', '.join([*names, 'measurement'])}), or flat; got "
                         f"{args.resample!r}")
    return spec


def _run_hierarchical(args: argparse.Namespace, samples, unit, baseline: int,
                      confidence: float, names: list[str], spec: str | None) -> int:
    from benchlab.stats.compare import compare_hierarchical

    if args.paired:
        raise UsageError("--paired does not combine with --levels")
    data = [(s.name, s.values, common.level_arrays(s, names)) for s in samples]
    with common.naming_files(samples):
        result = compare_hierarchical(
            data, names, baseline=baseline, confidence=confidence, threshold=args.threshold,
            df_method=args.df_method or "welch", unit=unit, bootstrap=args.bootstrap,
            resample=spec, seed=args.seed, tests=args.tests,
            diagnostics=not args.no_diagnostics, ordered=[s.dataset.ordered for s in samples],
            statistic=args.statistic)
    _render(args, result, [(s.name, s.values) for s in samples])
    return _finish(args, result)


def _run_suite(args: argparse.Namespace, samples, unit, baseline: int,
               confidence: float, names: list[str], spec: str | None) -> int:
    from benchlab.stats.suite import compare_suite

    if args.paired:
        raise UsageError("--paired does not combine with --benchmark")
    data: dict = {}
    for s in samples:
        if args.benchmark not in s.dataset.columns:
            raise UsageError(f"no column {args.benchmark!r} for --benchmark", s.dataset.source)
        for bench, part in s.dataset.split(args.benchmark):
            levels = common.level_arrays(s, names) if names else []
            mask = s.dataset.columns[args.benchmark] == bench
            data.setdefault(bench, []).append(
                (s.name, part.values, [lv[mask] for lv in levels]))
    with common.naming_files(samples):
        result = compare_suite(
            data, names, baseline=samples[baseline].name, confidence=confidence,
            threshold=args.threshold, df_method=args.df_method or "welch", unit=unit,
            replicates=args.bootstrap or 10_000, resample=spec, seed=args.seed,
            tests=args.tests, bootstrap=args.bootstrap, diagnostics=not args.no_diagnostics,
            ordered={s.name: s.dataset.ordered for s in samples},
            adjust="none" if args.no_adjust else "holm", statistic=args.statistic)
    if args.unit_note:
        from dataclasses import replace

        result = replace(result, notes=(args.unit_note, *result.notes))
    if getattr(args, "collect", None) is not None:  # cli/metrics.py: one result per metric
        args.collect.append((result, None))
    else:
        output_options.emit(args, result, output_options.context(args, "compare", args.files),
                            args.files)
    if args.fail_on == "change" and any(c.verdict.outcome == "change"
                                        for _, r in result.benchmarks for c in r.comparisons):
        return 1
    if args.fail_on == "regression" and any(c.verdict.regression for _, r in result.benchmarks
                                            for c in r.comparisons):
        return 1
    return 0


def _render(args: argparse.Namespace, result, named) -> None:
    if args.unit_note:
        from dataclasses import replace

        from benchlab.stats.diagnostics import Diagnostic

        result = replace(result, diagnostics=(Diagnostic("units", args.unit_note),
                                              *result.diagnostics))
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

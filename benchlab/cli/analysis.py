"""The analysis `compare` and `report` share: the inputs and options → one result.

Both commands define their analysis options here (`add_options`) and call
`analyse`, so `benchlab report` runs exactly the comparison `benchlab compare`
runs on the same inputs and options — a store's design-aware default included
(cli/store_design.py) — and the two can never give two answers to one question
(issue 19). The commands differ only in what they do with the result: compare
renders it in the chosen format and sets the exit status; report lays it out
on one HTML page.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import Any

from benchlab import limits
from benchlab.cli import common, option_types
from benchlab.errors import UsageError


@dataclass(frozen=True)
class Analysis:
    """What `analyse` found: the result (a CompareResult or SuiteResult, with its design
    when a store was analysed by it), the samples compared per benchmark (None: not a
    suite) as (name, values) — for a blocked store the block means, as the analysis
    used them —, the column naming the benchmarks (None: not a suite) and the metric
    read (of a multi-metric format; None otherwise)."""

    result: Any
    samples: dict[str | None, list[tuple[str, Any]]]
    benchmark: str | None = None
    metric: str | None = None


def add_options(p: argparse.ArgumentParser, g: argparse._ArgumentGroup
                ) -> argparse._ArgumentGroup:
    """The options that choose the analysis, the same for compare and report: --baseline,
    --name and --benchmark in the input group `g`, and the analysis group (returned, for
    the command to add its own)."""
    a = common.add_comparison_options(p, g, names=True)
    a.add_argument("--df", dest="df_method", choices=["welch", "conservative", "pooled"],
                   default=None, help="degrees of freedom of Fieller's interval (default "
                   "welch; paired data always use n - 1)")
    a.add_argument("--bootstrap", nargs="?", type=int, const=10_000, default=None, metavar="B",
                   help="bootstrap CIs of the ratios of means and medians (B = 10000); a "
                   "suite's geometric mean and --statistic median use B replicates")
    a.add_argument("--statistic", choices=["mean", "median"], default="mean",
                   help="the headline verdict's ratio: of means (Fieller's CI; default) or of "
                   "medians (bootstrap percentile CI, B = --bootstrap or 10000; a suite with "
                   "--levels decides on Welch's t of the log top-level unit medians)")
    a.add_argument("--seed", type=option_types.seed, default=None,
                   help="random seed for the bootstraps (0 or more)")
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
    return a


def check_options(args: argparse.Namespace) -> float:
    """Refuse contradictory analysis options before any work; the confidence level."""
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
    return confidence


def analyse(args: argparse.Namespace, command: str = "compare") -> Analysis:
    """Read the inputs and compare them as the options say (docs/compare.md): a store
    alone by its design, a suite with --benchmark, the hierarchy with --levels, else the
    samples (paired with --paired). `command` names the command in errors."""
    from benchlab.cli import store_design
    from benchlab.data.samples import align_pairs, pick_baseline, rename, unify_units

    confidence = check_options(args)
    if store_design.applies(args):  # a store alone: its design is the default
        if args.statistic == "median":
            raise UsageError("--statistic median needs the analysis named (a store's default "
                             "design analysis uses the means): add e.g. --by alternative")
        return store_design.analyse(args, confidence, command)
    inputs = common.load(args)
    samples = rename(inputs.samples, args.name)
    if inputs.benchmark and not args.benchmark:
        args.benchmark = inputs.benchmark  # one system per file, benchmark by benchmark
        args.benchmark_from_inputs = True
    names = [] if args.paired and args.levels is None else common.resolved_levels(
        args, samples)
    if len(samples) < 2:
        raise UsageError(f"{command} needs at least two samples (two files, or --by with a "
                         "column that has two or more groups)")
    metric = samples[0].dataset.metric
    samples, unit, unit_note = unify_units(samples, args.unit, args.higher_is_better)
    baseline = pick_baseline(samples, args.baseline)
    if args.bootstrap is not None or args.statistic == "median":  # B times the data
        limits.check_resampled(args.bootstrap or 10_000, sum(len(s.values) for s in samples),
                               "--bootstrap")
    spec = resample_spec(args, names)
    shared = dict(confidence=confidence, threshold=args.threshold,
                  df_method=args.df_method or "welch", unit=unit, bootstrap=args.bootstrap,
                  seed=args.seed, tests=getattr(args, "tests", False),
                  diagnostics=not args.no_diagnostics, statistic=args.statistic)
    if args.benchmark:
        result, per_bench = _suite(args, samples, baseline, names, spec, shared)
        return Analysis(with_note(result, unit_note), per_bench, args.benchmark, metric)
    if spec is not None and args.bootstrap is None:
        raise UsageError("--resample says how --bootstrap resamples: add --bootstrap")
    if args.no_adjust:
        raise UsageError("--no-adjust applies to suites (--benchmark): one comparison has "
                         "nothing to adjust for")
    if names:
        from benchlab.stats.compare import compare_hierarchical

        if args.paired:
            raise UsageError("--paired does not combine with --levels")
        data = [(s.name, s.values, common.level_arrays(s, names)) for s in samples]
        with common.naming_files(samples):
            result = compare_hierarchical(data, names, baseline=baseline, resample=spec,
                                          ordered=[s.dataset.ordered for s in samples],
                                          **shared)
        named = [(s.name, s.values) for s in samples]
        return Analysis(with_note(result, unit_note), {None: named}, None, metric)
    from benchlab.stats.compare import compare_samples

    if args.pair_by:
        samples = align_pairs(samples, args.pair_by, baseline)
    named = [(s.name, s.values) for s in samples]
    result = compare_samples(named, baseline=baseline, paired=args.paired, **shared)
    return Analysis(with_note(result, unit_note), {None: named}, None, metric)


def resample_spec(args: argparse.Namespace, names: list[str]) -> str | None:
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


def _suite(args: argparse.Namespace, samples, baseline: int, names: list[str],
           spec: str | None, shared: dict):
    """The suite comparison (--benchmark) and each benchmark's samples."""
    from benchlab.stats.suite import compare_suite

    if args.paired:
        if getattr(args, "benchmark_from_inputs", False):  # the user gave no --benchmark
            raise UsageError("--paired does not combine with inputs of several benchmarks "
                             "(a suite, compared benchmark by benchmark without pairing)")
        raise UsageError("--paired does not combine with --benchmark")
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
        result = compare_suite(
            data, names, baseline=samples[baseline].name,
            replicates=args.bootstrap or 10_000, resample=spec,
            ordered={s.name: s.dataset.ordered for s in samples},
            adjust="none" if args.no_adjust else "holm", **shared)
    return result, per_bench


def with_note(result, note: str | None, kind: str = "units"):
    """The result with a note (on unit conversion, ...) first among a suite's notes or a
    comparison's diagnostics, where every format shows it."""
    if not note:
        return result
    from benchlab.stats.suite import SuiteResult

    if isinstance(result, SuiteResult):
        return replace(result, notes=(note, *result.notes))
    from benchlab.stats.diagnostics import Diagnostic

    return replace(result, diagnostics=(Diagnostic(kind, note), *result.diagnostics))

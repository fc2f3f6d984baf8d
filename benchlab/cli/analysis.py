"""The analysis `compare` and `report` share: the inputs and options → one result.

Both commands define their analysis options here (`add_options`) and call
`analyse`, so `benchlab report` runs exactly the comparison `benchlab compare`
runs on the same inputs and options — a store's design-aware default included
(data/store_design.py) — and the two can never give two answers to one question.
The commands differ only in what they do with the result: compare
renders it in the chosen format and sets the exit status; report lays it out
on one HTML page.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace
from typing import Any

from benchlab import limits
from benchlab.cli import common, option_types, suite_view, warmup
from benchlab.errors import UsageError
from benchlab.stats.spec import DEFAULT_REPLICATES, STATISTICS, AnalysisSpec


@dataclass(frozen=True)
class Analysis:
    """What `analyse` found: the result (a CompareResult or SuiteResult, with its design
    when a store was analysed by it), the samples compared per benchmark (None: not a
    suite) as (name, values) — for a blocked store the block means, as the analysis
    used them —, the column naming the benchmarks (None: not a suite) and the metric
    read (of a multi-metric format; None otherwise) and, with --warmup auto, what the cut
    did (a data/steady_state.SteadyStateCut; its samples are those before the cut)."""

    result: Any
    samples: dict[str | None, list[tuple[str, Any]]]
    benchmark: str | None = None
    metric: str | None = None
    cut: Any = None


def add_options(p: argparse.ArgumentParser, g: argparse._ArgumentGroup
                ) -> argparse._ArgumentGroup:
    """The options that choose the analysis, the same for compare and report: --baseline,
    --name and --benchmark in the input group `g`, and the analysis group (returned, for
    the command to add its own)."""
    a = common.add_comparison_options(p, g, names=True)
    suite_view.add_filter(g)
    a.add_argument("--df", dest="df_method", choices=["welch", "conservative", "pooled"],
                   default=None, help="degrees of freedom of Fieller's interval (default "
                   "welch; paired data always use n - 1)")
    a.add_argument("--bootstrap", nargs="?", type=int, const=DEFAULT_REPLICATES, default=None,
                   metavar="B", help="bootstrap CIs of the ratios of means and medians "
                   f"(B = {DEFAULT_REPLICATES}); a suite's geometric mean and --statistic "
                   "median use B replicates")
    a.add_argument("--statistic", choices=list(STATISTICS), default="mean",
                   help="the headline verdict's ratio: of means (Fieller's CI; default) or of "
                   f"medians (bootstrap percentile CI, B = --bootstrap or {DEFAULT_REPLICATES}; "
                   "a suite with --levels decides on Welch's t of the log top-level unit "
                   "medians)")
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
    warmup.add_cut_options(p)
    return a


def spec_of(args: argparse.Namespace) -> AnalysisSpec:
    """The analysis the options ask for, built and checked once before any work (the
    levels are the data's until read: None unless --levels names them)."""
    if args.bootstrap is not None and args.bootstrap < 100:
        raise UsageError(f"--bootstrap needs at least 100 replicates, not {args.bootstrap}")
    if args.bootstrap is not None:
        limits.check_replicates(args.bootstrap, "--bootstrap")
    confidence = common.confidence(args.confidence)
    paired = bool(args.paired or args.pair_by)
    if paired and args.df_method is not None:
        raise UsageError("--df does not apply to --paired: paired data use n - 1 degrees "
                         "of freedom")
    return AnalysisSpec(confidence=confidence, threshold=args.threshold,
                        df_method=args.df_method, statistic=args.statistic,
                        bootstrap=args.bootstrap, resample=args.resample, seed=args.seed,
                        adjust="none" if args.no_adjust else "holm", paired=paired,
                        pair_by=args.pair_by, tests=getattr(args, "tests", False),
                        diagnostics=not args.no_diagnostics,
                        metric=next(iter(common.metric_names(args)), None),
                        warmup=warmup.cut_of(args))


def analyse(args: argparse.Namespace, command: str = "compare",
            spec: AnalysisSpec | None = None, *, benchmark: str | None = None) -> Analysis:
    """`_analyse`'s analysis, with a note naming the caches Valgrind simulated when the
    metric is a cache metric of a store (data/simulated_caches.py)."""
    found = _analyse(args, command, spec, benchmark=benchmark)
    note = caches_note(args, found.metric)
    if not note:
        return found
    design = getattr(found.result, "design", None)
    if design is not None:  # a store by its design: beside the design's note
        return replace(found, result=replace(found.result, design=replace(
            design, notes=(*design.notes, note))))
    return replace(found, result=with_note(found.result, note, "caches"))


def caches_note(args: argparse.Namespace, metric: str | None) -> str | None:
    """The simulated caches of every store among the inputs whose `metric` is a cache
    metric, one note ("not recorded" for a store made before they were)."""
    from benchlab.data.store_design import is_store

    stores = [f for f in dict.fromkeys(args.files) if f != "-" and is_store(f)]
    if not stores:
        return None
    from benchlab.data.simulated_caches import note

    notes = [(f, note(f, metric)) for f in stores]
    found = [n if len(stores) == 1 else f"{f}: {n}" for f, n in notes if n]
    return "; ".join(found) or None


def caches_document(args: argparse.Namespace, metric: str | None) -> dict[str, Any] | None:
    """The JSON key `simulated_caches`: per store among the inputs whose `metric` is a cache
    metric, its configurations (data/simulated_caches.document; null: not recorded); None
    (no key) when there is none."""
    from benchlab.data.simulated_caches import document
    from benchlab.data.store_design import is_store

    found = {f: document(f, metric) for f in dict.fromkeys(args.files)
             if f != "-" and is_store(f)}
    return {f: d for f, d in found.items() if d is not False} or None


def _analyse(args: argparse.Namespace, command: str = "compare",
             spec: AnalysisSpec | None = None, *, benchmark: str | None = None) -> Analysis:
    """Read the inputs and compare them as the options say (docs/compare.md): a store
    alone by its design, a suite with --benchmark, the hierarchy with --levels, else the
    samples (paired with --paired). `spec`: the options' analysis when already built
    (spec_of); its `metric` is the metric read (None: the input's default; cli/metrics.py
    runs one analysis per metric, each with its own spec). `benchmark`: this benchmark
    column instead of --benchmark and the inputs' own. `command` names the command in
    errors. The result's spec names the metric that was read."""
    from benchlab.data.samples import align_pairs, pick_baseline, rename, unify_units

    spec = spec if spec is not None else spec_of(args)
    if store_alone(args):  # a store alone: its design is the default
        if spec.statistic.resamples:
            raise UsageError("--statistic median needs the analysis named (a store's default "
                             "design analysis uses the means): add e.g. --by alternative")
        return _store(args, spec, command)
    inputs = common.load(args, metric=spec.metric, command=command)
    samples = rename(inputs.samples, args.name)
    benchmark = benchmark or args.benchmark or inputs.benchmark  # a suite's files: by bench
    names = [] if spec.paired and args.levels is None else common.resolved_levels(
        args, samples)
    if len(samples) < 2:
        raise UsageError(f"{command} needs at least two samples (two files, or --by with a "
                         "column that has two or more groups)")
    filter_note = None
    if args.filter is not None:  # before the analysis: the family is what is kept
        if not benchmark:
            raise UsageError(f"--filter {suite_view.NOT_A_SUITE}")
        samples, filter_note = suite_view.keep(samples, benchmark, args.filter)
        if len(samples) < 2:
            raise UsageError(f"{command} needs at least two samples: the benchmarks --filter "
                             f"keeps are measured in {samples[0].name} alone")
    metric = samples[0].dataset.metric
    spec = replace(spec, metric=metric)
    samples, unit, unit_note = unify_units(samples, args.unit, args.higher_is_better)
    cut = None
    if spec.warmup is not None:  # each execution from its steady state on
        cut = warmup.cut(spec.warmup, samples, names, bool(unit.higher_is_better),
                         within=(benchmark,) if benchmark else ())
        samples = list(cut.samples)
    baseline = pick_baseline(samples, args.baseline)
    if spec.resamples:  # B times the data
        limits.check_resampled(spec.headline_replicates, sum(len(s.values) for s in samples),
                               "--bootstrap")
    spec = with_levels(spec, names)
    if benchmark:
        result, per_bench = _suite(samples, baseline, names, spec, unit, benchmark,
                                   from_inputs=not args.benchmark)
        result = with_cut(with_note(with_note(result, filter_note, "filter"), unit_note), cut)
        return Analysis(result, per_bench, benchmark, metric, cut)
    if spec.resample is not None and spec.bootstrap is None:
        raise UsageError("--resample says how --bootstrap resamples: add --bootstrap")
    if spec.adjust == "none":
        raise UsageError("--no-adjust applies to suites (--benchmark): one comparison has "
                         "nothing to adjust for")
    if names:
        from benchlab.stats.compare import compare_hierarchical

        if spec.paired:
            raise UsageError("--paired does not combine with --levels")
        data = [(s.name, s.values, common.level_arrays(s, names)) for s in samples]
        with common.naming_files(samples):
            result = compare_hierarchical(data, names, spec, baseline=baseline, unit=unit,
                                          ordered=[s.dataset.ordered for s in samples])
        named = [(s.name, s.values) for s in samples]
        return Analysis(with_cut(with_note(result, unit_note), cut), {None: named}, None,
                        metric, cut)
    from benchlab.stats.compare import compare_samples

    if spec.pair_by:
        samples = align_pairs(samples, spec.pair_by, baseline)
    named = [(s.name, s.values) for s in samples]
    result = compare_samples(named, spec, baseline=baseline, unit=unit)
    return Analysis(with_cut(with_note(result, unit_note), cut), {None: named}, None, metric,
                    cut)


STORE_FLAGS = ("by", "benchmark", "levels", "paired", "pair_by")  # each names an analysis


def store_alone(args: argparse.Namespace) -> bool:
    """A single store and no flag that says how to analyse it: its design decides
    (data/store_design.py)."""
    from benchlab.data.store_design import is_store

    files = list(args.files)
    if len(files) != 1 or files[0] == "-" or args.input_format not in (None, "store"):
        return False
    if any(getattr(args, flag, None) for flag in STORE_FLAGS):
        return False
    return is_store(files[0])


def _store(args: argparse.Namespace, spec: AnalysisSpec, command: str) -> Analysis:
    """The store's default analysis (data/store_design.default_analysis) on its samples
    by alternative, against the experiment's baseline unless --baseline names one."""
    from benchlab.data import store_design
    from benchlab.data.samples import pick_baseline, rename, unify_units

    info = store_design.store_info(args.files[0])
    samples = rename(common.load(args, by=store_design.BY, metric=spec.metric,
                                 command=command).samples, args.name)
    spec = replace(spec, metric=samples[0].dataset.metric)
    filter_note = None
    if args.filter is not None:  # before the analysis: the family is what is kept
        column = store_design.benchmark_column(info)
        if column is None:
            raise UsageError(f"--filter {suite_view.NOT_A_SUITE}: this store has no factors")
        samples, filter_note = suite_view.keep(samples, column, args.filter)
    if len(samples) < 2:
        raise UsageError(f"{command} needs at least two samples: this store has one "
                         f"alternative ({samples[0].name}); compare its factor levels with "
                         f"--by {info.factors[0] if info.factors else 'case'}")
    chosen = args.baseline
    if chosen is None and info.baseline in {s.name for s in samples}:
        chosen = info.baseline
    samples, unit, unit_note = unify_units(samples, args.unit, args.higher_is_better)
    cut = None
    if spec.warmup is not None:  # each execution (trial) from its steady state on
        cut = warmup.cut(spec.warmup, samples, list(store_design.recorded_levels(samples)),
                         bool(unit.higher_is_better))
        samples = list(cut.samples)
    baseline = pick_baseline(samples, chosen)
    if spec.bootstrap is not None:
        limits.check_resampled(spec.bootstrap, sum(len(s.values) for s in samples),
                               "--bootstrap")
    if spec.resample is not None:  # the hierarchy's bootstrap: its levels, and a B
        with_levels(spec, list(samples[0].dataset.levels))
        if spec.bootstrap is None:
            raise UsageError("--resample says how --bootstrap resamples: add --bootstrap")
    with common.naming_files(samples):
        found = store_design.analyse(samples, unit, baseline, info, spec)
    result = with_cut(with_note(with_note(found.result, filter_note, "filter"), unit_note), cut)
    return Analysis(result, found.samples, found.benchmark, samples[0].dataset.metric, cut)


def with_levels(spec: AnalysisSpec, names: list[str]) -> AnalysisSpec:
    """The spec with the levels the data has: --resample checked against them (R/N per
    level, or flat) and refused without levels."""
    if spec.resample is not None and not names:
        raise UsageError("--resample needs --levels (the hierarchy it resamples)")
    return replace(spec, levels=tuple(names))


def _suite(samples, baseline: int, names: list[str], spec: AnalysisSpec, unit,
           benchmark: str, from_inputs: bool):
    """The suite comparison (--benchmark, or the inputs' benchmarks) and each benchmark's
    samples."""
    from benchlab.stats.suite import compare_suite

    if spec.paired:
        if from_inputs:  # the user gave no --benchmark
            raise UsageError("--paired does not combine with inputs of several benchmarks "
                             "(a suite, compared benchmark by benchmark without pairing)")
        raise UsageError("--paired does not combine with --benchmark")
    data: dict = {}
    per_bench: dict = {}
    for s in samples:
        if benchmark not in s.dataset.columns:
            raise UsageError(f"no column {benchmark!r} for --benchmark", s.dataset.source)
        levels = common.level_arrays(s, names) if names else []
        for bench, part in s.dataset.split(benchmark):
            mask = s.dataset.columns[benchmark] == bench
            data.setdefault(bench, []).append((s.name, part.values, [lv[mask] for lv in levels]))
            per_bench.setdefault(bench, []).append((s.name, part.values))
    with common.naming_files(samples):
        result = compare_suite(data, names, spec, baseline=samples[baseline].name, unit=unit,
                               ordered={s.name: s.dataset.ordered for s in samples})
    return result, per_bench


def with_cut(result, cut):
    """The result with --warmup auto's notes (how much of each sample was cut), after its
    other notes."""
    if cut is None:
        return result
    for note in reversed(cut.notes):
        result = with_note(result, note, "warmup")
    return result


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

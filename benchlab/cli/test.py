"""`benchlab test`: the Speedup-Test protocols on two samples, or Kruskal–Wallis on k samples."""

from __future__ import annotations

import argparse

from benchlab import limits
from benchlab.cli import common, output_options, unit_level
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab test old.txt new.txt --protocol speedup-mean --unit s
  benchlab test runs.csv --value time --by treatment --protocol kruskal
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "test", help="hypothesis-test protocols: Speedup-Test, Kruskal-Wallis",
        description="Speedup-Test protocols (Touati et al. 2013): is the candidate faster than\n"
                    "the baseline in the mean (Shapiro-Wilk, F-test, Student/Welch t) or the\n"
                    "median (Kolmogorov-Smirnov, Wilcoxon-Mann-Whitney)? They refuse when a\n"
                    "check fails on 30 or fewer observations. Kruskal-Wallis compares k\n"
                    "samples, with Holm-adjusted pairwise Mann-Whitney or Dunn tests.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_table_input(p)
    p.add_argument("--protocol", choices=("speedup-mean", "speedup-median", "kruskal"),
                   default=None, help="default: speedup-mean for two samples, kruskal for more")
    p.add_argument("--posthoc", choices=("mann-whitney", "dunn"), default=None,
                   help="kruskal's pairwise tests: Mann-Whitney on each pair (default) or "
                   "Dunn's z on the pooled mean ranks; Holm-adjusted either way")
    p.add_argument("--baseline", help="the baseline sample of the Speedup-Test (default: the "
                   "first); every other sample is tested against it")
    p.add_argument("--benchmark", metavar="COLUMN", help="column naming the benchmark of a "
                   "suite: the Speedup-Test per benchmark, the time-weighted gain and the "
                   "proportion of benchmarks improved (default for files of a benchmark format "
                   "holding several benchmarks)")
    p.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level 1 - alpha (default 95)")
    unit_level.add_options(p, levels=False)
    output_options.add(p)
    p.set_defaults(run=noting(run))


def _per_benchmark(base, cand, column: str) -> list:
    """(benchmark, baseline values, candidate values) for every benchmark of the baseline."""
    from benchlab.errors import InputError, UsageError

    for s in (base, cand):
        if column not in s.dataset.columns:
            raise UsageError(f"no column {column!r} for --benchmark", s.dataset.source)
    theirs = dict(cand.dataset.split(column))
    out = []
    for bench, part in base.dataset.split(column):
        if bench not in theirs:
            raise InputError(f"benchmark {bench!r} of {base.name} is missing from {cand.name}",
                             cand.dataset.source)
        out.append((bench, part.values, theirs[bench].values))
    extra = sorted(set(theirs) - {b for b, _, _ in out})
    if extra:
        raise InputError(f"benchmark {extra[0]!r} of {cand.name} is missing from {base.name}",
                         base.dataset.source)
    return out


def run(args: argparse.Namespace) -> int:
    from benchlab import progress

    with progress.showing(args.format != "json"):  # a bar on stderr for long work, not in JSON
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from benchlab.data.samples import pick_baseline, unify_units
    from benchlab.errors import UsageError
    from benchlab.stats.descriptive import describe
    from benchlab.stats.protocols import kruskal_test, speedup_suite, speedup_test

    alpha = round(1.0 - common.confidence(args.confidence), 12)
    inputs = common.load(args)
    samples = inputs.samples
    benchmark = args.benchmark or inputs.benchmark
    if len(samples) < 2:
        raise UsageError("a test needs two or more samples (two files, or --by a column with "
                         "two or more groups)")
    output_options.check(args, args.files)
    samples, unit, note = unify_units(samples, args.unit, args.higher_is_better)
    protocol = args.protocol or ("speedup-mean" if len(samples) == 2 else "kruskal")
    k = len(samples)  # refused before the work: one test (and a line) per pair or candidate
    limits.check_pairs(k, k * (k - 1) // 2 if protocol == "kruskal" else k - 1,
                       "kruskal's post hoc pairs" if protocol == "kruskal"
                       else f"{protocol} against the baseline")
    samples, level, warnings, notes = _units(args, samples, benchmark)
    if args.posthoc is not None and protocol != "kruskal":
        raise UsageError("--posthoc chooses kruskal's pairwise tests; it does not apply to "
                         f"{protocol}")
    if protocol == "kruskal" and benchmark is not None:
        raise UsageError("kruskal compares samples of one benchmark; the files hold several "
                         "(use a Speedup-Test protocol, or one benchmark at a time)")
    if protocol == "kruskal":
        if args.baseline is not None:
            raise UsageError("--baseline belongs to the Speedup-Test protocols, not kruskal")
        try:
            result = kruskal_test([(s.name, s.values) for s in samples], alpha=alpha,
                                  posthoc=args.posthoc or "mann-whitney")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    elif benchmark is not None:
        b = pick_baseline(samples, args.baseline)
        result = [speedup_suite(_per_benchmark(samples[b], s, benchmark), protocol=protocol,
                                alpha=alpha, names=(samples[b].name, s.name),
                                higher_is_better=bool(unit.higher_is_better), unit=unit)
                  for i, s in enumerate(samples) if i != b]
    else:
        b = pick_baseline(samples, args.baseline)
        result = [speedup_test(samples[b].values, s.values, protocol=protocol, alpha=alpha,
                               names=(samples[b].name, s.name),
                               higher_is_better=bool(unit.higher_is_better), unit=unit)
                  for i, s in enumerate(samples) if i != b]
        if len(result) > 1:
            warnings.append(f"{len(result)} candidates are each tested against "
                            f"{samples[b].name} at level {alpha:g}, without a correction "
                            "for multiple comparisons")
    from benchlab.stats.protocols import TestReport

    report = TestReport(protocol, alpha, unit, result, tuple(warnings),
                        ((note,) if note else ()) + tuple(notes),
                        tuple(describe(s.values, s.name) for s in samples), level)
    ctx = output_options.context(args, "test", args.files,
                                 samples=[(s.name, s.values) for s in samples])
    output_options.emit(args, report, ctx, args.files)
    return 0


def _units(args: argparse.Namespace, samples, benchmark: str | None):
    """The samples to test — unit means of the chosen level when the data have levels
    (cli/unit_level.py) — the level (None without levels), warnings and notes."""
    from benchlab.errors import UsageError

    levels = common.resolved_levels(args, samples)
    if not levels:
        if args.unit_level not in (None, "measurement"):
            raise UsageError(f"--unit-level {args.unit_level} needs levels (a store, a "
                             "format that records them, or --levels)")
        return samples, None, [], []
    for s in samples:
        common.level_arrays(s, levels)  # a missing level column: a one-line error
    level = unit_level.chosen(args, levels)
    keys = [benchmark] if benchmark else []
    if "case" in samples[0].dataset.factors and benchmark != "case":
        keys.append("case")  # a store's cell: build 1 of one cell is not build 1 of another
    n = sum(len(s.values) for s in samples)
    if level == "measurement":
        first = samples[0].dataset
        return samples, level, [unit_level.measurement_warning(
            levels, first.columns, keys, len(first))], []
    from benchlab.data.units import sample_units

    out = [sample_units(s, levels, level, keys) for s in samples]
    counts = sorted({len(s.values) for s in out})
    each = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    note = (f"tested the {level} means ({each} per sample), not the {n} measurements: "
            f"{unit_level.below(level, levels)} are not independent replicates "
            "(--unit-level chooses another level)")
    return out, level, [], [note]

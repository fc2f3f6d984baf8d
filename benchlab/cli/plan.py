"""`benchlab plan`: optimal repetitions per level from a pilot experiment (STATS.md §6)."""

from __future__ import annotations

import argparse

from benchlab.cli import common, output_options, plan_power, warmup
from benchlab.errors import UsageError
from benchlab.warnings_capture import noting

EXAMPLE = """examples:
  benchlab plan pilot.csv --levels build,run --cost build=20m --cost run=6s --budget 6h
  benchlab plan pilot.csv --levels build,run --cost build=20m --cost run=6s --target 1%
  benchlab plan pilot.csv --levels build,run --power --effect 0 --effect 3% \\
      --reps build=10,run=10,measurement=100 --seed 1
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "plan", help="optimal repetitions per level for a budget or a target CI width",
        description="From a pilot experiment's variance components and the cost of each "
                    "level, the repetitions per level that give the narrowest CI for the "
                    "budget (or the cheapest plan for a target half-width), beside the "
                    "single-level default of one measurement per top-level unit.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    common.add_table_input(p)
    common.add_benchmark_option(p, "one plan")
    p.add_argument("--cost", action="append", default=[], metavar="LEVEL=DURATION",
                   help="time one unit of LEVEL adds, excluding the levels below (e.g. "
                   "build=20m); the measurement's cost defaults to its mean for time units")
    goal = p.add_mutually_exclusive_group()  # one is required unless --power --reps
    goal.add_argument("--budget", type=common.duration_type, help="time budget, e.g. 6h")
    goal.add_argument("--target", type=common.percent_type("target"),
                      help="target CI half-width relative to the mean, e.g. 1%%")
    p.add_argument("-c", dest="confidence", default=None, metavar="LEVEL",
                   help="confidence level (default 95)")
    plan_power.add_options(p)
    warmup.add_cut_options(p)
    output_options.add(p)
    p.set_defaults(run=noting(run))


def _costs(args: argparse.Namespace, level_names: list[str], unit, mean: float) -> list[float]:
    given: dict[str, float] = {}
    for item in args.cost:
        name, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"--cost wants LEVEL=DURATION, got {item!r}")
        given[name.strip()] = common.duration(value)
    names = [*level_names, "measurement"]
    unknown = set(given) - set(names)
    if unknown:
        raise UsageError(f"--cost names no level: {', '.join(sorted(unknown))} "
                         f"(levels: {', '.join(names)})")
    if "measurement" not in given:
        if not unit.is_time:
            raise UsageError("say what one measurement costs with --cost measurement=DURATION "
                             "(its mean is used only when the values are times: --unit s)")
        given["measurement"] = unit.format_seconds(mean)
    missing = [n for n in names if n not in given]
    if missing:
        raise UsageError(f"--cost is missing for level {missing[0]!r} (e.g. --cost "
                         f"{missing[0]}=10s)")
    if any(given[n] <= 0 for n in names):
        raise UsageError("every --cost must be positive")
    return [given[n] for n in names]


def run(args: argparse.Namespace) -> int:
    from benchlab.data.samples import unify_units
    from benchlab.stats.hierarchy import plan_experiment, summarize
    from benchlab.stats.summary import PlanGroup, PlanReport

    plan_power.check(args)
    confidence = common.confidence(args.confidence)
    cut_spec = warmup.cut_of(args)
    output_options.check(args, args.files)
    pairs, samples, level_names = common.levelled_samples(args)
    if not level_names:
        raise UsageError("plan needs --levels (the hierarchy's level columns, highest first)")
    if args.target is not None and args.target <= 0:
        raise UsageError("--target must be above 0% (no finite experiment gives a CI of "
                         "width 0)")
    samples, unit, note = unify_units(samples, args.unit, args.higher_is_better)
    notes = (note,) if note else ()
    cut = None
    if cut_spec is not None:  # the pilot's executions from their steady states on
        cut = warmup.cut(cut_spec, samples, level_names, bool(unit.higher_is_better))
        samples, notes = list(cut.samples), notes + cut.notes
    if args.power:
        return plan_power.run(args, pairs, samples, level_names, unit, notes,
                              confidence, lambda h: _costs(args, level_names, unit,
                                                           h.grand_mean), cut)
    groups = []
    for (bench, _), s in zip(pairs, samples, strict=True):
        with common.naming_files(samples):
            h = summarize(s.values, common.level_arrays(s, level_names), level_names,
                          name=s.name, confidence=confidence)
        costs = _costs(args, level_names, unit, h.grand_mean)
        plan = plan_experiment(h, costs, budget=args.budget, target=args.target,
                               confidence=confidence)
        groups.append(PlanGroup(bench, h, plan))
    result = PlanReport(unit, tuple(level_names), tuple(groups), notes)
    output_options.emit(args, result, output_options.context(args, "plan", args.files,
                                                             warmup_cut=cut), args.files)
    return 0

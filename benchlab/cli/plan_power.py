"""`benchlab plan --power`: the power of a design by simulation (stats/power.py).

The design is `--reps LEVEL=N,...`, or the plan's optimum for `--budget` /
`--target`; the variance components come from the pilot. Kept beside
cli/plan.py, which adds these options and hands over when `--power` is given.
"""

from __future__ import annotations

import argparse
import math

from benchlab.cli import common
from benchlab.errors import UsageError

POWER_OPTIONS = ("effect", "reps", "simulations", "seed", "threshold")


def add_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("power (--power)")
    g.add_argument("--power", action="store_true",
                   help="simulate experiments of the design (--reps, or the plan's optimum) "
                   "and report how likely each verdict is for each --effect")
    g.add_argument("--effect", action="append", default=[], metavar="PERCENT",
                   help="a true change of the candidate's mean to simulate: 3%%, 0.03, "
                   "--effect=-5%% (repeat it, or 3%%,5%%); 0 gives the false-alarm rate")
    g.add_argument("--reps", metavar="LEVEL=N,...",
                   help="the design: top-level units, then units per parent of every level, "
                   "e.g. build=5,run=10,measurement=20 (default: the plan's optimum for "
                   "--budget or --target)")
    g.add_argument("--simulations", type=int, default=None, metavar="N",
                   help="simulated experiments per effect (default 1000)")
    g.add_argument("--seed", type=int, default=None,
                   help="random seed (default: drawn, and reported)")
    g.add_argument("--threshold", type=common.percent_type("threshold"), default=None,
                   help="threshold of the verdicts, as in compare (default 0%%)")


def check(args: argparse.Namespace) -> None:
    """Options of --power without it, and --power without an effect, as one-line errors;
    a design from --reps and from --budget/--target at once; neither."""
    if not args.power:
        given = [f"--{name}" for name in POWER_OPTIONS
                 if getattr(args, name) not in (None, [])]
        if given:
            raise UsageError(f"{given[0]} applies only with --power")
        if args.budget is None and args.target is None:
            raise UsageError("one of the arguments --budget --target is required (see "
                             "benchlab plan --help)")
        return
    if not args.effect:
        raise UsageError("--power needs at least one --effect (e.g. --effect 3%; "
                         "--effect 0 gives the false-alarm rate)")
    if args.reps is not None and (args.budget is not None or args.target is not None):
        raise UsageError("--reps and --budget/--target both choose the design: give one")
    if args.reps is None and args.budget is None and args.target is None:
        raise UsageError("--power needs the design: --reps LEVEL=N,... or --budget/--target "
                         "(the plan's optimum)")
    if args.simulations is not None and not 10 <= args.simulations <= 10**7:
        raise UsageError(f"--simulations must be between 10 and 10000000, got "
                         f"{args.simulations}")


def effects(items: list[str]) -> list[float]:
    """'3%', '0.03', '-5%', '3%,5%' → fractions, in order, each once; ≤ −100% refused."""
    out: list[float] = []
    for item in items:
        for text in (t.strip() for t in item.split(",")):
            try:
                value = float(text[:-1]) / 100.0 if text.endswith("%") else float(text)
            except ValueError:
                raise UsageError(f"--effect: not an effect: {text!r} (say 3%, -5% or "
                                 "0.03)") from None
            if not math.isfinite(value):
                raise UsageError(f"--effect must be a finite change: {text!r}")
            if value <= -1.0:
                raise UsageError(f"--effect must be above -100% (a mean cannot fall by all "
                                 f"of itself or more): {text!r}")
            if value not in out:
                out.append(value)
    return out


def repetitions(text: str, names: list[str]) -> list[int]:
    """'build=5,run=10,measurement=20' → [5, 10, 20] in level order; every level needed."""
    given: dict[str, int] = {}
    for item in (t.strip() for t in text.split(",") if t.strip()):
        name, sep, value = item.partition("=")
        try:
            count = int(value)
        except ValueError:
            count = None
        if not sep or count is None:
            raise UsageError(f"--reps wants LEVEL=N,..., got {item!r}")
        given[name.strip()] = count
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise UsageError(f"--reps names no level: {', '.join(unknown)} (levels: "
                         f"{', '.join(names)})")
    missing = [n for n in names if n not in given]
    if missing:
        raise UsageError(f"--reps is missing level {missing[0]!r} (give every level: "
                         f"{','.join(f'{n}=N' for n in names)})")
    bad = [n for n in names if given[n] < 1]
    if bad:
        raise UsageError(f"--reps {bad[0]}={given[bad[0]]}: every level needs at least 1 "
                         "repetition (a design with 0 measures nothing)")
    if given[names[0]] < 2:
        raise UsageError(f"--reps {names[0]}={given[names[0]]}: at least 2 {names[0]} units "
                         "are needed for a CI")
    return [given[n] for n in names]


def run(args: argparse.Namespace, pairs, samples, level_names: list[str], unit, notes,
        confidence: float, costs_of, cut=None) -> int:
    """Simulate each group's design and emit the PowerReport. `costs_of(h)` gives the costs
    of a group from its pilot summary (cli/plan.py's --cost parsing); `cut`: what --warmup
    auto cut (its JSON's warmup_cut)."""
    import numpy as np

    from benchlab.cli import output_options
    from benchlab.stats.hierarchy import plan_experiment, summarize
    from benchlab.stats.power import PowerReport, power_analysis, relative_components

    wanted = effects(args.effect)
    names = [*level_names, "measurement"]
    given = repetitions(args.reps, names) if args.reps is not None else None
    seed = args.seed if args.seed is not None else int(
        np.random.SeedSequence().entropy % 2**32)
    groups = []
    for (bench, _), s in zip(pairs, samples, strict=True):
        with common.naming_files(samples):
            h = summarize(s.values, common.level_arrays(s, level_names), level_names,
                          name=s.name, confidence=confidence)
        costs = costs_of(h) if (given is None or args.cost) else []
        plan_notes: tuple[str, ...] = ()
        if given is None:
            plan = plan_experiment(h, costs, budget=args.budget, target=args.target,
                                   confidence=confidence)
            reps, plan_notes = list(plan.optimal.repetitions), plan.notes
            if reps[0] < 2:
                raise UsageError(f"{s.name}: the budget pays for only {reps[0]} "
                                 f"{names[0]} unit of the optimal plan; power needs at "
                                 "least 2 (raise --budget, or give --reps)")
        else:
            reps = given
        groups.append(power_analysis(
            relative_components(h), reps, wanted, levels=names, name=h.name,
            benchmark=bench, design_from="reps" if given is not None else
            ("budget" if args.budget is not None else "target"), costs=costs,
            threshold=args.threshold or 0.0, confidence=confidence,
            simulations=args.simulations or 1000, seed=seed, notes=plan_notes))
    result = PowerReport(unit, tuple(level_names), tuple(groups), notes)
    output_options.emit(args, result, output_options.context(args, "plan", args.files,
                                                             warmup_cut=cut), args.files)
    return 0

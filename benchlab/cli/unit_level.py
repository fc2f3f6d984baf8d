"""`--unit-level` of `anova` and `test`: analyse unit means, not pseudo-replicates.

On data with levels (a store, or `--levels`) the iterations of one execution
are not independent replicates of their cell (STATS.md §5; data/units.py). By
default the commands analyse the top-level unit means — build means, or
execution means when there is no build level — and say so;
`--unit-level execution|build` chooses a level, `measurement` keeps every value
(the old behaviour) with a warning.
"""

from __future__ import annotations

import argparse


def add_options(p: argparse.ArgumentParser, *, levels: bool) -> None:
    """--unit-level (and --levels for a command whose input group lacks it)."""
    if levels:
        p.add_argument("--levels", help="level columns of the hierarchy, highest first, e.g. "
                       "build,run (default: a store's builds and executions); none: no "
                       "hierarchy")
    p.add_argument("--unit-level", choices=("execution", "build", "measurement"),
                   default=None, help="analyse the means of these units (default: the top "
                   "level's, builds or else executions); measurement: every value, as if "
                   "independent (too narrow CIs: warned)")


def data_levels(args: argparse.Namespace, columns, source_is_store: bool,
                declared: tuple[str, ...] = ()) -> list[str]:
    """--levels, else a store's levels (or those the format declares); `none`: no levels."""
    from benchlab.cli.common import levels as parse_levels
    from benchlab.errors import UsageError

    if args.levels is not None:
        names = [] if args.levels.strip().lower() == "none" else parse_levels(args.levels)
        missing = [n for n in names if n not in columns]
        if missing:
            raise UsageError(f"no level column {missing[0]!r} for --levels")
        return names
    if declared:
        return list(declared)
    if source_is_store:
        from benchlab.data.readers.store import levels_of

        return list(levels_of(columns))
    return []


def measurement_warning(levels: list[str], columns, keys: list[str], n: int) -> str:
    """What analysing every measurement hides: how many units they come from."""
    import numpy as np

    units = unit_means({**columns, "_v": np.zeros(n)}, "_v", keys, levels, levels[-1])
    top = unit_means({**columns, "_v": np.zeros(n)}, "_v", keys, levels, levels[0])
    return (f"--unit-level measurement: the {n} measurements are treated as independent "
            f"replicates, but they come from {units.values.size} {levels[-1]}s"
            + (f" in {top.values.size} {levels[0]}s" if len(levels) > 1 else "")
            + ": the CIs and p-values are too narrow")


def below(level: str, levels: list[str]) -> str:
    """'the iterations of one execution', 'the executions and iterations of one build'."""
    under = [*levels[levels.index(level) + 1:], "measurement"]
    words = {"execution": "executions", "measurement": "iterations"}
    named = [words.get(u, f"{u}s") for u in under]
    return f"the {' and '.join(named)} of one {level}"


def chosen(args: argparse.Namespace, levels: list[str]) -> str:
    """The level whose unit means are analysed ("measurement": every value)."""
    from benchlab.data.units import resolve_level

    return resolve_level(args.unit_level, levels)


def unit_means(*args, **kwargs):
    """data.units.unit_means, imported when used (numpy stays out of `--help`)."""
    from benchlab.data.units import unit_means as means

    return means(*args, **kwargs)

"""Input options shared by the factorial commands (`anova`, `qreg`): file, response, factors."""

from __future__ import annotations

import argparse

from benchlab.cli.option_types import text as utf8
from benchlab.errors import UsageError


def add_factor_table_input(p: argparse.ArgumentParser) -> None:
    """The data file, --response, --factors and --level-order."""
    p.add_argument("file", help="a table in long format (CSV/TSV, or a benchlab store); "
                                "- reads standard input")
    p.add_argument("--response", required=True, metavar="COL",
                   help="the numeric column to analyze (e.g. time, latency)")
    p.add_argument("--factors", required=True, metavar="A,B,...",
                   help="the factor columns, comma-separated")
    p.add_argument("--level-order", action="append", default=[], metavar="FACTOR=L1,L2",
                   help="the order of a factor's levels (the first is coded -1); default: "
                        "numeric order for numbers, else alphabetical")
    p.add_argument("--interactions", type=int, default=None, metavar="K",
                   help="interactions of up to K factors (default: all)")
    p.add_argument("--input-format", default=None, metavar="FORMAT",
                   help="the input format (default: recognized from the content)")
    p.add_argument("--unit", default=None, type=utf8, help="the unit of the response (e.g. ms, s)")
    p.add_argument("--metric", default=None, metavar="NAME",
                   help="the metric to analyse: of a store (wall, user, maxrss, ...; its "
                        "response column is value), or the rows of a table's metric column")


def factor_names(text: str) -> list[str]:
    """'a, b,c' → ['a', 'b', 'c'], refusing empty names."""
    names = [n.strip() for n in text.split(",")]
    if not names or any(not n for n in names):
        raise UsageError(f"--factors: an empty factor name in {text!r}")
    return names


def level_orders(items: list[str]) -> dict[str, list[str]]:
    """['sched=CFS,BFS'] → {'sched': ['CFS', 'BFS']}."""
    out: dict[str, list[str]] = {}
    for item in items:
        name, sep, levels = item.partition("=")
        if not sep or not name.strip() or not levels.strip():
            raise UsageError(f"--level-order wants FACTOR=L1,L2,...: {item!r}")
        out[name.strip()] = [level.strip() for level in levels.split(",")]
    return out


def interactions(value: int | None, k: int) -> int:
    """The interaction order: None → all k; refuse values below 1."""
    if value is None:
        return k
    if value < 1:
        raise UsageError(f"--interactions must be 1 or more, not {value}")
    return min(value, k)


def load(args: argparse.Namespace):
    """Read the FactorTable the arguments describe."""
    from benchlab.cli.common import one_metric
    from benchlab.data.factor_table import load_factor_table

    return load_factor_table(args.file, args.response, factor_names(args.factors),
                             format=args.input_format,
                             level_order=level_orders(args.level_order), unit=args.unit,
                             metric=one_metric(args, args.command))

"""A suite's benchmarks chosen and shown: `--filter REGEX`, `--sort`, `--compact`.

`--filter` chooses what is analysed: the benchmarks whose name the expression
finds (re.search) are kept before the analysis, so Holm's family, the geometric
mean and every format cover those alone. Filtering after the decisions would
keep verdicts adjusted for benchmarks no longer shown; filtering first makes the
table say exactly what was decided (docs/compare.md, "Filtering, sorting and the
compact view"). `--sort` and `--compact` only show: the first orders the
benchmarks in every format (stats/suite_order.py), the second lays the text and
Markdown tables out one short line per benchmark (report/compare/suite.py).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from benchlab.cli import option_types
from benchlab.errors import UsageError
from benchlab.stats.suite_order import SORTS

COMPACT_FORMATS = ("text", "markdown")
NOT_A_SUITE = ("applies to suites (several benchmarks: --benchmark COLUMN, or inputs that "
               "name their benchmarks)")


def add_filter(g: argparse._ArgumentGroup) -> None:
    """--filter, in the input group of compare and report (both analyse what it keeps)."""
    g.add_argument("--filter", metavar="REGEX", type=option_types.regex,
                   help="suites: only the benchmarks whose name REGEX finds (Python re.search; "
                        "anchor with ^ and $); chosen before the analysis, so the family-wise "
                        "(Holm) decisions and the geometric mean are over these alone")


def add_view(o: argparse._ArgumentGroup) -> None:
    """--sort and --compact, in compare's output group."""
    o.add_argument("--sort", choices=SORTS,
                   help="suites: order the benchmarks by change (largest regression first), "
                        "name, or p (the verdict's p-value, smallest first); every format")
    o.add_argument("--compact", action="store_true",
                   help="suites: one line per benchmark (each system's centre ± spread, the "
                        "change, a verdict symbol), in text and Markdown")


def check_view(args: argparse.Namespace) -> None:
    """Refuse --compact with a format it does not shape (before any work)."""
    if args.compact and args.format not in COMPACT_FORMATS:
        raise UsageError(f"--compact lays out the text and Markdown tables; --format "
                         f"{args.format} keeps every column")


def keep(samples: list, column: str, pattern: Any) -> tuple[list, str]:
    """The samples with only the rows of the benchmarks (values of `column`) that `pattern`
    finds, samples left empty dropped, and a note saying what was kept. A pattern that
    finds none is a usage error naming some of the benchmarks."""
    import numpy as np

    names: dict[str, bool] = {}
    kept = []
    for s in samples:
        if column not in s.dataset.columns:
            raise UsageError(f"no column {column!r} for --benchmark", s.dataset.source)
        values = s.dataset.columns[column]
        uniques, inverse = np.unique(np.asarray(values, dtype=str), return_inverse=True)
        found = np.array([names.setdefault(str(u), bool(pattern.search(str(u))))
                          for u in uniques], dtype=bool)
        mask = found[inverse.ravel()] if uniques.size else np.zeros(0, dtype=bool)
        if mask.any():
            kept.append(replace(s, values=s.values[mask], dataset=_rows(s.dataset, mask)))
    chosen = [n for n, ok in names.items() if ok]
    if not chosen:
        listed = sorted(names)
        shown = ", ".join(listed[:5]) + (", ..." if len(listed) > 5 else "")
        raise UsageError(f"--filter {pattern.pattern!r} matches none of the {len(listed)} "
                         f"benchmarks ({shown})")
    note = (f"--filter {pattern.pattern!r} kept {len(chosen)} of {len(names)} benchmarks; "
            "the decisions and the geometric mean are over these")
    return kept, note


def _rows(dataset, mask):
    """The dataset with the rows `mask` keeps (their source lines with them)."""
    return replace(dataset, columns={k: v[mask] for k, v in dataset.columns.items()},
                   lines=None if dataset.lines is None else dataset.lines[mask])


def suites_of(result: Any) -> list:
    """The suite results inside `result` (itself, or each metric's), [] when none."""
    from benchlab.stats.suite import SuiteResult

    if isinstance(result, SuiteResult):
        return [result]
    inner = getattr(result, "results", None)  # PerMetric: (metric, result) pairs
    if isinstance(inner, tuple):
        return [r for _, r in inner if isinstance(r, SuiteResult)]
    return []


def apply_sort(result: Any, by: str | None) -> Any:
    """`result` with every suite in it ordered `by` (unchanged without --sort)."""
    if by is None:
        return result
    from benchlab.stats.suite import SuiteResult
    from benchlab.stats.suite_order import sort_suite

    if isinstance(result, SuiteResult):
        return sort_suite(result, by)
    inner = getattr(result, "results", None)
    if isinstance(inner, tuple):
        return replace(result, results=tuple(
            (m, sort_suite(r, by) if isinstance(r, SuiteResult) else r) for m, r in inner))
    return result


def check_suite(result: Any, args: argparse.Namespace) -> None:
    """--sort and --compact need a suite to act on (after the analysis: only the data say
    whether the inputs are one)."""
    if suites_of(result):
        return
    for flag, given in (("--sort", args.sort), ("--compact", args.compact)):
        if given:
            raise UsageError(f"{flag} {NOT_A_SUITE}")

"""The benchmarks of a suite in another order: by change, name or p-value.

Order is presentation, not analysis: the decisions do not depend on it (Holm's
procedure sorts the p-values itself), so a sorted suite is the same result with
its benchmarks, Holm rows and decisions listed in the new order, and every
format follows it. Benchmarks the key cannot place (no ratio, no p-value) come
last, in their first order.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a module --help imports (for SORTS): the suite's statistics wait
    from benchlab.stats.suite import SuiteResult

SORTS = ("change", "name", "p")


def sort_suite(result: SuiteResult, by: str) -> SuiteResult:
    """`result` with its benchmarks ordered `by`:

    - "change": the largest move in the bad direction first (a regression: slower,
      worse, or higher when the unit has no better direction), the largest
      improvement last, on the log of the ratio its verdict used; with several
      candidates a benchmark's worst one places it;
    - "name": by name;
    - "p": the p-value its verdict reports (Holm-adjusted when the decisions are
      family-wise), smallest first; with several candidates the smallest.
    """
    if by not in SORTS:
        raise ValueError(f"by must be one of {SORTS}, not {by!r}")
    key = {"change": _badness(result), "name": None, "p": _pvalues(result)}[by]
    names = [name for name, _ in result.benchmarks]
    if key is None:
        order = sorted(names)
    else:
        placed = [n for n in names if n in key and math.isfinite(key[n])]
        order = sorted(placed, key=lambda n: key[n]) + [n for n in names if n not in placed]
    rank = {name: i for i, name in enumerate(order)}
    return replace(result,
                   benchmarks=tuple(sorted(result.benchmarks, key=lambda b: rank[b[0]])),
                   holm=tuple(sorted(result.holm, key=lambda h: rank.get(h[0], len(rank)))),
                   decisions=tuple(sorted(result.decisions,
                                          key=lambda d: rank.get(d.benchmark, len(rank)))))


def _badness(result: SuiteResult) -> dict[str, float]:
    """Per benchmark, minus its worst candidate's log ratio in the bad direction (so that
    ascending order puts the largest regression first)."""
    decided = {(d.benchmark, d.candidate): d for d in result.decisions}
    out: dict[str, float] = {}
    for name, r in result.benchmarks:
        bad_sign = 1.0 if r.unit.is_regression(True) else -1.0  # does a rise hurt?
        for c in r.comparisons:
            d = decided.get((name, c.candidate))
            ratio = (d.estimate if d is not None and d.scale == "ratio"
                     else c.ratio.estimate if c.ratio is not None else math.nan)
            if ratio is None or not ratio > 0:
                continue
            key = -bad_sign * math.log(ratio)
            out[name] = min(out.get(name, math.inf), key)
    return out


def _pvalues(result: SuiteResult) -> dict[str, float]:
    """Per benchmark, the smallest p-value its verdicts report (Holm's when family-wise)."""
    family = result.adjust == "holm"
    out: dict[str, float] = {}
    for bench, _, p, q, _ in result.holm:
        value = q if family else p
        if value is not None and math.isfinite(value):
            out[bench] = min(out.get(bench, math.inf), value)
    return out

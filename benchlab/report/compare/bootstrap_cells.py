"""The bootstrap intervals of a comparison as table cells, shared by every report format.

Which interval kinds a table shows depends on what was computed: percentile
always, BCa for independent samples, studentized for hierarchical ratios of
means (the hierarchical bootstrap has no BCa).
"""

from __future__ import annotations

from collections.abc import Iterable

from benchlab.stats.bootstrap import BootstrapInterval
from benchlab.stats.spec import statistic_of


def fmt_ratio_ci(low: float | None, high: float | None) -> str:
    """A ratio's interval to four decimals; "unbounded" when an end is missing."""
    if low is None or high is None:
        return "unbounded"
    return f"{low:.4f} .. {high:.4f}"


def interval_kinds(intervals: Iterable[BootstrapInterval]) -> list[str]:
    """The interval columns the given intervals need, in a fixed order."""
    kinds = ["percentile"]
    items = list(intervals)
    if any(not b.hierarchical for b in items):
        kinds.append("BCa")
    if any(b.hierarchical and statistic_of(b).studentized for b in items):
        kinds.append("studentized")
    return kinds


def interval_cells(b: BootstrapInterval, kinds: list[str]) -> list[str]:
    """One cell per kind: the interval, "unbounded", or "n/a" where it is not defined."""
    cells = []
    for kind in kinds:
        if kind == "percentile":
            cells.append(fmt_ratio_ci(b.low, b.high))
        elif kind == "BCa":
            cells.append("n/a" if b.hierarchical or b.bca_low is None
                         else fmt_ratio_ci(b.bca_low, b.bca_high))
        elif not (b.hierarchical and statistic_of(b).studentized):
            cells.append("n/a")
        else:
            cells.append(fmt_ratio_ci(b.studentized_low, b.studentized_high)
                         if b.studentized_low is not None or b.studentized_high is not None
                         else "n/a")
    return cells

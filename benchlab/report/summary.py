"""`summary --format bmf`: each group's mean and its confidence interval as Bencher Metric
Format (report/bmf_format.py); the other formats of summary are in report/hierarchy.py.

A group without levels gives its mean and t interval, one with levels its grand
mean and the interval over the top level's units (STATS.md §1 and the
hierarchy's section). In a suite an entry is named as summary names the group,
"benchmark / sample" (the benchmark alone when it has one sample).
"""

from __future__ import annotations

from typing import Any

from benchlab.report import bmf_format
from benchlab.result import RenderContext, renders
from benchlab.stats.summary import FlatSummary, SummaryReport


@renders("bmf", SummaryReport)
def summary_bmf(report: SummaryReport, context: RenderContext) -> dict[str, Any]:
    per_benchmark: dict[str | None, int] = {}
    for g in report.groups:
        per_benchmark[g.benchmark] = per_benchmark.get(g.benchmark, 0) + 1
    entries = []
    for g in report.groups:
        s = g.summary
        value = s.descriptives.mean if isinstance(s, FlatSummary) else s.grand_mean
        name = s.name if g.benchmark is None or per_benchmark[g.benchmark] > 1 \
            else g.benchmark
        entries.append((name, value, s.low, s.high))
    return bmf_format.document(entries, report.unit)

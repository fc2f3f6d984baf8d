"""`compare --format bmf`: a comparison as Bencher Metric Format (report/bmf_format.py).

BMF holds one value per benchmark of one run, not a comparison, so a compare
result maps to what Bencher would track for the new code: each candidate
sample's mean with its confidence interval as `lower_value` and
`upper_value` — the t interval of the mean (STATS.md §1), or, compared on
levels, the interval of the grand mean over the top level's units. The
baseline, the ratio and the verdict are not in BMF: `--export-json` keeps
them. A suite gives one entry per benchmark (named "benchmark / candidate"
when there are several candidates).
"""

from __future__ import annotations

from typing import Any

from benchlab.report import bmf_format
from benchlab.result import RenderContext, renders
from benchlab.stats.compare import CompareResult
from benchlab.stats.descriptive import mean_interval
from benchlab.stats.suite import SuiteResult


def _entries(result: CompareResult, prefix: str | None,
             single: bool) -> list[tuple[str, float, float, float]]:
    candidates = {c.candidate for c in result.comparisons}
    levels = {h.name: h for h in result.hierarchies}
    out = []
    for d in result.samples:
        if d.name not in candidates:
            continue
        if d.name in levels:
            h = levels[d.name]
            value, low, high = h.grand_mean, h.low, h.high
        else:
            low, high = mean_interval(d, result.confidence)
            value = d.mean
        name = d.name if prefix is None else prefix if single else f"{prefix} / {d.name}"
        out.append((name, value, low, high))
    return out


@renders("bmf", CompareResult)
def compare_bmf(result: CompareResult, context: RenderContext) -> dict[str, Any]:
    return bmf_format.document(_entries(result, None, False), result.unit)


@renders("bmf", SuiteResult)
def suite_bmf(result: SuiteResult, context: RenderContext) -> dict[str, Any]:
    entries = []
    unit = None
    for bench, comparison in result.benchmarks:
        single = len(comparison.comparisons) == 1
        entries += _entries(comparison, bench, single)
        unit = unit or comparison.unit
    return bmf_format.document(entries, unit) if unit is not None else {}

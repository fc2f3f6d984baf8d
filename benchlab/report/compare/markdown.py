"""`--format markdown`: a comparison as a pull-request comment (GitHub-flavoured tables).

Every string that can come from data (sample and level names, units, verdict
sentences and warnings quoting them) goes through `escape.markdown`: it renders
as its literal characters, in one table cell, with no markup and no raw HTML.
"""

from __future__ import annotations

import math

from benchlab.escape import markdown as md
from benchlab.notation import change_parts, fmt_level, fmt_pvalue, fmt_share
from benchlab.report.numbers import fmt_row
from benchlab.stats.compare import CompareResult
from benchlab.stats.hierarchy import HierarchySummary
from benchlab.stats.spec import statistic_of
from benchlab.units import Unit

ICONS = {"regression": "⚠️", "change": "✅", "equivalent": "✅", "inconclusive": "❔"}


def hierarchy_markdown(h: HierarchySummary, unit: Unit) -> list[str]:
    """One system's grand mean with its CI and the per-level table (as `summary` prints it)."""
    from benchlab.report.hierarchy import component_cells, mean_cells

    half = (h.high - h.low) / 2
    rel = f" (±{100 * half / abs(h.grand_mean):.2f}%)" if h.grand_mean else ""
    mean, low, high = mean_cells(h, unit)
    lines = [f"**{md(h.name)}**: mean {md(mean)}, "
             f"{fmt_level(h.confidence)} CI {md(low)} .. {md(high)}"
             f"{rel}; t on {h.top_units} {md(h.components[0].name)} means, df = {h.df:g}", "",
             "| level | reps | S² | T² | rel. SD | share |", "|---|---:|---:|---:|---:|---:|"]
    cells = component_cells(h, unit)
    for i, (c, (reps, s2, t2)) in enumerate(zip(h.components, cells, strict=True)):
        drop = " (no detectable variation)" if c.droppable or i == 0 and c.t2 <= 0 else ""
        lines.append(f"| {md(c.name)}{drop} | {reps} | {md(s2)} | {md(t2)} | "
                     f"{_share(c.relative_sd, 2)} | {_share(c.share, 1)} |")
    return lines


def _share(x: float, digits: int) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:.{digits}f}%"


def render_markdown(result: CompareResult) -> str:
    """Samples and comparison tables with the verdict sentences."""
    unit = result.unit
    level = f"{fmt_level(result.confidence)}"
    lines = ["### benchlab compare", "",
             "| sample | n | mean | median | stddev | min | max |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for s in result.samples:
        values = (s.mean, s.median, s.stddev, s.min, s.max)
        cells = fmt_row(values, unit, s.sem if s.n > 1 else None, s.mean)
        lines.append(f"| {md(s.name)} | {s.n} | " + " | ".join(map(md, cells)) + " |")
    for h in result.hierarchies:
        lines += ["", *hierarchy_markdown(h, unit)]
    lines += ["", f"| candidate | baseline | change | {level} CI | difference p | verdict |",
              "|---|---|---:|---|---:|---|"]
    for c in result.comparisons:
        head = c.headline or c.ratio  # the interval the verdict rests on (means or medians)
        if head is None:
            change, ci = "n/a", "n/a (baseline mean not positive)"
        else:  # "-3.1%" and "-4.0% .. -2.2%": the change and its CI (notation.py)
            parts = change_parts(head.estimate, head.low, head.high, unit)
            change, ci = parts.estimate, parts.interval
        icon = ICONS["regression" if c.verdict.regression else c.verdict.outcome]
        p = fmt_pvalue(c.difference.pvalue)
        lines.append(f"| {md(c.candidate)} | {md(c.baseline)} | {change} | {ci} | {p} | "
                     f"{icon} {c.verdict.outcome} |")
    lines += _bootstrap_markdown(result)
    lines.append("")
    for c in result.comparisons:
        lines.append(f"- **{md(c.candidate)}**: {md(c.verdict.text)}")
    if result.diagnostics:
        lines += ["", "<details><summary>warnings</summary>", ""]
        lines += [f"- {md(d.message)}" for d in result.diagnostics]
        lines += ["", "</details>"]
    method = result.comparisons[0].ratio.method if result.comparisons[0].ratio else "n/a"
    what = statistic_of(result).values
    if statistic_of(result).resamples:
        method = "a bootstrap percentile CI"
    lines += ["", f"<sub>ratio of {what} with {md(method)}; threshold "
                  f"{fmt_share(result.threshold)}; benchlab</sub>", ""]
    return "\n".join(lines)


def _bootstrap_markdown(result: CompareResult) -> list[str]:
    """The bootstrap intervals (`--bootstrap`) as a second table, their notes below it."""
    from benchlab.report.compare.bootstrap_cells import interval_cells, interval_kinds

    boots = [(c, b) for c in result.comparisons for b in c.bootstrap]
    if not boots:
        return []
    kinds = interval_kinds(b for _, b in boots)
    first = boots[0][1]
    lines = ["", f"bootstrap {fmt_level(result.confidence)} CIs (B = {first.replicates}, "
                 f"seed = {first.seed}):", "",
             "| candidate | baseline | ratio of | estimate | " + " | ".join(kinds) + " |",
             "|---|---|---|---:|" + "---|" * len(kinds)]
    notes: list[str] = []
    for c, b in boots:
        lines.append(f"| {md(c.candidate)} | {md(c.baseline)} | {b.statistic}s | "
                     f"{b.estimate:.4f} | " + " | ".join(interval_cells(b, kinds)) + " |")
        if b.note and b.note not in notes:
            notes.append(b.note)
    return lines + [""] + [f"- {md(n)}" for n in notes]

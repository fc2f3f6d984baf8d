"""Text, JSON and tidy rows of `summary` and `plan` results (keys in docs/summary.md, plan.md)."""

from __future__ import annotations

from typing import Any

from benchlab.escape import terminal_lines
from benchlab.notation import finite, fmt_level
from benchlab.result import RenderContext, renders
from benchlab.stats.hierarchy import HierarchySummary
from benchlab.stats.summary import FlatSummary, PlanReport, SummaryReport
from benchlab.version import __version__


def _flat_document(s: FlatSummary) -> dict[str, Any]:
    d = s.descriptives
    return {"name": d.name, "n": d.n, "mean": finite(d.mean), "low": finite(s.low),
            "high": finite(s.high), "confidence": s.confidence, "df": float(d.n - 1),
            "median": finite(d.median), "stddev": finite(d.stddev), "min": finite(d.min),
            "max": finite(d.max), "levels": [], "warnings": []}


@renders("json", SummaryReport)
def summary_json(result: SummaryReport, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.hierarchy import summary_document

    docs = []
    for g in result.groups:
        doc = (summary_document(g.summary) if isinstance(g.summary, HierarchySummary)
               else _flat_document(g.summary))
        docs.append(doc if g.benchmark is None else {"benchmark": g.benchmark, **doc})
    return {"benchlab_version": __version__, "command": "summary",
            "confidence": result.confidence, "unit": result.unit.name,
            "notes": list(result.notes), "level_columns": list(result.level_columns),
            "groups": docs, "warnings": list(result.warnings)}


def _flat_line(s: FlatSummary, unit) -> str:
    d = s.descriptives
    return (f"{d.name}: n = {d.n}, mean {unit.format(d.mean)}  {fmt_level(s.confidence)} CI "
            f"{unit.format(s.low)} .. {unit.format(s.high)}, median "
            f"{unit.format(d.median)}, stddev {unit.format(d.stddev)}")


@renders("text", SummaryReport)
def summary_text(result: SummaryReport, context: RenderContext) -> str:
    from benchlab.report.hierarchy import summary_text as hierarchy_lines

    lines: list[str] = []
    for g in result.groups:
        if isinstance(g.summary, HierarchySummary):
            lines.extend(hierarchy_lines(g.summary, result.unit))
        else:
            lines.append(_flat_line(g.summary, result.unit))
    if result.notes:
        lines += ["", *(f"note: {n}" for n in result.notes)]
    if result.warnings:
        lines += ["", "warnings:"] + [f"  - {w}" for w in result.warnings]
    return terminal_lines(lines) + "\n"


@renders("rows", SummaryReport)
def summary_rows(result: SummaryReport, context: RenderContext) -> list[dict[str, Any]]:
    """One row for each group's mean and one per level's variance component."""
    rows: list[dict[str, Any]] = []
    unit = result.unit.name or ""
    for g in result.groups:
        s = g.summary
        bench = {} if g.benchmark is None else {"benchmark": g.benchmark}
        if isinstance(s, HierarchySummary):
            rows.append({"table": "means", **bench, "group": s.name, "statistic": "mean",
                         "estimate": s.grand_mean, "low": s.low, "high": s.high,
                         "confidence": s.confidence, "unit": unit, "n": s.n,
                         "df": s.df})
            for c in s.components:
                rows.append({"table": "levels", **bench, "group": s.name, "level": c.name,
                             "statistic": "relative_sd", "estimate": c.relative_sd,
                             "share": c.share, "repetitions": c.repetitions, "s2": c.s2,
                             "t2": c.t2, "droppable": c.droppable})
        else:
            d = s.descriptives
            rows.append({"table": "means", **bench, "group": d.name, "statistic": "mean",
                         "estimate": d.mean, "low": s.low, "high": s.high,
                         "confidence": s.confidence, "unit": unit, "n": d.n,
                         "df": float(d.n - 1)})
    return rows


@renders("json", PlanReport)
def plan_json(result: PlanReport, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.hierarchy import plan_document

    docs = [{"name": g.summary.name, **({} if g.benchmark is None else {"benchmark": g.benchmark}),
             **plan_document(g.plan)} for g in result.groups]
    return {"benchlab_version": __version__, "command": "plan", "unit": result.unit.name,
            "notes": list(result.notes), "level_columns": list(result.level_columns),
            "groups": docs}


@renders("text", PlanReport)
def plan_text(result: PlanReport, context: RenderContext) -> str:
    from benchlab.report.hierarchy import plan_text as plan_lines
    from benchlab.report.hierarchy import summary_text as hierarchy_lines

    lines: list[str] = []
    for g in result.groups:
        lines += hierarchy_lines(g.summary, result.unit) + [""] + plan_lines(g.plan) + [""]
    if result.notes:
        lines += [*(f"note: {n}" for n in result.notes), ""]
    return terminal_lines(lines)


@renders("rows", PlanReport)
def plan_rows(result: PlanReport, context: RenderContext) -> list[dict[str, Any]]:
    """Per group and plan (optimal, single-level): repetitions per level, cost, half-width."""
    rows: list[dict[str, Any]] = []
    for g in result.groups:
        bench = {} if g.benchmark is None else {"benchmark": g.benchmark}
        for kind, option in (("optimal", g.plan.optimal), ("single_level", g.plan.single_level)):
            for level, reps in zip(g.plan.levels, option.repetitions, strict=True):
                rows.append({"table": "plans", **bench, "group": g.summary.name, "plan": kind,
                             "level": level, "statistic": "repetitions", "estimate": reps,
                             "cost_per_top_unit": option.cost_per_top_unit,
                             "total_cost": option.total_cost,
                             "relative_halfwidth": option.relative_halfwidth})
    return rows

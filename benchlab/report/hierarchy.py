"""Every format of `summary` and `plan` but the figures: variance components
(HierarchySummary, and the SummaryReport of the command) and experiment plans (Plan,
PlanReport) as text, JSON documents (keys in docs/summary.md, plan.md), tidy rows and
HTML (HierarchySummary, Plan; the other reports' HTML is the generic one of their JSON).
Their figures are in report/figures/hierarchy.py and reports.py.

The text lines come out inert (`escape.terminal`): group and level names are data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benchlab.escape import terminal, terminal_lines
from benchlab.notation import finite, fmt_level
from benchlab.report.numbers import fmt_pct
from benchlab.result import RenderContext, renders
from benchlab.stats.hierarchy import HierarchySummary, Plan
from benchlab.stats.summary import FlatSummary, PlanReport, SummaryReport
from benchlab.units import Unit
from benchlab.version import __version__


def levels_document(s: HierarchySummary) -> list[dict[str, Any]]:
    """The per-level table, highest level first."""
    return [{"level": c.name, "repetitions": finite(c.repetitions), "s2": finite(c.s2),
             "t2": finite(c.t2), "relative_sd": finite(c.relative_sd), "share": finite(c.share),
             "droppable": c.droppable} for c in s.components]


def summary_document(s: HierarchySummary) -> dict[str, Any]:
    return {"name": s.name, "n": s.n, "mean": finite(s.grand_mean), "low": finite(s.low),
            "high": finite(s.high), "confidence": s.confidence, "df": finite(s.df),
            "top_units": s.top_units, "balanced": s.balanced, "levels": levels_document(s),
            "warnings": list(s.warnings)}


def mean_cells(s: HierarchySummary, unit: Unit) -> list[str]:
    """The grand mean and its CI bounds, to the digit the CI's half-width justifies."""
    from benchlab.report.numbers import fmt_interval

    return fmt_interval(s.grand_mean, s.low, s.high, unit)


def component_cells(s: HierarchySummary, unit: Unit) -> list[tuple[str, str, str]]:
    """Per level: repetitions, S² and T² in the squared unit of the data (scaled as the
    grand mean is: "96.84 ms²"), so no variance is a bare number in an unnamed unit."""
    from benchlab.report.numbers import fmt_squared

    return [(f"{c.repetitions:.4g}", fmt_squared(c.s2, unit, s.grand_mean),
             fmt_squared(c.t2, unit, s.grand_mean)) for c in s.components]


def summary_text(s: HierarchySummary, unit: Unit) -> list[str]:
    level = f"{fmt_level(s.confidence)} CI"
    half = (s.high - s.low) / 2
    relative = half / abs(s.grand_mean) if s.grand_mean else None
    mean, low, high = mean_cells(s, unit)
    cells = component_cells(s, unit)
    w2 = max(14, *(len(c[1]) + 2 for c in cells), *(len(c[2]) + 2 for c in cells))
    lines = [f"{s.name}: mean {mean}  {level} {low} .. {high} (±{fmt_pct(relative, 2)}"
             f"; t on {s.top_units} {s.components[0].name} means, df = {s.df:g})",
             f"  {'level':<14}{'reps':>8}{'S²':>{w2}}{'T²':>{w2}}{'rel. SD':>10}{'share':>9}"]
    for c, (reps, s2, t2) in zip(s.components, cells, strict=True):
        drop = "  (no detectable variation: can be dropped)" if c.droppable else ""
        if c is s.components[0] and c.t2 <= 0:
            drop = "  (no detectable variation of its own)"
        lines.append(f"  {terminal(c.name):<14}{reps:>8}{s2:>{w2}}{t2:>{w2}}"
                     f"{fmt_pct(c.relative_sd, 2):>10}{fmt_pct(c.share):>9}{drop}")
    return [terminal(line) for line in lines]


def plan_document(plan: Plan, unit_mean: float | None = None) -> dict[str, Any]:
    def option(o):
        return {"repetitions": dict(zip(plan.levels, o.repetitions, strict=True)),
                "cost_per_top_unit": o.cost_per_top_unit, "total_cost": o.total_cost,
                "relative_halfwidth": finite(o.relative_halfwidth)}

    return {"levels": list(plan.levels), "costs": dict(zip(plan.levels, plan.costs, strict=True)),
            "t2": dict(zip(plan.levels, map(finite, plan.t2), strict=True)),
            "unrounded": dict(zip(plan.levels, map(finite, plan.unrounded), strict=True)),
            "dropped": list(plan.dropped), "budget": plan.budget, "target": plan.target,
            "confidence": plan.confidence, "optimal": option(plan.optimal),
            "single_level": option(plan.single_level), "notes": list(plan.notes)}


def plan_text(plan: Plan) -> list[str]:
    from benchlab.report.numbers import fmt_duration

    goal = (f"budget {fmt_duration(plan.budget)}" if plan.budget is not None
            else f"target ±{fmt_pct(plan.target, 2)} ({fmt_level(plan.confidence)} CI)")
    lines = [f"plan for {goal}",
             f"  {'level':<14}{'cost':>10}{'T²':>14}{'optimal r':>11}{'(unrounded)':>13}"
             f"{'single-level':>14}"]
    for i, name in enumerate(plan.levels):
        raw = plan.unrounded[i]
        lines.append(f"  {terminal(name):<14}{fmt_duration(plan.costs[i]):>10}{plan.t2[i]:>14.6g}"
                     f"{plan.optimal.repetitions[i]:>11}"
                     f"{'' if raw is None else f'{raw:.4f}':>13}"
                     f"{plan.single_level.repetitions[i]:>14}")
    for label, o in (("optimal", plan.optimal), ("single-level", plan.single_level)):
        lines.append(f"  {label:<13} {fmt_duration(o.cost_per_top_unit)} per {plan.levels[0]}, "
                     f"{fmt_duration(o.total_cost)} in all, CI half-width "
                     f"±{fmt_pct(o.relative_halfwidth, 2)} of the mean")
    lines += [f"  - {n}" for n in plan.notes]
    return [terminal(line) for line in lines]


def _flat_document(s: FlatSummary) -> dict[str, Any]:
    d = s.descriptives
    return {"name": d.name, "n": d.n, "mean": finite(d.mean), "low": finite(s.low),
            "high": finite(s.high), "confidence": s.confidence, "df": float(d.n - 1),
            "median": finite(d.median), "stddev": finite(d.stddev), "min": finite(d.min),
            "max": finite(d.max), "levels": [], "warnings": []}


@renders("json", SummaryReport)
def summary_report_json(result: SummaryReport, context: RenderContext) -> dict[str, Any]:
    docs = []
    for g in result.groups:
        doc = (summary_document(g.summary) if isinstance(g.summary, HierarchySummary)
               else _flat_document(g.summary))
        docs.append(doc if g.benchmark is None else {"benchmark": g.benchmark, **doc})
    return {"benchlab_version": __version__, "command": "summary",
            "confidence": result.confidence, "unit": result.unit.name,
            "notes": list(result.notes), "level_columns": list(result.level_columns),
            "groups": docs, "warnings": list(result.warnings)}


def flat_cells(s: FlatSummary, unit: Unit) -> list[str]:
    """Mean, CI bounds, median and stddev of a sample without levels in one unit, to the
    digit its standard error justifies, as compare's table shows the same sample
    (numbers.fmt_row: "99.86", never "99.8605")."""
    from benchlab.report.numbers import fmt_row

    d = s.descriptives
    return fmt_row((d.mean, s.low, s.high, d.median, d.stddev), unit,
                   d.sem if d.n > 1 else None, d.mean)


def _flat_line(s: FlatSummary, unit: Unit) -> str:
    d = s.descriptives
    mean, low, high, median, stddev = flat_cells(s, unit)
    return (f"{d.name}: n = {d.n}, mean {mean}  {fmt_level(s.confidence)} CI "
            f"{low} .. {high}, median {median}, stddev {stddev}")


def _group_name(g: Any) -> str:
    name = g.summary.descriptives.name if isinstance(g.summary, FlatSummary) else g.summary.name
    return name if g.benchmark is None else f"{g.benchmark} / {name}"


def summary_tables(result: SummaryReport) -> list[tuple[str, list[str], list[list[str]]]]:
    """The summary as (caption, headers, rows) of display strings, for Markdown and HTML:
    every group's mean and CI (digits as the text shows them), then each level of the
    groups with levels (S² and T² in the squared unit, shares in percent)."""
    unit = result.unit
    level = f"{fmt_level(result.confidence)} CI"
    means, levels = [], []
    for g in result.groups:
        s = g.summary
        if isinstance(s, HierarchySummary):
            mean, low, high = mean_cells(s, unit)
            means.append([_group_name(g), str(s.n), mean, f"{low} .. {high}", "", "",
                          f"t on {s.top_units} {s.components[0].name} means, df = {s.df:g}"])
            for c, (reps, s2, t2) in zip(s.components, component_cells(s, unit), strict=True):
                levels.append([_group_name(g), c.name, reps, s2, t2, fmt_pct(c.relative_sd, 2),
                               fmt_pct(c.share), "can be dropped" if c.droppable else ""])
        else:
            mean, low, high, median, stddev = flat_cells(s, unit)
            means.append([_group_name(g), str(s.descriptives.n), mean, f"{low} .. {high}",
                          median, stddev, f"t, df = {s.descriptives.n - 1}"])
    out = [("means", ["group", "n", "mean", level, "median", "stddev", "interval"], means)]
    if levels:
        out.append(("levels", ["group", "level", "reps", "S²", "T²", "rel. SD", "share", ""],
                    levels))
    return out


@renders("markdown", SummaryReport)
def summary_report_markdown(result: SummaryReport, context: RenderContext) -> str:
    """The tables of summary_tables as GFM, then notes and warnings."""
    from benchlab.escape import markdown as md

    out = ["### benchlab summary", ""]
    for caption, headers, rows in summary_tables(result):
        out += [f"**{caption}**", "", "| " + " | ".join(md(h) for h in headers) + " |",
                "|" + "|".join("---" if i in (0, 1) and caption == "levels" or i == 0
                               else "---:" for i in range(len(headers))) + "|"]
        out += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
        out.append("")
    out += [f"- note: {md(n)}" for n in result.notes]
    out += [f"- warning: {md(w)}" for w in result.warnings]
    return "\n".join(out).rstrip("\n") + "\n"


@renders("html", SummaryReport)
def summary_report_html(result: SummaryReport, context: RenderContext) -> str:
    """The tables of summary_tables, then notes and warnings."""
    from benchlab.report.html_format import cell, table, warnings_list, wrap

    parts = ["<h3>summary</h3>"]
    for caption, headers, rows in summary_tables(result):
        parts.append(table(headers, [[cell(c, cls="name" if i == 0 else "num")
                                      for i, c in enumerate(row)] for row in rows],
                           caption=caption))
    parts += [warnings_list(result.notes, "notes"), warnings_list(result.warnings)]
    return wrap("summary", "summary", "\n".join(p for p in parts if p), context)


@renders("text", SummaryReport)
def summary_report_text(result: SummaryReport, context: RenderContext) -> str:
    lines: list[str] = []
    for g in result.groups:
        if isinstance(g.summary, HierarchySummary):
            lines.extend(summary_text(g.summary, result.unit))
        else:
            lines.append(_flat_line(g.summary, result.unit))
    if result.notes:
        lines += ["", *(f"note: {n}" for n in result.notes)]
    if result.warnings:
        lines += ["", "warnings:"] + [f"  - {w}" for w in result.warnings]
    return terminal_lines(lines) + "\n"


@renders("rows", SummaryReport)
def summary_report_rows(result: SummaryReport, context: RenderContext) -> list[dict[str, Any]]:
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
def plan_report_json(result: PlanReport, context: RenderContext) -> dict[str, Any]:
    docs = [{"name": g.summary.name, **({} if g.benchmark is None else {"benchmark": g.benchmark}),
             **plan_document(g.plan)} for g in result.groups]
    return {"benchlab_version": __version__, "command": "plan", "unit": result.unit.name,
            "notes": list(result.notes), "level_columns": list(result.level_columns),
            "groups": docs}


@renders("text", PlanReport)
def plan_report_text(result: PlanReport, context: RenderContext) -> str:
    lines: list[str] = []
    for g in result.groups:
        lines += summary_text(g.summary, result.unit) + [""] + plan_text(g.plan) + [""]
    if result.notes:
        lines += [*(f"note: {n}" for n in result.notes), ""]
    return terminal_lines(lines)


@renders("rows", PlanReport)
def plan_report_rows(result: PlanReport, context: RenderContext) -> list[dict[str, Any]]:
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


# -- HTML: laid out with report/html_format.py, imported only when HTML is asked for ----
def hierarchy_table(summaries: Sequence[HierarchySummary]) -> str:
    """Variance shares per level for each sample (highest level first), as an HTML table."""
    from benchlab.report.html_format import cell, exact, table

    rows = []
    for s in summaries:
        for c in s.components:
            rows.append([cell(s.name, cls="name"), cell(c.name, cls="name"),
                         cell(f"{c.repetitions:.4g}", cls="num"),
                         cell(fmt_pct(c.relative_sd, 2), cls="num"),
                         cell(fmt_pct(c.share), cls="num",
                              attrs={"data-share": exact(c.share)}),
                         cell("can be dropped" if c.droppable else "")])
    return table(("sample", "level", "repetitions", "relative SD", "share of variance", ""),
                 rows, cls="hierarchy",
                 caption="variance of the mean by level (what each level adds)")


@renders("html", HierarchySummary)
def hierarchy_html(result: HierarchySummary, context: RenderContext) -> str:
    """One sample's mean, its CI and df, then its variance shares and warnings."""
    from benchlab.report.html_format import cell, esc, table, warnings_list, wrap

    level = f"{fmt_level(result.confidence)} CI"
    mean, low, high = mean_cells(result, Unit(None, None))  # no unit known here
    head = table(("sample", "n", "mean", level, "df", "top-level units"), [[
        cell(result.name, cls="name"), cell(str(result.n), cls="num"),
        cell(mean, cls="num"), cell(f"{low} .. {high}", cls="num"),
        cell(f"{result.df:g}", cls="num"), cell(str(result.top_units), cls="num")]])
    inner = "\n".join(p for p in (f"<h3>{esc(result.name)}</h3>", head,
                                  hierarchy_table([result]),
                                  warnings_list(result.warnings)) if p)
    return wrap("summary", "summary", inner, context)


@renders("html", Plan)
def plan_html(result: Plan, context: RenderContext) -> str:
    """A plan's JSON document (plan_document) as tables."""
    from benchlab.report.html_format import document_html, wrap

    body = document_html(plan_document(result))
    return wrap("plan", "plan", f"<h3>plan</h3>\n{body}", context)

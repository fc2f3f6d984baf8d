"""Figures of the command-level results that group others: `summary` (SummaryReport),
`plan` (PlanReport) and `test` (TestReport).

One group draws the figure of what it holds (a HierarchySummary, a Plan, a test
result); several groups share one figure: the means with their CIs and the
variance shares side by side, the plans' half-width against budget on one axis,
or each candidate's speedup.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from benchlab.notation import fmt_level
from benchlab.report.figures import style
from benchlab.result import RenderContext, render, renders
from benchlab.stats.hierarchy import HierarchySummary, halfwidth_by_budget
from benchlab.stats.protocols import KruskalResult, TestReport
from benchlab.stats.summary import FlatSummary, PlanReport, SummaryReport


def _with_unit(context: RenderContext, unit) -> RenderContext:
    return replace(context, options={**context.options, "unit": unit})


def _mean_ci(s) -> tuple[str, float, float, float]:
    if isinstance(s, FlatSummary):
        return s.name, s.descriptives.mean, s.low, s.high
    return s.name, s.grand_mean, s.low, s.high


@renders("figure", SummaryReport)
def summary_report_figure(result: SummaryReport, context: RenderContext):
    """One hierarchical group: its own figure. Otherwise each group's mean with its CI and,
    with levels, each group's variance shares per level as stacked bars."""
    import matplotlib.pyplot as plt

    groups = [g.summary for g in result.groups]
    labels = [s.name if g.benchmark is None else f"{g.benchmark} / {s.name}"
              for g, s in zip(result.groups, groups, strict=True)]
    if len(groups) == 1 and isinstance(groups[0], HierarchySummary):
        return render(groups[0], "figure", _with_unit(context, result.unit))
    hierarchical = all(isinstance(s, HierarchySummary) for s in groups)
    fig, axes = plt.subplots(1, 2 if hierarchical else 1,
                             figsize=(10 if hierarchical else 6, 1.6 + 0.45 * len(groups)),
                             layout="constrained", squeeze=False)
    ax = axes[0][0]
    rows = [_mean_ci(s) for s in groups]
    divisor, unit_label = style.display_unit(result.unit, [m for _, m, _, _ in rows])
    positions = list(range(len(rows), 0, -1))
    level = f"{fmt_level(result.confidence)} CI"
    for y, (_, mean, low, high) in zip(positions, rows, strict=True):
        style.mean_with_ci(ax, y, mean / divisor, low / divisor, high / divisor, offset=0.0,
                           label_=f"mean and its {level}")
    style.category_axis(ax, labels, positions)
    ax.set_xlabel(style.with_unit("mean", unit_label))
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_title("means")
    if hierarchical:
        right = axes[0][1]
        names = [c.name for c in groups[0].components]
        left_edge = np.zeros(len(groups))
        for i, name in enumerate(names):
            shares = np.array([100 * s.components[i].share
                               if i < len(s.components) and math.isfinite(s.components[i].share)
                               else 0.0 for s in groups])
            right.barh(positions, shares, left=left_edge, color=style.colour(i), height=0.6,
                       edgecolor=style.INK, linewidth=0.4, label=style.label(name))
            left_edge += shares
        style.category_axis(right, labels, positions)
        right.set_xlim(0, 100)
        right.set_xlabel("share of the variance of the mean (%)")
        right.set_title("where the variance comes from")
    style.legend_below(fig, [a for row in axes for a in row])
    return fig


@renders("figure", PlanReport)
def plan_report_figure(result: PlanReport, context: RenderContext):
    """One group: its plan's figure; several: each group's optimal half-width against
    budget on one log-log axis."""
    import matplotlib.pyplot as plt

    if len(result.groups) == 1:
        return render(result.groups[0].plan, "figure", context)
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    for i, g in enumerate(result.groups):
        cost = g.plan.optimal.cost_per_top_unit
        budgets = np.geomspace(2 * cost, max(200 * cost, 4 * g.plan.optimal.total_cost), 80)
        optimal, _ = halfwidth_by_budget(g.plan, budgets)
        name = g.summary.name if g.benchmark is None else f"{g.benchmark} / {g.summary.name}"
        ax.plot(budgets, 100 * optimal, color=style.colour(i), label=style.label(name))
    ax.set_xscale("log")
    ax.set_yscale("log")
    style.duration_axis(ax)
    ax.set_xlabel("budget")
    ax.set_ylabel("CI half-width (% of the mean)")
    ax.set_title("the optimal plan of each group: what a budget buys")
    ax.grid(color="#dddddd", linewidth=0.6, which="both")
    style.legend_below(fig, (ax,))
    return fig


@renders("figure", TestReport)
def test_report_figure(result: TestReport, context: RenderContext):
    """Kruskal or one Speedup-Test: that result's figure; several candidates: each
    candidate's speedup of the tested statistic, marked by its decision."""
    import matplotlib.pyplot as plt

    if isinstance(result.results, KruskalResult) or len(result.results) == 1:
        one = result.results if isinstance(result.results, KruskalResult) else result.results[0]
        return render(one, "figure", context)
    fig, ax = plt.subplots(figsize=(7, 1.6 + 0.45 * len(result.results)), layout="constrained")
    positions = list(range(len(result.results), 0, -1))
    labels = []
    for y, r in zip(positions, result.results, strict=True):
        if hasattr(r, "gain"):  # a suite: the time-weighted gain
            value, decided = r.gain, r.improved > 0
        else:
            statistic = "median" if r.protocol == "speedup-median" else "mean"
            value, decided = getattr(r.speedups, statistic), r.decision == "significant"
        ax.plot([value], [y], marker="o", markersize=7,
                color=style.colour(0), markerfacecolor=style.colour(0) if decided else "white",
                linestyle="none", label="significant" if decided else "not significant")
        labels.append(f"{r.candidate} vs {r.baseline}")
    ax.axvline(1.0, color=style.REFERENCE, linewidth=0.8)
    style.category_axis(ax, labels, positions)
    ax.set_xlabel("speedup (baseline / candidate; > 1: the candidate is better)")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    style.legend_below(fig, (ax,))
    return fig

"""Figures of `summary` (variance shares per level, the top-level unit means) and `plan`
(the CI half-width each budget buys, optimal against single-level repetitions)."""

from __future__ import annotations

import math

import numpy as np

from benchlab.notation import fmt_level
from benchlab.report.figures import style
from benchlab.result import RenderContext, renders
from benchlab.stats.hierarchy import HierarchySummary, Plan, halfwidth_by_budget


@renders("figure", HierarchySummary)
def summary_figure(result: HierarchySummary, context: RenderContext):
    """Left: each level's share of the variance of the mean, with its relative SD.
    Right: the top-level unit means, the grand mean and its CI. The unit comes from
    `context.option("unit")` when the caller knows it."""
    import matplotlib.pyplot as plt

    comps = result.components
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 1.8 + 0.45 * max(len(comps), 3)),
                                      width_ratios=(1, 1), layout="constrained")
    positions = list(range(len(comps), 0, -1))
    shares = [100 * c.share if math.isfinite(c.share) else 0.0 for c in comps]
    left.barh(positions, shares, color=[style.colour(i) for i in range(len(comps))],
              height=0.6, edgecolor=style.INK, linewidth=0.5)
    for y, c, share in zip(positions, comps, shares, strict=True):
        sd = ("rel. SD n/a" if not math.isfinite(c.relative_sd)
              else f"rel. SD {100 * c.relative_sd:.2g}%")
        left.text(share + 1.5, y, f"{share:.1f}%  ({sd}, r = {c.repetitions:.3g})",
                  va="center", fontsize=8)
    style.category_axis(left, [c.name for c in comps], positions)
    left.set_xlim(0, 135)
    left.set_xticks([0, 25, 50, 75, 100])
    left.set_xlabel("share of the variance of the mean (%)")
    left.set_title("where the variance comes from")

    unit = context.option("unit")
    means = np.asarray(result.top_means, dtype=float)
    divisor, unit_label = style.display_unit(unit, means)
    style.strip(right, 1.0, means / divisor, style.colour(0), violin=False, size=16)
    level = f"{fmt_level(result.confidence)} CI"
    style.mean_with_ci(right, 1.0, result.grand_mean / divisor, result.low / divisor,
                       result.high / divisor, offset=0.3, label_=f"grand mean and its {level}")
    style.category_axis(right, [result.name], [1.0])
    right.set_ylim(0.4, 1.6)
    right.set_xlabel(style.with_unit(f"mean of each {style.label(comps[0].name)}", unit_label))
    right.set_title(f"{result.top_units} {style.label(comps[0].name)} means")
    right.grid(axis="x", color="#dddddd", linewidth=0.6)
    style.legend_below(fig, (right,))
    fig.suptitle(f"{style.label(result.name)}: {result.n} measurements")
    return fig


def _repetitions(plan: Plan, reps: tuple[int, ...]) -> str:
    return " × ".join(f"{r} {style.label(name, 20)}"
                      for name, r in zip(plan.levels[1:], reps[1:], strict=True))


@renders("figure", Plan)
def plan_figure(result: Plan, context: RenderContext):
    """The relative CI half-width against the budget (log-log), for the optimal
    repetitions below the top level and for one of each; the plan's budget (or target)
    and what it buys marked."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    options = (result.optimal, result.single_level)
    smallest = 2 * min(o.cost_per_top_unit for o in options)
    reference = result.budget if result.budget is not None else max(
        o.total_cost for o in options)
    high = max(10 * reference, 1000 * smallest)
    low = min(smallest, reference / 10)
    budgets = np.geomspace(low, high, 600)
    curves = halfwidth_by_budget(result, budgets)
    looks = (("optimal", style.BASELINE, "-"), ("single-level", style.CANDIDATE, "--"))
    drawn = False
    for option, curve, (name, colour_, dash) in zip(options, curves, looks, strict=True):
        ok = np.isfinite(curve)
        if not ok.any():
            continue
        drawn = True
        ax.step(budgets[ok], 100 * curve[ok], where="post", color=colour_, linestyle=dash,
                linewidth=1.5, label=f"{name}: {_repetitions(result, option.repetitions)} "
                                     f"per {style.label(result.levels[0], 20)}")
        if option.relative_halfwidth is not None:
            ax.plot([option.total_cost], [100 * option.relative_halfwidth], marker="o",
                    color=colour_, markerfacecolor="white", markeredgewidth=1.5,
                    linestyle="none", zorder=4)
    if result.budget is not None:
        ax.axvline(result.budget, color=style.REFERENCE, linewidth=0.8, linestyle=":",
                   label=f"budget {style.duration(result.budget)}")
    if result.target is not None:
        ax.axhline(100 * result.target, color=style.REFERENCE, linewidth=0.8, linestyle=":",
                   label=f"target ±{100 * result.target:g}%")
    if not drawn:
        ax.text(0.5, 0.5, "no CI half-width: the mean is 0 or no plan buys 2 units",
                ha="center", va="center", transform=ax.transAxes)
    ax.set_xscale("log")
    if drawn:
        ax.set_yscale("log")
    style.duration_axis(ax, "x")
    ax.set_xlabel("budget (time)")
    ax.set_ylabel(f"{fmt_level(result.confidence)} CI half-width (% of the mean)")
    ax.grid(color="#dddddd", linewidth=0.6, which="major")
    ax.set_title("what each budget buys: optimal against single-level repetitions")
    style.legend_below(fig, (ax,), ncol=2)
    return fig

"""Figures of `test`: the groups' distributions for Kruskal–Wallis, the speedups of a
Speedup-Test, and the per-benchmark speedups of a suite.

Raw values come from `context.option("samples")` (a list of (name, values)) as
for compare; without them the figure draws what the result holds (medians,
means, speedups).
"""

from __future__ import annotations

import numpy as np

from benchlab.notation import fmt_level, fmt_p
from benchlab.report.figures import style
from benchlab.result import RenderContext, renders
from benchlab.stats.protocols import KruskalResult, SpeedupSuite, SpeedupTestResult

_DECISIONS = {  # colour, marker, filled: readable in grey through shape and fill
    "significant": (style.BASELINE, "^", True),
    "not significant": (style.INK, "o", False),
    "refused": (style.CANDIDATE, "X", True),
}


def _samples(context: RenderContext) -> dict[str, np.ndarray]:
    return {name: np.asarray(x, dtype=float) for name, x in context.option("samples") or []}


@renders("figure", KruskalResult)
def kruskal_figure(result: KruskalResult, context: RenderContext):
    """Each group's distribution (or, without data, its median and mean), with the test
    and the pairs that differ after Holm's adjustment."""
    import matplotlib.pyplot as plt

    groups = result.groups
    values = _samples(context)
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.6 * len(groups)), layout="constrained")
    positions = list(range(len(groups), 0, -1))
    for i, (g, y) in enumerate(zip(groups, positions, strict=True)):
        x = values.get(g.name)
        if x is not None and x.size:
            style.strip(ax, y, x, style.colour(i))
        offset = 0.3 if x is not None else 0.0
        ax.plot([g.median], [y - offset], marker="|", markersize=12, markeredgewidth=2,
                color=style.INK, linestyle="none", label="median")
        ax.plot([g.mean], [y - offset], marker="D", markersize=5, markerfacecolor="white",
                markeredgecolor=style.INK, linestyle="none", label="mean")
    style.category_axis(ax, [f"{g.name} (n = {g.n})" for g in groups], positions)
    ax.set_ylim(0.4, len(groups) + 0.6)
    ax.set_xlabel("value")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    differ = [p for p in result.pairs if p.significant]
    pairs = ("; ".join(f"{style.label(p.first, 20)} ≠ {style.label(p.second, 20)}"
                       for p in differ[:4]) + (" …" if len(differ) > 4 else "")
             if differ else "no pair differs")
    ax.set_title(f"Kruskal-Wallis H = {result.statistic:.3g}, df = {result.df}, "
                 f"{fmt_p(result.pvalue)}\nHolm-adjusted pairs at α = {result.alpha:g}: "
                 f"{pairs}")
    style.legend_below(fig, (ax,), ncol=2)
    return fig


def _speedup_bars(ax, result: SpeedupTestResult) -> None:
    s = result.speedups
    names = ("minimum", "mean", "median")
    chosen = "mean" if result.protocol == "speedup-mean" else "median"
    positions = [3, 2, 1]
    colour_, shape, filled = _DECISIONS.get(result.decision, _DECISIONS["not significant"])
    for name, value, y in zip(names, (s.min, s.mean, s.median), positions, strict=True):
        tested = name == chosen
        ax.plot([1.0, value], [y, y], color=colour_ if tested else style.BAND, linewidth=2)
        ax.plot([value], [y], marker=shape if tested else "o", markersize=8 if tested else 5,
                color=colour_ if tested else style.REFERENCE, linestyle="none",
                markerfacecolor=(colour_ if filled else "white") if tested else "white")
        ax.text(value, y + 0.22, f"{value:.4g}×", ha="center", fontsize=8)
    ax.axvline(1.0, color=style.REFERENCE, linewidth=0.8)
    style.category_axis(ax, [f"{n} (tested)" if n == chosen else n for n in names], positions)
    ax.set_ylim(0.4, 3.7)
    better = result.better
    ax.set_xlabel(f"speedup of {style.label(result.candidate, 30)} ({better} > 1)")
    ax.set_title(f"{result.protocol}: {result.decision}")


@renders("figure", SpeedupTestResult)
def speedup_figure(result: SpeedupTestResult, context: RenderContext):
    """The speedups of the minimum, mean and median (the tested one marked by the decision);
    beside them the two samples' distributions when the caller passes the data."""
    import matplotlib.pyplot as plt

    values = _samples(context)
    names = (result.baseline, result.candidate)
    if all(n in values for n in names):
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4), width_ratios=(3, 2),
                                          layout="constrained")
        for i, (name, y) in enumerate(zip(names, (2, 1), strict=True)):
            style.strip(left, y, values[name], style.colour(i))
            left.plot([float(np.median(values[name]))], [y - 0.3], marker="|", markersize=12,
                      markeredgewidth=2, color=style.INK, linestyle="none", label="median")
            left.plot([float(np.mean(values[name]))], [y - 0.3], marker="D", markersize=5,
                      markerfacecolor="white", markeredgecolor=style.INK, linestyle="none",
                      label="mean")
        style.category_axis(left, list(names), [2, 1])
        left.set_ylim(0.4, 2.6)
        left.set_xlabel("value")
        left.set_title("distributions")
        left.grid(axis="x", color="#dddddd", linewidth=0.6)
        style.legend_below(fig, (left,), ncol=2)
    else:
        fig, right = plt.subplots(figsize=(6, 2.8), layout="constrained")
    _speedup_bars(right, result)
    return fig


@renders("figure", SpeedupSuite)
def speedup_suite_figure(result: SpeedupSuite, context: RenderContext):
    """Each benchmark's speedup of the tested statistic, marked by its decision; 1 and the
    suite's overall gain drawn as lines."""
    import matplotlib.pyplot as plt

    chosen = "mean" if result.protocol == "speedup-mean" else "median"
    rows = len(result.benchmarks)
    fig, ax = plt.subplots(figsize=(8, 1.8 + 0.24 * rows), layout="constrained")
    positions = list(range(rows, 0, -1))
    for (_, r), y in zip(result.benchmarks, positions, strict=True):
        value = getattr(r.speedups, chosen)
        colour_, shape, filled = _DECISIONS.get(r.decision, _DECISIONS["not significant"])
        ax.plot([1.0, value], [y, y], color=colour_, linewidth=1.2, alpha=0.6)
        ax.plot([value], [y], marker=shape, color=colour_, linestyle="none", markersize=6,
                markerfacecolor=colour_ if filled else "white", label=r.decision)
    ax.axvline(1.0, color=style.REFERENCE, linewidth=0.8)
    ax.axvline(result.gain, color=style.BASELINE, linestyle="--", linewidth=1.0,
               label=f"overall gain {result.gain:.4g}×")
    style.category_axis(ax, [b for b, _ in result.benchmarks], positions)
    ax.set_ylim(0.4, rows + 0.6)
    if rows > 30:
        ax.tick_params(axis="y", labelsize=7)
    better = result.benchmarks[0][1].better
    ax.set_xlabel(f"{chosen} speedup of {style.label(result.candidate, 30)} over "
                  f"{style.label(result.baseline, 30)} ({better} > 1)")
    ax.set_title(f"{result.protocol}: {result.improved} of {result.total} benchmarks "
                 f"improved (α = {result.alpha:g}; {fmt_level(1 - result.alpha)} CI of the "
                 f"share {100 * result.proportion_low:.0f}%..{100 * result.proportion_high:.0f}%)")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    style.legend_below(fig, (ax,), ncol=4)
    return fig

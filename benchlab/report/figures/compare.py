"""Figures of `compare`: each sample's distribution with its mean CI, and the ratio CIs
against the threshold band; for a suite, a forest plot of every benchmark's ratio CI.

The raw values come from the CLI (`context.option("samples")`, a list of
(name, values)); without them the means and their CIs are drawn from the
result alone. Hierarchical results draw the top-level unit means, which are
what the CI rests on. The distributions are report/figures/distribution.py's
(density, values, mean with CI; a log axis when they span a wide range);
`context.option("gid")` names their SVG groups for the report's browser test.
"""

from __future__ import annotations

from typing import Any

from benchlab.notation import fmt_level
from benchlab.report.figures import distribution, style
from benchlab.result import RenderContext, renders
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.spec import statistic_of
from benchlab.stats.suite import SuiteResult


def _distributions(ax: Any, result: CompareResult, context: RenderContext) -> None:
    """Each sample's density, values and mean with its CI on the comparison's own axis
    (report/figures/distribution.py); without raw values the means and their CIs."""
    rows = distribution.rows_of(result, context.option("samples") or [])
    distribution.draw(ax, rows, result.unit, result.confidence,
                      distribution.what_of(result), context.option("gid") or "")
    level = f"{fmt_level(result.confidence)} CI"
    values = any(r.values.size for r in rows)
    shown = ("top-level unit means, and the mean with its" if result.hierarchies
             else "distributions, and the mean with its" if values else "means with their")
    ax.set_title(f"{shown} {level}")


def _look(c: Comparison) -> tuple[str, str, bool]:
    v = c.verdict
    return style.verdict_look(v.outcome, v.regression, v.direction)


def _ratios(ax: Any, result: CompareResult) -> None:
    comps = result.comparisons
    positions = list(range(len(comps), 0, -1))
    bounded = [c.ratio for c in comps if c.ratio is not None]
    limits = style.ratio_scale(ax, [r.low for r in bounded] + [r.estimate for r in bounded],
                               [r.high for r in bounded], result.threshold)
    style.threshold_band(ax, result.threshold)
    for c, y in zip(comps, positions, strict=True):
        v = c.verdict
        name = style.verdict_name(v.outcome, v.regression, v.direction)
        if c.ratio is None:
            ax.text(1.0, y, "no ratio (baseline mean ≤ 0 or out of range)", ha="center",
                    va="center", fontsize=8, color=style.INK)
            continue
        style.interval(ax, y, c.ratio.estimate, c.ratio.low, c.ratio.high, limits, _look(c),
                       label_=name)
    style.category_axis(ax, [f"{c.candidate} / {c.baseline}" for c in comps], positions)
    ax.set_ylim(0.4, len(comps) + 0.6)
    ax.set_xlabel(f"ratio of means with its {fmt_level(result.confidence)} CI")
    ax.set_title("candidate / baseline")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, which="both")
    ax.set_axisbelow(True)


@renders("figure", CompareResult)
def compare_figure(result: CompareResult, context: RenderContext):
    """Distributions (left) beside the ratio CIs with the threshold band (right)."""
    import matplotlib.pyplot as plt

    rows = max(len(result.samples), len(result.comparisons))
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(10, 1.6 + 0.55 * rows), width_ratios=(3, 2),
        layout="constrained")
    _distributions(left, result, context)
    _ratios(right, result)
    style.legend_below(fig, (left, right))
    return fig


def _suite_intervals(result: SuiteResult) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(benchmark, candidate) → (estimate, low, high) each verdict was read from: the
    decision's interval (Holm's level; of medians with --statistic median) where it is
    bounded, else the comparison's ratio CI; absent without a ratio."""
    decided = {(d.benchmark, d.candidate): d for d in result.decisions}
    out = {}
    for bench, r in result.benchmarks:
        for c in r.comparisons:
            d = decided.get((bench, c.candidate))
            if d is not None and d.scale == "ratio" and d.low is not None \
                    and d.high is not None:
                out[(bench, c.candidate)] = (d.estimate, d.low, d.high)
            elif c.ratio is not None:
                out[(bench, c.candidate)] = (c.ratio.estimate, c.ratio.low, c.ratio.high)
    return out


@renders("figure", SuiteResult)
def suite_figure(result: SuiteResult, context: RenderContext):
    """A forest plot: every benchmark's ratio CI per candidate, the threshold band, 1 marked,
    and the geometric mean(s) with their bootstrap CI below a rule."""
    import matplotlib.pyplot as plt

    candidates = list(dict.fromkeys(c.candidate for _, r in result.benchmarks
                                    for c in r.comparisons))
    several = len(candidates) > 1
    rows = len(result.benchmarks) + len(result.geometric_means) + 1
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.24 * rows * (1 + 0.35 * several)),
                           layout="constrained")
    shown = _suite_intervals(result)
    bounded = list(shown.values())
    geo = result.geometric_means
    threshold = result.benchmarks[0][1].threshold
    limits = style.ratio_scale(ax, [r[1] for r in bounded] + [g.low for g in geo],
                               [r[2] for r in bounded] + [g.high for g in geo], threshold)
    style.threshold_band(ax, threshold)
    step = 0.7 / len(candidates)
    names, positions = [], []
    seen: set[str] = set()
    y = rows
    for bench, r in result.benchmarks:
        names.append(bench)
        positions.append(y)
        for c in r.comparisons:
            k = candidates.index(c.candidate)
            at = y + (len(candidates) - 1) * step / 2 - k * step
            interval = shown.get((bench, c.candidate))
            if interval is None:
                ax.plot([1.0], [at], marker="x", color=style.INK, linestyle="none")
                continue
            look = _look(c)
            if several:
                look = (style.colour(k + 1), look[1], look[2])
            v = c.verdict
            name = style.verdict_name(v.outcome, v.regression, v.direction)
            seen.add(name)
            style.interval(ax, at, *interval, limits, look,
                           size=5, label_=None if several else name)
        y -= 1
    ax.axhline(y, color=style.INK, linewidth=0.6)  # the rule above the summary rows
    for g in geo:
        y -= 1
        k = candidates.index(g.candidate) if g.candidate in candidates else 0
        ax.errorbar([g.estimate], [y], xerr=[[g.estimate - g.low], [g.high - g.estimate]],
                    fmt="D", markersize=7, color=style.colour(k + 1) if several else style.INK,
                    markerfacecolor="white", capsize=3, linewidth=1.6, zorder=4,
                    label=None if several else "geometric mean (bootstrap CI)")
        names.append(f"geometric mean {g.candidate}" if several else "geometric mean")
        positions.append(y)
    style.category_axis(ax, names, positions)
    ax.set_ylim(y - 0.7, rows + 0.7)
    for tick in ax.get_yticklabels()[len(result.benchmarks):]:
        tick.set_fontweight("bold")
    if len(result.benchmarks) > 30:
        ax.tick_params(axis="y", labelsize=7)
    of = statistic_of(result).values
    if any(d.level != result.confidence for d in result.decisions):
        level = "CI its verdict was read from (Holm's levels)"
    else:
        level = f"{fmt_level(result.confidence)} CI"
    ax.set_xlabel(f"ratio of {of} (candidate / baseline) with the {level}")
    base = result.benchmarks[0][1].comparisons[0].baseline
    title = ", ".join(style.label(c, 30) for c in candidates)
    ax.set_title(f"{title} against {style.label(base, 30)}: "
                 f"{len(result.benchmarks)} benchmarks")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6, which="both")
    ax.set_axisbelow(True)
    if several:  # colour tells the candidate; shape and fill tell the verdict
        for name in sorted(seen):
            colour_, shape, filled = style.VERDICTS[name]
            ax.plot([], [], marker=shape, color=style.INK, linestyle="none", label=name,
                    markerfacecolor=style.INK if filled else "white")
        for k, name in enumerate(candidates):
            ax.plot([], [], color=style.colour(k + 1), linewidth=2, label=style.label(name, 30))
    style.legend_below(fig, (ax,))
    return fig

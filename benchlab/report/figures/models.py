"""Figures of the factorial models: `anova` (effects with CIs above the residual
diagnostics) and `qreg` (each coefficient against τ with its interval, the zero line and
the mean (OLS) effect as a reference band; de Oliveira et al. 2013, Figure 7)."""

from __future__ import annotations

import math

import numpy as np

from benchlab.notation import fmt_level
from benchlab.report.figures import style
from benchlab.result import RenderContext, renders
from benchlab.stats.anova import AnovaResult
from benchlab.stats.qreg import QregResult


def _effects(ax, result: AnovaResult) -> None:
    effects = [e for e in result.effects if e.term != "(Intercept)"]
    positions = list(range(len(effects), 0, -1))
    for e, y in zip(effects, positions, strict=True):
        known = e.low is not None and e.high is not None and math.isfinite(e.low)
        proven = known and (e.low > 0 or e.high < 0)  # type: ignore[operator]
        colour_ = style.CANDIDATE if proven else style.INK
        if known:
            ax.plot([e.low, e.high], [y, y], color=colour_, linewidth=1.5)
        ax.plot([e.estimate], [y], marker="s" if proven else "o", color=colour_,
                markerfacecolor=colour_ if proven else "white", linestyle="none",
                label="CI excludes 0" if proven else "CI includes 0")
    ax.axvline(0.0, color=style.REFERENCE, linewidth=0.8)
    style.category_axis(ax, [e.term for e in effects], positions)
    ax.set_ylim(0.4, len(effects) + 0.6)
    response = style.label(result.response)
    on = f"ln({response})" if result.transform == "log" else response
    ax.set_xlabel(f"effect q on {on} with its {fmt_level(result.confidence)} CI "
                  "(half the change from the low to the high level)")
    ax.set_title("effects")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)


def _residuals(left, right, result: AnovaResult) -> None:
    from benchlab.stats.anova import normal_qq

    left.scatter(result.fitted, result.residuals, s=12, alpha=0.7, color=style.BASELINE,
                 linewidths=0)
    left.axhline(0.0, color=style.REFERENCE, lw=0.8)
    left.set_xlabel("fitted value")
    left.set_ylabel("residual")
    left.set_title("residuals against fitted")
    theory, ordered = normal_qq(result.residuals)
    right.scatter(theory, ordered, s=12, alpha=0.7, color=style.BASELINE, linewidths=0)
    if ordered.size > 1:
        q1, q3 = ordered[[len(ordered) // 4, (3 * len(ordered)) // 4]]
        t1, t3 = theory[[len(theory) // 4, (3 * len(theory)) // 4]]
        if t3 != t1:
            right.axline((t1, q1), slope=(q3 - q1) / (t3 - t1), color=style.REFERENCE, lw=0.8)
    right.set_xlabel("normal quantile")
    right.set_ylabel("residual")
    right.set_title("normal Q-Q of the residuals")


@renders("figure", AnovaResult)
def anova_figure(result: AnovaResult, context: RenderContext):
    """Effects with CIs across the top; residuals against fitted and the normal Q-Q below."""
    import matplotlib.pyplot as plt

    terms = sum(e.term != "(Intercept)" for e in result.effects)
    top = 0.9 + 0.32 * max(terms, 2)
    fig = plt.figure(figsize=(9, top + 3.6), layout="constrained")
    grid = fig.add_gridspec(2, 2, height_ratios=(top, 3.2))
    _effects(fig.add_subplot(grid[0, :]), result)
    _residuals(fig.add_subplot(grid[1, 0]), fig.add_subplot(grid[1, 1]), result)
    style.legend_below(fig, fig.axes[:1], ncol=2)
    response = style.label(result.response)
    fig.suptitle(f"anova of {f'ln({response})' if result.transform == 'log' else response}"
                 f" ({result.n} observations)")
    return fig


def _qreg_panel(ax, result: QregResult, j: int, unit_label: str) -> None:
    taus = result.taus
    low, high = result.low[:, j], result.high[:, j]
    band = np.isfinite(low) & np.isfinite(high)
    level = f"{fmt_level(result.confidence)}"
    if result.ols is not None and result.ols_low is not None and result.ols_high is not None:
        lo, hi = float(result.ols_low[j]), float(result.ols_high[j])
        if math.isfinite(lo) and math.isfinite(hi):
            ax.axhspan(lo, hi, color=style.CANDIDATE, alpha=0.12, linewidth=0,
                       label=f"mean (OLS) {level} CI")
        ax.axhline(float(result.ols[j]), color=style.CANDIDATE, linestyle="--", linewidth=1.0,
                   label="mean (OLS) effect")
    if band.any():
        ax.fill_between(taus[band], low[band], high[band], color=style.BASELINE, alpha=0.25,
                        linewidth=0, label=f"quantile {level} CI")
    ax.plot(taus, result.coef[:, j], "o-", color=style.BASELINE, markersize=3, linewidth=1.2,
            label="quantile effect")
    ax.axhline(0.0, color=style.INK, linewidth=0.7)
    ax.set_title(style.label(result.names[j]), fontsize=9)
    ax.set_xlabel("τ")
    what = style.label(result.response) if j == 0 and result.names[j] == "(Intercept)" \
        else "effect"
    ax.set_ylabel(style.with_unit(what, unit_label))
    ax.set_xlim(0, 1)


@renders("figure", QregResult)
def qreg_figure(result: QregResult, context: RenderContext):
    """One panel per coefficient: the estimate against τ with its interval band, the zero
    line, and the OLS effect with its CI as a reference band."""
    import matplotlib.pyplot as plt

    p = len(result.names)
    cols = min(4, p)
    rows = math.ceil(p / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.7 * rows + 0.6),
                             squeeze=False, layout="constrained")
    unit_label = style.plot_text(result.unit) if result.unit else ""
    for j in range(p):
        _qreg_panel(axes[j // cols][j % cols], result, j, unit_label)
    for j in range(p, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    style.legend_below(fig, [axes[0][0]], ncol=4)
    fig.suptitle(f"quantile regression of {style.label(result.response)}: coefficients and "
                 f"{fmt_level(result.confidence)} intervals against τ")
    return fig

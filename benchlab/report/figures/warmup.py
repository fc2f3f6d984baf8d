"""The figure of `warmup`: small multiples, one panel per execution, its iterations in
order with the segments' means, the change points and the steady state shaded from its
start (report/warmup.py renders the rest)."""

from __future__ import annotations

import math

import numpy as np

from benchlab.report.figures import style
from benchlab.result import RenderContext, renders
from benchlab.stats.warmup import WarmupResult

MAX_PANELS = 48  # more executions: the first MAX_PANELS, the title says so
COLUMNS = 4
LOOK = {"flat": style.PALETTE[0], "warm-up": style.PALETTE[2], "slowdown": style.PALETTE[1],
        "no steady state": style.PALETTE[3]}


@renders("figure", WarmupResult)
def warmup_figure(result: WarmupResult, context: RenderContext):
    """One panel per execution (at most MAX_PANELS), in the result's order."""
    import matplotlib.pyplot as plt

    shown = result.executions[:MAX_PANELS]
    cols = min(COLUMNS, len(shown))
    rows = math.ceil(len(shown) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.3 * rows + 0.8),
                             squeeze=False, layout="constrained")
    everything = np.concatenate([e.values for e in shown])
    divisor, unit_label = style.display_unit(_Unit(result.unit), everything)
    for ax, e in zip(axes.flat, shown, strict=False):
        _panel(ax, e, divisor)
    for ax in list(axes.flat)[len(shown):]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(style.with_unit("value", unit_label))
    for ax in axes[-1, :]:
        ax.set_xlabel("iteration")
    style.legend_below(fig, list(axes.flat))
    more = (f" (the first {MAX_PANELS} of {len(result.executions)})"
            if len(result.executions) > MAX_PANELS else "")
    fig.suptitle(f"warm-up of {len(result.executions)} executions{more}: change points "
                 f"(PELT, {result.penalty_factor:g}·log n) and steady states")
    return fig


class _Unit:
    """The unit's name as style.display_unit reads it."""

    def __init__(self, name: str | None) -> None:
        self.name = name


def _panel(ax, e, divisor: float) -> None:
    y = e.values / divisor
    i = np.arange(y.size)
    out = np.zeros(y.size, dtype=bool)
    out[list(e.outliers)] = True
    ax.plot(i[~out], y[~out], ".", markersize=1.5, color=style.INK, alpha=0.45,
            label="iteration", rasterized=True)
    if out.any():
        ax.plot(i[out], y[out], "x", markersize=3, color=style.CANDIDATE, label="outlier")
    kept = i[~out]
    bounds = [0, *e.change_points, y.size]
    for a, b, mean in zip(bounds[:-1], bounds[1:], e.segment_means, strict=True):
        ax.hlines(mean / divisor, a, b - 1, color=style.BASELINE, linewidth=1.6,
                  label="segment mean")
    for c in e.change_points:
        ax.axvline(c, color=style.REFERENCE, linestyle=":", linewidth=0.9, label="change point")
    colour = LOOK[e.kind]
    if e.steady_start is not None:
        ax.axvspan(e.steady_start, y.size - 1, color=colour, alpha=0.12, label="steady state")
        ax.axvline(e.steady_start, color=colour, linewidth=1.4)
    low, high = np.percentile(y[kept], [0.5, 99.5]) if kept.size else (y.min(), y.max())
    pad = 0.15 * (high - low) if high > low else abs(high) * 0.05 + 1e-12
    ax.set_ylim(low - pad, high + pad)
    title = f"{style.label(e.benchmark, 24)}, {style.label(e.label, 20)}"
    ax.set_title(f"{title}\n{e.kind}" + ("" if e.steady_start is None
                                          else f" from {e.steady_start}"),
                 fontsize=8, color=colour if e.kind != "flat" else style.INK)
    ax.tick_params(labelsize=7)

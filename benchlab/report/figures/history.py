"""Figure of `history show`: a timeline per series (history/show.py).

Per commit its mean with the CI of the mean (a bar), in history order; the
confirmed changes as dashed vertical lines at their first commit, labelled
with the ratio; the commit ids as x labels, thinned to at most MAX_LABELS.
Nothing is computed here: the points are the result's.
"""

from __future__ import annotations

from benchlab.history.show import HistoryShow, SeriesView
from benchlab.notation import plural
from benchlab.report.figures import style
from benchlab.result import RenderContext, renders

MAX_LABELS = 16


def draw_series(ax, v: SeriesView, confidence: float) -> None:
    """One series' timeline on `ax`."""
    import numpy as np

    x = np.arange(len(v.points))
    mean = np.array([p.mean for p in v.points])
    low = np.array([np.nan if p.low is None else p.low for p in v.points])
    high = np.array([np.nan if p.high is None else p.high for p in v.points])
    ok = ~np.isnan(low)
    ax.vlines(x[ok], low[ok], high[ok], color=style.BAND, linewidth=1.2,
              label=f"{100 * confidence:g}% CI of the commit's mean")
    ax.plot(x, mean, color=style.colour(0), linewidth=0.8, marker="o",
            markersize=2.5 if len(x) > 100 else 4, label="mean per commit")
    where = {p.commit: i for i, p in enumerate(v.points)}
    for j, c in enumerate(v.changes):
        at = where[c.commit] - 0.5
        ax.axvline(at, color=style.REFERENCE, linestyle="--", linewidth=1,
                   label="change (first commit right of the line)" if j == 0 else None)
        ax.annotate(f"×{c.ratio.estimate:.3f}", (at, 1.0), xycoords=("data", "axes fraction"),
                    xytext=(3, -12), textcoords="offset points", fontsize=8)
    step = max(1, -(-len(x) // MAX_LABELS))
    ticks = x[::step]
    ax.set_xticks(ticks, [style.label(v.points[i].commit, 12) for i in ticks], rotation=45,
                  ha="right", fontsize=7)
    ax.set_xlim(-1, len(x))
    ax.set_ylabel(f"{style.label(v.metric, 20)}" + (f" ({v.unit})" if v.unit else ""))
    ax.grid(color="#dddddd", linewidth=0.6)
    ax.set_title(f"{style.label(v.benchmark)} ({style.label(v.machine, 20)}): "
                 f"{plural(len(v.points), 'commit')}, {plural(len(v.changes), 'change')}")


@renders("figure", HistoryShow)
def history_figure(result: HistoryShow, context: RenderContext):
    """One timeline panel per series."""
    import matplotlib.pyplot as plt

    n = max(1, len(result.series))
    fig, axes = plt.subplots(n, 1, figsize=(9, 1.0 + 3.0 * n), layout="constrained",
                             squeeze=False)
    for ax, v in zip(axes[:, 0], result.series, strict=False):
        draw_series(ax, v, result.confidence)
    if not result.series:
        axes[0, 0].text(0.5, 0.5, "no series to show", ha="center", va="center",
                        transform=axes[0, 0].transAxes)
    else:
        style.legend_below(fig, list(axes[:, 0]), ncol=3)
    return fig

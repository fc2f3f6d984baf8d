"""The one style of benchlab's figures: readable in print and in grey, no network fonts.

Colours come from the Okabe-Ito palette (distinct for colour-blind readers);
wherever colour carries meaning a marker shape or fill carries it too, so a
grey print still tells a regression from an improvement. Helpers here are
drawing conventions shared by every figure module (labels through
`escape.plot_text`, display units, ratio axes, the threshold band); they
compute no statistic. matplotlib is imported inside the functions only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchlab.escape import plot_text

# Colours that stay distinct in grey (Okabe-Ito order by luminance contrast).
BASELINE = "#0072B2"
CANDIDATE = "#D55E00"
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
BAND = "#999999"
INK = "#222222"
REFERENCE = "#555555"  # reference lines: 1, 0, the OLS mean

# A verdict's look: colour, marker, filled. Change markers are filled, the others hollow.
VERDICTS = {
    "regression": (CANDIDATE, "s", True),
    "improvement": ("#009E73", "^", True),
    "change": ("#CC79A7", "D", True),
    "equivalent": (BASELINE, "o", True),
    "inconclusive": (INK, "o", False),
}

MAX_POINTS = 2000  # points drawn per sample; more are thinned to this many quantiles
LABEL_CHARS = 48  # longer labels are shortened in the middle (the full name is in the data)
_TIME_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0,
                 "sec": 1.0, "min": 60.0, "h": 3600.0}
_LADDER = (("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0))


def use() -> None:
    """Select the non-interactive backend and benchlab's rc settings."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 150, "savefig.bbox": "tight",
        "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
        "xtick.labelsize": 8, "ytick.labelsize": 8, "legend.fontsize": 8,
        "axes.spines.top": False, "axes.spines.right": False,
        "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
        "svg.fonttype": "none", "svg.hashsalt": "benchlab",
        "path.simplify": True,
    })


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def marker(i: int) -> str:
    return MARKERS[i % len(MARKERS)]


def label(text: str, limit: int = LABEL_CHARS) -> str:
    """A data-borne name for a title or tick: controls escaped, ``$`` literal, at most
    `limit` characters (shortened in the middle, where names of one suite differ least)."""
    if len(text) > limit:
        keep = limit - 1
        text = text[: (keep + 1) // 2] + "…" + text[len(text) - keep // 2:]
    return plot_text(text)


def verdict_look(outcome: str, regression: bool, direction: str | None) -> tuple[str, str, bool]:
    """(colour, marker, filled) of a comparison's verdict."""
    if outcome == "change":
        return VERDICTS["regression" if regression else
                        "improvement" if direction is not None else "change"]
    return VERDICTS.get(outcome, VERDICTS["inconclusive"])


def verdict_name(outcome: str, regression: bool, direction: str | None) -> str:
    if outcome == "change":
        return "regression" if regression else "improvement" if direction else "change"
    return outcome


def display_unit(unit: Any, values: Sequence[float] | np.ndarray) -> tuple[float, str]:
    """(divisor, label) to show `values` of `unit` on an axis: times in ns/µs/ms/s by their
    size, other units as they are; label "" without a unit."""
    name = getattr(unit, "name", None) if unit is not None else None
    if not name:
        return 1.0, ""
    if name not in _TIME_SECONDS:
        return 1.0, plot_text(name)
    finite = np.abs(np.asarray(values, dtype=float))
    finite = finite[np.isfinite(finite) & (finite > 0)]
    if finite.size == 0:
        return 1.0, plot_text(name)
    seconds = float(np.median(finite)) * _TIME_SECONDS[name]
    shown, factor = _LADDER[-1]
    for cand, f in _LADDER:
        if seconds < f * 1000:
            shown, factor = cand, f
            break
    return factor / _TIME_SECONDS[name], shown


def with_unit(text: str, unit_label: str) -> str:
    return f"{text} ({unit_label})" if unit_label else text


def thinned(values: np.ndarray, limit: int = MAX_POINTS) -> np.ndarray:
    """At most `limit` values standing for the sample: evenly spaced order statistics, so
    the shape (and the extremes) survive while 10^7 values still draw in a moment."""
    x = np.asarray(values, dtype=float)
    if x.size <= limit:
        return x
    return np.sort(x)[np.linspace(0, x.size - 1, limit).round().astype(int)]


def jitter(n: int, width: float = 0.15) -> np.ndarray:
    """Offsets that spread n points across a strip, the same every time (no randomness in
    a figure: the same data give the same file)."""
    if n <= 1:
        return np.zeros(n)
    golden = (np.arange(n) * 0.6180339887498949) % 1.0  # evenly filled, not in data order
    return (golden - 0.5) * 2 * width


def strip(ax: Any, position: float, values: np.ndarray, colour_: str, *,
          violin: bool = True, size: float = 6.0) -> None:
    """One sample along the x axis at height `position`: a violin (from at most MAX_POINTS
    quantiles, when it has a spread and 5+ values) and its points."""
    x = thinned(values)
    if violin and x.size >= 5 and np.ptp(x) > 0:
        try:
            parts = ax.violinplot([x], [position], orientation="horizontal", widths=0.6,
                                  showextrema=False)
        except TypeError:  # matplotlib < 3.10
            parts = ax.violinplot([x], [position], vert=False, widths=0.6, showextrema=False)
        for body in parts["bodies"]:
            body.set_facecolor(colour_)
            body.set_edgecolor("none")
            body.set_alpha(0.18)
    alpha = 0.75 if x.size <= 200 else 0.35
    ax.scatter(x, position + jitter(x.size), s=size, color=colour_, alpha=alpha,
               linewidths=0, zorder=2, rasterized=x.size > 500)


def mean_with_ci(ax: Any, position: float, mean: float, low: float, high: float, *,
                 offset: float = 0.32, label_: str | None = None) -> None:
    """The mean (white-filled diamond) and its CI as a black bar just below the strip."""
    y = position - offset
    if math.isfinite(low) and math.isfinite(high):
        ax.plot([low, high], [y, y], color=INK, linewidth=1.6, solid_capstyle="butt", zorder=3)
        ax.plot([low, low], [y - 0.06, y + 0.06], color=INK, linewidth=1.0, zorder=3)
        ax.plot([high, high], [y - 0.06, y + 0.06], color=INK, linewidth=1.0, zorder=3)
    ax.plot([mean], [y], marker="D", markersize=5, markerfacecolor="white",
            markeredgecolor=INK, linestyle="none", zorder=4, label=label_)


def threshold_band(ax: Any, threshold: float, *, vertical: bool = True) -> None:
    """The no-change band 1 ± threshold (shaded) and the line at 1."""
    span = ax.axvspan if vertical else ax.axhspan
    line = ax.axvline if vertical else ax.axhline
    if threshold > 0:
        span(1 - threshold, 1 + threshold, color=BAND, alpha=0.22, linewidth=0, zorder=0,
             label=f"threshold ±{100 * threshold:g}%")
    line(1.0, color=REFERENCE, linewidth=0.8, zorder=1)


def ratio_scale(ax: Any, lows: Sequence[float], highs: Sequence[float],
                threshold: float = 0.0) -> tuple[float, float]:
    """Set the ratio axis limits around the finite bounds, 1 and the band; a log scale
    when they span more than a factor of 3. Returns the limits (for open-ended CIs)."""
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    values = [v for v in (*lows, *highs) if v is not None and math.isfinite(v) and v > 0]
    values += [1.0 - threshold if threshold < 1 else 1.0, 1.0 + threshold]
    lo, hi = min(values), max(values)
    if hi / lo > 3:
        ax.set_xscale("log")
        lo, hi = lo / 1.15, hi * 1.15
    else:
        pad = 0.06 * (hi - lo) or 0.05
        lo, hi = lo - pad, hi + pad
        ax.xaxis.set_major_locator(MaxNLocator(6, steps=[1, 2, 2.5, 5, 10]))
    ax.set_xlim(lo, hi)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}×"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    return lo, hi


def interval(ax: Any, y: float, estimate: float, low: float | None, high: float | None,
             limits: tuple[float, float], look: tuple[str, str, bool], size: float = 6.0,
             label_: str | None = None) -> None:
    """A horizontal CI with its estimate; an open-ended bound (Fieller's unbounded interval)
    runs to the axis edge and ends in an arrow head."""
    colour_, shape, filled = look
    left = low if low is not None and math.isfinite(low) and low > 0 else limits[0]
    right = high if high is not None and math.isfinite(high) else limits[1]
    ax.plot([left, right], [y, y], color=colour_, linewidth=1.4, zorder=3)
    if left == limits[0] and (low is None or not math.isfinite(low) or low <= 0):
        ax.plot([left], [y], marker="<", color=colour_, markersize=5, zorder=3)
    if right == limits[1] and (high is None or not math.isfinite(high)):
        ax.plot([right], [y], marker=">", color=colour_, markersize=5, zorder=3)
    ax.plot([estimate], [y], marker=shape, markersize=size, color=colour_,
            markerfacecolor=colour_ if filled else "white", markeredgewidth=1.2,
            linestyle="none", zorder=4, label=label_)


def duration_axis(ax: Any, axis: str = "x") -> None:
    """Tick labels of an axis in seconds written as durations (ms, s, min, h, d)."""
    from matplotlib.ticker import FuncFormatter

    formatter = FuncFormatter(lambda v, _: duration(v))
    getattr(ax, f"{axis}axis").set_major_formatter(formatter)


def duration(seconds: float) -> str:
    """90 → "1.5 min": a budget or cost as people say it."""
    from benchlab.report.numbers import fmt_duration

    return "0" if not math.isfinite(seconds) or seconds <= 0 else fmt_duration(seconds)


def legend_below(fig: Any, axes: Sequence[Any], ncol: int = 4) -> None:
    """One legend under the figure for all `axes`, entries with the same label merged."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, text in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(text, h)
    if seen:
        fig.legend(list(seen.values()), list(seen), loc="outside lower center", frameon=False,
                   ncol=min(ncol, len(seen)))


def category_axis(ax: Any, labels: Sequence[str], positions: Sequence[float]) -> None:
    """Names on the y axis, first at the top."""
    ax.set_yticks(list(positions))
    ax.set_yticklabels([label(t) for t in labels])
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)

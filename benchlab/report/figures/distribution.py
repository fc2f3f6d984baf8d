"""Each sample's distribution on its own benchmark's axis: density, dots, mean with its CI.

A row per sample, as Criterion draws a benchmark: the kernel density of the
values (stats/density.py) as a shaded shape, the values as dots below it (at
most POINTS, evenly spaced order statistics, so the extremes stay), and the
mean with its CI as a diamond on a bar. The axis belongs to one benchmark — a
9 µs benchmark and a 300 µs one each fill their own panel — and is
logarithmic when the panel's values span more than a factor of WIDE (the
density is then estimated on the logs, the shape the eye sees on that axis).

`draw` draws into any axes (compare's figure uses it for its left half);
`Panels` draws the report's small figure per benchmark on one reused
matplotlib figure per row count, since a new figure per benchmark costs its
axes and ticks again (benchmarks/report.py measures both). The dots of a
sample are one SVG path (round-capped strokes), with the `gid` given, so a
browser test can read where they fell.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchlab.notation import fmt_level
from benchlab.report.figures import style
from benchlab.stats.compare import CompareResult
from benchlab.stats.density import kernel_density
from benchlab.stats.descriptive import mean_interval

WIDE = 3.0  # a log axis beyond this factor between the panel's extremes (as ratio_scale)
POINTS = 150  # dots per sample at most
GRID = 128  # density points across the axis
_DENSITY, _DOTS, _CI = 0.42, 0.16, 0.36  # heights in a row: shape above, dots, bar below
_NAME_CHARS = 24  # a panel's row labels; the section heading carries the full name


# Path data in points to 2 decimals (matplotlib writes 6): a third of a panel's bytes, and a
# hundredth of a point is far below what a screen or a printer shows.
_PATH = re.compile(r' d="([^"]*)"')
_DIGITS = re.compile(r"(\.\d\d)\d+")


def _rounded(match: re.Match[str]) -> str:
    return ' d="' + _DIGITS.sub(r"\1", match.group(1)) + '"'


@dataclass(frozen=True)
class Row:
    """One sample of a panel: what its dots show and its mean with the CI."""

    name: str
    values: np.ndarray
    mean: float
    low: float
    high: float


def rows_of(result: CompareResult, samples: Sequence[tuple[str, Any]] = ()) -> list[Row]:
    """The rows of a comparison: for hierarchical data the top-level unit means (what the
    CI rests on) with the hierarchical CI, else the raw `samples` (matched by name; none
    when absent) with Student's t CI of the mean."""
    if result.hierarchies:
        return [Row(h.name, np.asarray(h.top_means, dtype=float), h.grand_mean, h.low, h.high)
                for h in result.hierarchies]
    raw = {name: np.asarray(x, dtype=float) for name, x in samples}
    rows = []
    for d in result.samples:
        low, high = mean_interval(d, result.confidence)
        rows.append(Row(d.name, raw.get(d.name, np.empty(0)), d.mean, low, high))
    return rows


def _finite(rows: Sequence[Row]) -> np.ndarray:
    parts = [r.values[np.isfinite(r.values)] for r in rows]
    parts.append(np.array([r.mean for r in rows if math.isfinite(r.mean)]))
    return np.concatenate(parts)


def log_axis(rows: Sequence[Row]) -> bool:
    """Whether the panel reads better on a log axis: every value and mean positive and the
    largest more than WIDE times the smallest."""
    x = _finite(rows)
    return bool(x.size and x.min() > 0 and x.max() > WIDE * x.min())


@dataclass(frozen=True)
class Layout:
    """A panel's axis: the display unit, whether it is logarithmic, and its limits (in
    the logs of the displayed values when it is)."""

    divisor: float
    unit_label: str
    log: bool
    lo: float
    hi: float

    def limits(self) -> tuple[float, float]:
        return (math.exp(self.lo), math.exp(self.hi)) if self.log else (self.lo, self.hi)


def layout(rows: Sequence[Row], unit: Any) -> Layout:
    """The axis of the rows: values shown in a readable unit, a log scale when they span
    more than WIDE, limits around every value and every CI bound (3% padding)."""
    divisor, unit_label = style.display_unit(unit, _finite(rows))
    shown = _scaled(rows, divisor)
    log = log_axis(shown)
    ends = list(_finite(shown)) + [b for r in shown for b in (r.low, r.high)
                                   if math.isfinite(b) and (b > 0 or not log)]
    if not ends:
        ends = [1.0]
    lo, hi = (math.log(min(ends)), math.log(max(ends))) if log else (min(ends), max(ends))
    pad = 0.03 * (hi - lo) or (0.05 if log else 0.05 * abs(lo) or 0.5)
    return Layout(divisor, unit_label, log, lo - pad, hi + pad)


def _scaled(rows: Sequence[Row], divisor: float) -> list[Row]:
    return [Row(r.name, r.values / divisor, r.mean / divisor, r.low / divisor,
                r.high / divisor) for r in rows]


@dataclass(frozen=True)
class Geometry:
    """What one row draws, in data coordinates: the density's closed outline (None without
    one), the dots as strokes separated by NaN, the CI bar with its end ticks, the mean."""

    shape: np.ndarray | None
    dots: tuple[np.ndarray, np.ndarray]
    bar: tuple[np.ndarray, np.ndarray]
    mean: tuple[float, float]


def geometry(row: Row, y: float, axis: Layout) -> Geometry:
    """The row at height y (values already in the display unit): density above y, dots
    below it, the mean's CI bar lowest."""
    values = row.values[np.isfinite(row.values)]
    shape = None
    fit = values[values > 0] if axis.log else values
    if fit.size >= 5:
        grid = np.linspace(axis.lo, axis.hi, GRID)
        density = kernel_density(np.log(fit) if axis.log else fit, grid)
        top = density.max()
        if top > 0:
            keep = np.flatnonzero(density > 1e-3 * top)
            grid, density = grid[keep[0]:keep[-1] + 1], density[keep[0]:keep[-1] + 1]
            xs = np.exp(grid) if axis.log else grid
            shape = np.column_stack([np.r_[xs, xs[-1], xs[0]],
                                     np.r_[y + _DENSITY * density / top, y, y]])
    x = style.thinned(values, POINTS)
    base = y - _DOTS + style.jitter(x.size, _DOTS / 2)
    dx, dy = np.repeat(x, 3), np.repeat(base, 3)
    dx[2::3] = dy[2::3] = np.nan
    dy[1::3] += 0.03
    edge = math.exp(axis.lo) if axis.log else axis.lo
    low = row.low if math.isfinite(row.low) and (row.low > 0 or not axis.log) else edge
    high = row.high if math.isfinite(row.high) else low
    yb = y - _CI
    bar = (np.array([low, high, np.nan, low, low, np.nan, high, high]),
           np.array([yb, yb, np.nan, yb - .06, yb + .06, np.nan, yb - .06, yb + .06]))
    return Geometry(shape, (dx, dy), bar, (row.mean, yb))


def _axis(ax: Any, axis: Layout, names: Sequence[str], what: str, label_names: int) -> None:
    """Scale, limits, ticks and labels of a panel."""
    from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator

    ax.set_xscale("log" if axis.log else "linear")
    ax.set_xlim(*axis.limits())
    ax.xaxis.set_major_locator(LogLocator(10, subs=(1.0, 2.0, 5.0)) if axis.log
                               else MaxNLocator(6, steps=[1, 2, 2.5, 5, 10]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:.4g}"))
    positions = list(range(len(names), 0, -1))
    ax.set_ylim(0.45, len(names) + 0.55)
    ax.set_yticks(positions)
    ax.set_yticklabels([style.label(n, label_names) for n in names])
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    ax.set_xlabel(style.with_unit(style.label(what), axis.unit_label)
                  + (", log scale" if axis.log else ""))
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)


class _Artists:
    """The artists of one row, made once and given new data for each panel."""

    def __init__(self, ax: Any, k: int, label_: str | None = None) -> None:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Polygon

        colour = style.colour(k)
        self.shape = Polygon(np.zeros((3, 2)), closed=True, facecolor=colour,
                             edgecolor=colour, alpha=0.3, linewidth=0.8, zorder=1)
        self.dots = Line2D([], [], color=colour, linewidth=3.0, solid_capstyle="round",
                           zorder=2)
        self.bar = Line2D([], [], color=style.INK, linewidth=1.2, solid_capstyle="butt",
                          zorder=3)
        self.mean = Line2D([], [], marker="D", markersize=5, markerfacecolor="white",
                           markeredgecolor=style.INK, linestyle="none", zorder=4,
                           label=label_)
        for artist in (self.shape, self.dots, self.bar, self.mean):
            ax.add_artist(artist)  # no autoscaling: the limits are the layout's

    def show(self, g: Geometry, gid: str) -> None:
        self.shape.set_visible(g.shape is not None)
        if g.shape is not None:
            self.shape.set_xy(g.shape)
        self.dots.set_data(*g.dots)
        self.dots.set_alpha(0.8 if g.dots[0].size <= 180 else 0.55)
        self.dots.set_gid(gid or None)
        self.bar.set_data(*g.bar)
        self.mean.set_data([g.mean[0]], [g.mean[1]])


def draw(ax: Any, rows: Sequence[Row], unit: Any, confidence: float, what: str,
         gid: str = "", label_names: int = style.LABEL_CHARS) -> bool:
    """Draw the rows (first at the top) on `ax` with their own x scale; returns whether the
    axis is logarithmic. `gid` names the dots of row k "{gid}-dots-{k}" and the axes'
    background "{gid}-axes" in the SVG."""
    axis = layout(rows, unit)
    label_ = f"mean and its {fmt_level(confidence)} CI"
    shown = _scaled(rows, axis.divisor)
    for k, (row, y) in enumerate(zip(shown, range(len(shown), 0, -1), strict=True)):
        _Artists(ax, k, label_ if k == 0 else None).show(
            geometry(row, y, axis), f"{gid}-dots-{k}" if gid else "")
    _axis(ax, axis, [r.name for r in rows], what, label_names)
    ax.patch.set_gid(f"{gid}-axes" if gid else None)
    return axis.log


def what_of(result: CompareResult) -> str:
    """The x axis's quantity: the measurements, or the means of the top-level units."""
    if result.hierarchies:
        return f"mean of each {result.hierarchies[0].components[0].name}"
    return "measurement"


class Panels:
    """The report's small figure per benchmark, drawn on one figure per row count that is
    reused (cleared of its artists) from one benchmark to the next; close() when done."""

    WIDTH, LEFT, ROW, BOTTOM, TOP = 7.5, 1.75, 0.62, 0.5, 0.12  # inches

    def __init__(self) -> None:
        style.use()
        self._figures: dict[int, tuple[Any, Any, list[_Artists]]] = {}

    def _frame(self, rows: int) -> tuple[Any, Any, list[_Artists]]:
        import matplotlib.pyplot as plt

        if rows not in self._figures:
            height = self.BOTTOM + self.TOP + self.ROW * rows
            fig = plt.figure(figsize=(self.WIDTH, height))
            ax = fig.add_axes((self.LEFT / self.WIDTH, self.BOTTOM / height,
                               1 - (self.LEFT + 0.25) / self.WIDTH,
                               self.ROW * rows / height))
            self._figures[rows] = (fig, ax, [_Artists(ax, k) for k in range(rows)])
        return self._figures[rows]

    def svg(self, result: CompareResult, samples: Sequence[tuple[str, Any]],
            gid: str) -> tuple[str, bool]:
        """The benchmark's panel as an `<svg>` element, and whether its axis is log."""
        import matplotlib.pyplot as plt

        rows = rows_of(result, samples)
        fig, ax, artists = self._frame(len(rows))
        axis = layout(rows, result.unit)
        shown = _scaled(rows, axis.divisor)
        for k, (row, y) in enumerate(zip(shown, range(len(shown), 0, -1), strict=True)):
            artists[k].show(geometry(row, y, axis), f"{gid}-dots-{k}")
        _axis(ax, axis, [r.name for r in rows], what_of(result), _NAME_CHARS)
        ax.patch.set_gid(f"{gid}-axes")
        out = io.StringIO()
        with plt.rc_context({"savefig.bbox": "standard"}):  # a fixed box: no second draw
            fig.savefig(out, format="svg", metadata={"Date": None})
        text = out.getvalue()
        return _PATH.sub(_rounded, text[text.find("<svg"):]), axis.log

    def close(self) -> None:
        import matplotlib.pyplot as plt

        for fig, _, _ in self._figures.values():
            plt.close(fig)
        self._figures.clear()

    def __enter__(self) -> Panels:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

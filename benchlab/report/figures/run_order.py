"""The run-order plot of a store: each measurement against its place in time.

`benchlab run` records every measurement with its trial's sequence number and
its iteration, warm-up included; plotted in that order, per alternative, drift
(a slow trend over the run), warm-up (the first iterations of an execution set
apart) and interference (a burst of slow trials) become visible where a summary
hides them. The plot is drawn as inline SVG by hand: the report embeds one per
benchmark, with no matplotlib and nothing fetched, and every label from the
store (alternatives, levels, units) is escaped.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np

# Okabe-Ito colours (distinct for colour-blind readers); the marker shape differs too.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
SHAPES = ("circle", "square", "triangle", "diamond")
WIDTH, HEIGHT = 640, 250
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 150, 14, 40


@dataclass(frozen=True)
class Series:
    """One alternative's measurements in run order: sequence numbers, values, warm-up flags."""

    label: str
    seq: np.ndarray
    values: np.ndarray
    warmup: np.ndarray


@dataclass(frozen=True)
class Cut:
    """`--warmup auto` on one execution: the sequence numbers of its first measured
    iteration, of its steady state's start (None: it has none) and of its last."""

    first: int
    start: int | None
    last: int


@dataclass(frozen=True)
class RunOrder:
    """The run order of one benchmark (None: the whole store) for one metric, and the
    executions' cuts when the analysis cut them at their steady states."""

    group: str | None
    metric: str
    unit: str
    series: tuple[Series, ...]
    cuts: tuple[Cut, ...] = ()


def run_orders(path: str, metric: str | None = None, benchmark: str | None = None,
               steady: dict[str, str | None] | None = None) -> list[RunOrder]:
    """The store's measurements, warm-up included, in the order they were taken.

    The sequence number counts measurements across the whole run (trial by
    trial, iteration by iteration), so that every plot of one store shares its
    time axis. With `benchmark` naming one of the store's factors there is one
    plot per level of it; each series is an alternative with the other factors.
    `steady` (--warmup auto: trial → the iteration its steady state starts at, None
    without one; data/steady_state.SteadyStateCut.by_trial) gives each plot its cuts.
    """
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        metrics = store.metrics()
        names = [m for m, _ in metrics]
        chosen = metric if metric in names else (names[0] if names else None)
        factor_names = store.factor_names()
        rows = store.rows(chosen, warmup=True) if chosen is not None else []
    finally:
        store.close()
    if not rows:
        return []
    unit = dict(metrics)[chosen] or ""
    order = sorted(range(len(rows)), key=lambda i: (rows[i].trial, rows[i].iteration))
    seq = np.empty(len(rows), dtype=np.int64)
    seq[order] = np.arange(1, len(rows) + 1)
    split = benchmark if benchmark in factor_names else None
    groups: dict[str | None, dict[str, list[int]]] = {}
    for i, r in enumerate(rows):
        factors = dict(r.factors)
        group = factors.pop(split) if split else None
        label = " ".join([r.alternative, *(f"{k}={v}" for k, v in factors.items())])
        groups.setdefault(group, {}).setdefault(label, []).append(i)
    out = []
    for group, series in groups.items():
        parts = []
        for label, index in series.items():
            index = sorted(index, key=lambda i: seq[i])
            parts.append(Series(label, seq[index], np.array([rows[i].value for i in index]),
                                np.array([rows[i].warmup for i in index], dtype=bool)))
        members = [i for index in series.values() for i in index]
        out.append(RunOrder(group, chosen, unit, tuple(parts),
                            _cuts(rows, seq, members, steady or {})))
    return out


def _cuts(rows, seq: np.ndarray, members: list[int],
          steady: dict[str, str | None]) -> tuple[Cut, ...]:
    """The cut of every execution among `members` (row indices) that `steady` names."""
    trials: dict[str, list[int]] = {}
    for i in members:
        if str(rows[i].trial) in steady and not rows[i].warmup:
            trials.setdefault(str(rows[i].trial), []).append(i)
    out = []
    for trial, index in trials.items():
        at = steady[trial]
        where = [int(seq[i]) for i in index]
        start = next((int(seq[i]) for i in index if str(rows[i].iteration) == at), None)
        out.append(Cut(min(where), start, max(where)))
    return tuple(sorted(out, key=lambda c: c.first))


def ticks(low: float, high: float, count: int = 5) -> list[float]:
    """About `count` round values spanning [low, high]."""
    if not high > low:
        return [low]
    raw = (high - low) / count
    step = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * step:
            step *= factor
            break
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step + 1e-9) + 1)]


def marker(shape: str, x: float, y: float, colour: str, hollow: bool) -> str:
    fill = "none" if hollow else colour
    paint = f'fill="{fill}" stroke="{colour}" stroke-width="1.2"'
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" {paint}/>'
    if shape == "square":
        return f'<rect x="{x - 2.7:.1f}" y="{y - 2.7:.1f}" width="5.4" height="5.4" {paint}/>'
    if shape == "triangle":
        return (f'<path d="M{x:.1f} {y - 3.5:.1f}L{x + 3.3:.1f} {y + 2.5:.1f}'
                f'L{x - 3.3:.1f} {y + 2.5:.1f}Z" {paint}/>')
    return (f'<path d="M{x:.1f} {y - 3.6:.1f}L{x + 3.3:.1f} {y:.1f}L{x:.1f} {y + 3.6:.1f}'
            f'L{x - 3.3:.1f} {y:.1f}Z" {paint}/>')


CUT_FILL, NO_STEADY_FILL = "#999999", "#E69F00"  # --warmup auto's marks


def _cut_marks(cuts: tuple[Cut, ...], px, top: float, height: float) -> list[str]:
    """--warmup auto's marks, under the points: each execution's cut iterations shaded, a
    dashed line at its steady state's start; an execution without one shaded whole in
    orange."""
    out = []
    for c in cuts:
        end = c.start if c.start is not None else c.last
        fill = CUT_FILL if c.start is not None else NO_STEADY_FILL
        if end > c.first or c.start is None:
            x0, x1 = px(c.first - 0.5), px(end - 0.5 if c.start is not None else end + 0.5)
            out.append(f'<rect class="cut" x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 0.5):.1f}" '
                       f'height="{height}" fill="{fill}" fill-opacity="0.25"/>')
        if c.start is not None:
            x = px(c.start - 0.5)
            out.append(f'<line class="steady-start" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" '
                       f'y2="{top + height}" stroke="#333" stroke-dasharray="3 2"/>')
    return out


def run_order_svg(plot: RunOrder) -> str:
    """The run-order plot as an inline `<svg>` element (escaped labels, no external refs)."""
    esc = html.escape
    xs = np.concatenate([s.seq for s in plot.series])
    ys = np.concatenate([s.values for s in plot.series])
    x0, x1 = float(xs.min()), float(xs.max())
    y0, y1 = float(ys.min()), float(ys.max())
    pad = (y1 - y0) * 0.06 or abs(y0) * 0.05 or 1.0
    y0, y1 = y0 - pad, y1 + pad
    if x1 == x0:
        x0, x1 = x0 - 1, x1 + 1
    w, h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def px(x: float) -> float:
        return _LEFT + (x - x0) / (x1 - x0) * w

    def py(y: float) -> float:
        return _TOP + (y1 - y) / (y1 - y0) * h

    title = f"run order of {plot.group}" if plot.group is not None else "run order"
    parts = [f'<svg class="run-order" role="img" '
             f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'aria-label="{esc(title)}"><title>{esc(title)}</title>',
             f'<rect x="{_LEFT}" y="{_TOP}" width="{w}" height="{h}" fill="#fff" '
             f'stroke="#888"/>']
    for t in ticks(y0, y1):
        parts.append(f'<line x1="{_LEFT}" x2="{_LEFT + w}" y1="{py(t):.1f}" y2="{py(t):.1f}" '
                     f'stroke="#e4e4e4"/><text x="{_LEFT - 5}" y="{py(t) + 4:.1f}" '
                     f'text-anchor="end" font-size="11">{t:.4g}</text>')
    for t in ticks(x0, x1):
        parts.append(f'<text x="{px(t):.1f}" y="{_TOP + h + 15}" text-anchor="middle" '
                     f'font-size="11">{t:.0f}</text>')
    unit = f" ({esc(plot.unit)})" if plot.unit else ""
    parts.append(f'<text x="{_LEFT + w / 2:.1f}" y="{HEIGHT - 6}" text-anchor="middle" '
                 f'font-size="12">measurement, in the order taken</text>')
    parts.append(f'<text transform="translate(13 {_TOP + h / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle" font-size="12">{esc(plot.metric)}{unit}</text>')
    parts.extend(_cut_marks(plot.cuts, px, _TOP, h))
    for k, s in enumerate(plot.series):
        colour, shape = COLOURS[k % len(COLOURS)], SHAPES[k % len(SHAPES)]
        parts.append(f'<g class="series" data-label="{esc(s.label)}">')
        parts.extend(marker(shape, px(x), py(y), colour, bool(wu))
                     for x, y, wu in zip(s.seq, s.values, s.warmup, strict=True))
        parts.append("</g>")
        ly = _TOP + 8 + 18 * k
        parts.append(marker(shape, WIDTH - _RIGHT + 14, ly, colour, False))
        parts.append(f'<text x="{WIDTH - _RIGHT + 22}" y="{ly + 4}" font-size="11">'
                     f'{esc(s.label)}</text>')
    row = len(plot.series)
    if any(s.warmup.any() for s in plot.series):
        ly = _TOP + 8 + 18 * row
        row += 1
        parts.append(marker("circle", WIDTH - _RIGHT + 14, ly, "#555", True))
        parts.append(f'<text x="{WIDTH - _RIGHT + 22}" y="{ly + 4}" font-size="11">'
                     f'hollow: warm-up</text>')
    for fill, words, shown in ((CUT_FILL, "cut: before the steady state",
                                any(c.start is not None for c in plot.cuts)),
                               (NO_STEADY_FILL, "no steady state",
                                any(c.start is None for c in plot.cuts))):
        if shown:
            ly = _TOP + 8 + 18 * row
            row += 1
            parts.append(f'<rect x="{WIDTH - _RIGHT + 9}" y="{ly - 5}" width="10" height="10" '
                         f'fill="{fill}" fill-opacity="0.35"/>')
            parts.append(f'<text x="{WIDTH - _RIGHT + 22}" y="{ly + 4}" font-size="11">'
                         f'{words}</text>')
    parts.append("</svg>")
    return "\n".join(parts)

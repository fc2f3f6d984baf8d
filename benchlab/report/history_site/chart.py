"""The SVG charts of the history site, drawn by hand: a sparkline per series for the index
and the overview of a whole series (means, their CIs, its changes) on its page.

The overview shows every commit (1,000 commits are 1,000 points of one polyline); the
page's script (assets/site.js) draws the detail of the window brushed on it. Both charts
place commit i of the series at the same x, so the script reads the mapping from the
overview's data-* attributes. Coordinates are rounded to 0.1 px: the same data give the
same bytes, which is what an incremental publish compares.
"""

from __future__ import annotations

import math

import numpy as np

from benchlab.escape import terminal
from benchlab.history.check import Change
from benchlab.report.html_format import esc
from benchlab.units import Unit

SPARK_W, SPARK_H, SPARK_POINTS = 120, 28, 100
WIDTH, HEIGHT = 960, 260
LEFT, RIGHT, TOP, BOTTOM = 78, 12, 12, 34
POINTS = 100  # up to this many commits, each mean is also drawn as a dot


def shown_text(value: object) -> str:
    """A name (or any text from the history) as HTML text: control characters as visible
    escapes first (escape.terminal: a newline, a bidirectional override cannot rewrite what
    is around it), then HTML-escaped. Attribute values that carry data keep the exact name
    (html_format.esc alone)."""
    return esc(terminal(str(value)))


def _coords(x: np.ndarray, y: np.ndarray) -> str:
    return " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(x.tolist(), y.tolist(), strict=True))


def _binned(values: np.ndarray, points: int) -> np.ndarray:
    """The values averaged in `points` equal bins when there are more of them."""
    if values.size <= points:
        return values
    bins = np.arange(values.size) * points // values.size
    return np.bincount(bins, weights=values) / np.bincount(bins)


def _range(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if not hi > lo:
        pad = abs(lo) * 0.05 or 1.0
        return lo - pad, hi + pad
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def sparkline(means: np.ndarray, mark: int | None, css: str) -> str:
    """The series' means (averaged into at most SPARK_POINTS bins), min to max of the bins,
    with a tick at position `mark` (the latest change) when there is one."""
    y = _binned(np.asarray(means, dtype=float), SPARK_POINTS)
    lo, hi = _range(y)
    xs = np.linspace(1, SPARK_W - 1, y.size) if y.size > 1 else np.array([SPARK_W / 2])
    ys = SPARK_H - 2 - (y - lo) / (hi - lo) * (SPARK_H - 4)
    parts = [f'<svg class="spark {css}" viewBox="0 0 {SPARK_W} {SPARK_H}" width="{SPARK_W}" '
             f'height="{SPARK_H}" role="img" aria-label="means per commit">']
    if mark is not None and means.size > 1:
        mx = 1 + mark / (means.size - 1) * (SPARK_W - 2)
        parts.append(f'<line class="mark" x1="{mx:.1f}" x2="{mx:.1f}" y1="0" y2="{SPARK_H}"/>')
    parts.append(f'<polyline points="{_coords(xs, ys)}"/></svg>')
    return "".join(parts)


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About `count` round values (1, 2 or 5 × 10^k apart) within [lo, hi]."""
    span = hi - lo
    if not span > 0 or not math.isfinite(span):
        return [lo]
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step + 1e-9) + 1)]


def axis_labels(ticks: list[float], unit: Unit) -> list[str]:
    """The labels of an axis's ticks in one unit, chosen from the axis's largest tick by the
    unit's scaling (units.py: 950 ms and 1.1 s on one axis are 0.95 s and 1.10 s), each with
    the decimals the step between ticks needs (nice_ticks: 1, 2 or 5 × 10^k)."""
    from benchlab.notation import significant

    finite = [abs(t) for t in ticks if math.isfinite(t)]
    name, factor = unit.display(max(finite) if finite else 0.0)
    suffix = f" {name}" if name else ""
    if len(ticks) < 2:
        return [f"{significant(t / factor, 4)}{suffix}" for t in ticks]
    step = abs(ticks[1] - ticks[0]) / factor
    places = max(0, math.ceil(-math.log10(step) - 1e-9)) if step > 0 else 0
    return [f"{t / factor + 0.0:.{places}f}{suffix}" for t in ticks]


def overview(means: np.ndarray, low: np.ndarray, high: np.ndarray, shas: list[str],
             changes: tuple[Change, ...], transients: list[int], unit: Unit) -> str:
    """Every commit of the series: its mean (a line), the CI of each mean (a band; a commit
    with one unit has none), a line at each step, a band over each episode and change at
    the head, a dot at each transient. The y ticks are in `unit`, one display unit for the
    axis (axis_labels); `shas` are the series' commits, oldest first."""
    n = means.size
    y_lo, y_hi = _range(np.concatenate([means, low, high]))
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    dx = pw / (n - 1) if n > 1 else 0.0

    def sx(i) -> np.ndarray:  # one commit: in the middle
        at = np.asarray(i, dtype=float)
        return LEFT + (at * dx if n > 1 else np.full(at.shape, pw / 2))

    def sy(v) -> np.ndarray:
        return TOP + (y_hi - np.asarray(v, dtype=float)) / (y_hi - y_lo) * ph

    index = np.arange(n)
    where = {sha: i for i, sha in enumerate(shas)}
    out = [f'<svg class="overview" id="overview" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="every commit\'s mean '
           f'and CI" data-n="{n}" data-left="{LEFT}" data-top="{TOP}" data-width="{pw}" '
           f'data-height="{ph}" data-lo="{y_lo!r}" data-hi="{y_hi!r}">',
           f'<rect class="frame" x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}"/>']
    ticks = nice_ticks(y_lo, y_hi)
    for v, text in zip(ticks, axis_labels(ticks, unit), strict=True):
        y = float(sy(v))
        out.append(f'<line class="grid" x1="{LEFT}" x2="{LEFT + pw}" y1="{y:.1f}" '
                   f'y2="{y:.1f}"/><text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{shown_text(text)}</text>')
    for i in sorted({0, n - 1, *((n - 1) * k // 4 for k in range(1, 4))}):
        x = float(sx(i))
        anchor = "middle" if n == 1 else "start" if i == 0 else "end" if i == n - 1 \
            else "middle"
        out.append(f'<text class="tick" x="{x:.1f}" y="{HEIGHT - BOTTOM + 16}" '
                   f'text-anchor="{anchor}">{shown_text(shas[i][:8])}</text>')
    for c in changes:
        start = where[c.commit]
        css = verdict_class(c)
        if c.kind == "step":
            x = float(sx(start - 0.5))
            out.append(f'<line class="step {css}" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" '
                       f'y2="{TOP + ph}"><title>{shown_text(_title(c))}</title></line>')
        else:
            end = where[c.end_commit] if c.end_commit is not None else n
            a = max(float(sx(start - 0.5)), LEFT)
            b = min(float(sx(end - 0.5)), LEFT + pw)
            out.append(f'<rect class="span {css}" x="{a:.1f}" y="{TOP}" '
                       f'width="{max(b - a, 1.0):.1f}" height="{ph}"><title>{shown_text(_title(c))}'
                       '</title></rect>')
    band = np.isfinite(low) & np.isfinite(high)
    lo_line, hi_line = np.where(band, low, means), np.where(band, high, means)
    if band.any():
        xs = sx(index)
        out.append(f'<polygon class="band" points="{_coords(xs, sy(hi_line))} '
                   f'{_coords(xs[::-1], sy(lo_line)[::-1])}"/>')
    out.append(f'<polyline class="mean" points="{_coords(sx(index), sy(means))}"/>')
    if n <= POINTS:  # few commits: each mean a dot too (one commit draws no line)
        out += [f'<circle class="point" cx="{x:.1f}" cy="{y:.1f}" r="2.2"/>'
                for x, y in zip(sx(index).tolist(), sy(means).tolist(), strict=True)]
    for i in transients:
        out.append(f'<circle class="transient" cx="{float(sx(i)):.1f}" '
                   f'cy="{float(sy(means[i])):.1f}" r="3"/>')
    out.append(f'<rect class="brush" x="{LEFT}" y="{TOP}" width="0" height="{ph}"/></svg>')
    return "".join(out)


def verdict_class(c: Change | None) -> str:
    """worse, better or change (a series whose unit says no direction), none without one."""
    if c is None:
        return "none"
    if c.verdict.regression is None:
        return "change"
    return "worse" if c.verdict.regression else "better"


def _title(c: Change) -> str:
    return f"{c.kind} from {c.commit}: ratio {c.ratio.estimate:.4f}: {c.verdict.text}"

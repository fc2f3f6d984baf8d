"""A light strip plot of one comparison's samples, drawn as inline SVG by hand.

Each sample's values as points on one row, its mean as a diamond with the mean's
confidence interval as a bar (the hierarchical CI on top-level means when the
comparison used levels, else Student's t), on the benchmark's own axis, which is
logarithmic when the values span more than a factor of WIDE (the rule of
report/figures/distribution.py). The report draws one per benchmark when
matplotlib is not installed (report/figures/distribution.py's panels need it).
Labels are escaped; nothing is referenced outside the element.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

from benchlab.notation import fmt_level
from benchlab.report.figures.run_order import COLOURS, SHAPES, marker, ticks
from benchlab.stats.compare import CompareResult
from benchlab.stats.distributions import critical_t

WIDTH = 640
_LEFT, _RIGHT, _ROW, _TOP, _BOTTOM = 120, 20, 34, 10, 36
MAX_POINTS = 400  # per sample; more are thinned to this many quantiles (the shape stays)
WIDE = 3.0  # a log axis beyond this factor between the extremes (distribution.WIDE)


def log_ticks(low: float, high: float) -> list[float]:
    """The 1-2-5 values of each decade within [low, high] (both positive)."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    return [m * 10.0 ** e for e in range(first, last + 1) for m in (1, 2, 5)
            if low <= m * 10.0 ** e <= high]


def _mean_ci(result: CompareResult, k: int) -> tuple[float, float, float]:
    s = result.samples[k]
    if k < len(result.hierarchies):
        h = result.hierarchies[k]
        return h.grand_mean, h.low, h.high
    if s.n < 2 or not math.isfinite(s.sem):
        return s.mean, s.mean, s.mean
    half = critical_t(result.confidence, s.n - 1) * s.sem
    return s.mean, s.mean - half, s.mean + half


def strip_svg(result: CompareResult, samples: Sequence[tuple[str, np.ndarray]],
              title: str = "") -> str:
    """The samples' values and their means with CIs as an inline `<svg>` element."""
    esc = html.escape
    values = [np.asarray(v, dtype=float) for _, v in samples]
    cis = [_mean_ci(result, k) for k in range(min(len(values), len(result.samples)))]
    finite = [v[np.isfinite(v)] for v in values]
    lo = min([float(v.min()) for v in finite if v.size] + [c[1] for c in cis])
    hi = max([float(v.max()) for v in finite if v.size] + [c[2] for c in cis])
    log = lo > 0 and hi > WIDE * lo
    if log:
        lo, hi = math.log(lo), math.log(hi)
    pad = (hi - lo) * 0.05 or abs(lo) * 0.05 or 1.0
    lo, hi = lo - pad, hi + pad
    height = _TOP + _ROW * len(values) + _BOTTOM
    w = WIDTH - _LEFT - _RIGHT

    def px(x: float) -> float:
        at = math.log(x) if log else x
        return _LEFT + (at - lo) / (hi - lo) * w

    label = title or "distributions"
    scale = "log" if log else "linear"
    parts = [f'<svg class="strip" data-scale="{scale}" role="img" width="{WIDTH}" '
             f'height="{height}" '
             f'viewBox="0 0 {WIDTH} {height}" aria-label="{esc(label)}">'
             f"<title>{esc(label)}</title>"]
    bottom = _TOP + _ROW * len(values)
    for t in (log_ticks(math.exp(lo), math.exp(hi)) if log else ticks(lo, hi)):
        parts.append(f'<line x1="{px(t):.1f}" x2="{px(t):.1f}" y1="{_TOP}" y2="{bottom}" '
                     f'stroke="#e4e4e4"/><text x="{px(t):.1f}" y="{bottom + 14}" '
                     f'text-anchor="middle" font-size="11">{t:.4g}</text>')
    unit = f" ({esc(result.unit.name)})" if result.unit.name else ""
    level = f"{fmt_level(result.confidence)}"
    unit += ", log scale" if log else ""
    parts.append(f'<text x="{_LEFT + w / 2:.1f}" y="{height - 6}" text-anchor="middle" '
                 f'font-size="12">values{unit}; diamond: mean with its {level} CI</text>')
    for k, ((name, _), v) in enumerate(zip(samples, finite, strict=True)):
        y = _TOP + _ROW * k + _ROW / 2
        colour, shape = COLOURS[k % len(COLOURS)], SHAPES[k % len(SHAPES)]
        shown = v if v.size <= MAX_POINTS else np.quantile(v, np.linspace(0, 1, MAX_POINTS))
        jitter = ((np.arange(shown.size) * 0.618) % 1.0 - 0.5) * (_ROW * 0.45)
        parts.append(f'<text x="{_LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" '
                     f'font-size="11">{esc(name)}</text>')
        parts.extend(marker(shape, px(x), y + j, colour, True)
                     for x, j in zip(shown, jitter, strict=True))
        if k < len(cis):
            mean, low, high = cis[k]
            parts.append(f'<line x1="{px(low):.1f}" x2="{px(high):.1f}" y1="{y:.1f}" '
                         f'y2="{y:.1f}" stroke="#222" stroke-width="2"/>')
            parts.append(marker("diamond", px(mean), y, "#222", False))
    parts.append("</svg>")
    return "\n".join(parts)

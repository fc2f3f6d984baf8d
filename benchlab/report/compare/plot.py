"""A distribution plot for the terminal: one histogram row and one box row per sample.

All samples share one axis so their positions compare at a glance: the
histogram uses block heights ▁..█, the box row marks min/max (├ ┤), the
quartile box (═), the median (M) and the mean (A). Names longer than the
terminal leaves them (COLUMNS) lose their middle to an ellipsis.
"""

from __future__ import annotations

import numpy as np

from benchlab.escape import terminal
from benchlab.report.numbers import shorten, terminal_width
from benchlab.stats.descriptive import Descriptives

_BLOCKS = " ▁▂▃▄▅▆▇█"


def _column(v: float | np.ndarray, lo: float, span: float, width: int) -> np.ndarray:
    return np.clip(((np.asarray(v) - lo) / span * (width - 1)).round().astype(int), 0, width - 1)


def distribution_plot(samples: list[tuple[Descriptives, np.ndarray]], width: int = 60,
                      label: str = "") -> list[str]:
    """Lines of the plot; a note instead when every value is the same."""
    lo = min(d.min for d, _ in samples)
    hi = max(d.max for d, _ in samples)
    if hi == lo:
        return ["(no plot: every value is the same)"]
    span = hi - lo
    room = max(terminal_width() - width - 6, 12)  # the names and the plot fit COLUMNS
    names = [shorten(terminal(d.name), room) for d, _ in samples]  # escaped, then measured
    name_w = max(len(name) for name in names)
    lines = []
    for name, (d, x) in zip(names, samples, strict=True):
        counts = np.bincount(_column(x, lo, span, width), minlength=width)
        levels = np.ceil(counts / counts.max() * (len(_BLOCKS) - 1)).astype(int)
        hist = "".join(_BLOCKS[k] for k in levels)
        box = [" "] * width
        q1, med, q3 = d.q1, d.median, d.q3
        a, b = _column(d.min, lo, span, width), _column(d.max, lo, span, width)
        for i in range(int(a), int(b) + 1):
            box[i] = "─"
        for i in range(int(_column(q1, lo, span, width)), int(_column(q3, lo, span, width)) + 1):
            box[i] = "═"
        box[int(a)], box[int(b)] = "├", "┤"
        box[int(_column(med, lo, span, width))] = "M"
        box[int(_column(d.mean, lo, span, width))] = "A"
        lines.append(f"  {name:<{name_w}} │{hist}│")
        lines.append(f"  {'':<{name_w}} │{''.join(box)}│")
    lines.append(f"  {'':<{name_w}}  {label}")
    return lines

"""FreeBSD ministat's text output, byte for byte (STATS.md §2).

Renders the result objects of `benchlab.stats.ministat`; no statistics here.
The plot reproduces ministat's drawing rules exactly, quirks included:

- the range starts from min = 999e99 and max = -999e99 and takes in every
  set's min, max, mean - sd and mean + sd; ``dx = span / (width - 1.0)``,
  ``x0 = min - dx / 2``, a value's column is ``trunc((v - x0) / dx)``;
- points in the same column stack upward; a cell hit by several sets shows
  the bitwise OR of their numbers (x = 1, + = 2, so x|+ = 3 shows ``*``);
- the plot height is set by the *last* set drawn (ministat overwrites it with
  each set's own stack height), so taller stacks of earlier sets can be cut off;
- a bar line per plot (or per set with `separate`): ``|`` at mean - sd and
  mean + sd, ``_`` filling empty cells between, then ``M`` at the median and
  ``A`` at the mean, each set drawing over the earlier ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from benchlab.escape import terminal
from benchlab.stats.ministat import SYMBOLS, MinistatComparison, MinistatSample

DEFAULT_WIDTH = 74
VITALS_HEADER = "    N           Min           Max        Median           Avg        Stddev\n"
NO_PLOT = "[no plot, span is zero width]\n"

# Numbers are formatted with %-formatting on purpose: it follows C's printf
# rules (%g, %13.8g, %.1f), which is what ministat prints with.


def render_legend(samples: Sequence[MinistatSample]) -> str:
    """One line per data set: its symbol and name (a file name: controls shown escaped).

    Names without control characters print as ministat prints them, byte for byte.
    """
    return "".join(f"{SYMBOLS[i]} {terminal(s.name)}\n" for i, s in enumerate(samples, start=1))


def render_vitals(sample: MinistatSample, number: int) -> str:
    """The table row of data set `number` (1-based)."""
    return "%c %3d %13.8g %13.8g %13.8g %13.8g %13.8g\n" % (  # noqa: UP031 (C printf)
        SYMBOLS[number], sample.n, sample.min, sample.max, sample.median, sample.mean,
        sample.stddev)


def render_comparison(result: MinistatComparison) -> str:
    """The "Difference at ..." block or the "No difference proven ..." line."""
    if not result.significant:
        return "No difference proven at %.1f%% confidence\n" % result.confidence  # noqa: UP031
    return (
        "Difference at %.1f%% confidence\n" % result.confidence  # noqa: UP031
        + "\t%g +/- %g\n" % (result.difference, result.half_width)  # noqa: UP031
        + "\t%g%% +/- %g%%\n" % (result.percent, result.percent_half_width)  # noqa: UP031
        + "\t(Student's t, pooled s = %g)\n" % result.pooled_stddev  # noqa: UP031
    )


class _Geometry:
    """The plot's x axis, computed as ministat's AdjPlot does."""

    def __init__(self, samples: Sequence[MinistatSample], width: int) -> None:
        low, high = 999e99, -999e99
        for s in samples:
            for a in (s.min, s.max, s.mean - s.stddev, s.mean + s.stddev):
                if a < low:
                    low = a
                if a > high:
                    high = a
        self.width = width
        self.span = high - low
        self.dx = self.span / (width - 1.0)
        self.x0 = low - 0.5 * self.dx

    def column(self, value: float) -> int:
        position = (value - self.x0) / self.dx
        if not math.isfinite(position):
            raise ValueError("the plot's range overflows (values too large to plot)")
        column = int(position)  # C's double-to-int conversion truncates toward zero
        if not 0 <= column < self.width:
            raise ValueError(f"plot column {column} outside 0..{self.width - 1}")
        return column


def render_plot(samples: Sequence[MinistatSample], width: int = DEFAULT_WIDTH,
                separate: bool = False) -> str:
    """ministat's ASCII plot of the data sets, `width` columns inside the frame."""
    if width < 2:
        raise ValueError(f"the plot needs a width of at least 2, not {width}")
    geometry = _Geometry(samples, width)
    if geometry.span == 0:
        return NO_PLOT
    if not math.isfinite(geometry.span):
        raise ValueError("the plot's range overflows (values too large to plot)")

    data = bytearray()  # rows of `width` cells, row 0 unused, as in ministat
    height = 0
    bars: list[bytearray | None] = [None] * len(samples)
    for number, sample in enumerate(samples, start=1):
        bar_index = number - 1 if separate else 0
        if bars[bar_index] is None:
            bars[bar_index] = bytearray(width)
        bar = bars[bar_index]
        assert bar is not None
        columns = [geometry.column(p) for p in sample.points]

        # Rows needed: the longest run of points in one column, plus row 0.
        rows, previous, run = 1, -1, 0
        for x in columns:
            if x == previous:
                run += 1
                rows = max(rows, run)
            else:
                run, previous = 1, x
        rows += 1
        if rows > height:
            # realloc to `rows` rows (keeping what fits), zero rows height..rows-1.
            del data[rows * width:]
            data.extend(bytes(rows * width - len(data)))
            data[height * width:rows * width] = bytes((rows - height) * width)
        height = rows  # even when smaller: ministat's quirk

        previous = -1
        for x in columns:
            if x == previous:
                run += 1
            else:
                run, previous = 1, x
            data[run * width + x] |= number

        if not math.isnan(sample.stddev):
            low = geometry.column(sample.mean - sample.stddev)
            high = geometry.column(sample.mean + sample.stddev)
            bar[high] = ord("|")
            bar[low] = ord("|")
            for i in range(low + 1, high):
                if bar[i] == 0:
                    bar[i] = ord("_")
        bar[geometry.column(sample.median)] = ord("M")
        bar[geometry.column(sample.mean)] = ord("A")

    border = "+" + "-" * width + "+\n"
    lines = [border]
    for z in range(1, height):
        row = data[(height - z) * width:(height - z + 1) * width]
        lines.append("|" + "".join(SYMBOLS[k] for k in row) + "|\n")
    for bar in bars:
        if bar is not None:
            lines.append("|" + bar.replace(b"\0", b" ").decode("ascii") + "|\n")
    lines.append(border)
    return "".join(lines)


def render(samples: Sequence[MinistatSample],
           comparisons: Sequence[MinistatComparison] | None = None, *,
           plot: bool = True, width: int = DEFAULT_WIDTH, separate: bool = False,
           quiet: bool = False) -> str:
    """The whole ministat output.

    `comparisons` holds the comparison of each later set with the first, in
    order (None: print none, like ``-n``); `plot` False leaves the plot out
    (``-A``/``-n``); `quiet` leaves out the legend and the table header (``-q``).
    """
    parts = []
    if not quiet:
        parts.append(render_legend(samples))
    if plot:
        parts.append(render_plot(samples, width, separate))
    if not quiet:
        parts.append(VITALS_HEADER)
    parts.append(render_vitals(samples[0], 1))
    for number, sample in enumerate(samples[1:], start=2):
        parts.append(render_vitals(sample, number))
        if comparisons is not None:
            parts.append(render_comparison(comparisons[number - 2]))
    return "".join(parts)

"""Numbers as people read them: the digits their uncertainty justifies, one unit per row.

"86.1463 ms" at a 95% CI of ±1.2 ms claims four digits nobody measured. Here the
uncertainty (a CI half-width, or a standard error) decides the last digit shown,
by the one rounding rule of benchlab/notation.py (half away from zero; the
uncertainty's first significant digit, its second when that is a 1 or a 2,
never inside the integer part), so "86.1 ms". Without an uncertainty a value
keeps `DEFAULT_SIGNIFICANT` digits.

A row of a table (mean, median, stddev, min, max) is shown in one unit, the
one that suits the row's mean ("4.870 µs … 0.515 µs", never "515.144 ns"
beside "4.87014 µs"). Changes print as notation.py says (signed percentages
within ±50%, factors with a word beyond: "2.28× faster"); labels too long for
the terminal lose their middle to an ellipsis in text (JSON, CSV and Markdown
keep them whole).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from benchlab.notation import (  # noqa: F401  (the notation, re-exported for report/)
    DEFAULT_SIGNIFICANT,
    MAX_SIGNIFICANT,
    MIN_SIGNIFICANT,
    decimals,
    fixed,
    fmt_change,
    fmt_factor,
    fmt_level,
    fmt_percent,
    fmt_pvalue,
    last_digit,
    plural,
    significant,
)
from benchlab.units import Unit

ELLIPSIS = "…"


def fmt_uncertain(value: float | None, uncertainty: float | None = None, *,
                  significant: int = DEFAULT_SIGNIFICANT) -> str:
    """A bare number with the digits its uncertainty justifies ("86.1").

    An uncertainty of exactly 0 (every value the same: 24 B/op) shows the value
    without trailing zeros ("24", not "24.00").
    """
    if value is None or not math.isfinite(value):
        return "n/a"
    text = fixed(value, decimals(value, uncertainty, significant=significant))
    if uncertainty == 0 and "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    return text


def fmt_pct(fraction: float | None, digits: int = 1, missing: str = "n/a") -> str:
    """A computed fraction (a variance share, a relative SD, a power) as a percentage with
    `digits` decimals: 0.1234 → "12.3%"; `missing` when there is none."""
    if fraction is None or not math.isfinite(fraction):
        return missing
    return f"{100 * fraction:.{digits}f}%"


def fmt_duration(seconds: float) -> str:
    """90 → "1.5 min": a budget or a cost in seconds as people say it (3 significant
    digits, in d, h, min, s or ms)."""
    for name, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0)):
        if seconds >= size:
            return f"{seconds / size:.3g} {name}"
    return f"{seconds * 1000:.3g} ms"


def _with_unit(text: str, name: str | None) -> str:
    return f"{text} {name}" if name else text


def fmt_quantity(value: float | None, unit: Unit, uncertainty: float | None = None,
                 like: float | None = None) -> str:
    """A value with its unit: "86.1 ms" (scaled by `like`'s magnitude, or the value's)."""
    if value is None or not math.isfinite(value):
        return "n/a"
    name, factor = unit.display(abs(like if like is not None else value), uncertainty == 0)
    u = None if uncertainty is None else uncertainty / factor
    return _with_unit(fmt_uncertain(value / factor, u), name)


def fmt_row(values: Sequence[float | None], unit: Unit, uncertainty: float | None,
            like: float, *, keep_small: bool = True) -> list[str]:
    """Values of one table row in one unit (chosen by `like`), all to one last digit.

    The last digit is the one `uncertainty` justifies for `like` (the row's mean);
    with `keep_small` a value smaller than `like` (a stddev) still keeps
    MIN_SIGNIFICANT digits. An estimate and its CI (keep_small False) share one
    last digit: "-2 ms  95% CI -12 ms .. 9 ms".
    """
    name, factor = unit.display(abs(like) if math.isfinite(like) else 0.0, uncertainty == 0)
    u = None if uncertainty is None else uncertainty / factor
    places = decimals(like / factor, u) if math.isfinite(like) else 0
    out = []
    for v in values:
        if v is None or not math.isfinite(v):
            out.append("n/a")
            continue
        scaled = v / factor
        own = (decimals(scaled, None, significant=MIN_SIGNIFICANT)
               if scaled != 0 and keep_small else places)
        text = fixed(scaled, max(places, own))
        if uncertainty == 0 and "." in text and "e" not in text:  # exact: "24", not "24.00"
            text = text.rstrip("0").rstrip(".")
        out.append(_with_unit(text, name))
    return out


def fmt_interval(estimate: float, low: float, high: float, unit: Unit) -> list[str]:
    """An estimate and its CI bounds in one unit, to the digit the CI's half-width justifies."""
    like = max(abs(low), abs(high), abs(estimate))
    return fmt_row((estimate, low, high), unit, (high - low) / 2, like, keep_small=False)


def fmt_squared(value: float | None, unit: Unit, like: float) -> str:
    """A variance with its squared unit, scaled as values near `like` are ("96.8 ms²")."""
    if value is None or not math.isfinite(value):
        return "n/a"
    # a count's square unscaled: "(M instructions)²" reads worse than the number in full
    name, factor = unit.display(abs(like) if math.isfinite(like) else 0.0, unit.is_count)
    text = fmt_uncertain(value / factor**2)
    if not name:
        return text
    return f"{text} {name}²" if name.isalnum() or name in ("µs", "μs") else f"{text} ({name})²"


def fmt_spread(relative: float | None) -> str:
    """A relative half-width as "± 2%" (whole percents; one digit below 1%)."""
    if relative is None or not math.isfinite(relative):
        return "± ?"
    pct = 100.0 * abs(relative)
    if pct == 0 or pct >= 0.95:
        return f"± {fixed(pct, 0)}%"
    return f"± {significant(pct, 1)}%"


def terminal_width() -> int:
    """Columns of the terminal: the COLUMNS environment variable, else 80 (at least 40)."""
    try:
        width = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return 80
    return max(width, 40)


def shorten(label: str, width: int) -> str:
    """`label` cut to `width` characters by an ellipsis in its middle (both ends kept:
    hyperfine commands differ at their start or their end)."""
    if len(label) <= width:
        return label
    if width <= 1:
        return ELLIPSIS[:width]
    keep = width - 1
    head = (keep + 1) // 2
    tail = keep - head
    return label[:head] + ELLIPSIS + (label[-tail:] if tail else "")

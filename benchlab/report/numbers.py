"""Numbers as people read them: the digits their uncertainty justifies, one unit per row.

"86.1463 ms" at a 95% CI of ±1.2 ms claims four digits nobody measured. Here the
uncertainty (a CI half-width, or a standard error) decides the last digit shown:
the value is rounded at the uncertainty's first significant digit, or its
second when that digit is a 1 or a 2 (±1.2 keeps tenths, ±4 keeps units), so
"86.1 ms". Without an uncertainty a value keeps `DEFAULT_SIGNIFICANT` digits.

A row of a table (mean, median, stddev, min, max) is shown in one unit, the
one that suits the row's mean ("4.870 µs … 0.515 µs", never "515.144 ns"
beside "4.87014 µs"). Changes print as signed percentages, or as factors
beyond ±50% ("6.52×"); labels too long for the terminal lose their middle to
an ellipsis in text (JSON, CSV and Markdown keep them whole).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from benchlab.units import Unit

DEFAULT_SIGNIFICANT = 4  # no uncertainty known: as benchstat shows its values
MIN_SIGNIFICANT = 2  # a value is never cut below two significant digits by a wide CI
MAX_SIGNIFICANT = 7  # nor shown with more than a float's honest digits by a tiny one
FACTOR_BEYOND = 1.5  # a change above +50% prints as a factor (fmt_change)
ELLIPSIS = "…"


def _exponent(x: float) -> int:
    """The power of ten of x's first significant digit (x > 0, finite)."""
    e = math.floor(math.log10(x))
    if 10.0 ** (e + 1) <= x:  # log10 rounded down just below a power of ten
        e += 1
    elif 10.0**e > x:  # or up (log10(999999.9999999999) is 6.0)
        e -= 1
    return e


def last_digit(uncertainty: float | None) -> int | None:
    """The power of ten of the last digit `uncertainty` justifies; None when it says nothing.

    ±1.2 → -1 (tenths: its first two digits, as it starts with a 1 or 2), ±4 → 0,
    ±0.515 → -1, ±37 → 1.
    """
    if uncertainty is None or not math.isfinite(uncertainty) or uncertainty <= 0:
        return None
    e = _exponent(uncertainty)
    lead = uncertainty / 10.0**e
    return e - 1 if lead < 3.0 else e


def decimals(value: float, uncertainty: float | None, *,
             significant: int = DEFAULT_SIGNIFICANT) -> int:
    """Decimal places for `value` (negative: rounded to tens, hundreds, ...).

    From the uncertainty's last digit, kept between MIN_SIGNIFICANT and
    MAX_SIGNIFICANT digits of the value; `significant` digits without one.
    """
    if not math.isfinite(value):
        return 0
    top = _exponent(abs(value)) if value != 0 else None
    digit = last_digit(uncertainty)
    if digit is None:
        if top is None:
            return 0
        digit = top - significant + 1
    elif top is not None:
        digit = min(max(digit, top - MAX_SIGNIFICANT + 1), top - MIN_SIGNIFICANT + 1)
    return -digit


def fixed(value: float, places: int) -> str:
    """`value` rounded to `places` decimals (negative: to tens, ...), in plain notation.

    Magnitudes a plain number would spell with more than 15 digits use exponent
    notation with the same significant digits; "-0" never appears.
    """
    if not math.isfinite(value):
        return "n/a"
    if value != 0 and (abs(value) >= 1e15 or places > 15):
        significant = min(max(1, _exponent(abs(value)) + places + 1), MAX_SIGNIFICANT)
        text = f"{value:.{significant - 1}e}"
    elif places >= 0:
        text = f"{value:.{places}f}"
    else:
        step = 10.0 ** (-places)
        text = f"{round(value / step) * step:.0f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text


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


def _with_unit(text: str, name: str | None) -> str:
    return f"{text} {name}" if name else text


def fmt_quantity(value: float | None, unit: Unit, uncertainty: float | None = None,
                 like: float | None = None) -> str:
    """A value with its unit: "86.1 ms" (scaled by `like`'s magnitude, or the value's)."""
    if value is None or not math.isfinite(value):
        return "n/a"
    name, factor = unit.display(abs(like if like is not None else value))
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
    name, factor = unit.display(abs(like) if math.isfinite(like) else 0.0)
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
    name, factor = unit.display(abs(like) if math.isfinite(like) else 0.0)
    text = fmt_uncertain(value / factor**2)
    if not name:
        return text
    return f"{text} {name}²" if name.isalnum() or name in ("µs", "μs") else f"{text} ({name})²"


def fmt_percent(fraction: float | None, uncertainty: float | None = None, *,
                sign: bool = True) -> str:
    """A fraction as a percentage, its last digit from `uncertainty` (a fraction too).

    Never finer than 0.01% nor coarser than whole percents: "+10%", "-3.1%".
    """
    if fraction is None or not math.isfinite(fraction):
        return "n/a"
    pct = 100.0 * fraction
    digit = last_digit(None if uncertainty is None else 100.0 * uncertainty)
    places = 1 if digit is None else min(max(-digit, 0), 2)
    text = fixed(pct, places)
    if sign and not text.startswith("-") and float(text) != 0:
        text = "+" + text
    return text + "%"


def fmt_factor(ratio: float | None, places: int | None = None) -> str:
    """A ratio as a factor: "6.52×" (three significant digits unless `places` says)."""
    if ratio is None or not math.isfinite(ratio):
        return "n/a"
    if places is None:
        places = decimals(ratio, None, significant=3)
    return fixed(ratio, places) + "×"


def fmt_change(ratio: float | None, low: float | None, high: float | None) -> str:
    """A ratio of means as a change with its CI: "-3.1% (-4.0% .. -2.2%)".

    Beyond +50% (ratio above 1.5) a factor reads better: "6.52× (3.25× .. 13.0×)";
    the CI's half-width decides the digits of all three numbers.
    """
    if ratio is None or not math.isfinite(ratio):
        return "n/a"
    bounded = (low is not None and high is not None
               and math.isfinite(low) and math.isfinite(high))
    half = (high - low) / 2 if bounded else None  # type: ignore[operator]
    if ratio > FACTOR_BEYOND:
        places = decimals(ratio, half, significant=3)
        text = fmt_factor(ratio, places)
        if not bounded:
            return f"{text} (unbounded)"
        return f"{text} ({fmt_factor(low, places)} .. {fmt_factor(high, places)})"
    text = fmt_percent(ratio - 1, half)
    if not bounded:
        return f"{text} (unbounded)"
    return (f"{text} ({fmt_percent(low - 1, half)} .. "  # type: ignore[operator]
            f"{fmt_percent(high - 1, half)})")  # type: ignore[operator]


def fmt_spread(relative: float | None) -> str:
    """A relative half-width as "± 2%" (whole percents; one digit below 1%)."""
    if relative is None or not math.isfinite(relative):
        return "± ?"
    pct = 100.0 * abs(relative)
    if pct == 0 or pct >= 0.95:
        return f"± {pct:.0f}%"
    return f"± {pct:.1g}%"


def fmt_pvalue(p: float | None) -> str:
    """A p-value in a table cell: two significant digits, "<0.001" below 0.001."""
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < 1e-3:
        return "<0.001"
    return fixed(p, decimals(p, None, significant=2))


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

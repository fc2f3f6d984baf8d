"""One notation for every number benchlab prints: rounding, changes, levels, p-values,
and the numbers of its documents (finite: JSON has no NaN).

Every format (text, Markdown, JSON's sentences, CSV's text, HTML) and the verdict
sentences of `stats/` print through these functions, so one number reads the
same everywhere.

The rounding rule, the same for every value in every place: a value is rounded
half away from zero on its decimal digits, read to 15 significant digits first
(so float noise cannot move a half: 840.5 ns prints "841 ns", and so does a
mean that came out as 840.4999999999999 after a unit's scaling, where Python's
binary round-half-even gave "840" for one and "841" for the other). The last
digit shown is the one its uncertainty justifies (the uncertainty's first
significant digit, its second when that is a 1 or a 2), but never one inside
the value's integer part (204 µs ± 40 µs prints "204 µs": "200 µs" would claim
a zero nobody measured), never fewer than MIN_SIGNIFICANT nor more than
MAX_SIGNIFICANT significant digits; without an uncertainty, DEFAULT_SIGNIFICANT
digits.

A change (a ratio candidate / baseline) and its CI bounds share one notation: all
three signed percentages when each lies within ±50% ("-12.3% (-14.0% .. -10.1%)"),
else all three factors, the estimate with its direction's word ("2.28× faster",
"1.13× higher (0.67× .. 2.37×)", "3.10× lower" for data without a direction), the
bounds as bare factors of the move in the estimate's direction. A factor is
meaningless once the ratio's CI reaches 0 or below (Fieller's interval when the
candidate's mean is not clearly above 0): the change is then a plain ratio
("ratio 1.9 (-3.2 .. 7.1)") and undetermined in size. The CI's half-width on the
printed scale decides the digits of all three; when those digits cannot tell the
bounds apart (a narrow CI), all three take the decimals that can, so the estimate
never reads outside its own CI ("+0.0100% (+0.0099% .. +0.0101%)", not "+0.01%
(+0.01% .. +0.01%)"). A CI of zero width (counts with no spread) is exact: the
estimate with the digits that show the change itself, "+0.01% (exact)". A
detectable change (a size, not a direction) follows the same ±50% rule
(fmt_detectable).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: units.py uses this module's rounding
    from benchlab.units import Unit

DEFAULT_SIGNIFICANT = 4  # no uncertainty known: as benchstat shows its values
MIN_SIGNIFICANT = 2  # a value is never cut below two significant digits by a wide CI
MAX_SIGNIFICANT = 7  # nor shown with more than a float's honest digits by a tiny one
FACTOR_BEYOND = 0.5  # a change beyond ±50% prints as a factor (change_parts)
PERCENT_PLACES = 2  # a change's CI gives it at most this many decimals (0.01%) ...
CHANGE_PLACES = 6  # ... unless more tell a narrow CI's bounds apart (of a % or ×)
P_FLOOR = 1e-4  # p-values print to 4 decimals; below this, "<0.0001"
READ_DIGITS = 15  # a float's decimal digits read before rounding (drops scaling noise)


def _exponent(x: float) -> int:
    """The power of ten of x's first significant digit (x > 0, finite)."""
    e = math.floor(math.log10(x))
    if 10.0 ** (e + 1) <= x:  # log10 rounded down just below a power of ten
        e += 1
    elif 10.0**e > x:  # or up (log10(999999.9999999999) is 6.0)
        e -= 1
    return e


def _decimal(value: float) -> Decimal:
    """The value's decimal digits as read to READ_DIGITS significant digits."""
    return Decimal(f"{value:.{READ_DIGITS}g}")


def round_half_up(value: float, places: int) -> Decimal:
    """`value` rounded half away from zero to `places` decimals (negative: tens, ...)."""
    return _decimal(value).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


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

    From the uncertainty's last digit, never inside the integer part (unless that
    has more than MAX_SIGNIFICANT digits), kept between MIN_SIGNIFICANT and
    MAX_SIGNIFICANT digits of the value; `significant` digits without one. An
    uncertainty of exactly 0 (identical counts) shows a whole number in full (2377153
    instructions, not 2377000).
    """
    if not math.isfinite(value):
        return 0
    top = _exponent(abs(value)) if value != 0 else None
    if uncertainty == 0 and float(value).is_integer() and abs(value) < 1e15:
        return 0  # exact (no spread at all) and whole: a count, shown in full
    digit = last_digit(uncertainty)
    if digit is None:
        if top is None:
            return 0
        digit = top - significant + 1
    elif top is not None:
        digit = min(digit, max(0, top - MAX_SIGNIFICANT + 1))  # no invented trailing zeros
        digit = min(max(digit, top - MAX_SIGNIFICANT + 1), top - MIN_SIGNIFICANT + 1)
    return -digit


def fixed(value: float, places: int) -> str:
    """`value` rounded to `places` decimals (negative: to tens, ...) by the module's rule,
    in plain notation.

    Magnitudes a plain number would spell with more than 15 digits use exponent
    notation with the same significant digits; "-0" never appears.
    """
    if not math.isfinite(value):
        return "n/a"
    if value != 0 and (abs(value) >= 1e15 or places > 15):
        digits = min(max(1, _exponent(abs(value)) + places + 1), MAX_SIGNIFICANT)
        return significant(value, digits, exponent=True)
    text = f"{round_half_up(value, places):f}"
    if text.startswith("-") and Decimal(text) == 0:
        text = text[1:]
    return text


def significant(value: float, digits: int, *, exponent: bool = False) -> str:
    """`value` to `digits` significant digits by the module's rule, trailing zeros
    dropped, as `format(value, ".{digits}g")` lays it out ("840.5", "1.2e+07")."""
    if not math.isfinite(value):
        return "n/a"
    if value == 0:
        return "0"
    d = _decimal(value)
    q = d.quantize(Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=ROUND_HALF_UP)
    e = q.adjusted()
    if exponent or not -4 <= e < digits:
        mantissa = (q.scaleb(-e)).quantize(Decimal(1).scaleb(-(digits - 1)))
        text = f"{mantissa:f}"
        if "." in text and not exponent:
            text = text.rstrip("0").rstrip(".")
        return f"{text}e{'+' if e >= 0 else '-'}{abs(e):02d}"
    text = f"{q:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _percent_places(uncertainty: float | None) -> int:
    """The decimals of a percentage whose uncertainty (a fraction) is `uncertainty`:
    its last digit, never finer than 0.01% nor coarser than whole percents."""
    digit = last_digit(None if uncertainty is None else 100.0 * uncertainty)
    return 1 if digit is None else min(max(-digit, 0), PERCENT_PLACES)


def fmt_percent(fraction: float | None, uncertainty: float | None = None, *,
                sign: bool = True, bound: bool = False, places: int | None = None) -> str:
    """A fraction as a percentage, its last digit from `uncertainty` (a fraction too),
    or `places` decimals when given.

    Never finer than 0.01% nor coarser than whole percents: "+10%", "-3.1%". A CI
    `bound` that is not 0 but would print as 0 keeps digits (up to four decimals)
    until its sign shows ("+0.05%": the interval does not quite reach no change);
    an estimate keeps the digits its CI justifies ("0.0%").
    """
    if fraction is None or not math.isfinite(fraction):
        return "n/a"
    pct = 100.0 * fraction
    if places is None:
        places = _percent_places(uncertainty)
    text = fixed(pct, places)
    while bound and pct != 0 and Decimal(text) == 0 and places < 4:
        places += 1
        text = fixed(pct, places)
    if sign and not text.startswith("-") and Decimal(text) != 0:
        text = "+" + text
    return text + "%"


def fmt_factor(ratio: float | None, places: int | None = None) -> str:
    """A ratio as a factor: "6.52×" (three significant digits unless `places` says)."""
    if ratio is None or not math.isfinite(ratio):
        return "n/a"
    if places is None:
        places = decimals(ratio, None, significant=3)
    return fixed(ratio, places) + "×"


def is_factor(ratio: float) -> bool:
    """True when a change this large prints as a factor (beyond ±50%)."""
    return ratio > 1.0 + FACTOR_BEYOND or ratio < 1.0 - FACTOR_BEYOND


@dataclass(frozen=True)
class ChangeText:
    """A change's printed parts: the estimate ("-3.1%", "2.28× faster", "ratio 1.9"), its
    CI bounds in the same notation ("-4.0%", "2.10×" or "-3.2"; None when the CI is
    unbounded), whether it is a factor, and whether it is a plain ratio (`ratio`: the CI
    reaches 0 or below, so the size of the change is undetermined) and whether its CI
    has zero width (`exact`)."""

    estimate: str
    low: str | None
    high: str | None
    factor: bool
    ratio: bool = False
    exact: bool = False  # a CI of zero width: the data have no spread that could move it

    @property
    def interval(self) -> str:
        """"-4.0% .. -2.2%", "exact" (a zero-width CI), or "unbounded"."""
        if self.low is None:
            return "unbounded"
        return "exact" if self.exact else f"{self.low} .. {self.high}"

    @property
    def phrase(self) -> str:
        """The change as a sentence names it: "change -3.1%", "change 2.28× faster", or
        "ratio 1.9" (a plain ratio is no change of a known size)."""
        return self.estimate if self.ratio else f"change {self.estimate}"

    def __str__(self) -> str:
        return f"{self.estimate} ({self.interval})"


UNDETERMINED = "it reaches 0, so the size of the change is undetermined"


def change_parts(ratio: float, low: float | None, high: float | None,
                 unit: Unit) -> ChangeText:
    """The change of a ratio (candidate / baseline) with its CI, in the one notation.

    All three within ±50%: signed percentages of ratio − 1. Any of them beyond: the
    factor of the move with the unit's word (ratio 0.44 → "2.28× faster", 2.28 →
    "2.28× slower"; no direction known: "lower"/"higher"), its bounds the factors of
    the CI's ends in that direction (1/high .. 1/low for a decrease). A CI (or an
    estimate) at 0 or below: a plain ratio with bare bounds ("ratio 1.9", "-3.2",
    "7.1"), since no factor of a move is true there. The CI's half-width, on the
    printed scale, decides the digits of all three, widened when they cannot tell the
    bounds apart (_apart); a zero-width CI is `exact`, its estimate shown with the
    digits that tell it from no change ("+0.01% (exact)").
    """
    bounded = (low is not None and high is not None
               and math.isfinite(low) and math.isfinite(high))
    exact = bounded and low == high
    if ratio <= 0 or (bounded and low <= 0):  # type: ignore[operator]
        half = (high - low) / 2 if bounded else None  # type: ignore[operator]
        places = decimals(ratio, half, significant=3)
        if bounded and not exact:
            places = _apart(lambda x, p: fixed(x, p), low, high, places)  # type: ignore[arg-type]
        est = f"ratio {fixed(ratio, places)}"
        if not bounded:
            return ChangeText(est, None, None, False, True)
        return ChangeText(est, fixed(low, places), fixed(high, places),  # type: ignore[arg-type]
                          False, True, exact)
    if not (is_factor(ratio) or bounded and (is_factor(low) or is_factor(high))):  # type: ignore[arg-type]
        half = (high - low) / 2 if bounded else None  # type: ignore[operator]
        if exact:  # the change itself, to its first digit: "+0.01%"; none at all: "0%"
            places = _percent_places(None) if ratio != 1 else 0
            while Decimal(fixed(100.0 * (ratio - 1), places)) == 0 and ratio != 1 \
                    and places < CHANGE_PLACES:
                places += 1
            est = fmt_percent(ratio - 1, places=places)
            return ChangeText(est, est, est, False, exact=True)
        places = _percent_places(half)
        if bounded and places == PERCENT_PLACES:  # a narrow CI may need finer digits
            places = _apart(_pct, low, high, places)  # type: ignore[arg-type]
        est = fmt_percent(ratio - 1, places=places)
        if not bounded:
            return ChangeText(est, None, None, False)
        return ChangeText(est, fmt_percent(low - 1, bound=True, places=places),  # type: ignore[operator]
                          fmt_percent(high - 1, bound=True, places=places), False)  # type: ignore[operator]
    up = ratio > 1
    factor = ratio if up else 1.0 / ratio
    lo: float | None = None
    hi: float | None = None
    if bounded:
        lo, hi = (low, high) if up else (1.0 / high, 1.0 / low)  # type: ignore[operator]
    half = (hi - lo) / 2 if lo is not None and hi is not None and math.isfinite(hi - lo) \
        else None
    places = decimals(factor, half, significant=3)
    if bounded and not exact and half is not None:
        places = _apart(lambda x, p: fixed(x, p), lo, hi, places)  # type: ignore[arg-type]
    est = f"{fixed(factor, places)}× {unit.direction_word(up)}"
    if not bounded:
        return ChangeText(est, None, None, True)
    return ChangeText(est, _bound(lo, places), _bound(hi, places), True,  # type: ignore[arg-type]
                      exact=exact)


def _pct(ratio: float, places: int) -> str:
    """A ratio's change in percent, to `places` decimals; "" when a change prints as 0
    (so a bound that does not reach 0 is never told apart from one that does)."""
    text = fixed(100.0 * (ratio - 1), places)
    return "" if ratio != 1 and Decimal(text) == 0 else text


def _apart(text, low: float, high: float, places: int) -> int:
    """Decimals from `places` up (at most CHANGE_PLACES) until `text(x, places)` tells the
    bounds of a narrow CI apart (and from 0): estimate and bounds then share them, so the
    estimate never reads outside its CI."""
    while places < CHANGE_PLACES and (text(low, places) == text(high, places)
                                      or "" in (text(low, places), text(high, places))):
        places += 1
    return places


def _bound(x: float, places: int) -> str:
    return "∞×" if math.isinf(x) else f"{fixed(x, places)}×"  # 1/low overflows past 1e308


def fmt_change(ratio: float | None, low: float | None, high: float | None,
               unit: Unit) -> str:
    """A change with its CI: "-3.1% (-4.0% .. -2.2%)", "6.5× slower (3.3× .. 13.1×)",
    "ratio 1.9 (-3.2 .. 7.1)", "+10.0% (unbounded)"; "n/a" without a ratio."""
    if ratio is None or not math.isfinite(ratio):
        return "n/a"
    return str(change_parts(ratio, low, high, unit))


def fmt_detectable(size: float, unit: Unit) -> str:
    """The smallest change an experiment detects (a relative difference of means, either
    way) in the notation of a change: "±12.3%" within ±50% (one decimal, more when that
    would show 0); beyond, the factors of a rise and of a fall of that size ("1.60×
    slower or 2.50× faster"; a rise alone when a fall of that size would pass 0)."""
    if not math.isfinite(size):
        return "n/a"
    if size <= FACTOR_BEYOND:
        value = 100.0 * size
        digits = 1
        while digits < 4 and value != 0 and float(fixed(value, digits)) == 0:
            digits += 1
        return f"±{fixed(value, digits)}%"
    up = f"{fmt_factor(1.0 + size)} {unit.direction_word(True)}"
    if size >= 1.0:
        return f"{up} (no fall of the mean is that large)"
    return f"{up} or {fmt_factor(1.0 / (1.0 - size))} {unit.direction_word(False)}"


def fmt_level(level: float) -> str:
    """A confidence level with the digits its α needs: 95%, 98.33%, 99.95%, 99.9995%."""
    alpha = 100.0 * (1.0 - level)
    places = 2 - math.floor(math.log10(alpha)) if alpha > 0 else 0
    text = fixed(100.0 * level, max(places, 0))
    return (text.rstrip("0").rstrip(".") if "." in text else text) + "%"


def fmt_share(fraction: float) -> str:
    """A set fraction (a threshold, a target) as the user wrote it: 0.01 → "1%"."""
    return significant(100.0 * fraction, 6) + "%"


def finite(x: float | None) -> float | None:
    """A number for a document (JSON, tidy rows): a float, or None (null) when missing or
    not finite, since JSON has no NaN or infinity."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def fmt_pvalue(p: float | None) -> str:
    """A p-value to four decimals; below what they show, "<0.0001"; "n/a" without one."""
    if p is None or not math.isfinite(p):
        return "n/a"
    if p < P_FLOOR:
        return "<" + fixed(P_FLOOR, 4)
    return fixed(p, 4)


def plural(count: int, noun: str, many: str | None = None) -> str:
    """"1 comparison", "2 comparisons" (`many` for an irregular plural)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def fmt_p(p: float | None) -> str:
    """A p-value in a sentence: "p = 0.0123", "p < 0.0001" (fmt_pvalue's digits)."""
    text = fmt_pvalue(p)
    return f"p < {text[1:]}" if text.startswith("<") else f"p = {text}"

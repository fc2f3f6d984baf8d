"""The verdict of a ratio CI against a threshold of practical interest (STATS.md §4).

Also estimates, for an inconclusive result, how many more measurements per
sample would likely decide it, by scaling the current variance estimates
(the planning idea of Kalibera & Jones §6 applied to one level).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchlab.stats.distributions import critical_t
from benchlab.units import Unit

OUTCOMES = ("change", "equivalent", "inconclusive")


@dataclass(frozen=True)
class Verdict:
    """outcome: "change", "equivalent" or "inconclusive"; direction: "increase"/"decrease"/None.

    `regression` is True for a change in the bad direction; `more_measurements`
    is the estimated extra measurements (baseline, candidate) for an
    inconclusive result (None when no number would do or it cannot be estimated).
    """

    outcome: str
    text: str
    threshold: float
    direction: str | None
    regression: bool
    more_measurements: tuple[int, int] | None = None


def classify(low: float | None, high: float | None, threshold: float) -> str:
    """Place [low, high] against 1 ± threshold (STATS.md §4 table)."""
    if low is None or high is None:
        return "inconclusive"
    if low == high == 1.0:
        return "equivalent"  # exactly no difference: within any threshold, even 0
    if high < 1.0 - threshold or low > 1.0 + threshold:
        return "change"
    if threshold > 0 and 1.0 - threshold < low and high < 1.0 + threshold:
        return "equivalent"
    return "inconclusive"


def more_measurements(ratio: float, threshold: float, base_mean: float, base_var: float,
                      n_base: int, cand_var: float, n_cand: int, confidence: float,
                      paired_var: float | None = None) -> tuple[int, int] | None:
    """Extra measurements (baseline, candidate) for the CI to clear the nearest boundary.

    Uses the delta-method half-width t·sqrt(s_c²/n_c + ρ² s_b²/n_b)/b with both
    counts scaled by the same factor (for paired data, sqrt(s_d²/n)/b with
    s_d² = var(c − ρ b)); the estimate targets the point estimate, so it gives
    about even odds of deciding. None when the estimate sits on a boundary.
    """
    lower, upper = 1.0 - threshold, 1.0 + threshold
    if ratio < lower:
        needed = lower - ratio
    elif ratio > upper:
        needed = ratio - upper
    elif threshold > 0:
        needed = min(ratio - lower, upper - ratio)
    else:
        needed = 0.0
    if needed <= 0 or base_mean <= 0:
        return None
    if paired_var is not None:
        spread = paired_var / n_base
    else:
        spread = cand_var / n_cand + (ratio * math.sqrt(base_var / n_base)) ** 2
    if not 0 < spread < math.inf:
        return None
    scale = 1.0
    for _ in range(50):  # fixed point: the t quantile depends on the scaled counts
        df = max(1.0, scale * min(n_base, n_cand) - 1.0)
        t = critical_t(confidence, df)
        new_scale = (t * math.sqrt(spread) / base_mean / needed) ** 2
        new_scale = max(new_scale, 1.0)
        if abs(new_scale - scale) < 1e-9 * scale:
            break
        scale = new_scale
    return (max(math.ceil(scale * n_base) - n_base, 1),
            max(math.ceil(scale * n_cand) - n_cand, 1))


def _pct(x: float, sign: str = "") -> str:
    """A fraction as a percentage with one decimal, more when that would round a change to 0."""
    value = 100.0 * x
    digits = 1
    while digits < 4 and value != 0 and round(value, digits) == 0:
        digits += 1
    return f"{value:{sign}.{digits}f}%"


def _times(x: float) -> str:
    """A factor with three significant digits: 6.52×, 1.2e+03×."""
    return f"{x:.3g}×"


def _signed_pct(x: float) -> str:
    return _pct(x, "+")


def verdict_sentence(outcome: str, baseline: str, candidate: str, ratio: float,
                     low: float | None, high: float | None, threshold: float,
                     confidence: float, unit: Unit, more: tuple[int, int] | None,
                     noun: str = "measurements") -> str:
    """The verdict as one plain sentence, e.g. "new is 5.5% faster than old (95% CI 3.0% .. 8.0%)".

    The percentages are of the change relative to the baseline mean; for a
    decrease the words name the decrease ("faster": 1 − ratio).
    """
    level = f"{100 * confidence:g}% CI"
    exact = low is not None and low == high
    if low is None or high is None:
        ci = f"{level} unbounded"
    else:
        ci = f"{level} {_signed_pct(low - 1)} .. {_signed_pct(high - 1)}"
    if outcome == "change":
        above = ratio > 1.0
        word = unit.direction_word(above)
        if ratio > 1.5 or ratio < 0.5:  # beyond ±50%: a factor reads better ("6.52× slower")
            factor, lo, hi = ((ratio, low, high) if above  # type: ignore[operator]
                              else (1 / ratio, 1 / high, 1 / low))  # type: ignore[operator]
            text = (f"{candidate} is {_times(factor)} {word} than {baseline} "
                    f"({level} {_times(lo)} .. {_times(hi)})")
        else:
            if above:
                size, lo, hi = ratio - 1, low - 1, high - 1  # type: ignore[operator]
            else:
                size, lo, hi = 1 - ratio, 1 - high, 1 - low  # type: ignore[operator]
            text = (f"{candidate} is {_pct(size)} {word} than {baseline} "
                    f"({level} {_pct(lo)} .. {_pct(hi)})")
        if threshold > 0:
            text += f", more than the {_pct(threshold)} threshold"
        if exact:
            text += "; exact: the data have no spread that could move it (zero-width CI)"
        return text
    if outcome == "equivalent" and exact:
        return (f"no difference: {candidate} and {baseline} have the same mean, exactly "
                f"(ratio 1, a zero-width {level}: the data have no spread that could move it)")
    if outcome == "equivalent":
        return (f"{candidate} and {baseline} are equivalent within ±{_pct(threshold)}: "
                f"change {_signed_pct(ratio - 1)} ({ci})")
    if low is None or high is None:
        text = (f"no conclusion: {candidate} vs {baseline} changes {_signed_pct(ratio - 1)} but "
                f"the {level} is unbounded (the baseline mean is too uncertain)")
    elif threshold == 0:
        text = (f"no difference proven between {candidate} and {baseline}: change "
                f"{_signed_pct(ratio - 1)} ({ci})")
    else:
        text = (f"inconclusive at the {_pct(threshold)} threshold: {candidate} vs {baseline} "
                f"changes {_signed_pct(ratio - 1)} ({ci})")
    if more is not None:
        if more[0] == more[1]:
            word = noun if more[0] != 1 else noun.removesuffix("s")
            text += f"; about {more[0]} more {word} per sample would likely decide it"
        else:
            word = noun if more[1] != 1 else noun.removesuffix("s")
            text += (f"; about {more[1]} more {word} of {candidate} and {more[0]} of "
                     f"{baseline} would likely decide it")
    elif low is not None:
        text += "; the estimate sits on the threshold, so more data is unlikely to decide it"
    return text

"""The verdict of a ratio CI against a threshold of practical interest (STATS.md §4).

Also says, for an inconclusive result, what the experiment could detect (the
minimum detectable effect at 80% power) and how large a new experiment must be
to resolve the threshold — from the variance, never from the observed effect.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from benchlab.notation import UNDETERMINED, change_parts, fmt_detectable, fmt_level, fmt_share
from benchlab.stats.distributions import critical_t
from benchlab.units import Unit

OUTCOMES = ("change", "equivalent", "inconclusive")


@dataclass(frozen=True)
class Verdict:
    """outcome: "change", "equivalent" or "inconclusive"; direction: "increase"/"decrease"/None.

    `regression` is True for a change in the bad direction; `advice` says, for an
    inconclusive result, the change this experiment could detect and the size of a
    new experiment (None when it cannot be estimated).
    """

    outcome: str
    text: str
    threshold: float
    direction: str | None
    regression: bool
    advice: Advice | None = None


FAIL_ON = ("change", "regression")  # the gates a command's exit status can apply


def trips(verdicts: Iterable[Verdict], fail_on: str | None) -> bool:
    """The one gate rule (compare's and history's exit status 1): "change" trips on any
    verdict that is a change, "regression" on a change in the bad direction; None never."""
    if fail_on is None:
        return False
    if fail_on not in FAIL_ON:
        raise ValueError(f"fail_on must be one of {FAIL_ON}")
    if fail_on == "change":
        return any(v.outcome == "change" for v in verdicts)
    return any(v.regression for v in verdicts)


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


POWER = 0.8  # the power the advice is stated at


@dataclass(frozen=True)
class Advice:
    """What an inconclusive experiment can and cannot support, from its variance alone.

    detectable: the smallest relative change this experiment detects with `power`
    (two-sided, at its confidence), ±; new_experiment: measurements per sample
    (baseline, candidate) a new experiment needs to resolve ±threshold — to show
    equivalence with `power` if there is no change — or None without a threshold.
    Neither depends on the observed effect (an effect-based count invites sampling
    to a foregone conclusion).
    """

    detectable: float | None
    new_experiment: tuple[int, int] | None
    power: float = POWER


def _quantiles(confidence: float, df: float, power: float) -> tuple[float, float]:
    """t_{1-α/2, df} and the one-sided t_{power, df}."""
    return critical_t(confidence, df), critical_t(2.0 * power - 1.0, df)


def advice(base_mean: float, base_var: float, n_base: int, cand_var: float, n_cand: int,
           confidence: float, threshold: float, paired_var: float | None = None,
           power: float = POWER) -> Advice:
    """Minimum detectable effect and the size of a new experiment (STATS.md §4, power).

    The relative standard error under no change is SE = sqrt(s_c²/n_c + s_b²/n_b) / b
    (paired: s_d / sqrt(n) / b with d = c − b); a change of (t_{1−α/2} + t_{power}) · SE
    is detected with probability `power`. A new experiment of n per sample shows
    equivalence within ±threshold with probability about `power` when there is no
    change if threshold / SE(n) ≥ t_{1−α/2} + z_{(1+power)/2}; n is found by fixed point
    as the t quantiles depend on n. From the variance only, never the observed effect.
    """
    if not base_mean > 0:
        return Advice(None, None, power)
    if paired_var is not None:
        spread, df, per_n = paired_var / n_base, n_base - 1, paired_var
    else:
        spread = cand_var / n_cand + base_var / n_base
        num = spread ** 2
        den = (cand_var / n_cand) ** 2 / (n_cand - 1) + (base_var / n_base) ** 2 / (n_base - 1)
        df, per_n = (num / den if den > 0 else n_base + n_cand - 2), cand_var + base_var
    if not 0 < spread < math.inf:
        return Advice(None, None, power)
    t, tp = _quantiles(confidence, max(df, 1.0), power)
    detectable = (t + tp) * math.sqrt(spread) / base_mean
    if threshold <= 0:
        return Advice(detectable, None, power)
    n = 2.0
    for _ in range(60):
        df_n = n - 1 if paired_var is not None else 2 * n - 2
        t, tz = _quantiles(confidence, max(df_n, 1.0), (1.0 + power) / 2.0)
        new_n = max(2.0, ((t + tz) / threshold) ** 2 * per_n / base_mean ** 2)
        if abs(new_n - n) < 1e-9 * n:
            break
        n = new_n
    if not n < 1e12:
        return Advice(detectable, None, power)
    size = math.ceil(n)
    return Advice(detectable, (size, size), power)


def verdict_sentence(outcome: str, baseline: str, candidate: str, ratio: float,
                     low: float | None, high: float | None, threshold: float,
                     confidence: float, unit: Unit, more: Advice | None,
                     noun: str = "measurements") -> str:
    """The verdict as one plain sentence, e.g. "new is faster than old: -5.5% (95% CI -8.0%
    .. -3.0%)", "new is 2.28× faster than old (95% CI 2.10× .. 2.45×)" or, for a
    zero-width CI, "new is higher than old: +0.01% (exact: the data have no spread ...)".

    The change is written as every format writes it (notation.change_parts): signed
    percentages within ±50%, factors with a word beyond, a plain ratio (its size
    undetermined) when the CI reaches 0.
    """
    level = f"{fmt_level(confidence)} CI"
    change = change_parts(ratio, low, high, unit)
    exact = change.exact
    ci = (f"exact: the data have no spread that could move it, a zero-width {level}"
          if exact else f"{level} {change.interval}")
    if change.ratio and change.low is not None:
        ci += f"; {UNDETERMINED}"
    limit = fmt_share(threshold)
    changes = f"has {change.estimate}" if change.ratio else f"changes {change.estimate}"
    if outcome == "change":
        word = unit.direction_word(ratio > 1.0)
        if change.factor:  # "new is 2.28× faster than old (95% CI 2.10× .. 2.45×)"
            text = f"{candidate} is {change.estimate} than {baseline} ({ci})"
        else:  # "new is faster than old: -5.5% (95% CI -8.0% .. -3.0%)"
            text = f"{candidate} is {word} than {baseline}: {change.estimate} ({ci})"
        if threshold > 0:
            text += f", more than the {limit} threshold"
        return text
    if outcome == "equivalent" and exact and ratio == 1.0:
        return (f"no difference: {candidate} and {baseline} have the same mean, exactly "
                f"(ratio 1, a zero-width {level}: the data have no spread that could move it)")
    if outcome == "equivalent":
        return (f"{candidate} and {baseline} are equivalent within ±{limit}: "
                f"{change.phrase} ({ci})")
    if low is None or high is None:
        text = (f"no conclusion: {candidate} vs {baseline} {changes} but "
                f"the {level} is unbounded (the baseline mean is too uncertain)")
    elif threshold == 0:
        text = (f"no difference proven between {candidate} and {baseline}: "
                f"{change.phrase} ({ci})")
    else:
        text = (f"inconclusive at the {limit} threshold: {candidate} vs {baseline}: "
                f"{change.phrase} ({ci})" if change.ratio else
                f"inconclusive at the {limit} threshold: {candidate} vs {baseline} "
                f"{changes} ({ci})")
    if more is not None and more.detectable is not None:
        text += (f"; this experiment detects a change of "
                 f"{fmt_detectable(more.detectable, unit)} with {fmt_share(more.power)} power")
        if more.new_experiment is not None:
            b, c = more.new_experiment
            word = noun if b != 1 else noun.removesuffix("s")
            text += (f"; a new experiment needs about {b} {word} per sample to resolve "
                     f"±{limit}")
    return text

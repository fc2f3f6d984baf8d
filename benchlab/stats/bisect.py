"""The decisions of `benchlab bisect`: do the two ends differ, and on which side is a commit.

Every decision reads Fieller's CI of a ratio of means (STATS.md §3) of independent
executions, with Welch–Satterthwaite degrees of freedom:

- the ends: bad/good against the threshold (stats/verdict.classify, STATS.md §4):
  a change means the search may start, equivalence that there is nothing to find;
- a step: the commit's mean against the mean of the two ends' means, mid/((good +
  bad)/2). Under a single step change the commit is at the good level or at the bad
  one, so this ratio is 1 ∓ δ/(2 + δ) away from 1, and a CI that excludes 1 puts it
  on one side. A CI that contains 1 is "unknown" (more executions, then ambiguity),
  never a guess; the ratio mid/good and its verdict are reported beside it.

The error of the whole search is bounded by Bonferroni's inequality (STATS.md §6's
family-wise rule): the search names a wrong commit only if some decision is wrong,
so with α = 1 − confidence split over the decisions it does so with probability at
most α, whatever the stopping (each look is a decision of its own). `budget` gives
the first `steps` decisions 90% of α in equal shares (the ends, ⌈log2 C⌉ bisection
steps for C candidate commits and one spare) and any step beyond them (a skipped build
moves the next commit off the middle) half of what is left each, so the shares sum
to at most α. Within a step each of its K looks (executions per arm doubling from
the first look to the most) gets 1/K of the step's share.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from benchlab.stats.fieller import RatioInterval, fieller_interval, welch_ratio_df
from benchlab.stats.verdict import classify

OVERFLOW_SHARE = 0.1  # of α, kept for steps beyond the planned number


@dataclass(frozen=True)
class Budget:
    """How the family error α = 1 − confidence is spent: `steps` planned decisions and the
    executions per arm at each look of the ends' decision (`looks`) and of each later step
    (`step_looks`, once `executions_needed` has sized them; `looks` until then)."""

    confidence: float
    steps: int
    looks: tuple[int, ...]
    step_looks: tuple[int, ...] | None = None

    def looks_of(self, step: int) -> tuple[int, ...]:
        return self.looks if step == 1 or self.step_looks is None else self.step_looks

    def step_alpha(self, step: int) -> float:
        """The error share of decision `step` (1-based: 1 is the ends)."""
        alpha = 1.0 - self.confidence
        if step <= self.steps:
            return alpha * (1.0 - OVERFLOW_SHARE) / self.steps
        return alpha * OVERFLOW_SHARE * 0.5 ** (step - self.steps)

    def level(self, step: int) -> float:
        """The confidence of each look's CI in decision `step`."""
        return 1.0 - self.step_alpha(step) / len(self.looks_of(step))


def looks(first: int, most: int) -> tuple[int, ...]:
    """Executions per arm at each look: first, 2·first, 4·first, ... and then most."""
    if first < 2:
        raise ValueError(f"first must be at least 2 (a spread needs 2), not {first}")
    if most < first:
        raise ValueError(f"most must be at least first ({first}), not {most}")
    out = [first]
    while out[-1] * 2 < most:
        out.append(out[-1] * 2)
    if out[-1] != most:
        out.append(most)
    return tuple(out)


def budget(candidates: int, confidence: float, first: int, most: int) -> Budget:
    """The budget of a search over `candidates` commits (those after good, bad included)."""
    if candidates < 1:
        raise ValueError(f"candidates must be at least 1, not {candidates}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie between 0 and 1, not {confidence!r}")
    # the ends, ⌈log2 C⌉ halvings, and one more: a skipped commit moves the next one off
    # the middle, and a step beyond the plan gets a far smaller share
    steps = 2 + math.ceil(math.log2(candidates)) if candidates > 1 else 1
    return Budget(confidence, steps, looks(first, most))


def ratio(num: np.ndarray, den: np.ndarray, level: float) -> RatioInterval:
    """Fieller's CI of mean(num)/mean(den), independent samples, Welch's df (STATS.md §3)."""
    a, b = float(np.mean(num)), float(np.mean(den))
    v_a = float(np.var(num, ddof=1)) / num.size
    v_b = float(np.var(den, ddof=1)) / den.size
    df = welch_ratio_df(a / b, v_a, v_b, num.size, den.size)
    return fieller_interval(a, b, v_a, v_b, 0.0, df, level, "fieller (welch df)")


def position(good: np.ndarray, mid: np.ndarray, bad: np.ndarray, level: float
             ) -> RatioInterval:
    """Fieller's CI of mean(mid) / ((mean(good) + mean(bad)) / 2).

    The denominator's variance is (v_g + v_b)/4; the df are Welch–Satterthwaite's for the
    pivot mid − ρ·(good + bad)/2, whose three independent parts have n − 1 df each (the
    two-sample welch_ratio_df with the denominator split in two)."""
    m, g, b = float(np.mean(mid)), float(np.mean(good)), float(np.mean(bad))
    v_m = float(np.var(mid, ddof=1)) / mid.size
    v_g = float(np.var(good, ddof=1)) / good.size
    v_b = float(np.var(bad, ddof=1)) / bad.size
    centre = (g + b) / 2.0
    rho = m / centre
    parts = [(v_m, mid.size), (rho * rho * v_g / 4.0, good.size),
             (rho * rho * v_b / 4.0, bad.size)]
    total = sum(p for p, _ in parts)
    if total > 0.0 and math.isfinite(total):
        df = total * total / sum(p * p / (n - 1) for p, n in parts)
    else:
        df = float(mid.size + good.size + bad.size - 3)
    return fieller_interval(m, centre, v_m, (v_g + v_b) / 4.0, 0.0, df, level,
                            "fieller (welch df)")


STEP_POWER = 0.999  # the chance that a step decides by its last look, sized from the ends


def executions_needed(good: np.ndarray, bad: np.ndarray, ends: RatioInterval, level: float,
                      power: float = STEP_POWER) -> int | None:
    """Executions of each commit a step needs to decide with probability `power` (None when
    the ends' CI is unbounded).

    A commit at either end's level has position 1 ∓ d, d = |r − 1|/(1 + r) for r =
    bad/good; the step decides once the CI's half-width, z_level · se, is below the
    distance from the estimate to 1, so with probability `power` when
    (t_level + z_power) · se ≤ d (normal-theory power, STATS.md §6, with Student's t at
    2(n − 1) df for the CI's quantile, as n is small), se = s·sqrt(1.5/n)
    for a relative spread s per execution (the commit's n executions and the two ends'
    mean, (s²/n + s²/n)/4). r is the end of the ends' CI nearest to 1 (the change is at
    least that at the ends' level) and s the larger of the two ends' relative spreads at
    its 80% upper confidence bound, s·sqrt(ν/χ²_{0.2,ν}) (as the runner's stopping rule
    judges a spread, runner/stopping.py), so the size errs on the large side."""
    from benchlab.stats.distributions import critical_t, normal_quantile

    r = ends.low if ends.estimate > 1.0 else ends.high
    if r is None or not ends.bounded or r == 1.0:
        return None
    d = abs(r - 1.0) / (1.0 + r)
    from scipy.special import chdtri

    df = min(good.size, bad.size) - 1.0  # the spread at its 80% upper confidence bound
    spread = max(float(np.std(good, ddof=1) / np.mean(good)),
                 float(np.std(bad, ddof=1) / np.mean(bad))) * math.sqrt(df / chdtri(df, 0.8))
    n = 2
    for _ in range(20):  # t's quantile at the df of n executions of each: a fixed point
        df = 2.0 * (n - 1)  # at least the commit's n − 1 and some of the ends'
        z = critical_t(level, df) + normal_quantile(power)
        found = max(2, math.ceil(1.5 * (spread * z / d) ** 2))
        if found == n:
            break
        n = found
    return n


@dataclass(frozen=True)
class EndsCheck:
    """The ends at one look: `outcome` "differ" (the CI of bad/good beyond the threshold),
    "same" (within it) or "unknown"."""

    ratio: RatioInterval
    verdict: str
    outcome: str
    runs: int


def check_ends(good: np.ndarray, bad: np.ndarray, level: float, threshold: float) -> EndsCheck:
    """Do good and bad differ by more than `threshold`? (Fieller's CI at `level`)."""
    r = ratio(bad, good, level)
    verdict = classify(r.low, r.high, threshold)
    outcome = {"change": "differ", "equivalent": "same"}.get(verdict, "unknown")
    return EndsCheck(r, verdict, outcome, int(min(good.size, bad.size)))


@dataclass(frozen=True)
class SideCheck:
    """One commit at one look: `side` "good", "bad" or "unknown" from `position`; beside it
    the CIs of mid/good and bad/good and the verdict of mid/good against the threshold."""

    position: RatioInterval
    vs_good: RatioInterval
    ends: RatioInterval
    verdict: str
    side: str
    runs: int


def check_side(good: np.ndarray, mid: np.ndarray, bad: np.ndarray, level: float,
               threshold: float, slower: bool) -> SideCheck:
    """On which side is `mid`? `slower`: the bad end's mean is above the good end's (as the
    ends' decision found), so a position CI above 1 is the bad side."""
    pos = position(good, mid, bad, level)
    side = "unknown"
    if pos.bounded:
        if pos.low > 1.0:  # type: ignore[operator]
            side = "bad" if slower else "good"
        elif pos.high < 1.0:  # type: ignore[operator]
            side = "good" if slower else "bad"
    vs_good = ratio(mid, good, level)
    return SideCheck(pos, vs_good, ratio(bad, good, level),
                     classify(vs_good.low, vs_good.high, threshold), side,
                     int(min(good.size, mid.size, bad.size)))

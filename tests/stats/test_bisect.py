"""stats/bisect.py: the position CI against the inversion of its t test (scipy's t quantile,
solved on a grid), its coverage by simulation, the error budget summing to at most α, the
looks, and the sides."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchlab.stats import bisect as decide


def _reference(good, mid, bad, level):
    """The set of ρ where |m − ρc| / sqrt(v_m + ρ²v_c) ≤ t (the Fieller pivot, its df by
    Satterthwaite over the three samples), found on a fine grid: its ends."""
    from scipy import stats

    m, c = mid.mean(), (good.mean() + bad.mean()) / 2
    v_m, v_g, v_b = (x.var(ddof=1) / x.size for x in (mid, good, bad))
    rho = m / c
    parts = [(v_m, mid.size), (rho**2 * v_g / 4, good.size), (rho**2 * v_b / 4, bad.size)]
    df = sum(p for p, _ in parts) ** 2 / sum(p * p / (n - 1) for p, n in parts)
    t = stats.t.ppf(0.5 + level / 2, df)
    grid = np.linspace(rho * 0.5, rho * 1.5, 400_001)
    inside = np.abs(m - grid * c) <= t * np.sqrt(v_m + grid**2 * (v_g + v_b) / 4)
    return grid[inside][0], grid[inside][-1], grid[1] - grid[0]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_position_is_the_inverted_t_test(seed):
    rng = np.random.default_rng(seed)
    good = rng.normal(10.0, 0.4, 7)
    bad = rng.normal(11.0, 0.6, 9)
    mid = rng.normal(10.2, 0.5, 6)
    ci = decide.position(good, mid, bad, 0.99)
    low, high, step = _reference(good, mid, bad, 0.99)
    assert ci.low == pytest.approx(low, abs=2 * step)
    assert ci.high == pytest.approx(high, abs=2 * step)
    assert ci.estimate == pytest.approx(mid.mean() / ((good.mean() + bad.mean()) / 2))


def test_position_covers_at_its_level():
    """2,000 simulated steps with the commit at the good level: the 95% CI covers the true
    position 2/(1 + R) within 95% ± 1.5% (about 3 binomial SDs)."""
    rng = np.random.default_rng(7)
    ratio, n, reps = 1.05, 6, 2000
    truth = 2.0 / (1.0 + ratio)
    good = rng.normal(1.0, 0.03, (reps, n))
    mid = rng.normal(1.0, 0.03, (reps, n))
    bad = rng.normal(ratio, 0.05, (reps, n))
    covered = 0
    for g, m, b in zip(good, mid, bad, strict=True):
        ci = decide.position(g, m, b, 0.95)
        covered += ci.low <= truth <= ci.high
    assert abs(covered / reps - 0.95) < 0.015


def test_budget_spends_at_most_alpha():
    b = decide.budget(1000, 0.95, 5, 40)
    assert b.steps == 2 + 10 and b.looks == (5, 10, 20, 40)
    spent = sum(b.step_alpha(k) for k in range(1, b.steps + 200))
    assert spent <= 0.05 + 1e-15
    assert sum(b.step_alpha(k) for k in range(1, b.steps + 1)) == pytest.approx(0.045)
    levels = [b.level(k) for k in range(1, b.steps + 5)]
    assert levels[0] == pytest.approx(1 - 0.045 / 12 / 4)
    assert all(x <= y for x, y in zip(levels, levels[1:], strict=False))
    assert decide.budget(1, 0.95, 5, 40).steps == 1
    assert decide.budget(2, 0.95, 5, 40).steps == 3
    assert decide.budget(64, 0.9, 5, 40).steps == 8


def test_looks():
    assert decide.looks(5, 40) == (5, 10, 20, 40)
    assert decide.looks(5, 30) == (5, 10, 20, 30)
    assert decide.looks(4, 4) == (4,)
    assert decide.looks(3, 7) == (3, 6, 7)
    with pytest.raises(ValueError, match="at least 2"):
        decide.looks(1, 4)
    with pytest.raises(ValueError, match="at least first"):
        decide.looks(5, 4)


def test_sides_and_ends():
    rng = np.random.default_rng(4)
    good, bad = rng.normal(1.0, 0.01, 10), rng.normal(1.2, 0.01, 10)
    near_bad = rng.normal(1.2, 0.01, 10)
    slower = decide.check_side(good, near_bad, bad, 0.999, 0.02, slower=True)
    assert slower.side == "bad" and slower.verdict == "change"
    assert slower.vs_good.low > 1.15
    # the same numbers when the bad end is the faster one: the commit is on the good side
    assert decide.check_side(bad, near_bad, good, 0.999, 0.02, slower=False).side == "good"
    unknown = decide.check_side(good, (good + bad) / 2, bad, 0.999, 0.02, slower=True)
    assert unknown.side == "unknown"
    ends = decide.check_ends(good, bad, 0.999, 0.02)
    assert ends.outcome == "differ" and ends.ratio.low > 1.15
    same = decide.check_ends(good, rng.normal(1.0, 0.01, 10), 0.999, 0.05)
    assert same.outcome == "same" and same.verdict == "equivalent"
    assert math.isclose(ends.ratio.estimate, bad.mean() / good.mean())


def test_identical_counts_decide_exactly_at_the_first_look():
    """Counted instructions repeat exactly: every CI is the point estimate (no spread, no
    t quantile), so a 5% change is placed at 2 executions of each, and a step needs no
    more than the 2 a spread needs."""
    good, bad = np.full(2, 1_000_000.0), np.full(2, 1_050_000.0)
    ends = decide.check_ends(good, bad, 0.9999, 0.02)
    assert ends.outcome == "differ" and ends.verdict == "change"
    assert ends.ratio.low == ends.ratio.high == pytest.approx(1.05, abs=1e-15)
    assert decide.executions_needed(good, bad, ends.ratio, 0.9999) == 2
    for mid, side in ((good, "good"), (bad, "bad"), (good + 3.0, "good")):
        c = decide.check_side(good, mid.copy(), bad, 0.9999, 0.02, slower=True)
        assert c.side == side and c.position.low == c.position.high
    # the same program at both ends (an A/A range, or an unrelated commit's few
    # instructions more): equivalent, exactly
    same = decide.check_ends(good, good + 3.0, 0.9999, 0.02)
    assert same.outcome == "same" and same.ratio.low == same.ratio.high

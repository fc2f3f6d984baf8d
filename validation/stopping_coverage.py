"""Coverage of the ratio CI after adaptive stopping on CI width (issue 12, item 2).

The runner's `stop_when` stops an experiment once every ratio CI (Fieller on the
top-level unit means, Welch df) is narrower than a target half-width — on width,
never on significance. Stopping on an estimated width is not free: a run that
happens to see a small spread stops early with a CI that is too narrow. This
script measures it for the plain rule (stop from 2 units when the half-width is
within the target) and for the runner's guarded rule (benchlab.runner.stopping:
at least MIN_UNITS units, the half-width judged at the 80% upper bound of the
spread). Each simulated experiment adds one top-level unit per alternative per
round, applies the rule after each round, and at the stop records whether the
final 95% CI holds the true ratio. Vectorized over experiments; normal and
lognormal units; true ratios 1.00 and 1.05; stops from about 4 to 200 units.
Goal: coverage 95% ± 1.5%. Run `python3 validation/stopping_coverage.py`
(about two minutes; `--sims` to change the count)."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from scipy import stats
from scipy.special import chdtri

from benchlab.runner.stopping import MIN_UNITS, SPREAD_BOUND

MAX_UNITS = 400


def fieller(a, b, va, vb, df, confidence=0.95):
    """Vectorized Fieller interval for a/b with independent a, b (STATS.md §3); nan where
    unbounded."""
    t = stats.t.ppf(0.5 + confidence / 2, df)
    rho = a / b
    g = t * t * vb / (b * b)
    disc = np.maximum(va + rho * rho * vb - g * va, 0.0)
    half = t / b * np.sqrt(disc)
    low, high = (rho - half) / (1 - g), (rho + half) / (1 - g)
    bad = g >= 1
    return np.where(bad, np.nan, low), np.where(bad, np.nan, high)


def welch_df(rho, va, vb, n):
    part_b = rho * rho * vb
    total = va + part_b
    u = np.divide(va, total, out=np.ones_like(total), where=total > 0)
    return 1.0 / (u * u / (n - 1) + (1 - u) ** 2 / (n - 1))


def simulate(sims: int, ratio: float, cv: float, target: float, dist: str, rng,
             guarded: bool = True):
    """Coverage, mean stopping size and the share that hit the cap, for one cell."""
    shape = (sims, MAX_UNITS)
    if dist == "normal":
        base = rng.normal(1.0, cv, shape)
        cand = rng.normal(ratio, ratio * cv, shape)
    else:  # lognormal units with the same CV, means 1 and ratio
        s = np.sqrt(np.log1p(cv * cv))
        base = rng.lognormal(-s * s / 2, s, shape)
        cand = ratio * rng.lognormal(-s * s / 2, s, shape)
    n = np.arange(1, MAX_UNITS + 1, dtype=float)
    stopped = np.full(sims, MAX_UNITS - 1)
    done = np.zeros(sims, dtype=bool)
    lows = np.full(sims, np.nan)
    highs = np.full(sims, np.nan)
    mean_b, mean_c = np.cumsum(base, axis=1) / n, np.cumsum(cand, axis=1) / n
    sq_b, sq_c = np.cumsum(base * base, axis=1), np.cumsum(cand * cand, axis=1)
    for k in range((MIN_UNITS if guarded else 2) - 1, MAX_UNITS):
        m = n[k]
        vb = (sq_b[:, k] - m * mean_b[:, k] ** 2) / (m - 1) / m
        va = (sq_c[:, k] - m * mean_c[:, k] ** 2) / (m - 1) / m
        rho = mean_c[:, k] / mean_b[:, k]
        df = welch_df(rho, va, vb, m)
        low, high = fieller(mean_c[:, k], mean_b[:, k], va, vb, df)
        factor = np.sqrt(df / chdtri(df, 1.0 - SPREAD_BOUND)) if guarded else 1.0
        narrow = ~done & np.isfinite(low) & ((high - low) / 2 * factor <= target)
        last = ~done & (k == MAX_UNITS - 1)
        take = narrow | last
        lows[take], highs[take], stopped[take] = low[take], high[take], k
        done |= take
    covered = (lows <= ratio) & (ratio <= highs)
    return covered.mean(), (stopped + 1).mean(), np.mean(stopped == MAX_UNITS - 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"{'rule':<9}{'dist':<10}{'ratio':>6}{'CV':>6}{'target':>8}{'coverage':>10}"
          f"{'MCSE':>7}{'units':>8}{'at cap':>8}")
    cells = ((0.005, 0.01), (0.01, 0.01), (0.02, 0.01), (0.05, 0.02), (0.05, 0.01),
             (0.10, 0.02))
    misses = {True: 0, False: 0}
    for guarded in (False, True):
        for dist in ("normal", "lognormal"):
            for ratio in (1.00, 1.05):
                for cv, target in cells:
                    cov, units, cap = simulate(args.sims, ratio, cv, target, dist, rng,
                                               guarded)
                    mcse = np.sqrt(cov * (1 - cov) / args.sims)
                    ok = abs(cov - 0.95) <= 0.015
                    misses[guarded] += not ok
                    print(f"{'guarded' if guarded else 'plain':<9}{dist:<10}{ratio:>6.2f}"
                          f"{cv:>6.1%}{target:>8.0%}{100 * cov:>9.1f}%{100 * mcse:>6.1f}%"
                          f"{units:>8.1f}{100 * cap:>7.1f}%{'' if ok else '  goal missed'}")
    total = 2 * 2 * len(cells)
    print(f"goal 95% +- 1.5%: plain rule met in {total - misses[False]} of {total} cells, "
          f"the runner's guarded rule (>= {MIN_UNITS} units, spread at its "
          f"{100 * (1 - SPREAD_BOUND):g}% upper bound) in {total - misses[True]} of {total} "
          f"({time.perf_counter() - start:.0f} s, {args.sims} simulations per cell)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

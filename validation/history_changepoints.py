"""Recall and false alarms of `history check` on simulated series (issue 14).

Each series has COMMITS commits of RUNS runs each; a measurement is
level × (1 + commit effect + run noise), with noise at two levels: the commit
effect (a build, a layout) with SD `sd_commit` and the run noise with SD
`sd_run` (so "1% noise" is sd_commit = 0.6%, sd_run = 0.8%: 1% per measurement).
Changed series have one step of 1, 2, 3, 5 or 10% (up or down) at a random
commit; null series have none, and half of them one single-commit outlier of
+15%. Printed per noise level and shift: the recall (the change reported within
±2 commits of where it is) of `history check` at the default threshold (2%) and
of E-Divisive alone (every candidate it proposes) with each significance test:
Welch's t at 0.001 (Otava's, what `history check` uses) and the permutation test
(199 permutations at 5%, Matteson & James's), and the false alarms per 1,000
unchanged commits of each (null series; reports farther than 2 commits from a
true change in changed series). Goal: recall ≥ 90% for shifts ≥ 3% at 1% noise,
≤ 1 false alarm per 1,000 unchanged commits at the default threshold.

Run: python3 validation/history_changepoints.py [--scale 0.25] [--seed N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlab.history.check import series_changes  # noqa: E402
from benchlab.history.store import Commit, Series  # noqa: E402
from benchlab.stats.changepoint import e_divisive  # noqa: E402

COMMITS, RUNS, THRESHOLD = 120, 5, 0.02
NOISE = {"1%": (0.006, 0.008), "3%": (0.018, 0.024)}
SHIFTS = (0.01, 0.02, 0.03, 0.05, 0.10)


def simulate(rng: np.random.Generator, sd_commit: float, sd_run: float, shift: float,
             outlier: bool) -> tuple[Series, int | None]:
    """One series and where its change is (None: no change)."""
    level = np.ones(COMMITS)
    at = None
    if shift:
        at = int(rng.integers(20, COMMITS - 20))
        level[at:] *= 1.0 + shift * rng.choice([-1.0, 1.0])
    if outlier:
        level[int(rng.integers(5, COMMITS - 5))] *= 1.15
    commit = 1.0 + rng.normal(0, sd_commit, COMMITS)
    values = (level * commit)[:, None] * (1.0 + rng.normal(0, sd_run, (COMMITS, RUNS)))
    index = np.repeat(np.arange(COMMITS), RUNS)
    runs = np.tile(np.arange(RUNS).astype(str), COMMITS)
    return Series("b", "time", "m", "s", False, ("run",), index, values.ravel(),
                  (runs,)), at


def run(series_per_cell: int, seed: int) -> str:
    history = [Commit(f"c{i}", None, None) for i in range(COMMITS)]
    rng = np.random.default_rng(seed)
    lines = [f"history check validation: {COMMITS} commits x {RUNS} runs, threshold "
             f"{100 * THRESHOLD:g}%, {series_per_cell} series per cell, seed {seed}", ""]
    lines.append(f"{'noise':>5} {'shift':>6} {'series':>6} {'recall check':>13} "
                 f"{'E-Div t':>8} {'E-Div perm':>11}   (recall: the change reported within "
                 "±2 commits)")
    false_check: dict[str, list[int]] = {k: [0, 0] for k in NOISE}
    false_ediv: dict[str, list[int]] = {k: [0, 0] for k in NOISE}
    false_perm: dict[str, list[int]] = {k: [0, 0] for k in NOISE}
    for noise, (sd_c, sd_r) in NOISE.items():
        for shift in (*SHIFTS, 0.0):
            hit_c = hit_e = hit_p = 0
            for i in range(series_per_cell):
                s, at = simulate(rng, sd_c, sd_r, shift, outlier=shift == 0.0 and i % 2 == 0)
                found, _ = series_changes(s, history, threshold=THRESHOLD, confidence=0.95,
                                          seed=int(rng.integers(2**32)))
                where = [int(c.commit[1:]) for c in found]
                means = s.values.reshape(COMMITS, RUNS).mean(axis=1)
                cands = list(e_divisive(means, min_size=3).indices)
                perm = list(e_divisive(means, min_size=3, test="permutation",
                                       seed=int(rng.integers(2**32))).indices)
                near_c = [w for w in where if at is not None and abs(w - at) <= 2]
                near_e = [w for w in cands if at is not None and abs(w - at) <= 2]
                near_p = [w for w in perm if at is not None and abs(w - at) <= 2]
                hit_c += bool(near_c)
                hit_e += bool(near_e)
                hit_p += bool(near_p)
                unchanged = COMMITS - (5 if at is not None else 0)
                false_check[noise][0] += len(where) - len(near_c)
                false_check[noise][1] += unchanged
                false_ediv[noise][0] += len(cands) - len(near_e)
                false_ediv[noise][1] += unchanged
                false_perm[noise][0] += len(perm) - len(near_p)
                false_perm[noise][1] += unchanged
            if shift:
                lines.append(f"{noise:>5} {100 * shift:>5g}% {series_per_cell:>6} "
                             f"{100 * hit_c / series_per_cell:>12.1f}% "
                             f"{100 * hit_e / series_per_cell:>7.1f}% "
                             f"{100 * hit_p / series_per_cell:>10.1f}%")
    lines += ["", "false alarms per 1,000 unchanged commits (null series with and without "
              "outliers, and changed series away from their change):"]
    for noise in NOISE:
        fc, nc = false_check[noise]
        fe, ne = false_ediv[noise]
        fp, npm = false_perm[noise]
        lines.append(f"  noise {noise}: history check {1000 * fc / nc:.2f} ({fc} in {nc}); "
                     f"E-Divisive alone, t-test {1000 * fe / ne:.2f} ({fe}), permutations "
                     f"{1000 * fp / npm:.2f} ({fp})")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="fraction of the 40 series per "
                   "cell (default 1)")
    p.add_argument("--seed", type=int, default=20261214)
    args = p.parse_args()
    start = time.perf_counter()
    text = run(max(2, int(round(40 * args.scale))), args.seed)
    text += f"\n{time.perf_counter() - start:.0f} s\n"
    sys.stdout.write(text)
    if args.scale == 1.0:
        Path(__file__).with_suffix(".out.txt").write_text(text)


if __name__ == "__main__":
    main()

"""Recall and false alarms of `history check` on simulated series (issue 14).

Each series has COMMITS commits of RUNS runs each; a measurement is
level × (1 + commit effect + run noise), with noise at two levels: the commit
effect (a build, a layout) with SD `sd_commit` and the run noise with SD
`sd_run` (so "1% noise" is sd_commit = 0.6%, sd_run = 0.8%: 1% per measurement).
Changed series have one step of 1, 2, 3, 5 or 10% (up or down) at a random
commit; null series have none, and half of them one single-commit outlier of
+15%. Drifting series change by 5% (up or down) linearly over 20 commits from a
random commit on: what is reported, where on the ramp, and how much of the 5%
the reported changes add up to. Bimodal series draw each run from one of two
modes 5% apart (each with probability 1/2), on top of the noise: unchanged (false
alarms) or with a step of 3, 5 or 10% (recall). Printed per noise level and
shift: the recall (the change reported within ±2 commits of where it is) of
`history check` at the default threshold (2%) and
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

from benchlab.history.check import series_findings  # noqa: E402
from benchlab.history.store import Commit, Series  # noqa: E402
from benchlab.stats.changepoint import e_divisive  # noqa: E402

COMMITS, RUNS, THRESHOLD = 120, 5, 0.02
NOISE = {"1%": (0.006, 0.008), "3%": (0.018, 0.024)}
SHIFTS = (0.01, 0.02, 0.03, 0.05, 0.10)
DRIFT, DRIFT_LEN = 0.05, 20
GAP = 0.05  # bimodal: the second mode's distance from the first
BIMODAL_SHIFTS = (0.03, 0.05, 0.10)


def simulate(rng: np.random.Generator, sd_commit: float, sd_run: float, shift: float,
             outlier: bool, drift: float = 0.0, gap: float = 0.0
             ) -> tuple[Series, int | None]:
    """One series and where its change starts (None: no change). drift: a linear change
    of that size over DRIFT_LEN commits instead of a step; gap: each run from one of two
    modes that far apart (probability 1/2 each)."""
    level = np.ones(COMMITS)
    at = None
    if shift:
        at = int(rng.integers(20, COMMITS - 20))
        level[at:] *= 1.0 + shift * rng.choice([-1.0, 1.0])
    if drift:
        at = int(rng.integers(20, COMMITS - 20 - DRIFT_LEN))
        ramp = np.clip((np.arange(COMMITS) - at + 1) / DRIFT_LEN, 0.0, 1.0)
        level *= 1.0 + drift * rng.choice([-1.0, 1.0]) * ramp
    if outlier:
        level[int(rng.integers(5, COMMITS - 5))] *= 1.15
    commit = 1.0 + rng.normal(0, sd_commit, COMMITS)
    values = (level * commit)[:, None] * (1.0 + rng.normal(0, sd_run, (COMMITS, RUNS)))
    if gap:
        values *= 1.0 + gap * (rng.random((COMMITS, RUNS)) < 0.5)
    index = np.repeat(np.arange(COMMITS), RUNS)
    runs = np.tile(np.arange(RUNS).astype(str), COMMITS)
    return Series("b", "time", "m", "s", False, ("run",), index, values.ravel(),
                  (runs,)), at


def found_by(s: Series, rng: np.random.Generator, history: list[Commit]
             ) -> tuple[list[int], list[int], list[int], list[float]]:
    """Where history check, E-Divisive with the t-test and with permutations report a
    change, and the ratio of each change history check reports."""
    found = series_findings(s, history, threshold=THRESHOLD, confidence=0.95,
                            seed=int(rng.integers(2**32))).changes
    means = s.values.reshape(COMMITS, RUNS).mean(axis=1)
    cands = list(e_divisive(means, min_size=3).indices)
    perm = list(e_divisive(means, min_size=3, test="permutation",
                           seed=int(rng.integers(2**32))).indices)
    return ([int(c.commit[1:]) for c in found], cands, perm,
            [c.ratio.estimate for c in found])


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
                where, cands, perm, _ = found_by(s, rng, history)
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
    lines += drifts(rng, history, series_per_cell)
    lines += bimodal(rng, history, series_per_cell)
    return "\n".join(lines) + "\n"


def _quartiles(x: list[float]) -> str:
    if not x:
        return "-"
    q1, q2, q3 = np.percentile(x, [25, 50, 75])
    return f"{q2:+.0f} ({q1:+.0f}..{q3:+.0f})"


def drifts(rng: np.random.Generator, history: list[Commit], count: int) -> list[str]:
    """Gradual drifts: per method, the share of series with a report on the ramp (from 2
    commits before it to 2 after it), the reports per series there and elsewhere, where
    the first one is (commits from the ramp's start: median and quartiles), and, for
    history check, the product of the ratios it reports on the ramp (the 5% it saw)."""
    lines = ["", f"gradual drifts: {100 * DRIFT:g}% (up or down) linearly over {DRIFT_LEN} "
             f"commits, {count} series per noise level; 'on the ramp' = from 2 commits before "
             f"it to 2 after its end"]
    lines.append(f"{'noise':>5} {'method':>15} {'found':>6} {'on ramp/series':>15} "
                 f"{'elsewhere':>9} {'first report at (quartiles)':>28} {'total change':>13}")
    for noise, (sd_c, sd_r) in NOISE.items():
        stats = {m: [0, 0, 0, [], []] for m in ("history check", "E-Div t", "E-Div perm")}
        for _ in range(count):
            s, at = simulate(rng, sd_c, sd_r, 0.0, False, drift=DRIFT)
            where, cands, perm, ratios = found_by(s, rng, history)
            for name, found in (("history check", where), ("E-Div t", cands),
                                ("E-Div perm", perm)):
                on = [w for w in found if at - 2 <= w <= at + DRIFT_LEN + 2]
                st = stats[name]
                st[0] += bool(on)
                st[1] += len(on)
                st[2] += len(found) - len(on)
                if on:
                    st[3].append(min(on) - at)
                if name == "history check" and on:
                    total = np.prod([r for w, r in zip(where, ratios, strict=True)
                                     if w in on])
                    st[4].append(abs(total - 1.0))
        for name, (hit, n_on, n_off, first, total) in stats.items():
            size = f"{100 * np.median(total):.1f}%" if total else ""
            lines.append(f"{noise:>5} {name:>15} {100 * hit / count:5.0f}% "
                         f"{n_on / count:15.2f} {n_off / count:9.2f} "
                         f"{_quartiles(first):>28} {size:>13}")
        hit, n_on, _, first, total = stats["history check"]
        if first:
            lines.append(f"      so at noise {noise} history check reports the drift in "
                         f"{100 * hit / count:.0f}% of the series as {n_on / max(hit, 1):.2f} "
                         f"step(s), the first a median {np.median(first):+.0f} commits into "
                         f"the {DRIFT_LEN}-commit ramp (its middle: +{DRIFT_LEN // 2 - 1}), "
                         f"adding up to {100 * np.median(total):.1f}% of the "
                         f"{100 * DRIFT:g}%")
    return lines


def bimodal(rng: np.random.Generator, history: list[Commit], count: int) -> list[str]:
    """Bimodal runs (modes GAP apart): recall of steps and false alarms, per method."""
    lines = ["", f"bimodal benchmarks: each run from one of two modes {100 * GAP:g}% apart "
             f"(probability 1/2 each), {count} series per cell"]
    lines.append(f"{'noise':>5} {'shift':>6} {'recall check':>13} {'E-Div t':>8} "
                 f"{'E-Div perm':>11}")
    false = {}
    for noise, (sd_c, sd_r) in NOISE.items():
        wrong = np.zeros(3, dtype=int)
        unchanged = 0
        for shift in (*BIMODAL_SHIFTS, 0.0):
            hits = np.zeros(3, dtype=int)
            for _ in range(count):
                s, at = simulate(rng, sd_c, sd_r, shift, False, gap=GAP)
                found = found_by(s, rng, history)[:3]
                near = [[w for w in f if at is not None and abs(w - at) <= 2] for f in found]
                hits += [bool(x) for x in near]
                wrong += [len(f) - len(x) for f, x in zip(found, near, strict=True)]
                unchanged += COMMITS - (5 if at is not None else 0)
            if shift:
                r = 100 * hits / count
                lines.append(f"{noise:>5} {100 * shift:>5g}% {r[0]:>12.1f}% {r[1]:>7.1f}% "
                             f"{r[2]:>10.1f}%")
        false[noise] = (wrong, unchanged)
    extra = 100 * GAP * 0.5 / np.sqrt(RUNS)
    lines.append(f"(the modes add {extra:.1f}% SD to each commit's mean of {RUNS} runs: "
                 "noise that the commits' means and their spread carry, as any other)")
    lines.append("false alarms per 1,000 unchanged commits of bimodal series:")
    for noise, (wrong, unchanged) in false.items():
        per = 1000 * wrong / unchanged
        lines.append(f"  noise {noise}: history check {per[0]:.2f} ({wrong[0]} in {unchanged}); "
                     f"E-Divisive alone, t-test {per[1]:.2f} ({wrong[1]}), permutations "
                     f"{per[2]:.2f} ({wrong[2]})")
    return lines


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

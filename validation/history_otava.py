"""`history check` on Apache Otava's public test-data generators (issue 28).

The series come from `otava-test-data` (installed here, never a dependency of
benchlab: `pip install otava-test-data`), one value per commit, 500 commits,
15 series of each kind, every one with its own seed:

    steps +3%        step_function(100 -> 103, sigma 1) at a random commit
    steps +5%        step_function(100 -> 105, sigma 1) at a random commit
    several changes  multiple_changes([100, 105, 102, 107], sigma 1) at random commits
    fixed regression regression_fix(100 -> 110 for 10 commits -> 100, sigma 2), 2 changes
    spike            outlier(100, 130 at one commit, sigma 1)
    noise            noise_normal(100, sigma 2)
    banding          banding(100 / 105, sigma 1)

and, at the newest commits, step_function(100 -> 105, sigma 1) 1, 2, 3 and 5
commits before the head (50 series each). A change counts as found when
`history check` reports a change (a step, an episode's start or its fix, a
change at the head) within ±2 commits of it; a spike when a transient (or a
change) is reported there. Every other report is a false alarm (transients
counted apart), over the commits of all 105 series less the 5 around each
true change. "as episodes": the episodes reported whose start and end each find a
true change (a regression and its fix as one report). `--runs R` gives every
commit R runs instead of one value (each run the commit's value × (1 + N(0, 1%))),
to check the method with runs.

Then pure normal noise (seeded numpy): every report of `history check` on
series of 200 and 1,000 commits with SD 1%, 2% and 5%, per 10,000 commits.

Run: python3 validation/history_otava.py [--runs 1] [--seed 28] [--noise 100] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

sys.path.insert(0, str(Path(__file__).resolve().parent))

from otava_series import COMMITS, NEAR, generate  # noqa: E402

from benchlab.history.check import check  # noqa: E402
from benchlab.history.store import Commit, Series  # noqa: E402


def as_series(values: np.ndarray, runs: int, rng: np.random.Generator) -> Series:
    n = values.size
    if runs == 1:
        return Series("b", "time", "m", "s", False, (), np.arange(n), values.astype(float), ())
    v = values[:, None] * (1.0 + rng.normal(0, 0.01, (n, runs)))
    return Series("b", "time", "m", "s", False, ("run",), np.repeat(np.arange(n), runs),
                  v.ravel(), (np.tile(np.arange(runs).astype(str), n),))


def episodes(result, truth: list[int]) -> int:
    """The reported episodes whose start and end each find a true change (a regression and
    its fix, one report)."""
    return sum(1 for c in result.changes if c.end_commit is not None
               and any(abs(int(c.commit[1:]) - t) <= NEAR for t in truth)
               and any(abs(int(c.end_commit[1:]) - t) <= NEAR for t in truth))


def reported(result) -> tuple[list[int], list[int]]:
    """Positions of the reported changes (episodes give their start and their fix) and of
    the transients."""
    where = []
    for c in result.changes:
        where.append(int(c.commit[1:]))
        end = getattr(c, "end_commit", None)
        if end is not None:
            where.append(int(end[1:]))
    spikes = [int(t.commit[1:]) for t in getattr(result, "transients", ())]
    return where, spikes


def run(seed: int, runs: int) -> str:
    history = [Commit(f"c{i:04d}", None, None) for i in range(COMMITS)]
    rng = np.random.default_rng(seed + 1)
    table: dict[str, list[int]] = {}
    false_changes = false_spikes = unchanged = 0
    for kind, values, cuts, spikes in generate(seed):
        res = check([as_series(values, runs, rng)], history)
        where, trans = reported(res)
        row = table.setdefault(kind, [0, 0, 0, 0, 0])
        for c in cuts:
            row[0] += any(abs(w - c) <= NEAR for w in where)
            row[1] += 1
        for p in spikes:
            row[0] += any(abs(w - p) <= NEAR for w in [*where, *trans])
            row[1] += 1
        truth = [*cuts, *spikes]
        wrong = [w for w in where if not any(abs(w - c) <= NEAR for c in truth)]
        wrong_t = [w for w in trans if not any(abs(w - c) <= NEAR for c in truth)]
        row[2] += len(wrong)
        row[3] += len(wrong_t)
        row[4] += episodes(res, cuts)
        false_changes += len(wrong)
        false_spikes += len(wrong_t)
        unchanged += COMMITS - sum(min(c + NEAR, COMMITS - 1) - max(c - NEAR, 0) + 1
                                   for c in truth)
    lines = [f"history check on otava-test-data series: {COMMITS} commits, "
             f"{'one value' if runs == 1 else f'{runs} runs'} per commit, default options "
             f"(threshold 2%, 95%), seed {seed}", "",
             f"{'series':<28} {'found':>9} {'as episodes':>12} {'false changes':>14} "
             f"{'false transients':>17}"]
    for kind, (hit, total, wrong, wrong_t, linked) in table.items():
        lines.append(f"{kind:<28} {hit:>4}/{total:<4} {linked:>12} {wrong:>14} "
                     f"{wrong_t:>17}")
    lines += ["", f"false alarms: {false_changes} changes and {false_spikes} transients in "
              f"{unchanged} unchanged commits ({1e4 * false_changes / unchanged:.2f} changes "
              "per 10,000)"]
    return "\n".join(lines) + "\n"


def pure_noise(seed: int, count: int) -> str:
    """False alarms of history check on pure normal noise (seeded numpy, no generator
    package): `count` series per cell of 200 and 1,000 commits with SD 1%, 2% and 5%,
    every report (change, episode, head, transient) counted, per 10,000 commits, beside
    the bound the Bonferroni levels give (at most 5% of series with a report from the
    scan plus 5% from the head test, whatever the threshold does)."""
    rng = np.random.default_rng(seed + 2)
    lines = ["", f"pure noise, {count} series per cell, threshold 2%: reports per 10,000 "
             "commits (series with any report)",
             f"{'commits':>7} {'SD':>4} {'changes':>8} {'transients':>11} {'series':>7}"]
    for n in (200, 1000):
        history = [Commit(f"c{i:04d}", None, None) for i in range(n)]
        for sd in (0.01, 0.02, 0.05):
            changes = transients = hit = 0
            for _ in range(count):
                z = 100.0 * (1.0 + rng.normal(0, sd, n))
                res = check([as_series(z, 1, rng)], history)
                changes += len(res.changes)
                transients += len(res.transients)
                hit += bool(res.changes or res.transients)
            per = 1e4 / (count * n)
            lines.append(f"{n:>7} {100 * sd:>3g}% {changes * per:>8.2f} "
                         f"{transients * per:>11.2f} {hit:>3}/{count}")
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--runs", type=int, default=1, help="runs per commit (default 1)")
    p.add_argument("--noise", type=int, default=100, help="pure-noise series per cell "
                   "(default 100; 0 leaves that table out)")
    p.add_argument("--out", help="also write the table to this file")
    args = p.parse_args()
    start = time.perf_counter()
    text = run(args.seed, args.runs)
    if args.noise:
        text += pure_noise(args.seed, args.noise)
    text += f"\n{time.perf_counter() - start:.0f} s\n"
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()

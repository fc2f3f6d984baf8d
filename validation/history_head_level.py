"""Why `history check` finds a +5% step one commit before the head in about 6 series of
10 where Otava finds 9 (issue 28, docs/history.md "Short and fresh changes"): the head
test's power and its false alarms per check, at its level and at the level a 95% recall
would need.

The head test (stats/window_scan.py head_change) compares the newest k = 1 .. 5 commits
with the rest of the last segment, each window's Fieller CI at 1 - 0.05/5 = 99%, and
reports a change when the CI clears the 2% threshold. With one commit at +5% and commit
SD 1%, that CI is about ±2.6% wide, so it clears +2% when the commit comes out above
+4.6%: about 6 times in 10. A recall of 95% needs the CI's half-width at most
5 - 2 - 1.645 = 1.36 SDs: a level of 82.5% per window. Simulated here, 500 commits
(Otava's series), seeded numpy:

  - recall of a +5% step k = 1, 2, 3 commits before the head (SD 1%), at 99% and 82.5%;
  - false alarms per check on normal noise of SD 1%, 2% and 5% (each check is one new
    commit in CI, so per check is per commit), at both levels.

Run: python3 validation/history_head_level.py [--reps 4000] [--seed 28] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlab.stats.window_scan import HEAD_LENGTH, head_change  # noqa: E402

COMMITS, THRESHOLD = 500, 0.02
LEVELS = (0.99, 0.825)  # per window: the head test's, and the one 95% recall needs


def family(level: float) -> float:
    """The `confidence` whose Bonferroni share over HEAD_LENGTH windows is `level`."""
    return 1.0 - HEAD_LENGTH * (1.0 - level)


def run(reps: int, seed: int) -> str:
    rng = np.random.default_rng(seed)
    lines = [f"head test on {COMMITS} commits, threshold 2%, {reps} series per cell, "
             f"seed {seed}", "",
             f"{'per-window level':>16} {'+5% 1 back':>11} {'2 back':>7} {'3 back':>7} "
             f"{'noise SD 1%':>12} {'2%':>7} {'5%':>7}",
             f"{'':>16} {'(recall)':>11} {'':>7} {'':>7} {'(false alarms per 10,000 checks)':>28}"]
    for level in LEVELS:
        conf = family(level)
        recall = []
        for back in (1, 2, 3):
            z = 100.0 + rng.normal(0, 1.0, (reps, COMMITS))
            z[:, COMMITS - back:] += 5.0
            recall.append(np.mean([head_change(row, 0, threshold=THRESHOLD, confidence=conf)
                                   is not None for row in z]))
        false = []
        for sd in (1.0, 2.0, 5.0):
            z = 100.0 + rng.normal(0, sd, (reps, COMMITS))
            false.append(1e4 * np.mean([head_change(row, 0, threshold=THRESHOLD,
                                                    confidence=conf) is not None
                                        for row in z]))
        lines.append(f"{100 * level:>15.1f}% " + " ".join(
            f"{100 * r:>{w}.1f}%" for r, w in zip(recall, (10, 6, 6), strict=True)) + " "
            + " ".join(f"{f:>{w}.1f}" for f, w in zip(false, (12, 7, 7), strict=True)))
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=4000)
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--out", help="also write the table to this file")
    args = p.parse_args()
    start = time.perf_counter()
    text = run(args.reps, args.seed) + f"\n{time.perf_counter() - start:.0f} s\n"
    sys.stdout.write(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()

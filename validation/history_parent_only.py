"""How far `history compare` can be trusted against the parent alone (one earlier commit).

With one earlier commit the head's runs are compared with the parent's
(benchlab/history/compare.py, ParentOnly): within-commit variance only, since
the commit-to-commit variance needs 2 earlier commits to be estimated. This
script measures what that costs when commits do differ: each simulated history
is a parent and a head of R runs each at the same true level (no change), a
run's mean 1 + c_commit + e_run with c_commit ~ N(0, sd_commit²) per commit and
e_run ~ N(0, sd_run²), sd_run = 1%, sd_commit = 0, 1× or 3× sd_run. Each goes
through compare_head itself (one benchmark, so its CI is the 95% one).
Printed per design: the coverage of 1 by the ratio's CI, the median relative
half-width, and the share of "change" verdicts beyond the default 2% threshold
(false alarms: nothing changed). Without commit noise the CI should cover 95%;
with it, the note's warning ("too narrow when commits differ by more than
their runs") is what the shortfall measures.

Run: python3 validation/history_parent_only.py [--reps 1000] [--seed N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchlab.history.compare import compare_head
from benchlab.history.store import Commit, Series

SD_RUN = 0.01
DESIGNS = ((3, 0.0), (3, 1.0), (3, 3.0), (10, 0.0), (10, 1.0), (10, 3.0))  # R, sd_commit/sd_run


def history(rng: np.random.Generator, runs: int, commit_sd: float, per_run: int = 2
            ) -> tuple[list[Series], list[Commit]]:
    """A parent and a head of `runs` runs of `per_run` measurements each, no change."""
    commits = [Commit("parent", "2024-01-01T00:00:00Z", "main"),
               Commit("head", "2024-01-02T00:00:00Z", "main")]
    level = 1.0 + rng.normal(0.0, commit_sd, 2)
    run_means = level[:, None] + rng.normal(0.0, SD_RUN, (2, runs))
    values = run_means[:, :, None] + rng.normal(0.0, SD_RUN / 4, (2, runs, per_run))
    at = np.repeat(np.arange(2), runs * per_run)
    run = np.tile(np.repeat(np.arange(runs), per_run), 2).astype(str)
    return [Series("b", "time", "m", "s", False, ("run",), at, values.ravel(), (run,))], commits


def one(rng: np.random.Generator, runs: int, commit_sd: float) -> tuple[bool, float, bool]:
    """Whether the CI covers 1, its relative half-width, whether the verdict is "change"."""
    series, commits = history(rng, runs, commit_sd)
    result = compare_head(series, commits, "head", seed=0, replicates=200)
    assert result.parent_only, "one earlier commit: compared with the parent alone"
    [(_, r)] = result.benchmarks
    [c] = r.comparisons
    low, high = c.ratio.low, c.ratio.high
    return (low <= 1.0 <= high, (high - low) / 2, c.verdict.outcome == "change")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    print(f"parent vs head, R runs each, run noise {100 * SD_RUN:g}%, no change; "
          f"{args.reps} histories per row, seed {args.seed}")
    print("| runs per commit R | commit noise | coverage | CI half-width | false \"change\" |")
    print("| --- | --- | --- | --- | --- |")
    for runs, ratio in DESIGNS:
        out = np.array([one(rng, runs, ratio * SD_RUN) for _ in range(args.reps)])
        cover, half, change = out[:, 0].mean(), np.median(out[:, 1]), out[:, 2].mean()
        mcse = np.sqrt(cover * (1 - cover) / args.reps)
        print(f"| {runs} | {ratio:g}× run noise | {100 * cover:.1f}% (±{100 * mcse:.1f}) | "
              f"{100 * half:.2f}% | {100 * change:.1f}% |", flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()

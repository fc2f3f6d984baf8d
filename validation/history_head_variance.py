"""Coverage of `history compare`'s head-vs-baseline ratio CI with commit-to-commit noise.

The head commit is compared with the baseline segment (issue 14, item 1). Each
simulated history has a baseline of K commits of R runs and a head commit of H
runs (DESIGNS: K x R, H = 20 x 3, 3; 10 x 5, 2; 15 x 3, 1; 20 x 2, 10, a head
with more runs than a baseline commit; 40 x 1, 1, one measurement per commit),
all at the same true level (no change): a run's mean is
1 + c_commit + e_run, c_commit ~ N(0, sd_commit²), e_run ~ N(0, sd_run²),
sd_run = 1%, sd_commit = 0, 1× or 3× sd_run. The CI of the ratio head/baseline
should then contain 1 in 95% of the histories.

- before: the head's runs as its units (the head's variance s²_h/n_h: the
  commit-to-commit spread of the head is ignored), as `history compare` did;
- after: what `history compare` does now (benchlab/history/compare.py): the
  head's mean with variance σ²_commit + σ²_within/n_h from the baseline by the
  method of moments (stats/commit_variance.py).

Both go through compare_suite (one benchmark, so the CI is the 95% one) with
the same baseline segment (history/compare.py baseline_commits, the default 2%
threshold). Printed per design and commit noise: the coverage, the median
half-width of the CI (relative), and the share of verdicts "change" beyond the
2% threshold (false alarms: there is no change). A one-run head (H = 1) cannot
be judged "before" (no spread) and is left out there.

Run: python3 validation/history_head_variance.py [--reps 2000] [--seed N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlab.history.compare import baseline_commits, compare_head, top_units  # noqa: E402
from benchlab.history.store import Commit, Series  # noqa: E402
from benchlab.stats.suite import compare_suite  # noqa: E402

SD_RUN = 0.01
COMMIT_NOISE = (0.0, 1.0, 3.0)
DESIGNS = ((20, 3, 3), (10, 5, 2), (15, 3, 1), (20, 2, 10), (40, 1, 1))  # (K, R, H)
THRESHOLD, REPLICATES = 0.02, 200  # geometric-mean bootstrap: not looked at here


def history(rng: np.random.Generator, k: int, r: int, h: int, sd_commit: float
            ) -> tuple[Series, list[Commit]]:
    """K baseline commits of R runs, then the head (commit K) of H runs, no change."""
    effect = rng.normal(0.0, sd_commit, k + 1)
    at = np.repeat(np.arange(k + 1), [r] * k + [h])
    values = 1.0 + effect[at] + rng.normal(0.0, SD_RUN, at.size)
    runs = np.concatenate([np.arange(r)] * k + [np.arange(h)]).astype(str)
    s = Series("b", "value", "default", "s", False, ("run",), at, values, (runs,))
    return s, [Commit(f"c{i:03d}", None, None) for i in range(k + 1)]


def before(s: Series, commits: list[Commit], head: int):
    """The former `history compare`: the head's runs as its units."""
    base_at = baseline_commits(s, commits, head, threshold=THRESHOLD, confidence=0.95)
    b_at, b_units = top_units(s, np.isin(s.commit_index, base_at))
    _, code = np.unique(b_at, return_inverse=True)
    base = np.bincount(code.ravel(), weights=b_units) / np.bincount(code.ravel())
    _, own = top_units(s, s.commit_index == head)
    res = compare_suite({"b": [("baseline", base, []), ("head", own, [])]}, [],
                        baseline="baseline", threshold=THRESHOLD, seed=0,
                        diagnostics=False, replicates=REPLICATES)
    return res.benchmarks[0][1].comparisons[0]


def after(s: Series, commits: list[Commit], head: int):
    res = compare_head([s], commits, commits[head].sha, threshold=THRESHOLD, seed=0,
                       replicates=REPLICATES)
    return res.benchmarks[0][1].comparisons[0]


def cell(method, design, multiple: float, reps: int, seed: int) -> tuple[float, float, float]:
    """Coverage of ratio 1, median relative half-width, share of 'change' verdicts."""
    k, r, h = design
    rng = np.random.default_rng([seed, k, r, h, int(10 * multiple)])
    covered, widths, changes = 0, [], 0
    for _ in range(reps):
        s, commits = history(rng, k, r, h, multiple * SD_RUN)
        c = method(s, commits, k)
        covered += c.ratio.low <= 1.0 <= c.ratio.high
        widths.append((c.ratio.high - c.ratio.low) / 2)
        changes += c.verdict.outcome == "change"
    return covered / reps, float(np.median(widths)), changes / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261125)
    args = ap.parse_args()
    start = time.time()
    se = (0.95 * 0.05 / args.reps) ** 0.5
    print(f"history compare, head vs baseline, no change: 95% CI coverage over {args.reps} "
          f"histories per cell (Monte Carlo SE {100 * se:.1f} points); run noise "
          f"{100 * SD_RUN:g}% per run; threshold {100 * THRESHOLD:g}%")
    print(f"{'K x R, head H':>14} {'commit noise':>13} | {'before: cover':>13} "
          f"{'half-width':>10} {'false chg':>9} | {'after: cover':>12} {'half-width':>10} "
          f"{'false chg':>9}")
    for design in DESIGNS:
        for multiple in COMMIT_NOISE:
            label = f"{design[0]}x{design[1]}, H={design[2]}"
            noise = f"{multiple:g}x run"
            row = [f"{label:>14} {noise:>13} |"]
            for method in (before, after):
                if method is before and design[2] < 2:
                    row.append(f"{'(n/a: 1 run)':>13} {'':>10} {'':>9} |")
                    continue
                cov, width, false = cell(method, design, multiple, args.reps, args.seed)
                row.append(f"{100 * cov:12.1f}% {100 * width:9.2f}% {100 * false:8.1f}%"
                           + (" |" if method is before else ""))
            print(" ".join(row))
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()

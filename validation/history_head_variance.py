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

**A noisier head** (second table): the head's runs have SD 1x, 2x or 4x the
baseline's (sd_run = 1%), commit noise 0 or 1x, heads of 2, 3, 5 and 10 runs.

- pooled: the head's within-commit variance pooled with the baseline's whatever
  the head shows (compare_head(head_spread=False)), as `history compare` did
  before the F test;
- now: compare_head as it is: the head keeps its own variance when it is the
  larger (stats/commit_variance.py); "F note" is the share of heads that get
  the note "the head's runs vary ... more" (F test p < 1%).

**Candidates** (third table): the choices for the head's within part compared
on the same kind of histories, 20,000 each, with the interval computed here in
closed form (vectorized, independent of benchlab's code): Fieller's set at rho
= 1 contains 1 exactly when (a - b)^2 <= t^2 (V_h + S_B^2/k), with V_h and the
pivot's Satterthwaite df at rho = 1 as stats/commit_variance.py defines them.
pooled: the former method (sigma2_c^ and the head's within part from the
variance pooled over baseline and head); the others take sigma2_c^ from the
baseline alone (S_B^2 - s_b^2 / R) and, for the head's within part: own: s_h^2
always (Welch's choice); pre 1% / 5% / 25%: s_h^2 when the F test rejects at
that level, else the pooled method (a preliminary test); max: max(s_b^2,
s_h^2); ordered: s_h^2 when s_h^2 > s_b^2, else s_p^2 pooled over baseline and
head (the order-restricted estimate: what benchlab does). Coverage and median
half-width (in run SDs).

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


NOISY_DESIGNS = ((20, 3, 3), (20, 3, 5), (10, 5, 2), (20, 2, 10))  # (K, R, H)
NOISY_COMMIT, HEAD_NOISE = (0.0, 1.0), (1.0, 2.0, 4.0)
CANDIDATES = ("pooled", "own", "pre 1%", "pre 5%", "pre 25%", "max", "ordered")


def history(rng: np.random.Generator, k: int, r: int, h: int, sd_commit: float,
            head_noise: float = 1.0) -> tuple[Series, list[Commit]]:
    """K baseline commits of R runs, then the head (commit K) of H runs whose SD is
    `head_noise` times the baseline's, no change."""
    effect = rng.normal(0.0, sd_commit, k + 1)
    at = np.repeat(np.arange(k + 1), [r] * k + [h])
    sd = np.where(at == k, head_noise * SD_RUN, SD_RUN)
    values = 1.0 + effect[at] + rng.normal(0.0, 1.0, at.size) * sd
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


def pooled(s: Series, commits: list[Commit], head: int):
    """`history compare` before the F test: the head's spread always pooled."""
    res = compare_head([s], commits, commits[head].sha, threshold=THRESHOLD, seed=0,
                       replicates=REPLICATES, head_spread=False)
    return res.benchmarks[0][1].comparisons[0]


def now(s: Series, commits: list[Commit], head: int):
    """`history compare` as it is, and whether it wrote the noisier-head note."""
    res = compare_head([s], commits, commits[head].sha, threshold=THRESHOLD, seed=0,
                       replicates=REPLICATES)
    return res.benchmarks[0][1].comparisons[0], any("runs vary" in n for n in res.notes)


def cell(method, design, multiple: float, reps: int, seed: int, head_noise: float = 1.0
         ) -> tuple[float, float, float, float]:
    """Coverage of ratio 1, median relative half-width, share of 'change' verdicts, share
    of noisier-head notes (0 for methods that give none)."""
    k, r, h = design
    key = [seed, k, r, h, int(10 * multiple)] + ([int(10 * head_noise)] if head_noise != 1.0
                                                 or method in (pooled, now) else [])
    rng = np.random.default_rng(key)
    covered, widths, changes, notes = 0, [], 0, 0
    for _ in range(reps):
        s, commits = history(rng, k, r, h, multiple * SD_RUN, head_noise)
        c = method(s, commits, k)
        if isinstance(c, tuple):
            c, noted = c
            notes += noted
        covered += c.ratio.low <= 1.0 <= c.ratio.high
        widths.append((c.ratio.high - c.ratio.low) / 2)
        changes += c.verdict.outcome == "change"
    return covered / reps, float(np.median(widths)), changes / reps, notes / reps


def _satterthwaite(parts: list[tuple[np.ndarray, np.ndarray | int]]) -> np.ndarray:
    """Satterthwaite's df of a sum of mean squares with coefficients (already applied)."""
    total = sum(p for p, _ in parts)
    den = sum(np.where(p != 0.0, p * p / np.maximum(d, 1), 0.0) for p, d in parts)
    return total * total / den


def candidates(design, multiple: float, head_noise: float, reps: int, seed: int
               ) -> dict[str, tuple[float, float]]:
    """Coverage and median half-width (in run SDs) of each candidate, in closed form over
    `reps` simulated histories at once (see the module docstring)."""
    from scipy import stats

    k, r, h = design
    rng = np.random.default_rng([seed, k, r, h, int(10 * multiple), int(10 * head_noise), 7])
    effect = rng.normal(0.0, multiple, (reps, k + 1))
    base = effect[:, :k, None] + rng.normal(0.0, 1.0, (reps, k, r))
    head = effect[:, k, None] + rng.normal(0.0, head_noise, (reps, h))
    means = base.mean(axis=2)
    a, b, s2_means = head.mean(axis=1), means.mean(axis=1), means.var(axis=1, ddof=1)
    df_b, df_h = k * (r - 1), h - 1
    df_p = df_b + df_h
    s2_b = ((base - means[..., None]) ** 2).sum(axis=(1, 2)) / df_b
    s2_h = head.var(axis=1, ddof=1)
    s2_p = (df_b * s2_b + df_h * s2_h) / df_p

    squares = {"B": (s2_means, k - 1), "b": (s2_b, df_b), "h": (s2_h, df_h), "p": (s2_p, df_p)}

    def interval(c_from: str, head: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
        """sigma2_c^ = max(0, S_B^2 - w / R) with w the mean square `c_from`; the head's
        within part / n_h = sum of coefficient x mean square (`head`); Satterthwaite's df
        over the distinct mean squares, each with its summed coefficient."""
        w = squares[c_from][0]
        commit = s2_means - w / r
        truncated = commit <= 0.0
        v_h = np.maximum(commit, 0.0) + sum(c * squares[n][0] for n, c in head.items())

        def df(coef: dict[str, float]) -> np.ndarray:
            return _satterthwaite([(c * squares[n][0], squares[n][1]) for n, c in coef.items()])

        untrunc = {"B": 1 + 1 / k}
        for name, c in ((c_from, -1 / r), *head.items()):
            untrunc[name] = untrunc.get(name, 0.0) + c
        d = np.where(truncated, df({"B": 1 / k, **head}), df(untrunc))
        t2 = stats.t.ppf(0.975, d) ** 2 * (v_h + s2_means / k)
        return (a - b) ** 2 <= t2, np.sqrt(t2)

    pooled = interval("p", {"p": 1 / h})  # the former method: one pooled mean square
    own = interval("b", {"h": 1 / h})
    base_only = interval("b", {"b": 1 / h})
    split = interval("b", {"b": df_b / df_p / h, "h": df_h / df_p / h})
    p = stats.f.sf(s2_h / s2_b, df_h, df_b)
    larger = s2_h > s2_b
    choice = {"pooled": (pooled, pooled, larger & False), "own": (own, own, larger | True),
              "pre 1%": (own, pooled, p < 0.01), "pre 5%": (own, pooled, p < 0.05),
              "pre 25%": (own, pooled, p < 0.25), "max": (own, base_only, larger),
              "ordered": (own, split, larger)}
    out = {}
    for name in CANDIDATES:
        yes, no, use = choice[name]
        ok = np.where(use, yes[0], no[0])
        half = np.where(use, yes[1], no[1])
        out[name] = (float(ok.mean()), float(np.median(half)))
    return out


def first_table(args) -> None:
    print(f"history compare, head vs baseline, no change: 95% CI coverage over {args.reps} "
          f"histories per cell (Monte Carlo SE {100 * args.se:.1f} points); run noise "
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
                cov, width, false, _ = cell(method, design, multiple, args.reps, args.seed)
                row.append(f"{100 * cov:12.1f}% {100 * width:9.2f}% {100 * false:8.1f}%"
                           + (" |" if method is before else ""))
            print(" ".join(row))


def noisy_table(args) -> None:
    print(f"\na noisier head (its run SD 1x, 2x, 4x the baseline's), no change: 95% CI "
          f"coverage over {args.reps} histories per cell; pooled = before the F test, now = "
          "history compare; F note: share of heads noted as noisier (F test p < 1%)")
    print(f"{'K x R, head H':>14} {'commit':>6} {'head SD':>7} | {'pooled: cover':>13} "
          f"{'half-width':>10} {'false chg':>9} | {'now: cover':>10} {'half-width':>10} "
          f"{'false chg':>9} {'F note':>6}")
    for design in NOISY_DESIGNS:
        for multiple in NOISY_COMMIT:
            for head_noise in HEAD_NOISE:
                label = f"{design[0]}x{design[1]}, H={design[2]}"
                row = [f"{label:>14} {multiple:5g}x {head_noise:6g}x |"]
                for method in (pooled, now):
                    cov, width, false, noted = cell(method, design, multiple, args.reps,
                                                    args.seed, head_noise)
                    row.append(f"{100 * cov:12.1f}% {100 * width:9.2f}% {100 * false:8.1f}%")
                    if method is now:
                        row[-1] = row[-1].replace("  ", "", 1) + f" {100 * noted:5.1f}%"
                    else:
                        row[-1] += " |"
                print(" ".join(row))


def candidate_table(args) -> None:
    reps = 10 * args.reps
    print(f"\ncandidates for the head's within part, closed form over {reps} histories per "
          f"cell (Monte Carlo SE {100 * (0.95 * 0.05 / reps) ** 0.5:.2f} points): coverage / "
          "median half-width in run SDs")
    print(f"{'K x R, head H':>14} {'commit':>6} {'head SD':>7} | "
          + " | ".join(f"{n:>13}" for n in CANDIDATES))
    for design in NOISY_DESIGNS:
        for multiple in NOISY_COMMIT:
            for head_noise in HEAD_NOISE:
                label = f"{design[0]}x{design[1]}, H={design[2]}"
                got = candidates(design, multiple, head_noise, reps, args.seed)
                print(f"{label:>14} {multiple:5g}x {head_noise:6g}x | " + " | ".join(
                    f"{100 * c:5.1f}% {w:6.2f}" for c, w in (got[n] for n in CANDIDATES)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--only", choices=("first", "noisy", "candidates"), default=None,
                    help="run one table only")
    args = ap.parse_args()
    args.se = (0.95 * 0.05 / args.reps) ** 0.5
    start = time.time()
    for name, table in (("first", first_table), ("noisy", noisy_table),
                        ("candidates", candidate_table)):
        if args.only in (None, name):
            table(args)
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()

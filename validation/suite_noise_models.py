"""Monte Carlo: does the family-wise suite gate hold on noise the other validations do not use?

What it measures
    A/A suites of 20 benchmarks (the same code twice) decided as
    `benchlab.stats.suite.compare_suite` — the function `compare --benchmark` calls —
    decides them by default (Holm's step-down). The gate `--fail-on change` trips when
    any verdict is "change"; on A/A data that is a false alarm, so the trip rate is the
    family-wise error rate. Beside it, from the same p-values, the per-benchmark rate
    (`--no-adjust`), and on a quarter as many suites the power against +5% in one benchmark
    (every value of its candidate × 1.05): the chance that it is called slower.

    Each benchmark's p-value comes from the functions compare_suite's decisions call
    (claim() below; for the t-based tests their formulas on whole arrays, vectorized(),
    checked against claim()); the gate trips when Holm rejects anything, that is when
    the smallest p ≤ α/20. That makes 480 suites per row affordable on a loaded
    machine; the first --checked suites of every row also go through compare_suite
    itself, and the run stops if any of its p-values or verdicts differs.

    Structures (true centre 100):
      flat          n values per system, relative SD 3% (n = 10 for means, 20 for
                    medians: the sizes suite_familywise.py and
                    suite_median_familywise.py gate);
      hierarchical  5 builds × 3 runs × 5 iterations per system with --levels
                    build,run, relative SDs 2% (build), 1.5% (run), 2% (iteration);
      builds        the same with SDs 3%, 1%, 1%: the builds dominate, the hard case
                    for 5 of them;
      builds8       the same with 8 builds per system (what a median suite of 20
                    benchmarks needs to be able to call a change: units_needed).
    Statistics: means (Fieller with Welch's df on the values, or on the build means)
    and medians (`--statistic median`: flat, the bootstrap test with B = 2,000; with
    levels, the permutation test of Welch's t on the log build medians over all splits
    of the builds, stats/suite_median_units.py).
    Noise models, at every level unless said:
      normal     the reference;
      t3         Student t with 3 df scaled to SD 1 (heavy tails, no 4th moment),
                 clipped at ±10 SD (0.04% of the draws) so that no timing is negative;
      skewed     shifted lognormal e^{0.5 Z} (skewness 1.75) scaled to SD 1, and 1% of
                 the measurements multiplied by 3 (outliers);
      two-mode   normal, and each run (each value when flat) lands in one of two
                 modes 5% apart, chosen at random per run;
      two-mode*  the same with every SD a third: the modes dominate the noise;
      AR(1)      normal builds and runs, the iterations of a run an AR(1) series with
                 φ = 0.7 (hierarchical only: a flat sample has no runs to be within).
    --before N adds N suites per noise of medians with levels (builds) decided as
    compare_suite did before suite_median_units: the hierarchical percentile bootstrap
    test (RRR, B = 2,000).

Goal
    The gate trips in at most 5% of A/A suites, ± Monte Carlo error (a row passes
    when its rate is ≤ 5% + 2 MCSE). A row that misses is printed as a miss.

Run
    nice -n 10 python3 validation/suite_noise_models.py --flat-median-sims 100 \
        --before 40 --checked 1 | tee validation/suite_noise_models.out.txt
    (98 rows, 872 s wall and 1,709 s CPU with 2 workers on a loaded 2-core machine; the
    8-build median rows cost most: 12,870 splits per benchmark)
    python3 validation/suite_noise_models.py --sims 40      # quick look
    python3 validation/suite_noise_models.py --only builds:median
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.stats.fieller import ratio_df
from benchlab.stats.scaling import power_of_two_scale
from benchlab.stats.suite import _pivot_pvalue, compare_suite, holm_adjust
from benchlab.stats.suite_median import (
    flat_median_ratios,
    hierarchical_median_ratios,
    inversion_pvalue,
)
from benchlab.stats.suite_median_units import (
    permutation_pvalues,
    unit_log_medians,
    unit_median_test,
)

SEED = 20261127
ALPHA = 0.05
M = 20
EFFECT = 1.05
FLAT_N = {"mean": 10, "median": 20}
FLAT_SD = 0.03
HIER = (5, 3, 5)  # builds, runs, iterations per system
HIERARCHIES = {"hierarchical": (0.02, 0.015, 0.02),  # relative SDs: build, run, iteration
               "builds": (0.03, 0.01, 0.01),  # builds dominate: the hard case for 5 of them
               "builds8": (0.03, 0.01, 0.01)}  # the same with 8 builds per system
SHAPES = {"hierarchical": HIER, "builds": HIER, "builds8": (8, *HIER[1:])}
PHI = 0.7  # AR(1) coefficient of the iterations within a run
MODES = 0.05  # the two modes' distance
OUTLIERS = (0.01, 3.0)  # share of measurements, factor
NOISES = ("normal", "t3", "skewed", "two-mode", "two-mode*", "AR(1)")
NARROW = 3.0  # two-mode*: every SD divided by this, so that the modes dominate
B = 2000  # bootstrap replicates of each median (the suite_median_familywise.py B)
REPLICATES = 200  # the geometric mean's bootstrap (not what is validated here)


def standard(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Noise with mean 0 and SD 1: normal, t with 3 df, or a shifted lognormal."""
    if kind == "t3":  # clipped at ±10 SD (0.04% of draws) so that no timing is negative
        return np.clip(rng.standard_t(3, shape) / math.sqrt(3.0), -10.0, 10.0)
    if kind == "skewed":
        s2 = 0.25
        mean, sd = math.exp(s2 / 2), math.sqrt((math.exp(s2) - 1) * math.exp(s2))
        return (np.exp(0.5 * rng.standard_normal(shape)) - mean) / sd
    return rng.standard_normal(shape)


def ar1(rng: np.random.Generator, shape: tuple[int, ...], phi: float) -> np.ndarray:
    """Stationary AR(1) series with SD 1 along the last axis."""
    e = rng.standard_normal(shape)
    out = np.empty(shape)
    out[..., 0] = e[..., 0]
    for k in range(1, shape[-1]):
        out[..., k] = phi * out[..., k - 1] + math.sqrt(1 - phi * phi) * e[..., k]
    return out


def finish(rng: np.random.Generator, kind: str, x: np.ndarray, runs: tuple[int, ...]
           ) -> np.ndarray:
    """The modes (per run: `runs` is x's shape without the values within a run) and the
    outliers, applied to relative values x (centre 1)."""
    if kind.startswith("two-mode"):
        x = x * (1.0 + MODES * rng.integers(0, 2, runs))[..., None]
    if kind == "skewed":
        x = np.where(rng.random(x.shape) < OUTLIERS[0], OUTLIERS[1] * x, x)
    return x


def flat_values(rng: np.random.Generator, kind: str, sims: int, n: int) -> np.ndarray:
    """Shape (sims, M, 2 systems, n): every value its own run."""
    shape = (sims, M, 2, n)
    base = kind if kind in ("t3", "skewed") else "normal"
    x = 1.0 + FLAT_SD / (NARROW if kind == "two-mode*" else 1.0) * standard(rng, base, shape)
    return 100.0 * finish(rng, kind, x[..., None], shape)[..., 0]


def hier_values(rng: np.random.Generator, kind: str, sims: int, sds: tuple[float, ...],
                shape3: tuple[int, int, int] = HIER) -> tuple[np.ndarray, list[np.ndarray]]:
    """Shape (sims, M, 2, builds·runs·iterations) and the build and run labels; sds: the
    relative SDs of builds, runs and iterations; shape3: builds, runs, iterations."""
    nb, nr, ni = shape3
    shape = (sims, M, 2)
    base = kind if kind in ("t3", "skewed") else "normal"
    if kind == "two-mode*":
        sds = tuple(sd / NARROW for sd in sds)
    build = sds[0] * standard(rng, base, (*shape, nb))[..., :, None, None]
    run = sds[1] * standard(rng, base, (*shape, nb, nr))[..., None]
    it = sds[2] * (ar1(rng, (*shape, nb, nr, ni), PHI) if kind == "AR(1)"
                       else standard(rng, base, (*shape, nb, nr, ni)))
    x = finish(rng, kind, 1.0 + build + run + it, (*shape, nb, nr))
    b = np.repeat(np.arange(nb), nr * ni)
    r = np.tile(np.repeat(np.arange(nr), ni), nb)
    return 100.0 * x.reshape(*shape, nb * nr * ni), [b, r]


@dataclass(frozen=True)
class Task:
    structure: str  # "flat" or a key of HIERARCHIES
    statistic: str  # "mean" or "median"
    kind: str
    sims: int
    power: bool
    seed: int
    bootstrap: int = 2000
    old: bool = False  # medians with levels: the hierarchical bootstrap test (before)
    checked: int = 0  # suites also run through compare_suite


def claim(task: Task, base: np.ndarray, cand: np.ndarray, levels: list[np.ndarray],
          seed: int) -> tuple[float, float]:
    """One benchmark's estimate and the p-value of its claim "ratio = 1", computed by the
    functions compare_suite's decisions call (stats/suite.py, suite_median.py,
    suite_median_units.py): Fieller's pivot on the values or the build means, the
    bootstrap test inversion of the ratio of medians (flat; `old`: with levels, the
    hierarchical bootstrap compare_suite used before suite_median_units), or the
    permutation test of Welch's t on the log build medians."""
    if task.statistic == "mean":
        if levels:
            nb = SHAPES[task.structure][0]
            base, cand = base.reshape(nb, -1).mean(axis=1), cand.reshape(nb, -1).mean(axis=1)
        v_a, v_b = np.var(cand, ddof=1) / cand.size, np.var(base, ddof=1) / base.size
        rho = float(np.mean(cand) / np.mean(base))
        df = ratio_df("welch", rho, float(v_a), float(v_b), cand.size, base.size)
        return rho, _pivot_pvalue(base, cand, False, df, 1.0)
    if not levels:
        scale = power_of_two_scale(base, cand)
        r = flat_median_ratios(base * scale, cand * scale, replicates=task.bootstrap,
                               seed=seed, means_first=True)  # compare_suite passes B
        return float(np.median(cand) / np.median(base)), inversion_pvalue(r, 1.0)
    if task.old:
        r = hierarchical_median_ratios((base, levels), (cand, levels),
                                       replicates=task.bootstrap, seed=seed, spec=None)
        return float(np.median(cand) / np.median(base)), inversion_pvalue(r, 1.0)
    t = unit_median_test(unit_log_medians(base, levels[0]), unit_log_medians(cand, levels[0]))
    return t.estimate, t.pvalue(1.0)


def through_compare_suite(task: Task, x: np.ndarray, levels: list[np.ndarray], s: int,
                          p: list[float]) -> None:
    """Check that compare_suite decides suite s as the p-values `p` say (Holm at α)."""
    data = {f"b{j}": [("old", x[s, j, 0], levels), ("new", x[s, j, 1], levels)]
            for j in range(M)}
    result = compare_suite(data, ["build", "run"] if levels else [], baseline="old",
                           statistic=task.statistic, bootstrap=task.bootstrap
                           if task.statistic == "median" else None, replicates=REPLICATES,
                           seed=s, diagnostics=False)
    adjusted = holm_adjust(p)
    for j, d in enumerate(result.decisions):
        if not math.isclose(d.pvalue, p[j], rel_tol=1e-9, abs_tol=1e-12):
            raise AssertionError(f"{task}: suite {s} b{j}: p {d.pvalue} != {p[j]}")
        if (d.outcome == "change") != (adjusted[j] <= ALPHA):
            raise AssertionError(f"{task}: suite {s} b{j}: {d.outcome}, Holm p {adjusted[j]}")


def vectorized(task: Task, x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Every suite's (estimate, p) per benchmark at once, shape (sims, M), for the t-based
    tests (means; medians with levels) — claim()'s formulas on whole arrays; None for
    the bootstrap tests, which claim() runs one benchmark at a time."""
    from scipy.special import stdtr

    if task.statistic == "median" and (task.structure == "flat" or task.old):
        return None
    if task.structure == "flat":
        b, c = x[:, :, 0], x[:, :, 1]
    else:
        units = x.reshape(*x.shape[:3], SHAPES[task.structure][0], -1)
        if task.statistic == "mean":
            b, c = units[:, :, 0].mean(axis=-1), units[:, :, 1].mean(axis=-1)
        else:
            logs = np.log(np.median(units, axis=-1))
            b, c = logs[:, :, 0], logs[:, :, 1]
    nb, nc = b.shape[-1], c.shape[-1]
    vb, vc = b.var(axis=-1, ddof=1) / nb, c.var(axis=-1, ddof=1) / nc
    if task.statistic == "mean":  # Fieller's pivot at ρ = 1, Welch df at ρ̂ (ratio_df)
        estimate = c.mean(axis=-1) / b.mean(axis=-1)
        diff, part_b = c.mean(axis=-1) - b.mean(axis=-1), estimate**2 * vb
    else:  # the permutation test of Welch's t on the log unit medians (unit_median_test)
        estimate = np.exp(c.mean(axis=-1) - b.mean(axis=-1))
        # every split of every benchmark of `chunk` suites at once (splits: one 0/1 matrix),
        # about 2 million t statistics (16 MB an array) at a time to bound the memory
        chunk = max(1, 2_000_000 // (M * math.comb(b.shape[-1] + c.shape[-1], c.shape[-1])))
        p = np.concatenate([permutation_pvalues(b[k:k + chunk], c[k:k + chunk])
                            for k in range(0, b.shape[0], chunk)])
        return estimate, p
    u = vc / (vc + part_b)
    df = 1.0 / (u * u / (nc - 1) + (1.0 - u) ** 2 / (nb - 1))
    return estimate, np.minimum(1.0, 2.0 * stdtr(df, -np.abs(diff) / np.sqrt(vc + vb)))


def run(task: Task) -> dict:
    """One row: the share of A/A suites with any "change" (Holm, and per benchmark), or the
    share where the benchmark made 5% slower is called slower.

    Each benchmark's p-value comes from claim() (or its formulas on whole arrays,
    vectorized(), which must agree with it); the gate trips when Holm rejects anything,
    that is when the smallest p ≤ α/M. The first `task.checked` suites also go through
    compare_suite itself, which must decide them the same way."""
    rng = np.random.default_rng(task.seed)
    if task.structure == "flat":
        x, levels = flat_values(rng, task.kind, task.sims, FLAT_N[task.statistic]), []
    else:
        x, levels = hier_values(rng, task.kind, task.sims, HIERARCHIES[task.structure],
                                SHAPES[task.structure])
    if task.power:
        x[:, 0, 1] *= EFFECT
    family = single = 0
    started = time.perf_counter()
    fast = vectorized(task, x)
    for s in range(task.sims):
        if fast is None or s < task.checked:
            found = [claim(task, x[s, j, 0], x[s, j, 1], levels, s) for j in range(M)]
            if fast is not None:
                np.testing.assert_allclose([q for _, q in found], fast[1][s], rtol=1e-7,
                                           atol=1e-14)
        else:
            found = list(zip(fast[0][s], fast[1][s], strict=True))
        p = [float(q) for _, q in found]
        if s < task.checked and not task.old:
            through_compare_suite(task, x, levels, s, p)
        if task.power:
            adjusted = holm_adjust(p)
            family += adjusted[0] <= ALPHA and found[0][0] > 1
            single += p[0] <= ALPHA and found[0][0] > 1
        else:
            family += min(p) <= ALPHA / M
            single += min(p) <= ALPHA
    return {"task": task, "family": family / task.sims, "single": single / task.sims,
            "seconds": time.perf_counter() - started}


def mcse(p: float, n: int) -> float:
    """The Monte Carlo SE of a rate p from n suites (at p = 0: that of 1/n's neighbour)."""
    return math.sqrt(max(p, 1.0 / n) * (1 - p) / n)


def rows(only: str | None) -> list[tuple[str, str, str]]:
    out = []
    for structure in ("flat", *HIERARCHIES):
        for statistic in ("mean", "median"):
            if only and f"{structure}:{statistic}" not in only.split(","):
                continue
            for kind in NOISES:
                if structure == "flat" and kind == "AR(1)":
                    continue
                out.append((structure, statistic, kind))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=480,
                        help="A/A suites per row (power rows: a quarter); default 480 (MCSE 1.0%% "
                             "at 5%%)")
    parser.add_argument("--flat-median-sims", type=int, default=240, metavar="SIMS",
                        help="A/A suites per flat median row, whose bootstraps cost the most "
                             "(default 240: MCSE 1.4%% at 5%%)")
    parser.add_argument("--before", type=int, default=0, metavar="SIMS",
                        help="also SIMS A/A suites per noise of medians with levels decided "
                             "as before suite_median_units (hierarchical bootstrap test)")
    parser.add_argument("--checked", type=int, default=3,
                        help="suites per row also run through compare_suite (default 3)")
    parser.add_argument("--only", help="one STRUCTURE:STATISTIC, e.g. hierarchical:median")
    parser.add_argument("--bootstrap", type=int, default=B,
                        help=f"B of each median's bootstrap (default {B})")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    seeds = iter(np.random.SeedSequence(SEED).generate_state(256))
    todo = []
    for structure, statistic, kind in rows(None):  # seeds do not depend on --only
        aa, pw, old = int(next(seeds)), int(next(seeds)), int(next(seeds))
        if (structure, statistic, kind) not in rows(args.only):
            continue
        sims = (min(args.sims, args.flat_median_sims)
                if (structure, statistic) == ("flat", "median") else args.sims)
        todo.append(Task(structure, statistic, kind, sims, False, aa, args.bootstrap,
                         checked=args.checked))
        todo.append(Task(structure, statistic, kind, max(10, sims // 4), True, pw,
                         args.bootstrap, checked=args.checked))
        if args.before and structure == "builds" and statistic == "median":
            todo.append(Task(structure, statistic, kind, args.before, False, old,
                             args.bootstrap, old=True))
    started = time.perf_counter()
    done = []
    with ProcessPoolExecutor(args.workers) as pool:  # the biggest rows with levels first
        futures = [pool.submit(run, t) for t in sorted(
            todo, key=lambda t: -(t.structure != "flat") * t.sims * _splits_of(t))]
        for future in as_completed(futures):
            done.append(future.result())
            r = done[-1]
            print(f"{len(done)}/{len(todo)} {r['task'].structure} {r['task'].statistic} "
                  f"{r['task'].kind}{' power' if r['task'].power else ''}"
                  f"{' before' if r['task'].old else ''}: {r['seconds']:.0f} s, "
                  f"{time.perf_counter() - started:.0f} s so far", file=sys.stderr, flush=True)
    by = {(r["task"].structure, r["task"].statistic, r["task"].kind, r["task"].power,
           r["task"].old): r for r in done}
    print(f"Family-wise gate of {M}-benchmark A/A suites on other noise (compare_suite's "
          f"decisions, Holm, α = 5%)")
    print(f"flat: n values per system (means {FLAT_N['mean']}, medians {FLAT_N['median']}), SD "
          f"{100 * FLAT_SD:g}%; {' × '.join(map(str, HIER))} builds × runs × iterations "
          f"(builds8: {SHAPES['builds8'][0]} builds) "
          f"with --levels build,run, relative SDs (build, run, iteration): " + "; ".join(
              f"{name} {', '.join(f'{100 * s:g}%' for s in sds)}"
              for name, sds in HIERARCHIES.items()))
    print(f"noise: t3 = t with 3 df; skewed = shifted e^(0.5 Z) + {100 * OUTLIERS[0]:g}% of "
          f"values ×{OUTLIERS[1]:g}; two-mode = each run in one of two modes {100 * MODES:g}% "
          f"apart (two-mode*: every SD a third, the modes dominate); AR(1) = iterations within a "
          f"run with φ = {PHI:g}")
    print("means: Fieller (Welch df) on the values or the build means; medians: flat, the "
          f"bootstrap test (B = {args.bootstrap}), with levels the permutation test of Welch's t "
          "on the log build medians (all splits of the builds)")
    print("trips: share of A/A suites where --fail-on change exits 1 (Holm; per benchmark = "
          "--no-adjust);\npower: share where the one benchmark made 5% slower is called slower; "
          "± is one Monte Carlo SE\n")
    head = (f"{'structure':<13}{'statistic':<10}{'noise':<10}{'A/A':>5}  {'trips Holm':>13}  "
            f"{'trips --no-adjust':>17}  {'power':>6}  {'power Holm':>12}  "
            f"{'power --no-adjust':>17}  goal")
    print(head)
    print("-" * len(head))
    ok_all = True
    for structure, statistic, kind in rows(args.only):
        aa = by[(structure, statistic, kind, False, False)]
        pw = by[(structure, statistic, kind, True, False)]
        n, npw = aa["task"].sims, pw["task"].sims
        ok = aa["family"] <= ALPHA + 2 * mcse(ALPHA, n)
        ok_all &= ok
        print(f"{structure:<13}{statistic:<10}{kind:<10}{n:>5}  {_pct(aa['family'], n):>13}  "
              f"{_pct(aa['single'], n):>17}  {npw:>6}  {_pct(pw['family'], npw):>12}  "
              f"{_pct(pw['single'], npw):>17}  {'ok' if ok else 'MISS'}")
    before = [r for r in done if r["task"].old]
    if before:
        print("\nBefore (medians with levels decided by the hierarchical bootstrap test, RRR, "
              f"B = {args.bootstrap}):")
        for structure, statistic, kind in rows(args.only):
            r = by.get((structure, statistic, kind, False, True))
            if r is not None:
                n = r["task"].sims
                print(f"{structure:<13}{statistic:<10}{kind:<10}{n:>5}  "
                      f"{_pct(r['family'], n):>13}  {_pct(r['single'], n):>17}")
    cpu = sum(r["seconds"] for r in done)
    print(f"\n{'every row within the goal' if ok_all else 'SOME ROWS MISS THE GOAL'} (trips ≤ 5% "
          f"+ 2 MCSE); each row's first {args.checked} suites also went through compare_suite "
          f"and were decided alike; seed {SEED}; {time.perf_counter() - started:.0f} s wall, "
          f"{cpu:.0f} s CPU")
    return 0 if ok_all else 1


def _splits_of(task: Task) -> int:
    """The splits a suite's permutation tests go through (1 for the other tests): the
    rows' relative cost, to start the costliest first."""
    if task.statistic != "median" or task.structure == "flat" or task.old:
        return 1
    return math.comb(2 * SHAPES[task.structure][0], SHAPES[task.structure][0])


def _pct(p: float, n: int) -> str:
    return f"{100 * p:.1f}% ± {100 * mcse(p, n):.1f}"


if __name__ == "__main__":
    sys.exit(main())

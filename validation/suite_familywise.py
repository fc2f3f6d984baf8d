"""Monte Carlo: false alarms and power of the family-wise suite verdicts (`compare --benchmark`).

What it measures
    A/A suites (the same code twice) of 5, 20 and 100 benchmarks, analysed by
    `benchlab.stats.suite.compare_suite` — the very function `compare` calls — with
    its default family-wise decisions (Holm's step-down on the interval tests).
    The gate `--fail-on change` trips when any benchmark's verdict is "change";
    on A/A data every such verdict is a false alarm, so the trip rate is the
    family-wise error rate. Beside it: the same suites decided per benchmark
    (`--no-adjust`, each Decision's `per_benchmark` outcome, from the same
    analysis), and the power against a +5% change in one benchmark (the others
    unchanged): the chance that this benchmark's verdict is "slower".

    Measurements (true mean 100, candidate = baseline in A/A):
      flat          10 values per system, relative SD 3%;
      hierarchical  5 builds × 3 runs × 5 iterations per system, relative SDs
                    2% (build), 1.5% (run), 2% (iteration); analysed with
                    --levels build,run (Fieller on the build means).
    Noise: normal, or a shifted lognormal with the same SD (e^{0.5 Z}
    standardized: skewness 1.75, a long right tail as timings have), at every level.

    Threshold rows (flat, normal, 20 benchmarks, --threshold 2%): every true
    ratio at the edge 1.02, where both a "change" and an "equivalent" verdict
    would be false; and half the benchmarks at +10% (true changes) with the
    other half at the edge, where the correct claims move Holm's later steps to
    easier levels — the case where a mix of claims could cost the guarantee.

Goal
    The gate trips in at most 5% of A/A suites (± Monte Carlo error: the row
    passes when the rate is ≤ 5% + 2 MCSE), at every size, noise and
    structure; and the threshold rows' false-claim rate likewise.

Run
    python3 validation/suite_familywise.py | tee validation/suite_familywise.out.txt
        (~4 min on 2 cores)
    python3 validation/suite_familywise.py --scale 0.1   # quick look
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.stats.suite import compare_suite

SEED = 20261212
ALPHA = 0.05
FLAT_N = 10
FLAT_SD = 0.03
HIER = (5, 3, 5)  # builds, runs, iterations per system
HIER_SD = (0.02, 0.015, 0.02)
EFFECT = 1.05
SIMS = {"flat": {5: 1000, 20: 500, 100: 200}, "hierarchical": {5: 600, 20: 300, 100: 100}}
POWER_SHARE = 0.5  # power runs use half the A/A simulations
REPLICATES = 200  # the geometric mean's bootstrap (not what is validated here): kept small


def noise(rng: np.random.Generator, kind: str, shape: tuple[int, ...]) -> np.ndarray:
    """Standardized noise (mean 0, SD 1): normal, or e^{0.5 Z} centred and scaled."""
    z = rng.standard_normal(shape)
    if kind == "normal":
        return z
    s2 = 0.25
    mean, sd = math.exp(s2 / 2), math.sqrt((math.exp(s2) - 1) * math.exp(s2))
    return (np.exp(0.5 * z) - mean) / sd


def flat_values(rng, kind: str, sims: int, m: int) -> np.ndarray:
    """All simulations' values at once: shape (sims, m, 2 systems, n)."""
    return 100.0 * (1.0 + FLAT_SD * noise(rng, kind, (sims, m, 2, FLAT_N)))


def hier_values(rng, kind: str, sims: int, m: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """All simulations' values (sims, m, 2, builds·runs·iterations) and the level labels."""
    nb, nr, ni = HIER
    b = np.repeat(np.arange(nb), nr * ni)
    r = np.tile(np.repeat(np.arange(nr), ni), nb)
    shape = (sims, m, 2)
    x = 1.0 + (HIER_SD[0] * noise(rng, kind, (*shape, nb))[..., b]
               + HIER_SD[1] * noise(rng, kind, (*shape, nb * nr))[..., b * nr + r]
               + HIER_SD[2] * noise(rng, kind, (*shape, nb * nr * ni)))
    return 100.0 * x, [b, r]


@dataclass(frozen=True)
class Task:
    structure: str
    kind: str
    m: int
    sims: int
    what: str  # "aa", "power", "edge", "mixed"
    seed: int
    threshold: float = 0.0


def run(task: Task) -> dict:
    """Simulate one row: the share of suites with a false claim (per the row's truth) under
    Holm and per benchmark, or the power for the changed benchmark."""
    rng = np.random.default_rng(task.seed)
    levels: list[np.ndarray] = []
    if task.structure == "flat":
        x = flat_values(rng, task.kind, task.sims, task.m)
    else:
        x, levels = hier_values(rng, task.kind, task.sims, task.m)
    truth = np.ones(task.m)
    if task.what == "power":
        truth[0] = EFFECT
    elif task.what == "edge":
        truth[:] = 1.0 + task.threshold
    elif task.what == "mixed":
        truth[:] = 1.0 + task.threshold
        truth[: task.m // 2] = 1.10
    x[:, :, 1] *= truth[None, :, None]
    names = ["build", "run"] if levels else []
    family = single = 0
    started = time.perf_counter()
    for s in range(task.sims):
        data = {f"b{j}": [("old", x[s, j, 0], levels), ("new", x[s, j, 1], levels)]
                for j in range(task.m)}
        result = compare_suite(data, names, baseline="old", threshold=task.threshold,
                               replicates=REPLICATES, resample="flat" if names else None,
                               seed=s, diagnostics=False)
        decisions = result.decisions
        if task.what == "power":
            d = decisions[0]
            family += d.outcome == "change" and d.estimate > 1
            single += d.per_benchmark == "change" and d.estimate > 1
            continue
        family += any(false_claim(d.outcome, truth[j], task.threshold)
                      for j, d in enumerate(decisions))
        single += any(false_claim(d.per_benchmark, truth[j], task.threshold)
                      for j, d in enumerate(decisions))
    return {"task": task, "family": family / task.sims, "single": single / task.sims,
            "seconds": time.perf_counter() - started}


def false_claim(outcome: str, truth: float, threshold: float) -> bool:
    """A "change" where the true ratio is within ±threshold (A/A, the edge), or "equivalent"
    where it is not (the edge, +10%); at the edge itself both are false. The tolerance keeps
    1.02 − 1 (0.020000000000000018 in floating point) at the edge."""
    distance = abs(truth - 1.0)
    inside = distance <= threshold + 1e-9
    outside = distance >= threshold - 1e-9
    return (outcome == "change" and inside) or (outcome == "equivalent" and outside)


def mcse(p: float, n: int) -> float:
    return math.sqrt(max(p, 1e-12) * (1 - p) / n)


def tasks(scale: float) -> list[Task]:
    seeds = iter(np.random.SeedSequence(SEED).generate_state(64))
    out = []
    for structure in ("flat", "hierarchical"):
        for kind in ("normal", "lognormal"):
            for m, sims in SIMS[structure].items():
                n = max(20, int(sims * scale))
                out.append(Task(structure, kind, m, n, "aa", int(next(seeds))))
                out.append(Task(structure, kind, m, max(20, int(n * POWER_SHARE)), "power",
                                int(next(seeds))))
    n = max(20, int(500 * scale))
    out.append(Task("flat", "normal", 20, n, "edge", int(next(seeds)), 0.02))
    out.append(Task("flat", "normal", 20, n, "mixed", int(next(seeds)), 0.02))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiply every number of simulations (default 1)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    todo = tasks(args.scale)
    started = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        done = list(pool.map(run, sorted(todo, key=lambda t: -t.m * t.sims), chunksize=1))
    by = {(r["task"].structure, r["task"].kind, r["task"].m, r["task"].what): r for r in done}
    print("Family-wise suite verdicts (compare_suite, Holm's step-down on the interval tests,"
          " α = 5%)")
    print(f"flat: {FLAT_N} values per system, SD {100 * FLAT_SD:g}%; hierarchical: "
          f"{' × '.join(map(str, HIER))} (builds × runs × iterations), SDs "
          f"{', '.join(f'{100 * s:g}%' for s in HIER_SD)}; lognormal: shifted e^(0.5 Z), same SD")
    print("gate trips: share of A/A suites where --fail-on change exits 1 (Holm; per benchmark"
          " = --no-adjust);\npower: share where the one benchmark made 5% slower is called "
          "slower; ± is one Monte Carlo SE\n")
    head = (f"{'structure':<13}{'noise':<10}{'m':>4}{'A/A sims':>9}  {'trips Holm':>14}"
            f"  {'trips --no-adjust':>17}  {'power sims':>10}  {'power Holm':>12}  "
            f"{'power --no-adjust':>17}  {'goal':<4}")
    print(head)
    print("-" * len(head))
    ok_all = True
    for structure in ("flat", "hierarchical"):
        for kind in ("normal", "lognormal"):
            for m in SIMS[structure]:
                aa, pw = by[(structure, kind, m, "aa")], by[(structure, kind, m, "power")]
                n, npw = aa["task"].sims, pw["task"].sims
                ok = aa["family"] <= ALPHA + 2 * mcse(ALPHA, n)
                ok_all &= ok
                print(f"{structure:<13}{kind:<10}{m:>4}{n:>9}  "
                      f"{_pct(aa['family'], n):>14}  {_pct(aa['single'], n):>17}  {npw:>10}  "
                      f"{_pct(pw['family'], npw):>12}  {_pct(pw['single'], npw):>17}  "
                      f"{'ok' if ok else 'FAIL':<4}")
    print("\n--threshold 2%, flat, normal, 20 benchmarks: share of suites with any false claim "
          "(a change within ±2%, or equivalence outside it)")
    for what, text in (("edge", "every true ratio at the edge 1.02"),
                       ("mixed", "10 at +10% (true changes), 10 at the edge 1.02")):
        r = by[("flat", "normal", 20, what)]
        n = r["task"].sims
        ok = r["family"] <= ALPHA + 2 * mcse(ALPHA, n)
        ok_all &= ok
        print(f"  {text:<48} Holm {_pct(r['family'], n):>12}   --no-adjust "
              f"{_pct(r['single'], n):>12}   {'ok' if ok else 'FAIL'}  ({n} sims)")
    cpu = sum(r["seconds"] for r in done)
    print(f"\n{'all rows within the goal' if ok_all else 'SOME ROWS MISS THE GOAL'} "
          f"(rate ≤ 5% + 2 MCSE; MCSE at 5% is 0.7% for 1000 sims, 2.2% for 100); "
          f"seed {SEED}; {time.perf_counter() - started:.0f} s wall, {cpu:.0f} s CPU")
    return 0 if ok_all else 1


def _pct(p: float, n: int) -> str:
    return f"{100 * p:.1f}% ± {100 * mcse(p, n):.1f}"


if __name__ == "__main__":
    sys.exit(main())

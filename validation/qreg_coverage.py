"""Monte Carlo coverage of benchlab's quantile-regression intervals (STATS.md §9).

What it measures
    A 2^3 factorial experiment (factors A, B, C, levels coded -1/+1 as the
    package codes them) whose cells have closed-form quantiles, fitted with
    the saturated model (all interactions) at tau = 0.5, 0.9, 0.99 by
    `benchlab.stats.qreg.quantile_regression`, the function behind
    `benchlab qreg`. Each cell c (a, b, c = its ±1 codes) has

        location_c = 10 + 1.0·a + 0.5·b + 0.25·a·b
        scale_c    = exp(0.35·a + 0.2·c + 0.1·a·c)      (0.52 .. 1.92)

    and its observations are location_c + scale_c · E. The true τ-quantile of
    the cell is location_c + scale_c · q_E(τ), and the true coefficients
    are the inverse sign table applied to the eight cell quantiles (the
    saturated model's coefficients are exactly that transform of the cell
    quantiles; checked against the package on the first simulation of every
    task). Scenarios:

    * normal — E ~ N(0, 1) and scale_c = 1 in every cell: a pure location
      shift, where `iid` (one density for all observations) is valid;
    * exp — E ~ Exp(1) with the cell scales above: skewed, and the factors
      stretch the tail (latency-like); `iid` is misspecified here, since the
      density at the quantile differs between cells;
    * runs — exp in runs of 100 observations: each run adds an offset
      0.5 · scale_c · Z_run (Z ~ N(0, 1)) shared by its observations (the
      between-run SD is half the within-run SD). The estimand is the cell's
      marginal quantile: location_c + scale_c · q(τ) with q the quantile of
      E + 0.5·Z (exponentially modified normal; its CDF is closed-form,
      inverted by Brent's method to 1e-12).

    Interval methods (`se=`): `iid`, `nid`, `ker` (quantreg's summary.rq
    formulas), `boot` (xy bootstrap within cells, 200 replicates, the CLI
    default), `rank` (rank-test inversion; quantreg's and the CLI's default
    below 1001 observations) and `rank-nid` (the same with local densities,
    quantreg's iid = FALSE) on independent data; on runs, `cluster` (whole
    runs resampled within cells, 200 replicates; the CLI default when there is
    a run column) beside `nid` on the same data with the runs ignored
    (nid-flat), and, for contrast only, "cluster-raw": NOT a package method,
    the cluster bootstrap without its small-run correction (the package
    scales the bootstrap SE by sqrt(R/(R-1)), R runs per cell, and uses t on
    runs - cells degrees of freedom; cluster-raw is the plain bootstrap SD
    with t on n - p degrees of freedom, what the package did before).

    Per method × τ × observations per cell (m): coverage of the nominal 95%
    intervals pooled over the 8 coefficients, its Monte Carlo standard error
    (from the per-simulation share of covering coefficients, so the
    correlation between coefficients of one simulation is accounted for),
    the share of intervals entirely below (lo) / above (hi) the truth, the
    mean interval width, and the "oracle" width 2 · 1.96 · SD of the
    estimates over the simulations (what a correct interval would be near).
    Rank bounds can be infinite (the test never rejects): such intervals
    cover, are left out of the mean width and are counted; intervals with an
    undefined SE (a singular density matrix) count as not covering.

Goal
    95% ± 2% (93%..97%) wherever the package does not warn of sparse tails,
    i.e. where every cell has at least 20 observations beyond the quantile on
    each side, m · min(τ, 1-τ) >= 20 (quantreg's FAQ rule, which
    `quantile_regression` applies): for nid, ker, boot, rank on independent
    data in both scenarios, iid in the normal scenario, and the cluster
    bootstrap at 5 and 10 runs per cell (the package warns below 5). Not
    judged: iid in the skewed heteroscedastic scenario (misspecified by
    design) and nid ignoring runs (shown to be wrong).

Run
    python3 validation/qreg_coverage.py                 # the table, ~5 min on 2 cores
    python3 validation/qreg_coverage.py --json          # the same figures as JSON
    python3 validation/qreg_coverage.py --scale 0.1     # quick look (a tenth of the sims)
    python3 validation/qreg_coverage.py --jobs 1        # one process

Simulation counts (--scale multiplies them): 2,000 per cell for iid, nid,
ker, boot at m = 20, 50, 500; 1,000 at m = 5,000 (exp; iid, nid, ker only:
the bootstrap takes 0.26 s per fit there); rank and rank-nid (0.1-0.4 s per fit) 400 at
m = 20 and 50 and 200 at m = 100 (exp), 300 at m = 20 and 50 (normal);
1,000 per run design for the cluster bootstrap and nid-flat.

R check (--r-check N, default 100; 0 skips it): the first N data sets of
each rank task at m = 50 are also given to R quantreg (rq, summary.rq with
se = "rank"), and the coverage of both on the same data and the distance
between their bounds are printed. In these balanced designs the restricted
fits of the rank inversion are not unique, so the bounds depend on
tie-breaking (benchlab.stats.qreg_rank's docstring): the coverage, not the
bounds, is what should agree.

Random numbers: numpy.random.default_rng; one stream per data set family
(scenario, m) spawned from --seed (default 20240611), simulated data drawn
one simulation at a time, so a task that uses the first k simulations of a
family (rank) sees the same data as the others; bootstrap seeds come from a
separate stream. Tasks run in --jobs processes (default 2); the figures do
not depend on it.
"""

from __future__ import annotations

import argparse
import json
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

from benchlab.stats.coding import sign_table, yates_cells
from benchlab.stats.qreg import quantile_regression

CONFIDENCE = 0.95
GOAL_LOW, GOAL_HIGH = 0.93, 0.97
GOAL_BEYOND = 20  # observations per cell beyond the quantile on each side
TAUS = (0.5, 0.9, 0.99)
K = 3
FACTORS = ["A", "B", "C"]
LEVELS = [["lo", "hi"]] * K
RUN_SIZE = 100
RUN_SD = 0.5  # between-run SD relative to the cell scale (within-run SD of Exp(1) is 1)
REPLICATES = 200
SEED = 20240611


def cell_design() -> tuple[np.ndarray, np.ndarray]:
    """Location and scale of each cell, in the package's standard cell order."""
    signs = 2.0 * yates_cells([2] * K) - 1.0  # first level -1, as qreg_design codes it
    a, b, c = signs.T
    location = 10 + 1.0 * a + 0.5 * b + 0.25 * a * b
    scale = np.exp(0.35 * a + 0.2 * c + 0.1 * a * c)
    return location, scale


def emg_quantile(tau: float, sd: float = RUN_SD) -> float:
    """τ-quantile of E + sd·Z (E ~ Exp(1), Z ~ N(0, 1)) from its closed-form CDF."""
    from scipy.optimize import brentq
    from scipy.stats import exponnorm

    # exponnorm(K) is N(0, 1) + Exp(mean K); E + sd·Z = sd · (Z + E/sd), so K = 1/sd.
    def cdf(x: float) -> float:
        return float(exponnorm.cdf(x / sd, 1.0 / sd)) - tau

    return brentq(cdf, -10.0, 60.0, xtol=1e-13, rtol=1e-14)


def base_quantile(scenario: str, tau: float) -> float:
    """q_E(τ) of the scenario's standardized error."""
    from scipy.special import ndtri

    if scenario == "normal":
        return float(ndtri(tau))
    if scenario == "exp":
        return -math.log1p(-tau)
    return emg_quantile(tau)


def base_density(scenario: str, tau: float) -> float:
    """Density of the standardized error at its τ-quantile (for the truth check)."""
    from scipy.stats import exponnorm, norm

    q = base_quantile(scenario, tau)
    if scenario == "normal":
        return float(norm.pdf(q))
    if scenario == "exp":
        return 1.0 - tau
    return float(exponnorm.pdf(q / RUN_SD, 1.0 / RUN_SD)) / RUN_SD


def scenario_cells(scenario: str) -> tuple[np.ndarray, np.ndarray]:
    location, scale = cell_design()
    return location, (np.ones_like(scale) if scenario == "normal" else scale)


def true_coefficients(scenario: str) -> np.ndarray:
    """(taus, 8) true coefficients: inverse sign table × true cell quantiles."""
    location, scale = scenario_cells(scenario)
    table, _ = sign_table(K)
    q = np.array([location + scale * base_quantile(scenario, t) for t in TAUS])  # (taus, cells)
    return np.linalg.solve(table, q.T).T


def simulate(rng: np.random.Generator, scenario: str, m: int, runs: int = 0) -> np.ndarray:
    """One data set: m observations per cell, cells in standard order (runs contiguous)."""
    location, scale = scenario_cells(scenario)
    cells = len(location)
    if scenario == "normal":
        e = rng.standard_normal((cells, m))
    else:
        e = rng.standard_exponential((cells, m))
    if runs:
        offset = RUN_SD * rng.standard_normal((cells, runs))
        e += np.repeat(offset, m // runs, axis=1)
    return (location[:, None] + scale[:, None] * e).ravel()


@dataclass(frozen=True)
class Task:
    """One unit of work: some methods on the first `sims` data sets of a family."""

    scenario: str          # normal, exp, runs
    m: int                 # observations per cell
    methods: tuple[str, ...]
    sims: int
    runs: int = 0          # runs per cell (scenario runs)

    @property
    def family(self) -> tuple[str, int]:
        return self.scenario, self.m


def tasks(scale: float) -> list[Task]:
    def n(sims: int) -> int:
        return max(10, round(sims * scale))

    fast = ("iid", "nid", "ker", "boot")
    out = [Task(s, m, fast, n(2000)) for s in ("normal", "exp") for m in (20, 50, 500)]
    out.append(Task("exp", 5000, ("iid", "nid", "ker"), n(1000)))
    ranks = ("rank", "rank-nid")
    out += [Task("exp", m, ranks, n(s)) for m, s in ((20, 400), (50, 400), (100, 200))]
    out += [Task("normal", m, ranks, n(300)) for m in (20, 50)]
    out += [Task("runs", r * RUN_SIZE, ("cluster", "nid-flat"), n(1000), r) for r in (5, 10)]
    return out


def family_streams(seed: int, all_tasks: list[Task],
                   ) -> dict[tuple[str, int], np.random.SeedSequence]:
    """One SeedSequence per data family, in a fixed order independent of --scale and --jobs."""
    families = [("normal", 20), ("normal", 50), ("normal", 500), ("exp", 20), ("exp", 50),
                ("exp", 500), ("exp", 5000), ("exp", 100), ("runs", 500), ("runs", 1000)]
    assert {t.family for t in all_tasks} <= set(families)
    return dict(zip(families, np.random.SeedSequence(seed).spawn(len(families)), strict=True))


def child(ss: np.random.SeedSequence, k: int) -> np.random.SeedSequence:
    """The k-th child of `ss`, without advancing its spawn counter (unlike ss.spawn)."""
    return np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, k))


def _check_package(y: np.ndarray, cell: np.ndarray, coef: np.ndarray, names: list[str]) -> None:
    """The package's saturated coefficients are the inverse sign table × type-1 cell quantiles."""
    table, terms = sign_table(K)
    if names != ["(Intercept)", "A", "B", "A:B", "C", "A:C", "B:C", "A:B:C"]:
        raise AssertionError(f"unexpected coefficient order {names}")
    q = np.array([[np.quantile(y[cell == c], t, method="inverted_cdf") for c in range(8)]
                  for t in TAUS])
    ref = np.linalg.solve(table, q.T).T
    if not np.allclose(coef, ref, rtol=1e-12, atol=1e-12):
        raise AssertionError("saturated coefficients differ from the sign-table transform")


def _record(d: dict, i: int, low: np.ndarray, high: np.ndarray, truth: np.ndarray) -> None:
    """Hit, misses, undefined/unbounded flags and width of simulation i's (taus, 8) intervals."""
    undefined = np.isnan(low) | np.isnan(high)
    d["undef"][i] = undefined
    d["lo"][i] = high < truth
    d["hi"][i] = low > truth
    d["hit"][i] = ~undefined & (low <= truth) & (truth <= high)
    d["inf"][i] = np.isinf(low) | np.isinf(high)
    d["width"][i] = np.where(d["inf"][i] | undefined, np.nan, high - low)


def raw_cluster_interval(coef: np.ndarray, se: np.ndarray, runs: int, n: int,
                         cells: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """Not the package's interval: the run bootstrap without its small-run correction.

    The package's SE is the bootstrap SD × sqrt(R/(R-1)) (resampling R runs
    gives (R-1)/R of the variance of a mean of run values; Davison & Hinkley
    1997, §3.8) with t on runs - cells df; undone here: the plain SD, t on n - p.
    """
    from benchlab.stats.distributions import critical_t

    half = critical_t(CONFIDENCE, n - cells) * se / math.sqrt(runs / (runs - 1))
    return coef - half, coef + half


def run_task(task: Task, ss: np.random.SeedSequence, keep: int = 0) -> dict:
    """Intervals of every method of `task` on its simulations: hits, misses, widths.

    `keep`: return the intervals of the first `keep` simulations (for the R check).
    """
    t_wall, t_cpu = time.perf_counter(), time.process_time()
    data_ss, boot_ss = child(ss, 0), child(ss, 1)
    rng = np.random.default_rng(data_ss)
    boot_seeds = np.random.default_rng(boot_ss).integers(0, 2**31, size=task.sims)
    truth = true_coefficients(task.scenario)
    codes = np.repeat(yates_cells([2] * K), task.m, axis=0)
    cell = np.repeat(np.arange(8), task.m)
    run = np.repeat(np.arange(8 * task.runs), RUN_SIZE) if task.runs else None
    shape = (task.sims, len(TAUS), 8)
    est = np.empty(shape)
    names = list(task.methods) + (["cluster-raw"] if "cluster" in task.methods else [])
    rec = {meth: {k: np.zeros(shape, dtype=bool) for k in ("hit", "lo", "hi", "undef", "inf")}
           | {"width": np.full(shape, np.nan)} for meth in names}
    kept: dict[str, list] = {meth: [] for meth in task.methods}
    warned: set[str] = set()
    for i in range(task.sims):
        y = simulate(rng, task.scenario, task.m, task.runs)
        for meth in task.methods:
            se = "nid" if meth == "nid-flat" else meth
            r = quantile_regression(y, codes, [2] * K, FACTORS, LEVELS, taus=TAUS, se=se,
                                    cluster=run if meth == "cluster" else None,
                                    cluster_name="run" if meth == "cluster" else None,
                                    replicates=REPLICATES, seed=int(boot_seeds[i]),
                                    confidence=CONFIDENCE)
            warned.update(r.warnings)
            if i == 0:
                _check_package(y, cell, r.coef, r.names)
            est[i] = r.coef
            _record(rec[meth], i, r.low, r.high, truth)
            if meth == "cluster":
                _record(rec["cluster-raw"], i,
                        *raw_cluster_interval(r.coef, r.se, task.runs, r.n), truth)
            if i < keep:
                kept[meth].append((r.low.tolist(), r.high.tolist()))
    z = 1.959963984540054
    oracle = 2 * z * est.std(axis=0, ddof=1).mean(axis=1)  # (taus,)
    out = []
    for meth, d in rec.items():
        for t, tau in enumerate(TAUS):
            per_sim = d["hit"][:, t].mean(axis=1)
            cov = float(per_sim.mean())
            widths = d["width"][:, t]
            out.append({
                "scenario": task.scenario, "method": meth, "tau": tau, "m": task.m,
                "n": 8 * task.m, "runs_per_cell": task.runs or None, "sims": task.sims,
                "beyond": task.m * min(tau, 1 - tau),
                "coverage": cov,
                "mcse": float(per_sim.std(ddof=1) / math.sqrt(task.sims)),
                "miss_low": float(d["lo"][:, t].mean()), "miss_high": float(d["hi"][:, t].mean()),
                "undefined": int(d["undef"][:, t].sum()), "unbounded": int(d["inf"][:, t].sum()),
                "mean_width": float(np.nanmean(widths)) if np.isfinite(widths).any() else None,
                "oracle_width": float(oracle[t]),
                "coverage_by_term": d["hit"][:, t].mean(axis=0).round(4).tolist(),
                "bias": (est[:, t] - truth[t]).mean(axis=0).round(5).tolist(),
            })
    return {"rows": out, "warnings": sorted(warned), "wall_s": time.perf_counter() - t_wall,
            "kept": kept,
            "cpu_s": time.process_time() - t_cpu, "task": task.__dict__}


def check_truth() -> None:
    """The closed-form truth equals the package's estimate on 200,000 observations per cell."""
    rng = np.random.default_rng(7)
    m = 200_000
    codes = np.repeat(yates_cells([2] * K), m, axis=0)
    for scenario in ("normal", "exp", "runs"):
        location, scale = scenario_cells(scenario)
        e = (rng.standard_normal((8, m)) if scenario == "normal"
             else rng.standard_exponential((8, m)))
        if scenario == "runs":  # runs of one observation: the marginal distribution
            e += RUN_SD * rng.standard_normal((8, m))
        y = (location[:, None] + scale[:, None] * e).ravel()
        r = quantile_regression(y, codes, [2] * K, FACTORS, LEVELS, taus=TAUS, se="nid")
        truth = true_coefficients(scenario)
        for t, tau in enumerate(TAUS):
            # SD of a coefficient: sqrt(mean_c sd_c²/8), sd_c = sqrt(τ(1-τ)/m) scale_c / f(q)
            sd = math.sqrt(tau * (1 - tau) / m) / base_density(scenario, tau)
            sd_coef = sd * math.sqrt(np.mean(scale**2) / 8)
            err = np.abs(r.coef[t] - truth[t]) / sd_coef
            if err.max() > 5:
                raise AssertionError(f"truth check failed: {scenario} tau {tau}: "
                                     f"{err.max():.1f} SDs")


R_CHECK_M = 50  # the rank families whose first data sets are also given to R


def r_rank_check(task: Task, ss: np.random.SeedSequence, kept: list) -> dict:
    """R quantreg's rank intervals (summary.rq, se = "rank") on the first data sets of a task.

    Coverage of R's and benchlab's intervals on the same data, and how far apart their bounds
    are (relative to R's width). Skipped (None figures) when Rscript or quantreg is missing.
    """
    import shutil
    import subprocess
    import tempfile

    n = len(kept)
    out: dict = {"scenario": task.scenario, "m": task.m, "sims": n}
    if shutil.which("Rscript") is None:
        return out | {"skipped": "Rscript not found"}
    rng = np.random.default_rng(child(ss, 0))  # the task's data stream
    ys = np.array([simulate(rng, task.scenario, task.m) for _ in range(n)])
    table, _ = sign_table(K)
    x = np.repeat(table, task.m, axis=0)
    script = f"""
suppressMessages({{library(quantreg); library(jsonlite)}})
ys <- as.matrix(read.table("ys.txt")); X <- as.matrix(read.table("x.txt"))
res <- lapply(seq_len(nrow(ys)), function(i) lapply(c({", ".join(map(str, TAUS))}), function(tau) {{
  s <- suppressWarnings(summary(rq(ys[i, ] ~ 0 + X, tau = tau), se = "rank"))$coefficients
  list(low = s[, 2], high = s[, 3])
}}))
cat(toJSON(list(version = as.character(packageVersion("quantreg")), res = res), digits = NA))
"""
    with tempfile.TemporaryDirectory() as tmp:
        np.savetxt(os.path.join(tmp, "ys.txt"), ys, fmt="%.17g")
        np.savetxt(os.path.join(tmp, "x.txt"), x, fmt="%d")
        proc = subprocess.run(["Rscript", "-e", script], cwd=tmp, capture_output=True,
                              text=True)
    if proc.returncode != 0:
        return out | {"skipped": proc.stderr.strip().splitlines()[-1]}
    reply = json.loads(proc.stdout)
    r_res = reply["res"]
    out["quantreg"] = reply["version"][0]
    truth = true_coefficients(task.scenario)
    big = 1e308  # quantreg reports an unbounded side as ±.Machine$double.xmax
    for t, tau in enumerate(TAUS):
        hits = {"benchlab": [], "R": []}
        diffs = []
        for i in range(n):
            r_low = np.clip(np.array(r_res[i][t]["low"], dtype=float), -np.inf, np.inf)
            r_high = np.array(r_res[i][t]["high"], dtype=float)
            r_low[r_low < -big], r_high[r_high > big] = -np.inf, np.inf
            low, high = np.array(kept[i][0][t]), np.array(kept[i][1][t])
            for who, (lo, hi) in (("benchlab", (low, high)), ("R", (r_low, r_high))):
                hits[who].append(np.mean((lo <= truth[t]) & (truth[t] <= hi)))
            # relative to R's width, or to the bound itself where R's interval is a point
            scale = np.where(r_high - r_low > 0, r_high - r_low, 1.0 + np.abs(r_low))
            for mine, theirs in ((low, r_low), (high, r_high)):
                both = np.isfinite(mine) & np.isfinite(theirs)
                rel = np.where(both, np.abs(mine - theirs) / np.where(both, scale, 1.0),
                               np.where(mine == theirs, 0.0, np.inf))
                diffs.extend(rel.tolist())
        d = np.array(diffs)
        out[f"{tau:g}"] = {"coverage_benchlab": float(np.mean(hits["benchlab"])),
                           "coverage_r": float(np.mean(hits["R"])),
                           "bounds_equal_1e-6": float(np.mean(d <= 1e-6)),
                           "median_rel_diff": float(np.median(d)),
                           "max_rel_diff": float(d.max())}
    return out


def run(scale: float, seed: int, jobs: int, progress: bool, r_check: int = 0) -> dict:
    t0 = time.perf_counter()
    check_truth()
    all_tasks = tasks(scale)
    streams = family_streams(seed, all_tasks)

    def keep(task: Task) -> int:
        return min(r_check, task.sims) if "rank" in task.methods and task.m == R_CHECK_M else 0
    # Heaviest first, so two workers finish together.
    cost = {"rank": 0.004, "rank-nid": 0.006, "boot": 0.00006, "cluster": 0.00006}
    order = sorted(range(len(all_tasks)), key=lambda j: -all_tasks[j].sims * sum(
        cost.get(meth, 0.000003) * all_tasks[j].m * 8 for meth in all_tasks[j].methods))
    results: dict[int, dict] = {}
    if jobs <= 1:
        for j in order:
            results[j] = run_task(all_tasks[j], streams[all_tasks[j].family],
                                  keep(all_tasks[j]))
            if progress:
                print(f"  {all_tasks[j]}: {time.perf_counter() - t0:6.1f} s", file=sys.stderr)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {j: pool.submit(run_task, all_tasks[j], streams[all_tasks[j].family],
                                      keep(all_tasks[j])) for j in order}
            for j in order:
                results[j] = futures[j].result()
                if progress:
                    print(f"  {all_tasks[j]}: {time.perf_counter() - t0:6.1f} s",
                          file=sys.stderr)
    rows = [row for j in range(len(all_tasks)) for row in results[j]["rows"]]
    t_r = time.perf_counter()
    checks = [r_rank_check(all_tasks[j], streams[all_tasks[j].family],
                           results[j]["kept"]["rank"])
              for j in range(len(all_tasks)) if keep(all_tasks[j])]
    t_r = time.perf_counter() - t_r
    for row in rows:
        row["goal_judged"] = judged(row)
        row["in_goal"] = GOAL_LOW <= row["coverage"] <= GOAL_HIGH if row["goal_judged"] else None
    return {"confidence": CONFIDENCE, "taus": list(TAUS), "seed": seed, "scale": scale,
            "replicates": REPLICATES, "run_size": RUN_SIZE, "run_sd": RUN_SD,
            "goal": f"coverage within {100 * GOAL_LOW:g}%..{100 * GOAL_HIGH:g}% where every "
                    f"cell has >= {GOAL_BEYOND} observations beyond the quantile",
            "true_coefficients": {s: true_coefficients(s).round(6).tolist()
                                  for s in ("normal", "exp", "runs")},
            "rows": rows, "r_rank_check": checks, "r_check_s": t_r,
            "task_times": [{"task": results[j]["task"], "wall_s": results[j]["wall_s"],
                            "cpu_s": results[j]["cpu_s"]} for j in range(len(all_tasks))],
            "package_warnings": sorted({w for r in results.values() for w in r["warnings"]}),
            "runtime_s": time.perf_counter() - t0,
            "cpu_s": sum(r["cpu_s"] for r in results.values()), "jobs": jobs,
            "cpus": os.cpu_count()}


def judged(row: dict) -> bool:
    if row["beyond"] < GOAL_BEYOND or row["method"] in ("nid-flat", "cluster-raw"):
        return False
    return not (row["method"] == "iid" and row["scenario"] != "normal")


SCENARIO_TITLES = {
    "normal": "normal: E ~ N(0,1), scale 1 in every cell (location shift; iid valid)",
    "exp": "exp: E ~ Exp(1), cell scales 0.52..1.92 (skewed, factors stretch the tail)",
    "runs": (f"runs: exp plus a run offset {RUN_SD:g}·scale·N(0,1) per run of {RUN_SIZE} "
             "observations (estimand: the cell's marginal quantile)"),
}


def print_table(res: dict) -> None:
    print(f"Coverage of nominal {100 * res['confidence']:g}% intervals of the 8 coefficients "
          f"of a saturated 2^3 quantile regression (benchlab.stats.qreg.quantile_regression), "
          f"seed {res['seed']}")
    print("m = observations per cell (n = 8m); beyond = m·min(tau, 1-tau), observations per cell "
          "beyond the quantile; cover = % of intervals containing the true coefficient (pooled "
          "over the 8), MCSE in points; lo/hi = % entirely below/above the truth; width = mean "
          "interval width, oracle = 2·1.96·SD of the estimates over the simulations; "
          "undef = undefined intervals (count, as misses), inf = intervals with an infinite "
          f"bound (cover). boot and cluster: {res['replicates']} replicates. nid-flat = nid "
          "ignoring the runs; cluster-raw = NOT a package method: the cluster bootstrap "
          "without its small-run correction (plain SD, t on n - p df), for contrast. "
          f"Goal: {res['goal']}; '*' = judged and missed, '-' = not judged.")
    hdr = (f"{'tau':>5} {'m':>5} {'beyond':>6} {'method':>11} {'sims':>5} | {'cover':>6} "
           f"{'MCSE':>4} {'lo':>5} {'hi':>5} | {'width':>7} {'oracle':>7} | {'undef':>5} "
           f"{'inf':>4} | goal")
    for scenario in ("normal", "exp", "runs"):
        rows = [r for r in res["rows"] if r["scenario"] == scenario]
        if not rows:
            continue
        print()
        print(SCENARIO_TITLES[scenario])
        print(hdr)
        print("-" * len(hdr))
        methods = list(dict.fromkeys(r["method"] for r in rows))
        for tau in TAUS:
            sub = sorted((r for r in rows if r["tau"] == tau),
                         key=lambda r: (r["m"], methods.index(r["method"])))
            for r in sub:
                m = f"{r['runs_per_cell']}x{RUN_SIZE}" if r["runs_per_cell"] else str(r["m"])
                width = "inf" if r["mean_width"] is None else f"{r['mean_width']:7.3f}"
                goal = "-" if not r["goal_judged"] else ("ok" if r["in_goal"] else "*")
                print(f"{tau:5.2f} {m:>5} {r['beyond']:6.1f} {r['method']:>11} {r['sims']:5d} | "
                      f"{100 * r['coverage']:6.2f} {100 * r['mcse']:4.2f} "
                      f"{100 * r['miss_low']:5.1f} {100 * r['miss_high']:5.1f} | {width:>7} "
                      f"{r['oracle_width']:7.3f} | {r['undefined']:5d} {r['unbounded']:4d} | "
                      f"{goal}")
            print()
    checks = res["r_rank_check"]
    if checks:
        print("rank beside R quantreg's summary.rq(se = \"rank\") on the same data sets (the "
              "first simulations of the rank tasks at m = 50): coverage in %, the share of "
              "bounds equal to 1e-6 of R's width, median and largest |difference| / R's "
              "width (/ the bound where R's interval is a point)")
        for c in checks:
            if "skipped" in c:
                print(f"  {c['scenario']}: skipped ({c['skipped']})")
                continue
            for tau in TAUS:
                e = c[f"{tau:g}"]
                print(f"  {c['scenario']:>6} m={c['m']} sims={c['sims']} quantreg "
                      f"{c['quantreg']} tau {tau:4.2f}: benchlab "
                      f"{100 * e['coverage_benchlab']:6.2f}  R {100 * e['coverage_r']:6.2f} | "
                      f"equal {100 * e['bounds_equal_1e-6']:5.1f}%  median "
                      f"{e['median_rel_diff']:.4f}  max {e['max_rel_diff']:.3f}")
        print()
    judged_rows = [r for r in res["rows"] if r["goal_judged"]]
    missed = [r for r in judged_rows if not r["in_goal"]]
    print(f"Goal ({res['goal']}): {'MET' if not missed else 'NOT MET'}; met in "
          f"{len(judged_rows) - len(missed)} of {len(judged_rows)} judged rows")
    for r in missed:
        print(f"  missed: {r['scenario']} {r['method']} tau {r['tau']:g} m {r['m']}"
              f"{' (' + str(r['runs_per_cell']) + ' runs/cell)' if r['runs_per_cell'] else ''}: "
              f"{100 * r['coverage']:.2f}% ± {100 * r['mcse']:.2f}")
    print()
    print("Runtime per task (wall s, CPU s):")
    for t in res["task_times"]:
        d = t["task"]
        print(f"  {d['scenario']:>6} m={d['m']:<5} {','.join(d['methods']):<18} "
              f"sims={d['sims']:<5} {t['wall_s']:7.1f} {t['cpu_s']:7.1f}")
    print(f"Total {res['runtime_s']:.1f} s wall, {res['cpu_s']:.1f} s CPU in the tasks, "
          f"{res['jobs']} processes on {res['cpus']} CPUs (other work may be running)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply every simulation count (0.1 for a quick look)")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--r-check", type=int, default=100, metavar="N",
                   help="also give the first N data sets of the rank tasks at m = 50 to R "
                        "quantreg (0: skip)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--progress", action="store_true", help="print progress on stderr")
    args = p.parse_args(argv)
    if args.scale <= 0:
        p.error("--scale must be positive")
    res = run(args.scale, args.seed, args.jobs, args.progress, args.r_check)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print_table(res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

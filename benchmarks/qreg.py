"""Quantile regression speed: benchlab against R quantreg's `rq(method = "fn")`, same data.

Workloads (issue 4 targets):
  1. a 2^4 latency design with 1,000,000 rows (50 runs of 1,250 values per cell),
     estimates at the 10 default quantiles — goal under 1 s, and at least 20× faster
     than R's fn on the same CSV;
  2. the same with 200-replicate run (cluster) bootstrap CIs — goal under 10 s;
  3. a general model, 100,000 rows × 16 columns (intercept + 15 normal columns,
     t(3) noise), 10 quantiles, by the LP solver with and without preprocessing —
     goal within 1.5× of R's fn on the same CSV (and the check loss compared).
R is timed by benchmarks/qreg_r_timing.R when Rscript and quantreg are installed.

    python3 benchmarks/qreg.py [--rows 1000000] [--repeats 3] [--no-r]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from benchlab.stats.coding import yates_terms
from benchlab.stats.qreg import DEFAULT_TAUS, fit_coefficients, quantile_regression
from benchlab.stats.qreg_design import build_model
from benchlab.stats.qreg_fn import fit

HERE = Path(__file__).resolve().parent


def latency_design(rows: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """y, codes (n, 4) and run ids: lognormal latencies whose tails depend on the factors."""
    rng = np.random.default_rng(seed)
    cells, runs_per_cell = 16, 50
    per_run = max(1, rows // (cells * runs_per_cell))
    run = np.repeat(np.arange(cells * runs_per_cell), per_run)
    cell = run // runs_per_cell
    codes = (cell[:, None] >> np.arange(4)) & 1
    signs = 2.0 * codes - 1.0
    run_effect = rng.normal(0, 0.05, cells * runs_per_cell)[run]
    sigma = 0.3 + 0.1 * signs[:, 1]
    y = 100 * np.exp(0.1 * signs[:, 0] + run_effect + sigma * rng.standard_normal(len(run)))
    y += np.where(rng.random(len(run)) < 0.02 * (1.5 + signs[:, 2] * 0.5),
                  rng.exponential(200, len(run)), 0.0)
    return y, codes, run


def timed(fn, repeats: int) -> tuple[float, object]:
    """Median wall time of `repeats` calls, and the last result."""
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def r_timing(csv: Path, general_csv: Path, taus: list[float], repeats: int) -> dict | None:
    """R's times from qreg_r_timing.R on the same two data sets (None without R/quantreg)."""
    if shutil.which("Rscript") is None:
        return None
    args = ["Rscript", str(HERE / "qreg_r_timing.R"), str(csv),
            "--taus", ",".join(f"{t:g}" for t in taus), "--factors", "a,b,c,d",
            "--repeats", str(repeats), "--method", "fn", "--general-file", str(general_csv)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"R timing failed: {done.stderr.strip()[:300]}")
        return None
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-r", action="store_true", help="skip the R timings")
    args = parser.parse_args()
    taus = list(DEFAULT_TAUS)
    tau_arr = np.array(taus)
    names = ["a", "b", "c", "d"]
    levels = [("lo", "hi")] * 4
    y, codes, run = latency_design(args.rows)

    def estimates() -> np.ndarray:
        model = build_model(y, codes, [2] * 4, yates_terms(4), names, levels)
        return fit_coefficients(model, tau_arr)

    t_est, _ = timed(estimates, args.repeats)
    t_boot, _ = timed(lambda: quantile_regression(
        y, codes, [2] * 4, names, levels, taus=taus, se="cluster", cluster=run,
        cluster_name="run", replicates=200, seed=1), 1)
    print(f"2^4 design, {len(y):,} rows, {len(taus)} quantiles (median of {args.repeats})")
    print(f"  benchlab estimates (order statistics):       {t_est:8.3f} s   goal < 1 s")
    print(f"  benchlab + 200-replicate run bootstrap CIs:  {t_boot:8.3f} s   goal < 10 s")

    rng = np.random.default_rng(2)
    n, p = 100_000, 16
    x = np.column_stack([np.ones(n), rng.standard_normal((n, p - 1))])
    yg = x @ np.ones(p) + rng.standard_t(3, n)
    t_full, _ = timed(lambda: [fit(x, yg, tau, preprocess=False) for tau in taus],
                      args.repeats)
    t_gen, fits = timed(lambda: [fit(x, yg, tau) for tau in taus], args.repeats)
    print(f"general model {n:,} × {p}, {len(taus)} quantiles")
    print(f"  benchlab Frisch-Newton + vertex, all rows:   {t_full:8.3f} s")
    print(f"  benchlab with Portnoy-Koenker preprocessing: {t_gen:8.3f} s   (the default)")
    if args.no_r:
        return
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "latency.csv"
        table = np.column_stack([np.where(codes == 0, -1, 1), y])
        np.savetxt(csv, table, delimiter=",", header="a,b,c,d,y", comments="",
                   fmt=["%d"] * 4 + ["%.6f"])
        general_csv = Path(tmp) / "general.csv"  # 17 significant digits: R reads the same doubles
        np.savetxt(general_csv, np.column_stack([yg, x[:, 1:]]), delimiter=",", comments="",
                   header=",".join(["y"] + [f"x{j}" for j in range(1, p)]), fmt="%.17g")
        r = r_timing(csv, general_csv, taus, repeats=1)
    if r is None:
        print("R quantreg not available: no comparison")
        return
    r_fact = r["factorial"]["median_seconds"]
    r_gen = r["general"]["median_seconds"]
    print(f"R quantreg {r['quantreg_version']}, rq(method = 'fn'), one run each")
    print(f"  R estimates, 2^4 design:                     {r_fact:8.3f} s   "
          f"benchlab is {r_fact / t_est:.1f}× faster (goal ≥ 20×)")
    print(f"  R general model {n:,} × {p}:               {r_gen:8.3f} s   "
          f"benchlab / R = {t_gen / r_gen:.2f} (goal ≤ 1.5); all rows: {t_full / r_gen:.2f}")
    ours = np.array([f.objective for f in fits])
    theirs = np.array(r["general"]["objectives"])
    print(f"  check loss, benchlab vs R (same data):        max relative difference "
          f"{np.max(np.abs(ours - theirs) / theirs):.1e} (R's fn stops at its own tolerance)")


if __name__ == "__main__":
    main()

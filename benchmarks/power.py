"""Time `benchlab plan --power`'s simulation (benchlab.stats.power, STATS.md §5–6).

What it measures
    1,000 simulated experiments per effect of two systems, each 10 builds × 10
    runs × 100 iterations (Kalibera & Jones's FFT relative SDs 4.1% / 6.7% /
    4.6%), effects 0, 2%, 3% and 5%. Wall time — median of 5 runs after one
    warm-up — of:

    * `simulate` (the table of `plan --power`): per effect, every verdict's
      probability, false alarms and coverage;
    * `power_analysis` (the table and the power-against-budget curve, 13 design
      sizes), what the command computes.

    Beside them, two references that draw every measurement:

    * "full data, vectorized": per chunk of 100 experiments, every one of the
      2 × 10,000 measurements of each experiment drawn level by level (build,
      run and measurement effects), the build means computed, then the same
      vectorized analysis (`stats.power.analyse`);
    * "compare_hierarchical loop": each experiment's full data analysed by
      `compare_hierarchical` in a Python loop, timed on 40 experiments and
      extrapolated to 1,000 per effect.

    The full-data reference's probabilities are checked against `simulate`'s
    (difference in combined Monte Carlo standard errors, z): the exact draw of
    the build means (one normal per build, variance Σ T_i² / (r_{n−1}⋯r_i))
    gives the same distribution as drawing every measurement.

Goal
    A few seconds for 1,000 experiments of 10 × 10 × 100 per effect.

Run
    python3 benchmarks/power.py          # ~1 min
    python3 benchmarks/power.py --json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import numpy as np

SDS = (0.041, 0.067, 0.046)
DESIGN = (10, 10, 100)
EFFECTS = (0.0, 0.02, 0.03, 0.05)
SIMULATIONS = 1000


def _timed(function, repeats: int) -> tuple[float, list[float]]:
    function()  # warm-up: imports, caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def _full_data_power(seed: int) -> list[float]:
    """P(change in the true direction) (false alarms at 0) from every measurement drawn."""
    from benchlab.stats.power import CHANGE, analyse

    rng = np.random.default_rng(seed)
    n_build, n_run, n_meas = DESIGN
    hits = np.zeros(len(EFFECTS))
    chunk = 100

    def build_means(rows: int, mean: float) -> np.ndarray:
        build = rng.normal(0, SDS[0], (rows, n_build, 1, 1))
        run = rng.normal(0, SDS[1], (rows, n_build, n_run, 1))
        meas = rng.normal(0, SDS[2], (rows, n_build, n_run, n_meas))
        return (mean + build + run + meas).mean(axis=(2, 3))

    for start in range(0, SIMULATIONS, chunk):
        rows = min(chunk, SIMULATIONS - start)
        base = build_means(rows, 1.0)
        noise = build_means(rows, 0.0)
        for j, effect in enumerate(EFFECTS):
            found = analyse(base, noise + 1.0 + effect, effect, 0.0, 0.95)
            change = found["verdict"] == CHANGE
            if effect != 0:
                change &= found["direction"] == 1
            hits[j] += change.sum()
    return list(hits / SIMULATIONS)


def _loop_per_experiment(experiments: int, seed: int) -> float:
    """Seconds per experiment of full data analysed by compare_hierarchical."""
    from benchlab.stats.compare import compare_hierarchical

    rng = np.random.default_rng(seed)
    n_build, n_run, n_meas = DESIGN
    builds = np.repeat(np.arange(n_build), n_run * n_meas)
    runs = np.tile(np.repeat(np.arange(n_run), n_meas), n_build)

    def system(mean: float) -> np.ndarray:
        build = np.repeat(rng.normal(0, SDS[0], n_build), n_run * n_meas)
        run = np.repeat(rng.normal(0, SDS[1], n_build * n_run), n_meas)
        return mean + build + run + rng.normal(0, SDS[2], builds.size)

    start = time.perf_counter()
    for _ in range(experiments):
        compare_hierarchical([("old", system(1.0), [builds, runs]),
                              ("new", system(1.03), [builds, runs])], ["build", "run"],
                             diagnostics=False)
    return (time.perf_counter() - start) / experiments


def main() -> None:
    from benchlab.stats.power import power_analysis, simulate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    t2 = [s * s for s in SDS]
    levels = ["build", "run", "measurement"]

    table_s, table_all = _timed(lambda: simulate(t2, DESIGN, EFFECTS, simulations=SIMULATIONS,
                                                 seed=1), args.repeats)
    full_s, full_all = _timed(lambda: power_analysis(
        t2, DESIGN, EFFECTS, levels=levels, costs=[1200.0, 4.75, 0.25],
        simulations=SIMULATIONS, seed=1), args.repeats)
    data_s, _ = _timed(lambda: _full_data_power(2), 1)
    per_experiment = _loop_per_experiment(40, 3)

    found, _ = simulate(t2, DESIGN, EFFECTS, simulations=SIMULATIONS, seed=1)
    mine = [f.false_alarm if f.power is None else f.power for f in found]
    reference = _full_data_power(2)
    z = [(a - b) / math.sqrt(max(a * (1 - a) + b * (1 - b), 1e-12) / SIMULATIONS)
         for a, b in zip(mine, reference, strict=True)]
    out = {
        "design": "x".join(map(str, DESIGN)), "simulations_per_effect": SIMULATIONS,
        "effects": list(EFFECTS),
        "simulate_s": table_s, "simulate_all_s": table_all,
        "simulate_per_effect_s": table_s / len(EFFECTS),
        "power_analysis_s": full_s, "power_analysis_all_s": full_all,
        "full_data_vectorized_s": data_s,
        "full_data_per_effect_s": data_s / len(EFFECTS),
        "compare_loop_per_effect_s": per_experiment * SIMULATIONS,
        "power": mine, "power_full_data": reference, "z": z,
        "goal": "a few seconds per effect",
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{SIMULATIONS} experiments of {out['design']} per effect, effects "
          f"{', '.join(f'{100 * e:g}%' for e in EFFECTS)} (median of {args.repeats})")
    print(f"  simulate (the table)              {table_s:8.3f} s  "
          f"({out['simulate_per_effect_s']:.4f} s per effect)")
    print(f"  power_analysis (table and curve)  {full_s:8.3f} s")
    print(f"  full data, vectorized (reference) {data_s:8.3f} s  "
          f"({out['full_data_per_effect_s']:.3f} s per effect)")
    print(f"  compare_hierarchical loop         {per_experiment * SIMULATIONS:8.1f} s per effect "
          f"(extrapolated from 40 experiments)")
    print("  power (false alarms at 0): exact build-mean draws vs full data")
    for e, a, b, zz in zip(EFFECTS, mine, reference, z, strict=True):
        print(f"    {100 * e:4g}%  {100 * a:5.1f}%  {100 * b:5.1f}%  z = {zz:+.2f}")


if __name__ == "__main__":
    main()

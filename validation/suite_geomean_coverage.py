"""Monte Carlo coverage of the geometric-mean-of-ratios CI of `compare --benchmark` (suites).

What it measures
    A suite of 5 benchmarks, each measured on two systems as builds × runs ×
    iterations with Kalibera & Jones's hierarchical normal model and the
    relative SDs of their FFT benchmark (4.1% build, 6.7% execution, 4.6%
    measurement). The candidate's true per-benchmark ratios are 1.00, 0.97,
    1.02, 0.95 and 1.00, so the true geometric mean is their geometric mean.
    `benchlab.stats.suite.compare_suite` gives the geometric mean of the
    per-benchmark ratios of means and its percentile interval from the
    hierarchical bootstrap (RRR, each benchmark and system resampled on its
    own, B = 1000 here). Designs: 3, 5 and 10 builds × 5 runs × 20 iterations.
    Printed: coverage of the nominal 95% interval, its Monte Carlo standard
    error, the share of intervals entirely below/above the truth, and the
    mean coverage of the per-benchmark Fieller intervals for context.

Goal
    Coverage within 94%..97% from 5 builds up (as the hierarchy validation).

Run
    python3 validation/suite_geomean_coverage.py             # ~3 min on 2 cores
    python3 validation/suite_geomean_coverage.py --sims 50   # quick look
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.stats.suite import compare_suite

REL_SD = (0.041, 0.067, 0.046)
RATIOS = np.array([1.00, 0.97, 1.02, 0.95, 1.00])
DESIGNS = ((3, 5, 20), (5, 5, 20), (10, 5, 20))
GOAL_LOW, GOAL_HIGH, GOAL_MIN_BUILDS = 0.94, 0.97, 5
SEED = 20261125


def simulate(rng: np.random.Generator, mean: float, design: tuple[int, int, int]
             ) -> tuple[np.ndarray, list[np.ndarray]]:
    """One system's measurements of one benchmark and their (build, run) labels."""
    nb, nr, ni = design
    b = np.repeat(np.arange(nb), nr * ni)
    r = np.tile(np.repeat(np.arange(nr), ni), nb)
    x = mean * (1 + REL_SD[0] * rng.normal(size=nb)[b]
                + REL_SD[1] * rng.normal(size=nb * nr)[b * nr + r]
                + REL_SD[2] * rng.normal(size=b.size))
    return x, [b.astype(str), r.astype(str)]


def run_design(design: tuple[int, int, int], sims: int, replicates: int,
               ss: np.random.SeedSequence) -> dict:
    rng = np.random.default_rng(ss)
    truth = float(np.exp(np.mean(np.log(RATIOS))))
    hit = low_miss = high_miss = 0
    fieller_hits = 0
    for _ in range(sims):
        data = {}
        for k, ratio in enumerate(RATIOS):
            xb, lv = simulate(rng, 100.0, design)
            xc, _ = simulate(rng, 100.0 * ratio, design)
            data[f"b{k}"] = [("old", xb, lv), ("new", xc, lv)]
        res = compare_suite(data, ["build", "run"], baseline="old", replicates=replicates,
                            seed=int(rng.integers(2**31)), diagnostics=False)
        g = res.geometric_means[0]
        hit += g.low <= truth <= g.high
        low_miss += g.high < truth
        high_miss += g.low > truth
        for (_, r), ratio in zip(res.benchmarks, RATIOS, strict=True):
            c = r.comparisons[0].ratio
            fieller_hits += c.bounded and c.low <= ratio <= c.high
    p = hit / sims
    return {"design": design, "sims": sims, "coverage": p,
            "mcse": math.sqrt(p * (1 - p) / sims), "miss_low": low_miss / sims,
            "miss_high": high_miss / sims,
            "fieller_per_benchmark": fieller_hits / (sims * len(RATIOS))}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sims", type=int, default=2000, help="simulated suites per design")
    p.add_argument("--replicates", type=int, default=1000, help="bootstrap replicates")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    streams = np.random.SeedSequence(args.seed).spawn(len(DESIGNS))
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(run_design, DESIGNS, [args.sims] * len(DESIGNS),
                             [args.replicates] * len(DESIGNS), streams))
    print("Coverage of the nominal 95% CI of the geometric mean of 5 benchmarks' ratios of "
          "means (compare_suite, hierarchical bootstrap RRR, percentile, B = "
          f"{args.replicates}); K&J FFT relative SDs {REL_SD}; true ratios "
          f"{RATIOS.tolist()}; seed {args.seed}")
    print(f"{'design':>9} {'sims':>5} | {'cover':>6} {'MCSE':>5} {'lo':>5} {'hi':>5} | "
          f"{'Fieller per benchmark':>21}")
    for r in rows:
        d = "x".join(map(str, r["design"]))
        print(f"{d:>9} {r['sims']:>5} | {100 * r['coverage']:6.2f} {100 * r['mcse']:5.2f} "
              f"{100 * r['miss_low']:5.1f} {100 * r['miss_high']:5.1f} | "
              f"{100 * r['fieller_per_benchmark']:21.2f}")
    judged = [r for r in rows if r["design"][0] >= GOAL_MIN_BUILDS]
    met = all(GOAL_LOW <= r["coverage"] <= GOAL_HIGH for r in judged)
    figures = ", ".join(f"{100 * r['coverage']:.2f}%" for r in judged)
    print(f"Goal: coverage within {100 * GOAL_LOW:g}%..{100 * GOAL_HIGH:g}% from "
          f"{GOAL_MIN_BUILDS} builds: {'MET' if met else 'NOT MET'} ({figures})")
    print(f"Runtime {time.perf_counter() - t0:.1f} s on {args.jobs} processes "
          "(other work may be running)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

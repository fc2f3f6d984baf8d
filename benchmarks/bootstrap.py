"""Wall time of benchlab's bootstrap CIs for a ratio, on large samples.

What it measures
    `benchlab.stats.bootstrap.bootstrap_ratio` on two samples of 10,000 values
    each (lognormal timings, seeded) with 10,000 bootstrap replicates:

      mean            ratio of means, independent samples
      median          ratio of medians, independent samples
      both            mean then median from one generator: what
                      `benchlab compare --bootstrap` computes per comparison
      paired mean     resampling whole pairs (`--paired --bootstrap`)
      paired median
      paired both

    Median of --repeats runs (default 5) each, in-process (no start-up cost).
    For context, the same machine's time for a plain reference:
    `scipy.stats.bootstrap((base, cand), ratio-of-means statistic,
    method='percentile', n_resamples=10000, vectorized=True, batch=...)`
    (batched: 10,000 × 10,000 resamples at once would need ~1.6 GB), median
    of --ref-repeats runs (default 3; it is slower). Its interval is printed
    beside benchlab's so the two can be compared by eye.

Goal (from the issue)
    Under 2 s for the ratio-of-means and ratio-of-medians bootstrap of two
    10,000-value samples with 10,000 replicates ("both" is the row that
    corresponds to `compare --bootstrap`).

Run
    python3 benchmarks/bootstrap.py             # table
    python3 benchmarks/bootstrap.py --json      # the same figures as JSON
    python3 benchmarks/bootstrap.py --no-reference   # skip scipy's (slow) reference

Timings are wall-clock on a shared machine: other load adds noise; min and
max of the runs are printed beside the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.stats.bootstrap import bootstrap_ratio

GOAL_S = 2.0
N = 10_000
B = 10_000


def data(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.lognormal(np.log(100.0), 0.1, N)
    cand = rng.lognormal(np.log(103.0), 0.1, N)
    return base, cand


def timed(fn, repeats: int) -> tuple[list[float], object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def cases(base: np.ndarray, cand: np.ndarray, seed: int) -> dict:
    def one(stat: str, paired: bool):
        return lambda: [bootstrap_ratio(base, cand, stat, replicates=B, seed=seed,
                                        paired=paired)]

    def both(paired: bool):
        def run():  # as compare_pair does: one generator for the two statistics
            rng = np.random.default_rng(seed)
            return [bootstrap_ratio(base, cand, s, replicates=B, seed=seed, paired=paired,
                                    rng=rng) for s in ("mean", "median")]
        return run

    return {"mean": one("mean", False), "median": one("median", False), "both": both(False),
            "paired mean": one("mean", True), "paired median": one("median", True),
            "paired both": both(True)}


def reference(base: np.ndarray, cand: np.ndarray, seed: int, repeats: int, batch: int):
    from scipy import stats

    def ratio(x, y, axis=-1):
        return np.mean(y, axis=axis) / np.mean(x, axis=axis)

    def run():
        return stats.bootstrap((base, cand), ratio, method="percentile", n_resamples=B,
                               vectorized=True, batch=batch, confidence_level=0.95,
                               rng=np.random.default_rng(seed))

    return timed(run, repeats)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per case (median reported)")
    ap.add_argument("--ref-repeats", type=int, default=3, help="runs of scipy's reference")
    ap.add_argument("--batch", type=int, default=500,
                    help="scipy.stats.bootstrap batch (resamples per batch)")
    ap.add_argument("--no-reference", action="store_true", help="skip scipy's reference")
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    base, cand = data(args.seed)
    # warm-up: import costs and first-touch page faults are not what is measured
    bootstrap_ratio(base[:100], cand[:100], "mean", replicates=200, seed=0)
    rows = {}
    for name, fn in cases(base, cand, args.seed).items():
        times, out = timed(fn, args.repeats)
        rows[name] = {"median_s": statistics.median(times), "min_s": min(times),
                      "max_s": max(times), "runs": len(times),
                      "goal_met": statistics.median(times) < GOAL_S,
                      "intervals": [{"statistic": r.statistic, "estimate": r.estimate,
                                     "percentile": [r.low, r.high],
                                     "bca": [r.bca_low, r.bca_high]} for r in out]}
    ref = None
    if not args.no_reference:
        times, res = reference(base, cand, args.seed, args.ref_repeats, args.batch)
        ci = res.confidence_interval
        ref = {"what": f"scipy.stats.bootstrap percentile, ratio of means, vectorized, "
                       f"batch={args.batch}", "median_s": statistics.median(times),
               "min_s": min(times), "max_s": max(times), "runs": len(times),
               "percentile": [float(ci.low), float(ci.high)]}
    result = {"n": N, "replicates": B, "goal_s": GOAL_S, "cpus": os.cpu_count(),
              "loadavg": os.getloadavg(), "numpy": np.__version__, "cases": rows,
              "reference": ref}

    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"bootstrap_ratio: two samples of {N} values, {B} replicates; median of "
          f"{args.repeats} runs; numpy {np.__version__}, {os.cpu_count()} CPUs, load average "
          + " ".join(f"{x:.2f}" for x in result["loadavg"]))
    print()
    print(f"  {'case':14} {'median':>8} {'min':>7} {'max':>7}  {'goal < 2 s':10}  intervals "
          "(percentile; BCa)")
    for name, r in rows.items():
        ivs = "  ".join(f"{iv['statistic']} {iv['percentile'][0]:.4f}..{iv['percentile'][1]:.4f}; "
                        f"{iv['bca'][0]:.4f}..{iv['bca'][1]:.4f}" if iv["bca"][0] is not None
                        else f"{iv['statistic']} {iv['percentile'][0]:.4f}.."
                             f"{iv['percentile'][1]:.4f}; BCa undefined"
                        for iv in r["intervals"])
        print(f"  {name:14} {r['median_s']:7.3f}s {r['min_s']:6.3f}s {r['max_s']:6.3f}s  "
              f"{'met' if r['goal_met'] else 'NOT MET':10}  {ivs}")
    if ref:
        print()
        print(f"  reference: {ref['what']}")
        print(f"  {'':14} {ref['median_s']:7.3f}s {ref['min_s']:6.3f}s {ref['max_s']:6.3f}s  "
              f"{'':10}  mean {ref['percentile'][0]:.4f}..{ref['percentile'][1]:.4f} "
              f"(median of {ref['runs']} runs)")
    print()
    print("Wall-clock times on a shared machine; other load adds noise (see min/max).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

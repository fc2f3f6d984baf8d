"""Time benchlab's hierarchical bootstrap of a ratio (STATS.md §5).

What it measures
    Two systems, each 10 builds × 10 runs × 100 iterations (10,000
    measurements; Kalibera & Jones's FFT relative SDs 4.1% / 6.7% / 4.6%,
    baseline mean 100, candidate 97). Wall time of
    `hierarchical_bootstrap_ratio(base_tree, cand_tree, ..., replicates=10_000)`
    — median of 5 runs after one warm-up — for:

    * the ratio of means, resampling every level (RRR, the default);
    * the ratio of medians (RRR);
    * the ratio of means resampling builds and runs only (RRN);
    * the FLAT bootstrap (spec="flat": the 10,000 measurements resampled as
      if independent);
    * what `compare --levels build,run --bootstrap 10000` adds: the wall time
      of `compare_hierarchical` with `bootstrap=10_000` (means and medians,
      as compare runs them) minus its time without the bootstrap — this is
      the figure of the goal.

    Beside it, a plain per-replicate reference implementation (Python loops:
    for each replicate, resample the builds, then the runs within each chosen
    build, then the iterations within each chosen run, with numpy per unit),
    timed on fewer replicates and extrapolated to 10,000, and the speed-up.
    The two implementations are checked to agree in distribution on the same
    data: the mean and standard deviation of the replicate ratios, with the
    difference in Monte Carlo standard errors (z).

    Peak memory: tracemalloc's peak (numpy reports its buffers to it) during
    one call, for 10,000 and 40,000 replicates — it should not grow with the
    replicates beyond the 8-byte-per-replicate result arrays, because the code
    draws the replicates in chunks — and the process's maxrss before/after.

Goal
    Under 1 s for the 10,000-replicate RRR ratio of means, and under 1 s
    for the whole bootstrap that `compare` adds (means and medians, issue 12).
    `--only-compare` times that alone (quick: use it to compare revisions,
    e.g. with PYTHONPATH pointing at an older checkout).

Run
    python3 benchmarks/hierarchical_bootstrap.py          # ~30 s
    python3 benchmarks/hierarchical_bootstrap.py --json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import sys
import time
import tracemalloc

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_bootstrap_ratio

DESIGN = (10, 10, 100)  # builds, runs per build, iterations per run
REL_SD = (0.041, 0.067, 0.046)
REPLICATES = 10_000
GOAL_S = 1.0
VARIANTS = (("mean, RRR (default)", "mean", None), ("median, RRR", "median", None),
            ("mean, RRN", "mean", "RRN"), ("mean, FLAT", "mean", "flat"))


def simulate(rng: np.random.Generator, mean: float) -> np.ndarray:
    nb, nr, ni = DESIGN
    sb, sr, se = (s * mean for s in REL_SD)
    return (mean + rng.normal(0, sb, (nb, 1, 1)) + rng.normal(0, sr, (nb, nr, 1))
            + rng.normal(0, se, (nb, nr, ni)))


def tree_of(x: np.ndarray):
    nb, nr, ni = x.shape
    b, r, _ = np.meshgrid(np.arange(nb), np.arange(nr), np.arange(ni), indexing="ij")
    return build_tree(x.ravel(), [b.ravel(), r.ravel()])


def reference_replicates(x: np.ndarray, replicates: int, rng: np.random.Generator) -> np.ndarray:
    """RRR resampling of the mean, one replicate at a time (the obvious implementation).

    x: builds × runs × iterations. Per replicate: draw the builds with
    replacement; for each chosen build, its runs; for each chosen run, its
    iterations; the statistic is the mean of the resampled measurements
    (equal to the mean of means: the data are balanced).
    """
    nb, nr, ni = x.shape
    out = np.empty(replicates)
    for k in range(replicates):
        total = 0.0
        for b in rng.integers(0, nb, nb):
            build = x[b]
            for r in rng.integers(0, nr, nr):
                total += build[r][rng.integers(0, ni, ni)].sum()
        out[k] = total / (nb * nr * ni)
    return out


def time_calls(fn, repeats: int) -> tuple[list[float], list[float]]:
    """Wall and CPU (all threads of the process) seconds of each call, after a warm-up."""
    fn()
    wall, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return wall, cpu


def vectorized_ratios(tb, tc, replicates: int, seed: int) -> np.ndarray:
    """The replicate ratios hierarchical_bootstrap_ratio sorts (same streams and calls)."""
    from benchlab.stats.hierarchical_bootstrap import hierarchical_replicates

    base_rng, cand_rng = (np.random.default_rng(s)
                          for s in np.random.SeedSequence(seed).spawn(2))
    b = hierarchical_replicates(tb, "RRR", replicates, base_rng, "mean")
    c = hierarchical_replicates(tc, "RRR", replicates, cand_rng, "mean")
    return c / b


def peak_memory(tb, tc, replicates: int) -> float:
    """tracemalloc peak (MB) during one RRR call with `replicates` replicates."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    hierarchical_bootstrap_ratio(tb, tc, "mean", replicates=replicates, seed=3)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def compare_added(xb: np.ndarray, xc: np.ndarray, repeats: int) -> dict:
    """Wall and CPU seconds that `bootstrap=10_000` adds to compare_hierarchical (medians).

    Both with the default diagnostics, as `benchlab compare --levels build,run`
    runs them; the added time is the median with the bootstrap minus the median
    without it.
    """
    from benchlab.stats.compare import compare_hierarchical

    nb, nr, ni = DESIGN
    b, r, _ = np.meshgrid(np.arange(nb), np.arange(nr), np.arange(ni), indexing="ij")
    levels = [b.ravel(), r.ravel()]
    data = [("old", xb.ravel(), levels), ("new", xc.ravel(), levels)]

    def call(boot: int | None):
        return lambda: compare_hierarchical(data, ["build", "run"], bootstrap=boot, seed=1)

    with_wall, with_cpu = time_calls(call(REPLICATES), repeats)
    without_wall, without_cpu = time_calls(call(None), repeats)
    stats = [b.statistic for b in call(REPLICATES)().comparisons[0].bootstrap]
    added = statistics.median(with_wall) - statistics.median(without_wall)
    return {"statistics": stats, "with_bootstrap_s": statistics.median(with_wall),
            "without_bootstrap_s": statistics.median(without_wall), "added_s": added,
            "added_cpu_s": statistics.median(with_cpu) - statistics.median(without_cpu),
            "added_min_s": min(with_wall) - min(without_wall), "goal_met": added < GOAL_S}


def maxrss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 2**20 if sys.platform == "darwin" else rss / 2**10


def run(repeats: int, ref_time_reps: int, ref_dist_reps: int, seed: int,
        only_compare: bool = False) -> dict:
    rng = np.random.default_rng(seed)
    xb, xc = simulate(rng, 100.0), simulate(rng, 97.0)
    if only_compare:
        load = os.getloadavg()[0]
        return {"design": DESIGN, "replicates": REPLICATES, "repeats": repeats,
                "compare": compare_added(xb, xc, repeats), "cpus": os.cpu_count(),
                "loadavg_1min_before": load, "loadavg_1min_after": os.getloadavg()[0]}
    tb, tc = tree_of(xb), tree_of(xc)
    rss0 = maxrss_mb()
    load_before = os.getloadavg()[0]
    timings = {}
    for label, stat, spec in VARIANTS:
        ts, cpu = time_calls(lambda stat=stat, spec=spec: hierarchical_bootstrap_ratio(
            tb, tc, stat, spec=spec, replicates=REPLICATES, seed=1), repeats)
        timings[label] = {"median_s": statistics.median(ts), "min_s": min(ts), "max_s": max(ts),
                          "median_cpu_s": statistics.median(cpu)}
    rss1 = maxrss_mb()
    added = compare_added(xb, xc, repeats)

    # Reference: both systems, as the ratio needs.
    ref_rng = np.random.default_rng(seed + 1)
    t = time.perf_counter()
    reference_replicates(xc, ref_time_reps, ref_rng) / reference_replicates(xb, ref_time_reps,
                                                                            ref_rng)
    ref_s = time.perf_counter() - t
    ref_extrap = ref_s * REPLICATES / ref_time_reps
    fast = timings["mean, RRR (default)"]["median_s"]

    # Agreement in distribution on the same data.
    ref = (reference_replicates(xc, ref_dist_reps, ref_rng)
           / reference_replicates(xb, ref_dist_reps, ref_rng))
    vec = vectorized_ratios(tb, tc, REPLICATES, 7)
    api = hierarchical_bootstrap_ratio(tb, tc, "mean", replicates=REPLICATES, seed=7)
    from benchlab.stats.bootstrap import interval_from_replicates
    same_as_api = interval_from_replicates(vec, 0.95) == (api.low, api.high)

    def moments(r: np.ndarray) -> dict:
        return {"n": r.size, "mean": float(r.mean()), "sd": float(r.std(ddof=1))}

    mr, mv = moments(ref), moments(vec)
    # MC SE of a mean: sd/sqrt(n); of an SD (near-normal replicates): sd/sqrt(2(n-1)).
    z_mean = (mr["mean"] - mv["mean"]) / math.hypot(mr["sd"] / math.sqrt(mr["n"]),
                                                    mv["sd"] / math.sqrt(mv["n"]))
    z_sd = (mr["sd"] - mv["sd"]) / math.hypot(mr["sd"] / math.sqrt(2 * (mr["n"] - 1)),
                                              mv["sd"] / math.sqrt(2 * (mv["n"] - 1)))
    # Theory for RRR on balanced data: Var*(mean) = (nb-1)/nb² · S3² + (nr-1)/nr · S2²/(nb·nr)
    # + (ni-1)/ni · S1²/(nb·nr·ni), S_i² the within-unit sample variances (STATS.md §5);
    # delta method for the ratio of the two independent replicate means.
    def var_star(x: np.ndarray) -> tuple[float, float]:
        nb, nr, ni = x.shape
        run_means = x.mean(axis=2)
        s1 = float(x.var(axis=2, ddof=1).mean())
        s2 = float(run_means.var(axis=1, ddof=1).mean())
        s3 = float(run_means.mean(axis=1).var(ddof=1))
        v = ((nb - 1) / nb**2 * s3 + (nr - 1) / nr * s2 / (nb * nr)
             + (ni - 1) / ni * s1 / (nb * nr * ni))
        return float(x.mean()), v

    (mb, vb), (mc, vc) = var_star(xb), var_star(xc)
    sd_theory = (mc / mb) * math.sqrt(vc / mc**2 + vb / mb**2)

    mem = {str(b): peak_memory(tb, tc, b) for b in (REPLICATES, 4 * REPLICATES)}
    return {
        "design": DESIGN, "replicates": REPLICATES, "repeats": repeats, "seed": seed,
        "timings": timings, "goal_s": GOAL_S, "goal_met": fast < GOAL_S, "compare": added,
        "reference": {"timed_replicates": ref_time_reps, "time_s": ref_s,
                      "extrapolated_s": ref_extrap, "speedup": ref_extrap / fast},
        "agreement": {"reference": mr, "vectorized": mv, "z_mean": z_mean, "z_sd": z_sd,
                      "sd_theory_delta_method": sd_theory,
                      "vectorized_interval_equals_api": same_as_api},
        "memory": {"tracemalloc_peak_mb": mem, "maxrss_before_mb": rss0,
                   "maxrss_after_timings_mb": rss1,
                   "data_mb": 2 * xb.nbytes / 2**20},
        "cpus": os.cpu_count(), "loadavg_1min_before": load_before,
        "loadavg_1min_after": os.getloadavg()[0],
    }


def print_compare(res: dict) -> None:
    c = res["compare"]
    which = " and ".join(f"{s}s" for s in c["statistics"])
    print(f"compare_hierarchical adds for bootstrap=10000 (ratios of {which})"
          f": {c['added_s']:.3f} s wall (median; {c['with_bootstrap_s']:.3f} s with, "
          f"{c['without_bootstrap_s']:.3f} s without; min-min {c['added_min_s']:.3f} s), "
          f"{c['added_cpu_s']:.3f} s CPU; goal under {GOAL_S:g} s: "
          f"{'MET' if c['goal_met'] else 'NOT MET'}")


def print_report(res: dict) -> None:
    nb, nr, ni = res["design"]
    print(f"Hierarchical bootstrap of a ratio: two systems of {nb} builds x {nr} runs x "
          f"{ni} iterations, {res['replicates']} replicates, median of {res['repeats']} runs "
          f"(after a warm-up); {res['cpus']} CPUs, 1-min load average "
          f"{res['loadavg_1min_before']:.1f} before, {res['loadavg_1min_after']:.1f} after "
          "(other processes slow the wall times)")
    print()
    if "timings" not in res:
        print_compare(res)
        return
    print(f"{'variant':22} {'median':>8} {'min':>8} {'max':>8} {'CPU (both threads)':>19}")
    for label, t in res["timings"].items():
        print(f"{label:22} {t['median_s']:7.3f}s {t['min_s']:7.3f}s {t['max_s']:7.3f}s "
              f"{t['median_cpu_s']:18.3f}s")
    ref = res["reference"]
    print()
    print(f"Reference (Python loop per replicate, numpy per unit): {ref['timed_replicates']} "
          f"replicates in {ref['time_s']:.2f} s -> {ref['extrapolated_s']:.1f} s extrapolated "
          f"to {res['replicates']}; speed-up of the vectorized RRR mean: "
          f"{ref['speedup']:.0f}x")
    a = res["agreement"]
    r, v = a["reference"], a["vectorized"]
    print(f"Agreement in distribution (replicate ratios of means, same data): reference "
          f"n={r['n']} mean {r['mean']:.5f} sd {r['sd']:.5f}; vectorized n={v['n']} mean "
          f"{v['mean']:.5f} sd {v['sd']:.5f}; z(mean) {a['z_mean']:+.2f}, z(sd) "
          f"{a['z_sd']:+.2f} ({'agree' if max(abs(a['z_mean']), abs(a['z_sd'])) < 3 else 'DIFFER'}"
          f" within 3 MC SE); delta-method sd of the RRR ratio {a['sd_theory_delta_method']:.5f}")
    print(f"The vectorized replicates give hierarchical_bootstrap_ratio's interval: "
          f"{a['vectorized_interval_equals_api']}")
    m = res["memory"]
    peaks = ", ".join(f"B={b}: {p:.0f} MB" for b, p in m["tracemalloc_peak_mb"].items())
    print(f"Peak memory during one RRR call (tracemalloc): {peaks}; the data are "
          f"{m['data_mb']:.2f} MB; maxrss {m['maxrss_before_mb']:.0f} MB before the timings, "
          f"{m['maxrss_after_timings_mb']:.0f} MB after")
    print_compare(res)
    fast = res["timings"]["mean, RRR (default)"]["median_s"]
    print(f"Goal: RRR ratio of means with {res['replicates']} replicates under "
          f"{res['goal_s']:g} s: {'MET' if res['goal_met'] else 'NOT MET'} ({fast:.3f} s)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--ref-replicates", type=int, default=200,
                   help="replicates of the reference timed (then extrapolated)")
    p.add_argument("--ref-dist-replicates", type=int, default=2000,
                   help="replicates of the reference for the distribution check")
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument("--json", action="store_true")
    p.add_argument("--only-compare", action="store_true",
                   help="time only what the bootstrap adds to compare (means and medians)")
    args = p.parse_args(argv)
    res = run(args.repeats, args.ref_replicates, args.ref_dist_replicates, args.seed,
              args.only_compare)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print_report(res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

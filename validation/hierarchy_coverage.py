"""Monte Carlo coverage of benchlab's ratio CIs for hierarchical (build/run/iteration) data.

What it measures
    Two systems are measured as a three-level hierarchy: builds (top level),
    runs (executions) within each build, iterations (measurements) within each
    run. The data follow Kalibera & Jones's hierarchical normal random-effects
    model with the relative standard deviations of their FFT benchmark
    (ISMM 2013, Table 8.2): 4.1% per build, 6.7% per execution, 4.6% per
    measurement, each relative to the system's own mean:

        y[b, r, i] = mu · (1 + 0.041·Z_b + 0.067·Z_br + 0.046·Z_bri),  Z ~ N(0, 1)

    Baseline mean mu = 100; the candidate's mean is 100 × the true ratio, for
    true ratios 1.00 (no change) and 0.97 (a 3% speed-up). Designs: 3, 5, 10
    and 20 builds × 5 runs × 20 iterations, plus 5 builds × 10 runs × 10
    iterations (the same number of measurements per build, spent on more runs).

    For each cell, the fraction of simulated experiments whose 95% CI for
    mean(candidate)/mean(baseline) contains the true ratio, for:

    * Fieller on the build means (the CI of `benchlab compare --levels`):
      the top-level means of each system, then `ratio_df("welch", ...)` and
      `fieller_interval(...)` exactly as `compare_hierarchical` makes them via
      `compare_samples` / `compare.py::_ratio`; checked against
      `compare_hierarchical(...).comparisons[0].ratio` itself on the first
      simulations of every cell;
    * the hierarchical bootstrap percentile interval of the ratio of means,
      `hierarchical_bootstrap_ratio(build_tree(...), build_tree(...), "mean",
      replicates=1000, seed=...)`: RRR (resample builds, runs and iterations:
      the default), RNN (builds only) and FLAT (spec="flat": all measurements
      pooled and resampled as if independent, to show how wrong ignoring the
      hierarchy is); and the studentized (bootstrap-t) interval the same call
      returns for RRR and RNN (RRR-t, RNN-t: the pivot studentized by each
      replicate's standard error from its build means). Checked against
      `compare_hierarchical(..., bootstrap=...)` on the first simulation of
      every cell. Fewer simulations than Fieller:
      it is ~100 times slower per simulation.

    Also the share of simulations whose verdict
    (`benchlab.stats.verdict.classify(low, high, threshold)`) is "change", at
    thresholds 0, 1% and 2%: with true ratio 1.00 this is the false-alarm
    rate; with 0.97 it is the detection rate (power). An unbounded Fieller set
    counts as covering and as "inconclusive" (there is none at these settings).

Goals
    Coverage within 94%..97% from 5 builds up (Fieller and the default RRR
    bootstrap); hence a false-alarm rate at threshold 0 of at most 6%, and
    lower with a threshold. The Monte Carlo standard error (MCSE)
    sqrt(p(1-p)/sims) is printed beside every figure.

Run
    python3 validation/hierarchy_coverage.py            # table, ~3 min on 2 cores
    python3 validation/hierarchy_coverage.py --json     # the same figures as JSON
    python3 validation/hierarchy_coverage.py --sims 2000 --boot-sims 100   # quick look
    python3 validation/hierarchy_coverage.py --design 5x10x10 --boot-sims 3000  # one design

Random numbers: numpy.random.default_rng, one independent stream per cell
spawned from --seed (default 20240602); the bootstrap seeds are drawn from
that stream, so every figure is reproducible.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.stats.compare import compare_hierarchical
from benchlab.stats.fieller import fieller_interval, ratio_df
from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_bootstrap_ratio
from benchlab.stats.verdict import classify

CONFIDENCE = 0.95
GOAL_LOW, GOAL_HIGH = 0.94, 0.97
GOAL_MIN_BUILDS = 5
REL_SD = (0.041, 0.067, 0.046)  # build, execution, measurement (K&J FFT benchmark)
BASE_MEAN = 100.0
RATIOS = (1.00, 0.97)
THRESHOLDS = (0.0, 0.01, 0.02)
# (builds, runs per build, iterations per run)
DESIGNS = ((3, 5, 20), (5, 5, 20), (10, 5, 20), (20, 5, 20), (5, 10, 10))
BOOT_METHODS = ("RRR", "RNN", "flat")
STUDENTIZED = ("RRR-t", "RNN-t")  # the studentized intervals of the RRR and RNN runs
TALLIES = ("RRR", "RRR-t", "RNN", "RNN-t", "flat")
LEVEL_NAMES = ["build", "run"]
CHUNK = 500  # simulations generated at a time (bounds memory)


def simulate(rng: np.random.Generator, mean: float, sims: int, design: tuple[int, int, int]
             ) -> np.ndarray:
    """sims × builds × runs × iterations measurements of the K&J normal model."""
    nb, nr, ni = design
    sb, sr, se = (s * mean for s in REL_SD)
    x = rng.normal(0.0, se, size=(sims, nb, nr, ni))
    x += rng.normal(0.0, sr, size=(sims, nb, nr, 1))
    x += rng.normal(0.0, sb, size=(sims, nb, 1, 1))
    x += mean
    return x


def labels(design: tuple[int, int, int]) -> list[np.ndarray]:
    """Level columns [build, run] (highest first) for one system's raveled measurements."""
    nb, nr, ni = design
    # Zero-padded: the package orders units by their labels as strings ("10" < "2").
    b, r, _ = np.meshgrid(np.arange(nb), np.arange(nr), np.arange(ni), indexing="ij")
    return [np.char.zfill(b.ravel().astype(str), 3), np.char.zfill(r.ravel().astype(str), 3)]


def fieller_top(base_top: np.ndarray, cand_top: np.ndarray) -> tuple[float | None, float | None]:
    """compare_hierarchical's CI: Fieller (Welch df) on the two systems' build means."""
    n_b, n_a = base_top.size, cand_top.size
    a, b = float(cand_top.mean()), float(base_top.mean())
    v_a = float(cand_top.var(ddof=1)) / n_a
    v_b = float(base_top.var(ddof=1)) / n_b
    df = ratio_df("welch", a / b, v_a, v_b, n_a, n_b)
    ci = fieller_interval(a, b, v_a, v_b, 0.0, df, CONFIDENCE)
    return ci.low, ci.high


class Tally:
    """Coverage, misses, verdict counts and CI widths of one method in one cell."""

    def __init__(self) -> None:
        self.n = self.hit = self.lo = self.hi = self.unbounded = 0
        self.change = dict.fromkeys(THRESHOLDS, 0)
        self.widths: list[float] = []

    def add(self, low: float | None, high: float | None, truth: float) -> None:
        self.n += 1
        for t in THRESHOLDS:
            self.change[t] += classify(low, high, t) == "change"
        if low is None or high is None:
            self.unbounded += 1
            self.hit += 1
            return
        self.widths.append((high - low) / truth)
        if high < truth:
            self.lo += 1
        elif low > truth:
            self.hi += 1
        else:
            self.hit += 1

    def result(self) -> dict:
        n = self.n
        p = self.hit / n
        out = {"sims": n, "coverage": p, "mcse": math.sqrt(p * (1 - p) / n),
               "miss_low": self.lo / n, "miss_high": self.hi / n, "unbounded": self.unbounded,
               "median_rel_width": float(np.median(self.widths)) if self.widths else math.nan,
               "change": {}}
        for t, k in self.change.items():
            q = k / n
            out["change"][f"{t:g}"] = {"rate": q, "mcse": math.sqrt(q * (1 - q) / n)}
        return out


def check_against_package(xb: np.ndarray, xc: np.ndarray, design: tuple[int, int, int],
                          boot_seed: int | None, boot_b: int) -> None:
    """The replica must equal compare_hierarchical's Fieller CI (and its bootstrap)."""
    lv = labels(design)
    kw = {"bootstrap": boot_b, "seed": boot_seed} if boot_seed is not None else {}
    res = compare_hierarchical([("base", xb.ravel(), lv), ("cand", xc.ravel(), lv)],
                               LEVEL_NAMES, confidence=CONFIDENCE, **kw)
    ref = res.comparisons[0].ratio
    low, high = fieller_top(xb.mean(axis=(1, 2)), xc.mean(axis=(1, 2)))
    if ref.bounded != (low is not None) or (ref.bounded and not (
            math.isclose(ref.low, low, rel_tol=1e-12) and math.isclose(ref.high, high,
                                                                       rel_tol=1e-12))):
        raise AssertionError(f"Fieller replica differs from compare_hierarchical: "
                             f"{ref} vs {(low, high)}")
    if boot_seed is not None:
        pkg = res.comparisons[0].bootstrap[0]
        tb, tc = build_tree(xb.ravel(), lv), build_tree(xc.ravel(), lv)
        mine = hierarchical_bootstrap_ratio(tb, tc, "mean", replicates=boot_b,
                                            confidence=CONFIDENCE, seed=boot_seed)
        if pkg.statistic != "mean" or (pkg.low, pkg.high) != (mine.low, mine.high):
            raise AssertionError(f"bootstrap differs from compare_hierarchical: {pkg} vs {mine}")


def run_cell(design: tuple[int, int, int], ratio: float, sims: int, boot_sims: int,
             boot_b: int, ss: np.random.SeedSequence) -> dict:
    rng = np.random.default_rng(ss)
    boot_seeds = rng.integers(0, 2**32, size=boot_sims).tolist()
    lv = labels(design)
    template: list = []
    fieller = Tally()
    boot = {m: Tally() for m in TALLIES}
    t_fieller = t_boot = 0.0
    done = 0
    while done < sims:
        k = min(CHUNK, sims - done)
        xb = simulate(rng, BASE_MEAN, k, design)
        xc = simulate(rng, BASE_MEAN * ratio, k, design)
        if done == 0:
            for i in range(3):
                check_against_package(xb[i], xc[i], design, boot_seeds[0] if i == 0 and
                                      boot_sims else None, boot_b)
        t = time.perf_counter()
        top_b, top_c = xb.mean(axis=(2, 3)), xc.mean(axis=(2, 3))
        for i in range(k):
            fieller.add(*fieller_top(top_b[i], top_c[i]), ratio)
        t_fieller += time.perf_counter() - t
        t = time.perf_counter()
        for i in range(k):
            j = done + i
            if j >= boot_sims:
                break
            vb, vc = xb[i].ravel(), xc[i].ravel()
            if not template:
                # The measurements are already in nested (build, run) order, so every
                # simulation's tree is the first one's with new values (checked here
                # and on the next two simulations against build_tree itself).
                template.append(build_tree(vb, lv))
            if j < 3:
                for v in (vb, vc):
                    ref = build_tree(v, lv)
                    if not (np.array_equal(ref.values, v) and all(
                            np.array_equal(p, q) for p, q in zip(
                                ref.starts + ref.counts,
                                template[0].starts + template[0].counts, strict=True))):
                        raise AssertionError("build_tree reordered the simulated data")
            tb = dataclasses.replace(template[0], values=vb)
            tc = dataclasses.replace(template[0], values=vc)
            for m in BOOT_METHODS:
                spec = None if m == "RRR" else m
                r = hierarchical_bootstrap_ratio(tb, tc, "mean", spec=spec, replicates=boot_b,
                                                 confidence=CONFIDENCE, seed=boot_seeds[j])
                boot[m].add(r.low, r.high, ratio)
                if m + "-t" in STUDENTIZED:
                    boot[m + "-t"].add(r.studentized_low, r.studentized_high, ratio)
        t_boot += time.perf_counter() - t
        done += k
    return {"builds": design[0], "runs": design[1], "iterations": design[2],
            "true_ratio": ratio, "fieller": fieller.result(),
            "bootstrap": {m: boot[m].result() for m in TALLIES} if boot_sims else {},
            "runtime_fieller_s": t_fieller, "runtime_bootstrap_s": t_boot}


def theory(design: tuple[int, int, int]) -> float:
    """Relative SD of one build mean: sqrt(T3² + T2²/r2 + T1²/(r2·r1)) / mean."""
    _, nr, ni = design
    sb, sr, se = REL_SD
    return math.sqrt(sb**2 + sr**2 / nr + se**2 / (nr * ni))


def run(sims: int, boot_sims: int, boot_b: int, seed: int, progress: bool,
        designs: tuple[tuple[int, int, int], ...] = DESIGNS) -> dict:
    cells = [(d, r) for d in designs for r in RATIOS]
    streams = np.random.SeedSequence(seed).spawn(len(cells))
    t0 = time.perf_counter()
    results = []
    for (design, ratio), ss in zip(cells, streams, strict=True):
        c = run_cell(design, ratio, sims, boot_sims, boot_b, ss)
        c["build_mean_rel_sd"] = theory(design)
        results.append(c)
        if progress:
            print(f"  {design} ratio {ratio}: {time.perf_counter() - t0:6.1f} s", file=sys.stderr)
    runtime = time.perf_counter() - t0

    def in_goal(entry: dict) -> bool:
        return GOAL_LOW <= entry["coverage"] <= GOAL_HIGH

    goal_cells = [c for c in results if c["builds"] >= GOAL_MIN_BUILDS]
    goals = {
        "fieller": all(in_goal(c["fieller"]) for c in goal_cells),
        "fieller_false_alarm": all(c["fieller"]["change"]["0"]["rate"] <= 1 - GOAL_LOW
                                   for c in goal_cells if c["true_ratio"] == 1.0),
    }
    if not goal_cells:  # only designs below the goal's build count: nothing to judge
        goals = dict.fromkeys(goals)
    elif boot_sims:
        for m in ("RRR", "RRR-t"):
            goals[f"bootstrap_{m}"] = all(in_goal(c["bootstrap"][m]) for c in goal_cells)
            goals[f"bootstrap_{m}_false_alarm"] = all(
                c["bootstrap"][m]["change"]["0"]["rate"] <= 1 - GOAL_LOW
                for c in goal_cells if c["true_ratio"] == 1.0)
    return {"goal": f"coverage within {100 * GOAL_LOW:g}%..{100 * GOAL_HIGH:g}% from "
                    f"{GOAL_MIN_BUILDS} builds up",
            "goals_met": goals, "confidence": CONFIDENCE, "rel_sd_build_run_measurement": REL_SD,
            "base_mean": BASE_MEAN, "sims": sims, "bootstrap_sims": boot_sims,
            "bootstrap_replicates": boot_b, "seed": seed, "runtime_s": runtime,
            "runtime_fieller_s": sum(c["runtime_fieller_s"] for c in results),
            "runtime_bootstrap_s": sum(c["runtime_bootstrap_s"] for c in results),
            "cpus": os.cpu_count(), "cells": results}


def pct(x: float, w: int = 6, d: int = 2) -> str:
    return f"{'n/a':>{w}}" if x is None or math.isnan(x) else f"{100 * x:{w}.{d}f}"


def print_table(res: dict) -> None:
    sb, sr, se = res["rel_sd_build_run_measurement"]
    print("Coverage of nominal 95% CIs for mean(cand)/mean(base), hierarchical normal model "
          f"(K&J FFT: build {100 * sb:g}%, execution {100 * sr:g}%, measurement "
          f"{100 * se:g}% relative SD), baseline mean {res['base_mean']:g}, seed {res['seed']}")
    print(f"Fieller on build means (Welch df): {res['sims']} simulations per cell; "
          f"hierarchical bootstrap percentile and studentized (-t) (ratio of means, B = "
          f"{res['bootstrap_replicates']}): {res['bootstrap_sims']} simulations per cell")
    print("Coverage in %, MCSE in points; lo/hi = % of intervals entirely below/above the "
          "true ratio; width = median (high - low)/true ratio in %; design = builds x runs x "
          "iterations; sd(bm) = relative SD of one build mean.")
    print()
    hdr = (f"{'design':>9} {'sd(bm)':>6} {'ratio':>5} | {'Fieller':>7} {'MCSE':>4} {'lo':>4} "
           f"{'hi':>4} {'width':>5} | {'RRR':>6} {'MCSE':>4} {'lo':>4} {'hi':>4} {'width':>5} | "
           f"{'RRR-t':>6} {'MCSE':>4} {'lo':>4} {'hi':>4} {'width':>5} | "
           f"{'RNN':>6} {'width':>5} | {'RNN-t':>6} {'width':>5} | {'FLAT':>6} {'width':>5}")
    print(hdr)
    print("-" * len(hdr))
    for c in res["cells"]:
        f = c["fieller"]
        d = f"{c['builds']}x{c['runs']}x{c['iterations']}"
        line = (f"{d:>9} {pct(c['build_mean_rel_sd'], 5, 1)}% {c['true_ratio']:5.2f} | "
                f"{pct(f['coverage'], 7)} {100 * f['mcse']:4.2f} {pct(f['miss_low'], 4, 1)} "
                f"{pct(f['miss_high'], 4, 1)} {pct(f['median_rel_width'], 5, 1)} |")
        if c["bootstrap"]:
            for m in ("RRR", "RRR-t"):
                b = c["bootstrap"][m]
                line += (f" {pct(b['coverage'])} {100 * b['mcse']:4.2f} "
                         f"{pct(b['miss_low'], 4, 1)} {pct(b['miss_high'], 4, 1)} "
                         f"{pct(b['median_rel_width'], 5, 1)} |")
            line += " |".join(f" {pct(c['bootstrap'][m]['coverage'])} "
                              f"{pct(c['bootstrap'][m]['median_rel_width'], 5, 1)}"
                              for m in ("RNN", "RNN-t", "flat"))
        flag = ""
        if c["builds"] >= GOAL_MIN_BUILDS and not GOAL_LOW <= f["coverage"] <= GOAL_HIGH:
            flag += "  <-- Fieller outside goal"
        for m in ("RRR", "RRR-t"):
            if (c["bootstrap"] and c["builds"] >= GOAL_MIN_BUILDS
                    and not GOAL_LOW <= c["bootstrap"][m]["coverage"] <= GOAL_HIGH):
                flag += f"  <-- {m} outside goal"
        print(line + flag)
    print()
    print("Share of verdicts \"change\" (classify(low, high, threshold)) in % (MCSE): the "
          "false-alarm rate at true ratio 1.00, the detection rate (power) at 0.97")
    methods = ["fieller"] + (list(TALLIES) if res["bootstrap_sims"] else [])
    hdr = f"{'design':>9} {'ratio':>5} {'thr':>4} | " + " | ".join(f"{m:>12}" for m in methods)
    print(hdr)
    print("-" * len(hdr))
    for c in res["cells"]:
        d = f"{c['builds']}x{c['runs']}x{c['iterations']}"
        for t in THRESHOLDS:
            cols = []
            for m in methods:
                e = c["fieller"] if m == "fieller" else c["bootstrap"][m]
                ch = e["change"][f"{t:g}"]
                cols.append(f"{pct(ch['rate'], 5, 1)} ({100 * ch['mcse']:3.1f})")
            print(f"{d:>9} {c['true_ratio']:5.2f} {100 * t:3g}% | " + " | ".join(
                f"{x:>12}" for x in cols))
    print()
    unb = sum(c["fieller"]["unbounded"] for c in res["cells"])
    print(f"Unbounded Fieller sets: {unb} (of {res['sims'] * len(res['cells'])})")
    g = res["goals_met"]
    goal_cells = [c for c in res["cells"] if c["builds"] >= GOAL_MIN_BUILDS]
    if not goal_cells:
        print(f"Goals: not judged (no design with {GOAL_MIN_BUILDS} builds or more)")
        print(f"Runtime {res['runtime_s']:.1f} s")
        return

    def span(key: str, sub: str | None = None) -> str:
        vals = [(c[key][sub] if sub else c[key])["coverage"] for c in goal_cells]
        return f"{100 * min(vals):.2f}%..{100 * max(vals):.2f}%"

    def fa(key: str, sub: str | None = None) -> str:
        vals = [(c[key][sub] if sub else c[key])["change"]["0"]["rate"]
                for c in goal_cells if c["true_ratio"] == 1.0]
        return f"max {100 * max(vals):.2f}%"

    print(f"Goal: Fieller {res['goal']}: {'MET' if g['fieller'] else 'NOT MET'} "
          f"({span('fieller')})")
    print(f"Goal: Fieller false-alarm rate at threshold 0 <= {100 * (1 - GOAL_LOW):g}% from "
          f"{GOAL_MIN_BUILDS} builds: {'MET' if g['fieller_false_alarm'] else 'NOT MET'} "
          f"({fa('fieller')})")
    if res["bootstrap_sims"]:
        for m, what in (("RRR", "percentile"), ("RRR-t", "studentized")):
            print(f"Goal: RRR bootstrap ({what}) {res['goal']}: "
                  f"{'MET' if g[f'bootstrap_{m}'] else 'NOT MET'} ({span('bootstrap', m)})")
            print(f"Goal: RRR bootstrap ({what}) false-alarm rate at threshold 0 <= "
                  f"{100 * (1 - GOAL_LOW):g}% from {GOAL_MIN_BUILDS} builds: "
                  f"{'MET' if g[f'bootstrap_{m}_false_alarm'] else 'NOT MET'} "
                  f"({fa('bootstrap', m)})")
        print(f"(not a goal) RNN coverage from {GOAL_MIN_BUILDS} builds: "
              f"{span('bootstrap', 'RNN')}, studentized {span('bootstrap', 'RNN-t')}; "
              f"FLAT: {span('bootstrap', 'flat')}")
    print(f"Runtime {res['runtime_s']:.1f} s (Fieller {res['runtime_fieller_s']:.1f} s, "
          f"bootstrap {res['runtime_bootstrap_s']:.1f} s; the rest simulation and checks); "
          f"{res['cpus']} CPUs, other work may be running")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sims", type=int, default=10_000, help="simulations per cell (Fieller)")
    p.add_argument("--boot-sims", type=int, default=800,
                   help="simulations per cell for the bootstrap intervals (0: skip)")
    p.add_argument("--boot-b", type=int, default=1_000, help="bootstrap replicates")
    p.add_argument("--seed", type=int, default=20240602)
    p.add_argument("--design", action="append", metavar="BxRxI",
                   help="only this design, e.g. 5x10x10 (repeatable; default: all five)")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--progress", action="store_true", help="print progress on stderr")
    args = p.parse_args(argv)
    designs = DESIGNS
    if args.design:
        designs = tuple(tuple(int(v) for v in d.lower().split("x")) for d in args.design)
        if any(len(d) != 3 or min(d) < 2 for d in designs):
            p.error("--design needs builds x runs x iterations, each at least 2")
    res = run(args.sims, min(args.boot_sims, args.sims), args.boot_b, args.seed, args.progress,
              designs)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print_table(res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

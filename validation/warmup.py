"""Class and steady-state start of `benchlab warmup` on synthetic executions (issue 24).

Each execution has N iterations (default 3,000) of one class with a known
steady-state start, drawn with numpy.random.default_rng(seed):

- flat: one level throughout (start 0);
- warm-up: the first L iterations slower, L uniform in [2%, 60%] of N, by 10%
  to 100%: a step, two steps (the second half as high), or a linear ramp down
  to the steady level at L;
- slowdown: the first L iterations 10% to 30% faster (a step);
- no steady state: a linear drift of 20% to 50% over the whole execution, or a
  step of 10% to 30% inside the last 1/12 of it (too late to be a steady state
  covering the last 1/6);

on top of one of three noise shapes, as Barrett et al. (2017) and Traini et
al. (2022) describe iteration times: normal (CV 0.5% to 2%); bimodal (each
iteration from one of two modes 2% to 5% apart, the second with probability 0.2
to 0.5, CV 0.5% within a mode); and normal with outliers (1% of iterations 1.5
to 5 times slower, as a GC pause or an interrupt makes them). Targets: the
class right in ≥ 95% of executions, the start within 5% of N in ≥ 90% of those
with a steady state.

    python3 validation/warmup.py [--executions 400] [--iterations 3000] [--seed 24]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchlab.stats.warmup import classify_execution  # noqa: E402

KINDS = ("flat", "warm-up", "slowdown", "no steady state")
NOISES = ("normal", "bimodal", "outliers")


def noise(rng: np.random.Generator, shape: str, n: int) -> np.ndarray:
    """Multiplicative noise (around 1) of one execution in the given shape."""
    if shape == "normal":
        return 1.0 + rng.uniform(0.005, 0.02) * rng.standard_normal(n)
    if shape == "bimodal":
        gap, p = rng.uniform(0.02, 0.05), rng.uniform(0.2, 0.5)
        return 1.0 + gap * (rng.random(n) < p) + 0.005 * rng.standard_normal(n)
    out = 1.0 + rng.uniform(0.005, 0.02) * rng.standard_normal(n)
    hit = rng.random(n) < 0.01
    out[hit] *= rng.uniform(1.5, 5.0, hit.sum())
    return out


def execution(rng: np.random.Generator, kind: str, shape: str, n: int
              ) -> tuple[np.ndarray, int | None]:
    """One execution of `kind` and its true steady-state start (None for none)."""
    level = np.full(n, rng.uniform(0.5, 2.0))
    start: int | None = 0
    i = np.arange(n)
    if kind in ("warm-up", "slowdown"):
        start = int(rng.uniform(0.02, 0.6) * n)
        if kind == "slowdown":
            level[:start] *= 1.0 - rng.uniform(0.1, 0.3)
        else:
            a = rng.uniform(0.1, 1.0)
            form = rng.integers(3)
            if form == 0:
                level[:start] *= 1.0 + a
            elif form == 1:
                half = start // 2
                level[:half] *= 1.0 + a
                level[half:start] *= 1.0 + a / 2
            else:
                level[:start] *= 1.0 + a * (1.0 - i[:start] / start)
    elif kind == "no steady state":
        start = None
        if rng.random() < 0.5:
            level *= 1.0 + rng.uniform(0.2, 0.5) * rng.choice([-1, 1]) * i / n
        else:
            at = n - int(rng.uniform(0.02, 1 / 12) * n)
            level[at:] *= 1.0 + rng.uniform(0.1, 0.3) * rng.choice([-1, 1])
    return level * noise(rng, shape, n), start


def run(executions: int, n: int, seed: int) -> dict:
    """Classify `executions` synthetic executions; the tallies and the time taken."""
    rng = np.random.default_rng(seed)
    right = Counter()
    total = Counter()
    near = Counter()
    steady = Counter()
    confusion: Counter = Counter()
    elapsed = 0.0
    for k in range(executions):
        kind, shape = KINDS[k % 4], NOISES[(k // 4) % 3]
        values, start = execution(rng, kind, shape, n)
        t0 = time.perf_counter()
        got = classify_execution(values)
        elapsed += time.perf_counter() - t0
        total[kind, shape] += 1
        right[kind, shape] += got.kind == kind
        confusion[kind, got.kind] += 1
        if start is not None:
            steady[kind, shape] += 1
            near[kind, shape] += (got.steady_start is not None
                                  and abs(got.steady_start - start) <= 0.05 * n)
    return {"right": right, "total": total, "near": near, "steady": steady,
            "confusion": confusion, "seconds": elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=400)
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    r = run(args.executions, args.iterations, args.seed)
    n = args.iterations
    print(f"warmup validation: {args.executions} executions x {n} iterations, "
          f"seed {args.seed}, default settings (penalty 15 log n, steady over the last 1/6, "
          f"threshold 2%)\n")
    print(f"{'class':<16}{'noise':<10}{'executions':>11}{'class right':>13}"
          f"{'start within 5%':>17}")
    for kind in KINDS:
        for shape in NOISES:
            t = r["total"][kind, shape]
            if not t:
                continue
            s = r["steady"][kind, shape]
            near = f"{100 * r['near'][kind, shape] / s:.1f}%" if s else "-"
            print(f"{kind:<16}{shape:<10}{t:>11}{100 * r['right'][kind, shape] / t:>12.1f}%"
                  f"{near:>17}")
    t_all = sum(r["total"].values())
    s_all = sum(r["steady"].values())
    print(f"\nall: class right {100 * sum(r['right'].values()) / t_all:.1f}% (target >= 95%), "
          f"start within 5% of the length {100 * sum(r['near'].values()) / s_all:.1f}% "
          f"of those with a steady state (target >= 90%)")
    print("\nconfusion (true -> found):")
    for (true, got), c in sorted(r["confusion"].items()):
        if true != got:
            print(f"  {true} -> {got}: {c}")
    print(f"\nclassify_execution: {r['seconds']:.2f} s for {args.executions} executions "
          f"({1000 * r['seconds'] / args.executions:.1f} ms each)")


if __name__ == "__main__":
    main()

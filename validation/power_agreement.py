"""`plan --power` against an independent simulation of the same model and analysis.

The quality bar of issue 12: the probabilities `benchlab.stats.power.simulate`
reports are within ±2 percentage points of an independent simulation. The
independent one is written differently on purpose: a plain Python loop over
experiments that draws every measurement level by level (a build effect, a run
effect per run, a noise per measurement, as Kalibera & Jones §8.4 simulate
their hierarchical normal model) and hands each experiment's full data, with
its level columns, to `compare_hierarchical` — the function behind
`benchlab compare --levels` — reading the verdict and the ratio CI it prints.

Design: 6 builds × 3 runs × 4 measurements per system, relative SDs 3% / 4% /
5%; effects 0, +3%, +6% and −6% on the same draws (common random numbers);
threshold 1%. `simulate` runs 200,000 experiments per effect, so the
difference's Monte Carlo error is the loop's: sqrt(p(1−p)/N).

Run
    python3 validation/power_agreement.py                  # 4,000 experiments, ~5 min
    python3 validation/power_agreement.py --experiments 500   # a quick look
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

SDS = (0.03, 0.04, 0.05)
DESIGN = (6, 3, 4)
EFFECTS = (0.0, 0.03, 0.06, -0.06)
THRESHOLD = 0.01


def _system(rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:
    """One system's deviations from its mean, every measurement, with build and run labels."""
    values, builds, runs = [], [], []
    for b in range(DESIGN[0]):
        build_effect = rng.normal(0.0, SDS[0])
        for r in range(DESIGN[1]):
            run_effect = rng.normal(0.0, SDS[1])
            for _ in range(DESIGN[2]):
                values.append(build_effect + run_effect + rng.normal(0.0, SDS[2]))
                builds.append(b)
                runs.append(r)
    return np.array(values), [np.array(builds), np.array(runs)]


def loop(experiments: int, seed: int) -> dict[float, dict[str, float]]:
    from benchlab.stats.compare import compare_hierarchical

    rng = np.random.default_rng(seed)
    counts = {e: {"power": 0, "false_alarm": 0, "change": 0, "equivalent": 0,
                  "inconclusive": 0, "coverage": 0} for e in EFFECTS}
    for _ in range(experiments):
        base, levels_a = _system(rng)
        cand, levels_b = _system(rng)
        for effect in EFFECTS:
            c = compare_hierarchical([("old", 1.0 + base, levels_a),
                                      ("new", (1.0 + effect) + cand, levels_b)],
                                     ["build", "run"], threshold=THRESHOLD,
                                     diagnostics=False).comparisons[0]
            tally = counts[effect]
            tally[c.verdict.outcome] += 1
            truth = "increase" if effect > 0 else "decrease" if effect < 0 else None
            if c.verdict.outcome == "change":
                tally["power" if c.verdict.direction == truth else "false_alarm"] += 1
            r = c.ratio
            tally["coverage"] += r.low is None or r.low <= 1.0 + effect <= r.high
    return {e: {k: v / experiments for k, v in t.items()} for e, t in counts.items()}


def main() -> None:
    from benchlab.stats.power import simulate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    start = time.perf_counter()
    independent = loop(args.experiments, args.seed)
    loop_s = time.perf_counter() - start
    found, _ = simulate([s * s for s in SDS], list(DESIGN), list(EFFECTS), threshold=THRESHOLD,
                        simulations=200_000, seed=args.seed + 1)
    print(f"design {' x '.join(map(str, DESIGN))} per system, relative SD "
          f"{', '.join(f'{100 * s:g}%' for s in SDS)}, threshold {100 * THRESHOLD:g}%")
    print(f"independent loop: {args.experiments} experiments per effect through "
          f"compare_hierarchical ({loop_s:.0f} s); simulate: 200,000 per effect")
    print(f"{'effect':>7} {'quantity':>13} {'simulate':>9} {'loop':>7} {'diff':>7} "
          f"{'MC SE':>6}  within ±2 points")
    worst = 0.0
    for effect, mine in zip(EFFECTS, found, strict=True):
        theirs = independent[effect]
        for key in ("power", "false_alarm", "equivalent", "inconclusive", "coverage"):
            value = getattr(mine, key)
            if value is None:
                continue
            other = theirs[key]
            se = math.sqrt(max(other * (1 - other), 1e-12) / args.experiments)
            diff = other - value
            worst = max(worst, abs(diff))
            print(f"{100 * effect:+6g}% {key:>13} {100 * value:8.2f}% {100 * other:6.2f}% "
                  f"{100 * diff:+6.2f} {100 * se:6.2f}  {'yes' if abs(diff) <= 0.02 else 'NO'}")
    print(f"largest difference: {100 * worst:.2f} points "
          f"({'within' if worst <= 0.02 else 'beyond'} the ±2-point bar)")


if __name__ == "__main__":
    main()

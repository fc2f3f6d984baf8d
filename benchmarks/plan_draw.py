"""Drawing a plan's order: the pure-Python generator against numpy's (issue 26, start-up).

What it measures
    A plan draws one permutation per round from its seed. For plans totalling
    10^2 .. 10^5 elements, in rounds of --round elements (default 10: a quick-mode
    run of two commands and five parameter values), the CPU time to seed a
    generator and draw every round, best of --repeats, in this process:

      python    runner.permutation.Permutations (no numpy)
      numpy     runner.permutation.NumpyPermutations (numpy.random.default_rng and
                Generator.permutation(k).tolist()), numpy already imported

    and numpy's import, `import numpy` timed inside fresh interpreters (median of
    --imports; CPU time and wall time), which a run pays before its first execution
    when its plan is drawn by numpy. numpy's total is import + draw; the crossover is
    where the pure-Python draw costs as much as that, from the per-element costs of
    the largest plan. runner.permutation.NUMPY_FROM should sit near it: below it the
    pure-Python draw is cheaper, above it numpy's.

Run `python3 benchmarks/plan_draw.py` (`--round 10`, `--repeats 5`, `--imports 7`,
`--json`). Figures in docs/run.md (the overhead section).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchlab.runner import permutation  # noqa: E402  (this checkout's, before any install)

TOTALS = (100, 1_000, 10_000, 30_000, 50_000, 100_000)
IMPORT = ("import time; c = time.process_time(); w = time.perf_counter(); import numpy; "
          "print(time.process_time() - c, time.perf_counter() - w)")


def draw_time(make, total: int, size: int, repeats: int) -> float:
    """The best CPU time of seeding `make` and drawing rounds of `size` up to `total`."""
    rounds, rest = divmod(total, size)
    sizes = [size] * rounds + ([rest] if rest else [])
    best = float("inf")
    for seed in range(repeats):
        start = time.process_time()
        rng = make(seed)
        for k in sizes:
            rng.permutation(k)
        best = min(best, time.process_time() - start)
    return best


def numpy_import(count: int) -> tuple[float, float]:
    """The median CPU and wall time of `import numpy` in `count` fresh interpreters."""
    cpu, wall = [], []
    for _ in range(count):
        done = subprocess.run([sys.executable, "-c", IMPORT], capture_output=True, text=True,
                              check=True)
        c, w = map(float, done.stdout.split())
        cpu.append(c)
        wall.append(w)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round", type=int, default=10, help="elements per permutation")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--imports", type=int, default=7, help="fresh interpreters timed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import_cpu, import_wall = numpy_import(args.imports)
    rows = []
    for total in TOTALS:
        python = draw_time(permutation.Permutations, total, args.round, args.repeats)
        drawn = draw_time(permutation.NumpyPermutations, total, args.round, args.repeats)
        rows.append({"elements": total, "python_s": python, "numpy_draw_s": drawn,
                     "numpy_total_s": import_cpu + drawn})
    big = rows[-1]
    per_python = big["python_s"] / big["elements"]
    per_numpy = big["numpy_draw_s"] / big["elements"]
    crossover = (import_cpu / (per_python - per_numpy)) if per_python > per_numpy else None
    result = {"round": args.round, "numpy_import_cpu_s": import_cpu,
              "numpy_import_wall_s": import_wall, "rows": rows,
              "python_us_per_element": per_python * 1e6,
              "numpy_us_per_element": per_numpy * 1e6,
              "crossover_elements": crossover, "threshold": permutation.NUMPY_FROM}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"numpy import (fresh interpreter, median of {args.imports}): "
          f"{import_cpu * 1e3:.1f} ms CPU, {import_wall * 1e3:.1f} ms wall")
    print(f"rounds of {args.round} elements, CPU time, best of {args.repeats}:")
    print(f"{'elements':>9} {'python':>10} {'numpy draw':>11} {'numpy+import':>13}  faster")
    for r in rows:
        faster = "python" if r["python_s"] < r["numpy_total_s"] else "numpy"
        print(f"{r['elements']:>9,} {r['python_s'] * 1e3:>8.2f}ms {r['numpy_draw_s'] * 1e3:>9.2f}"
              f"ms {r['numpy_total_s'] * 1e3:>11.2f}ms  {faster}")
    print(f"per element: python {per_python * 1e6:.2f} us, numpy {per_numpy * 1e6:.2f} us")
    where = f"{crossover:,.0f} elements" if crossover is not None else "never"
    print(f"crossover (python = numpy's import + draw): {where}; "
          f"threshold NUMPY_FROM = {permutation.NUMPY_FROM:,}")


if __name__ == "__main__":
    main()

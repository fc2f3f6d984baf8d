"""Write docs/examples/warmup.csv: two benchmarks x 3 forks x 300 iterations, known shapes.

    python3 docs/examples/make_warmup.py > docs/examples/warmup.csv

Iteration times in ms, drawn with numpy.random.default_rng(24), noise 1.5% (normal),
rounded to 0.001 ms:

- parse: every fork warms up, 40% slower for its first 60, 75 and 90 iterations,
  then 2.00 ms (consistent);
- render: fork 1 flat at 5.0 ms; fork 2 10% faster for its first 120 iterations
  (a slowdown); fork 3 flat until iteration 270, then 15% slower (no steady state:
  the last segment covers fewer than the last 50 iterations, 1/6 of 300).
"""

from __future__ import annotations

import numpy as np

ITERATIONS = 300


def main() -> None:
    rng = np.random.default_rng(24)
    rows = ["benchmark,fork,iteration,time"]

    def fork(bench: str, number: int, level: np.ndarray) -> None:
        values = level * (1.0 + 0.015 * rng.standard_normal(level.size))
        rows.extend(f"{bench},{number},{i + 1},{v:.3f}" for i, v in enumerate(values))

    for number, warm in enumerate((60, 75, 90), start=1):
        level = np.full(ITERATIONS, 2.0)
        level[:warm] *= 1.4
        fork("parse", number, level)
    level = np.full(ITERATIONS, 5.0)
    fork("render", 1, level.copy())
    slow = level.copy()
    slow[:120] *= 0.9
    fork("render", 2, slow)
    late = level.copy()
    late[270:] *= 1.15
    fork("render", 3, late)
    print("\n".join(rows))


if __name__ == "__main__":
    main()

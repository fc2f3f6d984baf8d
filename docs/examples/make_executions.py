"""Write docs/examples/executions.csv: synthetic builds x runs x iterations with known defects.

    python3 docs/examples/make_executions.py > docs/examples/executions.csv

Four systems, each 5 builds x 3 runs (executions) x 10 iterations. Every value
is mean + build effect (sd 2) + run effect (sd 1.5) + iteration noise (sd 1),
drawn with numpy.random.default_rng(4) in the order written, rounded to 0.01:

- steady: mean 50, nothing wrong;
- warmup: mean 49, the first 2 iterations of every execution 6 higher;
- ar1: mean 50, the iteration noise an AR(1) process within each execution
  (phi = 0.8, unit variance), so consecutive iterations are correlated;
- drift: mean 50.5, each execution 0.6 higher than the one before it, in the
  order recorded (a machine that heats up).
"""

from __future__ import annotations

import math

import numpy as np

BUILDS, RUNS, ITERATIONS = 5, 3, 10


def main() -> None:
    rng = np.random.default_rng(4)
    rows = []

    def system(name: str, mean: float, warm: int = 0, phi: float = 0.0,
               drift: float = 0.0) -> None:
        execution = 0
        for build in range(1, BUILDS + 1):
            build_effect = rng.normal(0, 2.0)
            for run in range(1, RUNS + 1):
                run_effect = rng.normal(0, 1.5)
                noise = 0.0
                for iteration in range(1, ITERATIONS + 1):
                    z = rng.normal(0, 1.0)
                    noise = phi * noise + math.sqrt(1 - phi**2) * z if phi else z
                    value = mean + build_effect + run_effect + drift * execution + noise
                    if iteration <= warm:
                        value += 6.0
                    rows.append((name, build, run, iteration, round(value, 2)))
                execution += 1

    system("steady", 50.0)
    system("warmup", 49.0, warm=2)
    system("ar1", 50.0, phi=0.8)
    system("drift", 50.5, drift=0.6)
    print("system,build,run,iteration,value")
    for row in rows:
        print(",".join(map(str, row)))


if __name__ == "__main__":
    main()

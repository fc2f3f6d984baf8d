"""A program whose iterations warm up, for the steady-state examples (docs/warmup.md).

    python3 warming.py ITERATIONS [SCALE]

Prints one line per iteration, "time_ms: <ms>", flushed, about 1 ms apart. The
values are modelled, not measured, so the example shows the same shapes on any
machine: a JIT-like warm-up — the first iterations up to 60% slower, decaying
over a random number of iterations (20 to 120) — then a steady level of SCALE ms
(default 2) with 1% noise; one execution in eight instead keeps drifting
slower, 0.1% per iteration, and never settles.
"""

import os
import random
import sys
import time


def main() -> None:
    iterations = int(sys.argv[1])
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    rng = random.Random(int.from_bytes(os.urandom(8), "little"))
    warm = rng.randint(20, 120)
    drifts = rng.random() < 0.125
    for i in range(iterations):
        slow = 0.6 * max(0.0, 1.0 - i / warm)
        drift = 0.001 * i if drifts else 0.0
        value = scale * (1.0 + slow + drift) * (1.0 + 0.01 * rng.gauss(0.0, 1.0))
        print(f"time_ms: {value:.6f}", flush=True)
        time.sleep(0.001)


if __name__ == "__main__":
    main()

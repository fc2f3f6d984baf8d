"""The workload of examples/experiments/jitter.toml: a square matrix multiplied by itself,
in pure Python, timed in-process (Nogueira et al.'s test program is a matrix multiplication).

    python3 matmul.py N

Prints "time_ms: <ms>" for one product of two N x N matrices (N = 60: about 20 ms).
"""

import sys
import time


def main() -> None:
    n = int(sys.argv[1])
    m = [[(i * n + j) % 7 + 1.0 for j in range(n)] for i in range(n)]
    cols = list(zip(*m, strict=True))
    start = time.perf_counter_ns()
    r = [[sum(a * b for a, b in zip(row, col, strict=True)) for col in cols] for row in m]
    ms = (time.perf_counter_ns() - start) / 1e6
    if r[0][0] <= 0:  # keeps the product from being skipped; never true
        raise SystemExit("bad product")
    print(f"time_ms: {ms:.6f}", flush=True)


if __name__ == "__main__":
    main()

"""A tiny deterministic workload for the example experiments: sum of squares, timed in-process.

    python3 work.py N ITERATIONS [--json]

Prints one line per iteration, "time_ms: <ms>" (or a JSON object {"time_ms": ...}).
The work is a fixed amount of arithmetic (N terms, half as many when the
environment variable HALF is set), so it takes a few ms.
"""

import json
import os
import sys
import time


def main() -> None:
    n, iterations = int(sys.argv[1]), int(sys.argv[2])
    as_json = "--json" in sys.argv[3:]
    if os.environ.get("HALF"):
        n //= 2
    for _ in range(iterations):
        start = time.perf_counter_ns()
        total = 0
        for i in range(n):
            total += i * i
        ms = (time.perf_counter_ns() - start) / 1e6
        print(json.dumps({"time_ms": ms, "checksum": total % 1000}) if as_json
              else f"time_ms: {ms:.6f}", flush=True)


if __name__ == "__main__":
    main()

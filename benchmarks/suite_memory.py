"""Peak memory of a suite's bootstraps against BENCHLAB_MAX_MEMORY_MB (issue 20, item 3).

What it measures
    `benchlab compare SUITE --by system --benchmark benchmark --bootstrap B` on a suite
    of 300 benchmarks × 2 systems × 10 values (means, and `--statistic median`), each in
    a fresh process with BENCHLAB_MAX_MEMORY_MB set to the stated limit: wall time and
    peak RSS (resource.getrusage(RUSAGE_CHILDREN).ru_maxrss, benchmarks/_peak.py),
    beside what stats/suite_memory.suite_bytes counts for it and what the suite held
    before (2 × 300 × B doubles of log-ratios). Then the same with a limit too small
    for B: the refusal's exit status (2) and time. Last, the geometric mean's
    bootstrap alone (stats/suite._mean_geomean) on one benchmark of 2 systems × 3,000
    values, B = 10,000 (in this process, median of 3).

Goal (issue 20, item 3)
    Peak RSS within the limit whatever the number of benchmarks; a suite that cannot
    fit refused in one line (exit 2) before any draw.

Run
    python3 benchmarks/suite_memory.py [--replicates 200000] [--limit 4096] [--json]
    (PYTHONPATH=OTHER_CHECKOUT to measure another version; the issue's B = 2,000,000
    needs 9.3 GB with the code before: do not run that on a shared machine)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _peak import benchlab, measure  # noqa: E402

BENCHMARKS, SYSTEMS, VALUES = 300, 2, 10


def write_suite(path: str) -> None:
    import numpy as np

    rng = np.random.default_rng(1)
    rows = ["benchmark,system,value"]
    for b in range(BENCHMARKS):
        for s, shift in (("base", 0.0), ("cand", 0.01)):
            rows += [f"b{b},{s},{v:.6f}" for v in rng.lognormal(shift, 0.05, VALUES)]
    with open(path, "w") as out:
        out.write("\n".join(rows) + "\n")


def counted_mb(replicates: int, statistic: str) -> float:
    from benchlab.stats.suite_memory import suite_bytes

    return suite_bytes(benchmarks=BENCHMARKS, systems=SYSTEMS, replicates=replicates,
                       bootstrap=replicates, confidence=0.95, statistic=statistic,
                       levels=False) / 2**20


def run(path: str, replicates: int, limit: int, statistic: str) -> dict:
    os.environ["BENCHLAB_MAX_MEMORY_MB"] = str(limit)
    argv = benchlab("compare", path, "--by", "system", "--benchmark", "benchmark",
                    "--bootstrap", str(replicates), "--seed", "1", "--statistic", statistic)
    return measure(argv)


def geomean_seconds(repeats: int = 3) -> float:
    import numpy as np

    from benchlab.stats.suite import _mean_geomean

    rng = np.random.default_rng(1)
    systems = [(name, rng.lognormal(0, 0.1, 3_000), []) for name in ("a", "b")]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        _mean_geomean(systems, None, 10_000, np.random.SeedSequence(1), False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--replicates", type=int, default=200_000)
    parser.add_argument("--limit", type=int, default=4_096, help="BENCHLAB_MAX_MEMORY_MB")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out: dict = {"replicates": args.replicates, "limit_mb": args.limit, "runs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "suite.csv")
        write_suite(path)
        for statistic in ("mean", "median"):
            result = run(path, args.replicates, args.limit, statistic)
            result["counted_mb"] = counted_mb(args.replicates, statistic)
            result["held_before_mb"] = 2 * BENCHMARKS * args.replicates * 8 / 2**20
            out["runs"][statistic] = result
        small = max(1, int(counted_mb(args.replicates, "mean")) // 2)
        refused = run(path, args.replicates, small, "mean")
        out["refused"] = {"limit_mb": small, "code": refused["code"],
                          "seconds": refused["seconds"], "stderr": refused["stderr"].strip()}
    out["geomean_seconds"] = geomean_seconds()
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"suite of {BENCHMARKS} benchmarks × {SYSTEMS} systems × {VALUES} values, "
          f"--bootstrap {args.replicates:,}, BENCHLAB_MAX_MEMORY_MB={args.limit:,}")
    for statistic, r in out["runs"].items():
        verdict = "within" if r["peak_mb"] <= args.limit else "OVER"
        print(f"  {statistic:<7} exit {r['code']}  {r['seconds']:6.1f} s  peak RSS "
              f"{r['peak_mb']:7.0f} MB ({verdict} the limit)  counted {r['counted_mb']:6.0f} MB"
              f"  (log-ratios held before: {r['held_before_mb']:,.0f} MB)")
    r = out["refused"]
    print(f"  limit {r['limit_mb']} MB: exit {r['code']} in {r['seconds']:.2f} s: {r['stderr']}")
    print(f"  geometric mean's bootstrap, 2 × 3,000 values, B = 10,000: "
          f"{out['geomean_seconds']:.2f} s (median of 3)")


if __name__ == "__main__":
    main()

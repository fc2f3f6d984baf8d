"""Reading the 10^6-row latency CSV of benchmarks/qreg.py, and `qreg` on it end to end.

What it measures
    The 2^4 latency design of benchmarks/qreg.py (1,000,000 rows: four ±1
    factor columns, the run and the latency; about 24 MB), written as CSV:

      read      `benchlab.data.readers.read(path, value="y")` in a fresh
                process: the reader alone (time of the read, peak RSS of the
                process with numpy and benchlab imported);
      qreg      `benchlab qreg latency.csv --response y --factors a,b,c,d
                --cluster run --seed 1`: the whole command with 200-replicate
                run-bootstrap CIs at the 10 default quantiles.

    Median of --repeats runs (default 3) each, with the spread.

Goals (issue 15)
    Reading under 0.5 s and 250 MB peak RSS (2.5 s and 1.1 GB before);
    qreg with run-bootstrap CIs under 4 s (8.5 s before).

Run
    python3 benchmarks/read_csv.py [--rows 1000000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _peak import benchlab, median_of, row  # noqa: E402
from qreg import latency_design  # noqa: E402

READ_GOAL_S, READ_GOAL_MB, QREG_GOAL_S = 0.5, 250, 4.0

READ = """
import json, resource, sys, time
from benchlab.data import readers
import numpy
start = time.perf_counter()
data = readers.read(sys.argv[1], value="y")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "rows": len(data),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_csv(path: Path, rows: int) -> None:
    y, codes, run = latency_design(rows)
    table = np.column_stack([np.where(codes == 0, -1, 1), run, y])
    np.savetxt(path, table, delimiter=",", header="a,b,c,d,run,y", comments="",
               fmt=["%d"] * 5 + ["%.6f"])


def read_only(path: Path, repeats: int) -> dict:
    """The reader's own time (imports excluded) and the process's peak RSS."""
    runs = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True,
                              text=True, check=True)
        runs.append(json.loads(done.stdout))
    seconds = [r["seconds"] for r in runs]
    return {"seconds": statistics.median(seconds), "seconds_min": min(seconds),
            "seconds_max": max(seconds), "peak_mb": statistics.median(r["peak_mb"] for r in runs),
            "rows": runs[0]["rows"], "runs": repeats}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "latency.csv"
        write_csv(path, args.rows)
        size_mb = path.stat().st_size / 2**20
        read = read_only(path, args.repeats)
        qreg = median_of(benchlab("qreg", str(path), "--response", "y", "--factors", "a,b,c,d",
                                  "--cluster", "run", "--seed", "1"), args.repeats)
    if args.json:
        print(json.dumps({"read": read, "qreg": qreg, "csv_mb": size_mb}, indent=2))
        return
    print(f"latency CSV, {read['rows']:,} rows ({size_mb:.0f} MB), median of {args.repeats}")
    met = read["seconds"] < READ_GOAL_S and read["peak_mb"] < READ_GOAL_MB
    print(row("read (reader only; RSS of the process)", read,
              f"goal < {READ_GOAL_S} s, < {READ_GOAL_MB} MB ({'met' if met else 'MISSED'})"))
    print(row("qreg, 200-replicate run bootstrap, end to end", qreg,
              f"goal < {QREG_GOAL_S} s ({'met' if qreg['seconds'] < QREG_GOAL_S else 'MISSED'})"))


if __name__ == "__main__":
    main()

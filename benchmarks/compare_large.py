"""`benchlab compare` of two 10^7-value plain files: wall time and peak RSS.

What it measures
    Two files of 10,000,000 lognormal values each (one per line, 6 decimals,
    about 90 MB each, seeded), compared with the default analysis (Fieller's
    ratio CI, difference, diagnostics, plot): the whole command in a fresh
    process, median of --repeats runs (default 3), with the peak resident
    memory of the process (interpreter and imports included).

Goal (issue 15)
    Peak RSS under 1 GB (3.2 GB before the columnar reader; 26–38× the input).

Run
    python3 benchmarks/compare_large.py [--values 10000000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _peak import benchlab, median_of, row  # noqa: E402

GOAL_MB = 1024


def write_values(path: Path, n: int, seed: int, shift: float) -> None:
    """n lognormal values, one per line, written in blocks (the writer stays small)."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as handle:
        for start in range(0, n, 1_000_000):
            block = rng.lognormal(shift, 0.1, min(1_000_000, n - start))
            handle.write("\n".join(f"{v:.6f}" for v in block.tolist()) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--values", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a.txt", Path(tmp) / "b.txt"
        write_values(a, args.values, 1, 0.0)
        write_values(b, args.values, 2, 0.01)
        size_mb = (a.stat().st_size + b.stat().st_size) / 2**20
        result = median_of(benchlab("compare", str(a), str(b)), args.repeats)
    result.update(values=args.values, input_mb=size_mb, goal_peak_mb=GOAL_MB)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"compare of two {args.values:,}-value files ({size_mb:.0f} MB of text), "
          f"median of {args.repeats}")
    print(row("benchlab compare a.txt b.txt", result,
              f"goal: peak < {GOAL_MB} MB ({'met' if result['peak_mb'] < GOAL_MB else 'MISSED'})"))


if __name__ == "__main__":
    main()

"""Peak memory of the bootstrap as B grows: flat but for the replicate statistics.

What it measures
    `bootstrap_ratio` (ratio of means and of medians, as `compare --bootstrap`)
    on two 200-value samples, and `hierarchical_bootstrap_ratio` (RRR) on two
    systems of 5 builds × 4 runs × 10 measurements, with B = 10^4, 10^5 and
    10^6 replicates, each in a fresh process: wall time and peak RSS (small
    samples keep the B = 10^6 runs to seconds; the chunks bound the index
    memory whatever n is).
    Resampling is done in chunks of a fixed number of indices, so the only
    memory that grows with B is the statistics kept for the percentile
    interval: a few arrays of B doubles (the ratio of medians draws its order
    statistics for all B at once, about 7 arrays: 56 bytes per replicate; the
    hierarchical bootstrap keeps each system's statistics and studentized
    SEs, about 8: 64 bytes). The script prints the measured growth per
    replicate beside that figure; an index matrix would cost 8n bytes per
    replicate.

Goal (issue 15)
    Memory that does not grow with B beyond those bytes per replicate (no
    B × n index matrix); B beyond BENCHLAB_MAX_REPLICATES (10^7) is refused.

Run
    python3 benchmarks/bootstrap_memory.py [--repeats 1] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _peak import median_of, python_code, row  # noqa: E402

FLAT = """
import numpy as np
from benchlab.stats.bootstrap import bootstrap_ratio
rng = np.random.default_rng(1)
x, y = rng.lognormal(0, 0.2, 200), rng.lognormal(0.02, 0.2, 200)
g = np.random.default_rng(2)
bootstrap_ratio(x, y, "mean", replicates={b}, rng=g)
bootstrap_ratio(x, y, "median", replicates={b}, rng=g)
"""

HIERARCHICAL = """
import numpy as np
from benchlab.stats.hierarchical_bootstrap import build_tree, hierarchical_bootstrap_ratio
rng = np.random.default_rng(1)
def system(shift):
    build, run = np.repeat(np.arange(5), 40), np.tile(np.repeat(np.arange(4), 10), 5)
    y = np.exp(shift + rng.normal(0, .04, 5)[build] + rng.normal(0, .06, 20)[build * 4 + run]
               + rng.normal(0, .05, build.size))
    return build_tree(y, [build, run])
hierarchical_bootstrap_ratio(system(0), system(.02), replicates={b}, seed=1)
"""

SIZES = (10_000, 100_000, 1_000_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = {}
    for name, code, bound in (("ratio (mean + median)", FLAT, 56),
                              ("hierarchical RRR", HIERARCHICAL, 64)):
        out[name] = {b: median_of(python_code(code.format(b=b)), args.repeats) for b in SIZES}
        out[name]["bytes_per_replicate_bound"] = bound
    if args.json:
        print(json.dumps(out, indent=2))
        return
    for name, results in out.items():
        bound = results.pop("bytes_per_replicate_bound")
        print(f"{name}, median of {args.repeats}")
        for b, result in results.items():
            print(row(f"B = {b:,}", result))
        low, high = results[SIZES[0]], results[SIZES[-1]]
        per = (high["peak_mb"] - low["peak_mb"]) * 2**20 / (SIZES[-1] - SIZES[0])
        print(f"  growth: {per:.0f} bytes per replicate (arrays of B doubles: about {bound}; "
              "an index matrix: 8n = 1,600)")


if __name__ == "__main__":
    main()

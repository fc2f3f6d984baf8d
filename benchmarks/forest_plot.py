"""Wall time of the forest plot of a 50-benchmark suite (`compare --plot` on a suite).

What it measures
    `benchlab.report.figures.write_figure` of a 50-benchmark suite (two systems,
    10 lognormal values each, seeded; the suite analysed once beforehand with 500
    bootstrap replicates) to an SVG and then to a PNG, in-process (matplotlib
    imported and warmed up by one untimed round first); median, min and max of
    --repeats rounds (default 5).

Goal
    Under 5 s for the SVG and PNG together (tests/report/test_figures.py checks that
    the plot lists every benchmark; its time is measured here, not asserted there,
    because a loaded machine stretches it).

Run
    python3 benchmarks/forest_plot.py            # table
    python3 benchmarks/forest_plot.py --json     # the same figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

try:
    import benchlab  # noqa: F401
except ImportError:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchlab.report.figures import write_figure
from benchlab.stats.suite import compare_suite

GOAL_S = 5.0
BENCHMARKS = 50


def suite(benchmarks: int = BENCHMARKS, seed: int = 20240607):
    """The suite tests/report/test_figures.py plots: lognormal means, 3% noise, 10 values."""
    rng = np.random.default_rng(seed)
    data = {}
    for b in range(benchmarks):
        m = float(rng.lognormal(-5, 1))
        name = f"BenchmarkParse/size={2 ** (b % 20)}/case_{b}"
        data[name] = [("old", rng.normal(m, 0.03 * m, 10), []),
                      ("new", rng.normal(m * rng.normal(1, 0.03), 0.03 * m, 10), [])]
    return compare_suite(data, [], baseline="old", threshold=0.02, replicates=500, seed=3)


def one_round(result, folder: str) -> tuple[float, float]:
    """Seconds to write the SVG, then the PNG."""
    start = time.perf_counter()
    write_figure(result, os.path.join(folder, "suite.svg"))
    middle = time.perf_counter()
    write_figure(result, os.path.join(folder, "suite.png"))
    return middle - start, time.perf_counter() - middle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = suite()
    with tempfile.TemporaryDirectory() as folder:
        one_round(result, folder)  # warm-up: matplotlib's import and font cache
        rounds = [one_round(result, folder) for _ in range(args.repeats)]
    total = [svg + png for svg, png in rounds]
    figures = {
        "benchmarks": BENCHMARKS, "repeats": args.repeats, "goal_s": GOAL_S,
        "svg_median_s": statistics.median(r[0] for r in rounds),
        "png_median_s": statistics.median(r[1] for r in rounds),
        "total_median_s": statistics.median(total), "total_min_s": min(total),
        "total_max_s": max(total), "met": statistics.median(total) < GOAL_S,
        "load_1min": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"forest plot of a {BENCHMARKS}-benchmark suite, median of {args.repeats} rounds "
          f"(load {figures['load_1min']:.1f})")
    print(f"  SVG   {figures['svg_median_s']:.3f} s")
    print(f"  PNG   {figures['png_median_s']:.3f} s")
    print(f"  both  {figures['total_median_s']:.3f} s (min {figures['total_min_s']:.3f}, "
          f"max {figures['total_max_s']:.3f}); goal under {GOAL_S:g} s: "
          f"{'met' if figures['met'] else 'missed'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

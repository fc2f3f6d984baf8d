"""Time and size of `benchlab report` for a 50-benchmark suite.

What it measures
    A suite of 50 benchmarks × 2 systems × 10 measurements, in two forms:

      store   a real `benchlab run` store (an experiment whose factor `bench`
              has 50 levels; each trial is a tiny Python process printing 5
              seeded values, 1 warm-up iteration, 2 executions per cell), so the
              report also draws 50 run-order plots and the environment record;
      csv     the same shape as a CSV table (bench, system, value).

    For each, the wall time of the whole command (`python3 -m benchlab report
    ... -o FILE`, a fresh process: start-up, reading, the suite comparison
    with its bootstrap, the figures, writing) as the median of --repeats runs,
    with and without `--no-figures`, and the size of the file written.

    The figures alone, in this process (issue 22): a CSV suite of 50
    benchmarks from 1 µs to 1 s × 2 systems × N values (N = 10 and 3,000) is
    analysed once, then the page is built with and without figures: the
    difference is what the figures cost (the forest plot and 50 distribution
    panels: density, 150 dots per sample, mean with CI), as CPU time (what
    other load does not change) and wall time, median of --repeats, beside
    the page's size. For comparison, the same 50 panels drawn each on a new
    matplotlib figure instead of the one reused figure.

Goals
    Issue 11: the report of a 50-benchmark suite store renders in under 3 s
    and is under 3 MB. Issue 22: the figures of 50 benchmarks × 3,000 values
    cost under 2 s of CPU.

Run
    python3 benchmarks/report.py            # table
    python3 benchmarks/report.py --json     # the same figures as JSON
    python3 benchmarks/report.py --repeats 5
    python3 benchmarks/report.py --figures-only

Timings are wall-clock on a shared machine: other load adds noise; the
minimum and maximum of the runs are printed beside the median.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS, SYSTEMS, VALUES = 50, ("old", "new"), 10
GOAL_SECONDS, GOAL_BYTES = 3.0, 3_000_000
GOAL_FIGURES_CPU = 2.0  # s of CPU for the figures of 50 benchmarks x 3,000 values

# One trial: 5 values around the benchmark's level (the new system 2% lower), seeded by
# the OS so every execution differs; {{ }} are literal braces in an experiment file.
_TRIAL = ("import os,random;r=random.Random(os.urandom(8));"
          "[print('time_ms: %.5f' % ({bench}*{factor}*r.gauss(1,0.03))) "
          "for _ in range({iterations})]")


def _experiment(path: str) -> None:
    levels = ", ".join(str(b) for b in range(1, BENCHMARKS + 1))
    alternatives = "".join(
        f'\n[alternatives.{name}]\ncommand = ["{sys.executable}", "-S", "-c", '
        f'"{_TRIAL.replace("{factor}", factor)}"]\n'
        for name, factor in (("old", "1"), ("new", "0.98")))
    with open(path, "w") as handle:
        handle.write(f'name = "suite50"\nseed = 11\norder = "interleaved-random"\nbuilds = 1\n'
                     f'executions = 2\niterations = 5\ntimeout = "20s"\nbaseline = "old"\n\n'
                     f'[warmup]\niterations = 1\n\n[measure]\n'
                     f"regex = 'time_ms: (?P<time_ms>[0-9.eE+-]+)'\nunit = \"ms\"\n\n"
                     f"[factors]\nbench = [{levels}]\n{alternatives}")


def _csv(path: str) -> None:
    rng = random.Random(11)
    with open(path, "w") as handle:
        handle.write("bench,system,value\n")
        for b in range(1, BENCHMARKS + 1):
            for system, factor in zip(SYSTEMS, (1.0, 0.98), strict=True):
                for _ in range(VALUES):
                    handle.write(f"b{b:02d},{system},{b * factor * rng.gauss(1, 0.03):.5f}\n")


def _benchlab(*args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchlab", *args], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _measure(name: str, args: list[str], out: str, repeats: int) -> list[dict]:
    rows = []
    for figures in (True, False):
        extra = [] if figures else ["--no-figures"]
        times = [_benchlab("report", *args, *extra, "-o", out, "--force")
                 for _ in range(repeats)]
        rows.append({"input": name, "figures": figures, "median_s": statistics.median(times),
                     "min_s": min(times), "max_s": max(times), "bytes": os.path.getsize(out),
                     "runs": repeats})
    return rows


def _wide_csv(path: str, values: int) -> None:
    """50 benchmarks whose means run from 1 µs to 1 s (lognormal, 4% spread; the new
    system 3% faster), `values` per system, seeded."""
    import numpy as np

    rng = np.random.default_rng(22)
    with open(path, "w") as handle:
        handle.write("bench,system,value\n")
        for b, mean in enumerate(np.geomspace(1e-6, 1.0, BENCHMARKS)):
            for system, factor in zip(SYSTEMS, (1.0, 0.97), strict=True):
                handle.writelines(f"b{b:02d},{system},{v:.6g}\n"
                                  for v in mean * factor * rng.lognormal(0, 0.04, values))


def _timed(work, repeats: int) -> tuple[float, float, object]:
    """Median CPU and wall seconds of `work()` over `repeats` calls, and its last result."""
    cpu, wall, out = [], [], None
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        out = work()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall), out


def _figure_cost(tmp: str, values: int, repeats: int) -> dict:
    """What the figures add to building the page, in this process, at `values` per sample."""
    from dataclasses import replace

    sys.path.insert(0, ROOT)
    from benchlab.cli import report
    from benchlab.cli.main import build_parser
    from benchlab.report.figures.distribution import Panels
    from benchlab.report.html_page import build_page

    table = os.path.join(tmp, f"wide{values}.csv")
    _wide_csv(table, values)
    args = build_parser().parse_args([
        "report", table, "--by", "system", "--value", "value", "--benchmark", "bench",
        "--unit", "s", "--seed", "1", "--no-diagnostics", "-o", os.path.join(tmp, "x")])
    page, context = report.analyse(args)
    build_page(page, context)  # matplotlib's import and fonts, once
    bare_cpu, bare_wall, bare = _timed(
        lambda: build_page(replace(page, figures=False), context), repeats)
    cpu, wall, full = _timed(lambda: build_page(page, context), repeats)
    items = page.result.benchmarks

    def fresh() -> None:  # a new Panels (so a new figure) per benchmark
        for bench, r in items:
            with Panels() as panels:
                panels.svg(r, page.samples[bench], "b")

    def reused() -> None:
        with Panels() as panels:
            for bench, r in items:
                panels.svg(r, page.samples[bench], "b")

    reuse_cpu, _, _ = _timed(reused, repeats)
    fresh_cpu, _, _ = _timed(fresh, repeats)
    return {"values": values, "benchmarks": len(items),
            "figures_cpu_s": cpu - bare_cpu, "figures_wall_s": wall - bare_wall,
            "panels_cpu_s": reuse_cpu, "panels_new_figure_each_cpu_s": fresh_cpu,
            "page_bytes": len(full.encode()), "page_bytes_no_figures": len(bare.encode()),
            "runs": repeats, "met": values < 3000 or cpu - bare_cpu < GOAL_FIGURES_CPU}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--figures-only", action="store_true",
                        help="only the in-process cost of the figures")
    args = parser.parse_args()
    rows, made = [], None
    with tempfile.TemporaryDirectory() as tmp:
        figures = [_figure_cost(tmp, n, args.repeats) for n in (10, 3000)]
        if not args.figures_only:
            toml, store = os.path.join(tmp, "suite50.toml"), os.path.join(tmp, "suite50.db")
            _experiment(toml)
            made = _benchlab("run", toml, "-o", store, "--quiet")
            table = os.path.join(tmp, "suite50.csv")
            _csv(table)
            out = os.path.join(tmp, "report.html")
            suite = ["--benchmark", "bench", "--seed", "1"]
            rows = _measure("store", [store, "--by", "alternative", *suite], out, args.repeats)
            rows += _measure("csv", [table, "--by", "system", "--value", "value", *suite],
                             out, args.repeats)
    for row in rows:
        row["met"] = row["median_s"] < GOAL_SECONDS and row["bytes"] < GOAL_BYTES
    if args.json:
        print(json.dumps({"store_made_s": made, "goal_s": GOAL_SECONDS,
                          "goal_bytes": GOAL_BYTES, "goal_figures_cpu_s": GOAL_FIGURES_CPU,
                          "rows": rows, "figures": figures}, indent=2))
        return 0
    if rows:
        print(f"benchlab report of a {BENCHMARKS}-benchmark suite ({len(SYSTEMS)} systems x "
              f"{VALUES} values; store made by `benchlab run` in {made:.1f} s)")
        print(f"{'input':<7}{'figures':<9}{'median s':>10}{'min s':>8}{'max s':>8}"
              f"{'size':>11}  goal (< {GOAL_SECONDS:g} s, < {GOAL_BYTES / 1e6:g} MB)")
        for r in rows:
            print(f"{r['input']:<7}{'yes' if r['figures'] else 'no':<9}{r['median_s']:>10.2f}"
                  f"{r['min_s']:>8.2f}{r['max_s']:>8.2f}{r['bytes'] / 1e6:>8.2f} MB  "
                  f"{'met' if r['met'] else 'MISSED'}")
        print()
    print(f"the figures of {BENCHMARKS} benchmarks from 1 µs to 1 s (in this process, median "
          f"of {args.repeats}; goal at 3000 values: < {GOAL_FIGURES_CPU:g} s CPU)")
    print(f"{'values':>7}{'CPU s':>8}{'wall s':>8}{'panels CPU s':>14}"
          f"{'new figure each':>17}{'page MB':>9}{'w/o figures':>13}")
    for r in figures:
        print(f"{r['values']:>7}{r['figures_cpu_s']:>8.2f}{r['figures_wall_s']:>8.2f}"
              f"{r['panels_cpu_s']:>14.2f}{r['panels_new_figure_each_cpu_s']:>17.2f}"
              f"{r['page_bytes'] / 1e6:>9.2f}{r['page_bytes_no_figures'] / 1e6:>13.2f}  "
              f"{'met' if r['met'] else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

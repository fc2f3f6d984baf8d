"""`benchlab history check` on 100 benchmarks × 1,000 commits × 5 runs, and `history add`
of one commit's results to that 1,000-commit store (issue 14).

What it measures
    A history of BENCHMARKS series of COMMITS commits with RUNS runs each (a
    measurement is level × (1 + commit effect) × (1 + run noise), 1% noise as in
    validation/history_changepoints.py; every fifth series has a 5% step), built
    once with the store API (History.add of all commits in one transaction), then:

      check   `benchlab history check --db FILE --format json` in a fresh process
              (imports, reading the store, E-Divisive on every series and the
              ratio CI of every candidate);
      add     `benchlab history add one-commit.csv --by benchmark --value time
              --levels run --db FILE --commit NEW` in a fresh process: one more
              commit's 100 × 5 results into the 1,000-commit store, each time
              into a fresh copy of it.

    Median of --repeats runs (default 3) each, with the spread; the in-process
    time of the check alone (no start-up) beside it; for check also the CPU time
    (user + sys), which a loaded machine does not stretch as it does the wall time.

Goals (issue 14)
    check under 10 s; add under 0.5 s.

Run
    python3 benchmarks/history.py [--benchmarks 100] [--commits 1000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.history.store import CommitResults, History, SeriesData  # noqa: E402

RUNS = 5


def build(path: str, benchmarks: int, commits: int, seed: int = 1) -> None:
    """The simulated history at `path` (1% noise; a 5% step in every fifth series)."""
    rng = np.random.default_rng(seed)
    level = np.ones((benchmarks, commits))
    for b in range(0, benchmarks, 5):
        level[b, rng.integers(commits // 4, 3 * commits // 4):] *= 1.05
    values = (level * (1 + rng.normal(0, 0.006, (benchmarks, commits))))[..., None] \
        * (1 + rng.normal(0, 0.008, (benchmarks, commits, RUNS)))
    runs = np.arange(RUNS).astype(str)
    out = []
    for c in range(commits):
        series = tuple(SeriesData(f"bench{b:03d}", "time", "default", "s", False, ("run",),
                                  values[b, c], (runs,)) for b in range(benchmarks))
        out.append(CommitResults(f"c{c:05d}", None, None, series))
    with History.open_or_create(path) as h:
        h.add(out)


def one_commit_csv(path: str, benchmarks: int) -> None:
    rng = np.random.default_rng(7)
    lines = ["benchmark,run,time"]
    for b in range(benchmarks):
        lines += [f"bench{b:03d},{r},{1 + rng.normal(0, 0.01):.6f}" for r in range(RUNS)]
    Path(path).write_text("\n".join(lines) + "\n")


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall time of the command and its CPU time (user + sys of the child, from rusage):
    on a loaded machine the wall time waits for the cores, the CPU time does not."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def in_process_check(path: str) -> tuple[float, float, float, int]:
    """Wall time of reading the store and of the analysis, the analysis' CPU time (this
    process), and the changes reported."""
    from benchlab.history.check import check

    start = time.perf_counter()
    with History.open(path) as h:
        commits, series = h.commits(), h.series()
    loaded = time.perf_counter()
    cpu = time.process_time()
    result = check(series, commits)
    cpu = time.process_time() - cpu
    done = time.perf_counter()
    return loaded - start, done - loaded, cpu, len(result.changes)


def summary(times: list[float]) -> dict:
    return {"median": statistics.median(times), "min": min(times), "max": max(times)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--benchmarks", type=int, default=100)
    p.add_argument("--commits", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="benchlab-history-")
    try:
        db = os.path.join(tmp, "history.db")
        start = time.perf_counter()
        build(db, args.benchmarks, args.commits)
        built = time.perf_counter() - start
        csv = os.path.join(tmp, "one.csv")
        one_commit_csv(csv, args.benchmarks)
        cli = [sys.executable, "-m", "benchlab"]
        check, check_cpu = zip(*[timed([*cli, "history", "check", "--db", db, "--format",
                                        "json"]) for _ in range(args.repeats)], strict=True)
        load, analyse, analyse_cpu, changes = in_process_check(db)
        add = []
        for i in range(args.repeats):
            copy = os.path.join(tmp, f"copy{i}.db")
            shutil.copy(db, copy)
            add.append(timed([*cli, "history", "add", csv, "--by", "benchmark", "--value",
                              "time", "--levels", "run", "--unit", "s", "--db", copy,
                              "--commit", "new"])[0])
        doc = {"benchmarks": args.benchmarks, "commits": args.commits, "runs": RUNS,
               "build_s": built, "db_mb": os.path.getsize(db) / 1e6,
               "check_s": summary(list(check)), "check_cpu_s": summary(list(check_cpu)),
               "check_load_s": load, "check_analysis_s": analyse,
               "check_analysis_cpu_s": analyse_cpu, "load_average": os.getloadavg()[0],
               "changes": changes, "expected_changes": len(range(0, args.benchmarks, 5)),
               "add_s": summary(add)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(doc, indent=2))
        return
    c, a = doc["check_s"], doc["add_s"]
    print(f"history of {args.benchmarks} benchmarks x {args.commits} commits x {RUNS} runs "
          f"({doc['db_mb']:.0f} MB, built in {built:.1f} s)")
    u = doc["check_cpu_s"]
    print(f"check: {c['median']:.2f} s ({c['min']:.2f}-{c['max']:.2f}), CPU {u['median']:.2f} s "
          f"({u['min']:.2f}-{u['max']:.2f}); in process: reading {load:.2f} s, analysis "
          f"{analyse:.2f} s (CPU {analyse_cpu:.2f} s); {changes} changes reported, "
          f"{doc['expected_changes']} simulated; goal < 10 s; load average "
          f"{doc['load_average']:.1f}")
    print(f"add:   {a['median']:.2f} s ({a['min']:.2f}-{a['max']:.2f}); goal < 0.5 s")


if __name__ == "__main__":
    main()

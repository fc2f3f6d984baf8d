"""Per-execution overhead of the runner on `true`, beside hyperfine's.

What it measures
    `true` does nothing, so what a tool reports for it is the tool's own cost
    of spawning, waiting for and timing a process — its measurement floor —
    and what it spends per execution overall (reading output, bookkeeping,
    storing) bounds how many executions per second it can run.

      hyperfine    `hyperfine -N --runs N --warmup 3 --export-json F true`
                   (-N: no intermediate shell): its reported time per run,
                   and the wall time of the whole invocation / N.
      execute      benchlab.runner.execute.run_process(["true"]) N times in
                   this process: the reported wall time per execution, and
                   the loop's wall time / N.
      benchlab run `python -m benchlab run` of an experiment with N
                   executions of `true`: the wall times recorded in the store,
                   and the whole invocation's wall time / N (start-up and the
                   environment check included, one SQLite commit per execution).

    The three run in --rounds interleaved rounds (default 5) of N = --runs
    executions (default 300) each, so drifting machine load hits them alike;
    the table gives the median over every execution, and the quartiles.

Timer
    benchlab times an execution with time.perf_counter_ns() (CLOCK_MONOTONIC,
    resolution printed below, 1 ns on Linux) from just before the spawn to just
    after wait4 reaps the child; hyperfine uses Rust's Instant (also
    CLOCK_MONOTONIC) around spawn and wait.

Goal (from the issue)
    benchlab's median per-execution time on `true` no more than hyperfine's.

Run
    python3 benchmarks/runner_overhead.py            # table
    python3 benchmarks/runner_overhead.py --json     # the same figures as JSON
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.runner.execute import run_process  # noqa: E402


def hyperfine(runs: int, tmp: Path) -> tuple[list[float], float]:
    out = tmp / "h.json"
    start = time.perf_counter()
    subprocess.run(["hyperfine", "-N", "--runs", str(runs), "--warmup", "3", "--export-json",
                    str(out), "--style", "none", "true"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = time.perf_counter() - start
    times = json.loads(out.read_text())["results"][0]["times"]
    return [float(t) for t in times], total / runs


def execute(runs: int) -> tuple[list[float], float]:
    for _ in range(3):
        run_process(["true"])
    start = time.perf_counter()
    walls = [run_process(["true"]).wall for _ in range(runs)]
    return walls, (time.perf_counter() - start) / runs


def benchlab_run(runs: int, tmp: Path, k: int) -> tuple[list[float], float]:
    exp = tmp / f"true{k}.toml"
    exp.write_text(f"seed = 1\nexecutions = {runs}\n[warmup]\nexecutions = 3\n"
                   "[alternatives.true]\ncommand = [\"true\"]\n")
    db = tmp / f"true{k}.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchlab", "run", str(exp), "-o", str(db),
                    "--quiet"], check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    total = time.perf_counter() - start
    conn = sqlite3.connect(db)
    walls = [r[0] for r in conn.execute("SELECT wall FROM trials WHERE warmup = 0")]
    conn.close()
    return walls, total / runs


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if shutil.which("hyperfine") is None:
        print("hyperfine is not installed (Debian: apt install hyperfine)", file=sys.stderr)
        return 2
    samples: dict[str, list[float]] = {"hyperfine": [], "execute": [], "benchlab run": []}
    per_exec: dict[str, list[float]] = {k: [] for k in samples}
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for k in range(args.rounds):
            for name in np.random.default_rng(k).permutation(list(samples)):
                if name == "hyperfine":
                    walls, per = hyperfine(args.runs, tmp)
                elif name == "execute":
                    walls, per = execute(args.runs)
                else:
                    walls, per = benchlab_run(args.runs, tmp, k)
                samples[name].extend(walls)
                per_exec[name].append(per)
    resolution = time.get_clock_info("perf_counter").resolution
    doc = {"runs_per_round": args.runs, "rounds": args.rounds,
           "timer": "time.perf_counter_ns (CLOCK_MONOTONIC)", "timer_resolution_s": resolution,
           "tools": {}}
    for name, walls in samples.items():
        q1, med, q3 = np.percentile(walls, [25, 50, 75])
        doc["tools"][name] = {"median_reported_s": med, "q1_s": q1, "q3_s": q3,
                              "median_wall_per_execution_s": float(np.median(per_exec[name]))}
    base = doc["tools"]["hyperfine"]["median_reported_s"]
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"`true`, {args.rounds} rounds x {args.runs} executions; timer resolution "
          f"{resolution:g} s")
    print(f"{'tool':<14}{'reported time: median':>22}{'(quartiles)':>22}{'vs hyperfine':>14}"
          f"{'wall per execution':>20}")
    for name, t in doc["tools"].items():
        print(f"{name:<14}{t['median_reported_s'] * 1e6:>19.0f} µs"
              f"{t['q1_s'] * 1e6:>12.0f} .. {t['q3_s'] * 1e6:<6.0f}µs"
              f"{t['median_reported_s'] / base:>12.2f}x"
              f"{t['median_wall_per_execution_s'] * 1e6:>17.0f} µs")
    goal = doc["tools"]["benchlab run"]["median_reported_s"] <= base
    print(f"goal (benchlab's median on `true` <= hyperfine's): {'met' if goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What `benchlab bisect` costs beyond the executions and builds themselves (issue 25).

What it measures
    search   a bisect of a generated 1,000-commit history (validation/bisect_repo.py)
             in-process, with executions that cost nothing (each a draw of 1 or
             1.2 times a level with 1% noise: the search decides at the first
             look) and builds not made: the wall and CPU time of everything else
             (the store's commit per execution, the decisions, git's subjects and
             the commit list), per execution and per step;
    decide   one look's decision alone (stats/bisect.check_side on 3 x 10 values);
    build    a worktree made for a commit and an empty build command run in it
             (git worktree add + /bin/sh -c true), and the same commit's cached
             build found again.

    Median of --repeats runs with the range. The executions a real step runs
    (3 commits x 5 to --max-runs each) cost far more than this on any real
    benchmark; the figure says what a step adds to them.

Run
    python3 benchmarks/bisect_overhead.py [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "validation"))

import bisect_repo  # noqa: E402
from bisect_accuracy import NoBuilds  # noqa: E402

from benchlab.runner import git_builds  # noqa: E402
from benchlab.runner.bisect import Search, Settings, Timing  # noqa: E402
from benchlab.runner.bisect_store import BisectStore  # noqa: E402
from benchlab.stats import bisect as decide  # noqa: E402


def search_once(repo: str, commits: list[str], folder: str, seed: int) -> dict:
    culprit = 1 + seed * 37 % (len(commits) - 2)
    level = {sha: (1.2 if k >= culprit else 1.0) for k, sha in enumerate(commits)}
    draw = np.random.default_rng(seed)

    def timer(sha: str, tree: str) -> Timing:
        return Timing(level[sha] * (1.0 + 0.01 * float(draw.standard_normal())), 0.0, 0.0, 0)

    settings = Settings(repo=repo, good=commits[0], bad=commits[-1], build="none",
                        command="none", seed=seed)
    path = os.path.join(folder, f"s{seed}.db")
    wall, cpu = time.perf_counter(), time.process_time()
    store = BisectStore.create(path, settings.document())
    try:
        result = Search(settings, store, folder, builder=NoBuilds(set()), timer=timer).run()
    finally:
        store.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert result.culprit == commits[culprit], "the search missed a 20% step at 1% noise"
    steps = sum(1 for s in result.steps if s.executions)
    return {"wall": wall, "cpu": cpu, "executions": result.executions, "steps": steps}


def decide_once() -> float:
    rng = np.random.default_rng(1)
    good, mid, bad = (rng.normal(m, 0.01, 10) for m in (1.0, 1.0, 1.2))
    n = 200
    started = time.perf_counter()
    for _ in range(n):
        decide.check_side(good, mid, bad, 0.999, 0.02, slower=True)
    return (time.perf_counter() - started) / n


def build_once(repo: str, sha: str, folder: str) -> tuple[float, float]:
    builder = git_builds.Builder(repo, folder, "true")
    started = time.perf_counter()
    assert builder.build(sha).ok
    made = time.perf_counter() - started
    started = time.perf_counter()
    assert builder.build(sha).cached
    return made, time.perf_counter() - started


def summary(values: list[float]) -> dict:
    return {"median": float(np.median(values)), "low": float(min(values)),
            "high": float(max(values))}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    folder = tempfile.mkdtemp(prefix="bisect-overhead-")
    try:
        repo = os.path.join(folder, "repo")
        commits = bisect_repo.make_repo(repo, commits=1000, culprit=None)
        runs = [search_once(repo, commits, folder, seed) for seed in range(args.repeats)]
        per_exec = [r["wall"] / r["executions"] for r in runs]
        per_step = [r["wall"] / r["steps"] for r in runs]
        cpu_exec = [r["cpu"] / r["executions"] for r in runs]
        looks = [decide_once() for _ in range(args.repeats)]
        builds = [build_once(repo, commits[k], os.path.join(folder, "cache"))
                  for k in range(1, args.repeats + 1)]
        out = {"load": os.getloadavg()[0],
               "search_wall_s": summary([r["wall"] for r in runs]),
               "executions": summary([r["executions"] for r in runs]),
               "steps": summary([r["steps"] for r in runs]),
               "per_execution_ms": summary([1e3 * x for x in per_exec]),
               "per_execution_cpu_ms": summary([1e3 * x for x in cpu_exec]),
               "per_step_ms": summary([1e3 * x for x in per_step]),
               "decision_ms": summary([1e3 * x for x in looks]),
               "build_ms": summary([1e3 * b[0] for b in builds]),
               "cached_build_ms": summary([1e3 * b[1] for b in builds])}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"load average {out['load']:.1f}; median (range) of {args.repeats} runs")
    for key, label in (("search_wall_s", "search of 1,000 commits, wall s"),
                       ("executions", "  executions"), ("steps", "  steps"),
                       ("per_execution_ms", "  per execution, wall ms"),
                       ("per_execution_cpu_ms", "  per execution, CPU ms"),
                       ("per_step_ms", "  per step, wall ms"),
                       ("decision_ms", "one look's decision, ms"),
                       ("build_ms", "worktree + empty build, ms"),
                       ("cached_build_ms", "cached build found, ms")):
        v = out[key]
        print(f"{label:<34} {v['median']:10.3f}  ({v['low']:.3f} .. {v['high']:.3f})")


if __name__ == "__main__":
    main()

"""`benchlab bisect` on real repositories, built by cc and executed here (issue 25's done-when).

Each trial generates a git repository (validation/bisect_repo.py) of N commits with a C
program whose loop count grows by δ at one commit drawn uniformly from 1 .. N−1; every
other commit changes unrelated code (extra.c's own loop of k iterations: a few
instructions per commit) and one commit drawn among the others (not the first, not the
last) does not compile. The command itself (`python3 -m benchlab bisect`, a process of
its own) bisects it from the first commit to the last:

1. **Counted instructions**: `--metric instructions --counter cachegrind --runs 2`
   (each execution under Valgrind; the program linked statically, so Valgrind starts in
   about 0.05 s of CPU time), the default threshold (2%) and confidence (95%). Rows:
   32 and 64 commits, δ = 5% and 3%, and A/A repositories (δ = 0).
2. **Wall time** (`--wall K`): K trials of 32 commits, δ = 5%, the program a short loop
   (2 ms), bisect's defaults (`--metric wall`, 5 to 100 executions of each), to show what
   wall time gives on this machine at its load.
3. **A real kill** (`--kill`): one 32-commit bisect by counts is run whole, then again
   into a new store (same seed, builds cached) and killed with SIGKILL once its store
   holds a third of the first run's executions; `--resume` must give the same culprit,
   steps and executions.

Reported per row: trials, the culprit named exactly, a wrong commit, the culprit among
commits left around a skipped (broken) parent, no culprit, mean and largest builds per
bisect (commits built, the failed one included) against log2(N) + 2, executions, steps,
steps decided after their first look, and seconds per bisect.

    nice -n 10 python3 validation/bisect_real.py [--trials 20] [--wall 3] [--kill]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))

import bisect_repo  # noqa: E402

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
COUNTED = ("--metric", "instructions", "--counter", "cachegrind", "--runs", "2")
LOOPS_COUNTED = 200_000  # about 1.24 M instructions with the static program's start
LOOPS_WALL = 2_000_000  # about 2 ms


def argv(repo: str, shas: list[str], cache: str, build: str, seed: int,
         more: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-m", "benchlab", "bisect", "--repo", repo, "--good", shas[0],
            "--bad", shas[-1], "--build", build, "--command", bisect_repo.COMMAND,
            "--cache", cache, "--seed", str(seed), "--json", *more]


def run(command: list[str]) -> tuple[dict, float]:
    """The bisect's JSON document and its wall seconds; SystemExit when it failed."""
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, env=ENV)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"bisect failed (exit {done.returncode}): {done.stderr}")
    return json.loads(done.stdout), seconds


def outcome(doc: dict, truth: str | None) -> str:
    """right, wrong, range (the culprit among the commits left around skipped builds or an
    undecided step), none (no culprit: no change or inconclusive ends)."""
    if doc["culprit"] is not None:
        return "right" if doc["culprit"] == truth else "wrong"
    if doc["status"] in ("skipped", "ambiguous"):
        return "range" if truth in doc["candidates"] else "wrong"
    return "none"


def repository(folder: str, name: str, commits: int, effect: float, loops: int,
               rng: np.random.Generator) -> tuple[str, list[str], int | None, int]:
    """A new repository: (path, SHAs, the culprit's index or None, the broken index)."""
    culprit = int(rng.integers(1, commits)) if effect else None
    others = [k for k in range(1, commits - 1) if k != culprit]
    broken = int(rng.choice(others))
    path = os.path.join(folder, name)
    shas = bisect_repo.make_repo(path, commits=commits, culprit=culprit, loops=loops,
                                 factor=1.0 + effect, broken=(broken,), unrelated=True)
    return path, shas, culprit, broken


def row(folder: str, commits: int, effect: float, trials: int, seed: int, wall: bool
        ) -> dict:
    rng = np.random.default_rng(seed)
    out: dict = {"right": 0, "wrong": 0, "range": 0, "none": 0, "builds": [],
                 "executions": [], "steps": [], "late": 0, "seconds": [], "misses": []}
    for trial in range(trials):
        name = f"r{seed}-{trial}"
        repo, shas, culprit, broken = repository(
            folder, name, commits, effect, LOOPS_WALL if wall else LOOPS_COUNTED, rng)
        cache = os.path.join(folder, name + "-cache")
        build = bisect_repo.BUILD if wall else bisect_repo.BUILD_STATIC
        doc, seconds = run(argv(repo, shas, cache, build, trial, () if wall else COUNTED))
        truth = shas[culprit] if culprit is not None else None
        said = outcome(doc, truth)
        out[said] += 1
        if said != ("right" if effect else "none"):
            out["misses"].append(f"culprit {culprit}, broken {broken}: {doc['status']}"
                                 + (f", named {shas.index(doc['culprit'])}"
                                    if doc["culprit"] else ""))
        out["builds"].append(len(doc["builds"]))
        out["executions"].append(doc["executions"])
        ran = [s for s in doc["steps"] if s["executions"]]
        out["steps"].append(len(ran))
        out["late"] += sum(1 for s in ran if len(s["looks"]) > 1)
        out["seconds"].append(seconds)
        shutil.rmtree(repo, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    return out


def line(label: str, commits: int, r: dict, trials: int) -> str:
    def pct(key: str) -> str:
        return f"{100 * r[key] / trials:5.1f}%"

    bound = math.log2(commits) + 2
    return (f"{label:<22} {trials:6d} {pct('right')} {pct('wrong')} {pct('range')} "
            f"{pct('none')} {np.mean(r['builds']):6.2f} {max(r['builds']):5d} {bound:5.0f} "
            f"{np.mean(r['executions']):6.1f} {np.mean(r['steps']):5.2f} {r['late']:5d} "
            f"{np.mean(r['seconds']):7.1f}")


HEADER = (f"{'row':<22} {'trials':>6} {'right':>6} {'wrong':>6} {'range':>6} {'none':>6} "
          f"{'builds':>6} {'most':>5} {'bound':>5} {'execs':>6} {'steps':>5} {'late':>5} "
          f"{'seconds':>7}")


def kill_and_resume(folder: str, seed: int) -> str:
    """A bisect by counts run whole, then again killed (SIGKILL) a third of the way and
    resumed: the same culprit, steps and executions?"""
    rng = np.random.default_rng(seed)
    repo, shas, culprit, _ = repository(folder, "kill", 32, 0.05, LOOPS_COUNTED, rng)
    cache = os.path.join(folder, "kill-cache")
    whole, _ = run(argv(repo, shas, cache, bisect_repo.BUILD_STATIC, 7, COUNTED))
    store = os.path.join(folder, "kill.db")
    child = subprocess.Popen(argv(repo, shas, cache, bisect_repo.BUILD_STATIC, 7,
                                  (*COUNTED, "-o", store)), env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    at = max(1, whole["executions"] // 3)
    seen = 0
    while child.poll() is None:
        if os.path.exists(store):
            try:
                with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as conn:
                    seen = conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
            except sqlite3.Error:
                seen = 0
            if seen >= at:
                child.send_signal(signal.SIGKILL)
                break
        time.sleep(0.05)
    child.wait()
    if child.returncode != -signal.SIGKILL:
        return f"the bisect ended (exit {child.returncode}) before it could be killed"
    resumed, _ = run([sys.executable, "-m", "benchlab", "bisect", "-o", store, "--resume",
                      "--json"])

    def steps(doc: dict) -> list:
        return [(s["commit"], s["outcome"], s["executions"]) for s in doc["steps"]]

    same = (resumed["culprit"] == whole["culprit"] == shas[culprit]
            and steps(resumed) == steps(whole)
            and resumed["executions"] == whole["executions"])
    return (f"killed with SIGKILL after {seen} of {whole['executions']} executions "
            f"(culprit: commit {culprit}); --resume named "
            f"{'commit ' + str(shas.index(resumed['culprit'])) if resumed['culprit'] else 'none'}"
            f" with {resumed['executions']} executions in {len(resumed['steps'])} steps: "
            f"{'the same as the run never killed' if same else 'NOT the same as the whole run'}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=20, help="bisects per counted row")
    p.add_argument("--wall", type=int, default=0, help="bisects by wall time (32 commits)")
    p.add_argument("--kill", action="store_true", help="a bisect killed and resumed")
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--rows", help="only these counted rows, e.g. '32,0.05;64,0.03;32,0'")
    args = p.parse_args()
    scratch = "/dev/shm" if os.path.isdir("/dev/shm") else None
    folder = tempfile.mkdtemp(prefix="bisect-real-", dir=scratch)
    rows = [(32, 0.05), (32, 0.03), (64, 0.05), (64, 0.03), (32, 0.0), (64, 0.0)]
    if args.rows:
        rows = [(int(n), float(e)) for n, e in (x.split(",") for x in args.rows.split(";"))]
    try:
        valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True)
        print(f"load average {os.getloadavg()[0]:.1f} at the start; {os.cpu_count()} cores; "
              f"{valgrind.stdout.strip()}")
        print("1. counted instructions (--metric instructions --counter cachegrind --runs 2, "
              "threshold 2%, confidence 95%), one broken commit per repository")
        print(HEADER, flush=True)
        for k, (commits, effect) in enumerate(rows):
            r = row(folder, commits, effect, args.trials, args.seed + k, wall=False)
            label = f"{commits} commits, " + (f"+{100 * effect:g}%" if effect else "A/A")
            print(line(label, commits, r, args.trials), flush=True)
            for miss in r["misses"]:
                print(f"    miss: {miss}", flush=True)
        if args.wall:
            print(f"\n2. wall time (bisect's defaults), a {LOOPS_WALL:,}-iteration loop "
                  f"(load average {os.getloadavg()[0]:.1f} now)")
            print(HEADER, flush=True)
            r = row(folder, 32, 0.05, args.wall, args.seed + 50, wall=True)
            print(line("32 commits, +5%, wall", 32, r, args.wall), flush=True)
            for miss in r["misses"]:
                print(f"    miss: {miss}", flush=True)
        if args.kill:
            print(f"\n3. {kill_and_resume(folder, args.seed + 60)}", flush=True)
        print("\nright: the culprit named; wrong: another commit named (or a range without "
              "it); range: no single commit, the culprit among those left around a skipped "
              "build or an undecided step; none: no culprit (no change, or ends "
              "inconclusive); builds: commits built per bisect (the failed one included), "
              "mean and most, against log2(N) + 2; execs, steps: means per bisect; late: "
              "steps decided after their first look, in all; seconds: per bisect, builds "
              f"included (load average {os.getloadavg()[0]:.1f} at the end)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

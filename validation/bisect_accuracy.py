"""How often `benchlab bisect` names the right commit, and what it costs (issue 25 part 3).

Two parts:

1. **Simulated executions, 1,000-commit histories.** One generated repository of
   1,000 commits (validation/bisect_repo.py) gives the commits and their subjects;
   the search (runner/bisect.Search, the store, every decision) runs as the command
   does, but builds are not made and each execution's time is drawn: the commit's
   level (1 before the culprit, 1 + δ from it on; 1 everywhere in A/A rows) times a
   noise factor. Noise models: "normal 1%" and "normal 3%" (a quiet machine, CV 1%
   or 3%), and "this machine": a factor drawn from the relative times (time / mean)
   of real executions of a 10 ms sleep measured here by run_process at the start of
   the script (a heavy right tail from the load). The culprit is uniform over the
   commits 2 .. 999; with `--broken F` a share F of the other commits does not build.
2. **Real executions** (`--real N`): N generated 64-commit repositories per row,
   each commit built by cc in its worktree, the program's sleep grown by δ at a
   random commit, bisected by the command itself on this machine.

Reported per row: trials, the right commit named, a wrong commit named, no single
commit (no change, inconclusive, ambiguous, or a range of skipped commits: "range"
counts a range that holds the culprit), mean executions, builds and steps.

    python3 validation/bisect_accuracy.py [--trials 100] [--real 5] [--seed 25]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "validation"))

import bisect_repo  # noqa: E402

from benchlab.runner.bisect import Search, Settings, Timing  # noqa: E402
from benchlab.runner.bisect_store import BisectStore  # noqa: E402
from benchlab.runner.git_builds import Build  # noqa: E402


class NoBuilds:
    """Builds that are not made: every commit builds at once, but those in `broken`."""

    def __init__(self, broken: set[str]) -> None:
        self.broken = broken

    def cached(self, sha: str) -> Build | None:
        return None

    def tree(self, sha: str) -> str:
        return ""

    def build(self, sha: str) -> Build:
        if sha in self.broken:
            return Build(sha, False, "", 0.0, 1, "exit code 1", "error: simulated", {})
        return Build(sha, True, "", 0.0, 0, None, "", {})


def machine_noise(n: int) -> np.ndarray:
    """Relative times of n real executions of a 10 ms sleep on this machine."""
    from benchlab.runner.execute import run_process

    folder = tempfile.mkdtemp(prefix="bisect-noise-")
    try:
        source = os.path.join(folder, "s.c")
        with open(source, "w") as handle:
            handle.write("#include <time.h>\nint main(void){struct timespec t={0,10000000};"
                         "nanosleep(&t,0);return 0;}\n")
        subprocess.run(["cc", "-O1", "-o", os.path.join(folder, "s"), source], check=True)
        times = np.array([run_process([os.path.join(folder, "s")]).wall for _ in range(n)])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return times / times.mean()


def simulated_row(commits: list[str], effect: float, noise: str, trials: int, seed: int,
                  broken_share: float, factors: np.ndarray, cache: str) -> dict:
    rng = np.random.default_rng(seed)
    out = {key: 0 for key in KEYS} | {"executions": [], "builds": [], "steps": []}
    for trial in range(trials):
        culprit = int(rng.integers(2, len(commits))) if effect else None
        level = {sha: (1.0 + effect if culprit is not None and k >= culprit else 1.0)
                 for k, sha in enumerate(commits)}
        others = [k for k in range(1, len(commits) - 1) if k != culprit]
        broken = {commits[k] for k in others if rng.random() < broken_share}
        draw = np.random.default_rng([seed, trial])

        def timer(sha: str, tree: str, level=level, draw=draw) -> Timing:
            if noise == "this machine":
                factor = float(factors[draw.integers(factors.size)])
            else:
                factor = 1.0 + NOISES[noise] * float(draw.standard_normal())
            return Timing(level[sha] * factor, 0.0, 0.0, 0)

        settings = Settings(repo=REPO, good=commits[0], bad=commits[-1], build="none",
                            command="simulated", seed=trial)
        path = os.path.join(cache, f"t{seed}-{trial}.db")
        store = BisectStore.create(path, settings.document())
        try:
            result = Search(settings, store, cache, builder=NoBuilds(broken),
                            timer=timer).run()
        finally:
            store.close()
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(path + suffix):
                    os.unlink(path + suffix)
        out[outcome(result.status, result.culprit, result.candidates,
                    commits[culprit] if culprit is not None else None)] += 1
        out["executions"].append(result.executions)
        out["builds"].append(len(result.builds))
        out["steps"].append(sum(1 for s in result.steps if s.executions))
    return out


def real_row(folder: str, effect: float, trials: int, seed: int) -> dict:
    """`trials` 64-commit repositories bisected by the command itself."""
    rng = np.random.default_rng(seed)
    out = {key: 0 for key in KEYS} | {"executions": [], "builds": [], "steps": [],
                                      "seconds": []}
    for trial in range(trials):
        culprit = int(rng.integers(2, 64)) if effect else None
        repo = os.path.join(folder, f"r{seed}-{trial}")
        shas = bisect_repo.make_repo(repo, commits=64, culprit=culprit, loops=10000,
                                     factor=1.0 + effect, sleep=True)
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "benchlab", "bisect", "--repo", repo, "--good", shas[0],
             "--bad", shas[-1], "--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
             "--cache", os.path.join(folder, "cache"), "--seed", str(trial), "--json"],
            capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        out["seconds"].append(time.monotonic() - started)
        if done.returncode != 0:
            raise SystemExit(f"bisect failed: {done.stderr}")
        import json

        doc = json.loads(done.stdout)
        out[outcome(doc["status"], doc["culprit"], doc["candidates"],
                    shas[culprit] if culprit is not None else None)] += 1
        out["executions"].append(doc["executions"])
        out["builds"].append(sum(1 for b in doc["builds"] if not b["cached"]))
        out["steps"].append(sum(1 for s in doc["steps"] if s["executions"]))
    return out


NOISES = {"normal 1%": 0.01, "normal 3%": 0.03}
KEYS = ("right", "wrong", "skipped", "ambiguous", "none")


def outcome(status: str, named: str | None, candidates, truth: str | None) -> str:
    """right, wrong (a culprit named that is not the one), skipped (the culprit among the
    commits left around skipped builds), ambiguous (a step could not decide; a range that
    misses the culprit counts as wrong), none (no change, or inconclusive ends)."""
    if named is not None:
        return "right" if named == truth else "wrong"
    if status in ("skipped", "ambiguous"):
        return status if truth in candidates else "wrong"
    return "none"
REPO = ""


def line(label: str, r: dict, trials: int) -> str:
    def pct(k: str) -> str:
        return f"{100 * r[k] / trials:5.1f}%"

    return (f"{label:<24} {trials:6d} {pct('right')} {pct('wrong')} {pct('skipped')} "
            f"{pct('ambiguous')} {pct('none')} {np.mean(r['executions']):8.0f} "
            f"{np.mean(r['builds']):6.1f} {np.mean(r['steps']):5.1f}")


HEADER = (f"{'row':<24} {'trials':>6} {'right':>6} {'wrong':>6} {'skip':>6} {'ambig':>6} "
          f"{'none':>6} "
          f"{'execs':>8} {'builds':>6} {'steps':>5}")


def main() -> None:
    global REPO
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--real", type=int, default=0, help="real bisects per row (64 commits)")
    p.add_argument("--broken", type=float, default=0.02)
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--rows", help="run only these rows of part 1, by label, separated by ';' "
                   "(e.g. '+20%%, this machine;A/A, normal 1%%')")
    p.add_argument("--no-simulated", action="store_true", help="skip part 1")
    args = p.parse_args()
    scratch = "/dev/shm" if os.path.isdir("/dev/shm") else None
    folder = tempfile.mkdtemp(prefix="bisect-accuracy-", dir=scratch)
    try:
        REPO = os.path.join(folder, "repo")
        commits = bisect_repo.make_repo(REPO, commits=1000, culprit=None)
        factors = machine_noise(300)
        q = np.quantile(factors, [0.05, 0.5, 0.95])
        print(f"this machine: 300 executions of a 10 ms sleep, relative time 5%/50%/95% "
              f"quantiles {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}, CV "
              f"{factors.std(ddof=1):.3f}; load average {os.getloadavg()[0]:.1f}")
        print("bisect's defaults: threshold 2%, confidence 95%, the ends' looks at 5, 10, "
              "20, 40, 80, 100 executions of each, later steps' up to what the ends' spread "
              f"says they need (at most 100); {100 * args.broken:g}% of the simulated "
              "commits do not build\n")
        print("1. simulated executions, 1,000 commits")
        print(HEADER)
        rows = [(e, n) for n in ("normal 1%", "normal 3%") for e in (0.05, 0.10, 0.20)]
        rows += [(e, "this machine") for e in (0.10, 0.20, 0.50)]
        rows += [(0.0, "normal 1%"), (0.0, "this machine")]
        for k, (effect, noise) in enumerate(rows):
            label = f"{'A/A' if not effect else f'+{100 * effect:g}%'}, {noise}"
            if args.no_simulated or (args.rows and label not in args.rows.split(";")):
                continue
            started = time.monotonic()
            r = simulated_row(commits, effect, noise, args.trials, args.seed + k,
                              args.broken, factors, folder)
            print(line(label, r, args.trials) + f"   ({time.monotonic() - started:.0f} s)",
                  flush=True)
        if args.real:
            print(f"\n2. real executions on this machine, 64 commits (a 10 ms sleep grown by "
                  f"the effect), {args.real} repositories per row")
            print(HEADER + "  seconds")
            for k, effect in enumerate((0.5, 0.2, 0.0)):
                r = real_row(folder, effect, args.real, args.seed + 100 + k)
                label = "A/A" if not effect else f"+{100 * effect:g}%"
                print(line(label, r, args.real) + f"  {np.mean(r['seconds']):7.1f}",
                      flush=True)
        print("\nright: the culprit named; wrong: another commit named (or a range without "
              "it); skip: no single commit, the culprit among those left around skipped "
              "builds; ambig: a step could not decide within --max-runs, the culprit among "
              "the commits left; none: no culprit (no change, or ends inconclusive); execs, "
              "builds, steps: means per bisect (builds made; steps that ran executions, the "
              "ends included)")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()

"""1,000 short executions on `--cluster local:2` against the same run locally.

What it measures (issue 13's second quality bar)
    The wall time of the whole `benchlab run` of N executions (default 1,000)
    of a short command, for two commands — `true` (about 0.6 ms) and
    `sleep 0.005` (about 6 ms) — in three modes:

      local    `benchlab run exp.toml` (one process, one execution at a time)
      local:2  `benchlab run exp.toml --cluster local:2` (the driver starts a
               LocalCluster of two single-thread worker processes, each under
               a nanny, and a scheduler in its own process, and stops them at
               the end)
      tcp:2    `benchlab run exp.toml --cluster tcp://...` against a `dask
               scheduler` and two `benchlab worker` processes started once
               for the whole benchmark (no cluster start-up in the timing)

    Each mode also runs the experiment with 10 executions ("fixed": start-up,
    connection, the cluster's start and stop, the environment check); the
    run phase is then total − fixed. Blocks of every (command, mode, size) in
    a random order are repeated --repeats times; the table gives medians.

    Dispatch cost per execution: the time a worker slot is not running a
    command, per execution: (slots x run phase − sum of the reported wall
    times) / N, where slots = 1 locally and 2 on a cluster of two. Locally
    this is the runner's own cost between executions (recording, one SQLite
    commit each); on a cluster it adds the scheduler's round trips and the
    driver's recording, less what the window of queued trials hides.

    The machine has 2 cores: on local:2 the driver, the scheduler and the two
    workers (and their nannies) share them with the commands, so two workers
    cannot both run `true` (CPU-bound in the kernel) at full speed; `sleep`
    leaves the cores free.

Goal (issue 13)
    local:2 total <= 1.25 x local total / 2 for 1,000 short executions.

Run
    python3 benchmarks/cluster_throughput.py             # 3 repeats of 1,000 executions
    python3 benchmarks/cluster_throughput.py --quick     # 1 repeat of 300
    python3 benchmarks/cluster_throughput.py --profile   # also cProfile the local:2 driver
    python3 benchmarks/cluster_throughput.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from cluster_overhead import BENCHLAB, ENV, Pair, free_port  # noqa: E402

GOAL = 1.25
COMMANDS = {"true": '["true"]', "sleep 0.005": '["sleep", "0.005"]'}
FIXED_RUNS = 10


class Workers(Pair):
    """A `dask scheduler` and two `benchlab worker` processes (machines w1, w2; the
    experiment names no machines, so trials go to either)."""

    def __init__(self, tmp: Path) -> None:
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.procs, self.logs = [], tmp
        self._start([sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port",
                     self.address.rsplit(":", 1)[1], "--no-dashboard"], "scheduler",
                    "Scheduler at:")
        for name in ("w1", "w2"):
            self._start([*BENCHLAB, "worker", self.address, "--machine", name],
                        f"worker-{name}", "connected to")


def experiment(tmp: Path, command: str, runs: int) -> Path:
    path = tmp / f"{command.split()[0]}-{runs}.toml"
    path.write_text(f"seed = 1\nexecutions = {runs}\n[warmup]\nexecutions = 0\n"
                    f"[alternatives.x]\ncommand = {COMMANDS[command]}\n")
    return path


def benchlab_run(exp: Path, db: Path, cluster: str | None,
                 profile: Path | None = None) -> tuple[float, float, int]:
    """(wall time of the whole command, sum of the reported walls, executions ok)."""
    db.unlink(missing_ok=True)
    prefix = [sys.executable, "-m", "cProfile", "-o", str(profile)] if profile else []
    argv = (prefix or [sys.executable]) + ["-m", "benchlab", "run", str(exp), "-o", str(db),
                                           "--quiet"]
    if cluster:
        argv += ["--cluster", cluster]
    start = time.perf_counter()
    done = subprocess.run(argv, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    total = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"benchlab run {cluster or ''} failed: {done.stderr.strip()[-300:]}")
    conn = sqlite3.connect(db)
    n, walls = conn.execute("SELECT COUNT(*), SUM(wall) FROM trials WHERE status = 'ok'"
                            ).fetchone()
    conn.close()
    return total, float(walls or 0.0), int(n)


def summarize(results: dict, runs: int) -> dict:
    """Medians per (command, mode): total, fixed, run phase, dispatch per execution."""
    out: dict = {}
    for (command, mode), r in results.items():
        total = float(np.median([x[0] for x in r["full"]]))
        fixed = float(np.median([x[0] for x in r["fixed"]]))
        walls = float(np.median([x[1] for x in r["full"]]))
        slots = 1 if mode == "local" else 2
        phase = total - fixed
        out.setdefault(command, {})[mode] = {
            "total_s": total, "fixed_s": fixed, "run_phase_s": phase, "sum_walls_s": walls,
            "per_execution_ms": phase / runs * 1e3,
            "dispatch_ms": (slots * phase - walls) / runs * 1e3,
            "totals_s": [x[0] for x in r["full"]]}
    for modes in out.values():
        local = modes["local"]
        for mode in ("local:2", "tcp:2"):
            m = modes[mode]
            m["ratio_total"] = m["total_s"] / (local["total_s"] / 2)
            m["ratio_run_phase"] = m["run_phase_s"] / (local["run_phase_s"] / 2)
    return out


def profile_table(path: Path, top: int = 18) -> list[str]:
    """The driver's functions by internal time (cProfile), the top ones."""
    stats = pstats.Stats(str(path))
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
    lines = []
    for (file, line, func), (_cc, calls, tottime, cumtime, _callers) in rows:
        lines.append(f"  {tottime:7.3f} s self {cumtime:7.3f} s cum {calls:8d} calls  "
                     f"{Path(file).name}:{line} {func}")
    return lines


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--quick", action="store_true", help="1 repeat of 300 executions")
    p.add_argument("--profile", action="store_true", help="cProfile one local:2 driver")
    p.add_argument("--seed", type=int, default=17)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.quick:
        args.runs, args.repeats = 300, 1
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("Dask distributed is not installed (pip install 'benchlab[cluster]')",
              file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    load_before = os.getloadavg()
    started = time.perf_counter()
    profile_lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="benchlab-cluster-throughput-") as name:
        tmp = Path(name)
        workers = Workers(tmp)
        try:
            clusters = {"local": None, "local:2": "local:2", "tcp:2": workers.address}
            jobs = [(c, m, size) for c in COMMANDS for m in clusters
                    for size in ("full", "fixed")]
            results: dict = {(c, m): {"full": [], "fixed": []} for c in COMMANDS
                             for m in clusters}
            for repeat in range(args.repeats):
                for i in rng.permutation(len(jobs)):
                    command, mode, size = jobs[i]
                    runs = args.runs if size == "full" else FIXED_RUNS
                    exp = experiment(tmp, command, runs)
                    results[(command, mode)][size].append(
                        benchlab_run(exp, tmp / "t.db", clusters[mode]))
                if not args.json:
                    print(f"repeat {repeat + 1}/{args.repeats} done", file=sys.stderr)
            if args.profile:
                prof = tmp / "driver.prof"
                benchlab_run(experiment(tmp, "true", args.runs), tmp / "p.db", "local:2", prof)
                profile_lines = profile_table(prof)
        finally:
            workers.close()
    summary = summarize(results, args.runs)
    meta = {"runs": args.runs, "repeats": args.repeats, "cpus": os.cpu_count(),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "seconds": round(time.perf_counter() - started, 1), "goal_ratio": GOAL}
    if args.json:
        print(json.dumps({"meta": meta, "commands": summary, "profile": profile_lines},
                         indent=2))
        return 0
    print(f"{args.runs} executions per run, medians of {args.repeats} interleaved repeats "
          f"({meta['cpus']} CPUs, load {meta['load_before'][0]:.2f} -> "
          f"{meta['load_after'][0]:.2f}, {meta['seconds']:.0f} s); fixed = the same with "
          f"{FIXED_RUNS} executions; run phase = total - fixed")
    print(f"{'command':12s} {'mode':8s} {'total':>8s} {'fixed':>7s} {'phase':>7s} "
          f"{'per exec':>9s} {'sum wall':>8s} {'dispatch':>9s} {'goal ratio':>10s} "
          f"{'phase ratio':>11s}")
    verdicts = []
    for command, modes in summary.items():
        for mode, s in modes.items():
            ratio = f"{s['ratio_total']:10.2f}" if "ratio_total" in s else f"{'':10s}"
            phase = f"{s['ratio_run_phase']:11.2f}" if "ratio_run_phase" in s else ""
            print(f"{command:12s} {mode:8s} {s['total_s']:7.2f}s {s['fixed_s']:6.2f}s "
                  f"{s['run_phase_s']:6.2f}s {s['per_execution_ms']:7.2f}ms "
                  f"{s['sum_walls_s']:7.2f}s {s['dispatch_ms']:7.2f}ms {ratio} {phase}")
        verdicts.append((command, modes["local:2"]["ratio_total"]))
    print("goal ratio = local:2 (or tcp:2) total / (local total / 2); phase ratio = the same "
          "for the run phases; dispatch = (slots x phase - sum wall) / executions")
    for command, ratio in verdicts:
        print(f"goal ({command}): local:2 within {GOAL:g} x local / 2: {ratio:.2f}: "
              f"{'met' if ratio <= GOAL else 'missed'}")
    if profile_lines:
        print("the local:2 driver (true), cProfile, by own time:")
        print("\n".join(profile_lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())

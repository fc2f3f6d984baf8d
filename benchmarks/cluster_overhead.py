"""Reported time of `true` through a Dask worker beside the same execution run locally.

What it measures (issue 13's first quality bar)
    `true` does nothing, so the time benchlab reports for it is the runner's
    own floor (benchmarks/runner_overhead.py). A cluster run times each trial
    on the worker, beside the command (runner/worker.py calls the same
    `execute.run_process` as a local run), so the reported time should not
    grow when the trial is sent through Dask. Each block runs, in a random
    order:

      local        `benchlab run true.toml` (N executions of `true`)
      local:1      `benchlab run true.toml --cluster local:1` (a LocalCluster
                   of one worker process under a nanny, started by the driver)
      worker       `benchlab run true.toml --cluster tcp://...` against a real
                   `dask scheduler` and one `benchlab worker` process, both
                   started once for the whole benchmark
      dask worker  the same against a second scheduler with a plain
                   `dask worker --nthreads 1 --no-nanny` (what `benchlab
                   worker` replaces; for context)
      in worker    diagnosis: one Dask task that runs `run_process(["true"])`
                   N times in a loop inside the `benchlab worker` process, so
                   the worker process is the same but nothing is dispatched
                   while the executions run (the driver and scheduler idle)

    Each mode's reported wall time per execution is read back from its store
    (or returned by the task). The table gives the median over every
    execution with the quartiles, the ratio of medians to `local`, and the
    median over blocks of each block's ratio of medians (paired: a burst of
    other load that lasts a block cancels out of it).

Goal (issue 13)
    worker's median within 5% of local's (ratio <= 1.05), same machine,
    interleaved.

Run
    python3 benchmarks/cluster_overhead.py             # 6 blocks of 200 executions
    python3 benchmarks/cluster_overhead.py --quick     # 2 blocks of 100
    python3 benchmarks/cluster_overhead.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's benchlab, and tests/support
from tests.support.dask_processes import BENCHLAB, ENV, NotReady, Processes  # noqa: E402

GOAL = 1.05


def pair(procs: Processes, kind: str) -> str:
    """A `dask scheduler` and one worker process (`benchlab worker` or, for context, a plain
    `dask worker`) in their own process groups; the scheduler's address."""
    address = procs.scheduler(name=f"scheduler-{kind}")
    if kind == "benchlab":
        procs.worker(address, "m1")
    else:
        worker = procs.start([sys.executable, "-m", "dask", "worker", address, "--nthreads",
                              "1", "--no-nanny", "--no-dashboard", "--memory-limit", "0"],
                             "worker-dask")
        procs.wait_for("worker-dask", "Registered to", process=worker)
    return address


def experiment(tmp: Path, runs: int) -> Path:
    path = tmp / "true.toml"
    path.write_text(f"seed = 1\nexecutions = {runs}\n[warmup]\nexecutions = 3\n"
                    "[alternatives.true]\ncommand = [\"true\"]\n")
    return path


def benchlab_run(exp: Path, db: Path, cluster: str | None) -> list[float]:
    """Run `benchlab run` (with --cluster) into a fresh store; the reported walls (s)."""
    db.unlink(missing_ok=True)
    argv = [*BENCHLAB, "run", str(exp), "-o", str(db), "--quiet"]
    if cluster:
        argv += ["--cluster", cluster]
    done = subprocess.run(argv, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f"benchlab run {cluster or ''} failed: {done.stderr.strip()[-300:]}")
    conn = sqlite3.connect(db)
    walls = [r[0] for r in conn.execute(
        "SELECT wall FROM trials WHERE warmup = 0 AND status = 'ok' ORDER BY seq")]
    conn.close()
    return walls


def _loop(runs: int) -> list[float]:
    """Runs on the worker: `true` runs + 3 times through the runner's own timer."""
    from benchlab.runner.execute import run_process

    walls = [run_process(["true"]).wall for _ in range(runs + 3)]
    return walls[3:]


def in_worker(address: str, runs: int) -> list[float]:
    """One task looping over `true` inside the worker process: no dispatch meanwhile."""
    import logging

    from distributed import Client

    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    with Client(address, timeout=10) as client:
        return client.submit(_loop, runs, pure=False).result()


def summarize(walls: dict[str, list[list[float]]]) -> dict:
    """Per mode: median and quartiles over every execution, the ratio of medians to local's,
    and the median over blocks of each block's ratio of medians."""
    local = np.concatenate(walls["local"])
    out = {}
    for mode, blocks in walls.items():
        every = np.concatenate(blocks)
        paired = [np.median(b) / np.median(a) for a, b in zip(walls["local"], blocks, strict=True)]
        out[mode] = {"median_ms": float(np.median(every) * 1e3),
                     "q1_ms": float(np.percentile(every, 25) * 1e3),
                     "q3_ms": float(np.percentile(every, 75) * 1e3),
                     "ratio": float(np.median(every) / np.median(local)),
                     "paired_ratio": float(np.median(paired)),
                     "block_medians_ms": [float(np.median(b) * 1e3) for b in blocks],
                     "executions": int(every.size)}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=200, help="executions of true per run")
    p.add_argument("--blocks", type=int, default=6, help="interleaved blocks")
    p.add_argument("--quick", action="store_true", help="2 blocks of 100 executions")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.quick:
        args.runs, args.blocks = 100, 2
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("Dask distributed is not installed (pip install 'benchlab[cluster]')",
              file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    load_before = os.getloadavg()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="benchlab-cluster-overhead-") as name:
        tmp = Path(name)
        exp = experiment(tmp, args.runs)
        procs = Processes(tmp)
        try:
            pairs = {kind: pair(procs, kind) for kind in ("benchlab", "dask")}
            modes = {
                "local": lambda: benchlab_run(exp, tmp / "l.db", None),
                "local:1": lambda: benchlab_run(exp, tmp / "l1.db", "local:1"),
                "worker": lambda: benchlab_run(exp, tmp / "w.db", pairs["benchlab"]),
                "dask worker": lambda: benchlab_run(exp, tmp / "d.db", pairs["dask"]),
                "in worker": lambda: in_worker(pairs["benchlab"], args.runs),
            }
            walls: dict[str, list[list[float]]] = {m: [] for m in modes}
            for block in range(args.blocks):
                for mode in rng.permutation(list(modes)):
                    walls[mode].append(modes[mode]())
                if not args.json:
                    print(f"block {block + 1}/{args.blocks} done", file=sys.stderr)
        except NotReady as exc:
            raise SystemExit(str(exc)) from None
        finally:
            procs.close()
    summary = summarize(walls)
    meta = {"runs": args.runs, "blocks": args.blocks, "cpus": os.cpu_count(),
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in os.getloadavg()],
            "seconds": round(time.perf_counter() - started, 1), "goal_ratio": GOAL}
    if args.json:
        print(json.dumps({"meta": meta, "modes": summary}, indent=2))
        return 0
    print(f"reported wall time of `true` per execution, {args.blocks} interleaved blocks of "
          f"{args.runs} ({meta['cpus']} CPUs, load {meta['load_before'][0]:.2f} -> "
          f"{meta['load_after'][0]:.2f}, {meta['seconds']:.0f} s)")
    print(f"{'mode':12s} {'median':>9s} {'q1':>7s} {'q3':>7s} {'ratio':>6s} {'paired':>7s}"
          "  block medians (ms)")
    for mode, s in summary.items():
        print(f"{mode:12s} {s['median_ms']:7.3f}ms {s['q1_ms']:7.3f} {s['q3_ms']:7.3f} "
              f"{s['ratio']:6.3f} {s['paired_ratio']:7.3f}  "
              + " ".join(f"{x:.3f}" for x in s["block_medians_ms"]))
    w = summary["worker"]
    verdict = "met" if max(w["ratio"], w["paired_ratio"]) <= GOAL else "missed"
    print(f"goal: worker within {GOAL - 1:.0%} of local: ratio {w['ratio']:.3f}, paired "
          f"{w['paired_ratio']:.3f}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

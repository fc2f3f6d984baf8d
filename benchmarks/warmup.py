"""`benchlab warmup` on 100 executions x 3,000 iterations (issue 24: "a few seconds").

What it measures
    Executions drawn by validation/warmup.py's generator (the four classes, the three
    noise shapes, seed 24), then:

      analyse   stats.warmup.analyse on all of them in-process (wall and CPU time);
      pelt      the change-point search alone, and outlier_mask alone, summed over
                the executions;
      command   `benchlab warmup FILE --by benchmark --levels fork --value time
                --format json` in a fresh process on the same executions as a CSV
                (300,000 rows: start-up, reading, classes, the JSON document), wall
                and the child's CPU time.

    Wall times on a loaded machine are several times the CPU times; the goal
    ("a few seconds" for 100 executions x 3,000 iterations) is judged on both.

    Median of --repeats runs (default 3) with the spread.

Run
    python3 benchmarks/warmup.py [--executions 100] [--iterations 3000] [--repeats 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.stats.warmup import GRID, PENALTY_FACTOR, analyse, outlier_mask, pelt  # noqa: E402


def _generator():
    """validation/warmup.py, the generator of the executions (loaded by its path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("warmup_validation",
                                                  ROOT / "validation" / "warmup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def executions(count: int, n: int, seed: int = 24) -> list[np.ndarray]:
    gen = _generator()
    rng = np.random.default_rng(seed)
    return [gen.execution(rng, gen.KINDS[k % 4], gen.NOISES[(k // 4) % 3], n)[0]
            for k in range(count)]


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def summary(times: list[float]) -> dict:
    return {"median": float(np.median(times)), "min": min(times), "max": max(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs = executions(args.executions, args.iterations)
    items = [(f"b{k // 5}", (("fork", str(k % 5)),), v) for k, v in enumerate(runs)]
    penalty = PENALTY_FACTOR * math.log(args.iterations)
    jump = max(1, math.ceil(args.iterations / GRID))
    out: dict = {"executions": args.executions, "iterations": args.iterations}
    walls, cpus, pelts, masks = [], [], [], []
    for _ in range(args.repeats):
        wall, cpu = timed(lambda: analyse(items, level_names=("fork",)))
        walls.append(wall)
        cpus.append(cpu)
        pelts.append(timed(lambda: [pelt(v, penalty, jump=jump) for v in runs])[0])
        masks.append(timed(lambda: [outlier_mask(v) for v in runs])[0])
    out.update(analyse_wall=summary(walls), analyse_cpu=summary(cpus), pelt=summary(pelts),
               outliers=summary(masks))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "executions.csv"
        lines = ["benchmark,fork,time"]
        lines += [f"{b},{lv[0][1]},{x:.6g}" for b, lv, v in items for x in v]
        path.write_text("\n".join(lines) + "\n")
        commands, command_cpus = [], []
        for _ in range(args.repeats):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            cmd = [sys.executable, "-m", "benchlab", "warmup", str(path), "--by", "benchmark",
                   "--levels", "fork", "--value", "time", "--format", "json"]
            t0 = time.perf_counter()
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT,
                                  env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
            commands.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            command_cpus.append(after.ru_utime + after.ru_stime
                                - before.ru_utime - before.ru_stime)
            if done.returncode != 0:
                sys.exit(f"benchlab warmup failed: {done.stderr}")
        out["command"] = summary(commands)
        out["command_cpu"] = summary(command_cpus)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"benchlab warmup: {args.executions} executions x {args.iterations} iterations, "
          f"median of {args.repeats} (min-max)")
    for key, what in (("analyse_wall", "analyse, wall"), ("analyse_cpu", "analyse, CPU"),
                      ("pelt", "PELT alone"), ("outliers", "outlier_mask alone"),
                      ("command", "the command, fresh process"),
                      ("command_cpu", "the command, its CPU time")):
        s = out[key]
        print(f"  {what:<28}{s['median']:8.2f} s  ({s['min']:.2f}-{s['max']:.2f})")


if __name__ == "__main__":
    main()

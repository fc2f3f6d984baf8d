"""How planning scales with the number of alternatives (issue 20, item 6).

What it measures
    An experiment file of N alternatives (each `command = ["true"]`, one
    execution, so N trials) for N = 1,000, 10,000 and 50,000, timed in this
    process phase by phase (the process's CPU time: on a shared, loaded
    machine a wall clock here measures the neighbours), best of --repeats:

      toml      tomllib.loads of the file alone (the standard library's
                parser: a floor benchlab cannot go below)
      load      runner.config.load_experiment (the TOML parse plus the
                checks: keys, types, placeholders, programs on PATH)
      plan      runner.plan.make_plan (the seeded interleaved order)
      commands  runner.plan.command_for of every trial (what --dry-run
                prints and what each trial runs)
      text      the plan rendered as --dry-run's text (report/run.py:
                one line per trial, made inert for a terminal)

    and the whole `python3 -m benchlab run FILE --dry-run --seed 1` in a
    fresh process (start-up, the TOML parse and printing N lines included),
    median of --repeats, wall and CPU (user + sys of the child: on a loaded
    machine its CPU time is close to what an idle one shows as wall). Linear
    planning shows as a per-alternative cost (µs per alternative) that stays
    flat from 1k to 50k; before the fix a lookup of
    each trial's alternative by a scan made it quadratic (50,000
    alternatives: 60 s).

Goals: planning 50,000 alternatives (load + plan + commands, the TOML
parser's own time aside) under 2 s; the whole --dry-run of them under 2 s
on an idle machine. Run `python3 benchmarks/plan_scaling.py`
(`--sizes 1000,10000`, `--repeats`, `--json`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_experiment(folder: str, n: int) -> str:
    path = os.path.join(folder, f"alternatives-{n}.toml")
    lines = ['name = "scaling"', "executions = 1", "[alternatives]"]
    lines += [f'a{i} = {{ command = ["true"] }}' for i in range(n)]
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def best(function, repeats: int) -> tuple[float, object]:
    times, value = [], None
    for _ in range(repeats):
        start = time.process_time()
        value = function()
        times.append(time.process_time() - start)
    return min(times), value


def measure(path: str, repeats: int) -> dict[str, float]:
    import tomllib

    import benchlab.report.run  # noqa: F401  (registers the Planned renderers)
    from benchlab.result import render
    from benchlab.runner.config import load_experiment
    from benchlab.runner.plan import command_for, make_plan
    from benchlab.runner.session import plan_only

    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    toml, _ = best(lambda: tomllib.loads(text), repeats)
    load, e = best(lambda: load_experiment(path), repeats)
    plan, trials = best(lambda: make_plan(e, 1), repeats)
    commands, _ = best(lambda: [command_for(e, t).show() for t in trials], repeats)
    planned = plan_only(path, None, seed=1, resume=False)
    text, _ = best(lambda: render(planned, "text"), repeats)
    walls, cpus = [], []
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for _ in range(repeats):
        before = os.times()
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "benchlab", "run", path, "--dry-run", "--seed",
                        "1", "-o", os.path.join(os.path.dirname(path), "unused.db")],
                       check=True, stdout=subprocess.DEVNULL, env=env)
        walls.append(time.perf_counter() - start)
        after = os.times()
        cpus.append(after.children_user - before.children_user
                    + after.children_system - before.children_system)
    return {"toml": toml, "load": load, "plan": plan, "commands": commands, "text": text,
            "planning": load - toml + plan + commands, "dry_run": statistics.median(walls),
            "dry_run_cpu": statistics.median(cpus)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            rows[n] = measure(write_experiment(folder, n), args.repeats)
    if args.json:
        print(json.dumps({str(n): row for n, row in rows.items()}, indent=2))
        return 0
    print(f"load average {os.getloadavg()[0]:.1f}; in process: best CPU time of "
          f"{args.repeats}; --dry-run in a fresh process: median wall and CPU of {args.repeats}")
    print(f"{'alternatives':>12} {'toml s':>7} {'load s':>7} {'plan s':>7} {'cmds s':>7} "
          f"{'planning s':>10} {'µs/alt':>7} {'text s':>7} {'dry-run s':>9} {'cpu s':>6}")
    for n, r in rows.items():
        print(f"{n:>12} {r['toml']:>7.3f} {r['load']:>7.3f} {r['plan']:>7.3f} "
              f"{r['commands']:>7.3f} {r['planning']:>10.3f} {1e6 * r['planning'] / n:>7.1f} "
              f"{r['text']:>7.3f} {r['dry_run']:>9.2f} {r['dry_run_cpu']:>6.2f}")
    print("planning = load - toml + plan + commands (benchlab's own work); goals for 50,000: "
          "planning and the whole --dry-run (wall on an idle machine) under 2 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

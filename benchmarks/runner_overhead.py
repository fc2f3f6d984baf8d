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
                   and the whole invocation's wall time / N (start-up, the
                   environment check, the store and the summary printed after
                   the run included).
      quick mode   `python -m benchlab run --runs N --warmup 3 -o STORE -- true`,
                   the command-line form that competes with hyperfine directly,
                   measured the same way.
      execute, new process
                   the same loop run by a freshly started Python process
                   (benchlab.runner.execute only: no numpy, no store), to
                   tell the runner's code from the state of the process.
      floor        for context, the least Python can do: a prepared
                   posix_spawn (benchlab.runner.spawn, the runner's own)
                   and a blocking os.wait4, no pipes, no timeout, no pidfd.

    benchlab run and quick mode also run once per round with two executions
    (the fewest quick mode's summary takes): their start-up (Python, the
    imports, the environment check, the store, the summary printed after the
    run). "beyond start-up" is then (invocation - that one) / (N - 2), the wall
    time each further execution costs, which is what a run of thousands of
    executions pays.

    Own CPU: the CPU time (user + system) of the tool's process itself, per
    execution, which machine load barely changes: the CPU time of the reaped
    invocation and its reaped descendants (getrusage of the children) minus
    what its executions of `true` used (their user and system times, from the
    store for benchlab, from hyperfine's JSON for hyperfine, warm-ups
    included). For benchlab also beyond start-up, as for the wall time.

    Start-up of a Python process, for scale: `python -c pass` and a Python that
    only imports the runner's process starter (benchlab.runner.execute), the least
    any runner written in Python pays before its first execution. From these and
    the figures above: the fewest executions N from which the wall time per
    execution with start-up, (start-up + N x beyond) / N, is within the goal's
    1.5x of hyperfine's — for benchlab run, quick mode, and that bare Python loop.

    The child Pythons read compiled bytecode from a cache in the temporary
    directory (PYTHONPYCACHEPREFIX), filled before the first round, as an
    installed package has it: with PYTHONDONTWRITEBYTECODE set (as in some
    containers) every start would compile benchlab's modules again.

    The tools run in --rounds interleaved rounds (default 12) of N = --runs
    executions (default 200) each, in a random order per round, so drifting
    machine load hits them alike. The table gives the median over every
    execution and the quartiles, the ratio of medians to hyperfine's (the
    goal's statistic), and the median over rounds of the ratio of each
    round's median to hyperfine's in the same round (paired: a burst of load
    that lasts a round cancels out of it).

Timer
    benchlab times an execution with time.perf_counter_ns() (CLOCK_MONOTONIC,
    resolution printed below, 1 ns on Linux) from just before the spawn call
    to just after wait4 reaps the child; argv0's path, argv and envp, the
    file actions and /dev/null are prepared before. hyperfine 1.15 reads
    Rust's Instant (also CLOCK_MONOTONIC) before Command::spawn and after
    wait: its timed region also opens /dev/null three times and, with a bare
    command name, searches PATH in the child (posix_spawnp: one failed execve
    per PATH entry before the right one; seen with strace -f).

Goals (from issue 26), each printed with its ratio and as met or NOT met
    benchlab run's and quick mode's reported time on `true` no more than
    hyperfine's (the median over paired rounds of the ratio of round medians),
    and their wall time per execution no more than 1.5 times hyperfine's, both
    over the whole invocation (start-up included: at N = 200 a Python start
    weighs more than all the executions) and beyond start-up. The load average
    at the start and the end is printed too: on a shared machine say it.

Run
    python3 benchmarks/runner_overhead.py            # table
    python3 benchmarks/runner_overhead.py --json     # the same figures as JSON
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _trees import children_cpu

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))  # the children's; PYTHONPYCACHEPREFIX in main
OWN: dict[tuple[str, int], list[float]] = {}  # (tool, executions) -> its own CPU s per invocation


sys.path.insert(0, str(ROOT))

from benchlab.runner import spawn  # noqa: E402
from benchlab.runner.execute import run_process  # noqa: E402


def hyperfine(runs: int, tmp: Path) -> tuple[list[float], float]:
    out = tmp / "h.json"
    cpu = children_cpu()
    start = time.perf_counter()
    subprocess.run(["hyperfine", "-N", "--runs", str(runs), "--warmup", "3", "--export-json",
                    str(out), "--style", "none", "true"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = time.perf_counter() - start
    result = json.loads(out.read_text())["results"][0]
    children = (float(result["user"]) + float(result["system"])) * (runs + 3)  # means
    OWN.setdefault(("hyperfine", runs), []).append(children_cpu() - cpu - children)
    return [float(t) for t in result["times"]], total / runs


def execute(runs: int) -> tuple[list[float], float]:
    for _ in range(3):
        run_process(["true"])
    start = time.perf_counter()
    walls = [run_process(["true"]).wall for _ in range(runs)]
    return walls, (time.perf_counter() - start) / runs


_LOOP = ("import json, sys\n"
         "from benchlab.runner.execute import run_process\n"
         "walls = [run_process(['true']).wall for _ in range(int(sys.argv[1]) + 3)]\n"
         "print(json.dumps(walls[3:]))\n")


def execute_new_process(runs: int) -> tuple[list[float], float]:
    env = ENV
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _LOOP, str(runs)], check=True, env=env,
                         capture_output=True, text=True).stdout
    return json.loads(out), (time.perf_counter() - start) / runs


def floor(runs: int) -> tuple[list[float], float]:
    null_in, null_out = os.open(os.devnull, os.O_RDONLY), os.open(os.devnull, os.O_WRONLY)
    path = shutil.which("true")
    walls = []
    start = time.perf_counter()
    for _ in range(runs + 3):
        prepared = spawn.Spawn(path, ["true"], os.environ, (null_in, null_out, null_out))
        t = time.perf_counter_ns()
        os.wait4(prepared(), 0)
        walls.append((time.perf_counter_ns() - t) / 1e9)
        prepared.close()
    per = (time.perf_counter() - start) / (runs + 3)
    os.close(null_in)
    os.close(null_out)
    return walls[3:], per


def _read(db: Path, name: str, runs: int, cpu: float) -> list[float]:
    """The measured wall times in the store; the invocation's own CPU into OWN."""
    conn = sqlite3.connect(db)
    walls = [r[0] for r in conn.execute("SELECT wall FROM trials WHERE warmup = 0")]
    children = conn.execute("SELECT SUM(user + sys) FROM trials").fetchone()[0]
    conn.close()
    OWN.setdefault((name, runs), []).append(children_cpu() - cpu - children)
    return walls


def benchlab_run(runs: int, tmp: Path, k: int, warmup: int = 3) -> tuple[list[float], float]:
    exp = tmp / f"true{k}-{runs}.toml"
    exp.write_text(f"seed = 1\nexecutions = {runs}\n[warmup]\nexecutions = {warmup}\n"
                   "[alternatives.true]\ncommand = [\"true\"]\n")
    db = tmp / f"true{k}-{runs}.db"
    env = ENV
    cpu = children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchlab", "run", str(exp), "-o", str(db),
                    "--quiet"], check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    total = time.perf_counter() - start
    return _read(db, "benchlab run", runs, cpu), total / runs


def quick_mode(runs: int, tmp: Path, k: int, warmup: int = 3) -> tuple[list[float], float]:
    db = tmp / f"quick{k}-{runs}.db"
    env = ENV
    cpu = children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "benchlab", "run", "--runs", str(runs), "--warmup",
                    str(warmup), "-o", str(db), "--quiet", "--", "true"], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = time.perf_counter() - start
    return _read(db, "quick mode", runs, cpu), total / runs


# What a Python process costs before it can run anything: the interpreter alone, and one that
# imports the runner's process starter (benchlab.runner.execute) — the least any runner
# written in Python pays, against which benchlab's own start-up is read.
PYTHON_STARTS = {"python -c pass": "pass",
                 "python importing the process starter": "import benchlab.runner.execute"}


def _python_start(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=ENV)
    return time.perf_counter() - start


def break_even(start_up: float, per_execution: float, hyperfine_per: float,
               bound: float) -> float | None:
    """The fewest executions N at which (start_up + N * per_execution) / N is at most `bound`
    times hyperfine's wall time per execution (which includes its own start-up): None when
    each execution alone costs more than that."""
    margin = bound * hyperfine_per - per_execution
    return math.ceil(start_up / margin) if margin > 0 else None


# Issue 26's "done when", each as (what, the tool's key, the bound on its ratio to hyperfine's):
# the reported median paired by round, and the wall time per execution with and without the
# start-up (the whole invocation over N; beyond an invocation of two executions).
GOALS = (("reported, paired rounds", "median_round_ratio", 1.0),
         ("wall/execution with start-up", "wall_ratio", 1.5),
         ("wall/execution beyond start-up", "beyond_start_up_ratio", 1.5))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.runs < 3:
        p.error("--runs must be at least 3")
    if shutil.which("hyperfine") is None:
        print("hyperfine is not installed (Debian: apt install hyperfine)", file=sys.stderr)
        return 2
    samples: dict[str, list[float]] = {"hyperfine": [], "execute": [],
                                       "execute, new process": [], "benchlab run": [],
                                       "quick mode": [], "floor": []}
    per_exec: dict[str, list[float]] = {k: [] for k in samples}
    round_medians: dict[str, list[float]] = {k: [] for k in samples}
    starts: dict[str, list[float]] = {"benchlab run": [], "quick mode": []}
    python_starts: dict[str, list[float]] = {what: [] for what in PYTHON_STARTS}
    load_start = list(os.getloadavg())
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "benchlab")],
                       check=True, env=ENV, stdout=subprocess.DEVNULL)
        for k in range(args.rounds):
            for name in np.random.default_rng(k).permutation([*samples, "start-up"]):
                if name == "start-up":  # two executions each: what every invocation costs
                    starts["benchlab run"].append(2 * benchlab_run(2, tmp, k, warmup=0)[1])
                    starts["quick mode"].append(2 * quick_mode(2, tmp, k, warmup=0)[1])
                    for what, code in PYTHON_STARTS.items():
                        python_starts[what].append(_python_start(code))
                    continue
                if name == "hyperfine":
                    walls, per = hyperfine(args.runs, tmp)
                elif name == "execute":
                    walls, per = execute(args.runs)
                elif name == "execute, new process":
                    walls, per = execute_new_process(args.runs)
                elif name == "floor":
                    walls, per = floor(args.runs)
                elif name == "quick mode":
                    walls, per = quick_mode(args.runs, tmp, k)
                else:
                    walls, per = benchlab_run(args.runs, tmp, k)
                samples[name].extend(walls)
                per_exec[name].append(per)
                round_medians[name].append(float(np.median(walls)))
    resolution = time.get_clock_info("perf_counter").resolution
    doc = {"runs_per_round": args.runs, "rounds": args.rounds,
           "timer": "time.perf_counter_ns (CLOCK_MONOTONIC)", "timer_resolution_s": resolution,
           "tools": {}}
    base_rounds = np.array(round_medians["hyperfine"])
    base = float(np.median(samples["hyperfine"]))
    base_per = float(np.median(per_exec["hyperfine"]))
    for name, walls in samples.items():
        q1, med, q3 = np.percentile(walls, [25, 50, 75])
        per = float(np.median(per_exec[name]))
        doc["tools"][name] = {
            "median_reported_s": med, "q1_s": q1, "q3_s": q3, "ratio": med / base,
            "median_round_ratio": float(np.median(np.array(round_medians[name]) / base_rounds)),
            "median_wall_per_execution_s": per, "wall_ratio": per / base_per}
        if name in starts:  # median over rounds of each round's (total - start-up) / (N - 2)
            start = float(np.median(starts[name]))
            beyond = float(np.median((np.array(per_exec[name]) * args.runs
                                      - np.array(starts[name])) / (args.runs - 2)))
            doc["tools"][name].update(median_start_up_s=start,
                                      wall_per_execution_beyond_start_up_s=beyond,
                                      beyond_start_up_ratio=beyond / base_per)
        if (name, args.runs) in OWN:  # CPU of the tool's own process per execution
            own = np.array(OWN[(name, args.runs)])
            doc["tools"][name]["own_cpu_per_execution_s"] = float(np.median(own)) / args.runs
            if (name, 2) in OWN:
                doc["tools"][name]["own_cpu_per_execution_beyond_start_up_s"] = float(
                    np.median((own - np.array(OWN[(name, 2)])) / (args.runs - 2)))
    wall_bound = GOALS[1][2]
    for name in starts:  # with start-up, the bound is met from this many executions on
        t = doc["tools"][name]
        t["break_even_runs"] = break_even(t["median_start_up_s"],
                                          t["wall_per_execution_beyond_start_up_s"], base_per,
                                          wall_bound)
    bare_start = {what: float(np.median(v)) for what, v in python_starts.items()}
    runner_start = bare_start["python importing the process starter"]
    doc["python_start_up_s"] = bare_start
    doc["bare_python_runner_break_even_runs"] = break_even(
        runner_start, float(np.median(per_exec["execute"])), base_per, wall_bound)
    doc["load_average"] = {"start": load_start, "end": list(os.getloadavg())}
    doc["goals"] = {f"{name}: {what}": {"ratio": doc["tools"][name][key], "bound": bound,
                                        "met": bool(doc["tools"][name][key] <= bound)}
                    for name in ("benchlab run", "quick mode") for what, key, bound in GOALS}
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"`true`, {args.rounds} rounds x {args.runs} executions; timer resolution "
          f"{resolution:g} s")
    print(f"{'tool':<22}{'reported time: median':>22}{'(quartiles)':>22}{'vs hyperfine':>14}"
          f"{'paired rounds':>15}{'wall per execution':>20}{'vs hyperfine':>14}")
    for name, t in doc["tools"].items():
        print(f"{name:<22}{t['median_reported_s'] * 1e6:>19.0f} µs"
              f"{t['q1_s'] * 1e6:>12.0f} .. {t['q3_s'] * 1e6:<6.0f}µs"
              f"{t['ratio']:>12.3f}x{t['median_round_ratio']:>13.3f}x"
              f"{t['median_wall_per_execution_s'] * 1e6:>17.0f} µs{t['wall_ratio']:>12.2f}x")
    hyperfine_cpu = doc["tools"]["hyperfine"]["own_cpu_per_execution_s"]
    print(f"hyperfine: own CPU per execution {hyperfine_cpu * 1e6:.0f} µs")
    for name in starts:
        t = doc["tools"][name]
        print(f"{name}: start-up {t['median_start_up_s'] * 1e3:.0f} ms; wall per execution "
              f"beyond start-up {t['wall_per_execution_beyond_start_up_s'] * 1e6:.0f} µs "
              f"({t['beyond_start_up_ratio']:.2f}x hyperfine's wall per execution); own CPU "
              f"per execution {t['own_cpu_per_execution_s'] * 1e6:.0f} µs, beyond start-up "
              f"{t['own_cpu_per_execution_beyond_start_up_s'] * 1e6:.0f} µs")
    print("start-up of a Python process: " + "; ".join(
        f"{what} {v * 1e3:.0f} ms" for what, v in bare_start.items()))
    print(f"with start-up, the wall time per execution is within {wall_bound:g}x hyperfine's "
          "from N executions on: " + ", ".join(
              f"{name} N = {_runs(doc['tools'][name]['break_even_runs'])}" for name in starts)
          + "; a Python process that only imports the process starter and loops over it "
          f"(execute's cost per execution) N = {_runs(doc['bare_python_runner_break_even_runs'])}")
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in load_start)} at the "
          f"start, {', '.join(f'{x:.1f}' for x in doc['load_average']['end'])} at the end")
    print("issue 26's goals, each tool's ratio to hyperfine (goal: at most the bound):")
    print(f"{'':<14}" + "".join(f"{what:>32}" for what, _, _ in GOALS))
    for name in ("benchlab run", "quick mode"):
        cells = []
        for what, _, bound in GOALS:
            goal = doc["goals"][f"{name}: {what}"]
            cells.append(f"{goal['ratio']:.2f}x <= {bound:g}: "
                         f"{'met' if goal['met'] else 'NOT met':>7}")
        print(f"{name:<14}" + "".join(f"{c:>32}" for c in cells))
    return 0


def _runs(n: int | None) -> str:
    return "never" if n is None else f"{n:,}"


if __name__ == "__main__":
    raise SystemExit(main())

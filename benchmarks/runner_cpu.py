"""CPU time of the runner's round loop and of short commands' start-up, for one or more
source trees side by side (before/after a change), interleaved in fresh processes.

CPU time (user + system) moves far less with machine load than wall time, so on a
shared machine it is what tells a change in the runner's own work from the noise
(docs/run.md#overhead-and-timer).

    loop       rounds.run_rounds of N executions of `true` into a store, timed inside a
               fresh process (time.process_time: the runner's own CPU, not the
               children's), with no progress (--quiet) and with the rich bar drawing to
               /dev/null posing as a terminal; per execution
    start-up   the CPU time of whole invocations (the process and its children, from
               getrusage): `benchlab --help`, quick mode with one and with two
               commands, and `benchlab compare` of a small quick-mode store

Run
    python3 benchmarks/runner_cpu.py                       # this tree
    python3 benchmarks/runner_cpu.py OLD_TREE .            # a tree before a change, then this
    python3 benchmarks/runner_cpu.py --runs 1000 --repeat 6 OLD .
A tree is a directory holding the benchlab package (e.g. `git archive main | tar -x -C
OLD`); the children run with it first on PYTHONPATH and from a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from _trees import children_cpu, median_row, tree_env

# What each fresh process runs for the loop: argv[1] executions, printed as JSON.
_LOOP = r'''
import json, os, sys, tempfile, time
from benchlab.runner.blas import load_single_threaded
load_single_threaded()
from benchlab.runner import rounds, session
from benchlab.runner.progress import Progress, RichProgress
n = int(sys.argv[1])
d = tempfile.mkdtemp()
exp = os.path.join(d, "t.toml")
with open(exp, "w") as f:
    f.write(f'seed = 1\nexecutions = {n}\n[alternatives.true]\ncommand = ["true"]\n')
timed = rounds.run_rounds
got = []
def run_rounds(*a, **k):
    cpu, wall = time.process_time(), time.perf_counter()
    out = timed(*a, **k)
    got.append(((time.process_time() - cpu) / n, (time.perf_counter() - wall) / n))
    return out
session.rounds.run_rounds = run_rounds
class Terminal:  # /dev/null that says it is a terminal, so the rich bar draws
    def __init__(self): self.f = open(os.devnull, "w")
    def write(self, text): return self.f.write(text)
    def flush(self): pass
    def isatty(self): return True
    def fileno(self): return self.f.fileno()
session.run_experiment(exp, os.path.join(d, "quiet.db"), progress=Progress())
session.run_experiment(exp, os.path.join(d, "rich.db"), progress=RichProgress(Terminal()))
print(json.dumps({"quiet": got[0], "rich bar": got[1]}))
'''


def _env(tree: str) -> dict[str, str]:
    return tree_env(tree, os.path.join(tempfile.gettempdir(), "benchlab-runner-cpu-pyc"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trees", nargs="*", default=["."], help="source trees (default: .)")
    p.add_argument("--runs", type=int, default=1000, help="executions in the loop")
    p.add_argument("--repeat", type=int, default=6, help="interleaved repetitions")
    args = p.parse_args()
    trees = [os.path.abspath(t) for t in args.trees]
    for tree in trees:
        if not os.path.isfile(os.path.join(tree, "benchlab", "__init__.py")):
            p.error(f"{tree}: no benchlab package there")
    work = tempfile.mkdtemp()
    store = os.path.join(work, "two.db")
    subprocess.run([sys.executable, "-m", "benchlab", "run", "--runs", "5", "-o", store,
                    "--quiet", "--", "true", "true 1"], env=_env(trees[-1]), cwd=work,
                   check=True, capture_output=True)
    commands = {"benchlab --help": ["--help"],
                "quick mode, one command x 10": ["run", "--runs", "10", "--quiet", "--",
                                                 "true"],
                "quick mode, two commands x 10": ["run", "--runs", "10", "--quiet", "--",
                                                  "true", "true 1"],
                "compare of a 2 x 5 store": ["compare", store]}
    loop: dict[str, dict[str, list]] = {t: {} for t in trees}
    start: dict[str, dict[str, list[float]]] = {t: {c: [] for c in commands} for t in trees}
    for tree in trees:  # fill the bytecode cache first
        subprocess.run([sys.executable, "-m", "benchlab", "--help"], env=_env(tree), cwd=work,
                       check=True, capture_output=True)
    for k in range(args.repeat):
        order = trees if k % 2 == 0 else trees[::-1]
        for tree in order:
            out = subprocess.run([sys.executable, "-c", _LOOP, str(args.runs)],
                                 env=_env(tree), cwd=work, check=True, capture_output=True,
                                 text=True).stdout
            for mode, values in json.loads(out).items():
                loop[tree].setdefault(mode, []).append(values)
        for name, argv in commands.items():
            for tree in order:
                before = children_cpu()
                subprocess.run([sys.executable, "-m", "benchlab", *argv], env=_env(tree),
                               cwd=work, check=True, capture_output=True)
                start[tree][name].append(children_cpu() - before)
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"round loop, {args.runs} executions of true, medians of {args.repeat}: the "
          "runner's CPU (and wall) per execution")
    for tree in trees:
        cells = [f"{mode} {statistics.median(c for c, _ in v) * 1e6:.0f} µs "
                 f"({statistics.median(w for _, w in v) * 1e6:.0f} µs wall)"
                 for mode, v in loop[tree].items()]
        print(f"  {tree}: " + "; ".join(cells))
    print("start-up: CPU of the whole invocation (with its children), medians")
    for name in commands:
        print(median_row(name, [start[t][name] for t in trees], width=32))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""`benchlab run`'s start-up: what it costs before its first execution and in all, for one
or more source trees side by side (before/after a change), interleaved in fresh processes.

    first execution   quick mode (`run --runs 2 --warmup 0 -- PROBE`) and a file of one
                      alternative: the wall time from the invocation to its first
                      execution, and the runner's own CPU time (user + system) by then,
                      which the measured command itself reads from /proc/PPID/stat
    whole invocation  the CPU time (user + system, with the children's, from
                      getrusage: what `/usr/bin/time -f %U+%S` prints) of a 2-execution
                      invocation of `true`: quick mode with one command (its summary
                      printed after), with two (its compare), and the file

CPU time moves far less with machine load than wall time, so on a shared machine the CPU
figures are the ones to compare (docs/run.md#overhead-and-timer). Medians over --repeat
interleaved repetitions; the trees run from a temporary directory with their bytecode
cached (PYTHONPYCACHEPREFIX), as an installed package has it.

Run
    python3 benchmarks/run_startup.py                    # this tree
    python3 benchmarks/run_startup.py OLD_TREE .         # a tree before a change, then this
A tree is a directory holding the benchlab package (e.g. `git archive main | tar -x -C OLD`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from _trees import children_cpu, median_row, tree_env

# The measured command: on the first execution only, the time and the runner's (its
# parent's) utime and stime in clock ticks (fields 14 and 15 of /proc/PID/stat).
PROBE = ("[ -e {out} ] && exit 0; date +%s.%N > {out}; "
         "set -- $(cat /proc/$PPID/stat); echo ${{14}} ${{15}} >> {out}")


def _env(tree: str, work: str, k: int) -> dict[str, str]:
    return tree_env(tree, os.path.join(work, f"pyc{k}"))


def _clean(work: str) -> None:
    for name in ("s.db", "s.db-outcomes", "s.db-wal", "s.db-shm", "first"):
        path = os.path.join(work, name)
        if os.path.exists(path):
            os.remove(path)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trees", nargs="*", default=["."], help="source trees (default: .)")
    p.add_argument("--repeat", type=int, default=10, help="interleaved repetitions")
    args = p.parse_args()
    trees = [os.path.abspath(t) for t in args.trees]
    for tree in trees:
        if not os.path.isfile(os.path.join(tree, "benchlab", "__init__.py")):
            p.error(f"{tree}: no benchlab package there")
    work = tempfile.mkdtemp()
    out = os.path.join(work, "first")
    probe = PROBE.format(out=out)
    with open(os.path.join(work, "probe.toml"), "w", encoding="utf-8") as f:
        f.write('executions = 2\n[warmup]\nexecutions = 0\n[alternatives.probe]\n'
                f'command = ["sh", "-c", "{probe.replace("{", "{{").replace("}", "}}")}"]\n')
    with open(os.path.join(work, "true.toml"), "w", encoding="utf-8") as f:
        f.write('executions = 2\n[warmup]\nexecutions = 0\n[alternatives.true]\n'
                'command = ["true"]\n')
    quick = ["run", "--runs", "2", "--warmup", "0", "-o", "s.db", "--quiet", "--"]
    firsts = {"quick mode": [*quick, f"sh -c '{probe}'"],
              "file": ["run", "probe.toml", "-o", "s.db", "--quiet"]}
    wholes = {"quick mode, one command": [*quick, "true"],
              "quick mode, two commands": [*quick, "true", "true 1"],
              "file, one alternative": ["run", "true.toml", "-o", "s.db", "--quiet"]}
    tick = os.sysconf("SC_CLK_TCK")
    first = {t: {n: [] for n in firsts} for t in trees}
    whole = {t: {n: [] for n in wholes} for t in trees}
    for k, tree in enumerate(trees):  # fill the bytecode caches first
        subprocess.run([sys.executable, "-m", "benchlab", *wholes["quick mode, one command"]],
                       env=_env(tree, work, k), cwd=work, check=True, capture_output=True)
        _clean(work)
    for r in range(args.repeat):
        order = list(enumerate(trees)) if r % 2 == 0 else list(enumerate(trees))[::-1]
        for name, argv in firsts.items():
            for k, tree in order:
                _clean(work)
                start = time.time()
                subprocess.run([sys.executable, "-m", "benchlab", *argv], check=True,
                               env=_env(tree, work, k), cwd=work, capture_output=True)
                with open(out, encoding="utf-8") as f:
                    when, ticks = f.read().split("\n")[:2]
                first[tree][name].append((float(when) - start,
                                          sum(int(x) for x in ticks.split()) / tick))
        for name, argv in wholes.items():
            for k, tree in order:
                _clean(work)
                before = children_cpu()
                subprocess.run([sys.executable, "-m", "benchlab", *argv], check=True,
                               env=_env(tree, work, k), cwd=work, capture_output=True)
                whole[tree][name].append(children_cpu() - before)
    print(f"load average at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"medians of {args.repeat}")
    print("to the first execution: wall time, and the runner's CPU time by then")
    for name in firsts:
        print(f"  {name:<28}" + "".join(
            f"{statistics.median(w for w, _ in first[t][name]) * 1e3:>9.0f} ms "
            f"({statistics.median(c for _, c in first[t][name]) * 1e3:.0f} ms CPU)"
            for t in trees))
    print("whole 2-execution invocation: CPU time with the children's (%U+%S)")
    for name in wholes:
        print(median_row(name, [whole[t][name] for t in trees]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

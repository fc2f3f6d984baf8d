"""Start-up time of the `benchlab` command line, as ratios to `python -c "import numpy"`.

What it measures
    Wall time of whole processes (subprocess, output discarded), median over
    --runs rounds (default 20, after --warmup unmeasured rounds); within a
    round the commands run interleaved in a shuffled order, so slow drifts of
    the machine's load hit every command alike:

      (a) python -c "import numpy"                      the yardstick
      (b) python -m benchlab compare --ministat A B     ministat mode
      (c) python -m benchlab compare A B                default mode
      (d) python -m benchlab --help
      (e) python -m benchlab compare A B --tests        for information

    A and B are two files of 30 values each, generated into a temporary
    directory. Times are printed in ms and as ratios to (a) — ratios, because
    absolute start-up times depend on the machine.

    Then, for each mode, which heavy modules it imports (numpy, scipy,
    scipy.special, scipy.stats, statsmodels, matplotlib, pandas, diptest):
    a `python -c` wrapper calls `benchlab.cli.main.main([...])` with its output
    discarded and reports sys.modules; and the largest top-level imports by
    cumulative time from `python -X importtime` (one run, so noisy).

Goals (from the issue)
    (b) <= 1.5 x (a)   and   (c) <= 4 x (a).

Run
    python3 benchmarks/startup.py                 # table
    python3 benchmarks/startup.py --json          # the same figures as JSON
    python3 benchmarks/startup.py --runs 40       # more rounds on a noisy machine

The package is run from this checkout (cwd = repo root, PYTHONPATH set), with
the interpreter running this script, from bytecode as a pip-installed package
is (pip byte-compiles what it installs): PYTHONDONTWRITEBYTECODE, which this
machine's environment sets, is dropped for the measured processes and their
bytecode goes to a temporary PYTHONPYCACHEPREFIX, written in the warm-up
rounds. `--no-bytecode` measures with the environment as it is (an editable
checkout with PYTHONDONTWRITEBYTECODE compiles benchlab's modules from source
at every start: about 0.13 s more for `compare`). Other load on the machine makes the
figures noisy; the spread (quartiles) is printed beside each median.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("numpy", "scipy", "scipy.special", "scipy.stats", "statsmodels", "matplotlib",
         "pandas", "diptest")
GOALS = {"ministat": 1.5, "default": 4.0}

WRAPPER = r"""
import contextlib, io, json, sys
from benchlab.cli.main import main
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:  # --help exits through argparse
        code = exc.code
heavy = HEAVY
print(json.dumps({"exit": code, "stderr": err.getvalue()[-500:],
                  "modules": len(sys.modules),
                  "heavy": [m for m in heavy if m in sys.modules]}))
""".replace("HEAVY", repr(HEAVY))


def make_inputs(directory: str, seed: int = 1) -> tuple[str, str]:
    rng = random.Random(seed)
    paths = []
    for name, mu in (("A.txt", 100.0), ("B.txt", 103.0)):
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            for _ in range(30):
                f.write(f"{rng.gauss(mu, 3.0):.4f}\n")
        paths.append(path)
    return paths[0], paths[1]


def commands(a: str, b: str) -> dict[str, tuple[str, list[str] | None]]:
    """name → (description, benchlab argv or None for the numpy yardstick)."""
    return {
        "numpy": ('python -c "import numpy"', None),
        "ministat": ("benchlab compare --ministat A B", ["compare", "--ministat", a, b]),
        "default": ("benchlab compare A B", ["compare", a, b]),
        "help": ("benchlab --help", ["--help"]),
        "tests": ("benchlab compare A B --tests", ["compare", a, b, "--tests"]),
    }


def env(pycache: str | None) -> dict[str, str]:
    """The measured processes' environment: this checkout first on the path; with `pycache`,
    bytecode written to and read from that directory (as an installed package has it)."""
    e = dict(os.environ)
    e["PYTHONPATH"] = ROOT + (os.pathsep + e["PYTHONPATH"] if e.get("PYTHONPATH") else "")
    e.pop("PYTHONPROFILEIMPORTTIME", None)
    if pycache is not None:
        e.pop("PYTHONDONTWRITEBYTECODE", None)
        e["PYTHONPYCACHEPREFIX"] = pycache
    return e


def argv_of(spec: list[str] | None) -> list[str]:
    if spec is None:
        return [sys.executable, "-c", "import numpy"]
    return [sys.executable, "-m", "benchlab", *spec]


def check(name: str, argv: list[str], environ: dict[str, str]) -> str | None:
    """Run once with output captured; an error message if it failed."""
    p = subprocess.run(argv, cwd=ROOT, env=environ, capture_output=True, text=True)
    if p.returncode != 0:
        return f"{name}: exit {p.returncode}: {p.stderr.strip()[-300:]}"
    return None


def time_rounds(cmds: dict, runs: int, warmup: int, environ: dict[str, str],
                seed: int) -> dict[str, list[float]]:
    rng = random.Random(seed)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    names = list(cmds)
    for r in range(warmup + runs):
        rng.shuffle(names)
        for name in names:
            argv = argv_of(cmds[name][1])
            t = time.perf_counter()
            subprocess.run(argv, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            dt = time.perf_counter() - t
            if r >= warmup:
                times[name].append(dt)
    return times


def modules_of(spec: list[str] | None, environ: dict[str, str]) -> dict:
    if spec is None:
        code = ("import numpy, sys, json; print(json.dumps({'exit': 0, 'stderr': '', "
                f"'modules': len(sys.modules), 'heavy': [m for m in {HEAVY!r} "
                "if m in sys.modules]}))")
        argv = [sys.executable, "-c", code]
    else:
        argv = [sys.executable, "-c", WRAPPER, *spec]
    p = subprocess.run(argv, cwd=ROOT, env=environ, capture_output=True, text=True)
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"exit": p.returncode, "stderr": p.stderr[-500:], "modules": None, "heavy": None}


def importtime_top(spec: list[str] | None, environ: dict[str, str], k: int) -> list:
    """The k largest top-level imports by cumulative time (ms) from -X importtime."""
    argv = argv_of(spec)
    argv = [argv[0], "-X", "importtime", *argv[1:]]
    p = subprocess.run(argv, cwd=ROOT, env=environ, capture_output=True, text=True)
    top = []
    for line in p.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self_us, cum_us, name = line[len("import time:"):].split("|")
        if name.startswith(" ") and not name.startswith("  "):  # one space: top level
            top.append((name.strip(), int(cum_us) / 1000.0))
    top.sort(key=lambda t: -t[1])
    return top[:k]


def quartiles(xs: list[float]) -> tuple[float, float, float]:
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="measured rounds (default 20)")
    ap.add_argument("--warmup", type=int, default=2, help="unmeasured rounds first")
    ap.add_argument("--seed", type=int, default=0, help="seed of the shuffled order")
    ap.add_argument("--top", type=int, default=4, help="largest imports shown per mode")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="keep the environment's PYTHONDONTWRITEBYTECODE (modules compiled "
                    "from source at every start, as in an editable checkout here)")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="benchlab-startup-") as tmp:
        environ = env(None if args.no_bytecode else os.path.join(tmp, "pycache"))
        a, b = make_inputs(tmp)
        cmds = commands(a, b)
        failures = [msg for name, (_, spec) in cmds.items()
                    if (msg := check(name, argv_of(spec), environ))]
        t0 = time.perf_counter()
        times = time_rounds(cmds, args.runs, args.warmup, environ, args.seed)
        elapsed = time.perf_counter() - t0
        mods = {name: modules_of(spec, environ) for name, (_, spec) in cmds.items()}
        tops = {name: importtime_top(spec, environ, args.top) for name, (_, spec) in cmds.items()}

    base = statistics.median(times["numpy"])
    rows = {}
    for name, (desc, _) in cmds.items():
        q1, med, q3 = quartiles(times[name])
        rows[name] = {"command": desc, "median_ms": 1000 * med, "q1_ms": 1000 * q1,
                      "q3_ms": 1000 * q3, "min_ms": 1000 * min(times[name]),
                      "ratio": med / base, "goal": GOALS.get(name),
                      "goal_met": (med / base <= GOALS[name]) if name in GOALS else None,
                      "imports": mods[name], "importtime_top_ms": tops[name]}
    result = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "runs": args.runs,
              "bytecode": not args.no_bytecode,
              "warmup": args.warmup, "loadavg": os.getloadavg(), "elapsed_s": elapsed,
              "failures": failures, "commands": rows}

    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 1 if failures else 0

    print(f"Start-up wall time, median of {args.runs} interleaved runs (+{args.warmup} "
          f"warm-up), Python {result['python']}, {result['cpus']} CPUs, "
          + ("from bytecode" if result["bytecode"] else "compiled from source")
          + ", load average " + " ".join(f"{x:.2f}" for x in result["loadavg"]))
    print()
    print(f"  {'command':36} {'median':>8} {'q1..q3 ms':>15} {'min':>7} {'ratio':>6}  goal")
    for name, r in rows.items():
        goal = ""
        if r["goal"] is not None:
            goal = f"<= {r['goal']:g}x  {'met' if r['goal_met'] else 'NOT MET'}"
        print(f"  ({'abcde'[list(rows).index(name)]}) {r['command']:32} {r['median_ms']:6.1f}ms "
              f"{r['q1_ms']:6.1f}..{r['q3_ms']:6.1f} {r['min_ms']:7.1f} {r['ratio']:5.2f}x  {goal}")
    print()
    print("Heavy modules imported (sys.modules after the command; total module count):")
    for name, r in rows.items():
        m = r["imports"]
        heavy = ", ".join(m["heavy"]) if m["heavy"] else "(none)"
        extra = f"  [exit {m['exit']}]" if m["exit"] not in (0, None) else ""
        print(f"  ({'abcde'[list(rows).index(name)]}) {r['command']:32} {m['modules']!s:>4} "
              f"modules: {heavy}{extra}")
    print()
    print("Largest top-level imports by cumulative time (-X importtime, one run, ms):")
    for name, r in rows.items():
        items = ", ".join(f"{mod} {ms:.0f}" for mod, ms in r["importtime_top_ms"])
        print(f"  ({'abcde'[list(rows).index(name)]}) {items}")
    if failures:
        print()
        print("FAILED commands (their times above are the times to fail):")
        for msg in failures:
            print(f"  {msg}")
    print()
    print(f"Total {elapsed:.1f} s of timing. Other load on the machine adds noise: compare "
          "the quartiles; rerun with --runs 40 if they are wide.")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

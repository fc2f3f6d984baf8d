"""Zero lost or duplicated measurements over random worker kills (issue 13's third bar).

What it does
    Starts a real `dask scheduler` and two `benchlab worker` processes on
    127.0.0.1 (machines m1 and m2, each worker's environment says which one it
    is: WHO=1 or WHO=2), and runs `benchlab run --cluster tcp://...` of an
    experiment with `[machines] role = "factor"`: 2 alternatives x 2 values of
    a factor n x 2 machines x (1 warm-up + E) executions, each execution
    printing 1 warm-up + 3 iterations of a value parsed by regex, and sleeping
    30 ms (a) or 50 ms (b) (--sleep). During the run it SIGKILLs a random
    worker at random moments (--kills times, default 10), each time starting
    a new worker for that machine after a short random delay; once, midway,
    it SIGKILLs the driver and finishes the run with `--resume` (the worker
    kills go on meanwhile).

    Every value a trial prints encodes who printed it and for which trial:
    v = 1000 * WHO + 100 * n + 10 * (alternative: a 1, b 2) + iteration, so a
    measurement recorded for the wrong trial, from the wrong machine, twice
    or not at all shows in the store. Each execution also appends a line to
    ran.log, so the script counts how many executions really ran (a killed
    worker's running batch of trials, and the trials the killed driver had in
    flight, run again: these re-runs must not be recorded twice).

Checks (each printed with its count; the script exits 1 when one fails)
    - the store's trials are exactly the planned ones (count from the design),
      every one `ok`, each once;
    - each trial's `machine` column and `machine` factor agree;
    - each trial has exactly 4 measurements (iterations 1..4, the first the
      warm-up iteration), no (trial, iteration, metric) twice, and every
      value is the one its own trial prints on its own machine;
    - every planned execution appears in ran.log at least once, on its own
      machine (runs beyond the first are the re-sent ones, counted);
    - two sessions (the killed driver's and the resume's), the store's
      integrity check passes.

Run
    python3 validation/cluster_kills.py                # 10 kills, about a minute
    python3 validation/cluster_kills.py --quick        # 3 kills, fewer trials
    python3 validation/cluster_kills.py --seed 5 --kills 10 --executions 100
    python3 validation/cluster_kills.py --sleep 2,4 --executions 1000   # shorter trials
(last output: validation/cluster_kills.out.txt)
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's benchlab, and tests/support
from tests.support.dask_processes import BENCHLAB, ENV, NotReady, Processes  # noqa: E402

MACHINES = ("m1", "m2")
ALTERNATIVES = {"a": 1, "b": 2}
NS = (1, 2)
ITERATIONS = 3  # plus 1 warm-up iteration: 4 values per execution


def value(machine: str, n: int, alternative: str, iteration: int) -> int:
    """What an execution of (alternative, n) on `machine` prints for `iteration` (1-based)."""
    return 1000 * (MACHINES.index(machine) + 1) + 100 * n + 10 * ALTERNATIVES[alternative] \
        + iteration


def experiment(tmp: Path, executions: int, seed: int, sleeps: tuple[float, float]) -> Path:
    """The experiment file: each execution logs who ran it, prints its 4 values, sleeps."""
    alternatives = ""
    for alt, code in ALTERNATIVES.items():
        command = (f'echo {{machine}} "$WHO" {alt} {{n}} >> ran.log; '
                   f'for i in 1 2 3 4; do echo "v: $WHO"{{n}}{code}"$i"; done; '
                   f'sleep {sleeps[code - 1]:g}')
        alternatives += f"\n[alternatives.{alt}]\ncommand = '{command}'\n"
    path = tmp / "kills.toml"
    path.write_text(textwrap.dedent(f"""
        seed = {seed}
        executions = {executions}
        iterations = {ITERATIONS}
        shell = true
        timeout = "20s"
        [warmup]
        executions = 1
        iterations = 1
        [measure]
        regex = 'v: (?P<v>[0-9]+)'
        unit = "1"
        [machines]
        names = ["m1", "m2"]
        role = "factor"
        [factors]
        n = [1, 2]
        """) + alternatives)
    return path


def ok_trials(db: Path) -> int:
    """How many trials the store holds as ok (0 while it cannot be read)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=2) as conn:
            return conn.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok'").fetchone()[0]
    except sqlite3.Error:
        return 0


class Chaos:
    """The workers of m1 and m2, killed at random moments and started again."""

    def __init__(self, procs: Processes, address: str, rng: np.random.Generator) -> None:
        self.procs, self.address, self.rng = procs, address, rng
        self.workers: dict[str, subprocess.Popen] = {}
        self.starts: Counter = Counter()
        self.kills: list[tuple[float, str, int]] = []  # (time, machine, trials ok then)

    def start(self, machine: str) -> None:
        name = f"worker-{machine}"
        self.starts[machine] += 1
        self.workers[machine] = self.procs.worker(  # its log appended to at each start
            self.address, machine, name=name, env=dict(ENV, WHO=str(MACHINES.index(machine) + 1)),
            count=self.starts[machine], append=True)

    def kill_one(self, db: Path, began: float) -> None:
        """SIGKILL a random machine's worker; start it again after 0.1-1.5 s."""
        machine = str(self.rng.choice(MACHINES))
        p = self.workers[machine]
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(timeout=10)
        self.kills.append((time.monotonic() - began, machine, ok_trials(db)))
        time.sleep(float(self.rng.uniform(0.1, 1.5)))
        self.start(machine)


def run(args: argparse.Namespace, tmp: Path) -> dict:
    """The run with its kills; what happened (counts) for the checks."""
    rng = np.random.default_rng(args.seed)
    procs = Processes(tmp)
    try:
        address = procs.scheduler()
        chaos = Chaos(procs, address, rng)
        for m in MACHINES:
            chaos.start(m)
        exp = experiment(tmp, args.executions, args.seed, args.sleep)
        db = tmp / "kills.db"
        argv = [*BENCHLAB, "run", str(exp), "--cluster", address, "-o", str(db), "--quiet"]
        planned = len(MACHINES) * len(ALTERNATIVES) * len(NS) * (args.executions + 1)
        began = time.monotonic()
        driver = procs.start(argv, "driver")
        driver_killed_at = None
        kill_driver_after = int(rng.integers(args.kills // 3, 2 * args.kills // 3 + 1))
        resumed = None
        while ok_trials(db) == 0 and driver.poll() is None:  # kills start once trials run
            time.sleep(0.05)
        while len(chaos.kills) < args.kills:
            time.sleep(float(rng.uniform(0.3, 2.5)))
            current = resumed or driver
            if current.poll() is not None or ok_trials(db) >= planned:
                break  # a kill counts only while planned trials are left
            chaos.kill_one(db, began)
            if len(chaos.kills) == kill_driver_after and driver_killed_at is None:
                time.sleep(float(rng.uniform(0.0, 1.0)))
                driver_killed_at = (time.monotonic() - began, ok_trials(db))
                os.killpg(driver.pid, signal.SIGKILL)
                driver.wait(timeout=10)
                resumed = procs.start([*argv, "--resume"], "resume")
        current = resumed or driver
        try:
            code = current.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            code = None
        elapsed = time.monotonic() - began
        return {"planned": planned, "db": db, "kills": chaos.kills, "starts": chaos.starts,
                "driver_killed_at": driver_killed_at, "exit": code, "seconds": elapsed,
                "ran_log": tmp / "ran.log", "resumed": resumed is not None,
                "driver_log": (tmp / "driver.log").read_text(errors="replace"),
                "resume_log": (tmp / "resume.log").read_text(errors="replace")
                if resumed is not None else ""}
    finally:
        procs.close()


def check(result: dict) -> list[tuple[str, bool, str]]:
    """The store and ran.log against the plan: (check, passed, counts)."""
    conn = sqlite3.connect(result["db"])
    trials = conn.execute("SELECT seq, status, alternative, factors, machine, warmup "
                          "FROM trials ORDER BY seq").fetchall()
    meas = conn.execute("SELECT trial, iteration, metric, value FROM measurements").fetchall()
    sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
    conn.close()
    out = []
    status = Counter(t[1] for t in trials)
    out.append(("every planned trial in the store, once, ok",
                len(trials) == result["planned"] == status["ok"]
                and len({t[0] for t in trials}) == len(trials),
                f"planned {result['planned']}, rows {len(trials)}, status {dict(status)}"))
    factors = {t[0]: json.loads(t[3]) for t in trials}
    wrong_column = [t[0] for t in trials if t[4] != factors[t[0]].get("machine")]
    out.append(("machine column = machine factor", not wrong_column,
                f"{len(wrong_column)} differ"))
    keys = Counter((m[0], m[1], m[2]) for m in meas)
    per_trial = Counter(m[0] for m in meas)
    counts = Counter(per_trial.get(t[0], 0) for t in trials)
    out.append(("4 measurements per trial, none twice",
                set(counts) == {ITERATIONS + 1} and max(keys.values(), default=0) == 1,
                f"{len(meas)} measurements; trials by count {dict(sorted(counts.items()))}; "
                f"duplicated keys {sum(1 for c in keys.values() if c > 1)}"))
    by_trial: dict[int, list[tuple[int, float]]] = {}
    for trial, iteration, _metric, v in meas:
        by_trial.setdefault(trial, []).append((iteration, v))
    wrong, example = 0, ""
    for seq, _status, alt, _f, _m, _w in trials:
        f = factors[seq]
        got = [v for _, v in sorted(by_trial.get(seq, []))]
        want = [value(f["machine"], int(f["n"]), alt, i) for i in range(1, ITERATIONS + 2)]
        if got != want:
            wrong += 1
            example = example or f" (trial {seq}: {got} where {want})"
    out.append(("every value from its own trial on its own machine, in order", wrong == 0,
                f"{wrong} trials with other values{example}"))
    lines = [w.split() for w in result["ran_log"].read_text().splitlines()]
    misplaced = sum(1 for w in lines if f"m{w[1]}" != w[0])
    ran = Counter((w[0], w[2], w[3]) for w in lines)
    planned_cells = Counter((t[4], t[2], str(factors[t[0]]["n"])) for t in trials)
    short = sum(max(0, n - ran.get(cell, 0)) for cell, n in planned_cells.items())
    out.append(("every execution ran on its own machine", misplaced == 0 and short == 0,
                f"{len(lines)} executions ran for {len(trials)} planned: "
                f"{len(lines) - len(trials)} run again (what the killed workers were running, "
                f"what the killed driver had sent); {misplaced} on another machine, "
                f"{short} missing"))
    out.append(("two sessions (killed driver, resume); integrity",
                sessions == (2 if result["resumed"] else 1) and integrity == "ok",
                f"sessions {sessions}, integrity {integrity}"))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kills", type=int, default=10)
    p.add_argument("--executions", type=int, default=100, help="per cell (plus 1 warm-up)")
    p.add_argument("--seed", type=int, default=20261125)
    p.add_argument("--timeout", type=float, default=240.0,
                   help="seconds the run may take after the last kill")
    p.add_argument("--sleep", type=lambda s: tuple(float(x) / 1e3 for x in s.split(",")),
                   default=(0.03, 0.05), metavar="MS,MS",
                   help="how long executions of a and b sleep, ms (default: 30,50)")
    p.add_argument("--quick", action="store_true", help="3 kills, 15 executions per cell")
    args = p.parse_args()
    if args.quick:
        args.kills, args.executions = 3, 15
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("Dask distributed is not installed (pip install 'benchlab[cluster]')",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="benchlab-cluster-kills-") as name:
        try:
            result = run(args, Path(name))
        except NotReady as exc:
            raise SystemExit(str(exc)) from None
        print(f"experiment: 2 machines x 2 alternatives x 2 n x (1 warm-up + "
              f"{args.executions}) executions = {result['planned']} trials, "
              f"{ITERATIONS + 1} values each (seed {args.seed})")
        print(f"run: {result['seconds']:.1f} s, driver exit {result['exit']} "
              f"({'resumed' if result['resumed'] else 'not resumed'})")
        events = [(when, f"worker {machine}", ok) for when, machine, ok in result["kills"]]
        if result["driver_killed_at"] is not None:
            events.append((*result["driver_killed_at"][:1], "driver",
                           result["driver_killed_at"][1]))
        for when, what, ok in sorted(events):
            print(f"  {when:5.1f} s  SIGKILL {what} ({ok} trials ok then)"
                  + ("; run --resume" if what == "driver" else ""))
        print(f"worker starts: {dict(result['starts'])}")
        if result["exit"] != 0:
            print("driver log:", result["driver_log"][-600:])
            print("resume log:", result["resume_log"][-600:])
        checks = check(result) if result["db"].exists() else []
    failed = 0
    for what, ok, counts in checks:
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {counts}")
    short = len(result["kills"]) < args.kills
    if short:
        print(f"FAIL only {len(result['kills'])} of {args.kills} kills before the run ended")
    verdict = failed == 0 and not short and result["exit"] == 0 and checks
    print(f"goal: zero lost or duplicated measurements over {args.kills} worker kills and a "
          f"driver kill: {'met' if verdict else 'MISSED'}")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())

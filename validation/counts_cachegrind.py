"""Instruction counts under cachegrind: their spread, and a 1% change at n = 5 (issue 23 part 5).

What it does
    Writes a deterministic C program (loop.c: a loop of LENGTH iterations, a
    compile-time constant) and runs real experiments with `benchlab run`'s
    runner, each building the program in its build step with `cc -O1
    -DLENGTH=...`, with `metrics = ["wall", "instructions"]` and `counter =
    "cachegrind"`: every execution index runs each alternative once timed and
    once counted under `valgrind --tool=cachegrind --cache-sim=no`, in one
    seeded random order. Then `benchlab compare STORE --metric instructions`
    (and `--metric wall`, for contrast) decides each experiment.

    1. Spread: one alternative, 30 executions (timed and counted): the CoV
       of the instruction counts and of the wall times.
    2. Power: 20 experiments (seeds 1..20 + --seed), alternatives `base`
       (LENGTH = 2,000,000) and `plus1` (LENGTH + 1%), n = 5 executions each:
       how often the verdict on instructions is "change" (and on wall time).
    3. False alarms: 20 A/A experiments, both alternatives LENGTH =
       2,000,000 (built separately): how often the verdict is "change".
    4. A Python program (a set of strings, whose order and collisions follow
       the per-process hash seed: PYTHONHASHSEED is removed from the
       environment, ASLR as the machine has it), 20 executions: CoV of
       the counts against CoV of the wall times.

Checks (the script exits 1 when one fails)
    - the C program's instruction counts have CoV <= 0.1% over 30 executions;
    - a 1% change is decided "change" on instructions in 20 of 20 experiments;
    - no A/A experiment is decided "change" on instructions.

Run
    nice python3 validation/counts_cachegrind.py   # ~450 Valgrind runs: 65 min at load 23
    python3 validation/counts_cachegrind.py --quick         # 5 experiments each, 10 executions
(last output: validation/counts_cachegrind.out.txt)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.cli.main import main as benchlab  # noqa: E402
from benchlab.runner.session import run_experiment  # noqa: E402
from benchlab.runner.store import Store  # noqa: E402

LENGTH = 2_000_000
LOOP_C = r"""
/* A deterministic loop: LENGTH iterations of a few integer instructions. */
int main(void) {
    volatile unsigned long s = 0;
    for (long i = 0; i < LENGTH; i++) s += (unsigned long)i ^ (s >> 3);
    return (int)(s & 0);
}
"""
PYTHON_CODE = ("s = set(str(i) * 3 for i in range(20000))\n"
               "t = sorted(x for x in s if hash(x) % 7 == 0)\n")


def experiment(directory: Path, lengths: dict[str, int], executions: int) -> Path:
    """An experiment file building loop.c once per alternative with its LENGTH."""
    (directory / "loop.c").write_text(LOOP_C)
    lines = [f"executions = {executions}", 'metrics = ["wall", "instructions"]',
             'counter = "cachegrind"']
    for name, length in lengths.items():
        lines += ["", f"[alternatives.{name}]",
                  f'build = ["cc", "-O1", "-DLENGTH={length}", "-o", "loop-{name}", "loop.c"]',
                  f'command = ["./loop-{name}"]']
    path = directory / "exp.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def values(db: str, metric: str, alternative: str | None = None) -> np.ndarray:
    store = Store.open(db)
    try:
        rows = store.rows(metric)
    finally:
        store.close()
    return np.array([r.value for r in rows if alternative in (None, r.alternative)])


def cov(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1) / np.mean(x))


def verdict(db: str, metric: str) -> tuple[str, float]:
    """compare's verdict and ratio estimate for the store on `metric`."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = benchlab(["compare", db, "--metric", metric, "--json"])
    if code not in (0, 1):
        raise SystemExit(f"compare {db} --metric {metric} exited {code}")
    (pair,) = json.loads(out.getvalue())["comparisons"]
    return pair["verdict"]["outcome"], pair["ratio"]["estimate"]


def run(directory: Path, lengths: dict[str, int], executions: int, seed: int) -> str:
    directory.mkdir(parents=True)
    path = experiment(directory, lengths, executions)
    db = str(directory / "r.db")
    result = run_experiment(str(path), db, seed=seed)
    if result.counts.get("failed"):
        raise SystemExit(f"{path}: {result.failures[:1]}")
    return db


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 experiments, 10 executions")
    parser.add_argument("--seed", type=int, default=0, help="added to each experiment's seed")
    args = parser.parse_args()
    if shutil.which("valgrind") is None or shutil.which("cc") is None:
        print("needs valgrind and cc (apt-get install valgrind gcc)")
        return 2
    os.environ.pop("PYTHONHASHSEED", None)  # the Python program's hash seed varies
    experiments, spread_n, python_n = (5, 10, 8) if args.quick else (20, 30, 20)
    n = 5
    failures = []
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="counts-cachegrind-"))
    try:
        with open("/proc/loadavg") as handle:
            load = handle.read().split()[0]
        store = None
        print(f"counts under cachegrind; valgrind {shutil.which('valgrind')}, load {load}")
        # 1. spread over `spread_n` executions
        db = run(work / "spread", {"loop": LENGTH}, spread_n, 1 + args.seed)
        store = Store.open(db)
        version = store.metric_sources()["instructions"]["version"]
        store.close()
        ir, wall = values(db, "instructions"), values(db, "wall")
        print(f"\n1. C loop (LENGTH {LENGTH:,}), {spread_n} executions, {version}")
        print(f"   instructions: mean {ir.mean():,.0f}, min {ir.min():,.0f}, max {ir.max():,.0f},"
              f" CoV {100 * cov(ir):.4f}%")
        print(f"   wall time:    mean {1e3 * wall.mean():.3f} ms, CoV {100 * cov(wall):.2f}%")
        if not cov(ir) <= 0.001:
            failures.append(f"CoV of the counts {100 * cov(ir):.4f}% > 0.1%")
        # 2. a 1% change at n = 5
        plus = int(LENGTH * 1.01)
        found = {"instructions": [], "wall": []}
        ratios = []
        for k in range(1, experiments + 1):
            db = run(work / f"change{k}", {"base": LENGTH, "plus1": plus}, n, k + args.seed)
            for metric in found:
                outcome, ratio = verdict(db, metric)
                found[metric].append(outcome)
                if metric == "instructions":
                    ratios.append(ratio)
        hits = {m: sum(v == "change" for v in found[m]) for m in found}
        print(f"\n2. 1% more loop iterations (LENGTH {plus:,}), n = {n} per alternative, "
              f"{experiments} seeded experiments")
        print(f"   instructions: verdict change in {hits['instructions']}/{experiments}; "
              f"ratio {min(ratios):.5f} .. {max(ratios):.5f}")
        print(f"   wall time:    verdict change in {hits['wall']}/{experiments} "
              f"(others: {', '.join(sorted(set(found['wall']) - {'change'})) or 'none'})")
        if hits["instructions"] != experiments:
            failures.append(f"1% change found in {hits['instructions']}/{experiments}")
        # 3. A/A
        alarms = {"instructions": 0, "wall": 0}
        outcomes = set()
        for k in range(1, experiments + 1):
            db = run(work / f"aa{k}", {"a1": LENGTH, "a2": LENGTH}, n, 100 + k + args.seed)
            for metric in alarms:
                outcome, _ = verdict(db, metric)
                alarms[metric] += outcome == "change"
                if metric == "instructions":
                    outcomes.add(outcome)
        print(f"\n3. A/A (both LENGTH {LENGTH:,}, built separately), n = {n}, "
              f"{experiments} experiments")
        print(f"   instructions: verdict change (false alarm) in "
              f"{alarms['instructions']}/{experiments}; verdicts seen: "
              f"{', '.join(sorted(outcomes))}")
        print(f"   wall time:    false alarm in {alarms['wall']}/{experiments}")
        if alarms["instructions"]:
            failures.append(f"{alarms['instructions']} A/A false alarms")
        # 4. a Python program
        directory = work / "python"
        directory.mkdir()
        path = directory / "exp.toml"
        code = json.dumps(PYTHON_CODE)
        path.write_text(textwrap.dedent(f"""
            executions = {python_n}
            metrics = ["wall", "instructions"]
            counter = "cachegrind"
            [alternatives.py]
            command = ["{sys.executable}", "-c", {code}]
        """))
        db = str(directory / "r.db")
        run_experiment(str(path), db, seed=7 + args.seed)
        ir, wall = values(db, "instructions"), values(db, "wall")
        print(f"\n4. Python ({sys.version.split()[0]}, a set of 20,000 strings; hash seed "
              f"random per process), {python_n} executions")
        print(f"   instructions: mean {ir.mean():,.0f}, CoV {100 * cov(ir):.3f}% "
              f"(min {ir.min():,.0f}, max {ir.max():,.0f})")
        print(f"   wall time:    mean {1e3 * wall.mean():.1f} ms, CoV {100 * cov(wall):.2f}%")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{time.monotonic() - started:.0f} s")
    for f in failures:
        print(f"FAILED: {f}")
    print("all checks passed" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

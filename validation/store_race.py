"""Pairs of `benchlab run -o new.db` started together: is a store ever lost? (issue 15)

Each pair starts two real runners on the same new store within a millisecond of
each other. Goal: in every pair exactly one runs (exit 0) and the other exits 2
with one line, and the store on disk holds every measurement of the one that ran.
Run `python3 validation/store_race.py` (about 2 minutes for 100 pairs on 2 cores).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = textwrap.dedent("""
    seed = 1
    executions = 20
    [measure]
    regex = 'v: (?P<v>[0-9]+)'
    [alternatives.a]
    command = ["sh", "-c", "echo v: 1"]
    [alternatives.b]
    command = ["sh", "-c", "echo v: 2"]
""")
EXPECTED = 40


def one_pair(folder: Path, exp: Path, i: int, env: dict) -> str:
    """'ok', or what went wrong in this pair."""
    db = folder / f"race{i}.db"
    argv = [sys.executable, "-m", "benchlab", "run", str(exp), "-o", str(db), "--quiet"]
    procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    done = [(p.wait(120), *p.communicate()) for p in procs]
    codes = sorted(code for code, _, _ in done)
    if codes != [0, 2]:
        return f"exit codes {codes}: {[err.strip() for _, _, err in done]}"
    loser = next(err for code, _, err in done if code == 2)
    if loser.count("\n") != 1 or "Traceback" in loser:
        return f"loser's stderr not one line: {loser!r}"
    if not db.exists():
        return "store lost"
    conn = sqlite3.connect(db)
    try:
        count = conn.execute("SELECT COUNT(*) FROM measurements").fetchone()[0]
    finally:
        conn.close()
    return "ok" if count == EXPECTED else f"store holds {count} of {EXPECTED} measurements"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        exp = folder / "exp.toml"
        exp.write_text(EXPERIMENT)
        outcomes = [one_pair(folder, exp, i, env) for i in range(args.pairs)]
    bad = [o for o in outcomes if o != "ok"]
    print(f"pairs: {args.pairs}  one ran and one refused, store complete: "
          f"{args.pairs - len(bad)}  failures: {len(bad)}  "
          f"({time.perf_counter() - start:.0f} s)")
    for problem in sorted(set(bad)):
        print(f"  {bad.count(problem)} x {problem}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

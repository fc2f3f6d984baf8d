"""A PostgreSQL history under many writers (issue 29): 20 concurrent writers × 50 commits
lose nothing, the time of one add, and `history check` on PostgreSQL equals SQLite's on
the same data.

What it does
    Starts a PostgreSQL server of its own (initdb into a temporary directory, pg_ctl on
    a free loopback port; as `nobody` through runuser when run as root, since initdb
    refuses root), or uses --url. WRITERS processes, released together, each add
    COMMITS commits one at a time as a CI job does: open the history (a new
    connection), add one commit's BENCHMARKS × RUNS results, close. Each writer also
    retries one commit another writer adds (a retried CI job): exactly one of the two
    adds must win, the other be refused. Every commit has a date, so the history's order
    does not depend on which writer won a race; benchmark b0 has a +5% step halfway.
    Then:

      rows    COUNT of commits, results and measurements in PostgreSQL against what was
              added (nothing lost, nothing twice), and the refused retries;
      add     per add: connect + one transaction + close, median / p90 / max (wall)
              with every writer running, the writers' CPU time per add, and one writer
              alone (20 adds into another database, the first one not counted);
      check   the same commits added to a SQLite file in date order; `benchlab history
              check --json` on both, equal but the envelope's store name (numbers within
              1e-12 relative), with the time of each.

Run
    python3 benchmarks/history_postgres.py [--writers 20] [--commits 50] [--url URL]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.history.store import CommitResults, History, SeriesData  # noqa: E402

BENCHMARKS, RUNS = 5, 10


def _tool(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)), None)
    if not found:
        sys.exit(f"{name} not found: apt-get install postgresql, or give --url")
    return str(found)


@contextmanager
def server():
    """A throw-away PostgreSQL server; yields its URL (with a password)."""
    prefix, owner = [], None
    if os.geteuid() == 0:
        owner = pwd.getpwnam("nobody")
        prefix = ["runuser", "-u", "nobody", "--"]
    folder = Path(tempfile.mkdtemp(prefix="benchlab-pgbench-", dir="/tmp" if owner else None))
    (folder / "pw").write_text("bench-pw\n")
    if owner:
        for p in (folder, folder / "pw"):
            os.chown(p, owner.pw_uid, owner.pw_gid)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, LC_ALL="C")
    try:
        subprocess.run([*prefix, _tool("initdb"), "-D", str(folder / "data"), "-U", "bench",
                        "-E", "UTF8", "--auth=scram-sha-256", f"--pwfile={folder / 'pw'}",
                        "--no-sync"],
                       check=True, capture_output=True, env=env)
        subprocess.run([*prefix, _tool("pg_ctl"), "-D", str(folder / "data"), "-l",
                        str(folder / "log"), "-w", "-o",
                        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start"],
                       check=True, capture_output=True, env=env)
        yield f"postgresql://bench:bench-pw@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, _tool("pg_ctl"), "-D", str(folder / "data"), "-m", "fast",
                        "stop"], capture_output=True, env=env)
        shutil.rmtree(folder, ignore_errors=True)


def commit(writer: int, k: int, writers: int, total: int) -> CommitResults:
    """Commit k of `writer`: its date orders every writer's commits into one line."""
    index = k * writers + writer
    rng = np.random.default_rng(index)
    series = []
    for b in range(BENCHMARKS):
        level = 1.0 + 0.1 * b
        if b == 0 and index >= total // 2:
            level *= 1.05
        values = level * (1 + rng.normal(0, 0.004)) * (1 + rng.normal(0, 0.008, RUNS))
        series.append(SeriesData(f"b{b}", "time", "ci", "s", False, ("run",), values,
                                 (np.arange(RUNS).astype(str),)))
    minutes = index
    date = f"2025-01-{1 + minutes // 1440:02d}T{minutes // 60 % 24:02d}:{minutes % 60:02d}:00Z"
    return CommitResults(f"w{writer:02d}c{k:03d}", date, "main", tuple(series))


def timing_the_lock(held: list[float]) -> None:
    """Record how long each write of this process holds the writers' lock: from the
    moment the lock statement returns to the moment COMMIT (or ROLLBACK) returns."""
    from benchlab.history import store_postgres

    original = store_postgres.PostgresDatabase.write

    @contextmanager
    def write(self):
        start = None
        try:
            with original(self):
                start = time.perf_counter()
                yield
        finally:
            if start is not None:
                held.append(time.perf_counter() - start)

    store_postgres.PostgresDatabase.write = write


def writer_main(url: str, writer: int, writers: int, commits: int, gate: int,
                out: Path) -> None:
    """One writer's adds, timed, then its retry of the next writer's first commit."""
    held: list[float] = []
    timing_the_lock(held)
    os.read(gate, 1)
    times, refused = [], 0
    plan = [commit(writer, k, writers, writers * commits) for k in range(commits)]
    plan.insert(commits // 2, commit((writer + 1) % writers, 0, writers, writers * commits))
    from benchlab.errors import InputError

    for c in plan:
        start = time.perf_counter()
        try:
            with History.open_or_create(url) as h:
                h.add([c])
        except InputError as exc:
            if "already has results" not in exc.message:
                raise
            refused += 1
        times.append(time.perf_counter() - start)
    out.write_text(json.dumps({"times": times, "refused": refused,
                               "held": held}))


def check_json(db: str) -> tuple[dict, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "benchlab", "history", "check", "--json",
                           "--db", db], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"history check --db {db}: exit {done.returncode}: {done.stderr}")
    doc = json.loads(done.stdout)
    for key in ("argv", "inputs"):
        doc.pop(key)
    return doc, took


def differences(a, b, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys differ"]
        return [d for k in a for d in differences(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: lengths {len(a)} and {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{where}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if math.isclose(a, b, rel_tol=1e-12) or a == b else [f"{where}: {a} != {b}"]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def run(url: str, writers: int, commits: int) -> dict:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS bench_writers")
        conn.execute("CREATE DATABASE bench_writers")
    db = url.rsplit("/", 1)[0] + "/bench_writers"
    folder = Path(tempfile.mkdtemp(prefix="benchlab-writers-"))
    gate_read, gate_write = os.pipe()
    pids = []
    for w in range(writers):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(gate_write)
                writer_main(db, w, writers, commits, gate_read, folder / f"{w}.json")
                code = 0
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                os._exit(code)
        pids.append(pid)
    os.close(gate_read)
    start = time.perf_counter()
    os.close(gate_write)
    waited = [os.wait4(pid, 0) for pid in pids]
    wall = time.perf_counter() - start
    failed = [w for w in waited if w[1] != 0]
    cpu = sum(w[2].ru_utime + w[2].ru_stime for w in waited)
    if failed:
        sys.exit(f"{len(failed)} writers failed")
    reports = [json.loads((folder / f"{w}.json").read_text()) for w in range(writers)]
    times = np.array([t for r in reports for t in r["times"]])
    held = np.array([h for r in reports for h in r["held"]])
    with psycopg.connect(db) as conn:
        stored_commits, distinct = conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT sha) FROM commits").fetchone()
        rows, measurements = conn.execute("SELECT COUNT(*), SUM(n) FROM results").fetchone()
    alone = []  # one writer alone: the cost of an add without waiting for the others
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS bench_alone")
        conn.execute("CREATE DATABASE bench_alone")
    for k in range(20):
        c = commit(0, k, 1, 20)
        begin = time.perf_counter()
        with History.open_or_create(url.rsplit("/", 1)[0] + "/bench_alone") as h:
            h.add([c])
        alone.append(time.perf_counter() - begin)
    sqlite = str(folder / "same.db")
    with History.open_or_create(sqlite) as h:
        h.add([commit(w, k, writers, writers * commits) for k in range(commits)
               for w in range(writers)])
    pg_doc, pg_time = check_json(db)
    sq_doc, sq_time = check_json(sqlite)
    shutil.rmtree(folder, ignore_errors=True)
    expected = writers * commits
    return {
        "writers": writers, "commits_each": commits, "wall_s": wall,
        "commits": {"stored": stored_commits, "distinct": distinct, "expected": expected},
        "results": {"rows": rows, "expected": expected * BENCHMARKS},
        "measurements": {"stored": int(measurements), "expected": expected * BENCHMARKS * RUNS},
        "retries_refused": sum(r["refused"] for r in reports), "retries": writers,
        "add_s": {"median": float(np.median(times)), "p90": float(np.quantile(times, 0.9)),
                  "max": float(times.max()), "n": int(times.size)},
        "adds_per_s": times.size / wall,
        "lock_held_s": {"median": float(np.median(held)), "p90": float(np.quantile(held, 0.9)),
                        "total": float(held.sum()), "share_of_wall": float(held.sum() / wall),
                        "n": int(held.size)},
        "cpu_per_add_s": cpu / times.size,
        "add_alone_s": {"median": float(np.median(alone[1:])), "n": len(alone) - 1},
        "check": {"postgresql_s": pg_time, "sqlite_s": sq_time,
                  "changes": len(pg_doc.get("changes", [])),
                  "differences": differences(sq_doc, pg_doc)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", type=int, default=20)
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--url", help="a PostgreSQL server's URL (a superuser's: a database "
                        "bench_writers is made there); default: start one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.url:
        figures = run(args.url, args.writers, args.commits)
    else:
        with server() as url:
            figures = run(url, args.writers, args.commits)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    f = figures
    print(f"{f['writers']} writers x {f['commits_each']} commits ({BENCHMARKS} benchmarks x "
          f"{RUNS} runs each) in {f['wall_s']:.1f} s, {f['adds_per_s']:.1f} adds/s")
    for key in ("commits", "results", "measurements"):
        got = f[key].get("stored", f[key].get("rows"))
        print(f"  {key}: {got} stored, {f[key]['expected']} added"
              + (f", {f[key]['distinct']} distinct" if key == "commits" else ""))
    print(f"  retried adds refused: {f['retries_refused']} of {f['retries']}")
    a = f["add_s"]
    print(f"  one add (connect, transaction, close): median {1000 * a['median']:.0f} ms, "
          f"p90 {1000 * a['p90']:.0f} ms, max {1000 * a['max']:.0f} ms over {a['n']}")
    h = f["lock_held_s"]
    print(f"  the writers' lock held per add (lock granted to COMMIT done): median "
          f"{1000 * h['median']:.1f} ms, p90 {1000 * h['p90']:.1f} ms; held "
          f"{100 * h['share_of_wall']:.0f}% of the wall time")
    print(f"  one add alone (no other writer): median {1000 * f['add_alone_s']['median']:.0f} "
          f"ms over {f['add_alone_s']['n']} (after the first, which creates the tables); "
          f"writers' CPU {1000 * f['cpu_per_add_s']:.0f} ms per add")
    c = f["check"]
    print(f"  history check --json: PostgreSQL {c['postgresql_s']:.2f} s, SQLite "
          f"{c['sqlite_s']:.2f} s, {c['changes']} change(s); documents "
          + ("equal" if not c["differences"] else f"DIFFER: {c['differences'][:3]}"))
    ok = (f["commits"]["stored"] == f["commits"]["distinct"] == f["commits"]["expected"]
          and f["measurements"]["stored"] == f["measurements"]["expected"]
          and f["retries_refused"] == f["retries"] and not c["differences"])
    print("  all writes kept once, retries refused, check equal" if ok else "  FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

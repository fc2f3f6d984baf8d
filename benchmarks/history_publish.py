"""`benchlab history publish` of 100 series × 1,000 commits: its time, the site's size, and
a second publish after one more commit (issue 29).

What it measures
    The simulated history of benchmarks/history.py (100 benchmarks × 1,000 commits × 5
    runs, 1% noise, a 5% step in every fifth series), then, each in a fresh process:

      publish     `benchlab history publish --db FILE -o SITE` into an empty directory;
      again       the same command once more, nothing changed (every file kept);
      one more    after `history add` of one more commit of every series: the pages
                  of every series, the index and commits.js are rewritten, the rest kept;
      one series  after one more commit of one series only: its page, the index,
                  commits.js and the kept analysis; that series alone analysed again.

    The wall time and the CPU time (user + sys of the child) of each; the site's size
    (every file, and the largest page); the files written and kept as the command says
    (its --json), and how many series it analysed (the others' findings kept from the
    publish before). In process, for the first publish: reading the store, the analysis
    (history check's, the same call) and laying out and writing the pages.

Goals (issue 29)
    publish under 30 s; the site under 20 MB; a publish after one more commit rewrites
    only the files whose content changed.

Run
    nice -n 10 python3 benchmarks/history_publish.py [--benchmarks 100] [--commits 1000] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchlab.history.store import CommitResults, History, SeriesData  # noqa: E402


def _simulation():
    """benchmarks/history.py, whose `build` makes the history (one simulation for both)."""
    spec = importlib.util.spec_from_file_location("history_benchmark",
                                                  ROOT / "benchmarks" / "history.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(argv: list[str]) -> tuple[float, float, dict]:
    """Wall and CPU time (user + sys of the child) of the command, and its JSON output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, check=True, stdout=subprocess.PIPE, cwd=ROOT, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(done.stdout)


def site_size(path: str) -> tuple[int, int, int]:
    """Bytes of every file of the site, the largest file's, and how many files."""
    sizes = [f.stat().st_size for f in Path(path).rglob("*") if f.is_file()]
    return sum(sizes), max(sizes), len(sizes)


def add_commit(db: str, sha: str, benchmarks: list[int], runs: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    labels = np.arange(runs).astype(str)
    series = tuple(SeriesData(f"bench{b:03d}", "time", "default", "s", False, ("run",),
                              1 + rng.normal(0, 0.01, runs), (labels,)) for b in benchmarks)
    with History.open(db, write=True) as h:
        h.add([CommitResults(sha, None, None, series)])


def in_process(db: str, site: str) -> dict:
    """Reading, the analysis and the pages of one publish, timed apart (a fresh site)."""
    from benchlab.history.publish import site_data
    from benchlab.report.history_site import publish
    from benchlab.report.history_site.pages import Options

    start = time.perf_counter()
    with History.open(db) as h:
        commits, series = h.commits(), h.series()
    read = time.perf_counter()
    data = site_data(series, commits)
    analysed = time.perf_counter()
    publish(data, site, Options(commit_url="https://github.com/o/r/commit/{sha}"))
    written = time.perf_counter()
    return {"read_s": read - start, "analysis_s": analysed - read,
            "pages_s": written - analysed}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--benchmarks", type=int, default=100)
    p.add_argument("--commits", type=int, default=1000)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    simulation = _simulation()
    tmp = tempfile.mkdtemp(prefix="benchlab-publish-")
    try:
        db, site = os.path.join(tmp, "history.db"), os.path.join(tmp, "site")
        simulation.build(db, args.benchmarks, args.commits)
        cli = [sys.executable, "-m", "benchlab", "history", "publish", "--db", db, "-o", site,
               "--commit-url", "https://github.com/o/r/commit/{sha}", "--json"]
        runs = {}
        wall, cpu, doc = timed(cli)
        runs["publish"] = (wall, cpu, doc)
        total, largest, files = site_size(site)
        runs["again"] = timed(cli)
        add_commit(db, "next1", list(range(args.benchmarks)), simulation.RUNS, 11)
        runs["one more"] = timed(cli)
        add_commit(db, "next2", [0], simulation.RUNS, 12)
        runs["one series"] = timed(cli)
        parts = in_process(db, os.path.join(tmp, "site2"))
        result = {"benchmarks": args.benchmarks, "commits": args.commits,
                  "runs": simulation.RUNS, "site_mb": total / 1e6,
                  "largest_page_kb": largest / 1e3, "files": files,
                  "in_process": parts, "load_average": os.getloadavg()[0]}
        for name, (wall, cpu, doc) in runs.items():
            result[name] = {"wall_s": wall, "cpu_s": cpu, "written": len(doc["written"]),
                            "kept": doc["kept"], "removed": len(doc["removed"]),
                            "analysed": doc.get("analysed")}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"history publish of {args.benchmarks} series x {args.commits} commits x "
          f"{simulation.RUNS} runs (load average {result['load_average']:.1f})")
    print(f"site: {result['site_mb']:.1f} MB in {files} files, largest page "
          f"{result['largest_page_kb']:.0f} kB; goal < 20 MB")
    for name in runs:
        r = result[name]
        print(f"{name:>10}: {r['wall_s']:6.2f} s (CPU {r['cpu_s']:.2f} s), analysed "
              f"{r['analysed']} series, wrote {r['written']}, kept {r['kept']}, removed "
              f"{r['removed']}")
    ip = result["in_process"]
    print(f"in process: reading {ip['read_s']:.2f} s, analysis {ip['analysis_s']:.2f} s, "
          f"pages {ip['pages_s']:.2f} s; goal: publish < 30 s")


if __name__ == "__main__":
    main()

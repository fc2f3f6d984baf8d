"""Wall time and peak RSS of a command run in a fresh process (for the large-input benchmarks).

Each measurement starts a small Python wrapper that runs the command and then
reports `resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`: the peak resident
memory of that one command, interpreter and imports included, as a user sees
it (Linux reports kilobytes). The wall time includes the command's start-up.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys

_WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(json.dumps({"seconds": seconds, "peak_mb": peak, "code": done.returncode,
                  "stderr": done.stderr.decode(errors="replace")[-500:]}))
"""


def measure(argv: list[str]) -> dict:
    """{"seconds", "peak_mb", "code", "stderr"} of one run of `argv`."""
    done = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def median_of(argv: list[str], repeats: int) -> dict:
    """Median seconds and peak MB of `repeats` runs, with the spread; fails on a bad exit."""
    runs = [measure(argv) for _ in range(repeats)]
    bad = [r for r in runs if r["code"] != 0]
    if bad:
        raise SystemExit(f"{' '.join(argv[:4])}... exited {bad[0]['code']}: {bad[0]['stderr']}")
    seconds = [r["seconds"] for r in runs]
    peaks = [r["peak_mb"] for r in runs]
    return {"seconds": statistics.median(seconds), "seconds_min": min(seconds),
            "seconds_max": max(seconds), "peak_mb": statistics.median(peaks),
            "peak_mb_max": max(peaks), "runs": repeats}


def python_code(code: str) -> list[str]:
    """argv running `code` in a fresh interpreter."""
    return [sys.executable, "-c", code]


def benchlab(*args: str) -> list[str]:
    """argv running `benchlab ARGS` from this checkout's interpreter."""
    return [sys.executable, "-m", "benchlab", *args]


def row(label: str, result: dict, goal: str = "") -> str:
    return (f"  {label:<46} {result['seconds']:7.2f} s  ({result['seconds_min']:.2f}–"
            f"{result['seconds_max']:.2f})  peak {result['peak_mb']:7.0f} MB  {goal}")

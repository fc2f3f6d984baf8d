"""Counted executions: the command under Valgrind's cachegrind or callgrind, its Ir taken.

`counter = "cachegrind"` plans, beside the timed executions, one counted
execution of every cell per measured round (runner/plan.py: trials of kind
"count", interleaved in the same random order, never timed): the command runs
as `valgrind -q --tool=cachegrind --cache-sim=no --trace-children=yes
--cachegrind-out-file=DIR/out.%p COMMAND...`, and the instructions it executed
(Ir, summed over every process it started: a shell and what it runs) are the
measurement `instructions`. Without cache simulation the count is exact and
Valgrind runs about 20-50 times slower than the program, so a counted
execution's timeout is `COUNT_SLOWDOWN` times the execution timeout. callgrind
counts the same Ir (with its call graph, at more cost).

Cache misses (`i1-misses`, `d1-misses`, `ll-misses`: runner/metric_sources.py)
switch on Valgrind's cache simulation (`--cache-sim=yes`, for cachegrind instead
of `--cache-sim=no`), which adds the events I1mr, D1mr, D1mw, ILmr, DLmr, DLmw
and slows the counted execution further; the simulated caches are Valgrind's
model of this machine's (their sizes from CPUID), not the hardware's misses.
The instruction count is the same with or without it.
The caches it simulated (Valgrind's `desc: I1 cache: 32768 B, 64 B, 8-way
associative` lines of the out file, their sizes, line sizes and associativity)
come back with the counts (`simulated_caches`), and the store records each
configuration it met (`benchlab_meta.simulated_caches`: runner/rounds.py), so
a reader knows which cache the misses are of.

The out files are read here (the `events:` and `summary:`/`totals:` lines),
not by data/readers/valgrind.py, which the runner layer must not import.

With `keep_profiles` (callgrind, the first `PROFILES_PER_BUILD` counted
executions of each cell and build: runner/trial.py) the out files themselves are
kept, zlib-compressed, one per process, for `benchlab profile-diff STORE`
(docs/profile-diff.md): the whole file rather than a table of its functions, so
nothing is parsed in the runner, every event and the call graph stay, and the
store is read by the same parser as two out files (data/profiles.py). A C
program's file compresses to about 20 kB (a third to a quarter of its size).
"""

from __future__ import annotations

import functools
import os
import shutil
from dataclasses import replace

from benchlab.runner.execute import Outcome, run_process

COUNT_SLOWDOWN = 50  # a counted execution may take this many times the execution timeout
OPTIONS = {"cachegrind": ("--tool=cachegrind", "--cache-sim=no"),
           "callgrind": ("--tool=callgrind",)}
CACHE_OPTIONS = {"cachegrind": ("--tool=cachegrind", "--cache-sim=yes"),
                 "callgrind": ("--tool=callgrind", "--cache-sim=yes")}
COMMON = ("-q", "--trace-children=yes")
# The misses of Valgrind's simulated caches (--cache-sim=yes), each the sum of these events
# of the out file (cachegrind's manual: I1mr instruction reads missing the first-level
# instruction cache; D1mr, D1mw data reads and writes missing the first-level data cache;
# ILmr, DLmr, DLmw instruction reads, data reads and writes missing the last level).
CACHE_EVENTS = {"i1-misses": ("I1mr",), "d1-misses": ("D1mr", "D1mw"),
                "ll-misses": ("ILmr", "DLmr", "DLmw")}
PROFILES_PER_BUILD = 5  # counted executions per cell and build whose out files a store keeps


@functools.lru_cache(maxsize=1)
def version() -> str | None:
    """`valgrind --version` ("valgrind-3.19.0"), None when Valgrind is not installed."""
    program = shutil.which("valgrind")
    if program is None:
        return None
    import subprocess  # here: a run that counts nothing imports it only after its executions

    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    text = done.stdout.strip()
    return text if done.returncode == 0 and text else None


def options(tool: str, metrics: tuple[str, ...] = ("instructions",)) -> list[str]:
    """Valgrind's options for `tool` counting `metrics`, as the store records them (without
    the out file): the cache simulation on when a cache metric is asked."""
    return [*COMMON, *(CACHE_OPTIONS if cache_simulated(metrics) else OPTIONS)[tool]]


def cache_simulated(metrics: tuple[str, ...]) -> bool:
    """Whether the counter simulates the caches (--cache-sim=yes): a cache metric is asked."""
    return any(m in CACHE_EVENTS for m in metrics)


def argv_for(tool: str, out_dir: str, command: list[str],
             metrics: tuple[str, ...] = ("instructions",)) -> list[str]:
    """The counted execution's argv: Valgrind, its options, an out file per process."""
    out = os.path.join(out_dir, "out.%p")
    return ["valgrind", *options(tool, metrics), f"--{tool}-out-file={out}", *command]


def run_counted(tool: str, command: list[str], *, cwd: str | None, env: dict[str, str] | None,
                timeout: float | None, cpus: tuple[int, ...] | None,
                keep_profiles: bool = False,
                metrics: tuple[str, ...] = ("instructions",)) -> Outcome:
    """Run `command` under `tool` and return its outcome with `counts` of `metrics` (those a
    counter yields: instructions and cache misses), summed over the processes (and, with
    `keep_profiles`, its out files compressed in `profiles`, in process order); an outcome
    with an error when it failed or Valgrind wrote no count of one of them."""
    import tempfile

    out_dir = tempfile.mkdtemp(prefix="benchlab-count-")
    try:
        outcome = run_process(argv_for(tool, out_dir, command, metrics), cwd=cwd, env=env,
                              timeout=None if timeout is None else timeout * COUNT_SLOWDOWN,
                              cpus=cpus)
        if not outcome.ok:
            return outcome
        names = sorted(os.listdir(out_dir), key=_process_order)
        if not names:
            return replace(outcome, error=f"{tool} wrote no out file (is it Valgrind's?)")
        try:
            counts = counted(metrics, [totals(os.path.join(out_dir, n)) for n in names])
        except ValueError as exc:
            return replace(outcome, error=f"{tool}: {exc}")
        profiles = tuple(_compressed(os.path.join(out_dir, n)) for n in names) \
            if keep_profiles else ()
        caches = simulated_caches(os.path.join(out_dir, names[0])) \
            if cache_simulated(metrics) else {}
        return replace(outcome, counts=counts, profiles=profiles, caches=caches)
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)


def _process_order(name: str) -> tuple[int, str]:
    """out.PID files by process id (the order the processes started, barring a wrap)."""
    _, _, pid = name.rpartition(".")
    return (int(pid), name) if pid.isdigit() else (-1, name)


def _compressed(path: str) -> bytes:
    import zlib

    with open(path, "rb") as handle:
        return zlib.compress(handle.read(), 6)


def counted(metrics: tuple[str, ...], files: list[dict[str, int]]) -> dict[str, float]:
    """The counts of `metrics` (instructions: Ir; a cache metric: the sum of its events)
    over the out files' totals; ValueError naming an event a file lacks."""
    events = {m: ("Ir",) if m == "instructions" else CACHE_EVENTS[m] for m in metrics
              if m == "instructions" or m in CACHE_EVENTS}
    out = {}
    for metric, names in events.items():
        total = 0
        for found in files:
            missing = next((e for e in names if e not in found), None)
            if missing is not None:
                raise ValueError(f"no {missing} total in an out file (events: "
                                 f"{' '.join(found)})")
            total += sum(found[e] for e in names)
        out[metric] = float(total)
    return out


CACHE_NAMES = ("I1", "D1", "LL")  # the caches Valgrind simulates, in its order


def simulated_caches(path: str) -> dict[str, str]:
    """The caches an out file says Valgrind simulated: its `desc: I1 cache: 32768 B, 64 B,
    8-way associative` lines (size, line size, associativity) by cache; {} when it has
    none (no cache simulation)."""
    found: dict[str, str] = {}
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith("desc:"):
                name, _, what = line[len("desc:"):].strip().partition(" cache:")
                if name in CACHE_NAMES and what:
                    found[name] = " ".join(what.split())
            elif line.startswith(("events:", "fl=", "fn=")):
                break  # the header is over
    return {k: found[k] for k in CACHE_NAMES if k in found}


def totals(path: str) -> dict[str, int]:
    """The event totals of one cachegrind or callgrind out file (its `events:` and first
    `summary:`/`totals:` line; events left off the end are 0); ValueError when it has none."""
    events: list[str] | None = None
    total: list[str] | None = None
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if line.startswith("events:"):
                events = line[len("events:"):].split()
            elif line.startswith(("summary:", "totals:")) and total is None:
                total = line.split(":", 1)[1].split()
    if events is None or total is None:
        raise ValueError(f"no totals in {os.path.basename(path)}")
    try:
        values = [int(v) for v in total]
    except ValueError:
        raise ValueError(f"a total of {total!r} is not a number in "
                         f"{os.path.basename(path)}") from None
    return {e: values[i] if i < len(values) else 0 for i, e in enumerate(events)}


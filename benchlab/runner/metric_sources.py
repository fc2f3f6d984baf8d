"""The metrics a process timed whole can yield, their units and where each comes from.

`metrics = [...]` in an experiment file (docs/metrics.md) names them; each has
one source, recorded in the store (`metric_sources`), and none falls back to
another:

- `wall`: the runner's monotonic clock around the process (runner/execute.py);
- `cpu` (user + system), `user`, `sys`, `maxrss`: the rusage wait4 returns;
- hardware events (`instructions`, `cycles`, `branches`, ...): the PMU, through
  perf_event_open in the timed execution itself (runner/perf_event.py);
- software events (`task-clock`, `page-faults`, ...): the kernel's, the same way;
- `instructions` with `counter = "cachegrind"` (or `"callgrind"`): Valgrind's
  count (Ir) in separate counted executions (runner/counter.py), never the PMU;
- cache misses (`i1-misses`, `d1-misses`, `ll-misses`): the counter's cache
  simulation (`--cache-sim=yes`), which they switch on; no counter, no cache misses.

Asking for a hardware event where the kernel exposes no PMU, with no counter
chosen, is an error naming both ways out (`check_machine`).
"""

from __future__ import annotations

from benchlab.errors import InputError
from benchlab.runner import perf_event
from benchlab.runner.counter import CACHE_EVENTS

TIMED = {"wall": ("s", "clock"), "cpu": ("s", "rusage"), "user": ("s", "rusage"),
         "sys": ("s", "rusage"), "maxrss": ("B", "rusage")}
DEFAULT = ("wall", "user", "sys", "maxrss")  # a process timed whole, without `metrics`
COUNTERS = ("cachegrind", "callgrind")
CACHE = CACHE_EVENTS  # the misses of Valgrind's simulated caches (runner/counter.py)
COUNTED = ("instructions", *CACHE)  # what a counter yields (Valgrind's Ir, its cache misses)


def unit_of(name: str) -> str | None:
    """The unit of a metric benchlab measures, None for an unknown name."""
    if name in TIMED:
        return TIMED[name][0]
    if name == "task-clock":
        return "s"
    if name in ("instructions", "cycles"):
        return name
    if name in CACHE:
        return "misses"
    if name in perf_event.HARDWARE or name in perf_event.SOFTWARE:
        return "events"
    return None


def known() -> tuple[str, ...]:
    """Every metric name `metrics` accepts, in the order documented."""
    return (*TIMED, *perf_event.HARDWARE, *perf_event.SOFTWARE, *CACHE)


def source_of(name: str, counter: str | None) -> str:
    """Where `name` comes from: clock, rusage, pmu, software or the counter's name."""
    if name in TIMED:
        return TIMED[name][1]
    if counter is not None and name in COUNTED:
        return counter
    if name in perf_event.HARDWARE:
        return "pmu"
    return "software"


def perf_events(metrics: tuple[str, ...], counter: str | None) -> tuple[str, ...]:
    """The metrics counted through perf_event_open in the timed executions."""
    return tuple(m for m in metrics if m not in CACHE
                 and source_of(m, counter) in ("pmu", "software"))


def timed(metrics: tuple[str, ...], counter: str | None) -> bool:
    """Whether any metric comes from the timed executions (else only counted ones run)."""
    return any(source_of(m, counter) not in COUNTERS for m in metrics)


def check_machine(metrics: tuple[str, ...], counter: str | None, where: str) -> None:
    """Refuse, before anything runs, a metric this machine cannot measure: a hardware event
    without a PMU (naming both choices for instructions), a software event the kernel
    refuses, a counter whose tool is not installed. InputError at `where` (file:line)."""
    for name in metrics:
        if name in CACHE and counter is None:
            raise InputError(f"metric {name!r} is counted by Valgrind's cache simulation: add "
                             "counter = \"cachegrind\" (quick mode: --counter cachegrind)",
                             where)
    for name in perf_events(metrics, counter):
        found = perf_event.probe(name)
        if found.ok:
            continue
        if name == "instructions":
            raise InputError(f"metric {name!r} needs a hardware PMU, which this machine does "
                             f"not offer ({found.reason}), or a counting tool: counter = "
                             f"\"cachegrind\" (quick mode: --counter cachegrind)", where)
        what = "a hardware PMU event" if name in perf_event.HARDWARE else "a kernel event"
        raise InputError(f"metric {name!r} is {what} this machine does not offer "
                         f"({found.reason}); `benchlab env` lists the counters it offers",
                         where)
    if counter is not None:
        from benchlab.runner import counter as counting

        if counting.version() is None:
            raise InputError(f"counter = \"{counter}\" needs Valgrind, which is not "
                             "installed here (apt-get install valgrind)", where)

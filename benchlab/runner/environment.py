"""The machine an experiment runs on, and the pre-flight noise check (`benchlab env`).

Reads Linux's /proc and /sys (other systems get what `platform` and `os`
tell): CPU model, cores, frequency governor, turbo boost, kernel, load
average, address-space randomization, the size of the environment (which
shifts the stack and can change timings by itself, Mytkowicz et al. 2009) and
versions. Each condition known to add noise becomes a warning with the
command that fixes it. Nothing here changes the machine.
"""

from __future__ import annotations

import glob
import os
import platform
import sys
import time
from dataclasses import dataclass

from benchlab.runner import spawn

# The machine is busy when its 1-minute load average exceeds both of these (per usable core,
# and absolute): other work competes for the cores, caches and memory bandwidth.
LOAD_PER_CORE = 0.1
LOAD_MIN = 0.5


@dataclass(frozen=True)
class Warning_:
    """A noise source: what was found, and the command that fixes it."""

    key: str
    message: str
    fix: str

    def text(self) -> str:
        return f"{self.message} (fix: {self.fix})"


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return None


def _cpu_model() -> str | None:
    text = _read("/proc/cpuinfo") or ""
    for line in text.split("\n"):
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Processor", "cpu model"):
            return value.strip()
    return platform.processor() or None


def _governors() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor"):
        value = _read(path)
        if value:
            found[value] = found.get(value, 0) + 1
    return found


def _turbo() -> tuple[bool | None, str | None]:
    """(turbo on?, the file that controls it); None when the machine does not say."""
    no_turbo = _read("/sys/devices/system/cpu/intel_pstate/no_turbo")
    if no_turbo in ("0", "1"):
        return no_turbo == "0", "/sys/devices/system/cpu/intel_pstate/no_turbo"
    boost = _read("/sys/devices/system/cpu/cpufreq/boost")
    if boost in ("0", "1"):
        return boost == "1", "/sys/devices/system/cpu/cpufreq/boost"
    return None, None


def _runner_rss() -> int | None:
    """This process's peak RSS: the floor of every command's maxrss (see execute.py)."""
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    except (ImportError, OSError):
        return None


def collect() -> dict:
    """Everything the store records about the machine, as a JSON-ready dict."""
    try:
        usable = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = list(range(os.cpu_count() or 1))
    try:
        load = list(os.getloadavg())
    except (AttributeError, OSError):
        load = None
    turbo, turbo_file = _turbo()
    aslr = _read("/proc/sys/kernel/randomize_va_space")
    smt = _read("/sys/devices/system/cpu/smt/active")
    import numpy

    from benchlab import __version__

    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "hostname": platform.node(),
        "os": platform.system(),
        "kernel": platform.release(),
        "kernel_version": platform.version(),
        "machine": platform.machine(),
        "cpu_model": _cpu_model(),
        "cpus_online": os.cpu_count(),
        "cpus_usable": usable,
        "smt_active": None if smt is None else smt == "1",
        "governors": _governors() or None,
        "turbo": turbo,
        "turbo_control": turbo_file,
        "load_average": load,
        "aslr": None if aslr is None else int(aslr) if aslr.isdigit() else aslr,
        "environment_bytes": sum(len(k) + len(v) + 2 for k, v in os.environ.items()),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "numpy": numpy.__version__,
        "benchlab": __version__,
        "runner_maxrss_bytes": _runner_rss(),
        "timer": "time.perf_counter_ns (CLOCK_MONOTONIC)",
        "timer_resolution_s": time.get_clock_info("perf_counter").resolution,
        "spawn": spawn.METHOD,
    }


def check(env: dict, cpus: tuple[int, ...] | None = None) -> list[Warning_]:
    """The noise warnings for the machine described by `env` (and the requested pinning)."""
    out: list[Warning_] = []
    governors = env.get("governors") or {}
    others = sorted(g for g in governors if g != "performance")
    if others:
        out.append(Warning_("governor", f"CPU frequency governor is {', '.join(others)}, not "
                            "performance: the clock speed changes under the benchmark",
                            "sudo cpupower frequency-set --governor performance"))
    if env.get("turbo"):
        control = env.get("turbo_control") or ""
        value = "1" if control.endswith("no_turbo") else "0"
        out.append(Warning_("turbo", "turbo boost is on: the clock speed depends on "
                            "temperature and on the other cores' load",
                            f"echo {value} | sudo tee {control}"))
    usable = env.get("cpus_usable") or []
    load = env.get("load_average")
    if load and usable and load[0] > max(LOAD_MIN, LOAD_PER_CORE * len(usable)):
        out.append(Warning_("load", f"the machine is busy: load average {load[0]:.2f} over "
                            f"the last minute on {len(usable)} usable cores",
                            "stop other work (see `top`) and wait for the load to fall"))
    aslr = env.get("aslr")
    if isinstance(aslr, int) and aslr != 0:
        out.append(Warning_("aslr", f"address-space layout randomization is on "
                            f"(randomize_va_space = {aslr}): code and stack placement change "
                            "from one execution to the next",
                            "echo 0 | sudo tee /proc/sys/kernel/randomize_va_space "
                            "(or run each command under `setarch -R`)"))
    if cpus is not None:
        missing = [c for c in cpus if c not in usable]
        if missing:
            out.append(Warning_("pinning", f"the experiment pins to CPUs "
                                f"{','.join(map(str, cpus))} but {','.join(map(str, missing))} "
                                f"{'is' if len(missing) == 1 else 'are'} not usable here "
                                f"(usable: {','.join(map(str, usable))})",
                                "change cpus in the experiment file, or run on a machine with "
                                "more cores"))
        elif len(usable) <= len(cpus):
            out.append(Warning_("pinning", f"the experiment pins to {len(cpus)} CPU"
                                f"{'s' if len(cpus) != 1 else ''} and only {len(usable)} "
                                f"{'is' if len(usable) == 1 else 'are'} usable: the runner "
                                "shares a core with the benchmark",
                                "leave at least one usable CPU out of cpus"))
    return out

"""The machine an experiment runs on, and the pre-flight noise check (`benchlab env`).

Reads Linux's /proc and /sys (other systems get what `platform` and `os`
tell): CPU model, cores, frequency governor, turbo boost, memory, kernel, load
average, address-space randomization, the size of the environment (which
shifts the stack and can change timings by itself, Mytkowicz et al. 2009) and
versions. Each condition known to add noise becomes a warning with the
command that fixes it. Nothing here changes the machine.

Across machines (a run on Dask records each machine's record, docs/cluster.md),
`differences` compares the records key by key, and `identical_machine_warnings`
names what differs between machines meant to be identical (`[machines] role =
"level"`): a second level of variation that the design assumes away (Kalibera &
Jones 2013 treat the machines of such an experiment as one more random level,
which holds only when they are exchangeable).
"""

from __future__ import annotations

import glob
import json
import os
import sys
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from benchlab.result import Result
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
    import platform

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


def _memory() -> int | None:
    """Physical memory in bytes: /proc/meminfo's MemTotal, else pages x page size."""
    for line in (_read("/proc/meminfo") or "").split("\n"):
        parts = line.split()
        if len(parts) >= 2 and parts[0] == "MemTotal:" and parts[1].isdigit():
            return int(parts[1]) * 1024
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _runner_rss() -> int | None:
    """This process's peak RSS: the floor of every command's maxrss (see execute.py)."""
    try:
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
    except (ImportError, OSError):
        return None


def _uname():
    """platform.uname()'s system, node, release, version and machine: os.uname()'s on POSIX,
    where platform takes them from it unchanged (its import, a few ms of its regexes, is
    left out of `benchlab run`'s start); platform's elsewhere."""
    if hasattr(os, "uname"):
        name = os.uname()
        if name.sysname not in ("", "Microsoft", "Windows", "OpenVMS"):
            return SimpleNamespace(system=name.sysname, node=name.nodename,
                                   release=name.release, version=name.version,
                                   machine=name.machine)
    import platform

    return platform.uname()


def numpy_version() -> str:
    """numpy.__version__, without importing numpy when it is not loaded yet (the import
    costs about 100 ms, and `benchlab run` needs numpy only after its executions): numpy's
    own `numpy/version.py`, which defines `__version__` with no import since numpy 1.26
    (meson builds); for an older layout (versioneer's, a relative import) the installed
    distribution's version, which is the same text for a release."""
    loaded = sys.modules.get("numpy")
    if loaded is not None:
        return str(loaded.__version__)
    from importlib.util import find_spec

    spec = find_spec("numpy")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        path = os.path.join(folder, "version.py")
        namespace: dict[str, Any] = {}
        try:
            with open(path, encoding="utf-8") as handle:
                exec(compile(handle.read(), path, "exec"), namespace)  # noqa: S102
        except (OSError, ImportError, SyntaxError):
            continue
        if isinstance(namespace.get("__version__"), str):
            return namespace["__version__"]
    from importlib.metadata import version

    return version("numpy")


def collect(counters_too: bool = True) -> dict:
    """Everything the store records about the machine, as a JSON-ready dict; without
    `counters_too`, all but its last key, "counters" (`counters()`: a probe of each PMU and
    software event and `valgrind --version`, a few ms of a subprocess), which a run whose
    metrics need none of them adds after its executions (runner/session.py)."""
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
    uname = _uname()
    from benchlab.version import __version__

    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "hostname": uname.node,
        "os": uname.system,
        "kernel": uname.release,
        "kernel_version": uname.version,
        "machine": uname.machine,
        "cpu_model": _cpu_model(),
        "cpus_online": os.cpu_count(),
        "cpus_usable": usable,
        "smt_active": None if smt is None else smt == "1",
        "memory_bytes": _memory(),
        "governors": _governors() or None,
        "turbo": turbo,
        "turbo_control": turbo_file,
        "load_average": load,
        "aslr": None if aslr is None else int(aslr) if aslr.isdigit() else aslr,
        "environment_bytes": sum(len(k) + len(v) + 2 for k, v in os.environ.items()),
        "python": sys.version.split()[0],  # platform.python_version(): "3.11.7", "3.13.0rc1"
        "python_executable": sys.executable,
        "numpy": numpy_version(),
        "benchlab": __version__,
        "runner_maxrss_bytes": _runner_rss(),
        "timer": "time.perf_counter_ns (CLOCK_MONOTONIC)",
        "timer_resolution_s": time.get_clock_info("perf_counter").resolution,
        "spawn": spawn.METHOD,
        **({"counters": counters()} if counters_too else {}),
    }


def counters() -> dict:
    """The counters this machine offers the `metrics` of an experiment (docs/metrics.md):
    the PMU's hardware events (none, and why, on most virtual machines), the kernel's
    software events, and Valgrind's version for `counter = "cachegrind"` (None: absent)."""
    from benchlab.runner import counter, perf_event

    hardware, software, reason = perf_event.offered()
    return {"pmu": list(hardware), **({"pmu_absent": reason} if not hardware else {}),
            "software": list(software), "valgrind": counter.version()}


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


# -- machines side by side -------------------------------------------------------------

# The rows of a side-by-side table, in order: (key, label, matters). A key that matters is
# one identical machines share: the hardware, its settings, the software that measures;
# the others (host name, load, the time of the record, paths) differ from machine to
# machine, or from minute to minute, by nature. Keys not listed (a newer record's) are
# shown after these and do not matter.
KEYS: tuple[tuple[str, str, bool], ...] = (
    ("cpu_model", "CPU", True),
    ("cpus_online", "cores online", True),
    ("cpus_usable", "cores usable", True),
    ("smt_active", "SMT", True),
    ("governors", "governor", True),
    ("turbo", "turbo boost", True),
    ("memory_bytes", "memory", True),
    ("os", "OS", True),
    ("kernel", "kernel", True),
    ("kernel_version", "kernel build", True),
    ("machine", "architecture", True),
    ("aslr", "ASLR", True),
    ("python", "python", True),
    ("numpy", "numpy", True),
    ("benchlab", "benchlab", True),
    ("timer", "timer", True),
    ("timer_resolution_s", "timer resolution", True),
    ("spawn", "spawn", True),
    ("counters", "counters", True),
    ("hostname", "host name", False),
    ("time", "recorded at", False),
    ("load_average", "load average", False),
    ("environment_bytes", "environment", False),
    ("python_executable", "python executable", False),
    ("runner_maxrss_bytes", "runner peak RSS", False),
    ("turbo_control", "turbo control", False),
)
_LABELS = {key: (label, matters) for key, label, matters in KEYS}
# Keys of a session's record that are not facts about one machine.
NOT_MACHINE = ("machines",)
ROLES = ("factor", "level")


def _bytes(value: int) -> str:
    """A size in binary units, three significant digits: 7.63 GiB, 512 MiB."""
    size = float(value)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(size) < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.3g} {unit}"
        size /= 1024
    return f"{value} B"  # not reached


def show_value(key: str, value: Any) -> str:
    """A record's value as one line of text, as `benchlab env` prints it."""
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "on" if value else "off"
    if key in ("memory_bytes", "runner_maxrss_bytes") and isinstance(value, int):
        return _bytes(value)
    if key == "environment_bytes" and isinstance(value, int):
        return f"{value} bytes"
    if key == "timer_resolution_s" and isinstance(value, int | float):
        return f"{value:g} s"
    if isinstance(value, list):
        return ", ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in value)
    if isinstance(value, dict):
        if key == "counters":
            return _counters_text(value)
        if key == "governors":
            return ", ".join(f"{k} ({v} CPUs)" for k, v in value.items())
        return json.dumps(value, sort_keys=True)
    return str(value)


def _counters_text(value: dict) -> str:
    """"PMU: none (why); software events: ...; valgrind-3.19.0" from a record's counters."""
    def names(items: object) -> str:
        return ", ".join(str(i) for i in items) if isinstance(items, list) and items else "none"

    pmu = names(value.get("pmu"))
    if pmu == "none" and value.get("pmu_absent"):
        pmu += f" ({value['pmu_absent']})"
    valgrind = value.get("valgrind") or "no valgrind (counter = \"cachegrind\" unavailable)"
    return f"PMU hardware events: {pmu}; software events: {names(value.get('software'))}; " \
           f"{valgrind}"


def label(key: str) -> str:
    """The row label of a record's key (the key itself when it is not a known one)."""
    return _LABELS.get(key, (key, False))[0]


def matters(key: str) -> bool:
    """Whether machines meant to be identical must agree on `key` (see KEYS)."""
    return _LABELS.get(key, (key, False))[1]


def record_keys(records: dict[str, dict]) -> list[str]:
    """Every key of the records: KEYS' order, then the others sorted."""
    seen = {k for r in records.values() if isinstance(r, dict) for k in r} - set(NOT_MACHINE)
    return [k for k, _, _ in KEYS if k in seen] + sorted(seen - set(_LABELS))


def _canonical(value: Any) -> str:
    """One text per JSON value, so that equal values compare equal (dict order aside)."""
    return json.dumps(value, sort_keys=True, default=str)


@dataclass(frozen=True)
class Difference:
    """One key on which machines' records disagree: each machine's value, in the
    records' order (a key a record lacks is None: unknown)."""

    key: str
    values: dict[str, Any]

    @property
    def label(self) -> str:
        return label(self.key)

    @property
    def matters(self) -> bool:
        return matters(self.key)

    def groups(self) -> list[tuple[str, list[str]]]:
        """(the value shown, the machines that have it), in order of first appearance."""
        out: dict[str, tuple[str, list[str]]] = {}
        for machine, value in self.values.items():
            out.setdefault(_canonical(value), (show_value(self.key, value), []))[1].append(
                machine)
        return list(out.values())

    def warning(self) -> str:
        """The line that says identical machines differ here (docs/env.md):
        "machines m1 and m2 are meant to be identical but differ in kernel: A vs B";
        beyond two machines each value names its machines."""
        names = list(self.values)
        who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        groups = self.groups()
        if len(names) == 2:
            shown = " vs ".join(text for text, _ in groups)
        else:
            shown = " vs ".join(f"{text} ({', '.join(ms)})" for text, ms in groups)
        return f"machines {who} are meant to be identical but differ in {self.label}: {shown}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "matters": self.matters,
                "values": dict(self.values)}


def differences(records: dict[str, dict]) -> list[Difference]:
    """The keys on which the machines' records (name -> record, as `collect` makes) differ,
    in the order of `record_keys`; a record that is not a dict counts as empty."""
    clean = {m: r if isinstance(r, dict) else {} for m, r in records.items()}
    out = []
    for key in record_keys(clean):
        values = {m: r.get(key) for m, r in clean.items()}
        if len({_canonical(v) for v in values.values()}) > 1:
            out.append(Difference(key, values))
    return out


def identical_machine_warnings(records: dict[str, dict]) -> list[str]:
    """One line per key that matters on which machines meant to be identical differ
    (what `benchlab run` prints at its end, `benchlab env STORE` and the report show)."""
    return [d.warning() for d in differences(records) if d.matters]


def machine_warnings(records: dict[str, dict], role: str | None) -> list[str]:
    """`identical_machine_warnings` for role "level"; none for role "factor", whose
    machines differ on purpose (the differences are still shown, not warned about)."""
    return identical_machine_warnings(records) if role == "level" else []


def machines_of(environment: dict) -> dict[str, dict]:
    """The machines' records of a session's environment record (empty: a local run)."""
    machines = environment.get("machines") if isinstance(environment, dict) else None
    if not isinstance(machines, dict):
        return {}
    return {str(m): r if isinstance(r, dict) else {} for m, r in machines.items()}


def machines_role(meta: dict[str, str]) -> str | None:
    """The store's `[machines] role` from its benchlab_meta: the key "machines" (JSON
    {"names": [...], "role": ...}), else the [machines] table of the stored experiment
    text; None when neither says (read defensively: a store made by another version)."""
    try:
        doc = json.loads(meta.get("machines", "null"))
    except (TypeError, ValueError):
        doc = None
    if not isinstance(doc, dict):
        doc = _experiment_machines(meta.get("experiment_text"))
    role = doc.get("role", "factor") if isinstance(doc, dict) else None
    return role if role in ROLES else None


def _experiment_machines(text: str | None) -> dict | None:
    """The [machines] table of an experiment file's text, None when it has none."""
    if not text:
        return None
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            return None
    try:
        table = tomllib.loads(text).get("machines")
    except (tomllib.TOMLDecodeError, TypeError, ValueError):
        return None
    return table if isinstance(table, dict) else None


# -- results of `benchlab env` -----------------------------------------------------------

@dataclass(frozen=True)
class EnvironmentCheck(Result):
    """`benchlab env`: this machine's record and its noise warnings."""

    environment: dict[str, Any]
    warnings: tuple[Warning_, ...] = ()


@dataclass(frozen=True)
class SessionEnvironment:
    """One session of a store: when, how it ended, its command, the environment record
    (the driver's, with `machines` for a run on Dask), its noise warnings, and across
    machines the keys that differ and the warnings for machines meant to be identical."""

    id: int
    started: str
    finished: str | None
    outcome: str | None
    argv: Any
    environment: dict[str, Any]
    warnings: tuple[str, ...]
    machines: dict[str, dict] = field(default_factory=dict)
    differences: tuple[Difference, ...] = ()
    machine_warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class StoreEnvironments(Result):
    """`benchlab env STORE`: every session's environment; `role` is the store's
    `[machines] role` (None: no machines, or a store that does not say)."""

    store: str
    role: str | None
    sessions: tuple[SessionEnvironment, ...]

    @property
    def machine_warnings(self) -> list[str]:
        """Every session's identical-machine warnings, each once."""
        return list(dict.fromkeys(w for s in self.sessions for w in s.machine_warnings))


def store_environments(store: str, sessions: list[dict], meta: dict[str, str]) -> \
        StoreEnvironments:
    """The result of `benchlab env STORE` from the store's sessions (Store.sessions) and
    its benchlab_meta."""
    role = machines_role(meta)
    out = []
    for s in sessions:
        env = s["environment"] if isinstance(s.get("environment"), dict) else {}
        machines = machines_of(env)
        mine = tuple(machine_warnings(machines, role))
        stored = s.get("warnings") if isinstance(s.get("warnings"), list) else []
        # a runner that also stored the identical-machine lines: each is said once
        noise = tuple(str(w) for w in stored if str(w) not in mine)
        out.append(SessionEnvironment(
            id=s["id"], started=s["started"], finished=s["finished"], outcome=s["outcome"],
            argv=s["argv"], environment=env, warnings=noise, machines=machines,
            differences=tuple(differences(machines)), machine_warnings=mine))
    return StoreEnvironments(store, role, tuple(out))

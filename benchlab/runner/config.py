"""Read and check an experiment file (TOML) into a frozen Experiment (docs/experiment-file.md).

Every problem is an InputError naming the file and the line: TOML syntax errors
carry tomllib's line; an unknown key or a value of the wrong type is located by
scanning the text for the key under its table header (tomllib keeps no
positions, so the scan is written here).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import math
import os
import re
import shutil
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchlab.errors import InputError

if TYPE_CHECKING:
    from benchlab.runner.state_config import StateFactor

ORDERS = ("interleaved-random", "sequential", "blocked")
RESERVED = ("alternative", "case", "build", "execution", "iteration", "warmup", "metric",
            "unit", "value", "trial", "round")
TIME_METRICS = (("wall", "s"), ("user", "s"), ("sys", "s"), ("maxrss", "B"))
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")
_HEADER = re.compile(r"^\s*\[\[?\s*[A-Za-z0-9_\"'-][^\],]*\]\]?\s*(#.*)?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_MACHINE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zµ]*)\s*$")
MAX_INT = 2**63 - 1  # TOML's integers are 64-bit signed
MAX_TIMEOUT = 7 * 86400.0  # a timeout beyond a week is a typo (and poll(2) waits < 2**31 ms)
# Each execution (and prepare) is killed after this unless the file or --timeout says otherwise
# (`timeout = "none"` disables it): a command that never exits would otherwise hang the run.
# Ten minutes is far above a benchmark's execution and short enough to notice a hang.
DEFAULT_TIMEOUT = 600.0
MAX_CPU = 65535
_SECONDS = {"": 1.0, "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "sec": 1.0,
            "m": 60.0, "min": 60.0, "h": 3600.0}


@dataclass(frozen=True)
class Command:
    """One command: an argv list, or a string run by /bin/sh -c when `shell` is true."""

    argv: tuple[str, ...]
    shell: bool = False

    def substitute(self, values: dict[str, str]) -> Command:
        """The command with every `{name}` replaced: inside one argument of an argv list, or
        shell-quoted in a shell string (so a level `1; touch x` stays one word) unless
        written `{name:raw}`."""
        return Command(tuple(substitute(a, values, quote=self.shell) for a in self.argv),
                       self.shell)

    @property
    def literal(self) -> bool:
        """No placeholder anywhere: every trial runs the command as written."""
        return _literal(self.argv)

    def spawn_argv(self) -> list[str]:
        return ["/bin/sh", "-c", self.argv[0]] if self.shell else list(self.argv)

    def show(self) -> str:
        """The command as a shell would read it (quoted once per distinct argv, not per trial
        nor per alternative: 50,000 alternatives running `true` quote it once)."""
        return self.argv[0] if self.shell else _shell_words(self.argv)


@functools.lru_cache(maxsize=4096)
def _literal(argv: tuple[str, ...]) -> bool:
    return not any("{" in a or "}" in a for a in argv)


@functools.lru_cache(maxsize=4096)
def _shell_words(argv: tuple[str, ...]) -> str:
    import shlex

    return shlex.join(argv)


@dataclass(frozen=True)
class Alternative:
    name: str
    command: Command
    build: Command | None = None
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None


@dataclass(frozen=True)
class Measure:
    """How an execution yields iterations: the process timed whole, a regex or JSON lines."""

    kind: str  # "time", "regex" or "json"
    metrics: tuple[str, ...]
    units: tuple[str, ...]
    regex: str | None = None

    @property
    def primary(self) -> str:
        return self.metrics[0]

    def unit_of(self, metric: str) -> str:
        return self.units[self.metrics.index(metric)]


@dataclass(frozen=True)
class Stop:
    """Adaptive stopping: a target relative half-width of every ratio CI, a time limit."""

    halfwidth: float | None
    max_time: float | None
    metric: str
    confidence: float = 0.95


@dataclass(frozen=True)
class SteadyState:
    """[steady_state]: each execution iterates until its steady state (stats/warmup's
    classifier on the iterations so far) holds `iterations` iterations, or until the
    experiment's `iterations` (then the maximum); the iterations before it are flagged
    warm-up (runner/steady.py)."""

    iterations: int
    metric: str


@dataclass(frozen=True)
class Machines:
    """The [machines] table: the machines an experiment runs on (docs/cluster.md). With role
    "factor" the machine is a factor named `machine` (every cell runs on every machine); with
    role "level" the machines are identical and the machine is a random-effect level above
    builds (Kalibera & Jones's hierarchy one level up): every cell runs on every machine, and
    each machine makes its own `builds` builds."""

    names: tuple[str, ...]
    role: str  # "factor" or "level"

    @property
    def level(self) -> bool:
        return self.role == "level"


@dataclass(frozen=True)
class Experiment:
    path: str
    text: str
    digest: str
    name: str
    alternatives: tuple[Alternative, ...]
    baseline: str
    factors: tuple[tuple[str, tuple[str, ...]], ...]
    builds: int
    executions: int
    iterations: int
    warmup_executions: int
    warmup_iterations: int
    order: str
    seed: int | None
    timeout: float | None
    build_timeout: float | None
    cwd: str
    env: tuple[tuple[str, str], ...]
    measure: Measure
    setup: tuple[Command, ...] = ()
    teardown: tuple[Command, ...] = ()
    prepare: Command | None = None
    cpus: tuple[int, ...] | None = None
    stop: Stop | None = None
    machines: Machines | None = None
    # factors whose levels set system state (runner/state_config.py), by factor name
    states: tuple[StateFactor, ...] = ()
    steady: SteadyState | None = None
    counter: str | None = None  # "cachegrind" or "callgrind": counted executions (count trials)
    # quick mode's one command scanned: its alternatives are the scan's values, which the
    # store's analysis compares with the first (meta "scanned"; runner/quick.py)
    scanned: bool = False
    lines: dict[str, int] = field(default_factory=dict, compare=False)

    @property
    def factor_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.factors)

    @functools.cached_property
    def _by_name(self) -> dict[str, Alternative]:
        return {a.name: a for a in self.alternatives}

    def alternative(self, name: str) -> Alternative:
        """The alternative called `name`, found in constant time: a plan looks one up per
        trial, and a scan per lookup made planning quadratic in the alternatives."""
        return self._by_name[name]

    def where(self, *path: str) -> str:
        """"file:line" of a key path, for messages about it."""
        return f"{self.path}:{find_line(self.text, path)}"


def substitute(text: str, values: dict[str, str], quote: bool = False) -> str:
    """Replace `{name}` by values[name]; `{{` and `}}` are literal braces. With `quote` (a
    string for /bin/sh) each value is quoted with shlex.quote, except where the template
    says `{name:raw}`: a value then cannot end the command or start another one."""
    if "{" not in text and "}" not in text:  # most arguments: nothing to replace
        return text
    import shlex

    def one(m: re.Match[str]) -> str:
        if m.group(0) == "{{":
            return "{"
        if m.group(0) == "}}":
            return "}"
        name, _, spec = m.group(1).partition(":")
        return shlex.quote(values[name]) if quote and spec != "raw" else values[name]

    return _PLACEHOLDER.sub(one, text)


def placeholders(text: str) -> list[str]:
    """The names of the placeholders in `text` (`{name}` and `{name:raw}` alike)."""
    return [name for name, _ in _placeholder_specs(text)]


def _placeholder_specs(text: str) -> list[tuple[str, str]]:
    """(name, format) of every placeholder in `text`: format is "" or what follows a colon."""
    return [m.group(1).partition(":")[::2] for m in _PLACEHOLDER.finditer(text)
            if m.group(1) is not None]


def parse_duration(value: Any) -> float | None:
    """'10s', '250ms', '30m', a number of seconds → seconds; None when not a duration."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str):
        m = _DURATION.match(value)
        if not m or m.group(2) not in _SECONDS:
            return None
        seconds = float(m.group(1)) * _SECONDS[m.group(2)]
    else:
        return None
    return seconds if 0 < seconds < math.inf else None


def parse_fraction(value: Any) -> float | None:
    """'1%' or 0.01 → 0.01; None when not a fraction in (0, 1)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value[:-1]) / 100 if isinstance(value, str) and value.endswith("%") \
            else float(value)
    except (TypeError, ValueError):
        return None
    return number if 0.0 < number < 1.0 else None


def find_line(text: str, path: tuple[str, ...] | list[str]) -> int:
    """Best-effort line (1-based) of the key `path` in TOML `text`: the key after its table's
    header ([a.b] or [[a]]), else the first line naming the key, else the header, else 1."""
    lines = text.removeprefix("\ufeff").split("\n")
    start, header_line = 0, 0
    for depth in range(len(path) - 1, 0, -1):
        dotted = r"\s*\.\s*".join(re.escape(p) for p in path[:depth])
        header = re.compile(r"^\s*\[\[?\s*" + dotted + r"\s*\]\]?\s*(#.*)?$")
        found = next((i for i, line in enumerate(lines) if header.match(line)), None)
        if found is not None:
            start, header_line = found + 1, found + 1
            break
    key = re.escape(path[-1]) if path else ""
    pattern = re.compile(r"(^|[{,.\s])[\"']?" + key + r"[\"']?\s*=")
    for i in range(start, len(lines)):
        if start > 0 and _HEADER.match(lines[i]):
            break
        if pattern.search(lines[i]):
            return i + 1
    for i, line in enumerate(lines):
        if pattern.search(line):
            return i + 1
    if path:  # a table given as a header: [alternatives.fast]
        dotted = r"\s*\.\s*".join(re.escape(p) for p in path)
        header = re.compile(r"^\s*\[\[?\s*" + dotted + r"\s*\]\]?")
        for i, line in enumerate(lines):
            if header.match(line):
                return i + 1
    return header_line or 1


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib


class _Reader:
    """Checks values of the parsed document, raising InputError at the key's line."""

    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text

    def fail(self, keys: tuple[str, ...], message: str) -> InputError:
        return InputError(message, f"{self.path}:{find_line(self.text, keys)}")

    def table(self, doc: dict, keys: tuple[str, ...], allowed: dict[str, str]) -> dict:
        for key in doc:
            if key not in allowed:
                import difflib

                where = ".".join((*keys, key))
                close = difflib.get_close_matches(key, list(allowed), n=1)
                hint = f"did you mean {close[0]!r}?" if close else \
                    f"known here: {', '.join(allowed)}"
                raise self.fail((*keys, key), f"unknown key {where!r} ({hint})")
        return doc

    def kind(self, value: Any, keys: tuple[str, ...], kind: type | tuple, what: str) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
            raise self.fail(keys, f"{'.'.join(keys)} must be {what}, not {_show(value)}")
        return value

    def integer(self, doc: dict, keys: tuple[str, ...], default: int, minimum: int) -> int:
        value = doc.get(keys[-1], default)
        self.kind(value, keys, int, "an integer")
        if value < minimum:
            raise self.fail(keys, f"{'.'.join(keys)} must be at least {minimum}, not {value}")
        return int(value)

    def string(self, doc: dict, keys: tuple[str, ...], default: str | None) -> str | None:
        value = doc.get(keys[-1], default)
        return None if value is None else self.kind(value, keys, str, "a string")

    def command(self, value: Any, keys: tuple[str, ...], shell: bool) -> Command:
        if isinstance(value, str):
            if not shell:
                raise self.fail(keys, f"{'.'.join(keys)} is a string; give an argv list such "
                                "as [\"prog\", \"arg\"], or set shell = true to run it with "
                                "/bin/sh")
            if not value.strip():
                raise self.fail(keys, f"{'.'.join(keys)} is an empty command")
            return Command((value,), True)
        if not isinstance(value, list) or not value:
            raise self.fail(keys, f"{'.'.join(keys)} must be a non-empty list of strings "
                            f"(argv), not {_show(value)}")
        for i, item in enumerate(value):
            if not isinstance(item, str):
                hint = f" (write \"{item}\")" if isinstance(item, (int, float)) \
                    and not isinstance(item, bool) else ""
                raise self.fail(keys, f"{'.'.join(keys)}[{i}] must be a string, not "
                                f"{_show(item)}{hint}: every argument of a command is a string")
        if shell:
            raise self.fail(keys, f"{'.'.join(keys)} is a list but shell = true; give one "
                            "string for the shell")
        return Command(tuple(value), False)

    def env(self, value: Any, keys: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        self.kind(value, keys, dict, "a table of NAME = \"value\"")
        out = []
        for name, v in value.items():
            where = f"{'.'.join(keys)}.{name}"
            if not name or "=" in name:
                raise self.fail((*keys, name), f"{where}: an environment variable's name must "
                                "be non-empty and without '='")
            if not isinstance(v, str):
                hint = f" (write {name} = \"{v}\")" if isinstance(v, (int, float)) \
                    and not isinstance(v, bool) else ""
                raise self.fail((*keys, name), f"{where} must be a string, not {_show(v)}{hint}")
            out.append((name, v))
        return tuple(out)

    def directory(self, value: str, keys: tuple[str, ...], base_dir: str,
                  may_be_made: bool = False) -> str:
        """The working directory `value` (relative to `base_dir`), which must exist now unless
        a setup command may make it (`may_be_made`): else every trial would fail to start and
        be recorded as failed."""
        full = os.path.normpath(os.path.join(base_dir, value))
        if may_be_made and not os.path.lexists(full):
            return full
        if not os.path.isdir(full):
            what = "not a directory" if os.path.exists(full) else "no such directory"
            raise self.fail(keys, f"{'.'.join(keys)}: {what}: {full}")
        if not os.access(full, os.X_OK):
            raise self.fail(keys, f"{'.'.join(keys)}: cannot enter the directory {full} "
                            "(permission denied)")
        return full

    def check_values(self, value: Any, keys: tuple[str, ...] = (), index: str = "") -> None:
        """Refuse a NUL byte in any key or string (no argument, variable or path can hold
        one: every trial would fail) and an integer outside TOML's 64-bit range."""
        # `where` is written only for a message: building it for each of 150,000 values of
        # a 50,000-alternative file cost a tenth of a second.
        if isinstance(value, dict):
            for key, item in value.items():
                if "\x00" in key:
                    where = ".".join(keys) + index
                    raise self.fail(keys, f"a key in {where or 'the top level'} contains a NUL "
                                    "byte (\\u0000)")
                self.check_values(item, (*keys, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                self.check_values(item, keys, f"{index}[{i}]")
        elif isinstance(value, str):
            if "\x00" in value:
                raise self.fail(keys, f"{'.'.join(keys) + index} contains a NUL byte (\\u0000), "
                                "which no argument, variable or path can hold")
        elif isinstance(value, int) and not isinstance(value, bool) \
                and not -MAX_INT - 1 <= value <= MAX_INT:
            raise self.fail(keys, f"{'.'.join(keys) + index} is out of range: TOML integers "
                            f"are 64-bit (at most {MAX_INT})")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value)
    return f"{type(value).__name__} {value!r}"


_TOP = dict.fromkeys((
    "name", "seed", "order", "builds", "executions", "iterations", "timeout", "build_timeout",
    "baseline", "cwd", "env", "shell", "setup", "teardown", "prepare", "cpus", "warmup",
    "measure", "factors", "alternatives", "stop_when", "machines", "steady_state", "metrics",
    "counter"), "")
_ALTERNATIVE = {"command": "", "build": "", "shell": "", "env": "", "cwd": ""}
_WARMUP = {"executions": "", "iterations": ""}
_MEASURE = {"regex": "", "json": "", "unit": ""}
_STOP = {"halfwidth": "", "max_time": "", "metric": "", "confidence": ""}
_MACHINES = {"names": "", "role": ""}
_STEADY = {"iterations": "", "metric": ""}
MIN_STEADY = 10  # steady_state.iterations: at least this many
MIN_STEADY_MAX = 30  # the executions' maximum: the classifier needs 30 iterations
MACHINE_ROLES = ("factor", "level")
MACHINE_FACTOR = "machine"


def load_experiment(path: str) -> Experiment:
    """Read and check the experiment file at `path`."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except IsADirectoryError:
        raise InputError("is a directory, not an experiment file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text (not an experiment file?)", path) from None
    return parse_experiment(text, path)


def parse_experiment(text: str, path: str = "<experiment>") -> Experiment:
    """Check the TOML `text` of an experiment file; `path` names it in messages and anchors
    relative working directories. A UTF-8 byte order mark at the start is skipped (data files
    accept one too); `text` is kept as written."""
    with gc_paused():
        return _parse_experiment(text, path)


@contextlib.contextmanager
def gc_paused():
    """The cyclic garbage collector off while a file's (acyclic) objects are built: with tens
    of thousands of alternatives or trials its full passes over the growing heap made reading
    and planning superlinear (benchmarks/plan_scaling.py)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _parse_experiment(text: str, path: str) -> Experiment:
    tomllib = _toml()
    try:
        doc = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = re.search(r"\(at line (\d+), column \d+\)", message)
        line = m.group(1) if m else "1"
        if "(at end of document)" in message:
            line = str(len(text.rstrip("\n").split("\n")))
        reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise InputError(f"invalid TOML: {reason}", f"{path}:{line}") from None
    except ValueError:  # an integer of thousands of digits: int() refuses to convert it
        long = re.search(r"[0-9_]{4000,}", text)
        line = text.count("\n", 0, long.start()) + 1 if long else 1
        raise InputError(f"invalid TOML: an integer out of range (TOML integers are 64-bit, "
                         f"at most {MAX_INT})", f"{path}:{line}") from None
    r = _Reader(path, text)
    r.check_values(doc)
    r.table(doc, (), _TOP)
    shell = doc.get("shell", False)
    r.kind(shell, ("shell",), bool, "true or false")
    base_dir = os.path.dirname(os.path.abspath(path)) if not path.startswith("<") else os.getcwd()
    cwd = r.string(doc, ("cwd",), None)
    cwd = r.directory(cwd, ("cwd",), base_dir) if cwd else base_dir

    states: list[StateFactor] = []
    factors = _factors(r, doc.get("factors", {}), states)
    machines = _machines(r, doc, factors)
    if machines is not None and not machines.level:  # the machine is one more factor
        factors = (*factors, (MACHINE_FACTOR, machines.names))
    factor_names = [n for n, _ in factors]
    alternatives = _alternatives(r, doc, shell, base_dir)
    names = [a.name for a in alternatives]
    baseline = r.string(doc, ("baseline",), names[0])
    if baseline not in names:
        raise r.fail(("baseline",), f"baseline {baseline!r} is not an alternative "
                     f"(alternatives: {', '.join(names)})")

    order = r.string(doc, ("order",), "interleaved-random")
    if order not in ORDERS:
        raise r.fail(("order",), f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    seed = doc.get("seed")
    if seed is not None:
        r.kind(seed, ("seed",), int, "an integer")
        if seed < 0:
            raise r.fail(("seed",), "seed must be 0 or more")
    timeout = _duration(r, doc, "timeout") if "timeout" in doc else DEFAULT_TIMEOUT
    build_timeout = _duration(r, doc, "build_timeout")

    warmup = r.kind(doc.get("warmup", {}), ("warmup",), dict, "a table")
    r.table(warmup, ("warmup",), _WARMUP)
    measure = _measure(r, doc.get("measure", {}))
    counter = _counter(r, doc)
    if "metrics" in doc or counter is not None:
        measure = _metrics(r, doc, measure, counter)
    iterations = r.integer(doc, ("iterations",), 1, 1)
    warmup_iterations = r.integer(warmup, ("warmup", "iterations"), 0, 0)
    if measure.kind == "time" and (iterations > 1 or warmup_iterations > 0):
        key = ("iterations",) if iterations > 1 else ("warmup", "iterations")
        raise r.fail(key, "a process timed whole is one iteration; iterations within an "
                     "execution need values parsed from its output ([measure] regex or json)")

    env = r.env(doc.get("env", {}), ("env",))
    setup = _commands(r, doc, "setup", shell)
    teardown = _commands(r, doc, "teardown", shell)
    prepare = r.command(doc["prepare"], ("prepare",), shell) if "prepare" in doc else None
    cpus = None
    if "cpus" in doc:
        r.kind(doc["cpus"], ("cpus",), list, "a list of CPU numbers")
        for c in doc["cpus"]:
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= MAX_CPU:
                raise r.fail(("cpus",), f"cpus must list CPU numbers (0, 1, ... {MAX_CPU}), "
                             f"not {_show(c)}")
        if not doc["cpus"]:
            raise r.fail(("cpus",), "cpus is empty")
        if not hasattr(os, "sched_setaffinity"):
            raise r.fail(("cpus",), "cpus (CPU pinning) needs Linux's sched_setaffinity")
        cpus = tuple(sorted(set(doc["cpus"])))
    _check_states(r, states, order, cpus)
    stop = _stop(r, doc.get("stop_when"), measure)
    if stop is not None and order == "sequential":
        raise r.fail(("stop_when",), "stop_when needs order = \"interleaved-random\": a "
                     "sequential order has no rounds in which every alternative has run")

    steady = _steady(r, doc.get("steady_state"), measure, iterations)

    experiment = Experiment(
        path=path, text=text, digest=hashlib.sha256(text.encode()).hexdigest(),
        name=r.string(doc, ("name",), os.path.splitext(os.path.basename(path))[0]) or "",
        alternatives=alternatives, baseline=baseline, factors=factors,
        builds=r.integer(doc, ("builds",), 1, 1),
        executions=r.integer(doc, ("executions",), 10, 1), iterations=iterations,
        warmup_executions=r.integer(warmup, ("warmup", "executions"), 0, 0),
        warmup_iterations=warmup_iterations, order=order, seed=seed, timeout=timeout,
        build_timeout=build_timeout, cwd=cwd,
        env=env, measure=measure, setup=setup, teardown=teardown, prepare=prepare, cpus=cpus,
        stop=stop, machines=machines, states=tuple(states), steady=steady, counter=counter)
    _check_placeholders(r, experiment, factor_names, doc)
    return experiment


def _check_states(r: _Reader, states: list[StateFactor], order: str,
                  cpus: tuple[int, ...] | None) -> None:
    """order = "blocked" needs a factor that switches system state; `cpus` and an affinity
    factor would both pin the command; one built-in per setting."""
    if order == "blocked" and not any(s.switched for s in states):
        raise r.fail(("order",), "order = \"blocked\" groups the trials by the levels of "
                     "factors that switch system state (setup/teardown, or set = "
                     "\"irq_affinity\", \"governor\", \"turbo\", \"smt\"); this file has none")
    for s in states:
        if s.kind == "affinity" and cpus is not None:
            raise r.fail(("factors", s.name), f"factor {s.name!r} sets the CPU affinity and "
                         "cpus = [...] pins too; keep one")
        twice = [t.name for t in states if t.kind == s.kind and s.kind != "commands"]
        if len(twice) > 1:
            raise r.fail(("factors", twice[1]), f"factors {twice[0]!r} and {twice[1]!r} both "
                         f"set {s.kind}; keep one")


def _duration(r: _Reader, doc: dict, key: str) -> float | None:
    """A timeout key: a duration, or "none" (no timeout); None when absent or "none"."""
    if key not in doc:
        return None
    try:
        return parse_timeout(doc[key], key)
    except ValueError as exc:
        raise r.fail((key,), str(exc)) from None


def parse_timeout(value: Any, name: str) -> float | None:
    """A timeout in seconds from a duration ("10s", "5m", seconds), None for "none";
    ValueError naming `name` (the key or the option) when it is neither or above a week."""
    if isinstance(value, str) and value.strip().lower() == "none":
        return None
    seconds = parse_duration(value)
    if seconds is None:
        raise ValueError(f"{name} must be a positive duration such as \"10s\", or \"none\", "
                         f"not {_show(value)[:60]}")
    if seconds > MAX_TIMEOUT:
        raise ValueError(f"{name} must be at most {MAX_TIMEOUT / 86400:g} days, not "
                         f"{_show(value)[:60]}")
    return seconds


def with_timeout(e: Experiment, text: str | None) -> Experiment:
    """The experiment with its execution timeout replaced by `text` (`run --timeout`: a
    duration or "none"); unchanged when `text` is None. UsageError when not a duration."""
    if text is None:
        return e
    from dataclasses import replace

    from benchlab.errors import UsageError

    try:
        return replace(e, timeout=parse_timeout(text, "--timeout"))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _factors(r: _Reader, factors: Any, states: list[StateFactor] | None = None
             ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The factors and their levels; a factor given as a table sets system state (its
    StateFactor appended to `states`)."""
    r.kind(factors, ("factors",), dict, "a table of name = [levels]")
    out = []
    for name, levels in factors.items():
        keys = ("factors", name)
        if not _NAME.match(name):
            raise r.fail(keys, f"factor name {name!r} must be letters, digits, _ or -")
        if name in RESERVED:
            raise r.fail(keys, f"factor name {name!r} is reserved (reserved: "
                         f"{', '.join(RESERVED)})")
        if isinstance(levels, dict):
            from benchlab.runner.state_config import parse_factor  # only for a state factor

            state = parse_factor(r, name, levels)
            if states is not None:
                states.append(state)
            out.append((name, tuple(level.name for level in state.levels)))
            continue
        r.kind(levels, keys, list, "a list of levels (or a table with set and levels)")
        if not levels:
            raise r.fail(keys, f"factor {name!r} has no levels")
        texts = []
        for v in levels:
            if isinstance(v, bool) or not isinstance(v, (str, int, float)):
                raise r.fail(keys, f"factor {name!r} has level {_show(v)}; levels must be "
                             "strings or numbers")
            texts.append(str(v))
        if len(set(texts)) != len(texts):
            raise r.fail(keys, f"factor {name!r} repeats a level")
        out.append((name, tuple(texts)))
    return tuple(out)


def _machines(r: _Reader, doc: dict, factors: tuple) -> Machines | None:
    """The [machines] table checked: distinct non-empty names (letters, digits, _ - .), a known
    role, at least two machines for role "level" (one machine has no machine-to-machine
    variance to estimate), and no factor already named `machine` (the machine's name in the
    store and the `{machine}` placeholder)."""
    if "machines" not in doc:
        return None
    spec = r.kind(doc["machines"], ("machines",), dict, "a table with names = [...]")
    r.table(spec, ("machines",), _MACHINES)
    keys = ("machines", "names")
    if "names" not in spec:
        raise r.fail(("machines",), "[machines] needs names = [\"NAME\", ...]")
    names = r.kind(spec["names"], keys, list, "a list of machine names")
    if not names:
        raise r.fail(keys, "machines.names is empty")
    for name in names:
        if not isinstance(name, str) or not _MACHINE.match(name):
            raise r.fail(keys, f"machines.names: {_show(name)} is not a machine name (letters, "
                         "digits, _ - and ., not empty)")
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise r.fail(keys, f"machines.names repeats {twice!r}")
    role = r.string(spec, ("machines", "role"), "factor")
    if role not in MACHINE_ROLES:
        raise r.fail(("machines", "role"), f"machines.role must be one of "
                     f"{', '.join(MACHINE_ROLES)}, not {role!r}")
    if role == "level" and len(names) < 2:
        raise r.fail(("machines", "role"), "machines.role = \"level\" needs at least 2 "
                     "machines (one machine has no machine-to-machine variance to estimate); "
                     "for one machine use role = \"factor\" or leave out [machines]")
    if any(name == MACHINE_FACTOR for name, _ in factors):
        raise r.fail(("factors", MACHINE_FACTOR), f"factor {MACHINE_FACTOR!r} clashes with "
                     "[machines], which names each trial's machine so")
    return Machines(tuple(names), role)


def _alternatives(r: _Reader, doc: dict, shell: bool, base_dir: str) -> tuple[Alternative, ...]:
    if "alternatives" not in doc:
        raise InputError("no [alternatives] table: name at least one command to run, e.g. "
                         "[alternatives.fast] command = [\"./fast\"]", f"{r.path}:1")
    table = r.kind(doc["alternatives"], ("alternatives",), dict,
                   "a table of [alternatives.NAME] tables")
    if not table:
        raise r.fail(("alternatives",), "no alternatives")
    out = []
    for name, spec in table.items():
        keys = ("alternatives", name)
        if not name.strip():
            raise r.fail(keys, "an alternative needs a non-empty name")
        r.kind(spec, keys, dict, "a table with command = [...]")
        r.table(spec, keys, _ALTERNATIVE)
        own_shell = shell  # the file's, checked once; the keys below only when given
        if "shell" in spec:
            own_shell = r.kind(spec["shell"], (*keys, "shell"), bool, "true or false")
        if "command" not in spec:
            raise r.fail(keys, f"alternative {name!r} has no command")
        command = r.command(spec["command"], (*keys, "command"), own_shell)
        build = r.command(spec["build"], (*keys, "build"), own_shell) if "build" in spec \
            else None
        cwd = r.string(spec, (*keys, "cwd"), None) if "cwd" in spec else None
        env = r.env(spec["env"], (*keys, "env")) if "env" in spec else ()
        out.append(Alternative(name, command, build, env,
                               r.directory(cwd, (*keys, "cwd"), base_dir, "setup" in doc)
                               if cwd else None))
    return tuple(out)


def _commands(r: _Reader, doc: dict, key: str, shell: bool) -> tuple[Command, ...]:
    """setup/teardown: one command, or a list of commands."""
    if key not in doc:
        return ()
    value = doc[key]
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return tuple(r.command(v, (key,), shell) for v in value)
    return (r.command(value, (key,), shell),)


def _measure(r: _Reader, spec: Any) -> Measure:
    r.kind(spec, ("measure",), dict, "a table")
    r.table(spec, ("measure",), _MEASURE)
    if "regex" in spec and "json" in spec:
        raise r.fail(("measure", "json"), "give either measure.regex or measure.json, not both")
    if "regex" in spec:
        pattern = r.kind(spec["regex"], ("measure", "regex"), str, "a string")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise r.fail(("measure", "regex"), f"invalid regex: {exc}") from None
        metrics = tuple(compiled.groupindex)
        if not metrics:
            raise r.fail(("measure", "regex"), "the regex has no named group; name the value "
                         "it captures, e.g. 'time: (?P<time>[0-9.]+)'")
        kind = "regex"
    elif "json" in spec:
        value = spec["json"]
        if isinstance(value, str):
            value = [value]
        r.kind(value, ("measure", "json"), list, "a list of the keys to read from each JSON line")
        if not value or not all(isinstance(v, str) and v for v in value):
            raise r.fail(("measure", "json"), "measure.json must list one or more key names")
        metrics, pattern, kind = tuple(value), None, "json"
    else:
        if "unit" in spec:
            raise r.fail(("measure", "unit"), "measure.unit needs measure.regex or measure.json "
                         "(a process timed whole is measured in s and B)")
        return Measure("time", tuple(m for m, _ in TIME_METRICS),
                       tuple(u for _, u in TIME_METRICS))
    for m in metrics:
        if m in RESERVED and m != "value":
            raise r.fail(("measure",), f"metric name {m!r} is reserved")
    unit = spec.get("unit", "")
    if isinstance(unit, str):
        units = tuple(unit for _ in metrics)
    else:
        r.kind(unit, ("measure", "unit"), dict, "a unit (\"ms\") or a table metric = unit")
        for key in unit:
            if key not in metrics:
                raise r.fail(("measure", "unit", key), f"measure.unit names {key!r}, which is "
                             f"not a metric (metrics: {', '.join(metrics)})")
            r.kind(unit[key], ("measure", "unit", key), str, "a string")
        units = tuple(unit.get(m, "") for m in metrics)
    return Measure(kind, metrics, units, pattern)


def _counter(r: _Reader, doc: dict) -> str | None:
    """`counter = "cachegrind"` or "callgrind": counted executions under Valgrind."""
    from benchlab.runner.metric_sources import COUNTERS

    counter = r.string(doc, ("counter",), None)
    if counter is not None and counter not in COUNTERS:
        raise r.fail(("counter",), f"counter must be one of {', '.join(COUNTERS)}, not "
                     f"{counter!r}")
    return counter


def _metrics(r: _Reader, doc: dict, measure: Measure, counter: str | None) -> Measure:
    """`metrics = ["wall", "instructions", ...]` of a process timed whole (the first is the
    primary); without it, a counter adds `instructions` to the default metrics."""
    from benchlab.runner import metric_sources as sources

    keys = ("metrics",)
    if measure.kind != "time":
        key = "metrics" if "metrics" in doc else "counter"
        raise r.fail((key,), f"{key} goes with a process timed whole; with [measure] regex "
                     "or json the metrics are the values the command prints")
    if "metrics" not in doc:
        names: list[str] = [*sources.DEFAULT, "instructions"]
    else:
        names = r.kind(doc["metrics"], keys, list, "a list of metric names")
        if not names:
            raise r.fail(keys, "metrics is empty")
        for name in names:
            if not isinstance(name, str) or sources.unit_of(name) is None:
                import difflib

                close = difflib.get_close_matches(str(name), sources.known(), n=1)
                hint = f"did you mean {close[0]!r}?" if close else \
                    f"known: {', '.join(sources.known())}"
                raise r.fail(keys, f"metrics: unknown metric {_show(name)} ({hint})")
        if len(set(names)) != len(names):
            twice = next(n for n in names if names.count(n) > 1)
            raise r.fail(keys, f"metrics lists {twice!r} twice")
        if counter is not None and not any(n in sources.COUNTED for n in names):
            raise r.fail(("counter",), f"counter = \"{counter}\" counts instructions: add "
                         "\"instructions\" to metrics")
        cache = next((n for n in names if n in sources.CACHE), None)
        if cache is not None and counter is None:
            raise r.fail(keys, f"metric {cache!r} is counted by Valgrind's cache simulation: "
                         "add counter = \"cachegrind\" (quick mode: --counter cachegrind)")
    return Measure("time", tuple(names), tuple(sources.unit_of(n) or "" for n in names))


def _stop(r: _Reader, spec: Any, measure: Measure) -> Stop | None:
    if spec is None:
        return None
    r.kind(spec, ("stop_when",), dict, "a table such as { halfwidth = \"1%\", max_time = \"30m\" }")
    r.table(spec, ("stop_when",), _STOP)
    halfwidth = max_time = None
    if "halfwidth" in spec:
        halfwidth = parse_fraction(spec["halfwidth"])
        if halfwidth is None:
            raise r.fail(("stop_when", "halfwidth"), "stop_when.halfwidth must be a percentage "
                         f"such as \"1%\", not {_show(spec['halfwidth'])}")
    if "max_time" in spec:
        max_time = parse_duration(spec["max_time"])
        if max_time is None:
            raise r.fail(("stop_when", "max_time"), "stop_when.max_time must be a duration such "
                         f"as \"30m\", not {_show(spec['max_time'])}")
    if halfwidth is None and max_time is None:
        raise r.fail(("stop_when",), "stop_when needs halfwidth and/or max_time")
    metric = spec.get("metric", measure.primary)
    r.kind(metric, ("stop_when", "metric"), str, "a string")
    if metric not in measure.metrics:
        raise r.fail(("stop_when", "metric"), f"stop_when.metric {metric!r} is not measured "
                     f"(metrics: {', '.join(measure.metrics)})")
    confidence = parse_fraction(spec.get("confidence", 0.95))
    if "confidence" in spec and isinstance(spec["confidence"], (int, float)) \
            and not isinstance(spec["confidence"], bool) and spec["confidence"] >= 1:
        confidence = parse_fraction(spec["confidence"] / 100)
    if confidence is None:
        raise r.fail(("stop_when", "confidence"), "stop_when.confidence must be such as 95 or "
                     "\"95%\"")
    return Stop(halfwidth, max_time, metric, confidence)


def _steady(r: _Reader, spec: Any, measure: Measure, iterations: int) -> SteadyState | None:
    """[steady_state]: the steady iterations each execution waits for, and the metric."""
    if spec is None:
        return None
    r.kind(spec, ("steady_state",), dict, "a table such as { iterations = 100 }")
    r.table(spec, ("steady_state",), _STEADY)
    if measure.kind == "time":
        raise r.fail(("steady_state",), "steady_state needs iterations within an execution: "
                     "values parsed from its output ([measure] regex or json)")
    if "iterations" not in spec:
        raise r.fail(("steady_state",), "steady_state needs iterations: how many iterations "
                     "the steady state must hold before an execution stops")
    steady = r.integer(spec, ("steady_state", "iterations"), MIN_STEADY, MIN_STEADY)
    if iterations < max(steady, MIN_STEADY_MAX):
        raise r.fail(("iterations",), f"iterations ({iterations}) is the most an execution "
                     f"runs with [steady_state]: it must be at least steady_state.iterations "
                     f"({steady}) and at least {MIN_STEADY_MAX}")
    metric = spec.get("metric", measure.primary)
    r.kind(metric, ("steady_state", "metric"), str, "a string")
    if metric not in measure.metrics:
        raise r.fail(("steady_state", "metric"), f"steady_state.metric {metric!r} is not "
                     f"measured (metrics: {', '.join(measure.metrics)})")
    return SteadyState(steady, metric)


def _check_placeholders(r: _Reader, e: Experiment, factor_names: list[str], doc: dict) -> None:
    """Every {name} must be a factor or a built-in; commands must exist."""
    machine = {MACHINE_FACTOR} if e.machines is not None else set()
    run_names = {*factor_names, *machine, "alternative", "build", "iterations"}
    build_names = {*machine, "alternative", "build"}
    build_env = {*build_names, "iterations"}  # what plan.values_for gives a build trial

    def check(texts: tuple[str, ...], keys: tuple[str, ...], allowed: set[str],
              built: str | None = None) -> None:
        for text in texts:
            if "{" not in text:  # no placeholder (the usual case, once per alternative)
                continue
            for name, spec in _placeholder_specs(text):
                if spec not in ("", "raw"):
                    raise r.fail(keys, f"unknown placeholder format {{{name}:{spec}}} (only "
                                 f"{{{name}:raw}}: the value unquoted in a shell string)")
                if name not in allowed and built is not None and name in run_names:
                    raise r.fail(keys, f"{{{name}}} in env: the environment is also the "
                                 f"build step's (of alternative {built!r}), which runs once for "
                                 f"all levels of {name}; give it in the command instead (known "
                                 f"here: {', '.join(sorted(allowed))})")
                if name not in allowed:
                    hint = ", ".join(sorted(allowed)) or "none"
                    raise r.fail(keys, f"unknown placeholder {{{name}}} (known here: {hint}; "
                                 "write {{ for a literal brace)")

    for a in e.alternatives:
        keys = ("alternatives", a.name)
        check(a.command.argv, (*keys, "command"), run_names)
        if a.env:
            check(tuple(v for _, v in a.env), (*keys, "env"),  # a build runs with the env too
                  build_env if a.build else run_names, a.name if a.build else None)
        if a.build:
            check(a.build.argv, (*keys, "build"), build_names)
    built = next((a.name for a in e.alternatives if a.build), None)
    check(tuple(v for _, v in e.env), ("env",), build_env if built else run_names, built)
    for key, commands in (("setup", e.setup), ("teardown", e.teardown),
                          ("prepare", (e.prepare,) if e.prepare else ())):
        for c in commands:
            check(c.argv, (key,), set())
    found: dict[str, bool] = {}
    for a in e.alternatives:
        if a.build is not None:
            check_exists(r, a.build, ("alternatives", a.name, "build"), a.cwd or e.cwd, found)
        if a.build is None and not e.setup:  # else the build or the setup may make it
            check_exists(r, a.command, ("alternatives", a.name, "command"), a.cwd or e.cwd,
                         found)
    for key, commands in (("setup", e.setup), ("teardown", e.teardown),
                          ("prepare", (e.prepare,) if e.prepare else ())):
        for c in commands:
            check_exists(r, c, (key,), e.cwd, found)
    for s in e.states:
        for level in s.levels:
            for key, commands in (("setup", level.setup), ("teardown", level.teardown)):
                keys = ("factors", s.name, "levels", level.name, key)
                for c in commands:
                    check(c.argv, keys, set())
                    check_exists(r, c, keys, e.cwd, found)


def check_exists(r: _Reader, command: Command, keys: tuple[str, ...], cwd: str,
                 found: dict[str, bool] | None = None) -> None:
    """Refuse a program that does not exist (argv[0] without placeholders; shells are not
    checked: the shell finds its programs). `found` remembers the PATH lookups of one file,
    so 50,000 alternatives running one program search PATH once."""
    if command.shell or ("{" in command.argv[0] and placeholders(command.argv[0])):
        return
    program = command.argv[0]
    if os.sep in program:
        full = os.path.join(cwd, program)
        if not (os.path.isfile(full) and os.access(full, os.X_OK)):
            what = "not executable" if os.path.isfile(full) else "no such program"
            raise r.fail(keys, f"{what}: {program!r} (relative to {cwd})")
        return
    found = {} if found is None else found
    if program not in found:
        found[program] = shutil.which(program) is not None
    if not found[program]:
        raise r.fail(keys, f"command not found: {program!r} (not on PATH)")

"""Factors whose levels set the system state a command runs in (docs/experiment-file.md,
"System state as a factor"): their table in an experiment file, checked into frozen objects.

A factor given as a table instead of a list of levels either names a built-in setting
(`set = "affinity"`, ...) with a value per level, or gives each level `setup` and
`teardown` commands (an argv list, a shell string, or a list of those), which the runner
runs when it switches to and away from that level (runner/switching.py). Nogueira et al.
(SAC'14) vary the sources of OS jitter as the factors of a 2^k design this way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The experiment file's reader (runner/config.py) imports this module, so the types of
# config and plan are not imported here, not even for annotations: Command, Experiment and
# Trial are written Any (tests/runner/test_layout.py refuses the circle).
Command = Any

# Set per trial on the measured process alone (no state of the machine changes, no switch):
# its CPU affinity (sched_setaffinity), and ASLR off through personality(ADDR_NO_RANDOMIZE).
PER_TRIAL = ("affinity", "aslr")
# System-wide, set when the runner switches level and put back when it leaves it.
SYSTEM = ("irq_affinity", "governor", "turbo", "smt")
BUILTINS = (*PER_TRIAL, *SYSTEM)
ALL_CPUS = "all"  # an affinity level that does not pin: the runner's own CPUs
_VALUES = {"aslr": "on or off", "turbo": "on, off or unchanged", "smt": "on, off or unchanged",
           "governor": "a governor's name (performance, powersave, ...) or unchanged",
           "affinity": "a CPU list such as \"1\" or \"0-3\", or \"all\"",
           "irq_affinity": "the CPUs the IRQs go to, such as \"0\", or unchanged"}
_FACTOR_KEYS = {"set": "", "levels": ""}
_LEVEL_KEYS = {"setup": "", "teardown": ""}


@dataclass(frozen=True)
class StateLevel:
    """One level: a built-in's value, or the commands that enter and leave it."""

    name: str
    value: str = ""
    setup: tuple[Command, ...] = ()
    teardown: tuple[Command, ...] = ()


@dataclass(frozen=True)
class StateFactor:
    """A factor whose levels set system state; `kind` is "commands" or a built-in."""

    name: str
    kind: str
    levels: tuple[StateLevel, ...]

    @property
    def switched(self) -> bool:
        """Whether a change of level is a switch of the machine's state (setup, teardown),
        not a property of the measured process alone."""
        return self.kind not in PER_TRIAL

    def level(self, name: str) -> StateLevel:
        return next(level for level in self.levels if level.name == name)


def parse_factor(r: Any, name: str, spec: dict) -> StateFactor:
    """The factor table `spec` of factor `name`, checked by the experiment file's reader `r`
    (errors name the file and line)."""
    keys = ("factors", name)
    r.table(spec, keys, _FACTOR_KEYS)
    kind = spec.get("set", "commands")
    if kind != "commands":
        r.kind(kind, (*keys, "set"), str, "a string")
        if kind not in BUILTINS:
            raise r.fail((*keys, "set"), f"factors.{name}.set must be one of "
                         f"{', '.join(BUILTINS)}, not {kind!r} (or leave it out and give each "
                         "level setup and teardown commands)")
    if "levels" not in spec:
        raise r.fail(keys, f"factor {name!r} needs levels")
    raw = spec["levels"]
    if isinstance(raw, list) and kind != "commands":
        raw = {str(v): v for v in raw}
    r.kind(raw, (*keys, "levels"), dict, "a table of level = value" if kind != "commands"
           else "a table of [factors.NAME.levels.LEVEL] tables")
    if not raw:
        raise r.fail((*keys, "levels"), f"factor {name!r} has no levels")
    levels = tuple(_level(r, kind, (*keys, "levels", str(level)), str(level), value)
                   for level, value in raw.items())
    return StateFactor(name, kind, levels)


def _level(r: Any, kind: str, keys: tuple[str, ...], name: str, value: Any) -> StateLevel:
    where = ".".join(keys)
    if kind == "commands":
        r.kind(value, keys, dict, "a table with setup and teardown commands (or empty)")
        r.table(value, keys, _LEVEL_KEYS)
        return StateLevel(name, "", _commands(r, value, (*keys, "setup")),
                          _commands(r, value, (*keys, "teardown")))
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise r.fail(keys, f"{where} must be {_VALUES[kind]}, not {value!r}")
    text = str(value).strip()
    if kind in ("affinity", "irq_affinity") and text not in (ALL_CPUS, "unchanged"):
        from benchlab.runner.system_settings import parse_cpus

        try:
            parse_cpus(text)
        except ValueError:
            raise r.fail(keys, f"{where} must be {_VALUES[kind]}, not {text!r}") from None
    elif kind == "affinity" and text == "unchanged" or kind == "irq_affinity" and text == ALL_CPUS:
        raise r.fail(keys, f"{where} must be {_VALUES[kind]}, not {text!r}")
    elif kind == "aslr" and text not in ("on", "off") or kind in ("turbo", "smt") \
            and text not in ("on", "off", "unchanged"):
        raise r.fail(keys, f"{where} must be {_VALUES[kind]}, not {text!r}")
    elif kind == "governor" and not text.replace("_", "").isalnum():
        raise r.fail(keys, f"{where} must be {_VALUES[kind]}, not {text!r}")
    return StateLevel(name, text)


def _commands(r: Any, doc: dict, keys: tuple[str, ...]) -> tuple[Command, ...]:
    """setup or teardown: an argv list, a shell string, or a list of those."""
    if keys[-1] not in doc:
        return ()
    value = doc[keys[-1]]
    items = value if isinstance(value, list) and value and all(
        isinstance(v, (list, str)) for v in value) and not all(
        isinstance(v, str) for v in value) else [value]
    return tuple(r.command(v, keys, isinstance(v, str)) for v in items)


def process_settings(e: Any, trial: Any) -> tuple[tuple[int, ...] | None, bool]:
    """The per-trial built-ins of a trial: the CPUs to pin it to (the file's `cpus`, else its
    affinity level; None: unpinned) and whether its ASLR is off."""
    from benchlab.runner.system_settings import parse_cpus

    if trial.kind == "build":  # a build step runs unpinned, as without state factors
        return None, False
    cpus, aslr_off = e.cpus, False
    levels = dict(trial.factors)
    for s in e.states:
        if s.kind == "affinity":
            value = s.level(levels[s.name]).value
            cpus = None if value == ALL_CPUS else parse_cpus(value)
        elif s.kind == "aslr":
            aslr_off = s.level(levels[s.name]).value == "off"
    return cpus, aslr_off

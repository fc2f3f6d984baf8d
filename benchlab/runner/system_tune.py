"""`benchlab system show|tune|reset` (docs/system.md): the settings that add noise to
measurements, set for benchmarking, and put back exactly as they were.

`tune` keeps every file's previous text in a state file before it writes (merged with a
state file an earlier tune left, so the oldest text wins), and `reset` writes those texts
back and removes the file: it works in a later process, not after a reboot (which resets
the kernel's settings by itself). What this machine lacks or refuses (no cpufreq in a VM,
a kernel-managed IRQ, not root) is reported with its reason, never skipped in silence; what
cannot change at run time (isolated CPUs, nohz_full) is shown with the boot option that
sets it. The files and their writes are runner/system_settings.py's.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from benchlab.errors import InputError, UsageError
from benchlab.result import Result
from benchlab.runner import system_settings as ss

STATE_FORMAT = "benchlab-system-tune"


def default_state_file() -> str:
    """$XDG_STATE_HOME/benchlab/system-tune.json (default ~/.local/state/...)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                             ".local", "state")
    return os.path.join(base, "benchlab", "system-tune.json")


@dataclass(frozen=True)
class Setting:
    """One setting as `show` reports it: its value, what benchmarking wants, whether it is
    so (None: nothing to want, or unknown here), and why it cannot be read or changed."""

    name: str
    value: str
    wanted: str
    good: bool | None
    note: str = ""


@dataclass(frozen=True)
class SystemShow(Result):
    settings: tuple[Setting, ...]


@dataclass(frozen=True)
class Change:
    """One file tune wrote (or would write), or reset restored."""

    setting: str
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class SystemChange(Result):
    """What tune or reset did (or, with dry_run, would do): the changes, the files or
    settings left as they were with the reason, and the state file."""

    action: str  # "tune" or "reset"
    changes: tuple[Change, ...]
    unsupported: tuple[tuple[str, str], ...]  # (setting or file, reason)
    state_file: str
    dry_run: bool
    unchanged: tuple[str, ...] = field(default_factory=tuple)  # settings already as wanted


# -- show ------------------------------------------------------------------------------------

def show(root: str = "", cpus: tuple[int, ...] | None = None) -> SystemShow:
    """The settings that matter for noise on this machine (`cpus`: the benchmark's CPUs, for
    the IRQs handled there)."""
    out = [_governor(root), _turbo(root), _smt(root), _aslr(root), _irqs(root, cpus)]
    for name, path, boot in (("isolated CPUs", ss.ISOLATED, "isolcpus"),
                             ("nohz_full CPUs", ss.NOHZ_FULL, "nohz_full")):
        text = ss.read(path, root)
        out.append(Setting(name, text or ("none" if text is not None else "unknown"),
                           "the benchmark's CPUs", True if text else None,
                           f"set at boot only: {boot}=LIST on the kernel command line"
                           if text is not None else f"{path} does not exist"))
    paranoid = ss.read(ss.PARANOID, root)
    out.append(Setting("perf_event_paranoid", paranoid or "unknown", "≤ 2 to count own events",
                       None if paranoid is None else int(paranoid) <= 2,
                       "read by perf counters (not changed by tune: a security setting)"))
    rate = ss.read(ss.SAMPLE_RATE, root)
    out.append(Setting("perf_event_max_sample_rate", rate or "unknown", ss.TUNED_SAMPLE_RATE,
                       None if rate is None else rate == ss.TUNED_SAMPLE_RATE,
                       "perf sampling interrupts per second (pyperf's tune sets 1 too)"))
    return SystemShow(tuple(out))


def _governor(root: str) -> Setting:
    files = ss.governor_files(root)
    if not files:
        return Setting("governor", "unsupported", "performance", None,
                       f"no {ss.CPU}/cpu*/cpufreq/scaling_governor (no cpufreq driver: a VM?)")
    values = sorted({ss.read(f, root) or "?" for f in files})
    return Setting("governor", ", ".join(values), "performance", values == ["performance"],
                   f"{len(files)} CPUs")


def _turbo(root: str) -> Setting:
    found = ss.turbo_file(root)
    if found is None:
        return Setting("turbo", "unsupported", "off", None,
                       f"no {ss.NO_TURBO} nor {ss.BOOST} (no turbo control: a VM?)")
    path, on, _ = found
    value = "on" if ss.read(path, root) == on else "off"
    return Setting("turbo", value, "off", value == "off", path)


def _smt(root: str) -> Setting:
    state = ss.read(ss.SMT_CONTROL, root)
    if state is None:
        return Setting("smt", "unknown", "off or unused", None, f"no {ss.SMT_CONTROL}")
    return Setting("smt", state, "off or unused", None if state in (
        "notsupported", "notimplemented") else state in ("off", "forceoff"),
        "not changed by tune (it removes CPUs); a factor may switch it (set = \"smt\")")


def _aslr(root: str) -> Setting:
    value = ss.read(ss.ASLR, root)
    if value is None:
        return Setting("aslr", "unknown", "a choice", None, f"no {ss.ASLR}")
    return Setting("aslr", f"{value} ({'off' if value == '0' else 'on'})", "a choice", None,
                   "tune --aslr off sets 0; per command: an aslr factor (docs/env.md)")


def _irqs(root: str, cpus: tuple[int, ...] | None) -> Setting:
    files = ss.irq_files(root)
    if not files:
        return Setting("irq_affinity", "unknown", "away from the benchmark's CPUs", None,
                       "no /proc/irq/*/smp_affinity")
    masks = {irq: ss.mask_cpus(ss.read(p, root) or "0") for irq, p in files.items()}
    spread: dict[str, int] = {}
    for m in masks.values():
        key = ss.show_cpus(m) or "none"
        spread[key] = spread.get(key, 0) + 1
    value = f"{len(files)} IRQs: " + ", ".join(f"{n} on CPU {k}" for k, n in spread.items())
    if cpus is None:
        return Setting("irq_affinity", value, "away from the benchmark's CPUs", None,
                       "--cpus LIST names the benchmark's CPUs")
    on = [irq for irq, m in masks.items() if set(m) & set(cpus)]
    return Setting("irq_affinity", value, f"none on CPU {ss.show_cpus(cpus)}", not on,
                   f"{len(on)} IRQs may run on CPU {ss.show_cpus(cpus)}" if on else "")


# -- tune and reset --------------------------------------------------------------------------

def tune(state_file: str, *, cpus: tuple[int, ...] | None = None, aslr_off: bool = False,
         dry_run: bool = False, root: str = "") -> SystemChange:
    """Set governor performance, turbo off, the perf sample rate to 1, IRQs away from `cpus`
    (when given) and ASLR off (when asked), saving the previous texts in `state_file` first."""
    wanted: list[tuple[str, str]] = [("governor", "performance"), ("turbo", "off"),
                                     ("perf_sample_rate", ss.TUNED_SAMPLE_RATE)]
    unsupported: list[tuple[str, str]] = []
    if cpus is not None:
        online = ss.online_cpus(root)
        missing = [c for c in cpus if c not in online]
        if missing:
            raise UsageError(f"--cpus {ss.show_cpus(cpus)}: CPU {ss.show_cpus(missing)} is not "
                             f"online (online: {ss.show_cpus(online)})")
        rest = tuple(c for c in online if c not in cpus)
        if not rest:
            raise UsageError(f"--cpus {ss.show_cpus(cpus)} leaves no CPU for the IRQs (online: "
                             f"{ss.show_cpus(online)}); keep at least one out")
        wanted.append(("irq_affinity", ss.show_cpus(rest)))
    else:
        unsupported.append(("irq_affinity", "not changed: --cpus LIST names the benchmark's "
                                            "CPUs to move the IRQs away from"))
    if aslr_off:
        wanted.append(("aslr", "off"))
    for name, boot in (("isolated CPUs", "isolcpus"), ("nohz_full CPUs", "nohz_full")):
        unsupported.append((name, f"set at boot only ({boot}=LIST on the kernel command line)"))
    writes: list[ss.Write] = []
    for kind, value in wanted:
        try:
            writes += ss.level_writes(kind, value, root)
        except ss.Unsupported as exc:
            unsupported.append((kind, str(exc)))
    state = _load_state(state_file, missing_ok=True)
    if dry_run:
        changes, unchanged, refused = _would(writes, root)
        unsupported += list(refused.items())
        return SystemChange("tune", changes, tuple(unsupported), state_file, True, unchanged)
    earlier = dict(state.get("previous", {}))  # an earlier tune's: its texts are the oldest
    previous, settings = dict(earlier), dict(state.get("settings", {}))
    for w in writes:  # saved before the first write: a tune killed midway resets too
        text = ss.read(w.path, root)
        if text is not None and w.path not in previous:
            previous[w.path] = text
        settings.setdefault(w.path, w.setting)
    _save_state(state_file, previous, settings)
    applied = ss.apply(writes, root)
    unsupported += list(applied.refused.items())
    written = {w.path for w in applied.written}
    # a file neither this tune nor an earlier one changed needs no reset
    kept = {p: t for p, t in previous.items() if p in written or p in earlier}
    _save_state(state_file, kept, {p: settings[p] for p in kept})
    changes = tuple(Change(w.setting, w.path, previous.get(w.path, "?"), w.value)
                    for w in applied.written)
    unchanged = tuple(sorted({w.setting for w in writes if w.path not in written
                              and w.path not in applied.refused}
                             - {w.setting for w in applied.written}))
    return SystemChange("tune", changes, tuple(unsupported), state_file, False, unchanged)


def _would(writes: list[ss.Write], root: str):
    """The changes a tune would make (--dry-run), the settings already as wanted, and the
    files it could not write (found by writing back what they hold)."""
    ok, refused = ss.probe(writes, root)
    changes, same = [], set()
    for w in ok:
        now = ss.read(w.path, root) or ""
        if _differs(w.path, now, w.value):
            changes.append(Change(w.setting, w.path, now, w.value))
        else:
            same.add(w.setting)
    changed = {c.setting for c in changes}
    return tuple(changes), tuple(sorted(same - changed)), refused


def _differs(path: str, shown: str, value: str) -> bool:
    if path.endswith("smp_affinity"):
        return ss.mask_cpus(shown) != ss.mask_cpus(value)
    return shown.strip() != value


def reset(state_file: str, *, dry_run: bool = False, root: str = "") -> SystemChange:
    """Write back every text a tune saved in `state_file`; the file is removed when every
    one went back (kept with those that did not, to try again)."""
    state = _load_state(state_file, missing_ok=False)
    previous: dict[str, str] = state.get("previous", {})
    settings: dict[str, str] = state.get("settings", {})
    changes = []
    for path, text in previous.items():
        now = ss.read(path, root)
        if now is not None and _differs(path, now, text):
            changes.append(Change(settings.get(path, "?"), path, now, text))
    if dry_run:
        return SystemChange("reset", tuple(changes), (), state_file, True)
    failed = ss.restore(previous, root)
    if failed:
        _save_state(state_file, {p: previous[p] for p in failed},
                    {p: settings.get(p, "?") for p in failed})
    else:
        os.unlink(state_file)
    return SystemChange("reset", tuple(c for c in changes if c.path not in failed),
                        tuple(failed.items()), state_file, False)


def _load_state(path: str, *, missing_ok: bool) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            state = json.load(handle)
    except FileNotFoundError:
        if missing_ok:
            return {}
        raise UsageError(f"nothing to reset: no state file {path} (benchlab system tune "
                         "writes it; --state-file names another)") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"not a state file of benchlab system tune ({exc})", path) from None
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT or not isinstance(
            state.get("previous"), dict):
        raise InputError("not a state file of benchlab system tune (no format mark "
                         f"{STATE_FORMAT!r})", path)
    return state


def _save_state(path: str, previous: dict[str, str], settings: dict[str, str]) -> None:
    """The state file, written aside and renamed (a reset never reads half a file)."""
    from benchlab.sqlite_file import timestamp

    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump({"format": STATE_FORMAT, "version": 1, "saved": timestamp(),
                   "previous": previous, "settings": settings}, handle, indent=1)
        handle.write("\n")
    os.replace(tmp, path)

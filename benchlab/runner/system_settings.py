"""The system settings that add noise to measurements: where each lives in /proc and /sys,
how to read it, what a benchmark wants, and which writes set it (docs/system.md).

`benchlab system` (show, tune, reset) and the built-in system-state levels of an experiment
file (`set = "irq_affinity"`, `"governor"`, `"turbo"`, `"smt"`) both go through here: a
change is a list of `Write`s (a file and the text to write), applied by `apply`, which
keeps every file's previous text so that `restore` puts back exactly what was there. A
setting this machine lacks (no cpufreq in a VM, SMT "notsupported") or does not let this
process change (not root, a kernel-managed IRQ) is an `Unsupported` naming the file and the
reason, never skipped in silence. `root` prefixes every path, so tests can point it at a
directory tree shaped like /sys and /proc.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field

CPU = "/sys/devices/system/cpu"
ASLR = "/proc/sys/kernel/randomize_va_space"
PARANOID = "/proc/sys/kernel/perf_event_paranoid"
SAMPLE_RATE = "/proc/sys/kernel/perf_event_max_sample_rate"
IRQ_DEFAULT = "/proc/irq/default_smp_affinity"
NO_TURBO = f"{CPU}/intel_pstate/no_turbo"
BOOST = f"{CPU}/cpufreq/boost"
SMT_CONTROL = f"{CPU}/smt/control"
ISOLATED = f"{CPU}/isolated"
NOHZ_FULL = f"{CPU}/nohz_full"
# What pyperf's `system tune` sets too: the kernel samples perf events at most once a
# second, so sampling (of this or another tool) takes almost no time from the benchmark.
TUNED_SAMPLE_RATE = "1"
ON_OFF = ("on", "off")
UNCHANGED = "unchanged"  # a level that leaves the setting as it finds it


class Unsupported(Exception):
    """A setting this machine lacks or does not let this process change; the message is
    one line naming what is missing."""


@dataclass(frozen=True)
class Write:
    """One file and the text to write into it."""

    path: str
    value: str
    setting: str  # the setting it belongs to: "governor", "irq_affinity", ...


@dataclass
class Applied:
    """What `apply` did: every file's previous text (to restore), the files written, the
    files it could not write with the reason (a kernel-managed IRQ refuses a new affinity)."""

    previous: dict[str, str] = field(default_factory=dict)
    written: list[Write] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """One line per file: `path: old -> new`, or `path: not changed (reason)`."""
        out = [f"{w.path}: {self.previous.get(w.path, '?')} -> {w.value}" for w in self.written]
        out += [f"{path}: not changed ({why})" for path, why in self.refused.items()]
        return out


def read(path: str, root: str = "") -> str | None:
    """The stripped text of a /proc or /sys file, None when it does not exist or cannot be
    read."""
    try:
        with open(root + path, encoding="ascii", errors="replace") as handle:
            return handle.read().strip()
    except OSError:
        return None


def write(path: str, value: str, root: str = "") -> None:
    """Write `value` into the file (OSError when refused). Opened without O_CREAT: a /sys
    file that does not exist is not a setting to make."""
    fd = os.open(root + path, os.O_WRONLY | os.O_TRUNC if root else os.O_WRONLY)
    try:
        os.write(fd, value.encode("ascii"))
    finally:
        os.close(fd)


def reason(exc: OSError, path: str = "") -> str:
    """An OSError as the words of a one-line message."""
    import errno

    if exc.errno in (errno.EPERM, errno.EACCES, errno.EIO) and path.endswith("smp_affinity") \
            and os.geteuid() == 0:
        return f"the kernel manages this IRQ's affinity ({exc.strerror})"
    if exc.errno in (errno.EPERM, errno.EACCES):
        why = "permission denied" if os.geteuid() != 0 else "not permitted here"
        return f"{why} ({exc.strerror})"
    return exc.strerror or str(exc)


# -- CPU lists and masks -------------------------------------------------------------------

def parse_cpus(text: str) -> tuple[int, ...]:
    """A CPU list such as "0-2,5" → (0, 1, 2, 5); ValueError when it is not one."""
    cpus: set[int] = set()
    for part in text.replace(" ", "").split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m:
            raise ValueError(f"not a CPU list: {text!r} (write e.g. 1 or 0-3,6)")
        low, high = int(m.group(1)), int(m.group(2) or m.group(1))
        if high < low or high > 65535:
            raise ValueError(f"not a CPU list: {text!r} (write e.g. 1 or 0-3,6)")
        cpus.update(range(low, high + 1))
    return tuple(sorted(cpus))


def show_cpus(cpus: tuple[int, ...] | list[int]) -> str:
    """(0, 1, 2, 5) → "0-2,5"."""
    out: list[str] = []
    for cpu in sorted(cpus):
        if out and "-" not in out[-1].split(",")[-1] and int(out[-1]) == cpu - 1:
            out[-1] = f"{out[-1]}-{cpu}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == cpu - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{cpu}"
        else:
            out.append(str(cpu))
    return ",".join(out)


def mask(cpus: tuple[int, ...]) -> str:
    """The hexadecimal mask of /proc/irq/*/smp_affinity for these CPUs."""
    return format(sum(1 << c for c in cpus), "x")


def mask_cpus(text: str) -> tuple[int, ...]:
    """The CPUs of a mask as the kernel shows it ("3", "00000000,00000003")."""
    value = int(text.replace(",", "") or "0", 16)
    return tuple(c for c in range(value.bit_length()) if value >> c & 1)


def online_cpus(root: str = "") -> tuple[int, ...]:
    """The CPUs online, from /sys (else os.cpu_count)."""
    text = read(f"{CPU}/online", root)
    if text:
        return parse_cpus(text)
    return tuple(range(os.cpu_count() or 1))


# -- where each setting lives ---------------------------------------------------------------

def governor_files(root: str = "") -> list[str]:
    return sorted(p[len(root):] for p in glob.glob(
        f"{root}{CPU}/cpu[0-9]*/cpufreq/scaling_governor"))


def irq_files(root: str = "") -> dict[int, str]:
    """Every IRQ's smp_affinity file, by IRQ number."""
    out = {}
    for p in glob.glob(f"{root}/proc/irq/[0-9]*/smp_affinity"):
        out[int(p.split("/")[-2])] = p[len(root):]
    return dict(sorted(out.items()))


def turbo_file(root: str = "") -> tuple[str, str, str] | None:
    """(file, text for on, text for off) of the turbo switch, None without one."""
    if read(NO_TURBO, root) is not None:
        return NO_TURBO, "0", "1"
    if read(BOOST, root) is not None:
        return BOOST, "1", "0"
    return None


def level_writes(kind: str, value: str, root: str = "") -> list[Write]:
    """The writes that set the system-wide setting `kind` to `value` (a level of a built-in
    factor, or what `tune` wants); Unsupported naming what this machine lacks. A value
    "unchanged" is no write."""
    if value == UNCHANGED:
        return []
    if kind == "governor":
        files = governor_files(root)
        if not files:
            raise Unsupported(f"governor needs {CPU}/cpu*/cpufreq/scaling_governor, which "
                              "this machine does not have (no cpufreq driver: a VM?)")
        available = (read(files[0].replace("scaling_governor", "scaling_available_governors"),
                          root) or "").split()
        if available and value not in available:
            raise Unsupported(f"governor {value!r} is not available here (available: "
                              f"{', '.join(available)})")
        return [Write(f, value, kind) for f in files]
    if kind == "turbo":
        found = turbo_file(root)
        if found is None:
            raise Unsupported(f"turbo needs {NO_TURBO} or {BOOST}, which this machine does "
                              "not have (no turbo control: a VM?)")
        path, on, off = found
        return [Write(path, on if _on(value, kind) else off, kind)]
    if kind == "smt":
        state = read(SMT_CONTROL, root)
        if state is None or state in ("notsupported", "notimplemented", "forceoff"):
            why = f"it is {state!r}" if state else "it does not exist"
            raise Unsupported(f"smt needs a writable {SMT_CONTROL} ({why}: no SMT control "
                              "on this machine)")
        return [Write(SMT_CONTROL, "on" if _on(value, kind) else "off", kind)]
    if kind == "irq_affinity":
        try:
            cpus = parse_cpus(value)
        except ValueError as exc:
            raise Unsupported(str(exc)) from None
        missing = [c for c in cpus if c not in online_cpus(root)]
        if missing:
            raise Unsupported(f"irq_affinity {value!r}: CPU {show_cpus(missing)} is not "
                              f"online (online: {show_cpus(online_cpus(root))})")
        files = irq_files(root)
        if not files:
            raise Unsupported("irq_affinity needs /proc/irq/*/smp_affinity, which this "
                              "machine does not have")
        target = mask(cpus)
        writes = [Write(p, target, kind) for p in files.values()]
        if read(IRQ_DEFAULT, root) is not None:
            writes.append(Write(IRQ_DEFAULT, target, kind))
        return writes
    if kind == "aslr":
        if read(ASLR, root) is None:
            raise Unsupported(f"aslr needs {ASLR}, which this machine does not have")
        return [Write(ASLR, "2" if _on(value, kind) else "0", kind)]
    if kind == "perf_sample_rate":
        if read(SAMPLE_RATE, root) is None:
            raise Unsupported(f"perf_sample_rate needs {SAMPLE_RATE}, which this machine "
                              "does not have")
        return [Write(SAMPLE_RATE, value, kind)]
    raise ValueError(f"unknown setting {kind!r}")


def _on(value: str, kind: str) -> bool:
    if value not in ON_OFF:
        raise Unsupported(f"{kind} levels are on, off or {UNCHANGED}, not {value!r}")
    return value == "on"


def probe(writes: list[Write], root: str = "") -> tuple[list[Write], dict[str, str]]:
    """The writes this process may make, found by writing each file's present text back
    (which changes nothing), and those it may not with the reason: checked before a run so
    that a missing privilege stops it before its first trial."""
    ok, refused = [], {}
    for w in writes:
        now = read(w.path, root)
        if now is None:
            refused[w.path] = "cannot be read"
            continue
        try:
            write(w.path, _writable_form(w.path, now), root)
        except OSError as exc:
            refused[w.path] = reason(exc, w.path)
        else:
            ok.append(w)
    return ok, refused


def _writable_form(path: str, shown: str) -> str:
    """The text to write back for what a file shows: a governor file shows one word, and an
    affinity mask is accepted as shown; a file showing a bracketed choice ("[on] off") is
    written as the chosen word."""
    m = re.search(r"\[([^\]]+)\]", shown)
    return m.group(1) if m else shown


def apply(writes: list[Write], root: str = "", applied: Applied | None = None) -> Applied:
    """Make the writes, keeping each file's previous text (once: the first text seen is what
    `restore` puts back); a file that refuses is recorded in `refused`, not raised, so one
    kernel-managed IRQ does not leave the others half moved. A write equal to what the file
    shows is not made."""
    applied = applied or Applied()
    for w in writes:
        now = read(w.path, root)
        if now is None:
            applied.refused[w.path] = "cannot be read"
            continue
        if _same(w.path, now, w.value):
            continue
        try:
            write(w.path, w.value, root)
        except OSError as exc:
            applied.refused[w.path] = reason(exc, w.path)
            continue
        applied.previous.setdefault(w.path, _writable_form(w.path, now))
        applied.written.append(w)
    return applied


def _same(path: str, shown: str, value: str) -> bool:
    if path.endswith("smp_affinity"):
        return mask_cpus(shown) == mask_cpus(value)
    return _writable_form(path, shown) == value


def restore(previous: dict[str, str], root: str = "") -> dict[str, str]:
    """Put every file's previous text back (the newest change first undone last does not
    matter: each file is one value); the files that refused, with the reason."""
    failed = {}
    for path, value in previous.items():
        try:
            if not _same(path, read(path, root) or "", value):
                write(path, value, root)
        except OSError as exc:
            failed[path] = reason(exc, path)
    return failed

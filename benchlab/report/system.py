"""Every format of `benchlab system`'s results (docs/system.md): the settings that matter for
noise (show), and what tune or reset changed, or with --dry-run would change."""

from __future__ import annotations

from typing import Any

from benchlab.escape import terminal_lines
from benchlab.result import RenderContext, renders
from benchlab.runner.system_tune import SystemChange, SystemShow


def _mark(good: bool | None) -> str:
    return {True: "ok", False: "CHANGE", None: ""}[good]


@renders("text", SystemShow)
def show_text(result: SystemShow, context: RenderContext) -> str:
    rows = [("setting", "value", "for benchmarking", "", "note")]
    rows += [(s.name, s.value, s.wanted, _mark(s.good), s.note) for s in result.settings]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4]
             for r in rows]
    lines.append("")
    lines.append("CHANGE: not as benchmarking wants it; `benchlab system tune` sets what it can "
                 "(and `reset` puts it back)")
    return terminal_lines([line.rstrip() for line in lines]) + "\n"


@renders("json", SystemShow)
def show_json(result: SystemShow, context: RenderContext) -> dict[str, Any]:
    return {"settings": [{"name": s.name, "value": s.value, "wanted": s.wanted, "good": s.good,
                          "note": s.note} for s in result.settings]}


@renders("rows", SystemShow)
def show_rows(result: SystemShow, context: RenderContext) -> list[dict[str, Any]]:
    return [{"table": "setting", **row} for row in show_json(result, context)["settings"]]


def _compact(changes) -> list[str]:
    """One line per change, the IRQs' smp_affinity files of one old and new value in one line
    ("irq_affinity: IRQs 24-26,28: 3 -> 1"): a machine has dozens."""
    import re

    from benchlab.runner.system_settings import show_cpus

    out: list[str] = []
    irqs: dict[tuple[str, str], list[int]] = {}
    for c in changes:
        m = re.fullmatch(r"/proc/irq/(\d+)/smp_affinity", c.path)
        if m:
            if (c.old, c.new) not in irqs:
                out.append(("irq", c.old, c.new))  # type: ignore[arg-type]
            irqs.setdefault((c.old, c.new), []).append(int(m.group(1)))
        else:
            out.append(f"{c.setting}: {c.path}: {c.old} -> {c.new}")
    return [f"irq_affinity: IRQs {show_cpus(irqs[(x[1], x[2])])} (/proc/irq/N/smp_affinity): "
            f"{x[1]} -> {x[2]}" if isinstance(x, tuple) else x for x in out]


@renders("text", SystemChange)
def change_text(result: SystemChange, context: RenderContext) -> str:
    verb = {("tune", True): "would write", ("tune", False): "wrote",
            ("reset", True): "would restore", ("reset", False): "restored"}[
        (result.action, result.dry_run)]
    lines = [f"{result.action}{' (dry run: nothing written)' if result.dry_run else ''}: "
             f"{verb} {len(result.changes)} file{'s' if len(result.changes) != 1 else ''}"]
    lines += [f"  {line}" for line in _compact(result.changes)]
    if result.unchanged:
        lines.append(f"already as wanted: {', '.join(result.unchanged)}")
    if result.unsupported:
        what = "not changed" if result.action == "tune" else "not restored"
        lines.append(f"{what} ({len(result.unsupported)}):")
        lines += [f"  {name}: {why}" for name, why in result.unsupported]
    if result.action == "tune" and not result.dry_run:
        lines.append(f"previous values saved in {result.state_file}; `benchlab system reset` "
                     "puts them back")
    elif result.action == "reset" and not result.dry_run and not result.unsupported:
        lines.append(f"every saved value is back; {result.state_file} removed")
    return terminal_lines(lines) + "\n"


@renders("json", SystemChange)
def change_json(result: SystemChange, context: RenderContext) -> dict[str, Any]:
    return {"action": result.action, "dry_run": result.dry_run,
            "state_file": result.state_file,
            "changes": [{"setting": c.setting, "path": c.path, "old": c.old, "new": c.new}
                        for c in result.changes],
            "unchanged": list(result.unchanged),
            "unsupported": [{"name": n, "reason": r} for n, r in result.unsupported]}


@renders("rows", SystemChange)
def change_rows(result: SystemChange, context: RenderContext) -> list[dict[str, Any]]:
    doc = change_json(result, context)
    return ([{"table": "change", **c} for c in doc["changes"]]
            + [{"table": "unsupported", **u} for u in doc["unsupported"]])

"""Every format of `benchlab env`'s results (docs/env.md): this machine's record, and a
store's sessions with each machine's record side by side.

A run on Dask records one environment per machine (docs/cluster.md); shown side by
side, a row whose values differ is marked with ≠ (in HTML with the glyph and a
shade, so it reads without colour), the keys that differ by nature (host name,
load, time) kept apart below the others, and for machines meant to be identical
(`[machines] role = "level"`) one warning line per key that matters, above the
table. Every value comes from a store that anyone could have written: text is
made inert for its format (`escape.terminal`, `escape.markdown`, `html.escape`).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from typing import Any

from benchlab.escape import markdown as md
from benchlab.escape import terminal, terminal_lines
from benchlab.report import html_format as hf
from benchlab.report.numbers import terminal_width
from benchlab.result import RenderContext, renders
from benchlab.runner.environment import (
    EnvironmentCheck,
    SessionEnvironment,
    StoreEnvironments,
    Warning_,
    label,
    matters,
    record_keys,
    show_value,
)

DIFFERS = "≠"
LEGEND = (f"{DIFFERS}: the machines' values differ; the rows under 'expected to differ'",
          "differ between machines by nature and are never warned about")
ROLE_TEXT = {"factor": "role factor: the machine is a factor of the design, its differences "
                       "are the point",
             "level": "role level: the machines are meant to be identical"}


# -- shared ------------------------------------------------------------------------------
def _argv(s: SessionEnvironment) -> str:
    return " ".join(str(a) for a in s.argv) if isinstance(s.argv, list) else ""


def _head(s: SessionEnvironment) -> str:
    return (f"session {s.id}: {s.started} .. {s.finished or '(killed)'}, "
            f"{s.outcome or 'interrupted'}")


def _split_warning(text: str) -> Warning_:
    """A stored warning line "MESSAGE (fix: FIX)" as a Warning_ (no key is stored)."""
    message, _, fix = text.partition(" (fix: ")
    return Warning_("", message, fix[:-1] if fix.endswith(")") else fix)


def _machines_line(s: SessionEnvironment, role: str | None) -> str:
    names = ", ".join(s.machines)
    return f"machines {names} ({ROLE_TEXT[role]})" if role in ROLE_TEXT else f"machines {names}"


def _grid(s: SessionEnvironment) -> tuple[list[tuple[str, list[str], bool]], ...]:
    """(label, the machines' values shown, differ?) per key: the keys that matter, then
    the ones expected to differ."""
    differing = {d.key for d in s.differences}
    first: list[tuple[str, list[str], bool]] = []
    second: list[tuple[str, list[str], bool]] = []
    for key in record_keys(s.machines):
        row = (label(key), [show_value(key, r.get(key)) for r in s.machines.values()],
               key in differing)
        (first if matters(key) else second).append(row)
    return first, second


# -- text --------------------------------------------------------------------------------
def _seconds(value) -> str:
    """A recorded duration in seconds; a damaged record's value as it is, never a crash."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:g} s"
    return "unknown" if value is None else str(value)


def environment_text(env: dict, warnings: list) -> str:
    """One machine's record, a line per key, then its noise warnings with their fixes."""

    def show(value) -> str:
        if value is None:
            return "unknown"
        if isinstance(value, bool):
            return "on" if value else "off"
        if isinstance(value, list):
            return ", ".join(f"{v:.2f}" if isinstance(v, float) else str(v) for v in value)
        if isinstance(value, dict):
            return ", ".join(f"{k} ({v} CPUs)" for k, v in value.items())
        return str(value)

    rows = [("CPU", env.get("cpu_model")), ("cores online", env.get("cpus_online")),
            ("cores usable", env.get("cpus_usable")), ("SMT", env.get("smt_active")),
            ("governor", env.get("governors")), ("turbo boost", env.get("turbo")),
            ("kernel", f"{env.get('os')} {env.get('kernel')} {env.get('machine')}"),
            ("load average", env.get("load_average")), ("ASLR", env.get("aslr")),
            ("environment", f"{env.get('environment_bytes')} bytes"),
            ("python", env.get("python")), ("numpy", env.get("numpy")),
            ("benchlab", env.get("benchlab")),
            ("timer", f"{env.get('timer')}, resolution {_seconds(env.get('timer_resolution_s'))}")]
    if env.get("spawn"):  # stores made before it was recorded do not have it
        rows.append(("spawn", env["spawn"]))
    lines = [f"{name + ':':<14} {show(value)}" for name, value in rows]
    if isinstance(env.get("counters"), dict):  # nor this
        lines.append(f"{'counters:':<14} {show_value('counters', env['counters'])}")
    if warnings:
        lines += ["", "warnings:"]
        for w in warnings:
            lines += [f"  - {w.message}", f"    fix: {w.fix}"]
    else:
        lines += ["", "no noise warnings"]
    return terminal_lines(lines) + "\n"


@renders("text", EnvironmentCheck)
def check_text(result: EnvironmentCheck, context: RenderContext) -> str:
    return environment_text(result.environment, list(result.warnings))


def _table_lines(rows: list[tuple[str, list[str], bool]], widths: list[int],
                 label_width: int) -> list[str]:
    """Rows of the side-by-side table, each cell wrapped to its column's width."""
    lines = []
    for name, cells, differ in rows:
        wrapped = [textwrap.wrap(terminal(c), w, break_on_hyphens=False) or [""]
                   for c, w in zip(cells, widths, strict=True)]
        for k in range(max(len(w) for w in wrapped)):
            mark = DIFFERS if differ and k == 0 else " "
            head = name if k == 0 else ""
            parts = [(w[k] if k < len(w) else "").ljust(width)
                     for w, width in zip(wrapped, widths, strict=True)]
            lines.append(f"{mark} {head:<{label_width}}  {'  '.join(parts)}".rstrip())
    return lines


def side_by_side_lines(s: SessionEnvironment, width: int | None = None) -> list[str]:
    """The machines' records as a text table, one column per machine, at most `width`
    characters wide where the values allow (long values wrap in their column)."""
    first, second = _grid(s)
    names = [terminal(m) for m in s.machines]
    everything = first + second
    label_width = max([len(n) for n, _, _ in everything] + [len("expected to differ:")])
    room = (width or terminal_width()) - 4 - label_width - 2 * len(names)
    cap = max(12, room // max(len(names), 1))
    widths = [min(cap, max([len(names[j])] + [len(terminal(r[1][j])) for r in everything]))
              for j in range(len(names))]
    columns = "  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True))
    header = f"  {'':<{label_width}}  {columns}"
    lines = [header.rstrip(), *_table_lines(first, widths, label_width)]
    if second:
        lines += ["  expected to differ:", *_table_lines(second, widths, label_width)]
    return lines


def _warning_lines(warnings: Sequence[str]) -> list[str]:
    if not warnings:
        return ["", "no noise warnings"]
    lines = ["", "warnings:"]
    for text in warnings:
        w = _split_warning(text)
        lines += [f"  - {w.message}"] + ([f"    fix: {w.fix}"] if w.fix else [])
    return lines


def machines_text(s: SessionEnvironment, role: str | None, width: int | None = None) -> str:
    """A session of a run on Dask: its machines side by side, the identical-machine
    warnings above, the driver's host, the noise warnings."""
    lines = [_machines_line(s, role)]
    if s.machine_warnings:
        lines += ["", "identical machines differ:", *[f"  - {w}" for w in s.machine_warnings]]
    lines += ["", *side_by_side_lines(s, width), "", *LEGEND]
    driver = s.environment.get("hostname")
    if driver:
        lines.append(f"driver (where benchlab run ran): {driver}; its record: --json")
    lines += _warning_lines(s.warnings)
    return terminal_lines(lines) + "\n"


@renders("text", StoreEnvironments)
def store_text(result: StoreEnvironments, context: RenderContext) -> str:
    out = []
    for s in result.sessions:
        out.append(terminal(f"{_head(s)}: {_argv(s)}") + "\n")
        if s.machines:
            text = machines_text(s, result.role, (context.option("width") or terminal_width())
                                 - 2)
        else:
            text = environment_text(s.environment, [_split_warning(w) for w in s.warnings])
        out.append("".join(f"  {line}\n" if line else "\n" for line in text.rstrip().split("\n")))
    return "".join(out)


# -- JSON --------------------------------------------------------------------------------
@renders("json", EnvironmentCheck)
def check_json(result: EnvironmentCheck, context: RenderContext) -> dict[str, Any]:
    return {"environment": result.environment,
            "warnings": [{"key": w.key, "message": w.message, "fix": w.fix}
                         for w in result.warnings]}


def session_json(s: SessionEnvironment) -> dict[str, Any]:
    """A session as `env --store --json` gives it (docs/env.md#json-document)."""
    return {"id": s.id, "started": s.started, "finished": s.finished, "argv": s.argv,
            "environment": s.environment, "warnings": list(s.warnings), "outcome": s.outcome,
            "machines": list(s.machines),
            "differences": [d.to_dict() for d in s.differences],
            "machine_warnings": list(s.machine_warnings)}


@renders("json", StoreEnvironments)
def store_json(result: StoreEnvironments, context: RenderContext) -> dict[str, Any]:
    return {"store": result.store, "machines_role": result.role,
            "sessions": [session_json(s) for s in result.sessions],
            "warnings": result.machine_warnings}


# -- tidy rows (CSV) ---------------------------------------------------------------------
def _raw(value: Any) -> Any:
    """A record's value for a CSV cell: scalars as they are, lists and dicts as JSON."""
    return json.dumps(value, sort_keys=True) if isinstance(value, list | dict) else value


def _record_rows(record: dict[str, Any], **ids: Any) -> list[dict[str, Any]]:
    return [{"table": "environment", **ids, "key": key, "value": _raw(record.get(key)),
             "shown": show_value(key, record.get(key))} for key in record_keys({"": record})]


@renders("rows", EnvironmentCheck)
def check_rows(result: EnvironmentCheck, context: RenderContext) -> list[dict[str, Any]]:
    rows = _record_rows(result.environment)
    rows += [{"table": "warning", "key": w.key, "message": w.message, "fix": w.fix}
             for w in result.warnings]
    return rows


def _session_rows(s: SessionEnvironment) -> list[dict[str, Any]]:
    if not s.machines:
        rows = _record_rows(s.environment, session=s.id, machine=None)
    else:
        differing = {d.key for d in s.differences}
        rows = [{**row, "differs": row["key"] in differing, "matters": matters(row["key"])}
                for m, record in s.machines.items()
                for row in _record_rows(record, session=s.id, machine=m)]
    rows += [{"table": "warning", "session": s.id, "message": w}
             for w in (*s.machine_warnings, *s.warnings)]
    return rows


@renders("rows", StoreEnvironments)
def store_rows(result: StoreEnvironments, context: RenderContext) -> list[dict[str, Any]]:
    return [row for s in result.sessions for row in _session_rows(s)]


# -- Markdown ----------------------------------------------------------------------------
def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return (["| " + " | ".join(md(h) for h in headers) + " |",
             "|" + "|".join(" --- " for _ in headers) + "|"]
            + ["| " + " | ".join(md(c) for c in r) + " |" for r in rows])


def _md_record(record: dict[str, Any]) -> list[str]:
    return _md_table(("key", "value"), [(label(k), show_value(k, record.get(k)))
                                        for k in record_keys({"": record})])


def _md_list(title: str, items: Sequence[str]) -> list[str]:
    return ["", f"**{md(title)}**", "", *[f"- {md(i)}" for i in items]] if items else []


@renders("markdown", EnvironmentCheck)
def check_markdown(result: EnvironmentCheck, context: RenderContext) -> str:
    lines = ["### benchlab env", "", *_md_record(result.environment)]
    lines += _md_list("noise warnings", [w.text() for w in result.warnings])
    return "\n".join(lines) + "\n"


def _md_machines(s: SessionEnvironment, role: str | None) -> list[str]:
    first, second = _grid(s)
    rows = [(n, *cells, DIFFERS if differ else "") for n, cells, differ in first]
    rows += [(n, *cells, f"{DIFFERS} (expected)" if differ else "(expected to differ)")
             for n, cells, differ in second]
    lines = [md(_machines_line(s, role))]
    lines += _md_list("identical machines differ", s.machine_warnings)
    return [*lines, "", *_md_table(("key", *s.machines, "differs"), rows)]


@renders("markdown", StoreEnvironments)
def store_markdown(result: StoreEnvironments, context: RenderContext) -> str:
    lines = [f"### benchlab env {md(result.store)}"]
    for s in result.sessions:
        lines += ["", f"#### {md(_head(s))}", ""]
        if _argv(s):
            lines += [md(_argv(s)), ""]
        lines += _md_machines(s, result.role) if s.machines else _md_record(s.environment)
        lines += _md_list("noise warnings", s.warnings)
    return "\n".join(lines) + "\n"


# -- HTML --------------------------------------------------------------------------------
# The shade is a second signal, for keys that must agree; the ≠ glyph in the cell is the
# first (reads in grey), for every key.
DIFFERS_STYLE = "background:#f0d9a8;font-weight:bold"


def _html_record(record: dict[str, Any]) -> str:
    rows = []
    for line in environment_text(record, []).split("\n"):
        key, sep, value = line.partition(":")
        if sep and key and not line.startswith(" ") and key != "warnings":
            rows.append([hf.cell(key, cls="name"), hf.cell(value.strip())])
    return hf.table(("", "value"), rows, cls="environment")


def machines_html(s: SessionEnvironment, role: str | None) -> str:
    """The machines side by side: one column per machine, differing rows marked ≠ in
    every cell (and shaded), the identical-machine warnings above the table."""
    first, second = _grid(s)
    out = [f"<p>{hf.esc(_machines_line(s, role))}</p>",
           hf.warnings_list(s.machine_warnings, "identical machines differ")]

    def rows(items: list[tuple[str, list[str], bool]], expected: bool) -> list[list[str]]:
        made = []
        for name, cells, differ in items:
            attrs = {"style": DIFFERS_STYLE} if differ and not expected else {}
            shown = [hf.cell(f"{DIFFERS} {c}" if differ else c, cls="differs" if differ else "",
                             attrs=attrs) for c in cells]
            what = f"{name} (expected to differ)" if expected else name
            made.append([hf.cell(what, cls="name"), *shown])
        return made

    out.append(hf.table(("", *s.machines), rows(first, False) + rows(second, True),
                        cls="environment machines"))
    out.append(f'<p class="muted">{hf.esc(" ".join(LEGEND))}</p>')
    return "\n".join(p for p in out if p)


def store_html_body(result: StoreEnvironments) -> str:
    """Every session of a store (what the report's environment section shows)."""
    parts = [f"<h3>environment recorded in {hf.esc(result.store)}</h3>"]
    for s in result.sessions:
        parts += [f"<h4>{hf.esc(_head(s))}</h4>", f"<p><code>{hf.esc(_argv(s))}</code></p>",
                  machines_html(s, result.role) if s.machines else _html_record(s.environment)]
        warnings = []
        for text in s.warnings:
            w = _split_warning(text)
            warnings.append(f"{w.message} — fix: {w.fix}" if w.fix else w.message)
        parts.append(hf.warnings_list(warnings, "noise warnings")
                     or '<p class="muted">no noise warnings</p>')
    return "\n".join(parts)


@renders("html", StoreEnvironments)
def store_html(result: StoreEnvironments, context: RenderContext) -> str:
    return hf.wrap("environment", "env", store_html_body(result), context)


@renders("html", EnvironmentCheck)
def check_html(result: EnvironmentCheck, context: RenderContext) -> str:
    warnings = hf.warnings_list([w.text() for w in result.warnings], "noise warnings")
    body = ("<h3>environment</h3>" + _html_record(result.environment)
            + (warnings or '<p class="muted">no noise warnings</p>'))
    return hf.wrap("environment", "env", body, context)

"""Every format of `benchlab profile-diff`'s result (data/profile_diff.py, docs/profile-diff.md).

A store with factors gives one diff per factor combination (ProfileDiffs): each
format lays them out one after the other, as the report's section does, the
rows with a `combination` column ("n=20000").

Counts are exact, so they print whole with thousands separators and the change
signed; a relative change is "new" for a function the old profile lacks. Text
and HTML lay out the same cells (`_table`); CSV and Markdown come from the tidy
rows, one per function shown. The HTML section is also the report page's "which
functions changed" (report/html_page.py).
"""

from __future__ import annotations

from typing import Any

from benchlab.data.profile_diff import FunctionChange, ProfileDiff, ProfileDiffs, ProfileSide
from benchlab.data.store_profiles import cell_label
from benchlab.escape import terminal, terminal_lines
from benchlab.notation import plural
from benchlab.report.numbers import fmt_pct
from benchlab.result import RenderContext, renders


def _count(value: int | None, sign: bool = False) -> str:
    if value is None:
        return "n/a"
    return f"{value:+,}" if sign else f"{value:,}"


def _relative(row: FunctionChange) -> str:
    if row.relative is None:
        return "new"
    text = fmt_pct(row.relative)
    return text if text.startswith("-") else f"+{text}"


def _head(r: ProfileDiff) -> list[str]:
    total = (f"{_count(r.old.total)} -> {_count(r.new.total)} {r.unit}: "
             f"{_count(r.total_change, True)}")
    if r.total_relative is not None:
        total += f" ({'+' if r.total_relative >= 0 else ''}{fmt_pct(r.total_relative, 2)})"
    if r.old.alternative is not None and r.new.alternative is not None:
        what = (f"{r.old.tool} profiles of {terminal(r.old.path)}: {_store_side(r.old)} -> "
                f"{_store_side(r.new)}")
    else:
        what = f"{r.old.tool} profiles: {terminal(r.old.path)} -> {terminal(r.new.path)}"
    return [f"profile-diff of {r.event} ({r.unit}), {what}", f"total {total}"]


def _store_side(side: ProfileSide) -> str:
    runs = "1 counted execution" if side.runs == 1 else \
        f"median of {side.runs} counted executions"
    return f"{terminal(cell_label(side.alternative or '', side.factors))} ({runs})"


def _table(r: ProfileDiff) -> tuple[list[str], list[tuple[FunctionChange, list[str]]]]:
    """The header and, per function shown, its cells as text prints them (function names
    raw: each format makes them inert its own way)."""
    header = ["rank", "function", "change", "relative", "old", "new"]
    if r.has_inclusive:
        header += ["incl. change", "incl. old", "incl. new"]
    rows = []
    for rank, row in enumerate(r.functions, 1):
        cells = [str(rank), row.function, _count(row.change, True), _relative(row),
                 _count(row.old), _count(row.new)]
        if r.has_inclusive:
            cells += [_count(row.inclusive_change, True), _count(row.old_inclusive),
                      _count(row.new_inclusive)]
        rows.append((row, cells))
    return header, rows


def _foot(r: ProfileDiff) -> str:
    what = "exclusive (own) cost" if r.ranking == "exclusive" else "inclusive cost"
    shown = f"the {len(r.functions)} of {plural(r.changed, 'changed function')}" \
        if r.changed > len(r.functions) else (
            "the one changed function" if r.changed == 1 else
            f"all {r.changed} changed functions")
    return (f"ranked by the change of their {what}: {shown}"
            + ("" if r.has_inclusive else "; cachegrind records no calls, so exclusive "
               "costs only"))


@renders("text", ProfileDiff)
def profile_diff_text(r: ProfileDiff, context: RenderContext) -> str:
    lines = _head(r)
    if not r.functions:
        lines.append(f"no function's {r.event} changed")
        return terminal_lines(lines) + "\n"
    header, rows = _table(r)
    table = [header] + [[c if k != 1 else terminal(c) for k, c in enumerate(cells)]
                        for _, cells in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines.append("")
    for cells in table:
        out = [cells[0].rjust(widths[0]), cells[1].ljust(widths[1])]
        out += [c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True)]
        lines.append("  " + "  ".join(out).rstrip())
    lines.append("")
    lines.append(_foot(r))
    return terminal_lines(lines) + "\n"


def html_body(r: ProfileDiff) -> str:
    """The section's inside: the head lines, the table (each count's exact value in
    data-sort), the line saying what is ranked."""
    from benchlab.report import html_format as hf

    head = "".join(f"<p>{hf.esc(line)}</p>" for line in _head(r))
    if not r.functions:
        return head + f"<p>{hf.esc(f'no function’s {r.event} changed')}</p>"
    header, rows = _table(r)
    values = ("change", "relative", "old", "new", "inclusive_change", "old_inclusive",
              "new_inclusive")
    body = []
    for row, cells in rows:
        exact = [getattr(row, v) for v in values]
        out = [hf.cell(cells[0], cls="num"), hf.cell(cells[1], cls="name")]
        for text, value in zip(cells[2:], exact, strict=False):
            out.append(hf.cell(text, cls="num", attrs={"data-sort": "" if value is None
                                                       else repr(value)}))
        body.append(out)
    return (head + hf.table(header, body, cls="profile-diff")
            + f'<p class="muted">{hf.esc(_foot(r))}</p>')


@renders("html", ProfileDiff)
def profile_diff_html(r: ProfileDiff, context: RenderContext) -> str:
    from benchlab.report import html_format as hf

    return hf.wrap("profile-diff", "profile-diff",
                   f"<h3>profile-diff of {hf.esc(r.event)}</h3>\n{html_body(r)}", context)


def _function(row: FunctionChange, rank: int) -> dict[str, Any]:
    file, _, name = row.function.rpartition(":")
    return {"rank": rank, "function": row.function, "file": file, "name": name,
            "old": row.old, "new": row.new, "change": row.change, "relative": row.relative,
            "old_inclusive": row.old_inclusive, "new_inclusive": row.new_inclusive,
            "inclusive_change": row.inclusive_change}


def _side(side: ProfileSide) -> dict[str, Any]:
    return {"path": side.path, "tool": side.tool, "command": side.command,
            "total": side.total, "functions": side.functions,
            "alternative": side.alternative, "factors": dict(side.factors), "runs": side.runs}


@renders("json", ProfileDiff)
def profile_diff_json(r: ProfileDiff, context: RenderContext) -> dict[str, Any]:
    return {"event": r.event, "unit": r.unit, "ranked_by": r.ranking,
            "inclusive": r.has_inclusive, "old": _side(r.old), "new": _side(r.new),
            "total_change": r.total_change, "total_relative": r.total_relative,
            "changed": r.changed, "top": r.top,
            "functions": [_function(row, k) for k, row in enumerate(r.functions, 1)]}


@renders("rows", ProfileDiff)
def profile_diff_rows(r: ProfileDiff, context: RenderContext) -> list[dict[str, Any]]:
    rows = [{"table": "total", "event": r.event, "function": "", "old": r.old.total,
             "new": r.new.total, "change": r.total_change, "relative": r.total_relative}]
    for k, row in enumerate(r.functions, 1):
        item = {"table": "functions", "event": r.event, **_function(row, k)}
        if not r.has_inclusive:
            for key in ("old_inclusive", "new_inclusive", "inclusive_change"):
                item.pop(key)
        rows.append(item)
    return rows


@renders("text", ProfileDiffs)
def profile_diffs_text(r: ProfileDiffs, context: RenderContext) -> str:
    return "\n".join(profile_diff_text(d, context) for d in r.diffs)


@renders("html", ProfileDiffs)
def profile_diffs_html(r: ProfileDiffs, context: RenderContext) -> str:
    from benchlab.report import html_format as hf

    body = "".join(f'<div class="profile-diff">{html_body(d)}</div>' for d in r.diffs)
    event = r.diffs[0].event
    return hf.wrap("profile-diff", "profile-diff",
                   f"<h3>profile-diff of {hf.esc(event)}</h3>\n{body}", context)


def _combination(d: ProfileDiff) -> str:
    return " ".join(f"{k}={v}" for k, v in d.old.factors)


@renders("json", ProfileDiffs)
def profile_diffs_json(r: ProfileDiffs, context: RenderContext) -> dict[str, Any]:
    first = r.diffs[0]
    return {"event": first.event, "unit": first.unit, "ranked_by": first.ranking,
            "factors": list(r.factors),
            "comparisons": [{"combination": dict(d.old.factors),
                             **profile_diff_json(d, context)} for d in r.diffs]}


@renders("rows", ProfileDiffs)
def profile_diffs_rows(r: ProfileDiffs, context: RenderContext) -> list[dict[str, Any]]:
    return [{"table": row["table"], "combination": _combination(d),
             **{k: v for k, v in row.items() if k != "table"}}
            for d in r.diffs for row in profile_diff_rows(d, context)]

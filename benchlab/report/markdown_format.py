"""Markdown of any result that has tidy rows and no layout of its own: one GFM table per
part of the result (its `table` column), every cell escaped (escape.markdown).

compare and design have their own Markdown (report/compare/markdown.py, suite.py,
report/design.py); this one serves summary, plan, test, anova and qreg, so that
`--format markdown` works for every analysis command.
"""

from __future__ import annotations

import math
from typing import Any

from benchlab.escape import markdown as md
from benchlab.result import RenderContext, Result, field_names, render, renders


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if not math.isfinite(value) else f"{value:.6g}"
    return md(str(value))


@renders("markdown", Result)
def rows_markdown(result: Any, context: RenderContext) -> str:
    rows = render(result, "rows", context)
    title = f"benchlab {context.command}" if context.command else type(result).__name__
    out = [f"### {md(title)}", ""]
    parts: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        parts.setdefault(str(row.get("table", "")), []).append(row)
    for part, items in parts.items():
        columns = [c for c in field_names(items) if c != "table"]
        if part:
            out += [f"**{md(part)}**", ""]
        out.append("| " + " | ".join(md(c) for c in columns) + " |")
        out.append("|" + "|".join(" --- " for _ in columns) + "|")
        out += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in items]
        out.append("")
    return "\n".join(out)

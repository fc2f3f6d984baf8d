"""CSV of any result with tidy rows: one row per estimate, the columns in first-seen order.

Names stay exact (csv quotes what needs quoting) but for a text a spreadsheet
would run as a formula, which gets a leading ' (escape.spreadsheet_cell); floats
keep every digit (repr); a missing value is an empty field.
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any

from benchlab.escape import spreadsheet_cell
from benchlab.result import RenderContext, Result, field_names, render, renders

# Identifying columns first, then the estimate and its interval, whatever order the
# rows give them in.
LEADING = ("table", "benchmark", "metric", "group", "sample", "baseline", "candidate", "term",
           "level", "tau", "statistic", "estimate", "low", "high", "confidence", "pvalue",
           "unit", "method")


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return spreadsheet_cell(value)


def rows_to_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    seen = field_names(rows)
    columns = [c for c in LEADING if c in seen] + [c for c in seen if c not in LEADING]
    writer.writerow([spreadsheet_cell(c) for c in columns])
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return out.getvalue()


@renders("csv", Result)
def to_csv(result: Any, context: RenderContext | None = None) -> str:
    """The tidy rows of `result` as CSV text (every result type with rows)."""
    return rows_to_csv(render(result, "rows", context))

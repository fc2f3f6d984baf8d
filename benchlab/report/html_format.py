"""The HTML machinery, and the section of any result (`render(result, "html")`, `--format
html`).

Each renderer gives one `<section class="benchlab">` of tables. With the
context option `fragment` true (what `benchlab report` asks for) the section
is bare, for a page that carries the style once; with `styled` too (what
Jupyter gets from `_repr_html_`) the fragment carries its own `<style>`;
otherwise it is wrapped in a minimal self-contained document (inline CSS,
nothing fetched), which is what `benchlab compare --format html` prints.

Every string that comes from data (sample, benchmark, level and unit names,
messages) goes through `html.escape`, so `<script>` in a benchmark name is
text on the page. Numbers print at the precision of the text report; the
exact values ride along in `data-*` attributes (what the browser tests check
against the JSON).

This module is the machinery only: escaping, cells, tables, the document and section
around them, and the generic section of any result, laid out from its JSON document, or
its tidy rows, or at least its text. A result with sections of its own registers them in
its analysis module (report/compare/html.py for compare and suites, report/hierarchy.py
for summaries and plans; docs/architecture.md, "The layout of report/").
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from benchlab.notation import fixed
from benchlab.result import RenderContext, Result, render, renders
from benchlab.version import __version__

# Verdict colours differ in lightness as well as hue (they read in grey), and every
# verdict cell also carries a symbol and a word: colour is never the only signal.
STYLE = """
.benchlab{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111}
.benchlab h2,.benchlab h3,.benchlab h4{margin:1.2em 0 .4em}
.benchlab table{border-collapse:collapse;margin:.4em 0 1em}
.benchlab th,.benchlab td{border:1px solid #bbb;padding:.25em .6em;text-align:left;
 vertical-align:top}
.benchlab th{background:#eee}
.benchlab td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.benchlab .name{white-space:pre-wrap}
.benchlab table.sortable th{cursor:pointer;user-select:none}
.benchlab table.sortable th::after{content:" \\2195";color:#777}
.benchlab table.sortable th[aria-sort=ascending]::after{content:" \\25B2";color:#111}
.benchlab table.sortable th[aria-sort=descending]::after{content:" \\25BC";color:#111}
.benchlab .worse{background:#8b1a1a;color:#fff;font-weight:bold}
.benchlab .better{background:#cfe3f5;color:#000;font-weight:bold}
.benchlab .change{background:#f0d9a8;color:#000;font-weight:bold}
.benchlab .equivalent{background:#fafafa;color:#000}
.benchlab .inconclusive{background:#dcdcdc;color:#000;font-style:italic}
.benchlab .warnings li{margin:.2em 0}
.benchlab pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}
.benchlab figure{margin:.5em 0 1em}
.benchlab figure svg{max-width:100%;height:auto}
.benchlab .muted{color:#555}
"""


def esc(value: Any) -> str:
    """Any value as inert HTML text (quotes escaped too: safe in attributes)."""
    return html.escape(str(value), quote=True)


def num(x: float | None, digits: int = 4) -> str:
    """A number with `digits` decimals, "n/a" when missing or not finite."""
    return fixed(x, digits) if x is not None else "n/a"


def exact(x: float | None) -> str:
    """The exact value for a data attribute: repr of the float, "" when missing."""
    return "" if x is None or not math.isfinite(x) else repr(float(x))


def cell(text: str, *, cls: str = "", attrs: dict[str, str] | None = None,
         raw: bool = False) -> str:
    """One `<td>`: `text` escaped unless `raw`; attribute values always escaped."""
    extra = "".join(f' {k}="{esc(v)}"' for k, v in (attrs or {}).items())
    klass = f' class="{esc(cls)}"' if cls else ""
    return f"<td{klass}{extra}>{text if raw else esc(text)}</td>"


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], *, cls: str = "",
          caption: str = "") -> str:
    """A table of already rendered `<td>` cells under escaped headers."""
    klass = f' class="{esc(cls)}"' if cls else ""
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    head = "".join(f'<th scope="col">{esc(h)}</th>' for h in headers)
    body = "\n".join(f"<tr>{''.join(r)}</tr>" for r in rows)
    return f"<table{klass}>{cap}<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>"


def document(title: str, body: str) -> str:
    """A minimal self-contained HTML document around `body` (inline style, no requests)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"benchlab {esc(__version__)}\">"
            f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n"
            f"<body>\n{body}\n</body></html>\n")


def wrap(kind: str, title: str, inner: str, context: RenderContext) -> str:
    section = f'<section class="benchlab {esc(kind)}">\n{inner}\n</section>'
    if context.option("fragment"):  # a page's part; "styled": one that carries its style
        return f"<style>{STYLE}</style>\n{section}" if context.option("styled") else section
    return document(f"benchlab {title}", section)


def warnings_list(messages: Iterable[str], title: str = "warnings") -> str:
    items = "".join(f"<li>{esc(m)}</li>" for m in messages)
    return f'<h4>{esc(title)}</h4><ul class="warnings">{items}</ul>' if items else ""


# -- every other result: laid out from its JSON document -------------------------------
_SKIP = ("benchlab_version", "command")


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def _show(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else "n/a"
    if isinstance(value, (str, int)):
        return str(value)
    if isinstance(value, list) and all(_scalar(v) for v in value):
        return ", ".join(_show(v) for v in value)
    return json.dumps(value, ensure_ascii=False, default=str)


def _records(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """List items with one nested list of records expanded: a row per child record,
    carrying its parent's scalar fields (qreg's quantiles × coefficients)."""
    out: list[dict[str, Any]] = []
    for item in items:
        nested = [k for k, v in item.items() if isinstance(v, list) and v
                  and all(isinstance(x, dict) for x in v)]
        if len(nested) != 1:
            out.append(item)
            continue
        parent = {k: v for k, v in item.items() if k != nested[0]}
        out.extend({**parent, **child} for child in item[nested[0]])
    return out


def _records_table(items: list[dict[str, Any]], caption: str) -> str:
    rows = _records(items)
    headers: dict[str, None] = {}
    for row in rows:
        headers.update(dict.fromkeys(row))
    body = [[cell(_show(row.get(h, "")),
                  cls="num" if isinstance(row.get(h), (int, float)) else "")
             for h in headers] for row in rows]
    return table(list(headers), body, caption=caption)


def document_html(doc: dict[str, Any], depth: int = 0) -> str:
    """A JSON document as tables: its scalars in one key/value table, each list of
    records as a table, each nested object as a titled part of its own."""
    scalars = [[cell(k, cls="name"), cell(_show(v))] for k, v in doc.items()
               if k not in _SKIP and (_scalar(v) or (isinstance(v, list)
                                                     and all(_scalar(x) for x in v)))]
    parts = [table(("", "value"), scalars)] if scalars else []
    heading = "h4" if depth else "h3"
    for key, value in doc.items():
        if key in _SKIP or _scalar(value):
            continue
        if isinstance(value, dict):
            parts.append(f"<{heading}>{esc(key)}</{heading}>\n{document_html(value, depth + 1)}")
        elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            parts.append(_records_table(value, key))
    return "\n".join(parts)


@renders("html", Result)
def result_html(result: Result, context: RenderContext) -> str:
    """Any other result: its JSON document as tables, else its tidy rows, else its text."""
    name = context.command or type(result).__name__
    try:
        body = document_html(render(result, "json", context))
    except LookupError:
        try:
            body = _records_table(render(result, "rows", context), "")
        except LookupError:
            body = f"<pre>{esc(str(result))}</pre>"
    return wrap(name.lower(), name, f"<h3>{esc(name)}</h3>\n{body}", context)

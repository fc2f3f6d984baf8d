"""HTML sections of every result, registered for `render(result, "html")` (`--format html`).

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

Compare results and suites have their own tables; every other result (anova,
qreg, designs, tests, summaries, plans) is laid out from its JSON document, or
its tidy rows, or at least its text.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from benchlab.notation import change_parts, fixed, fmt_level, fmt_pvalue
from benchlab.result import RenderContext, Result, render, renders
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.hierarchy import HierarchySummary, Plan
from benchlab.stats.spec import statistic_of
from benchlab.stats.suite import Decision, SuiteResult
from benchlab.units import Unit
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


# -- verdicts ------------------------------------------------------------------------
def verdict_label(c: Comparison, unit: Unit, estimate: float | None = None,
                  bounds: tuple[float | None, float | None] = (None, None)) -> tuple[str, str]:
    """(CSS class, text) of a verdict: a symbol, the outcome and the change as every format
    writes it ("▼ faster: -12.3%", "▼ 2.28× faster", "≈ equivalent: +0.3%").

    ▲/▼ say whether the candidate's mean (or, given `estimate` and its CI `bounds`, the
    statistic the verdict rests on, e.g. a suite's ratio of medians) is above or below
    the baseline's; the class says whether that is worse, better or (no known
    direction) a change.
    """
    v = c.verdict
    low = high = None
    if estimate is None and c.ratio is not None:
        estimate, low, high = c.ratio.estimate, c.ratio.low, c.ratio.high
    elif estimate is not None:
        low, high = bounds
    if estimate is None or not math.isfinite(estimate):
        return "inconclusive", f"? {v.outcome} (no ratio)"
    above = estimate > 1.0
    symbol = "▲" if above else "▼"
    change = change_parts(estimate, low, high, unit)
    if v.outcome == "change":
        word = unit.direction_word(above)
        if v.regression:
            cls = "worse"
        elif unit.higher_is_better is not None or unit.is_time:
            cls = "better"
        else:
            cls = "change"
        if change.factor:  # "▼ 2.28× faster": the factor carries its word
            return cls, f"{symbol} {change.estimate}"
        return cls, f"{symbol} {word}: {change.estimate}"
    if v.outcome == "equivalent":
        return "equivalent", f"≈ equivalent: {change.estimate}"
    return "inconclusive", f"? inconclusive: {change.estimate}"


@dataclass(frozen=True)
class VerdictInterval:
    """The interval a verdict was read from: its ratio (None without one), bounds (None
    when unbounded), confidence level and method, and the statistic of the ratio."""

    estimate: float | None
    low: float | None
    high: float | None
    level: float
    method: str
    statistic: str = "mean"


def verdict_interval(c: Comparison, confidence: float, decision: Decision | None = None,
                     adjust: str = "none") -> VerdictInterval:
    """What the verdict of `c` rests on: a suite's decision (at Holm's level of its step when
    `adjust` is "holm"), else the ratio of medians' bootstrap (--statistic median), else
    Fieller's interval of the ratio of means — named as the JSON names it."""
    from benchlab.report.compare.document import headline_method

    holm = "; Holm step-down" if decision is not None and adjust == "holm" else ""
    if decision is not None and decision.scale == "ratio":
        median = statistic_of(decision).resamples
        method = ("bootstrap percentile, ratio of medians" if median
                  else headline_method(c) or "n/a")
        return VerdictInterval(decision.estimate, decision.low, decision.high, decision.level,
                               method + holm, decision.statistic)
    if decision is not None or c.ratio is None and c.headline is None:
        level = decision.level if decision is not None else c.difference.confidence
        return VerdictInterval(None, None, None, level,
                               f"{c.difference.method}, difference of means (no ratio){holm}")
    b = c.headline
    if b is not None:
        return VerdictInterval(b.estimate, b.low, b.high, b.confidence,
                               f"{headline_method(c)}, ratio of {b.statistic}s", b.statistic)
    r = c.ratio
    return VerdictInterval(r.estimate, r.low, r.high, confidence, r.method)


def comparison_cells(c: Comparison, unit: Unit, confidence: float,
                     decision: Decision | None = None, adjust: str = "none") -> list[str]:
    """Baseline, candidate, ratio, CI, CI level, method and verdict cells of one comparison:
    the CI is the one its verdict was read from (`verdict_interval`), at the level and by
    the method the next two cells name.

    The ratio cell carries the exact estimate, low and high of the ratio of means
    (`data-estimate`, `data-low`, `data-high`; of medians with `data-statistic`) and sorts
    by the estimate; the CI cell carries the verdict's bounds and level (`data-low`,
    `data-high`, `data-level`).
    """
    v = verdict_interval(c, confidence, decision, adjust)
    if statistic_of(v).resamples:
        est = v.estimate
        ratio_attrs = {"data-estimate": exact(est), "data-statistic": statistic_of(v).name}
    else:
        r = c.ratio
        est, low, high = (r.estimate, r.low, r.high) if r is not None else (None, None, None)
        ratio_attrs = {"data-estimate": exact(est), "data-low": exact(low),
                       "data-high": exact(high)}
    cls, label = verdict_label(c, unit, v.estimate, (v.low, v.high))
    ci = "unbounded" if v.low is None or v.high is None else f"{num(v.low)} .. {num(v.high)}"
    if v.estimate is None:
        ci = "no ratio"
    return [cell(c.baseline, cls="name"), cell(c.candidate, cls="name"),
            cell(num(est), cls="num ratio", attrs={**ratio_attrs, "data-sort": exact(est)}),
            cell(ci, cls="num ci", attrs={"data-sort": exact(v.low), "data-low": exact(v.low),
                                         "data-high": exact(v.high),
                                         "data-level": exact(v.level)}),
            cell(_level(v.level), cls="num level", attrs={"data-sort": exact(v.level)}),
            cell(v.method, cls="method"),
            cell(label, cls=f"verdict {cls}",
                 attrs={"data-outcome": c.verdict.outcome, "title": c.verdict.text,
                        "data-sort": label})]


def _level(level: float) -> str:
    return fmt_level(level)


COMPARISON_HEADERS = ("baseline", "candidate", "ratio", "CI of the verdict", "CI level",
                      "method", "verdict")


# -- compare -------------------------------------------------------------------------
def samples_table(result: CompareResult) -> str:
    """n, mean ± sd, median, min, max and CV per sample, in the result's unit."""
    u = result.unit
    rows = [[cell(s.name, cls="name"), cell(str(s.n), cls="num"),
             cell(u.format(s.mean), cls="num", attrs={"data-value": exact(s.mean)}),
             cell(u.format(s.stddev), cls="num"), cell(u.format(s.median), cls="num"),
             cell(u.format(s.min), cls="num"), cell(u.format(s.max), cls="num"),
             cell(num(100 * s.cv, 2) + "%" if math.isfinite(s.cv) else "n/a", cls="num")]
            for s in result.samples]
    return table(("sample", "n", "mean", "stddev", "median", "min", "max", "CV"), rows,
                 cls="samples")


def comparisons_table(result: CompareResult, decisions: Sequence[Decision] = (),
                      adjust: str = "none") -> str:
    """Each comparison with the interval its verdict used (a suite benchmark's: its
    `decisions`), that interval's level and method, the verdict and its sentence."""
    decided = {d.candidate: d for d in decisions}
    rows = []
    for c in result.comparisons:
        rows.append([*comparison_cells(c, result.unit, result.confidence,
                                       decided.get(c.candidate), adjust),
                     cell(c.verdict.text)])
    return table(_headers(result, decisions), rows, cls="comparisons")


def _headers(result: CompareResult | None, decisions: Sequence[Decision]) -> list[str]:
    median = (any(statistic_of(d).resamples for d in decisions)
              or (result is not None and statistic_of(result).resamples))
    return ["baseline", "candidate", "ratio of medians" if median else "ratio",
            *COMPARISON_HEADERS[3:], "in words"]


def hierarchy_table(summaries: Sequence[HierarchySummary]) -> str:
    """Variance shares per level for each sample (highest level first)."""
    rows = []
    for s in summaries:
        for c in s.components:
            rows.append([cell(s.name, cls="name"), cell(c.name, cls="name"),
                         cell(f"{c.repetitions:.4g}", cls="num"),
                         cell(_pct(c.relative_sd, 2), cls="num"),
                         cell(_pct(c.share), cls="num",
                              attrs={"data-share": exact(c.share)}),
                         cell("can be dropped" if c.droppable else "")])
    return table(("sample", "level", "repetitions", "relative SD", "share of variance", ""),
                 rows, cls="hierarchy",
                 caption="variance of the mean by level (what each level adds)")


def _pct(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * x:.{digits}f}%"


def warnings_list(messages: Iterable[str], title: str = "warnings") -> str:
    items = "".join(f"<li>{esc(m)}</li>" for m in messages)
    return f'<h4>{esc(title)}</h4><ul class="warnings">{items}</ul>' if items else ""


def compare_body(result: CompareResult, decisions: Sequence[Decision] = (),
                 adjust: str = "none") -> str:
    """The tables of one comparison: samples, comparisons (a suite benchmark's with its
    `decisions`), variance shares, warnings."""
    parts = [samples_table(result), comparisons_table(result, decisions, adjust)]
    if result.hierarchies:
        parts.append(hierarchy_table(result.hierarchies))
    parts.append(warnings_list(d.message for d in result.diagnostics))
    return "\n".join(p for p in parts if p)


@renders("html", CompareResult)
def compare_html(result: CompareResult, context: RenderContext) -> str:
    unit = f" ({esc(result.unit.name)})" if result.unit.name else ""
    inner = f"<h3>comparison{unit}</h3>\n{compare_body(result)}"
    return wrap("compare", "compare", inner, context)


# -- suites --------------------------------------------------------------------------
def headline_table(items: Sequence[tuple[str, CompareResult]], confidence: float,
                   holm: Sequence[tuple[str, str, float, float, bool]] = (),
                   anchors: Sequence[str] = (), decisions: Sequence[Decision] = (),
                   adjust: str = "none") -> str:
    """Every comparison in one sortable table: benchmark, baseline, candidate, ratio, the CI
    its verdict was read from with that CI's level and method, the verdict (and Holm's
    adjusted p for a suite); `anchors` link each benchmark to its part of the page. With a
    suite's `decisions` the CI is the decision's (Holm's step-down level), so a family-wise
    "inconclusive" never sits beside an interval that excludes 1."""
    family = adjust == "holm"
    adjusted = {(b, c): (q if family else p, sig) for b, c, p, q, sig in holm}
    decided = {(d.benchmark, d.candidate): d for d in decisions}
    rows = []
    for k, (bench, r) in enumerate(items):
        name = esc(bench)
        if k < len(anchors):
            name = f'<a href="#{esc(anchors[k])}">{name}</a>'
        for c in r.comparisons:
            cells = comparison_cells(c, r.unit, confidence, decided.get((bench, c.candidate)),
                                     adjust)
            row = [cell(name, cls="name benchmark", attrs={"data-sort": bench}, raw=True),
                   *cells]
            if holm:
                q, sig = adjusted.get((bench, c.candidate), (None, None))
                p_text = fmt_pvalue(q)
                row.append(cell(p_text, cls="num", attrs={"data-sort": exact(q)}))
                if family:
                    row.append(cell("" if sig is None else ("yes" if sig else "no")))
            rows.append(row)
    first = items[0][1] if items else None
    headers = ["benchmark", *_headers(first, decisions)[:-1]]
    if holm:
        headers += ["Holm p", "Holm sig."] if family else ["p"]
    return table(headers, rows, cls="sortable headline")


def suite_headline(result: SuiteResult, anchors: Sequence[str] = ()) -> str:
    """One sortable row per benchmark and comparison, with Holm's adjusted p."""
    return headline_table(result.benchmarks, result.confidence, result.holm, anchors,
                          result.decisions, result.adjust)


def geomean_table(result: SuiteResult) -> str:
    rows = [[cell(g.candidate, cls="name"), cell(str(g.benchmarks), cls="num"),
             cell(num(g.estimate), cls="num", attrs={"data-estimate": exact(g.estimate)}),
             cell(f"{num(g.low)} .. {num(g.high)}", cls="num"),
             cell(f"B = {g.replicates}, seed = {g.seed}")] for g in result.geometric_means]
    level = f"bootstrap {fmt_level(result.confidence)} CI"
    of = f"of {statistic_of(result).ratios}"
    return table(("candidate", "benchmarks", f"geometric mean {of}", level, "bootstrap"),
                 rows, cls="geomean") if rows else ""


def suite_warnings(result: SuiteResult) -> list[str]:
    return [*result.notes, *result.skipped,
            *(f"{bench}: {d.message}" for bench, r in result.benchmarks for d in r.diagnostics)]


@renders("html", SuiteResult)
def suite_html(result: SuiteResult, context: RenderContext) -> str:
    inner = "\n".join(p for p in (
        f"<h3>suite of {len(result.benchmarks)} benchmarks</h3>", suite_headline(result),
        geomean_table(result), warnings_list(suite_warnings(result))) if p)
    return wrap("suite", "suite comparison", inner, context)


# -- summaries and plans -------------------------------------------------------------
@renders("html", HierarchySummary)
def hierarchy_html(result: HierarchySummary, context: RenderContext) -> str:
    level = f"{fmt_level(result.confidence)} CI"
    head = table(("sample", "n", "mean", level, "df", "top-level units"), [[
        cell(result.name, cls="name"), cell(str(result.n), cls="num"),
        cell(f"{result.grand_mean:.6g}", cls="num"),
        cell(f"{result.low:.6g} .. {result.high:.6g}", cls="num"),
        cell(f"{result.df:g}", cls="num"), cell(str(result.top_units), cls="num")]])
    inner = "\n".join(p for p in (f"<h3>{esc(result.name)}</h3>", head,
                                  hierarchy_table([result]),
                                  warnings_list(result.warnings)) if p)
    return wrap("summary", "summary", inner, context)


@renders("html", Plan)
def plan_html(result: Plan, context: RenderContext) -> str:
    from benchlab.report.hierarchy import plan_document

    body = document_html(plan_document(result))
    return wrap("plan", "plan", f"<h3>plan</h3>\n{body}", context)


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

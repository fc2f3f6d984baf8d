"""Every format of a `PerMetric` result: one section per metric, each its own rendering.

Text and Markdown give one table per metric under the metric's name, as
benchstat does. JSON keeps the default metric's document as it always was and
adds "metrics": one such document per metric, with its "metric" name
(docs/compare.md, "Several metrics"). Rows carry their metric in a column.
"""

from __future__ import annotations

from typing import Any

from benchlab.escape import markdown as md
from benchlab.escape import terminal
from benchlab.notation import fmt_level
from benchlab.result import RenderContext, Result, has_renderer, render, renders
from benchlab.stats.metrics import PerMetric
from benchlab.stats.suite import SuiteResult

_SHARED = ("benchlab_version", "command")  # said once, at the top of the document


def heading(metric: str, inner: Result) -> str:
    """The metric's name as a section's heading, in the unit its values are in: go test's
    "ns/op" read with `--unit s` is "s/op" (the name of the data stays in the JSON)."""
    from benchlab.units import make_unit

    unit = getattr(inner, "unit", None)
    if unit is None and isinstance(inner, SuiteResult) and inner.benchmarks:
        unit = inner.benchmarks[0][1].unit
    prefix, slash, rest = metric.partition("/")
    if (unit is not None and unit.is_time and unit.name != prefix
            and make_unit(prefix).is_time):
        return f"{unit.name}{slash}{rest}"
    return metric


OVERVIEW_HEAD = ("metric", "comparison", "baseline", "candidate", "change", "CI", "verdict")


def overview_rows(result: PerMetric) -> list[tuple[str, ...]]:
    """One row per metric and candidate, side by side: the metric, "candidate vs baseline",
    both means (exact counts in full), the change of the verdict's ratio with its CI and
    the verdict in a word (the unit's: "slower", "worse", "higher"; "same" within the
    threshold; "?" inconclusive). Empty unless the metrics were asked for together
    (`--metric a,b`; a go test file's metrics found alone keep benchstat's tables) and
    every metric's analysis is a single comparison (a suite's metrics are shown as their
    sections alone)."""
    from benchlab.notation import change_parts
    from benchlab.report.numbers import fmt_row
    from benchlab.stats.compare import CompareResult

    if not result.side_by_side or not all(isinstance(inner, CompareResult)
                                          for _, inner in result.results):
        return []
    rows = []
    for metric, inner in result.results:
        by_name = {d.name: d for d in inner.samples}
        for c in inner.comparisons:
            base, cand = by_name[c.baseline], by_name[c.candidate]
            exact = base.stddev == 0 and cand.stddev == 0
            like = max(abs(base.mean), abs(cand.mean))
            old, new = fmt_row((base.mean, cand.mean), inner.unit, 0.0 if exact else
                               max(base.sem, cand.sem), like, keep_small=False)
            ratio = c.headline or c.ratio
            if ratio is None:
                change, ci = "n/a", c.ratio_note or ""
            else:
                parts = change_parts(ratio.estimate, ratio.low, ratio.high, inner.unit)
                change = parts.estimate
                ci = ("unbounded" if parts.low is None or ratio.low is None else
                      "exact" if ratio.low == ratio.high else f"{parts.low} .. {parts.high}")
            rows.append((heading(metric, inner), f"{c.candidate} vs {c.baseline}", old, new,
                         change, ci, _word(c, inner.unit)))
    return rows


def _word(c, unit) -> str:
    """The verdict in a word: the direction of a change, "same" within the threshold."""
    v = c.verdict
    if v.outcome == "change":
        return unit.direction_word(v.direction == "increase")
    return "same" if v.outcome == "equivalent" else "?"


def overview_text(result: PerMetric, confidence: float) -> str:
    """The side-by-side table (overview_rows) as aligned columns; "" when there is none."""
    from benchlab.report.numbers import shorten, terminal_width

    rows = [[terminal(c) for c in r] for r in overview_rows(result)]
    if not rows:
        return ""
    head = [*OVERVIEW_HEAD[:5], f"{fmt_level(confidence)} CI", OVERVIEW_HEAD[6]]
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]
    room = terminal_width() - 2 - sum(w + 2 for i, w in enumerate(widths) if i != 1)
    if widths[1] > room:  # long sample names lose their middle, as in compare's table
        widths[1] = max(room, 12, len(head[1]))
        rows = [[r[0], shorten(r[1], widths[1]), *r[2:]] for r in rows]
    left = (0, 1, 5, 6)
    lines = ["  " + "  ".join(c.ljust(w) if i in left else c.rjust(w)
                              for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in (head, *rows)]
    return "metrics side by side:\n" + "\n".join(lines) + "\n"


def _confidence(result: PerMetric) -> float:
    return getattr(result.default, "confidence", 0.95)


@renders("text", PerMetric)
def per_metric_text(result: PerMetric, context: RenderContext) -> str:
    """The side-by-side table (several single comparisons), then a section per metric;
    suite tables explain their columns once, after the last."""
    from benchlab.report.compare.suite import suite_text

    overview = overview_text(result, _confidence(result))
    parts = [overview] if overview else []
    last = result.results[-1][0]
    for metric, inner in result.results:
        if isinstance(inner, SuiteResult) and context.option("compact"):
            from benchlab.report.compare.compact import compact_text

            body = compact_text(inner, legend_line=metric == last)
        elif isinstance(inner, SuiteResult):
            body = suite_text(inner, legend=metric == last)
        else:
            body = render(inner, "text", _own(context, metric))
        parts.append(f"{terminal(heading(metric, inner))}:\n{body}")
    notes = "".join(f"note: {terminal(n)}\n" for n in result.notes)
    return "\n".join(parts) + ("\n" + notes if notes else "")


@renders("markdown", PerMetric)
def per_metric_markdown(result: PerMetric, context: RenderContext) -> str:
    rows = overview_rows(result)
    parts = []
    if rows:
        head = [*OVERVIEW_HEAD[:5], f"{fmt_level(_confidence(result))} CI", OVERVIEW_HEAD[6]]
        table = ["| " + " | ".join(head) + " |",
                 "|---|---|---:|---:|---:|---|---|",
                 *("| " + " | ".join(md(c) for c in r) + " |" for r in rows)]
        parts.append("## metrics side by side\n\n" + "\n".join(table) + "\n")
    for metric, inner in result.results:
        body = render(inner, "markdown", _own(context, metric))
        parts.append(f"## {md(heading(metric, inner))}\n\n{body}")
    notes = "".join(f"- {md(n)}\n" for n in result.notes)
    return "\n".join(parts) + ("\n" + notes if notes else "")


@renders("json", PerMetric)
def per_metric_json(result: PerMetric, context: RenderContext) -> dict[str, Any]:
    docs = []
    for metric, inner in result.results:
        doc = render(inner, "json", _own(context, metric))
        docs.append({"metric": metric, **{k: v for k, v in doc.items() if k not in _SHARED}})
    default = render(result.default, "json", _own(context, result.results[0][0]))
    return {**default, "metric": result.results[0][0], "metrics": docs,
            "metric_notes": list(result.notes)}


@renders("rows", PerMetric)
def per_metric_rows(result: PerMetric, context: RenderContext) -> list[dict[str, Any]]:
    rows = []
    for metric, inner in result.results:
        rows.extend({"metric": metric, **row}
                    for row in render(inner, "rows", _own(context, metric)))
    return rows


@renders("html", PerMetric)
def per_metric_html(result: PerMetric, context: RenderContext) -> str:
    """A section per metric under its heading, in one document (or one fragment)."""
    from dataclasses import replace
    from html import escape

    from benchlab.report import html_format as hf
    from benchlab.report.html_format import wrap

    parts = []
    rows = overview_rows(result)
    if rows:
        head = [*OVERVIEW_HEAD[:5], f"{fmt_level(_confidence(result))} CI", OVERVIEW_HEAD[6]]
        parts.append("<h3>metrics side by side</h3>\n" + hf.table(head, [
            [hf.cell(r[0], cls="name"), hf.cell(r[1], cls="name"),
             *(hf.cell(c, cls="num") for c in r[2:5]), hf.cell(r[5]), hf.cell(r[6])]
            for r in rows], cls="metrics"))
    for metric, inner in result.results:
        if has_renderer("html", inner):
            own = _own(context, metric) or RenderContext()
            own = replace(own, options={**own.options, "fragment": True, "styled": False})
            parts.append(f"<h3>{escape(heading(metric, inner))}</h3>\n"
                         + render(inner, "html", own))
    parts += [f"<p>{escape(n)}</p>" for n in result.notes]
    return wrap("metrics", "compare", "\n".join(parts), context or RenderContext())


@renders("bmf", PerMetric)
def per_metric_bmf(result: PerMetric, context: RenderContext) -> dict[str, Any]:
    """Every metric's BMF measures under one document, benchmark by benchmark (BMF holds
    several measures per benchmark); a measure another metric already gave (two times are
    both Bencher's `latency`) is named after its metric instead."""
    doc: dict[str, dict[str, Any]] = {}
    for metric, inner in result.results:
        for bench, measures in render(inner, "bmf", _own(context, metric)).items():
            into = doc.setdefault(bench, {})
            for measure, value in measures.items():
                into[metric if measure in into else measure] = value
    return doc


@renders("figure", PerMetric)
def per_metric_figure(result: PerMetric, context: RenderContext):
    """`--plot`: the default metric's figure."""
    return render(result.default, "figure", _own(context, result.results[0][0]))


def _own(context: RenderContext, metric: str) -> RenderContext:
    """The context for one metric's rendering: its own samples (text plots need them)."""
    from dataclasses import replace

    per = (context.option("per_metric") or {}).get(metric, {}) if context else {}
    if not per or context is None:
        return context
    return replace(context, options={**context.options, **per})

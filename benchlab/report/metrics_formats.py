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
from benchlab.result import RenderContext, has_renderer, render, renders
from benchlab.stats.metrics import PerMetric
from benchlab.stats.suite import SuiteResult

_SHARED = ("benchlab_version", "command")  # said once, at the top of the document


@renders("text", PerMetric)
def per_metric_text(result: PerMetric, context: RenderContext) -> str:
    """A section per metric; suite tables explain their columns once, after the last."""
    from benchlab.report.suite import suite_text

    parts = []
    last = result.results[-1][0]
    for metric, inner in result.results:
        if isinstance(inner, SuiteResult):
            body = suite_text(inner, legend=metric == last)
        else:
            body = render(inner, "text", _own(context, metric))
        parts.append(f"{terminal(metric)}:\n{body}")
    notes = "".join(f"note: {terminal(n)}\n" for n in result.notes)
    return "\n".join(parts) + ("\n" + notes if notes else "")


@renders("markdown", PerMetric)
def per_metric_markdown(result: PerMetric, context: RenderContext) -> str:
    parts = []
    for metric, inner in result.results:
        body = render(inner, "markdown", _own(context, metric))
        parts.append(f"## {md(metric)}\n\n{body}")
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
    from html import escape

    parts = []
    for metric, inner in result.results:
        if has_renderer("html", inner):
            parts.append(f"<h3>{escape(metric)}</h3>\n"
                         + render(inner, "html", _own(context, metric)))
    return "\n".join(parts)


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

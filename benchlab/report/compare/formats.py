"""Text, Markdown, JSON, HTML and tidy rows of `compare` results (single comparisons and
suites): the one module that registers them (report/renderers.py names it).

The functions that lay them out live beside it: text.py, markdown.py, document.py (the
JSON document), suite.py and html.py; they are imported when a result is rendered, so loading the
registrations costs nothing. Rows are tidy: one per estimate, with its table.
"""

from __future__ import annotations

from typing import Any

from benchlab.notation import finite
from benchlab.result import RenderContext, renders
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.spec import statistic_of
from benchlab.stats.suite import SuiteResult


@renders("text", CompareResult)
def compare_text(result: CompareResult, context: RenderContext) -> str:
    from benchlab.report.compare.text import render_text

    samples = context.option("samples") or []
    return render_text(result, samples, plot=bool(samples) and context.option("plot", True))


@renders("markdown", CompareResult)
def compare_markdown(result: CompareResult, context: RenderContext) -> str:
    from benchlab.report.compare.markdown import render_markdown

    return render_markdown(result)


@renders("json", CompareResult)
def compare_json(result: CompareResult, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.compare.document import comparison_document

    return with_analysis(comparison_document(result), result)


@renders("json", SuiteResult)
def suite_json(result: SuiteResult, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.compare.suite import suite_document

    return with_analysis(suite_document(result), result)


@renders("html", CompareResult)
def compare_html(result: CompareResult, context: RenderContext) -> str:
    from benchlab.report.compare.html import compare_html as html

    return html(result, context)


@renders("html", SuiteResult)
def suite_html(result: SuiteResult, context: RenderContext) -> str:
    from benchlab.report.compare.html import suite_html as html

    return html(result, context)


def with_analysis(document: dict[str, Any], result) -> dict[str, Any]:
    """The document with the result's analysis specification (stats/spec.py) first, beside
    the envelope's provenance, when the result keeps one."""
    spec = getattr(result, "analysis", None)
    return document if spec is None else {"analysis": spec.to_dict(), **document}


@renders("text", SuiteResult)
def suite_text(result: SuiteResult, context: RenderContext) -> str:
    if context.option("compact"):  # compare --compact: a line per benchmark
        from benchlab.report.compare.compact import compact_text

        return compact_text(result)
    from benchlab.report.compare.suite import suite_text as text

    return text(result)


@renders("markdown", SuiteResult)
def suite_markdown(result: SuiteResult, context: RenderContext) -> str:
    if context.option("compact"):
        from benchlab.report.compare.compact import compact_markdown

        return compact_markdown(result)
    from benchlab.report.compare.suite import suite_markdown as markdown

    return markdown(result)


def _comparison_rows(c: Comparison, confidence: float, unit: str) -> list[dict[str, Any]]:
    pair = {"baseline": c.baseline, "candidate": c.candidate}
    rows = []
    if c.ratio is not None:
        rows.append({"table": "comparisons", **pair, "statistic": "ratio of means",
                     "estimate": c.ratio.estimate, "low": c.ratio.low, "high": c.ratio.high,
                     "confidence": confidence, "pvalue": None, "unit": "",
                     "method": c.ratio.method, "verdict": c.verdict.outcome,
                     "direction": c.verdict.direction})
    d = c.difference
    rows.append({"table": "comparisons", **pair, "statistic": "difference of means",
                 "estimate": d.estimate, "low": d.low, "high": d.high, "confidence": confidence,
                 "pvalue": d.pvalue, "unit": unit, "method": d.method,
                 "verdict": c.verdict.outcome if c.ratio is None else None,
                 "direction": c.verdict.direction if c.ratio is None else None})
    for b in c.bootstrap:
        for kind, low, high in (("percentile", b.low, b.high), ("BCa", b.bca_low, b.bca_high),
                                ("studentized", b.studentized_low, b.studentized_high)):
            if low is None and high is None:
                continue
            rows.append({"table": "bootstrap", **pair,
                         "statistic": f"ratio of {b.statistic}s", "estimate": b.estimate,
                         "low": low, "high": high, "confidence": confidence, "pvalue": None,
                         "unit": "", "method": f"bootstrap {kind}, B = {b.replicates}"})
    for t in c.tests:
        name = getattr(t, "name", None) or getattr(t, "method", "")
        rows.append({"table": "tests", **pair, "statistic": name,
                     "estimate": getattr(t, "estimate", None), "low": getattr(t, "low", None),
                     "high": getattr(t, "high", None), "confidence": confidence,
                     "pvalue": t.pvalue, "unit": "", "method": getattr(t, "method", "")})
    return rows


@renders("rows", CompareResult)
def compare_rows(result: CompareResult, context: RenderContext) -> list[dict[str, Any]]:
    """Samples (one row per statistic) and comparisons (one row per estimate)."""
    unit = result.unit.name or ""
    rows: list[dict[str, Any]] = []
    for s in result.samples:
        for statistic, value in (("n", s.n), ("mean", s.mean), ("median", s.median),
                                 ("stddev", s.stddev), ("min", s.min), ("max", s.max),
                                 ("q1", s.q1), ("q3", s.q3), ("cv", s.cv)):
            rows.append({"table": "samples", "sample": s.name, "statistic": statistic,
                         "estimate": value,
                         "unit": "" if statistic in ("n", "cv") else unit})
    for c in result.comparisons:
        rows.extend(_comparison_rows(c, result.confidence, unit))
    return rows


@renders("rows", SuiteResult)
def suite_rows(result: SuiteResult, context: RenderContext) -> list[dict[str, Any]]:
    """Every benchmark's rows with its name, then the geometric means and Holm's p-values."""
    rows = []
    for bench, r in result.benchmarks:
        rows.extend({"benchmark": bench, **row} for row in compare_rows(r, context))
    for g in result.geometric_means:
        rows.append({"benchmark": "(geometric mean)", "table": "geometric_means",
                     "candidate": g.candidate, "statistic": "geometric mean of ratios"
                     + (" of medians" if statistic_of(g).resamples else ""),
                     "estimate": finite(g.estimate), "low": finite(g.low),
                     "high": finite(g.high),
                     "confidence": result.confidence, "method": "percentile bootstrap"})
    for bench, candidate, p, q, significant in result.holm:
        rows.append({"benchmark": bench, "table": "holm", "candidate": candidate,
                     "statistic": "Holm-adjusted p-value", "estimate": q, "pvalue": p,
                     "significant": significant})
    for d in result.decisions:  # the interval each verdict used (family-wise or not)
        rows.append({"benchmark": d.benchmark, "table": "decisions", "candidate": d.candidate,
                     "statistic": f"{d.scale} of {d.statistic}s",
                     "estimate": finite(d.estimate), "low": finite(d.low),
                     "high": finite(d.high), "confidence": d.level, "pvalue": d.pvalue,
                     "method": f"{d.test}; Holm" if result.adjust == "holm" else d.test,
                     "verdict": d.outcome})
    return rows

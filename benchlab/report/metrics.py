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
    threshold; "?" inconclusive). When a metric's analysis is a suite, a benchmark column
    follows the metric: a row per benchmark and candidate, and one per geometric mean
    (`_suite_rows`); a single comparison's benchmark cell is empty. Empty unless the
    metrics were asked for together (`--metric a,b`; a go test file's metrics found alone
    keep benchstat's tables). `overview_head` gives the columns' heads."""
    return [cells for _, cells in _overview(result)]


def overview_metrics(result: PerMetric) -> list[str]:
    """The metric (as analysed, not as headed) of each row of `overview_rows`."""
    return [metric for metric, _ in _overview(result)]


def overview_head(result: PerMetric, confidence: float) -> list[str]:
    """The heads of `overview_rows`' columns."""
    head = [*OVERVIEW_HEAD[:5], f"{fmt_level(confidence)} CI", OVERVIEW_HEAD[6]]
    return [head[0], "benchmark", *head[1:]] if _has_suite(result) else head


def _has_suite(result: PerMetric) -> bool:
    return any(isinstance(inner, SuiteResult) for _, inner in result.results)


def _overview(result: PerMetric) -> list[tuple[str, tuple[str, ...]]]:
    from benchlab.notation import change_parts
    from benchlab.report.numbers import fmt_row
    from benchlab.stats.compare import CompareResult

    if not result.side_by_side or not all(isinstance(inner, (CompareResult, SuiteResult))
                                          for _, inner in result.results):
        return []
    suites = _has_suite(result)
    rows: list[tuple[str, tuple[str, ...]]] = []
    for metric, inner in result.results:
        if isinstance(inner, SuiteResult):
            rows += [(metric, cells) for cells in _suite_rows(heading(metric, inner), inner)]
            continue
        by_name = {d.name: d for d in inner.samples}
        for c in inner.comparisons:
            base, cand = by_name[c.baseline], by_name[c.candidate]
            old, new = _means(inner, base, cand, fmt_row)
            ratio = c.headline or c.ratio
            if ratio is None:
                change, ci = "n/a", c.ratio_note or ""
            else:
                parts = change_parts(ratio.estimate, ratio.low, ratio.high, inner.unit)
                change = parts.estimate
                ci = ("unbounded" if parts.low is None or ratio.low is None else
                      "exact" if ratio.low == ratio.high else f"{parts.low} .. {parts.high}")
            cells = (heading(metric, inner), *([""] if suites else []),
                     f"{c.candidate} vs {c.baseline}", old, new, change, ci,
                     _word(c, inner.unit))
            rows.append((metric, cells))
    return rows


def _means(inner, base, cand, fmt_row, median: bool = False) -> tuple[str, str]:
    """Both means (medians when the headline is of medians) at the digits their spread
    justifies, counts without spread in full."""
    exact = base.stddev == 0 and cand.stddev == 0
    a, b = (base.median, cand.median) if median else (base.mean, cand.mean)
    return fmt_row((a, b), inner.unit, 0.0 if exact else max(base.sem, cand.sem),
                   max(abs(a), abs(b)), keep_small=False)


def _suite_rows(metric: str, suite: SuiteResult) -> list[tuple[str, ...]]:
    """A suite's rows of the side-by-side table: per benchmark and candidate, both means
    (medians with --statistic median), the interval its verdict used (family-wise: "at
    97.5%" when its level is not the suite's) and the verdict word of the suite's own
    table (report/compare/suite.suite_rows); then per candidate the geometric mean with its
    bootstrap interval."""
    from benchlab.notation import change_parts
    from benchlab.report.compare.suite import suite_rows
    from benchlab.report.numbers import fmt_quantity, fmt_row
    from benchlab.stats.spec import statistic_of

    decided = {(d.benchmark, d.candidate): d for d in suite.decisions}
    median = statistic_of(suite).resamples  # the headline is of medians
    table = suite_rows(suite)
    rows = []
    k = 0
    baseline = ""
    for bench, r in suite.benchmarks:
        by_name = {d.name: d for d in r.samples}
        for c in r.comparisons:
            own, k = table[k], k + 1
            baseline = c.baseline
            d = decided.get((bench, c.candidate))
            ratio = c.headline or c.ratio
            old, new = _means(r, by_name[c.baseline], by_name[c.candidate], fmt_row, median)
            if d is not None and d.scale == "ratio":
                cells = _change_ci(d.estimate, d.low, d.high, d.level, suite.confidence,
                                   r.unit, change_parts)
            elif d is None and ratio is not None:
                cells = _change_ci(ratio.estimate, ratio.low, ratio.high, suite.confidence,
                                   suite.confidence, r.unit, change_parts)
            elif d is not None and d.low is not None and d.high is not None:
                # no ratio (a baseline of 0): the difference of means, as the suite's table
                half = (d.high - d.low) / 2
                cells = (fmt_quantity(d.estimate, r.unit, half, d.estimate),
                         "exact" if d.low == d.high else
                         f"{fmt_quantity(d.low, r.unit, half, d.estimate)} .. "
                         f"{fmt_quantity(d.high, r.unit, half, d.estimate)}")
            else:
                cells = (own.change, "")
            rows.append((metric, bench, f"{c.candidate} vs {c.baseline}", old, new, *cells,
                         own.word))
    unit = suite.benchmarks[0][1].unit
    for g, row in zip(suite.geometric_means, [t for t in table if t.geomean], strict=True):
        rows.append((metric, "geomean", f"{g.candidate} vs {baseline}", row.old, row.new,
                     *_change_ci(g.estimate, g.low, g.high, g.confidence, suite.confidence,
                                 unit, change_parts), row.word))
    return rows


def _change_ci(estimate: float, low: float | None, high: float | None, level: float,
               confidence: float, unit, change_parts) -> tuple[str, str]:
    """The change and CI cells of a ratio; its level said when it is not the table's."""
    parts = change_parts(estimate, low, high, unit)
    ci = ("unbounded" if parts.low is None or low is None else
          "exact" if low == high else f"{parts.low} .. {parts.high}")
    if level != confidence and ci not in ("exact", "unbounded"):
        ci += f" at {fmt_level(level)}"
    return parts.estimate, ci


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
    head = overview_head(result, confidence)
    shift = len(head) - len(OVERVIEW_HEAD)  # 1 with a benchmark column
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head))]
    name = 1 + shift  # the comparison's column
    room = terminal_width() - 2 - sum(w + 2 for i, w in enumerate(widths) if i != name)
    if widths[name] > room:  # long sample names lose their middle, as in compare's table
        widths[name] = max(room, 12, len(head[name]))
        rows = [[*r[:name], shorten(r[name], widths[name]), *r[name + 1:]] for r in rows]
    left = (0, 1, 2, 6, 7) if shift else (0, 1, 5, 6)
    lines = ["  " + "  ".join(c.ljust(w) if i in left else c.rjust(w)
                              for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
             for r in (head, *rows)]
    return "metrics side by side:\n" + "\n".join(lines) + "\n"


def overview_cells(row: tuple[str, ...], first: str | None = None) -> list[str]:
    """One row of the side-by-side table as HTML cells (names left, numbers right);
    `first`: the metric's cell already made (a link, on the report page)."""
    from benchlab.report import html_format as hf

    names = len(row) - 5  # metric, (benchmark,) comparison
    return [first if first is not None else hf.cell(row[0], cls="name"),
            *(hf.cell(c, cls="name") for c in row[1:names]),
            *(hf.cell(c, cls="num") for c in row[names:names + 3]),
            hf.cell(row[-2]), hf.cell(row[-1])]


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
        head = overview_head(result, _confidence(result))
        align = "|---|---|---|---:|---:|---:|---|---|" if len(head) > len(OVERVIEW_HEAD) \
            else "|---|---|---:|---:|---:|---|---|"
        table = ["| " + " | ".join(head) + " |", align,
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
        head = overview_head(result, _confidence(result))
        parts.append("<h3>metrics side by side</h3>\n" + hf.table(
            head, [overview_cells(r) for r in rows], cls="metrics"))
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

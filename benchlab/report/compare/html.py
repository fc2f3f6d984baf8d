"""The HTML sections of `compare` results and suites (CompareResult, SuiteResult), and the
tables `benchlab report`'s page builds from them (report/html_page.py).

report/compare/formats.py registers them; this module is imported only when HTML is asked
for, so a plain `compare` loads no HTML. The machinery (escaping, cells, tables, the
self-contained section) is report/html_format.py: every string from data goes through
`esc`, numbers print at the text report's precision and the exact values ride along in
`data-*` attributes (what the browser tests check against the JSON).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from benchlab.notation import change_parts, fmt_level, fmt_pvalue
from benchlab.report.compare.document import headline_method
from benchlab.report.hierarchy import hierarchy_table
from benchlab.report.html_format import cell, esc, exact, num, table, warnings_list, wrap
from benchlab.result import RenderContext
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.spec import statistic_of
from benchlab.stats.suite import Decision, SuiteResult
from benchlab.units import Unit


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

def compare_body(result: CompareResult, decisions: Sequence[Decision] = (),
                 adjust: str = "none") -> str:
    """The tables of one comparison: samples, comparisons (a suite benchmark's with its
    `decisions`), variance shares, warnings."""
    parts = [samples_table(result), comparisons_table(result, decisions, adjust)]
    if result.hierarchies:
        parts.append(hierarchy_table(result.hierarchies))
    parts.append(warnings_list(d.message for d in result.diagnostics))
    return "\n".join(p for p in parts if p)

def compare_html(result: CompareResult, context: RenderContext) -> str:
    """One comparison as a section: its unit, then `compare_body`."""
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
             cell(f"{num(g.low)} .. {num(g.high)}"
                  if math.isfinite(g.low) and math.isfinite(g.high) else "unbounded",
                  cls="num"),
             cell(f"B = {g.replicates}, seed = {g.seed}")] for g in result.geometric_means]
    level = f"bootstrap {fmt_level(result.confidence)} CI"
    of = f"of {statistic_of(result).ratios}"
    return table(("candidate", "benchmarks", f"geometric mean {of}", level, "bootstrap"),
                 rows, cls="geomean") if rows else ""


def suite_warnings(result: SuiteResult) -> list[str]:
    return [*result.notes, *result.skipped,
            *(f"{bench}: {d.message}" for bench, r in result.benchmarks for d in r.diagnostics)]


def suite_html(result: SuiteResult, context: RenderContext) -> str:
    """A suite as a section: the headline table, geometric means and warnings."""
    inner = "\n".join(p for p in (
        f"<h3>suite of {len(result.benchmarks)} benchmarks</h3>", suite_headline(result),
        geomean_table(result), warnings_list(suite_warnings(result))) if p)
    return wrap("suite", "suite comparison", inner, context)

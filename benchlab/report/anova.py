"""Every format of `benchlab anova` (AnovaResult) but HTML and the figure: the terminal report
(effects and ANOVA tables, diagnostics), the JSON document, tidy rows; and `--plot`'s file.

Its HTML comes from the generic renderer of the rows (report/html_format.py), its figure
from report/figures/models.py.
"""

from __future__ import annotations

import math
from typing import Any

from benchlab.escape import terminal, terminal_lines
from benchlab.notation import finite, fmt_level, fmt_p, fmt_pvalue
from benchlab.report.numbers import fmt_pct
from benchlab.result import RenderContext, renders
from benchlab.stats.anova import EFFECT_NOTE, AnovaResult, Check
from benchlab.version import __version__

PLOT_FORMATS = ("png", "svg", "pdf")


def _g(x: float | None, digits: int = 5) -> str:
    """digits significant figures; large numbers in full rather than with an exponent."""
    if x is None or not math.isfinite(x):
        return "n/a"
    if 10 ** digits <= abs(x) < 1e12:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def _check(c: Check) -> dict[str, Any]:
    return {"method": c.method, "statistic": finite(c.statistic), "pvalue": finite(c.pvalue),
            "ok": c.ok}


@renders("json", AnovaResult)
def anova_json(result: AnovaResult, context: RenderContext) -> dict[str, Any]:
    return anova_document(result)


def anova_document(r: AnovaResult) -> dict[str, Any]:
    """The JSON document of `benchlab anova --json` (keys in docs/anova.md)."""
    d = r.diagnostics
    return {
        "benchlab_version": __version__, "command": "anova", "method": r.method,
        "response": r.response, "transform": r.transform,
        "factors": [{"name": f, "levels": list(lv), "low": lv[0] if len(lv) == 2 else None,
                     "high": lv[1] if len(lv) == 2 else None}
                    for f, lv in zip(r.factors, r.levels, strict=True)],
        "n": r.n, "cells": r.cells, "replicates": r.replicates,
        "interactions": r.interactions, "ss_type": r.ss_type, "confidence": r.confidence,
        "effect_definition": EFFECT_NOTE,
        "effects": [{"term": e.term, "estimate": finite(e.estimate), "se": finite(e.se),
                     "low": finite(e.low), "high": finite(e.high), "pvalue": finite(e.pvalue),
                     "ratio": finite(e.ratio), "ratio_low": finite(e.ratio_low),
                     "ratio_high": finite(e.ratio_high)} for e in r.effects],
        "anova": [{"term": row.term, "df": row.df, "ss": finite(row.ss), "ms": finite(row.ms),
                   "f": finite(row.f), "pvalue": finite(row.pvalue),
                   "variation": finite(row.variation)} for row in r.table],
        "residual": {"df": r.residual.df, "ss": finite(r.residual.ss), "ms": finite(r.residual.ms),
                     "variation": finite(r.residual.variation)},
        "total_ss": finite(r.total_ss), "r_squared": finite(r.r_squared), "s_e": finite(r.s_e),
        "diagnostics": {"normality": _check(d.normality),
                        "constant_variance": _check(d.constant_variance),
                        "cooks_distance": {"max": finite(d.cooks_max),
                                           "row": None if d.cooks_row is None
                                           else d.cooks_row + 1,
                                           "line": d.cooks_line},
                        "advice": list(d.advice)},
        "warnings": list(r.warnings),
        "unit_level": r.unit_level, "unit_note": r.unit_note,
    }


def _table(rows: list[list[str]], left: int = 1) -> list[str]:
    rows = [[terminal(c) for c in row] for row in rows]  # terms name factors: escape, then measure
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if j < left else c.rjust(w)
                      for j, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows]


def _ci(low: float | None, high: float | None) -> str:
    return "n/a" if low is None or high is None else f"{_g(low)} .. {_g(high)}"


@renders("text", AnovaResult)
def anova_text(r: AnovaResult, context: RenderContext) -> str:
    """The terminal report: design line, effects (and ANOVA) table, R², diagnostics, advice;
    a Cook's distance points at its line of the input (the context's `source`).

    Every line inert (`escape.terminal`): factor, level and response names are data.
    """
    source = context.option("source", "")
    shape = "×".join(str(len(lv)) for lv in r.levels)
    kind = f"2^{len(r.factors)}" if all(len(lv) == 2 for lv in r.levels) else shape
    reps = (f"{r.replicates} replicate{'s' if r.replicates != 1 else ''}"
            if r.replicates is not None else "unequal replicates")
    response = f"ln({r.response})" if r.transform == "log" else r.response
    order = "" if r.interactions == len(r.factors) else \
        f", interactions up to order {r.interactions}"
    lines = [f"anova of {response}: {kind} factorial, {r.cells} cells, {reps}, {r.n} runs"
             f"{order}", f"method: {r.method}"]
    if r.unit_note:
        lines.append(f"note: {r.unit_note}")
    lines.append("factors: " + "; ".join(
        f"{f} ({lv[0]} -1, {lv[1]} +1)" if len(lv) == 2 else f"{f} ({', '.join(lv)})"
        for f, lv in zip(r.factors, r.levels, strict=True)))
    lines.append(EFFECT_NOTE if not r.method.startswith("OLS") else
                 "effects: two-level factors as q (half the low→high change); more levels "
                 "as deviations from the mean of the level means (sum contrasts)")
    if r.transform == "log":
        lines.append("log scale: exp(2q) is the high/low ratio of geometric means")
    lines.append("")
    conf = f"{fmt_level(r.confidence)} CI"
    sign = r.method.startswith("sign table")
    by_term = {row.term: row for row in r.table}
    ratio = r.transform == "log"
    head = ["term", "estimate", conf, "p"] + (["exp(2q)", "ratio CI"] if ratio else [])
    if sign:
        head += ["SS", "variation"]
    rows = [head]
    for e in r.effects:
        row = [e.term, _g(e.estimate), _ci(e.low, e.high), fmt_pvalue(e.pvalue)]
        if ratio:
            row += [_g(e.ratio, 4) if e.ratio is not None else "",
                    _ci(e.ratio_low, e.ratio_high) if e.ratio is not None else ""]
        if sign:
            a = by_term.get(e.term)
            row += [_g(a.ss) if a else "", fmt_pct(a.variation) if a else ""]
        rows.append(row)
    if sign:
        res = r.residual
        rows.append([f"Residuals (df {res.df})", "", "", ""] + (["", ""] if ratio else [])
                     + [_g(res.ss), fmt_pct(res.variation)])
    lines += _table(rows)
    if not sign:
        lines += ["", f"analysis of variance (type {r.ss_type} sums of squares):"]
        rows = [["term", "df", "SS", "MS", "F", "p", "variation"]]
        for a in r.table:
            rows.append([a.term, str(a.df), _g(a.ss), _g(a.ms), _g(a.f), fmt_pvalue(a.pvalue),
                         fmt_pct(a.variation)])
        res = r.residual
        rows.append(["Residuals", str(res.df), _g(res.ss), _g(res.ms), "", "",
                     fmt_pct(res.variation)])
        lines += _table(rows)
    lines += ["", f"R² = {_g(r.r_squared, 4)}, s_e = {_g(r.s_e)}, total SS = {_g(r.total_ss)}",
              "", "diagnostics:"]
    d = r.diagnostics
    n, v = d.normality, d.constant_variance
    lines.append(f"  normality of residuals: {n.method}: " +
                 ("not computed" if n.statistic is None else
                  f"W = {n.statistic:.4g}, {fmt_p(n.pvalue)}"))
    lines.append(f"  constant variance: {v.method}: " +
                 ("not computed" if v.statistic is None else
                  f"statistic = {v.statistic:.4g}, {fmt_p(v.pvalue)}"))
    if d.cooks_max is not None:
        where = (f"{source}:{d.cooks_line}" if d.cooks_line is not None
                 else f"row {d.cooks_row + 1}")
        lines.append(f"  largest Cook's distance: {d.cooks_max:.3g} ({where})")
    lines += ["", "advice:"] + [f"  - {a}" for a in d.advice]
    if r.warnings:
        lines += ["", "warnings:"] + [f"  - {w}" for w in r.warnings]
    return terminal_lines(lines) + "\n"


@renders("rows", AnovaResult)
def anova_rows(result: AnovaResult, context: RenderContext) -> list[dict[str, Any]]:
    """The effects with their CIs, then the ANOVA table (one row per term)."""
    rows: list[dict[str, Any]] = []
    for e in result.effects:
        rows.append({"table": "effects", "term": e.term, "statistic": "effect q",
                     "estimate": e.estimate, "low": e.low, "high": e.high,
                     "confidence": result.confidence, "pvalue": e.pvalue, "se": e.se,
                     "ratio": e.ratio, "ratio_low": e.ratio_low, "ratio_high": e.ratio_high})
    for row in (*result.table, result.residual):
        rows.append({"table": "anova", "term": getattr(row, "term", "residual"),
                     "statistic": "sum of squares", "estimate": row.ss,
                     "pvalue": getattr(row, "pvalue", None), "df": row.df, "ms": row.ms,
                     "f": getattr(row, "f", None), "variation": row.variation})
    return rows


def residual_plots(r: AnovaResult, path: str) -> None:
    """The anova figure (report/figures/models.py): the effects with their CIs above the
    residuals against fitted and the normal Q-Q plot. The format follows the file
    extension (png, svg, pdf)."""
    from benchlab.report.figures import write_figure

    write_figure(r, path)

"""Text and tidy rows of `anova` and `qreg` results (their JSON is in report/json_format.py)."""

from __future__ import annotations

from typing import Any

from benchlab.result import RenderContext, renders
from benchlab.stats.anova import AnovaResult
from benchlab.stats.qreg import QregResult


@renders("text", AnovaResult)
def anova_text(result: AnovaResult, context: RenderContext) -> str:
    from benchlab.report.anova import anova_text as text

    return text(result, context.option("source", ""))


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


@renders("text", QregResult)
def qreg_text(result: QregResult, context: RenderContext) -> str:
    from benchlab.report.qreg import qreg_text as lines

    factors = context.option("factors") or list(result.levels)
    return "\n".join(lines(result, ", ".join(factors))) + "\n"


@renders("rows", QregResult)
def qreg_rows(result: QregResult, context: RenderContext) -> list[dict[str, Any]]:
    """One row per quantile and coefficient."""
    return [{"table": "coefficients", "tau": float(tau), "term": name,
             "estimate": float(result.coef[t, j]), "low": float(result.low[t, j]),
             "high": float(result.high[t, j]), "confidence": result.confidence,
             "pvalue": float(result.pvalue[t, j]), "se": float(result.se[t, j]),
             "unit": result.unit or "", "method": result.se_method}
            for t, tau in enumerate(result.taus) for j, name in enumerate(result.names)]

"""Every format of `benchlab qreg` (QregResult) but HTML and the figure: the per-τ tables
(de Oliveira et al., Table 4) as text, the JSON document, tidy rows; and `--plot`'s file.

Its HTML comes from the generic renderer of the rows (report/html_format.py), its figure
from report/figures/models.py (coefficients against τ with their intervals).
"""

from __future__ import annotations

import math
from typing import Any

from benchlab.escape import terminal
from benchlab.notation import finite, fmt_level, fmt_pvalue
from benchlab.result import RenderContext, renders
from benchlab.stats.qreg import QregResult
from benchlab.version import __version__


def _cell(value: float, width: int) -> str:
    """A number; an unbounded interval end as -inf/inf; an undefined one as n/a."""
    if math.isnan(value):
        return f"{'n/a':>{width}}"
    return f"{value:>{width}.5g}" if math.isfinite(value) else f"{value:>{width}}"


def _p(value: float) -> str:
    """The p-value column: notation's p-value ("n/a" for rank-test intervals, which have
    none), right-aligned."""
    return f"{fmt_pvalue(value):>9}"


@renders("text", QregResult)
def qreg_text(result: QregResult, context: RenderContext) -> str:
    """The terminal report; the context's `factors` name the model's factors (else the
    result's own)."""
    factors = context.option("factors") or list(result.levels)
    return "\n".join(qreg_lines(result, ", ".join(factors))) + "\n"


def qreg_lines(result: QregResult, factors_line: str) -> list[str]:
    """The header (model, solver, inference and why) and one table per τ, every line inert."""
    unit = f" ({result.unit})" if result.unit else ""
    lines = [f"quantile regression of {result.response}{unit} on {factors_line}: "
             f"n = {result.n}, {len(result.names)} coefficients",
             "coding: " + "; ".join(_coding(f, levels) for f, levels in result.levels.items()),
             f"solver: {result.solver}",
             f"intervals: {fmt_level(result.confidence)} by {_se_name(result)} "
             f"({result.se_reason})"]
    if result.seed is not None:
        lines[-1] += f"; seed {result.seed}"
    names = [terminal(n) for n in result.names]  # terms name factors and levels: data
    width = max(12, max(len(n) for n in names) + 2)
    for t, tau in enumerate(result.taus):
        lines.append("")
        lines.append(f"tau = {tau:g}")
        lines.append(f"  {'term':<{width}}{'estimate':>12}{'low':>12}{'high':>12}{'p-value':>9}")
        for j, name in enumerate(names):
            lines.append(f"  {name:<{width}}{_cell(result.coef[t, j], 12)}"
                         f"{_cell(result.low[t, j], 12)}{_cell(result.high[t, j], 12)}"
                         f"{_p(result.pvalue[t, j])}")
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    return [terminal(line) for line in lines]


def _coding(factor: str, levels: list[str]) -> str:
    if len(levels) == 2:
        return f"{factor} {levels[0]} = -1, {levels[1]} = +1"
    return f"{factor} {levels[0]} = -1 (reference), " + ", ".join(levels[1:]) + " columns"


def _se_name(result: QregResult) -> str:
    names = {"iid": "the iid sparsity estimate", "nid": "the nid sandwich (Hendricks-Koenker)",
             "ker": "the kernel sandwich (Powell)", "rank": "rank-test inversion",
             "rank-nid": "rank-test inversion with local densities (quantreg's iid = FALSE)",
             "boot": f"the xy bootstrap within cells ({result.replicates} replicates)",
             "cluster": f"the {result.cluster} bootstrap within cells "
                        f"({result.replicates} replicates, SE corrected for few "
                        f"{result.cluster}s, t on {result.df} df)"}
    return names[result.se_method]


@renders("json", QregResult)
def qreg_json(result: QregResult, context: RenderContext) -> dict[str, Any]:
    """The document of `benchlab qreg --json` (keys in docs/qreg.md)."""
    rows = []
    for t, tau in enumerate(result.taus):
        rows.append({"tau": float(tau), "objective": float(result.objective[t]),
                     "coefficients": [
                         {"term": name, "estimate": float(result.coef[t, j]),
                          "low": finite(result.low[t, j]), "high": finite(result.high[t, j]),
                          "se": finite(result.se[t, j]), "pvalue": finite(result.pvalue[t, j])}
                         for j, name in enumerate(result.names)]})
    return {"benchlab_version": __version__, "command": "qreg", "response": result.response,
            "unit": result.unit, "n": result.n, "levels": result.levels, "terms": result.names,
            "solver": result.solver, "se": result.se_method, "se_reason": result.se_reason,
            "confidence": result.confidence, "df": result.df, "replicates": result.replicates,
            "seed": result.seed, "cluster": result.cluster, "quantiles": rows,
            "warnings": list(result.warnings)}


@renders("rows", QregResult)
def qreg_rows(result: QregResult, context: RenderContext) -> list[dict[str, Any]]:
    """One row per quantile and coefficient."""
    return [{"table": "coefficients", "tau": float(tau), "term": name,
             "estimate": float(result.coef[t, j]), "low": float(result.low[t, j]),
             "high": float(result.high[t, j]), "confidence": result.confidence,
             "pvalue": float(result.pvalue[t, j]), "se": float(result.se[t, j]),
             "unit": result.unit or "", "method": result.se_method}
            for t, tau in enumerate(result.taus) for j, name in enumerate(result.names)]


def check_plot_path(path: str) -> None:
    """Refuse an extension the figure writer does not know (before any work is done)."""
    from benchlab.report.figures import check_path

    check_path(path)


def write_qreg_plot(result: QregResult, path: str) -> None:
    """Draw the result's figure (report/figures/models.py) to `path` (atomically); PNG, SVG
    or PDF by the file's extension."""
    from benchlab.report.figures import write_figure

    write_figure(result, path)

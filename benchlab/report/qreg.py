"""Rendering of quantile regressions: the per-τ tables (de Oliveira et al., Table 4) as text."""

from __future__ import annotations

import math

from benchlab.escape import terminal
from benchlab.notation import fmt_level, fmt_pvalue
from benchlab.stats.qreg import QregResult


def _cell(value: float, width: int) -> str:
    """A number; an unbounded interval end as -inf/inf; an undefined one as n/a."""
    if math.isnan(value):
        return f"{'n/a':>{width}}"
    return f"{value:>{width}.5g}" if math.isfinite(value) else f"{value:>{width}}"


def _p(value: float) -> str:
    """The p-value column: notation's p-value ("n/a" for rank-test intervals, which have
    none), right-aligned."""
    return f"{fmt_pvalue(value):>9}"


def qreg_text(result: QregResult, factors_line: str) -> list[str]:
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

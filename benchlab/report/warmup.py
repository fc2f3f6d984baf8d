"""Every format of `benchlab warmup` (WarmupResult) but HTML and the figure: the table of
executions and the benchmarks' verdicts as text, the JSON document, tidy rows.

Markdown and HTML come from the rows (report/markdown_format.py, html_format.py); the
figure (small multiples of the executions) from report/figures/warmup.py.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from benchlab.escape import terminal, terminal_lines
from benchlab.notation import finite, fmt_level
from benchlab.result import RenderContext, renders
from benchlab.stats.warmup import ExecutionWarmup, WarmupResult
from benchlab.version import __version__


def fraction_text(value: float) -> str:
    """1/6 as "1/6", 0.2 as "1/5", 0.1234 as "0.1234"."""
    f = Fraction(value).limit_denominator(100)
    return f"{f.numerator}/{f.denominator}" if abs(float(f) - value) < 1e-9 else f"{value:.4g}"


def method_line(result: WarmupResult) -> str:
    """The settings that decided every class, in one line."""
    return (f"change points: PELT on mean and variance, penalty {result.penalty_factor:g}·log n; "
            f"steady state: the last segment, covering at least the last "
            f"{fraction_text(result.steady_fraction)} of the execution; segments equivalent "
            f"unless the {fmt_level(result.confidence)} CI of their ratio lies beyond "
            f"{100 * result.threshold:g}%")


def _start(e: ExecutionWarmup) -> str:
    return "-" if e.steady_start is None else str(e.steady_start)


@renders("text", WarmupResult)
def warmup_text(result: WarmupResult, context: RenderContext) -> str:
    """A table of executions, then one line per benchmark."""
    lines = [method_line(result), ""]
    header = ["benchmark", *result.level_names, "class", "steady start", "iterations",
              "change points", "outliers"]
    body = [[e.benchmark, *(v for _, v in e.levels), e.kind, _start(e), str(e.n),
             str(len(e.change_points)), str(len(e.outliers))] for e in result.executions]
    body = [[terminal(c) for c in row] for row in body]
    widths = [max(len(header[i]), *(len(r[i]) for r in body)) for i in range(len(header))]
    numeric = len(header) - 4
    for row in [header, *body]:
        cells = [c.ljust(w) if i <= numeric else c.rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    for b in result.benchmarks:
        counts = ", ".join(f"{c} {k}" for k, c in b.counts)
        lines.append(f"{terminal(b.benchmark)}: {b.kind} ({counts}; {b.reason})")
    if result.notes:
        lines += ["", *(f"note: {n}" for n in result.notes)]
    return terminal_lines(lines) + "\n"


def execution_document(e: ExecutionWarmup) -> dict[str, Any]:
    return {"benchmark": e.benchmark, "levels": dict(e.levels), "class": e.kind,
            "steady_start": e.steady_start, "iterations": e.n,
            "steady_mean": finite(e.steady_mean), "change_points": list(e.change_points),
            "segment_means": [finite(m) for m in e.segment_means],
            "outliers": list(e.outliers)}


@renders("json", WarmupResult)
def warmup_json(result: WarmupResult, context: RenderContext) -> dict[str, Any]:
    """The document of `benchlab warmup --json` (keys in docs/warmup.md)."""
    return {"benchlab_version": __version__, "command": "warmup", "unit": result.unit,
            "higher_is_better": result.higher_is_better,
            "level_columns": list(result.level_names),
            "penalty_factor": result.penalty_factor,
            "steady_fraction": result.steady_fraction, "threshold": result.threshold,
            "confidence": result.confidence, "notes": list(result.notes),
            "executions": [execution_document(e) for e in result.executions],
            "benchmarks": [{"benchmark": b.benchmark, "class": b.kind, "reason": b.reason,
                            "executions": dict(b.counts),
                            "steady_spread": finite(b.steady_spread)}
                           for b in result.benchmarks]}


@renders("rows", WarmupResult)
def warmup_rows(result: WarmupResult, context: RenderContext) -> list[dict[str, Any]]:
    """One row per execution (its steady mean; table executions) and one per benchmark (the
    spread of its executions' steady means; table benchmarks), each with its class."""
    rows: list[dict[str, Any]] = []
    for e in result.executions:
        rows.append({"table": "executions", "group": e.benchmark, "term": e.label,
                     "statistic": "steady mean", "estimate": e.steady_mean,
                     "unit": result.unit or "", "class": e.kind,
                     "steady_start": e.steady_start, "iterations": e.n,
                     "change_points": len(e.change_points), "outliers": len(e.outliers)})
    for b in result.benchmarks:
        rows.append({"table": "benchmarks", "group": b.benchmark, "term": "",
                     "statistic": "steady spread", "estimate": b.steady_spread, "unit": "",
                     "class": b.kind, "steady_start": None,
                     "iterations": None, "change_points": None, "outliers": None,
                     "executions": sum(c for _, c in b.counts), "reason": b.reason})
    return rows

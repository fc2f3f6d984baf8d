"""Text, JSON and tidy rows of `benchlab test` (keys in docs/test.md)."""

from __future__ import annotations

from typing import Any

from benchlab.escape import terminal_lines
from benchlab.result import RenderContext, renders
from benchlab.stats.protocols import KruskalResult, SpeedupSuite, TestReport


@renders("json", TestReport)
def protocol_json(report: TestReport, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.protocols import test_document

    return {**test_document(report.protocol, report.alpha, report.unit, report.results,
                            list(report.warnings), notes=list(report.notes)),
            "unit_level": report.unit_level}


@renders("text", TestReport)
def protocol_text(report: TestReport, context: RenderContext) -> str:
    from benchlab.report.protocols import kruskal_text, speedup_text, suite_text

    if isinstance(report.results, KruskalResult):
        lines = kruskal_text(report.results, report.unit)
    elif report.results and isinstance(report.results[0], SpeedupSuite):
        lines = suite_text(report.results)
    else:
        lines = speedup_text(report.results, {d.name: d for d in report.samples}, report.unit)
    lines += [f"note: {n}" for n in report.notes]
    lines += [f"warning: {w}" for w in report.warnings]
    return terminal_lines(lines) + "\n"


def _speedup_rows(r, benchmark: str | None = None) -> list[dict[str, Any]]:
    bench = {} if benchmark is None else {"benchmark": benchmark}
    statistic = "median" if r.protocol == "speedup-median" else "mean"
    rows = [{"table": "decisions", **bench, "baseline": r.baseline, "candidate": r.candidate,
             "statistic": f"speedup of the {statistic}",
             "estimate": getattr(r.speedups, statistic),
             "pvalue": r.test.pvalue if r.test is not None else None,
             "decision": r.decision, "method": r.test.method if r.test is not None else ""}]
    rows += [{"table": "checks", **bench, "baseline": r.baseline, "candidate": r.candidate,
              "statistic": c.name, "estimate": c.statistic, "pvalue": c.pvalue,
              "method": c.method} for c in r.checks]
    return rows


@renders("rows", TestReport)
def protocol_rows(report: TestReport, context: RenderContext) -> list[dict[str, Any]]:
    """Kruskal: H, the groups and each pair; Speedup-Test: each decision and its checks."""
    r = report.results
    if isinstance(r, KruskalResult):
        rows = [{"table": "kruskal", "statistic": "Kruskal-Wallis H", "estimate": r.statistic,
                 "pvalue": r.pvalue, "df": r.df, "method": r.method}]
        rows += [{"table": "groups", "group": g.name, "statistic": "mean rank",
                  "estimate": g.mean_rank, "n": g.n, "median": g.median, "mean": g.mean}
                 for g in r.groups]
        rows += [{"table": "pairs", "baseline": p.first, "candidate": p.second,
                  "statistic": r.posthoc, "estimate": p.statistic, "pvalue": p.pvalue,
                  "pvalue_holm": p.pvalue_holm, "shift": p.shift,
                  "significant": p.significant} for p in r.pairs]
        return rows
    rows = []
    for item in r:
        if isinstance(item, SpeedupSuite):
            for bench, x in item.benchmarks:
                rows += _speedup_rows(x, bench)
            rows.append({"table": "suites", "baseline": item.baseline,
                         "candidate": item.candidate, "statistic": "gain",
                         "estimate": item.gain, "improved": item.improved,
                         "total": item.total, "proportion_low": item.proportion_low,
                         "proportion_high": item.proportion_high})
        else:
            rows += _speedup_rows(item)
    return rows

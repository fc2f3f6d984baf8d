"""The JSON document of a comparison: plain dicts with stable keys (docs/compare.md)."""

from __future__ import annotations

import math
from typing import Any

from benchlab.report.hierarchy import summary_document
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.difference import MeanDifference
from benchlab.version import __version__


def _num(x: float | None) -> float | None:
    """A JSON number, or null for a missing or non-finite value."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _advice(a) -> dict[str, Any] | None:
    """What an inconclusive result can support (docs/compare.md, "advice")."""
    if a is None:
        return None
    new = a.new_experiment
    return {"detectable_change": _num(a.detectable), "power": a.power,
            "new_experiment": None if new is None else {"baseline": new[0],
                                                         "candidate": new[1]}}


def _ratio(c: Comparison) -> dict[str, Any] | None:
    r = c.ratio
    if r is None:
        return None
    return {"estimate": _num(r.estimate), "low": _num(r.low), "high": _num(r.high),
            "bounded": r.bounded, "method": r.method, "df": _num(r.df), "note": r.note}


def headline_method(c: Comparison) -> str | None:
    """The method of the ratio the verdict rests on (the JSON's `headline.method`)."""
    b = c.headline
    if b is not None:
        return f"{'hierarchical bootstrap' if b.hierarchical else 'bootstrap'} percentile"
    return None if c.ratio is None else c.ratio.method


def _headline(c: Comparison) -> dict[str, Any] | None:
    """The ratio the verdict rests on: of means (Fieller) or of medians (bootstrap)."""
    b = c.headline
    if b is not None:
        return {"statistic": b.statistic, "estimate": _num(b.estimate), "low": _num(b.low),
                "high": _num(b.high), "method": headline_method(c),
                "replicates": b.replicates}
    if c.ratio is None:
        return None
    return {"statistic": "mean", "estimate": _num(c.ratio.estimate), "low": _num(c.ratio.low),
            "high": _num(c.ratio.high), "method": headline_method(c), "replicates": None}


def _difference(d: MeanDifference) -> dict[str, Any]:
    return {"estimate": _num(d.estimate), "low": _num(d.low), "high": _num(d.high),
            "pvalue": _num(d.pvalue), "statistic": _num(d.statistic), "df": _num(d.df),
            "method": d.method}


def _test(t: Any) -> dict[str, Any]:
    if isinstance(t, MeanDifference):
        out = _difference(t)
        out["name"] = t.method
        out["note"] = "estimate: difference of means, candidate - baseline"
        return out
    return {"name": t.name, "statistic": _num(t.statistic), "pvalue": _num(t.pvalue),
            "method": t.method, "estimate": _num(t.estimate), "low": _num(t.low),
            "high": _num(t.high), "df": None, "note": t.note}


def comparison_document(result: CompareResult) -> dict[str, Any]:
    """Everything in `result` as JSON-ready data."""
    return {
        "benchlab_version": __version__,
        "command": "compare",
        "confidence": result.confidence,
        "threshold": result.threshold,
        "df_method": result.df_method,
        "seed": result.seed,
        "statistic": result.statistic,
        "unit": result.unit.name,
        "higher_is_better": result.unit.higher_is_better,
        "samples": [
            {"name": s.name, "n": s.n, "mean": _num(s.mean), "median": _num(s.median),
             "stddev": _num(s.stddev), "min": _num(s.min), "max": _num(s.max),
             "cv": _num(s.cv), "q1": _num(s.q1), "q3": _num(s.q3)}
            for s in result.samples
        ],
        "comparisons": [
            {
                "baseline": c.baseline,
                "candidate": c.candidate,
                "paired": c.paired,
                "ratio": _ratio(c),
                "ratio_note": c.ratio_note,
                "headline": _headline(c),
                "difference": _difference(c.difference),
                "verdict": {"outcome": c.verdict.outcome, "text": c.verdict.text,
                            "threshold": c.verdict.threshold,
                            "direction": c.verdict.direction,
                            "regression": c.verdict.regression,
                            "advice": _advice(c.verdict.advice)},
                "bootstrap": [
                    {"statistic": b.statistic, "estimate": _num(b.estimate),
                     "percentile": {"low": _num(b.low), "high": _num(b.high)},
                     "bca": {"low": _num(b.bca_low), "high": _num(b.bca_high)},
                     "studentized": {"low": _num(b.studentized_low),
                                     "high": _num(b.studentized_high)},
                     "replicates": b.replicates, "seed": b.seed, "note": b.note}
                    for b in c.bootstrap
                ],
                "tests": [_test(t) for t in c.tests],
            }
            for c in result.comparisons
        ],
        "resample": result.resample,
        "hierarchy": [summary_document(h) for h in result.hierarchies],
        "warnings": [
            {"kind": d.kind, "message": d.message, "statistic": _num(d.statistic),
             "pvalue": _num(d.pvalue)}
            for d in result.diagnostics
        ],
    }

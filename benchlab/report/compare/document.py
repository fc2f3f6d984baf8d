"""The JSON document of a comparison: plain dicts with stable keys (docs/compare.md)."""

from __future__ import annotations

from typing import Any

from benchlab.notation import finite
from benchlab.report.hierarchy import summary_document
from benchlab.stats.compare import CompareResult, Comparison
from benchlab.stats.difference import MeanDifference
from benchlab.version import __version__


def _advice(a) -> dict[str, Any] | None:
    """What an inconclusive result can support (docs/compare.md, "advice")."""
    if a is None:
        return None
    new = a.new_experiment
    return {"detectable_change": finite(a.detectable), "power": a.power,
            "new_experiment": None if new is None else {"baseline": new[0],
                                                         "candidate": new[1]}}


def _ratio(c: Comparison) -> dict[str, Any] | None:
    r = c.ratio
    if r is None:
        return None
    return {"estimate": finite(r.estimate), "low": finite(r.low), "high": finite(r.high),
            "bounded": r.bounded, "method": r.method, "df": finite(r.df), "note": r.note}


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
        return {"statistic": b.statistic, "estimate": finite(b.estimate), "low": finite(b.low),
                "high": finite(b.high), "method": headline_method(c),
                "replicates": b.replicates}
    if c.ratio is None:
        return None
    return {"statistic": "mean", "estimate": finite(c.ratio.estimate), "low": finite(c.ratio.low),
            "high": finite(c.ratio.high), "method": headline_method(c), "replicates": None}


def _difference(d: MeanDifference) -> dict[str, Any]:
    return {"estimate": finite(d.estimate), "low": finite(d.low), "high": finite(d.high),
            "pvalue": finite(d.pvalue), "statistic": finite(d.statistic), "df": finite(d.df),
            "method": d.method}


def _test(t: Any) -> dict[str, Any]:
    if isinstance(t, MeanDifference):
        out = _difference(t)
        out["name"] = t.method
        out["note"] = "estimate: difference of means, candidate - baseline"
        return out
    return {"name": t.name, "statistic": finite(t.statistic), "pvalue": finite(t.pvalue),
            "method": t.method, "estimate": finite(t.estimate), "low": finite(t.low),
            "high": finite(t.high), "df": None, "note": t.note}


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
            {"name": s.name, "n": s.n, "mean": finite(s.mean), "median": finite(s.median),
             "stddev": finite(s.stddev), "min": finite(s.min), "max": finite(s.max),
             "cv": finite(s.cv), "q1": finite(s.q1), "q3": finite(s.q3)}
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
                    {"statistic": b.statistic, "estimate": finite(b.estimate),
                     "percentile": {"low": finite(b.low), "high": finite(b.high)},
                     "bca": {"low": finite(b.bca_low), "high": finite(b.bca_high)},
                     "studentized": {"low": finite(b.studentized_low),
                                     "high": finite(b.studentized_high)},
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
            {"kind": d.kind, "message": d.message, "statistic": finite(d.statistic),
             "pvalue": finite(d.pvalue)}
            for d in result.diagnostics
        ],
    }

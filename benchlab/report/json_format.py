"""JSON documents of every result, registered for `render(result, "json")`.

Each document keeps the keys its command has always printed (docs/<command>.md);
`report/envelope.py` adds the provenance every command shares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchlab.notation import finite
from benchlab.result import RenderContext, renders
from benchlab.units import make_unit
from benchlab.version import __version__

# The types are named, not imported: this module serves every analysis, and a plain
# compare must not import anova, qreg or the protocols to print its JSON.
if TYPE_CHECKING:  # pragma: no cover
    from benchlab.design.factorial import Design
    from benchlab.stats.anova import AnovaResult
    from benchlab.stats.compare import CompareResult
    from benchlab.stats.protocols import KruskalResult, SpeedupSuite, SpeedupTestResult
    from benchlab.stats.qreg import QregResult
    from benchlab.stats.suite import SuiteResult


@renders("json", "benchlab.stats.compare.CompareResult")
def compare_json(result: CompareResult, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.compare.document import comparison_document

    return with_analysis(comparison_document(result), result)


@renders("json", "benchlab.stats.suite.SuiteResult")
def suite_json(result: SuiteResult, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.compare.suite import suite_document

    return with_analysis(suite_document(result), result)


def with_analysis(document: dict[str, Any], result) -> dict[str, Any]:
    """The document with the result's analysis specification (stats/spec.py) first, beside
    the envelope's provenance, when the result keeps one."""
    spec = getattr(result, "analysis", None)
    return document if spec is None else {"analysis": spec.to_dict(), **document}


@renders("json", "benchlab.stats.anova.AnovaResult")
def anova_json(result: AnovaResult, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.anova import anova_document

    return anova_document(result)


@renders("json", "benchlab.design.factorial.Design")
def design_json(result: Design, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.design import design_document

    return design_document(result)


@renders("json", "benchlab.stats.protocols.SpeedupTestResult",
         "benchlab.stats.protocols.SpeedupSuite")
def speedup_json(result: SpeedupTestResult | SpeedupSuite,
                 context: RenderContext) -> dict[str, Any]:
    from benchlab.report.protocols import test_document
    from benchlab.stats.protocols import SpeedupSuite

    first = result.benchmarks[0][1] if isinstance(result, SpeedupSuite) else result
    return test_document(result.protocol, result.alpha,
                         make_unit(None, first.higher_is_better), [result], [])


@renders("json", "benchlab.stats.protocols.KruskalResult")
def kruskal_json(result: KruskalResult, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.protocols import test_document

    return test_document("kruskal", result.alpha, make_unit(None), result, [])


@renders("json", "benchlab.stats.qreg.QregResult")
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

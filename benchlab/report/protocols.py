"""Every format of `benchlab test` (Speedup-Test, Kruskal–Wallis) but HTML and the figure:
terminal text, JSON documents (keys in docs/test.md) and tidy rows. Its HTML comes from
the generic renderer of the rows (report/html_format.py), its figures from
report/figures/protocols.py.

The text lines come out inert (`escape.terminal`): sample and benchmark names are data.
"""

from __future__ import annotations

import math
from typing import Any

from benchlab.escape import terminal, terminal_lines
from benchlab.notation import finite, fmt_level, fmt_p, fmt_pvalue
from benchlab.result import RenderContext, renders
from benchlab.stats.classic_tests import TestResult
from benchlab.stats.protocols import KruskalResult, SpeedupSuite, SpeedupTestResult, TestReport
from benchlab.units import Unit, make_unit
from benchlab.version import __version__


def _test(t: TestResult) -> dict[str, Any]:
    return {"name": t.name, "statistic": finite(t.statistic), "pvalue": finite(t.pvalue),
            "method": t.method, "estimate": finite(t.estimate), "note": t.note}


def speedup_document(r: SpeedupTestResult) -> dict[str, Any]:
    """One Speedup-Test comparison as plain JSON types (docs/test.md)."""
    return {"baseline": r.baseline, "candidate": r.candidate, "n_baseline": r.n_baseline,
            "n_candidate": r.n_candidate,
            "speedups": {"min": finite(r.speedups.min), "mean": finite(r.speedups.mean),
                         "median": finite(r.speedups.median)},
            "checks": [_test(c) for c in r.checks],
            "test": None if r.test is None else _test(r.test),
            "decision": r.decision, "message": r.message, "warnings": list(r.warnings)}


def kruskal_document(r: KruskalResult) -> dict[str, Any]:
    """Kruskal–Wallis, the one-way ANOVA and the pairwise comparisons as JSON types."""
    return {"method": r.method, "posthoc": r.posthoc, "exact": r.exact,
            "groups": [{"name": g.name, "n": g.n, "median": finite(g.median),
                        "mean": finite(g.mean), "mean_rank": finite(g.mean_rank)}
                       for g in r.groups],
            "kruskal": {"statistic": finite(r.statistic), "df": r.df, "pvalue": finite(r.pvalue)},
            "anova": {"statistic": finite(r.anova_f), "df1": r.anova_df[0], "df2": r.anova_df[1],
                      "pvalue": finite(r.anova_pvalue)},
            "pairs": [{"first": p.first, "second": p.second, "statistic": finite(p.statistic),
                       "pvalue": finite(p.pvalue), "pvalue_holm": finite(p.pvalue_holm),
                       "shift": finite(p.shift), "significant": p.significant}
                      for p in r.pairs]}


def suite_document(r: SpeedupSuite) -> dict[str, Any]:
    """The Speedup-Test over a suite: every benchmark, the gain and the proportion improved."""
    return {"baseline": r.baseline, "candidate": r.candidate,
            "benchmarks": [{"benchmark": b, **speedup_document(x)} for b, x in r.benchmarks],
            "gain": finite(r.gain), "improved": r.improved, "refused": r.refused,
            "total": r.total, "proportion": finite(r.proportion),
            "proportion_low": finite(r.proportion_low),
            "proportion_high": finite(r.proportion_high)}


def test_document(protocol: str, alpha: float, unit: Unit, result: Any,
                  warnings: list[str], notes: list[str] | None = None) -> dict[str, Any]:
    """The whole `benchlab test --json` document (notes: unit conversions of the inputs)."""
    doc: dict[str, Any] = {"benchlab_version": __version__, "command": "test",
                           "protocol": protocol, "alpha": alpha,
                           "confidence": round(1 - alpha, 12), "unit": unit.name,
                           "higher_is_better": unit.higher_is_better}
    if protocol == "kruskal":
        doc.update(kruskal_document(result))
    elif result and isinstance(result[0], SpeedupSuite):
        doc["suites"] = [suite_document(r) for r in result]
    else:
        doc["comparisons"] = [speedup_document(r) for r in result]
    doc["notes"] = list(notes or [])
    doc["warnings"] = warnings
    return doc


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    rows = [[terminal(c) for c in row] for row in rows]  # names are data: escape, then measure
    widths = [max(len(row[j]) for row in rows) for j in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if j in right else c.ljust(w)
                      for j, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in rows]


def _stat(t: TestResult) -> str:
    symbol = {"Shapiro": "W", "F-test": "F", "Kolmogorov": "D", "Student": "t", "Welch": "t",
              "Wilcoxon": "W"}
    name = next((v for k, v in symbol.items() if t.name.startswith(k)), "statistic")
    value = "n/a" if not math.isfinite(t.statistic) else f"{t.statistic:.4g}"
    return f"{name} = {value}, {fmt_p(t.pvalue)}"


def speedup_text(results: list[SpeedupTestResult], samples: dict[str, Any],
                 unit: Unit) -> list[str]:
    """The Speedup-Test report: per comparison, the samples, speedups, checks, test, result."""
    lines: list[str] = []
    for r in results:
        what = "mean" if r.protocol == "speedup-mean" else "median"
        side = f"candidate {r.better} than baseline"
        lines.append(f"Speedup-Test, {what} protocol: {r.candidate} vs {r.baseline} "
                     f"(one-sided, H1: {side}; alpha = {r.alpha:g})")
        rows = [["", "n", "min", "mean", "median"]]
        for name in (r.baseline, r.candidate):
            d = samples[name]
            exact = d.stddev == 0  # counts: in full when exact, else scaled as the mean
            like = d.mean if unit.is_count else None
            rows.append([name, str(d.n), *(unit.format(x, like=like, exact=exact)
                                           for x in (d.min, d.mean, d.median))])
        ratio = f"speedup ({r.candidate}/{r.baseline})" if r.higher_is_better else \
            f"speedup ({r.baseline}/{r.candidate})"
        rows.append([ratio, "", f"{r.speedups.min:.4g}", f"{r.speedups.mean:.4g}",
                     f"{r.speedups.median:.4g}"])
        lines += ["  " + x for x in _table(rows, {1, 2, 3, 4})]
        for c in r.checks:
            lines.append(f"  check: {c.name}: {_stat(c)}")
        if r.test is not None:
            lines.append(f"  test: {r.test.name} ({r.test.method}): {_stat(r.test)}")
        lines.append(f"  result: {r.message}")
        lines += [f"  warning: {w}" for w in r.warnings]
        lines.append("")
    return [terminal(line) for line in lines[:-1]]


def suite_text(suites: list[SpeedupSuite]) -> list[str]:
    """One line per benchmark, then the time-weighted gain and the proportion improved."""
    lines: list[str] = []
    for r in suites:
        what = "mean" if r.protocol == "speedup-mean" else "median"
        first = r.benchmarks[0][1]
        side = f"candidate {first.better} than baseline"
        lines.append(f"Speedup-Test, {what} protocol, per benchmark: {r.candidate} vs "
                     f"{r.baseline} (one-sided, H1: {side}; alpha = {r.alpha:g})")
        rows = [["benchmark", "n", f"speedup ({what})", "test", "p", "decision"]]
        for bench, x in r.benchmarks:
            rows.append([bench, f"{x.n_baseline}/{x.n_candidate}",
                         f"{getattr(x.speedups, what):.4g}",
                         x.test.name if x.test is not None else "-",
                         fmt_pvalue(x.test.pvalue) if x.test is not None else "-",
                         x.decision])
        lines += ["  " + x for x in _table(rows, {1, 2, 4})]
        level = f"{fmt_level(1 - r.alpha)}"
        lines.append(f"  gain: {r.gain:.4g} (time-weighted: sum of {what}s of {r.baseline} / "
                     f"sum of {what}s of {r.candidate})")
        lines.append(f"  improved: {r.improved} of {r.total} benchmarks "
                     f"({100 * r.proportion:.0f}%, {level} CI {100 * r.proportion_low:.1f}% .. "
                     f"{100 * r.proportion_high:.1f}%, Clopper-Pearson)"
                     + (f"; {r.refused} refused" if r.refused else ""))
        for bench, x in r.benchmarks:
            if x.decision == "refused":
                lines.append(f"  {bench}: {x.message}")
            lines += [f"  {bench}: warning: {w}" for w in x.warnings]
        lines.append("")
    return [terminal(line) for line in lines[:-1]]


def kruskal_text(r: KruskalResult, unit: Unit) -> list[str]:
    """Kruskal–Wallis, the one-way ANOVA, the groups and the Holm-adjusted pairs."""
    lines = [f"Kruskal-Wallis: H = {r.statistic:.4g}, df = {r.df}, {fmt_p(r.pvalue)}",
             f"one-way ANOVA: F({r.anova_df[0]}, {r.anova_df[1]}) = {r.anova_f:.4g}, "
             f"{fmt_p(r.anova_pvalue)}", ""]
    rows = [["group", "n", "median", "mean", "mean rank"]]
    rows += [[g.name, str(g.n), unit.format(g.median), unit.format(g.mean), f"{g.mean_rank:.2f}"]
             for g in r.groups]
    lines += _table(rows, {1, 2, 3, 4})
    dunn = r.posthoc == "dunn"
    title = "Dunn's test on the pooled mean ranks" if dunn else "Wilcoxon-Mann-Whitney"
    lines += ["", f"pairwise {title}, Holm-adjusted (alpha = {r.alpha:g}):"]
    rows = [["first", "second", "z" if dunn else "W", "p", "p (Holm)", "shift", ""]]
    for p in r.pairs:
        rows.append([p.first, p.second, f"{p.statistic:.4g}" if dunn else f"{p.statistic:g}",
                     f"{p.pvalue:.4g}",
                     f"{p.pvalue_holm:.4g}", ("+" if p.shift >= 0 else "") + unit.format(p.shift),
                     "differ" if p.significant else "-"])
    lines += _table(rows, {2, 3, 4, 5})
    n_sig = sum(p.significant for p in r.pairs)
    how = ("exactly: every group is constant, no test is needed" if r.exact else
           f"at level {r.alpha:g} after Holm's adjustment")
    lines += ["", f"{n_sig} of {len(r.pairs)} pairs differ {how} (shift: Hodges-Lehmann, "
                  "second - first)"]
    return [terminal(line) for line in lines]


@renders("json", TestReport)
def protocol_json(report: TestReport, context: RenderContext) -> dict[str, Any]:
    return {**test_document(report.protocol, report.alpha, report.unit, report.results,
                            list(report.warnings), notes=list(report.notes)),
            "unit_level": report.unit_level}


@renders("text", TestReport)
def protocol_text(report: TestReport, context: RenderContext) -> str:
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


@renders("json", SpeedupTestResult, SpeedupSuite)
def speedup_json(result: SpeedupTestResult | SpeedupSuite,
                 context: RenderContext) -> dict[str, Any]:
    first = result.benchmarks[0][1] if isinstance(result, SpeedupSuite) else result
    return test_document(result.protocol, result.alpha,
                         make_unit(None, first.higher_is_better), [result], [])


@renders("json", KruskalResult)
def kruskal_json(result: KruskalResult, context: RenderContext) -> dict[str, Any]:
    return test_document("kruskal", result.alpha, make_unit(None), result, [])

"""`--format markdown`: a comparison as a pull-request comment (GitHub-flavoured tables)."""

from __future__ import annotations

import math

from benchlab.report.text import fmt_p
from benchlab.stats.compare import CompareResult

_ICONS = {"regression": "⚠️", "change": "✅", "equivalent": "✅", "inconclusive": "❔"}


def _pct(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{100 * (x - 1):+.2f}%"


def render_markdown(result: CompareResult) -> str:
    """Samples and comparison tables with the verdict sentences."""
    unit = result.unit
    level = f"{100 * result.confidence:g}%"
    lines = ["### benchlab compare", "",
             "| sample | n | mean | median | stddev | min | max |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for s in result.samples:
        lines.append(f"| {s.name} | {s.n} | {unit.format(s.mean)} | {unit.format(s.median)} | "
                     f"{unit.format(s.stddev)} | {unit.format(s.min)} | {unit.format(s.max)} |")
    lines += ["", f"| candidate | baseline | change | {level} CI | difference p | verdict |",
              "|---|---|---:|---|---:|---|"]
    for c in result.comparisons:
        if c.ratio is None:
            change, ci = "n/a", "n/a (baseline mean not positive)"
        else:
            change = _pct(c.ratio.estimate)
            ci = ("unbounded" if not c.ratio.bounded
                  else f"{_pct(c.ratio.low)} .. {_pct(c.ratio.high)}")
        icon = _ICONS["regression" if c.verdict.regression else c.verdict.outcome]
        p = fmt_p(c.difference.pvalue).removeprefix("p = ").removeprefix("p ")
        lines.append(f"| {c.candidate} | {c.baseline} | {change} | {ci} | {p} | "
                     f"{icon} {c.verdict.outcome} |")
    lines.append("")
    for c in result.comparisons:
        lines.append(f"- **{c.candidate}**: {c.verdict.text}")
    if result.diagnostics:
        lines += ["", "<details><summary>warnings</summary>", ""]
        lines += [f"- {d.message}" for d in result.diagnostics]
        lines += ["", "</details>"]
    method = result.comparisons[0].ratio.method if result.comparisons[0].ratio else "n/a"
    lines += ["", f"<sub>ratio of means with {method}; threshold "
                  f"{100 * result.threshold:g}%; benchlab</sub>", ""]
    return "\n".join(lines)

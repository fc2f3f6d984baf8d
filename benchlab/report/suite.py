"""Rendering a suite comparison: one row per benchmark, the geometric mean, Holm decisions.

Benchmark and sample names come from data: the text keeps them inert with
`escape.terminal`, the Markdown with `escape.markdown`; JSON keeps them exact.
"""

from __future__ import annotations

from typing import Any

from benchlab import __version__
from benchlab.escape import markdown as md
from benchlab.escape import terminal, terminal_lines
from benchlab.report.document import comparison_document
from benchlab.report.text import fmt_p, fmt_ratio_ci
from benchlab.stats.suite import SuiteResult


def suite_document(result: SuiteResult) -> dict[str, Any]:
    """The suite as JSON-ready data (docs/compare.md, "Suites")."""
    return {
        "benchlab_version": __version__,
        "command": "compare",
        "confidence": result.confidence,
        "seed": result.seed,
        "resample": result.resample,
        "unit": result.benchmarks[0][1].unit.name,
        "higher_is_better": result.benchmarks[0][1].unit.higher_is_better,
        "benchmarks": [{"benchmark": name, **comparison_document(r)}
                       for name, r in result.benchmarks],
        "geometric_means": [
            {"candidate": g.candidate, "estimate": g.estimate, "low": g.low, "high": g.high,
             "benchmarks": g.benchmarks, "replicates": g.replicates, "seed": g.seed,
             "method": "geometric mean of per-benchmark ratios of means; percentile "
                       "bootstrap within each benchmark"}
            for g in result.geometric_means],
        "holm": [{"benchmark": b, "candidate": c, "pvalue": p, "adjusted_pvalue": q,
                  "significant": sig} for b, c, p, q, sig in result.holm],
        "skipped": list(result.skipped),
        "notes": list(result.notes),
    }


def _warnings(result: SuiteResult) -> list[str]:
    return [*result.notes, *result.skipped,
            *(f"{bench}: {d.message}" for bench, r in result.benchmarks for d in r.diagnostics)]


def _bootstrap_table(result: SuiteResult) -> tuple[list[str], list[tuple[str, ...]], list[str]]:
    """Each benchmark's own bootstrap intervals (`--bootstrap`): header, rows, notes.

    One row per benchmark, comparison and statistic (ratio of means, of medians):
    the estimate and the intervals computed (percentile; BCa for independent
    samples, studentized for hierarchical means: `bootstrap_cells`). A note
    shared by every interval is given once; any other note names the benchmarks
    it belongs to. No rows: no per-benchmark bootstrap ran.
    """
    from benchlab.report.bootstrap_cells import interval_cells, interval_kinds

    rows, by_note = [], {}
    kinds = interval_kinds(b for _, r in result.benchmarks for c in r.comparisons
                           for b in c.bootstrap)
    for bench, r in result.benchmarks:
        for c in r.comparisons:
            for b in c.bootstrap:
                rows.append((bench, f"{c.candidate} vs {c.baseline}", f"{b.statistic}s",
                             f"{b.estimate:.4f}", *interval_cells(b, kinds)))
                if b.note:
                    by_note.setdefault(b.note, []).append(bench)
    notes = [n if len(benches) == len(rows) else f"{', '.join(dict.fromkeys(benches))}: {n}"
             for n, benches in by_note.items()]
    return ["benchmark", "comparison", "ratio of", "estimate", *kinds], rows, notes


def _bootstrap_caption(result: SuiteResult) -> str:
    first = next(b for _, r in result.benchmarks for c in r.comparisons for b in c.bootstrap)
    return (f"bootstrap {100 * result.confidence:g}% CI of each benchmark's ratios "
            f"(B = {first.replicates}, seed = {first.seed})")


def suite_text(result: SuiteResult) -> str:
    level = f"{100 * result.confidence:g}% CI"
    holm = {(b, c): (q, sig) for b, c, _, q, sig in result.holm}
    rows = []
    for bench, r in result.benchmarks:
        for c in r.comparisons:
            ratio = c.ratio
            est = "n/a" if ratio is None else f"{ratio.estimate:.4f}"
            ci = "n/a" if ratio is None else fmt_ratio_ci(ratio.low, ratio.high)
            q, sig = holm[(bench, c.candidate)]
            rows.append((terminal(bench), terminal(f"{c.candidate} vs {c.baseline}"), est, ci,
                         fmt_p(q).removeprefix("p ").removeprefix("= "),
                         ("yes" if sig else "no"), c.verdict.outcome))
    head = ("benchmark", "comparison", "ratio", level, "Holm p", "Holm sig.", "verdict")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    lines.append("")
    head, boot, notes = _bootstrap_table(result)
    if boot:
        boot = [(terminal(r[0]), terminal(r[1]), *r[2:]) for r in boot]  # before the widths
        widths = [max(len(h), *(len(r[i]) for r in boot)) for i, h in enumerate(head)]
        lines.append(_bootstrap_caption(result) + ":")
        for r in (head, *boot):
            lines.append("  ".join(c.rjust(w) if i == 3 else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(r, widths, strict=True))
                                   ).rstrip())
        lines += [f"note: {n}" for n in notes] + [""]
    for g in result.geometric_means:
        plural = "s" if g.benchmarks != 1 else ""
        lines.append(f"geometric mean over {g.benchmarks} benchmark{plural}, {g.candidate}: "
                     f"{g.estimate:.4f}  bootstrap {level} {g.low:.4f} .. {g.high:.4f} "
                     f"(B = {g.replicates}, seed = {g.seed}"
                     + (f", resampling {result.resample})" if result.resample else ")"))
    warnings = _warnings(result)
    if warnings:
        lines += ["", "warnings:"] + [f"  - {w}" for w in warnings]
    return terminal_lines(lines) + "\n"


def _method(result: SuiteResult) -> str:
    for _, r in result.benchmarks:
        for c in r.comparisons:
            if c.ratio is not None:
                return c.ratio.method
    return "n/a"


def suite_markdown(result: SuiteResult) -> str:
    """The suite as a pull-request comment: one row per benchmark, the geometric means."""
    from benchlab.report.markdown import _ICONS

    level = f"{100 * result.confidence:g}% CI"
    holm = {(b, c): (q, sig) for b, c, _, q, sig in result.holm}
    lines = ["### benchlab compare (suite)", "",
             f"| benchmark | comparison | ratio | {level} | Holm p | Holm sig. | verdict |",
             "|---|---|---:|---|---:|---|---|"]
    for bench, r in result.benchmarks:
        for c in r.comparisons:
            ratio = c.ratio
            est = "n/a" if ratio is None else f"{ratio.estimate:.4f}"
            ci = "n/a" if ratio is None else fmt_ratio_ci(ratio.low, ratio.high)
            q, sig = holm[(bench, c.candidate)]
            icon = _ICONS["regression" if c.verdict.regression else c.verdict.outcome]
            p = fmt_p(q).removeprefix("p ").removeprefix("= ")
            lines.append(f"| {md(bench)} | {md(f'{c.candidate} vs {c.baseline}')} | {est} | "
                         f"{ci} | {p} | "
                         f"{'yes' if sig else 'no'} | {icon} {c.verdict.outcome} |")
    lines.append("")
    head, boot, notes = _bootstrap_table(result)
    if boot:
        caption = _bootstrap_caption(result)
        lines += [f"{caption[0].upper()}{caption[1:]}:", "",
                  "| " + " | ".join(head) + " |",
                  "|" + "|".join("---:" if i == 3 else "---" for i in range(len(head))) + "|"]
        lines += ["| " + " | ".join(map(md, r)) + " |" for r in boot]
        lines += [""] + [f"_note: {md(n)}_" for n in notes] + ([""] if notes else [])
    for g in result.geometric_means:
        plural = "s" if g.benchmarks != 1 else ""
        lines.append(f"- **{md(g.candidate)}**: geometric mean of the ratios over {g.benchmarks} "
                     f"benchmark{plural} {g.estimate:.4f}, bootstrap {level} {g.low:.4f} .. "
                     f"{g.high:.4f}")
    warnings = _warnings(result)
    if warnings:
        lines += ["", "<details><summary>warnings</summary>", ""]
        lines += [f"- {md(w)}" for w in warnings]
        lines += ["", "</details>"]
    spec = f", resampling {md(result.resample)}" if result.resample else ""
    b = result.geometric_means[0].replicates if result.geometric_means else 0
    lines += ["", f"<sub>ratio of means with {md(_method(result))}; Holm-adjusted p-values of the "
                  f"differences; geometric mean by bootstrap within each benchmark (B = {b}, "
                  f"seed = {result.seed}{spec}); benchlab</sub>", ""]
    return "\n".join(lines)

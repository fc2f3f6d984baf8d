"""Every format of `benchlab bisect` (BisectResult): the steps and the culprit as text, the JSON
document (keys in docs/bisect.md) and tidy rows (CSV, Markdown and HTML from them)."""

from __future__ import annotations

from typing import Any

from benchlab.escape import terminal, terminal_lines
from benchlab.notation import finite, fmt_change, fmt_level, fmt_share, plural
from benchlab.result import RenderContext, renders
from benchlab.runner.bisect import BisectResult, Step
from benchlab.runner.bisect_store import METRIC_UNITS
from benchlab.stats.fieller import RatioInterval
from benchlab.units import make_unit

VERDICT_MARKS = {"change": "!", "equivalent": "~", "inconclusive": "?"}
STATUS_TEXT = {
    "no-change": "no culprit: good and bad do not differ by more than the threshold",
    "inconclusive": "no culprit: good and bad could not be told apart from the threshold "
                    "within the most executions (more with --max-runs, or a larger threshold)",
    "ambiguous": "no culprit: a commit could not be placed on either side within the most "
                 "executions (a change spread over several commits, or one smaller than "
                 "the noise lets the executions show)",
    "skipped": "no single culprit: the commits left between the last good and the first bad "
               "one could not be built or run",
}


def _interval(r: RatioInterval | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {"estimate": finite(r.estimate), "low": finite(r.low), "high": finite(r.high),
            "confidence": r.confidence, "df": finite(r.df), "method": r.method}


def _check_document(step: Step, c) -> dict[str, Any]:
    if step.mid is None:
        return {"runs": c.runs, "ratio": _interval(c.ratio), "verdict": c.verdict,
                "outcome": c.outcome}
    return {"runs": c.runs, "position": _interval(c.position), "vs_good": _interval(c.vs_good),
            "verdict": c.verdict, "ends": _interval(c.ends), "side": c.side}


def step_document(step: Step) -> dict[str, Any]:
    return {"step": step.number, "kind": "ends" if step.mid is None else "commit",
            "commit": step.mid, "good": step.good, "bad": step.bad, "level": step.level,
            "outcome": step.outcome, "executions": step.executions,
            "candidates": step.candidates, "error": step.error,
            "looks": [_check_document(step, c) for c in step.checks]}


@renders("json", BisectResult)
def bisect_json(result: BisectResult, context: RenderContext) -> dict[str, Any]:
    """The document of `benchlab bisect --json` (keys in docs/bisect.md)."""
    s = result.settings
    across = _interval(result.across)
    if across is not None:
        across["verdict"] = result.across_verdict
    return {
        "status": result.status, "culprit": result.culprit,
        "subject": result.subjects.get(result.culprit) if result.culprit else None,
        "parent": result.parent, "ratio": across,
        "candidates": list(result.candidates), "skipped": list(result.skipped),
        "good": s.good, "bad": s.bad, "repo": s.repo, "commits": result.commits,
        "build_command": s.build, "benchmark_command": s.command, "metric": s.metric,
        "threshold": s.threshold, "confidence": s.confidence, "seed": s.seed,
        "budget": {"steps": result.budget.steps, "looks": list(result.budget.looks),
                   "step_looks": (list(result.budget.step_looks)
                                  if result.budget.step_looks is not None else None)},
        "executions": result.executions,
        "builds": [{"commit": b.sha, "ok": b.ok, "seconds": b.seconds, "cached": b.cached,
                    "error": b.error} for b in result.builds],
        "steps": [step_document(step) for step in result.steps],
        "subjects": dict(result.subjects), "store": result.store,
        "notes": list(result.notes)}


def _change(r: RatioInterval | None, unit) -> str:
    """The change with its CI; a zero-width CI (counts with no spread) as "+4.8% (exact)"
    (notation.change_parts)."""
    if r is None:
        return "n/a"
    return fmt_change(r.estimate, r.low, r.high, unit)


def _ratio_text(r: RatioInterval) -> str:
    if not r.bounded:
        return f"{r.estimate:.4f} [unbounded]"
    return f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]"


@renders("text", BisectResult)
def bisect_text(result: BisectResult, context: RenderContext) -> str:
    """The method, a table of steps, then the culprit (or why there is none)."""
    s = result.settings
    unit = make_unit(METRIC_UNITS[s.metric])
    b = result.budget
    looks = ", ".join(str(n) for n in b.looks)
    later = ", ".join(str(n) for n in b.step_looks or ())
    sized = f"; each later step's at {fmt_level(b.level(2))} after {later}" \
        if b.step_looks is not None else ""
    lines = [f"bisect of {plural(result.commits, 'commit')} after {s.good[:12]} (good) up to "
             f"{s.bad[:12]} (bad): {s.metric}, threshold {fmt_share(s.threshold)}",
             f"a wrong culprit has chance at most {fmt_share(1 - s.confidence)} (Bonferroni "
             f"over {plural(b.steps, 'step')} and their looks): the ends' CI at "
             f"{fmt_level(b.level(1))} after {looks} runs of each{sized}", ""]
    header = ["step", "commit", "runs", "change vs good (CI)", "", "position (CI)", "side"]
    rows = []
    for step in result.steps:
        c = step.last
        if c is None:
            rows.append([str(step.number), (step.mid or s.bad)[:12], "0", "n/a", "", "",
                         step.outcome])
        elif step.mid is None:
            rows.append([str(step.number), f"bad {s.bad[:10]}", str(c.runs),
                         _change(c.ratio, unit), VERDICT_MARKS[c.verdict], "",
                         step.outcome])
        else:
            rows.append([str(step.number), step.mid[:12], str(c.runs),
                         _change(c.vs_good, unit), VERDICT_MARKS[c.verdict],
                         _ratio_text(c.position), step.outcome])
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [c.rjust(w) if i == 2 else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines.append("change vs good: the commit's mean against the good end's in this step (the "
                 "ends: bad against good), ! beyond the threshold, ~ within it, ? not known; "
                 "position: the commit's mean over the mean of the two ends' means (below 1: "
                 "nearer the lower end)")
    lines.append("")
    if result.status == "found":
        subject = result.subjects.get(result.culprit or "", "")
        lines.append(f"culprit: {result.culprit} {subject}")
        if result.across is not None:
            lines.append(f"  against its parent {result.parent}: "
                         f"{_change(result.across, unit)} at {fmt_level(s.confidence)} "
                         f"({result.across_verdict} against {fmt_share(s.threshold)})")
    else:
        lines.append(STATUS_TEXT[result.status])
        if result.candidates:
            lines.append(f"  the change is in one of these {len(result.candidates)} commits "
                         f"(after {(result.parent or '')[:12]}):")
            for sha in result.candidates:
                mark = " (skipped)" if sha in result.skipped else ""
                lines.append(f"    {sha[:12]} {result.subjects.get(sha, '')}{mark}")
    failed = [x for x in result.builds if not x.ok]
    cached = sum(1 for x in result.builds if x.cached)
    measured = sum(1 for step in result.steps if step.executions)
    lines.append(f"  {plural(measured, 'step')}, {plural(result.executions, 'execution')}, "
                 f"{plural(len(result.builds), 'build')} ({cached} cached, {len(failed)} "
                 "failed)"
                 + (f"; store {result.store}" if result.store and context.option("kept") else ""))
    for x in failed:
        lines.append(f"  skipped {x.sha[:12]}: its build failed ({x.error})")
    for step in result.steps:
        if step.outcome == "failed":
            lines.append(f"  skipped {step.mid[:12] if step.mid else ''}: its command failed "
                         f"({step.error})")
    lines += [f"note: {n}" for n in result.notes]
    return terminal_lines(terminal(line) for line in lines) + "\n"


@renders("rows", BisectResult)
def bisect_rows(result: BisectResult, context: RenderContext) -> list[dict[str, Any]]:
    """One row per step's last look (table steps) and one for the culprit (table culprit)."""
    rows: list[dict[str, Any]] = []
    for step in result.steps:
        c = step.last
        r = None if c is None else c.ratio if step.mid is None else c.vs_good
        rows.append({"table": "steps", "group": str(step.number),
                     "term": step.mid or step.bad, "statistic": "ratio vs good",
                     "estimate": finite(r.estimate) if r else None,
                     "low": finite(r.low) if r else None, "high": finite(r.high) if r else None,
                     "level": step.level, "outcome": step.outcome,
                     "executions": step.executions})
    if result.culprit is not None:
        r = result.across
        rows.append({"table": "culprit", "group": result.parent or "", "term": result.culprit,
                     "statistic": "ratio vs parent",
                     "estimate": finite(r.estimate) if r else None,
                     "low": finite(r.low) if r else None, "high": finite(r.high) if r else None,
                     "level": result.settings.confidence, "outcome": result.across_verdict,
                     "executions": result.executions})
    return rows

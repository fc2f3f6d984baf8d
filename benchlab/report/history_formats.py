"""Text, JSON and tidy rows of `history check` (keys in docs/history.md); Markdown and
HTML come from the generic renderers of the rows (report/markdown_rows.py, html_format.py)."""

from __future__ import annotations

import math
from typing import Any

from benchlab import __version__
from benchlab.escape import terminal
from benchlab.history.check import Change, HistoryCheck
from benchlab.result import RenderContext, renders


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def _change_document(c: Change) -> dict[str, Any]:
    return {"benchmark": c.benchmark, "metric": c.metric, "machine": c.machine,
            "unit": c.unit or None, "commit": c.commit, "previous_commit": c.previous_commit,
            "ratio": {"estimate": _num(c.ratio.estimate), "low": _num(c.ratio.low),
                      "high": _num(c.ratio.high), "confidence": c.ratio.confidence,
                      "method": c.ratio.method},
            "verdict": {"outcome": c.verdict.outcome, "text": c.verdict.text,
                        "direction": c.verdict.direction, "regression": c.verdict.regression},
            "commits_before": c.commits_before, "commits_after": c.commits_after}


@renders("json", HistoryCheck)
def check_json(result: HistoryCheck, context: RenderContext) -> dict[str, Any]:
    return {"benchlab_version": __version__, "command": "history check",
            "seed": result.seed, "threshold": result.threshold, "confidence": result.confidence,
            "series": result.series, "commits": result.commits,
            "changes": [_change_document(c) for c in result.changes],
            "notes": list(result.notes)}


def _ratio_text(c: Change) -> str:
    r = c.ratio
    if r.low is None or r.high is None:
        return f"{r.estimate:.4f} [unbounded]"
    return f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]"


@renders("text", HistoryCheck)
def check_text(result: HistoryCheck, context: RenderContext) -> str:
    head = (f"{result.series} series over {result.commits} commits; changes beyond "
            f"±{100 * result.threshold:g}% at {100 * result.confidence:g}% confidence: "
            f"{len(result.changes)}")
    lines = [head]
    for c in result.changes:
        lines.append(f"  {terminal(c.benchmark)} ({terminal(c.metric)}, "
                     f"{terminal(c.machine)}): from {terminal(c.commit)} (after "
                     f"{terminal(c.previous_commit)}; {c.commits_before} commits before, "
                     f"{c.commits_after} after) ratio {_ratio_text(c)}: "
                     f"{terminal(c.verdict.text)}")
    lines += [f"note: {terminal(n)}" for n in result.notes]
    return "\n".join(lines) + "\n"


@renders("rows", HistoryCheck)
def check_rows(result: HistoryCheck, context: RenderContext) -> list[dict[str, Any]]:
    return [{"table": "changes", "benchmark": c.benchmark, "metric": c.metric,
             "machine": c.machine, "commit": c.commit, "previous_commit": c.previous_commit,
             "term": "ratio after/before", "estimate": _num(c.ratio.estimate),
             "low": _num(c.ratio.low), "high": _num(c.ratio.high),
             "confidence": c.ratio.confidence, "outcome": c.verdict.outcome,
             "direction": c.verdict.direction, "regression": c.verdict.regression,
             "commits_before": c.commits_before, "commits_after": c.commits_after}
            for c in result.changes]


@renders("markdown", HistoryCheck)
def check_markdown(result: HistoryCheck, context: RenderContext) -> str:
    """The generic table of the rows (a PR comment), under a line that says what was checked
    and followed by the notes; a line saying so when there is no change."""
    from benchlab.escape import markdown as md
    from benchlab.report.markdown_rows import rows_markdown

    head = (f"**{len(result.changes)} change{'s' if len(result.changes) != 1 else ''}** "
            f"beyond ±{100 * result.threshold:g}% at {100 * result.confidence:g}% confidence "
            f"in {result.series} series over {result.commits} commits")
    body = rows_markdown(result, context) if result.changes else ""
    notes = "".join(f"- {md(n)}\n" for n in result.notes)
    return "\n\n".join(part.rstrip("\n") for part in (head, body, notes) if part) + "\n"

"""Text, JSON, tidy rows and Markdown of `history check` (its HTML from the generic renderer
of the rows, html_format.py), every format of `history show`: a sparkline per series in
text and Markdown, its HTML timeline through the figure (report/figures/history.py), and
`history compare`: the suite of `compare --benchmark` (report/compare/suite.py) with a row per
benchmark that has no baseline. Keys in docs/history.md."""

from __future__ import annotations

from typing import Any

from benchlab.escape import terminal
from benchlab.history.check import Change, HeadPower, HistoryCheck, Transient
from benchlab.history.compare import (
    HeadWithoutBaseline,
    HistoryCompare,
    ParentOnly,
    Unbaselined,
)
from benchlab.history.show import CommitPoint, HistoryShow, SeriesView
from benchlab.notation import finite, plural
from benchlab.report.numbers import fmt_quantity
from benchlab.result import RenderContext, renders
from benchlab.units import make_unit
from benchlab.version import __version__


def _change_document(c: Change) -> dict[str, Any]:
    return {"benchmark": c.benchmark, "metric": c.metric, "machine": c.machine,
            "unit": c.unit or None, "commit": c.commit, "previous_commit": c.previous_commit,
            "ratio": {"estimate": finite(c.ratio.estimate), "low": finite(c.ratio.low),
                      "high": finite(c.ratio.high), "confidence": c.ratio.confidence,
                      "method": c.ratio.method},
            "verdict": {"outcome": c.verdict.outcome, "text": c.verdict.text,
                        "direction": c.verdict.direction, "regression": c.verdict.regression},
            "commits_before": c.commits_before, "commits_after": c.commits_after,
            "kind": c.kind, "end_commit": c.end_commit, "recent": c.recent,
            "back": None if c.back is None else _ratio_document(c.back)}


def _ratio_document(r) -> dict[str, Any]:
    return {"estimate": finite(r.estimate), "low": finite(r.low), "high": finite(r.high),
            "confidence": r.confidence, "method": r.method}


def _transient_document(t: Transient) -> dict[str, Any]:
    return {"benchmark": t.benchmark, "metric": t.metric, "machine": t.machine,
            "unit": t.unit or None, "commit": t.commit, "ratio": _ratio_document(t.ratio),
            "direction": t.verdict.direction, "text": t.verdict.text,
            "commits_compared": t.commits_compared}


def _head_document(h: HeadPower) -> dict[str, Any]:
    return {"benchmark": h.benchmark, "metric": h.metric, "machine": h.machine,
            "commits": h.commits, "spread": finite(h.spread),
            "detectable": [{"commits": k, "change": finite(d)}
                           for k, d in enumerate(h.detectable, start=1)]}


@renders("json", HistoryCheck)
def check_json(result: HistoryCheck, context: RenderContext) -> dict[str, Any]:
    return {"benchlab_version": __version__, "command": "history check",
            "seed": result.seed, "threshold": result.threshold, "confidence": result.confidence,
            "series": result.series, "commits": result.commits,
            "min_segment": result.min_segment,
            "changes": [_change_document(c) for c in result.changes],
            "transients": [_transient_document(t) for t in result.transients],
            "heads": [_head_document(h) for h in result.heads],
            "notes": list(result.notes)}


def _ratio_text(c: Change | Transient) -> str:
    return _interval(c.ratio)


def _interval(r) -> str:
    if r.low is None or r.high is None:
        return f"{r.estimate:.4f} [unbounded]"
    return f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]"


@renders("text", HistoryCheck)
def check_text(result: HistoryCheck, context: RenderContext) -> str:
    head = (f"{result.series} series over {plural(result.commits, 'commit')}; changes beyond "
            f"±{100 * result.threshold:g}% at {100 * result.confidence:g}% confidence: "
            f"{len(result.changes)}")
    lines = [head]
    for c in result.changes:
        lines.append(f"  {terminal(c.benchmark)} ({terminal(c.metric)}, "
                     f"{terminal(c.machine)}): {_where(c)} ratio {_ratio_text(c)}: "
                     f"{terminal(c.verdict.text)}")
        if c.back is not None:
            lines.append(f"    two steps, one episode: after {terminal(c.end_commit or '')} "
                         f"the level is back within ±{100 * result.threshold:g}% of before "
                         f"{terminal(c.commit)}, ratio after/before {_interval(c.back)} "
                         f"({100 * c.back.confidence:g}% CI)")
        if c.recent:
            lines.append(f"    {'possible change at the head' if c.kind == 'head' else 'recent'}"
                         f", {plural(c.commits_after, 'commit')} "
                         f"since: may still move; confirm with more commits"
                         f"{_needs(result, c)}")
    if result.transients:
        lines.append(f"transients (one-commit spikes, not changes): {len(result.transients)}")
        lines += [f"  {terminal(t.benchmark)} ({terminal(t.metric)}, {terminal(t.machine)}): "
                  f"at {terminal(t.commit)} ratio {_ratio_text(t)}: {terminal(t.verdict.text)}"
                  for t in result.transients]
    lines += [f"note: {terminal(n)}" for n in result.notes]
    return "\n".join(lines) + "\n"


TERMS = {"step": "ratio after/before", "episode": "ratio episode/around",
         "head": "ratio head/before"}


def _span(c: Change) -> str:
    """A change's commits in a line of `history show`."""
    if c.kind == "episode":
        return f"episode from {terminal(c.commit)} to {terminal(c.end_commit or '')}"
    return f"{'at the head from' if c.kind == 'head' else 'from'} {terminal(c.commit)}"


def _where(c: Change) -> str:
    """Where a change is and what it was compared with, by its kind."""
    if c.kind == "episode":
        word = "fixed at" if c.verdict.regression else "back at"
        return (f"episode from {terminal(c.commit)} to {terminal(c.end_commit or '')}, "
                f"{word} {terminal(c.end_commit or '')} ({plural(c.commits_after, 'commit')} "
                f"against the {c.commits_before} around them)")
    if c.kind == "head":
        return (f"at the head from {terminal(c.commit)} (after {terminal(c.previous_commit)}; "
                f"the last {c.commits_after} against the {c.commits_before} before)")
    return (f"from {terminal(c.commit)} (after {terminal(c.previous_commit)}; "
            f"{plural(c.commits_before, 'commit')} before, {c.commits_after} after)")


def _needs(result: HistoryCheck, c: Change) -> str:
    """The series' detectable changes at the head after 1 and HEAD_LENGTH commits."""
    for h in result.heads:
        if (h.benchmark, h.metric, h.machine) == (c.benchmark, c.metric, c.machine):
            last = len(h.detectable)
            return (f" (a change of ±{100 * h.detectable[0]:.1f}% shows after 1 commit, "
                    f"±{100 * h.detectable[-1]:.1f}% after {last}, with 80% power)")
    return ""


@renders("rows", HistoryCheck)
def check_rows(result: HistoryCheck, context: RenderContext) -> list[dict[str, Any]]:
    return [{"table": "changes", "benchmark": c.benchmark, "metric": c.metric,
             "machine": c.machine, "commit": c.commit, "previous_commit": c.previous_commit,
             "term": TERMS[c.kind], "estimate": finite(c.ratio.estimate),
             "low": finite(c.ratio.low), "high": finite(c.ratio.high),
             "confidence": c.ratio.confidence, "outcome": c.verdict.outcome,
             "direction": c.verdict.direction, "regression": c.verdict.regression,
             "commits_before": c.commits_before, "commits_after": c.commits_after,
             "kind": c.kind, "end_commit": c.end_commit, "recent": c.recent}
            for c in result.changes] + [
        {"table": "transients", "benchmark": t.benchmark, "metric": t.metric,
         "machine": t.machine, "commit": t.commit, "term": "ratio commit/around",
         "estimate": finite(t.ratio.estimate), "low": finite(t.ratio.low),
         "high": finite(t.ratio.high), "confidence": t.ratio.confidence,
         "direction": t.verdict.direction, "commits_before": t.commits_compared}
        for t in result.transients]


@renders("markdown", HistoryCheck)
def check_markdown(result: HistoryCheck, context: RenderContext) -> str:
    """The generic table of the rows (a PR comment), under a line that says what was checked
    and followed by the notes; a line saying so when there is no change."""
    from benchlab.escape import markdown as md
    from benchlab.report.markdown_format import rows_markdown

    head = (f"**{plural(len(result.changes), 'change')}** "
            f"beyond ±{100 * result.threshold:g}% at {100 * result.confidence:g}% confidence "
            f"in {result.series} series over {plural(result.commits, 'commit')}")
    body = rows_markdown(result, context) if result.changes or result.transients else ""
    notes = "".join(f"- {md(n)}\n" for n in result.notes)
    return "\n\n".join(part.rstrip("\n") for part in (head, body, notes) if part) + "\n"


# -- history show ------------------------------------------------------------------------
BLOCKS = "▁▂▃▄▅▆▇█"
WIDTH = 64  # sparkline characters at most: longer series are averaged in equal bins


def sparkline(values: list[float], marks: list[int], width: int = WIDTH) -> tuple[str, str]:
    """The values as unicode blocks (min to max of the series) and, under them, a line with
    ^ below each position in `marks`; more values than `width` are averaged in bins."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    bins = np.minimum(np.arange(x.size) * min(width, x.size) // max(x.size, 1),
                      width - 1)
    size = int(bins[-1]) + 1 if x.size else 0
    binned = np.bincount(bins, weights=x, minlength=size) / np.bincount(bins, minlength=size)
    lo, hi = (float(binned.min()), float(binned.max())) if size else (0.0, 0.0)
    span = hi - lo
    level = (np.zeros(size, dtype=int) if not span > 0 else
             np.minimum((binned - lo) / span * len(BLOCKS), len(BLOCKS) - 1).astype(int))
    under = [" "] * size
    for m in marks:
        under[int(bins[m])] = "^"
    return "".join(BLOCKS[i] for i in level), "".join(under).rstrip()


def _point_document(p: CommitPoint) -> dict[str, Any]:
    return {"commit": p.commit, "date": p.date, "mean": finite(p.mean), "low": finite(p.low),
            "high": finite(p.high), "n": p.n}


@renders("json", HistoryShow)
def show_json(result: HistoryShow, context: RenderContext) -> dict[str, Any]:
    return {"benchlab_version": __version__, "command": "history show",
            "seed": result.seed, "threshold": result.threshold, "confidence": result.confidence,
            "commits": result.commits,
            "series": [{"benchmark": v.benchmark, "metric": v.metric, "machine": v.machine,
                        "unit": v.unit or None,
                        "commits": [_point_document(p) for p in v.points],
                        "changes": [_change_document(c) for c in v.changes]}
                       for v in result.series],
            "notes": list(result.notes)}


def _marks(v: SeriesView) -> list[int]:
    where = {p.commit: i for i, p in enumerate(v.points)}
    return [where[c.commit] for c in v.changes]


def _last_mean(v: SeriesView) -> str:
    """The last commit's mean in the series' unit (times scaled to ns .. s), to the digit
    its CI's half-width justifies (report/numbers.py), 4 significant digits without one."""
    last = v.points[-1]
    half = None if last.low is None or last.high is None else (last.high - last.low) / 2
    return fmt_quantity(last.mean, make_unit(v.unit or None), half)


def _series_head(v: SeriesView) -> str:
    last = v.points[-1]
    return (f"{v.benchmark} ({v.metric}, {v.machine}): {plural(len(v.points), 'commit')} "
            f"{v.points[0].commit} .. {last.commit}, last mean {_last_mean(v)}, "
            f"{plural(len(v.changes), 'change')}")


@renders("text", HistoryShow)
def show_text(result: HistoryShow, context: RenderContext) -> str:
    lines = []
    for v in result.series:
        spark, under = sparkline([p.mean for p in v.points], _marks(v))
        lines += [terminal(_series_head(v)), f"  {spark}"]
        if under:
            lines.append(f"  {under}")
        lines += [f"  ^ {_span(c)}: ratio {_ratio_text(c)}: "
                  f"{terminal(c.verdict.text)}" for c in v.changes]
    if not result.series:
        lines.append("no series to show")
    lines.append(f"means per commit (min to max of each line, averaged over "
                 f"{WIDTH} bins when longer); ^ a change beyond "
                 f"±{100 * result.threshold:g}% at {100 * result.confidence:g}% confidence")
    lines += [f"note: {terminal(n)}" for n in result.notes]
    return "\n".join(lines) + "\n"


@renders("rows", HistoryShow)
def show_rows(result: HistoryShow, context: RenderContext) -> list[dict[str, Any]]:
    rows = []
    for v in result.series:
        starts = {c.commit for c in v.changes}
        rows += [{"table": "commits", "benchmark": v.benchmark, "metric": v.metric,
                  "machine": v.machine, "commit": p.commit, "date": p.date, "term": "mean",
                  "estimate": finite(p.mean), "low": finite(p.low), "high": finite(p.high),
                  "confidence": result.confidence, "n": p.n, "change": p.commit in starts}
                 for p in v.points]
    return rows


@renders("markdown", HistoryShow)
def show_markdown(result: HistoryShow, context: RenderContext) -> str:
    """Per series its line, the sparkline in a code span and its changes as a list."""
    from benchlab.escape import markdown as md

    parts = []
    for v in result.series:
        spark, _ = sparkline([p.mean for p in v.points], _marks(v))
        lines = [f"**{md(v.benchmark)}** ({md(v.metric)}, {md(v.machine)}): "
                 f"{plural(len(v.points), 'commit')}, last mean {md(_last_mean(v))} "
                 f"`{spark}`"]
        lines += [f"- from `{md(c.commit)}` (after `{md(c.previous_commit)}`): ratio "
                  f"{_ratio_text(c)}: {md(c.verdict.text)}" for c in v.changes]
        parts.append("\n\n".join([lines[0], "\n".join(lines[1:])]) if len(lines) > 1
                     else lines[0])
    notes = "".join(f"- {md(n)}\n" for n in result.notes)
    return "\n\n".join(p.rstrip("\n") for p in (*parts, notes) if p) + "\n"


@renders("html", HistoryShow)
def show_html(result: HistoryShow, context: RenderContext) -> str:
    """Per series a heading, its timeline (the figure as inline SVG when matplotlib is
    installed) and its changes as a table."""
    from benchlab.report.figures import svg_text
    from benchlab.report.html_format import cell, esc, table, warnings_list, wrap

    try:
        import matplotlib  # noqa: F401
        figures = True
    except ModuleNotFoundError:
        figures = False
    parts = [f"<h3>history show: {len(result.series)} series over "
             f"{plural(result.commits, 'commit')}</h3>"]
    for v in result.series:
        parts.append(f"<h4>{esc(_series_head(v))}</h4>")
        if figures:
            one = HistoryShow((v,), result.threshold, result.confidence, result.commits)
            parts.append(f"<figure>{_svg_body(svg_text(one, context))}</figure>")
        if v.changes:
            parts.append(table(["from", "after", "ratio", "verdict"], [
                [cell(c.commit), cell(c.previous_commit), cell(_ratio_text(c), cls="num"),
                 cell(c.verdict.text)] for c in v.changes]))
    parts.append(warnings_list(result.notes, "notes") if result.notes else "")
    return wrap("history", "history show", "\n".join(p for p in parts if p), context)


def _svg_body(svg: str) -> str:
    """The <svg> element of an SVG document (no XML declaration or doctype)."""
    return svg[svg.find("<svg"):]


# -- history compare ---------------------------------------------------------------------
def _unbaselined_cells(u: Unbaselined) -> list[str]:
    from benchlab.units import make_unit

    return [u.benchmark, f"{make_unit(u.unit or None, None).format(u.head_mean)}  n={u.head_n}",
            u.text]


def _unbaselined_text(rows: tuple[Unbaselined, ...]) -> list[str]:
    """One aligned row per benchmark without a baseline: name, the head's mean, why."""
    cells = [["benchmark", "head", "verdict"], *(_unbaselined_cells(u) for u in rows)]
    cells = [[terminal(c) for c in r] for r in cells]
    widths = [max(len(r[i]) for r in cells) for i in range(3)]
    return ["  ".join(c.rjust(w) if i == 1 else c.ljust(w)
                      for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
            for r in cells]


def _unbaselined_document(u: Unbaselined) -> dict[str, Any]:
    return {"benchmark": u.benchmark, "metric": u.metric, "machine": u.machine,
            "unit": u.unit or None, "head_mean": finite(u.head_mean), "head_n": u.head_n,
            "baseline_commits": u.baseline_commits, "parent_n": u.parent_n,
            "verdict": u.text}


def _parent_document(p: ParentOnly) -> dict[str, Any]:
    return {"benchmark": p.benchmark, "parent": p.parent, "parent_n": p.parent_n,
            "head_n": p.head_n, "commit_variance": None, "commits_needed": p.commits_needed}


def _spread_document(sp) -> dict[str, Any]:
    hv = sp.variance
    return {"benchmark": sp.benchmark, "baseline_commits": hv.k,
            "baseline_start": sp.baseline_start, "between_commits": finite(hv.between),
            "commit_variance": finite(hv.commit), "within_variance": finite(hv.within),
            "within_df": hv.df_within, "truncated": hv.truncated, "head_n": hv.head_n,
            "head_variance": finite(hv.variance), "pivot_df": finite(sp.df),
            "pseudo_units": sp.pseudo_n, **_noise_document(hv)}


def _noise_document(hv) -> dict[str, Any]:
    """The F test of the head's spread against the baseline's and the variance the head's
    mean used (null where there is no test: one head unit, no baseline df)."""
    noise = hv.noise
    w_head, df_head = hv.head_within
    return {"head_within_used": "head" if hv.own else "pooled",
            "head_within_variance": finite(w_head), "head_within_df": df_head,
            "head_f": None if noise is None else finite(noise.f),
            "head_f_df": None if noise is None else [noise.df_head, noise.df_baseline],
            "head_f_p": None if noise is None else finite(noise.p),
            "head_noisier": None if noise is None else noise.noisier}


@renders("json", HistoryCompare)
def head_json(result: HistoryCompare, context: RenderContext) -> dict[str, Any]:
    from benchlab.report.compare.suite import suite_document

    doc = suite_document(result)
    doc.update({"command": "history compare", "head": result.head,
                "unbaselined": [_unbaselined_document(u) for u in result.unbaselined],
                "spreads": [_spread_document(sp) for sp in result.spreads],
                "parent_only": [_parent_document(p) for p in result.parent_only]})
    return doc


@renders("text", HistoryCompare)
def head_text(result: HistoryCompare, context: RenderContext) -> str:
    """The suite's text, with the rows of the benchmarks without a baseline after its
    table."""
    from benchlab.report.compare.suite import suite_text

    text = suite_text(result)
    if not result.unbaselined:
        return text
    lines = text.split("\n")
    end = lines.index("") if "" in lines else len(lines)
    return "\n".join([*lines[:end], "", *_unbaselined_text(result.unbaselined),
                      *lines[end:]])


@renders("markdown", HistoryCompare)
def head_markdown(result: HistoryCompare, context: RenderContext) -> str:
    from benchlab.report.compare.suite import suite_markdown

    text = suite_markdown(result)
    if not result.unbaselined:
        return text
    lines = text.split("\n")
    table = next((i for i, line in enumerate(lines) if line.startswith("|")), len(lines))
    end = next((i for i in range(table, len(lines)) if not lines[i]), len(lines))
    rows = _unbaselined_markdown(result.unbaselined).rstrip("\n").split("\n")
    return "\n".join([*lines[:end], "", *rows, *lines[end:]])


def _unbaselined_markdown(rows: tuple[Unbaselined, ...]) -> str:
    from benchlab.escape import markdown as md

    lines = ["| benchmark | head | verdict |", "|---|---:|---|"]
    lines += ["| " + " | ".join(md(c) for c in _unbaselined_cells(u)) + " |" for u in rows]
    return "\n".join(lines) + "\n"


def _unbaselined_rows(rows: tuple[Unbaselined, ...]) -> list[dict[str, Any]]:
    return [{"benchmark": u.benchmark, "table": "unbaselined", "candidate": "head",
             "statistic": "mean", "estimate": finite(u.head_mean), "n": u.head_n,
             "unit": u.unit, "verdict": u.text} for u in rows]


@renders("rows", HistoryCompare)
def head_rows(result: HistoryCompare, context: RenderContext) -> list[dict[str, Any]]:
    from benchlab.report.compare.formats import suite_rows

    return suite_rows(result, context) + _unbaselined_rows(result.unbaselined)


@renders("json", HeadWithoutBaseline)
def no_baseline_json(result: HeadWithoutBaseline, context: RenderContext) -> dict[str, Any]:
    return {"benchlab_version": __version__, "command": "history compare",
            "seed": result.seed, "confidence": result.confidence,
            "threshold": result.threshold, "head": result.head, "benchmarks": [],
            "unbaselined": [_unbaselined_document(u) for u in result.unbaselined],
            "spreads": [], "parent_only": [], "notes": list(result.notes)}


@renders("text", HeadWithoutBaseline)
def no_baseline_text(result: HeadWithoutBaseline, context: RenderContext) -> str:
    head = (f"head {terminal(result.head)}: no benchmark has a baseline to compare with "
            "(an earlier commit on its branch, with 2 units or more on each side)")
    return "\n".join([head, "", *_unbaselined_text(result.unbaselined)]) + "\n"


@renders("markdown", HeadWithoutBaseline)
def no_baseline_markdown(result: HeadWithoutBaseline, context: RenderContext) -> str:
    from benchlab.escape import markdown as md

    return (f"**head {md(result.head)}**: no benchmark has a baseline to compare with\n\n"
            + _unbaselined_markdown(result.unbaselined))


@renders("rows", HeadWithoutBaseline)
def no_baseline_rows(result: HeadWithoutBaseline, context: RenderContext
                     ) -> list[dict[str, Any]]:
    return _unbaselined_rows(result.unbaselined)

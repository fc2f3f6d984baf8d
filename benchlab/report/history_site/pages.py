"""The pages of the history site: the index of every series and a page per series.

Every string from the history (benchmark, metric, machine and unit names, commit ids,
verdict texts) goes through `html_format.esc`, in text and in attributes alike; the
data the page's script draws from is JSON inside `<script type="application/json">`
with `<`, `>` and `&` written as \\u escapes, so no name can close the element. Exact
numbers ride in `data-*` attributes (repr of the float, what `history check --json`
writes), the shown ones are rounded as the text report rounds them. Nothing on a page
depends on the time it was made, so publishing the same history twice gives the same
bytes.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from urllib.parse import quote

import numpy as np

from benchlab.history.check import Change, HeadPower, Transient
from benchlab.history.publish import SeriesHistory, SiteData
from benchlab.notation import fmt_change, fmt_level, plural
from benchlab.report.history_site.chart import overview, shown_text, sparkline, verdict_class
from benchlab.report.history_site.check_pages import index_section, series_section
from benchlab.report.html_format import esc, exact
from benchlab.report.numbers import fmt_quantity
from benchlab.units import Unit, make_unit
from benchlab.version import __version__

ASSETS = ("site.css", "site.js")  # copied from the package's assets/ into DIR/assets/
COMMITS = "commits.js"
UNIT_DIGITS = 6  # a unit's mean as a dot of the detail chart: 6 significant digits (the size)
KIND_WORDS = {"step": "step", "episode": "episode", "head": "change at the head"}


@dataclass(frozen=True)
class Options:
    """What the command line adds to the data: the site's title and the commit link
    template (`{sha}` replaced by the commit's id, URL-quoted; None: no links)."""

    title: str = "benchlab history"
    commit_url: str | None = None


def page_name(s: SeriesHistory) -> str:
    """The series' page, relative to the site: readable, safe on every file system, and
    unique (a hash of the exact key: names that differ only by case or by characters
    replaced here get different pages)."""
    def part(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:40] or "_"

    digest = hashlib.sha256(json.dumps(list(s.key)).encode()).hexdigest()[:10]
    return f"series/{part(s.benchmark)}-{part(s.metric)}-{part(s.machine)}-{digest}.html"


def commit_link(template: str | None, sha: str, text: str | None = None, prefix: str = ""
                ) -> str:
    """The commit's id (shortened to 12 characters, the whole id in its title), a link when
    there is a template."""
    shown = shown_text(text if text is not None else sha[:12])
    if template is None:
        return f'<code title="{shown_text(sha)}">{shown}</code>'
    href = template.replace("{sha}", quote(sha, safe=""))
    return (f'<a class="commit" href="{esc(href)}" title="{shown_text(sha)}"><code>{shown}'
            '</code></a>')


def script_json(value: object) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` (written as \\u escapes), and
    ASCII only (a control or a bidirectional override in a name is an escape in the file)."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _unit(s: SeriesHistory) -> Unit:
    return make_unit(s.unit or None, s.higher_is_better)


def _mean_text(s: SeriesHistory, i: int) -> str:
    lo, hi = s.low[i], s.high[i]
    half = (hi - lo) / 2 if np.isfinite(lo) and np.isfinite(hi) else None
    return fmt_quantity(float(s.mean[i]), _unit(s), half)


VERDICT_WORDS = {"worse": "regression", "better": "improvement", "change": "change",
                 "none": "no change"}
VERDICT_ORDER = {"worse": 0, "change": 1, "better": 2, "none": 3}


def _change_text(c: Change, unit: Unit) -> str:
    """The change in words with its CI ("+5.0% (+4.5% .. +5.6%)"), as HTML text."""
    return shown_text(fmt_change(c.ratio.estimate, c.ratio.low, c.ratio.high, unit))


def _ratio(r) -> str:
    if r.low is None or r.high is None:
        return f"{r.estimate:.4f} [unbounded]"
    return f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]"


def _ratio_attrs(r, prefix: str = "") -> str:
    return (f' data-{prefix}estimate="{exact(r.estimate)}" data-{prefix}low="{exact(r.low)}" '
            f'data-{prefix}high="{exact(r.high)}" data-{prefix}confidence="{exact(r.confidence)}"')


def page_head(title: str, depth: str) -> str:
    """A page's doctype and head: its title and the site's style at `depth` ("" or "../")."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"benchlab {esc(__version__)}\">"
            f"<title>{shown_text(title)}</title>"
            f"<link rel=\"stylesheet\" href=\"{depth}assets/site.css\"></head>\n")


def _settings(data: SiteData) -> str:
    return (f"changes beyond ±{100 * data.threshold:g}% at {fmt_level(data.confidence)} "
            f"confidence, as <code>benchlab history check --threshold "
            f"{100 * data.threshold:g}% -c {100 * data.confidence:g} --seed {data.seed} "
            f"--min-segment {data.min_segment}</code> finds them")


# -- the index ---------------------------------------------------------------------------
def _index_row(s: SeriesHistory, data: SiteData, options: Options) -> str:
    f = s.findings
    last = f.changes[-1] if f.changes else None
    css = verdict_class(last)
    n = s.mean.size
    shas = [data.commits[i].sha for i in s.at.tolist()]
    where = {sha: i for i, sha in enumerate(shas)}
    mark = where[last.commit] if last is not None else None
    link = page_name(s)
    cells = [
        f'<td class="name" data-sort="{shown_text(s.benchmark)}"><a href="{esc(link)}">'
        f'{shown_text(s.benchmark)}</a></td>',
        f'<td class="name" data-sort="{shown_text(s.metric)}">{shown_text(s.metric)}</td>',
        f'<td class="name" data-sort="{shown_text(s.machine)}">{shown_text(s.machine)}</td>',
        f'<td class="num" data-sort="{n}">{n}</td>',
        f'<td class="num" data-sort="{exact(float(s.mean[-1]))}">{shown_text(_mean_text(s, n - 1))}'
        '</td>',
        f'<td class="trend">{sparkline(s.mean, mark, css)}</td>']
    if last is None:
        cells += ['<td data-sort="">—</td>', '<td class="num" data-sort="">—</td>']
    else:
        since = n - where[last.commit]
        cells += [
            f'<td class="latest" data-sort="{where[last.commit]}" data-kind="{last.kind}" '
            f'data-commit="{esc(last.commit)}"{_ratio_attrs(last.ratio)}>'
            f'{esc(KIND_WORDS[last.kind])} at '
            f'{commit_link(options.commit_url, last.commit)}: '
            f'{_change_text(last, _unit(s))}</td>',
            f'<td class="num" data-sort="{since}">{since}</td>']
    cells += [f'<td class="verdict {css}" data-sort="{VERDICT_ORDER[css]}">'
              f'{esc(VERDICT_WORDS[css])}{_verdict_note(last, options)}</td>',
              f'<td class="num" data-sort="{len(f.changes)}">{len(f.changes)}</td>']
    return f'<tr data-verdict="{css}">{"".join(cells)}</tr>'


def _verdict_note(last: Change | None, options: Options) -> str:
    """What the index adds to a verdict, as the series page's changes table says it: an
    episode is over (the level is back from its end commit on), a change is recent."""
    if last is None:
        return ""
    over = ""
    if last.kind == "episode" and last.end_commit is not None:
        over = f", over: back at {commit_link(options.commit_url, last.end_commit)}"
    return f'{" (recent)" if last.recent else ""}{over}'


INDEX_HEADERS = ("benchmark", "metric", "machine", "commits", "last mean", "trend",
                 "latest change", "commits since", "verdict", "changes")


def index_page(data: SiteData, options: Options) -> str:
    """Every series: a row with its sparkline, latest change and verdict, sortable and
    filterable by the site's script."""
    last = data.commits[-1] if data.commits else None
    heads = "".join(
        f'<th scope="col"{"" if h == "trend" else " data-sortable"}>{esc(h)}</th>'
        for h in INDEX_HEADERS)
    rows = "\n".join(_index_row(s, data, options) for s in data.series)
    counts = {k: sum(verdict_class(s.findings.changes[-1] if s.findings.changes else None)
                     == k for s in data.series) for k in VERDICT_WORDS}
    latest = "" if last is None else (
        f"; latest commit {commit_link(options.commit_url, last.sha)}"
        f"{f' ({shown_text(last.date)})' if last.date else ''}")
    notes = [n for s in data.series if s.findings.note for n in [s.findings.note]]
    return "".join([
        page_head(options.title, ""),
        '<body class="index">\n',
        f'<h1>{shown_text(options.title)}</h1>\n',
        f'<p class="meta">{plural(len(data.series), "series", "series")} over '
        f'{plural(len(data.commits), "commit")}{latest}. {_settings(data)}.</p>\n',
        '<p class="meta">latest change per series: '
        + ", ".join(f'<span class="tag {k}">{VERDICT_WORDS[k]}: {counts[k]}</span>'
                    for k in VERDICT_WORDS) + '</p>\n',
        '<form class="filters" role="search" onsubmit="return false">'
        '<label>filter <input id="filter" type="search" placeholder="benchmark, metric or '
        'machine" autocomplete="off"></label> <label>verdict <select id="verdict-filter">'
        '<option value="">any</option><option value="worse">regression</option>'
        '<option value="better">improvement</option><option value="change">change</option>'
        '<option value="none">no change</option></select></label> '
        '<span id="shown" aria-live="polite"></span></form>\n',
        f'<table class="series sortable" id="series"><thead><tr>{heads}</tr></thead>\n'
        f'<tbody>\n{rows}\n</tbody></table>\n',
        index_section(data, lambda sha: commit_link(options.commit_url, sha)),
        "".join(f'<p class="note">note: {shown_text(n)}</p>\n' for n in notes),
        f'<p class="foot">published by benchlab {esc(__version__)} '
        '(<code>benchlab history publish</code>); no request leaves these files.</p>\n',
        '<script src="assets/site.js"></script>\n</body></html>\n'])


# -- a series' page ----------------------------------------------------------------------
def _change_row(c: Change, where: dict[str, int], options: Options, unit: Unit) -> str:
    css = verdict_class(c)
    end = c.end_commit
    cells = [
        f'<td>{esc(KIND_WORDS[c.kind])}{" (recent)" if c.recent else ""}</td>',
        f'<td>{commit_link(options.commit_url, c.commit)}</td>',
        f'<td>{commit_link(options.commit_url, c.previous_commit)}</td>',
        f'<td>{commit_link(options.commit_url, end) if end is not None else "—"}</td>',
        f'<td class="num ratio"{_ratio_attrs(c.ratio)}>{esc(_ratio(c.ratio))}</td>',
        f'<td class="num">{_change_text(c, unit)}</td>',
        f'<td class="num">{c.commits_before} / {c.commits_after}</td>',
        f'<td class="verdict {css}">{shown_text(c.verdict.text)}</td>']
    if c.back is not None:
        cells[-1] = (f'<td class="verdict {css}"{_ratio_attrs(c.back, "back-")}>'
                     f'{shown_text(c.verdict.text)}<br><span class="muted">back at the '
                     f'level before it: ratio after/before {esc(_ratio(c.back))}</span></td>')
    return (f'<tr class="change-row" data-kind="{c.kind}" data-commit="{esc(c.commit)}" '
            f'data-start="{where[c.commit]}" data-end="{"" if end is None else where[end]}">'
            f'{"".join(cells)}</tr>')


def _changes_table(s: SeriesHistory, where: dict[str, int], options: Options) -> str:
    if not s.findings.changes:
        return '<p class="muted">no change beyond the threshold.</p>'
    rows = "\n".join(_change_row(c, where, options, _unit(s)) for c in s.findings.changes)
    return ('<table class="changes"><thead><tr><th>kind</th><th>from commit</th>'
            '<th>after commit</th><th>ends at</th><th>ratio [CI]</th><th>change</th>'
            '<th>commits before / after</th><th>verdict</th></tr></thead>\n'
            f'<tbody>\n{rows}\n</tbody></table>')


def _transients_table(items: tuple[Transient, ...], options: Options) -> str:
    if not items:
        return ""
    rows = "\n".join(
        f'<tr class="transient-row" data-commit="{esc(t.commit)}">'
        f'<td>{commit_link(options.commit_url, t.commit)}</td>'
        f'<td class="num ratio"{_ratio_attrs(t.ratio)}>{esc(_ratio(t.ratio))}</td>'
        f'<td class="num">{t.commits_compared}</td><td>{shown_text(t.verdict.text)}</td></tr>'
        for t in items)
    return ('<h2>Transients</h2><p class="muted">one-commit spikes, never a change: each '
            "commit against the other commits of its segment.</p>"
            '<table class="transients"><thead><tr><th>commit</th><th>ratio [CI]</th>'
            '<th>commits compared</th><th>verdict</th></tr></thead>\n'
            f'<tbody>\n{rows}\n</tbody></table>')


def _head_power(h: HeadPower | None) -> str:
    if h is None:
        return ""
    steps = ", ".join(f"±{100 * d:.1f}% after {k}" for k, d in enumerate(h.detectable, 1))
    return (f'<h2>The head</h2><p class="head-power" data-spread="{exact(h.spread)}">'
            f"{plural(h.commits, 'commit')} at the level of the head (those since the last step, "
            f"less episodes and spikes), a commit's mean spread "
            f"{100 * h.spread:.2f}%: a change shows with 80% power at {esc(steps)} "
            "commits.</p>")


def series_data(s: SeriesHistory) -> dict:
    """What the page's script draws from: per commit its position in commits.js, units,
    mean and CI (exact: `history show --json`'s numbers) and the units' means (dots, to
    UNIT_DIGITS significant digits, which keeps a page of 1,000 commits × 5 runs near 150
    kB); the changes and transients by series index."""
    unit = _unit(s)
    name, factor = unit.display(float(np.nanmedian(np.abs(s.mean))) if s.mean.size else 0.0)
    return {
        "benchmark": s.benchmark, "metric": s.metric, "machine": s.machine,
        "unit": name or "", "factor": factor,
        "commits": [[int(i), int(k), _num(m), _num(lo), _num(hi),
                     [_num(float(f"{v:.{UNIT_DIGITS}g}")) for v in r.tolist()]]
                    for i, k, m, lo, hi, r in zip(s.at.tolist(), s.n.tolist(), s.mean.tolist(),
                                                  s.low.tolist(), s.high.tolist(), s.runs,
                                                  strict=True)],
    }


def series_page(s: SeriesHistory, data: SiteData, options: Options) -> str:
    """One series: its overview chart, the detail the script draws of the brushed window
    with the table of its commits, its changes, transients and head."""
    shas = [data.commits[i].sha for i in s.at.tolist()]
    where = {sha: i for i, sha in enumerate(shas)}
    f = s.findings
    unit = _unit(s)
    n = s.mean.size
    doc = series_data(s)
    doc["changes"] = [{"kind": c.kind, "start": where[c.commit],
                       "end": None if c.end_commit is None else where[c.end_commit],
                       "css": verdict_class(c)} for c in f.changes]
    doc["transients"] = [where[t.commit] for t in f.transients]
    chart = overview(s.mean, s.low, s.high, shas, f.changes, doc["transients"], unit)
    title = f"{s.benchmark} ({s.metric}, {s.machine})"
    note = f'<p class="note">note: {shown_text(f.note)}</p>' if f.note else ""
    link = esc(options.commit_url or "")
    return "".join([
        page_head(f"{title} · {options.title}", "../"),
        f'<body class="series-page" data-commit-url="{link}">\n',
        f'<nav><a href="../index.html">← {shown_text(options.title)}</a></nav>\n',
        f'<h1 class="name">{shown_text(s.benchmark)}</h1>\n',
        f'<p class="meta">metric <b class="name">{shown_text(s.metric)}</b> · machine '
        f'<b class="name">{shown_text(s.machine)}</b> · unit {shown_text(s.unit or "none")} · '
        f'{plural(n, "commit")} from {commit_link(options.commit_url, shas[0])} to '
        f'{commit_link(options.commit_url, shas[-1])} · last mean '
        f'{shown_text(_mean_text(s, n - 1))} · {plural(len(f.changes), "change")}. '
        f'{_settings(data)}.</p>\n{note}\n',
        '<h2>Every commit</h2>\n<p class="muted">each commit\'s mean (line) and its '
        f"{fmt_level(data.confidence)} CI (band); a line at each step, a band over each "
        "episode and change at the head (dark red: worse, blue: better), a dot at each "
        "transient. Drag across the chart to show that window below.</p>\n",
        f'<figure class="chart">{chart}</figure>\n',
        '<div class="controls"><button type="button" data-window="all">all commits</button> '
        '<button type="button" data-window="200">last 200</button> '
        '<button type="button" data-window="50">last 50</button> '
        '<span id="window" aria-live="polite"></span></div>\n',
        '<figure class="chart"><svg id="detail" class="detail" viewBox="0 0 960 300" '
        'width="960" height="300" role="img" aria-label="the commits in the window: each '
        'unit (dots), the mean and its CI"></svg></figure>\n',
        '<noscript><p class="note">The detail chart and the table of commits need '
        'JavaScript; the overview above and the tables below do not.</p></noscript>\n',
        f"<h2>Changes</h2>\n{_changes_table(s, where, options)}\n",
        _transients_table(f.transients, options), "\n",
        _head_power(f.head), "\n",
        series_section(s, data),
        '<h2>Commits in the window</h2>\n<table class="commits" id="commits"><thead><tr>'
        '<th>#</th><th>commit</th><th>date</th><th>units</th><th>mean</th><th>CI low</th>'
        '<th>CI high</th></tr></thead><tbody></tbody></table>\n',
        f'<script type="application/json" id="series-data">{script_json(doc)}</script>\n',
        f'<script src="../{COMMITS}"></script>\n<script src="../assets/site.js"></script>\n'
        '</body></html>\n'])


def commits_script(data: SiteData) -> str:
    """commits.js: every commit's id and date, oldest first (the pages index into it)."""
    rows = [[c.sha, c.date] for c in data.commits]
    return f"window.BENCHLAB_COMMITS = {script_json(rows)};\n"

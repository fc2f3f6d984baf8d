"""The PR-check pages of the history site: a page per stored `history compare --store`,
the index's "PR checks" section and each series page's list of the checks of it.

A check is shown as it was stored (history/checks.py): every ratio and bound is the one
`history compare --json` printed, exact in `data-*` attributes and rounded in the text as
the text report rounds it; every string goes through `html_format.esc`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable

from benchlab.history.checks import CheckRow, StoredCheck
from benchlab.history.publish import SeriesHistory, SiteData
from benchlab.notation import fmt_change, fmt_level, plural
from benchlab.report.history_site.chart import shown_text
from benchlab.report.html_format import esc, exact
from benchlab.units import make_unit

WORDS = {"worse": "regression", "better": "improvement", "change": "change",
         "none": "no change"}
ORDER = {"worse": 0, "change": 1, "better": 2, "none": 3}
Link = Callable[[str], str]  # a commit's id as the site shows it (pages.commit_link)


def check_page_name(check: StoredCheck) -> str:
    """The check's page, relative to the site: readable, safe on every file system, unique
    (a hash of its head and machine)."""
    def part(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("._")[:40] or "_"

    digest = hashlib.sha256(json.dumps([check.head, check.machine]).encode()).hexdigest()[:10]
    return f"checks/{part(check.head)}-{part(check.machine)}-{digest}.html"


def worst(check: StoredCheck) -> str:
    """The check's most serious judgement (worse, change, better, none)."""
    return min((r.judgement for r in check.rows), key=ORDER.__getitem__, default="none")


def _counts(check: StoredCheck) -> str:
    found = {k: sum(r.judgement == k for r in check.rows) for k in WORDS}
    return ", ".join(f"{WORDS[k]}: {n}" for k, n in found.items() if n)


def _ratio_cell(row: CheckRow, unit_of: dict) -> str:
    if row.estimate is None:
        return '<td class="num" data-sort="">—</td><td class="num">—</td>'
    bounds = ("[unbounded]" if row.low is None or row.high is None
              else f"[{row.low:.4f}, {row.high:.4f}]")
    unit = unit_of.get(row.name, make_unit(None, None))
    return (f'<td class="num ratio" data-sort="{exact(row.estimate)}" '
            f'data-estimate="{exact(row.estimate)}" data-low="{exact(row.low)}" '
            f'data-high="{exact(row.high)}" data-level="{exact(row.level)}">'
            f'{esc(f"{row.estimate:.4f}")} {esc(bounds)}</td>'
            f'<td class="num">{shown_text(fmt_change(row.estimate, row.low, row.high, unit))}'
            '</td>')


def _settings(check: StoredCheck) -> str:
    s = check.settings
    metrics = s.get("metrics")
    return (f"changes beyond ±{100 * check.threshold:g}% at "
            f"{fmt_level(check.confidence)} confidence, family-wise over the benchmarks "
            f"(Holm), as <code>benchlab history compare --head {shown_text(check.head)} "
            f"--threshold {100 * check.threshold:g}% -c {100 * check.confidence:g} "
            f"--seed {shown_text(check.seed)}"
            f"{' --metric ' + shown_text(','.join(metrics)) if metrics else ''}</code> "
            "compared them")


def check_page(check: StoredCheck, data: SiteData, title: str, link: Link,
               head: Callable[[str, str], str], pages: dict) -> str:
    """One stored check: its head, machine, when and how it was recorded, the geometric
    mean, a row per benchmark (linked to its series' page), and its notes."""
    doc = check.document
    unit_of = {b["benchmark"]: make_unit(b.get("unit"), b.get("higher_is_better"))
               for b in doc.get("benchmarks", [])}
    rows = []
    for r in check.rows:
        page = pages.get(r.key)
        name = (f'<a href="../{esc(page)}">{shown_text(r.name)}</a>' if page
                else shown_text(r.name))
        if r.baseline is None:
            base = "—"
        elif r.baseline_commits == 1:
            base = f"parent {link(r.baseline)}"
        else:
            base = f"{r.baseline_commits} commits from {link(r.baseline)}"  # 2 or more
        rows.append(
            f'<tr class="check-row" data-judgement="{r.judgement}" '
            f'data-benchmark="{shown_text(r.benchmark)}" data-metric="{shown_text(r.metric)}" '
            f'data-machine="{shown_text(r.machine)}">'
            f'<td class="name" data-sort="{shown_text(r.name)}">{name}</td>'
            f'<td class="name">{shown_text(r.metric)}</td>'
            f'<td class="name">{shown_text(r.machine)}</td><td>{base}</td>'
            f'{_ratio_cell(r, unit_of)}'
            f'<td class="verdict {r.judgement}" data-sort="{ORDER[r.judgement]}">'
            f'{shown_text(r.verdict)}</td></tr>')
    geo = ""
    for g in doc.get("geometric_means", []):
        est, low, high = (g.get(k) for k in ("estimate", "low", "high"))
        shown = ("n/a" if est is None else f"{est:.4f}" + (
            " [unbounded]" if low is None or high is None else f" [{low:.4f}, {high:.4f}]"))
        count = plural(int(g.get("benchmarks", 0)), "benchmark")
        geo += (f'<p class="geomean" data-estimate="{exact(est)}" data-low="{exact(low)}" '
                f'data-high="{exact(high)}">geometric mean of the ratios over {count}: '
                f'{esc(shown)} at {fmt_level(check.confidence)} confidence</p>\n')
    notes = "".join(f'<p class="note">note: {shown_text(n)}</p>\n'
                    for n in doc.get("notes", []))
    heading = f"PR check of {check.head[:12]} on {check.machine}"
    return "".join([
        head(f"{heading} · {title}", "../"),
        '<body class="check-page">\n',
        f'<nav><a href="../index.html">← {shown_text(title)}</a></nav>\n',
        f'<h1>PR check of {link(check.head)}</h1>\n',
        f'<p class="meta">machine <b class="name">{shown_text(check.machine)}</b> · recorded '
        f'{shown_text(check.recorded)} · {plural(len(check.rows), "benchmark")}'
        f'{" (" + esc(_counts(check)) + ")" if check.rows else ""}. '
        f'{_settings(check)}.</p>\n',
        geo,
        '<table class="check sortable" id="check"><thead><tr>'
        '<th scope="col" data-sortable>benchmark</th><th scope="col">metric</th>'
        '<th scope="col">machine</th><th scope="col">baseline</th>'
        '<th scope="col" data-sortable>ratio head/baseline [CI]</th>'
        '<th scope="col">change</th><th scope="col" data-sortable>verdict</th></tr></thead>\n'
        f'<tbody>\n{chr(10).join(rows)}\n</tbody></table>\n',
        '<p class="muted">each ratio\'s CI is at the level of its verdict\'s decision '
        "(family-wise, Holm), as <code>history compare --json</code>'s "
        "<code>decisions</code> give it.</p>\n",
        notes,
        '<script src="../assets/site.js"></script>\n</body></html>\n'])


def index_section(data: SiteData, link: Link) -> str:
    """The index's "PR checks": a row per stored check, linked to its page ("" without)."""
    if not data.checks:
        return ""
    rows = []
    for c in data.checks:
        css = worst(c)
        rows.append(
            f'<tr data-verdict="{css}"><td data-sort="{shown_text(c.head)}">'
            f'<a class="check" href="{esc(check_page_name(c))}">'
            f'{shown_text(c.head[:12])}</a></td>'
            f'<td class="name" data-sort="{shown_text(c.machine)}">{shown_text(c.machine)}</td>'
            f'<td data-sort="{shown_text(c.recorded)}">{shown_text(c.recorded)}</td>'
            f'<td class="num" data-sort="{len(c.rows)}">{len(c.rows)}</td>'
            f'<td class="verdict {css}" data-sort="{ORDER[css]}">'
            f'{esc(_counts(c) or "no benchmark")}</td></tr>')
    return ('<h2 id="pr-checks">PR checks</h2>\n<p class="muted">each head commit '
            "compared with its branch's baseline by <code>benchlab history compare "
            "--store</code>, as it was recorded.</p>\n"
            '<table class="checks sortable" id="checks"><thead><tr>'
            '<th scope="col" data-sortable>head</th><th scope="col" data-sortable>machine</th>'
            '<th scope="col" data-sortable>recorded</th>'
            '<th scope="col" data-sortable>benchmarks</th>'
            '<th scope="col" data-sortable>verdicts</th></tr></thead>\n'
            f'<tbody>\n{chr(10).join(rows)}\n</tbody></table>\n')


def series_section(s: SeriesHistory, data: SiteData) -> str:
    """A series page's "PR checks": each stored check with a row of this series, its
    ratio and verdict ("" when none concerns it)."""
    rows = []
    for c in data.checks:
        for r in c.rows:
            if r.key != s.key:
                continue
            ratio = ("—" if r.estimate is None else
                     f"{r.estimate:.4f} [unbounded]" if r.low is None or r.high is None
                     else f"{r.estimate:.4f} [{r.low:.4f}, {r.high:.4f}]")
            rows.append(
                f'<tr class="check-link" data-judgement="{r.judgement}">'
                f'<td><a class="check" href="../{esc(check_page_name(c))}">'
                f'<code>{shown_text(c.head[:12])}</code></a></td>'
                f'<td>{shown_text(c.recorded)}</td>'
                f'<td class="num" data-estimate="{exact(r.estimate)}" data-low="{exact(r.low)}" '
                f'data-high="{exact(r.high)}" data-level="{exact(r.level)}">{esc(ratio)}</td>'
                f'<td class="verdict {r.judgement}">{shown_text(r.verdict)}</td></tr>')
    if not rows:
        return ""
    return ('<h2>PR checks</h2>\n<table class="checks"><thead><tr><th>head</th>'
            '<th>recorded</th><th>ratio head/baseline [CI]</th><th>verdict</th></tr></thead>\n'
            f'<tbody>\n{chr(10).join(rows)}\n</tbody></table>\n')

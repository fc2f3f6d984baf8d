"""The page `benchlab report` writes: one self-contained HTML file (docs/report.md).

Everything is inline — CSS, SVG figures, a few lines of JavaScript that sort the
headline table — and nothing is fetched: the file reads the same offline, in a
mail attachment or years later. Its parts, top to bottom:

- for a store analysed by its design, the line saying how (as `compare STORE`'s
  note);
- the headline table of every comparison (benchmark, baseline, candidate,
  ratio, the CI its verdict was read from with that CI's level and method,
  verdict with its direction), sortable by any column, each benchmark's name a
  link to its section (ids made from the names: `section_ids`, stable across
  runs of the same suite);
- "how to read this page": what the CI, the verdict, Holm's adjustment and the
  variance shares mean, said for this page's level and threshold, with links to
  the docs pages (`docs_href`);
  verdict colours differ in lightness and every verdict has a symbol and a
  word, so it reads in grey and without colour;
- for a suite, the geometric means (and the suite's figure when one is
  registered);
- per benchmark (or the one comparison) a section with its id (a link to
  itself, one back to the headline): its distributions on its own axis — for
  up to FIGURE_LIMIT benchmarks compare's whole figure, for more the small
  panel of report/figures/distribution.py, without matplotlib the light strip
  plot of report/figures/strip.py and a warning —, its tables (samples,
  comparisons, variance shares per level for hierarchical data, warnings)
  and, for a store, the run-order plot;
- for each store, the machine's environment record per session, with its
  warnings (a run on Dask: the machines side by side, differing values marked ≠);
- a provenance footer: benchlab's version, the command line, every input with
  its SHA-256, the seed, the date, and the analysis specification in one line
  (what the JSON keeps under `analysis`).

Data-borne text is escaped by the section renderers (report/html_format.py's machinery,
report/compare/html.py).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchlab.notation import fmt_level, fmt_share, plural
from benchlab.report import html_format as hf
from benchlab.report.compare.html import compare_body, geomean_table, headline_table, suite_warnings
from benchlab.report.figures.run_order import RunOrder, run_order_svg
from benchlab.report.figures.strip import strip_svg
from benchlab.result import RenderContext
from benchlab.stats.compare import CompareResult
from benchlab.stats.spec import AnalysisSpec, statistic_of
from benchlab.stats.suite import SuiteResult
from benchlab.version import __version__

# Sorting by a header click: numbers by their exact data-sort value, text otherwise;
# a second click reverses. aria-sort tells assistive technology and the CSS arrow.
SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.tabIndex = 0;
  function sort() {
    var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
    var asc = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    function key(row) {
      var c = row.cells[i], v = c.getAttribute("data-sort");
      if (v === null) { v = c.textContent; }
      var n = Number(v);
      return v !== "" && !isNaN(n) ? n : v;
    }
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a), y = key(b), d;
      if (typeof x === "number" && typeof y === "number") { d = x - y; }
      else if (typeof x === "number") { d = -1; } else if (typeof y === "number") { d = 1; }
      else { d = String(x).localeCompare(String(y)); }
      return asc ? d : -d;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  th.addEventListener("click", sort);
  th.addEventListener("keydown", function (e) { if (e.key === "Enter") { sort(); } });
});
"""

PAGE_STYLE = """
body{margin:0 auto;max-width:1100px;padding:1em 1.5em}
.benchlab h1{font-size:1.6em;margin:.3em 0}
.benchlab section.bench{border-top:2px solid #ccc;margin-top:1.5em}
.benchlab footer{border-top:2px solid #ccc;margin-top:2em;padding-top:.5em;font-size:.9em}
.benchlab code{font-size:.95em;word-break:break-all}
.benchlab section.bench h2 a.self{color:#777;text-decoration:none;font-weight:normal}
.benchlab p.back{margin:.2em 0;font-size:.9em}
.benchlab section.how{background:#f6f6f6;padding:.2em 1em .6em;margin:1em 0}
.benchlab section.how dt{font-weight:bold;margin-top:.4em}
.benchlab section.how dd{margin:0 0 0 1.2em}
"""

# The docs beside the package (a source checkout); a page links its explanations there
# and names the page in words too, so an installation without them still says where to read.
DOCS = Path(__file__).resolve().parents[2] / "docs"


# Up to this many benchmarks each gets compare's whole matplotlib figure (distributions
# beside the ratio CIs, about 0.15 s each); a larger suite gets the distribution panel
# alone, drawn on one reused figure (about 20 ms of CPU each), so that a 50-benchmark
# report stays within its budget (benchmarks/report.py).
FIGURE_LIMIT = 10


@dataclass(frozen=True)
class StoreRecord:
    """What a `benchlab run` store adds to the page: its sessions (argv, environment,
    warnings) and its run-order plots, keyed by benchmark (None: the whole store)."""

    path: str
    sessions: list[dict[str, Any]]
    run_orders: list[RunOrder] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)  # benchlab_meta: [machines]' role
    # counter = "callgrind": each alternative's profile-diff against the baseline
    # (data/profile_diff.py), or why there is none although profiles were kept
    profiles: tuple[Any, ...] = ()
    profiles_note: str | None = None


@dataclass(frozen=True)
class PageInput:
    """The analysis and what the page shows beside it.

    samples: per benchmark (None for a comparison that is not a suite) the samples
    as (name, values), which the distribution figures draw.
    """

    result: CompareResult | SuiteResult
    samples: dict[str | None, list[tuple[str, Any]]]
    stores: Sequence[StoreRecord] = ()
    title: str = "benchlab report"
    figures: bool = True
    date: str | None = None
    figure_limit: int = FIGURE_LIMIT
    metric: str | None = None  # the metric analysed, when the page shows several
    metrics: tuple[PageInput, ...] = ()  # the other metrics' analyses: a section each
    overview: Any = None  # several metrics: their PerMetric, for the side-by-side table


def figure_html(result: Any, context: RenderContext) -> str:
    """The result's figure as inline SVG, or "" when report/figures has none for it."""
    from benchlab.report import figures

    if not figures.has_figure(result):
        return ""
    try:
        svg = figures.svg_text(result, context)
    except ModuleNotFoundError as exc:  # matplotlib is an extra: the page works without it
        return f'<p class="muted">figure left out: {hf.esc(exc)}</p>'
    start = svg.find("<svg")
    return f'<figure class="figure">{svg[start:] if start >= 0 else svg}</figure>'


def section_ids(names: Sequence[str | None]) -> list[str]:
    """The id of each benchmark's section: "bench-" and the name with every run of
    characters outside [A-Za-z0-9_.-] made one "-" (at most 60 of them), "-2", "-3", ...
    after a repeat; "comparison" for the one comparison that is not a suite. The same
    names give the same ids, so a link to page.html#bench-NAME keeps working."""
    ids: list[str] = []
    taken: set[str] = set()
    for k, name in enumerate(names):
        if name is None:
            base = "comparison"
        else:
            slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")[:60]
            base = f"bench-{slug}" if slug else f"bench-{k + 1}"
        anchor, n = base, 1
        while anchor in taken:
            n += 1
            anchor = f"{base}-{n}"
        taken.add(anchor)
        ids.append(anchor)
    return ids


def _figure(anchor: str, bench: str | None, result: CompareResult, page: PageInput,
            context: RenderContext, panels: Any) -> str:
    """The benchmark's distributions on its own axis: compare's whole figure (with the
    ratio CIs) for a page of up to `figure_limit` benchmarks, else the small panel of
    report/figures/distribution.py; the light strip plot without matplotlib (`panels`
    None). `data-scale` says whether the axis is logarithmic."""
    samples = page.samples.get(bench, [])
    title = "the comparison" if bench is None else f"benchmark {bench}"
    if panels is None:
        return (f'<figure class="figure strip">{strip_svg(result, samples, title)}</figure>'
                if samples else "")
    from benchlab.report.figures import distribution

    if len(page.samples) <= page.figure_limit:
        svg = figure_html(result, replace(context, options={
            **context.options, "samples": samples, "fragment": True, "gid": anchor}))
        svg = svg.removeprefix('<figure class="figure">').removesuffix("</figure>")
        log = distribution.log_axis(distribution.rows_of(result, samples))
    else:
        svg, log = panels.svg(result, samples, anchor)
    scale = "log" if log else "linear"
    return (f'<figure class="figure panel" data-panel="{hf.esc(anchor)}" '
            f'data-scale="{scale}">{svg}</figure>')


def _bench_section(anchor: str, bench: str | None, result: CompareResult, page: PageInput,
                   context: RenderContext, panels: Any) -> str:
    """One benchmark's part: heading (a link to itself), figure, tables, run-order plots."""
    title = "the comparison" if bench is None else f"benchmark {bench}"
    parts = [f'<section class="bench" id="{hf.esc(anchor)}"><h2>{hf.esc(title)} '
             f'<a class="self" href="#{hf.esc(anchor)}" title="link to this section">#</a>'
             '</h2><p class="back"><a href="#headline">↑ headline</a></p>']
    if page.figures:
        parts.append(_figure(anchor, bench, result, page, context, panels))
    decisions = ()
    if isinstance(page.result, SuiteResult):
        decisions = tuple(d for d in page.result.decisions if d.benchmark == bench)
    parts.append(compare_body(result, decisions, getattr(page.result, "adjust", "none")))
    for store in page.stores:
        for plot in store.run_orders:
            if plot.group is None or plot.group == bench:
                where = f" ({store.path})" if len(page.stores) > 1 else ""
                parts.append(f"<h4>run order{hf.esc(where)}</h4>"
                             f'<figure class="figure">{run_order_svg(plot)}</figure>')
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _panels(figures: bool) -> Any:
    """The painter of the benchmarks' panels, or None when matplotlib is not installed (the
    page then draws the light strip plots and says so among its warnings)."""
    if not figures:
        return None
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        return None
    from benchlab.report.figures.distribution import Panels

    return Panels()


LIGHT_FIGURES = ("figures drawn light (the values and the mean's CI, no density): matplotlib "
                 "is not installed; python3 -m pip install 'benchlab[plot]' draws them all")


def docs_href(page: str, heading: str = "") -> str:
    """A link to a docs page (and a heading's GitHub-style anchor): the page's file beside
    the package when the docs are there, else the page named in words only."""
    name = f"docs/{page}" + (f" § {heading}" if heading else "")
    path = DOCS / page
    if not path.is_file():
        return f"({hf.esc(name)})"
    fragment = ""
    if heading:
        fragment = "#" + re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
    return f'(<a href="{hf.esc(path.as_uri() + fragment)}">{hf.esc(name)}</a>)'


def how_to_read(result: CompareResult | SuiteResult, figures: bool) -> str:
    """What the page's numbers mean, said with this page's level, threshold and adjustment:
    the ratio and its CI, the verdict, Holm (a family-wise suite), the variance shares
    (hierarchical data) and the distribution panels (figures shown)."""
    items = result.benchmarks if isinstance(result, SuiteResult) else [(None, result)]
    first = items[0][1]
    level, threshold = fmt_level(result.confidence), first.threshold
    of = statistic_of(result).values
    band = (f"1 ± {fmt_share(threshold)}" if threshold > 0 else "1")
    parts = [
        ("ratio and its CI",
         f"ratio = candidate / baseline, of the {of} (below 1: the candidate's values are "
         "lower; for times, faster). The CI of the verdict is the range of ratios the data "
         "support at the CI level beside it: at 95%, intervals made this way hold the true "
         "ratio 95 times in 100. The method column says how it was computed (Fieller's "
         "interval of a ratio of means, or a bootstrap). "
         + docs_href("compare.md", "A threshold: change, equivalence or inconclusive")),
        ("verdict",
         (f"▲ or ▼ a change: the whole CI lies outside {band} (the threshold); "
          "≈ equivalent: the whole CI lies within it; ? inconclusive: the CI reaches across "
          "an edge of the band" if threshold > 0 else
          "▲ or ▼ a change: the CI excludes 1 (no threshold: any change counts); "
          "? inconclusive: the CI holds 1")
         + " — the data cannot tell, more measurements can. Colour repeats the symbol: "
         "dark for worse, light for better. "
         + docs_href("STATS.md", "4. The verdict against a threshold (Kalibera & Jones §4.2)")),
    ]
    if isinstance(result, SuiteResult) and result.adjust == "holm":
        m = len(result.benchmarks)
        parts.append((
            "Holm",
            f"{m} benchmarks decided one by one at {level} would give some false verdicts by "
            f"chance; Holm's step-down decides them as a family, so the chance of any false "
            f"verdict in the suite stays near {fmt_level(1 - result.confidence)}. The benchmark "
            f"with the smallest p is read at the strictest level and each next one at a "
            f"milder level: that is the CI level beside each verdict, and Holm p is the "
            "adjusted p-value. " + docs_href("compare.md", "Family-wise verdicts (--no-adjust)")))
    if any(r.hierarchies for _, r in items):
        parts.append((
            "variance shares",
            "with levels (builds, runs, iterations) the table per benchmark says which part "
            "of the variance of the mean each level adds in this experiment: repeating the "
            "level with the largest share narrows the CI most; a level that adds nothing "
            "can be dropped. " + docs_href("summary.md", "Two systems, builds × runs × "
                                           "iterations")))
    if figures:
        parts.append((
            "distributions",
            "each benchmark on its own axis, so a 9 µs benchmark and a 300 µs one both fill "
            "their panel: the shaded shape is the density of the values, the dots the values "
            "themselves (more than 150 are thinned to evenly spaced ones), the diamond the "
            f"mean with its {level} CI; the axis is logarithmic (and says so) when the values "
            "span more than a factor of 3. "
            + docs_href("report.md", "What the page holds")))
    body = "".join(f"<dt>{hf.esc(term)}</dt><dd>{text}</dd>" for term, text in parts)
    return f'<section class="how"><h2>how to read this page</h2><dl>{body}</dl></section>'


def _environment(store: StoreRecord) -> str:
    """Each session of a store: when, how it ended, its command, the machine (a run on
    Dask: every machine side by side, identical machines' differences warned about above
    the table), its noise warnings (report/environment.py)."""
    from benchlab.report.environment import store_html_body
    from benchlab.runner.environment import store_environments

    return store_html_body(store_environments(store.path, store.sessions, store.meta))


def _profiles(store: StoreRecord) -> str:
    """Which functions changed: the store's profile-diffs (report/profile_diff.py), each
    alternative's callgrind profile against the baseline's, as `profile-diff STORE`."""
    from benchlab.report.profile_diff import html_body

    parts = [f'<p class="muted">{hf.esc(store.profiles_note)}</p>'] if store.profiles_note \
        else []
    parts += [f'<div class="profile-diff">{html_body(d)}</div>' for d in store.profiles]
    return (f'<section class="profiles" id="profiles"><h2>which functions changed</h2>'
            f'<p class="muted">{hf.esc(_PROFILES_HOW)} '
            f'{docs_href("profile-diff.md", "From a store")}</p>{"".join(parts)}</section>')


_PROFILES_HOW = ("Each alternative's instructions (callgrind's Ir) per function against the "
                 "baseline's (with factors, at the same factor levels), the median over the "
                 "counted executions whose profiles the store keeps; ranked by the change of "
                 "the exclusive (own) count, as benchlab profile-diff STORE prints it.")


def _machine_warnings(stores: Sequence[StoreRecord]) -> list[str]:
    """Machines meant to be identical that differ, for the page's warnings at the top (the
    environment section says them again above its table)."""
    from benchlab.runner.environment import store_environments

    return [w for s in stores
            for w in store_environments(s.path, s.sessions, s.meta).machine_warnings]


def seed_text(seed: int | None) -> str:
    """"seed: 12345" (given or drawn: what reproduces the page), or "seed: none (analysis is
    deterministic)" when nothing random ran."""
    return "seed: none (analysis is deterministic)" if seed is None else f"seed: {seed}"


def analysis_text(spec: AnalysisSpec) -> str:
    """The analysis specification in one line for the footer: every choice that shapes
    the numbers (stats/spec.py), the defaults said too, so the page alone reproduces them."""
    parts = [spec.statistic.phrase, f"{fmt_level(spec.confidence)} confidence",
             f"threshold {fmt_share(spec.threshold)}", f"df {spec.df_rule}",
             f"adjust {spec.adjust}"]
    if spec.bootstrap:
        parts.append(f"bootstrap {spec.bootstrap}")
    if spec.resamples or spec.bootstrap:
        parts.append(f"replicates {spec.headline_replicates}")
    if spec.levels:
        parts.append("levels " + " › ".join(spec.levels))
    if spec.resample:
        parts.append(f"resample {spec.resample}")
    if spec.pair_by:
        parts.append(f"paired by {spec.pair_by}")
    elif spec.paired:
        parts.append("paired")
    if spec.tests:
        parts.append("classical tests")
    if not spec.diagnostics:
        parts.append("no diagnostics")
    return " · ".join(parts)


def _footer(page: PageInput, context: RenderContext) -> str:
    seed = getattr(page.result, "seed", None)
    date = page.date or datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M:%S UTC")
    inputs = hf.table(("input", "SHA-256"), [
        [hf.cell(path, cls="name"), hf.cell(sha or "(not a file)")]
        for path, sha in context.inputs], cls="inputs")
    command = " ".join(["benchlab", context.command or "report", *context.argv])
    spec = getattr(page.result, "analysis", None)
    analysis = (f'<p class="analysis">analysis: {hf.esc(analysis_text(spec))}</p>'
                if spec is not None else "")
    return (f'<footer class="provenance"><h3>provenance</h3>'
            f"<p>benchlab {hf.esc(__version__)} · {hf.esc(date)} · "
            f"{hf.esc(seed_text(seed))}</p>"
            f"<p>command: <code>{hf.esc(command)}</code></p>{analysis}{inputs}</footer>")


def overview_html(page: PageInput) -> str:
    """Several metrics: the side-by-side table (report/metrics.overview_rows), each metric
    linked to its section (a suite's with a benchmark column); "" for one metric."""
    if page.overview is None:
        return ""
    from benchlab.report.metrics import (
        overview_cells,
        overview_head,
        overview_metrics,
        overview_rows,
    )

    rows = overview_rows(page.overview)
    if not rows:
        return ""
    anchors = dict(zip([p.metric for p in (page, *page.metrics)],
                       metric_ids([p.metric for p in (page, *page.metrics)]), strict=True))
    head = overview_head(page.overview, getattr(page.result, "confidence", 0.95))
    body = []
    for row, metric in zip(rows, overview_metrics(page.overview), strict=True):
        link = f'<a href="#{hf.esc(anchors[metric])}">{hf.esc(row[0])}</a>'
        body.append(overview_cells(row, hf.cell(link, raw=True, cls="name")))
    return ('<h2 id="metrics">metrics side by side</h2>'
            + hf.table(head, body, cls="metrics"))


def metric_ids(names: Sequence[str | None]) -> list[str]:
    """The id of each metric's section: "metric-" and its name made safe (section_ids'
    rule)."""
    return [a.replace("bench-", "metric-", 1) for a in section_ids(
        [n or "value" for n in names])]


def _analysis_body(page: PageInput, context: RenderContext, panels: Any,
                   prefix: str = "") -> list[str]:
    """One analysis's part of the page: its headline table, how to read it, the suite's
    geometric mean, its warnings and a section per benchmark; `prefix` keeps the ids of a
    second metric's sections apart from the first's."""
    result = page.result
    items: list[tuple[str | None, CompareResult]]
    if isinstance(result, SuiteResult):
        items = list(result.benchmarks)
        confidence = result.confidence
        anchors = [prefix + a for a in section_ids([bench for bench, _ in items])]
        headline = headline_table(result.benchmarks, confidence, result.holm, anchors,
                                     result.decisions, result.adjust)
        extra = [geomean_table(result)]
        if page.figures:
            extra.append(figure_html(result, replace(
                context, options={**context.options, "fragment": True})))
        warnings = suite_warnings(result)
    else:
        items = [(None, result)]
        anchors = [prefix + a for a in section_ids([None])]
        confidence = result.confidence
        label = " vs ".join(s.name for s in result.samples[:2])
        headline = headline_table([(label if len(result.samples) == 2 else "(all)",
                                       result)], confidence, anchors=anchors)
        extra, warnings = [], []
    unit = next((r.unit.name for _, r in items if r.unit.name), None)
    threshold = items[0][1].threshold if items else 0.0
    facts = (f"{plural(sum(len(r.comparisons) for _, r in items), 'comparison')} · "
             f"{fmt_level(confidence)} confidence · threshold {fmt_share(threshold)}"
             + (f" · unit {unit}" if unit else ""))
    if not prefix:
        warnings = [*warnings, *_machine_warnings(page.stores)]
        if page.figures and panels is None:
            warnings.append(LIGHT_FIGURES)
    design = getattr(result, "design", None)  # a store analysed by its design
    how = (f'<p class="note design">analysis: {hf.esc(design.note)}</p>' if design is not None
           else "")
    how += "".join(f'<p class="note">note: {hf.esc(n)}</p>'  # the simulated caches, ...
                   for n in getattr(design, "notes", ()))
    body = [f'<p class="muted">{hf.esc(facts)}</p>', how,
            f'<h2 id="{prefix}headline">headline</h2>', headline,
            how_to_read(result, page.figures), *extra, hf.warnings_list(warnings)]
    body += [_bench_section(anchor, bench, r, page, context, panels)
             for anchor, (bench, r) in zip(anchors, items, strict=True)]
    return body


def build_page(page: PageInput, context: RenderContext) -> str:
    """The whole report as one HTML document: one analysis, or with several metrics the
    side-by-side table and a section per metric (page.metrics)."""
    panels = _panels(page.figures)
    body = [f"<h1>{hf.esc(page.title)}</h1>"]
    try:
        if not page.metrics:
            body += _analysis_body(page, context, panels)
        else:
            body.append(overview_html(page))
            pages = (page, *page.metrics)
            ids = metric_ids([p.metric for p in pages])
            for k, (one, anchor) in enumerate(zip(pages, ids, strict=True)):
                body.append(f'<section class="metric" id="{hf.esc(anchor)}"><h2>metric '
                            f'{hf.esc(one.metric or "value")} <a class="self" href="#'
                            f'{hf.esc(anchor)}" title="link to this section">#</a></h2>')
                body += _analysis_body(one, context, panels, "" if k == 0 else f"{anchor}-")
                body.append("</section>")
    finally:
        if panels is not None:
            panels.close()
    body += [_profiles(s) for s in page.stores if s.profiles or s.profiles_note]
    if page.stores:
        body.append('<section class="environment"><h2>machine</h2>'
                    + "\n".join(_environment(s) for s in page.stores) + "</section>")
    body.append(_footer(page, context))
    main = '<main class="benchlab">\n' + "\n".join(p for p in body if p) + "\n</main>"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"benchlab {hf.esc(__version__)}\">"
            f"<title>{hf.esc(page.title)}</title>"
            f"<style>{hf.STYLE}{PAGE_STYLE}</style></head>\n<body>\n{main}\n"
            f"<script>{SORT_SCRIPT}</script>\n</body></html>\n")

"""HTML sections (`--format html`) and the `benchlab report` page, checked by parsing.

The browser tests (tests/browser/) check what only a browser can; these check
the structure with Python's own HTML parser, so they run everywhere.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from benchlab.result import RenderContext, render
from benchlab.stats.compare import compare_samples

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "examples" / "experiments" / "loop.db"
HOSTILE = ["<script>alert(1)</script>", "a|b", "two\nlines"]


class Page(HTMLParser):
    """Tags, attributes and text of a document, checking that every element closes."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "circle", "rect", "path", "line", "use"}

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.open: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()

    def handle_data(self, data):
        self.text.append(data)

    def count(self, tag: str) -> int:
        return sum(1 for t, _ in self.tags if t == tag)

    def all_text(self) -> str:
        return "".join(self.text)


def _hostile_result():
    rng = np.random.default_rng(5)
    return compare_samples([(name, rng.normal(10 + k, 0.3, 12))
                            for k, name in enumerate(HOSTILE)], unit=None)


def test_compare_section_is_a_document_unless_a_fragment_is_asked():
    result = _hostile_result()
    whole = render(result, "html")
    assert whole.startswith("<!DOCTYPE html>") and whole.count("<style>") == 1
    fragment = render(result, "html", RenderContext(options={"fragment": True}))
    assert fragment.startswith('<section class="benchlab compare">')
    assert "<style>" not in fragment and "<html" not in fragment
    page = Page(whole)
    assert page.open == [] and page.count("script") == 0
    text = page.all_text()
    for name in HOSTILE:
        assert name in text  # literal: parsed back as text, not as markup
    jupyter = result._repr_html_()  # a fragment with its own style: a cell is no document
    assert jupyter.startswith("<style>") and jupyter.count("<style>") == 1
    assert not any(tag in jupyter for tag in ("<!DOCTYPE", "<html", "<head", "<body"))
    assert jupyter.endswith(fragment)


def test_ratio_cells_carry_the_exact_numbers():
    result = _hostile_result()
    cells = [a for t, a in Page(render(result, "html")).tags
             if t == "td" and "ratio" in (a.get("class") or "")]
    assert len(cells) == len(result.comparisons) == 2
    for attrs, c in zip(cells, result.comparisons, strict=True):
        assert float(attrs["data-estimate"]) == c.ratio.estimate
        assert (float(attrs["data-low"]), float(attrs["data-high"])) == (c.ratio.low, c.ratio.high)


def test_verdict_cells_say_the_direction_in_words():
    from benchlab.report.compare.html import verdict_label
    from benchlab.units import make_unit

    slow = compare_samples([("old", np.linspace(1.0, 1.1, 20)),
                            ("new", np.linspace(3.0, 3.3, 20))], unit=make_unit("s"))
    cls, label = verdict_label(slow.comparisons[0], slow.unit)
    assert cls == "worse" and re.fullmatch(r"▲ 3\.\d+× slower", label)
    fast = compare_samples([("old", np.linspace(1.0, 1.1, 20)),
                            ("new", np.linspace(0.9, 0.99, 20))], unit=make_unit("s"))
    cls, label = verdict_label(fast.comparisons[0], fast.unit)
    assert (cls, label) == ("better", "▼ faster: -10.0%")


@pytest.mark.parametrize("args, word", [
    (["anova", "examples/factorial/results.csv", "--response", "time", "--factors",
      "sched,machine"], "machine"),
    (["design", "--factor", "sched=BFS,CFS", "--factor", "machine=core2,p4"], "core2"),
    (["test", "examples/fft/two_systems.csv", "--by", "system"], "old"),
    (["summary", "examples/fft/two_systems.csv", "--by", "system", "--levels", "build,run"],
     "build"),
])
def test_other_results_render_as_sections_with_tables(run_cli, args, word):
    code, out, err = run_cli(*[str(ROOT / a) if a.startswith("examples/") else a
                               for a in args], "--format", "html")
    assert code == 0, err
    page = Page(out)
    assert out.startswith("<!DOCTYPE html>") and page.open == [] and page.count("table") >= 1
    assert page.count("script") == 0 and word in page.all_text()


def _report(run_cli, tmp_path, *args):
    target = tmp_path / "report.html"
    code, out, err = run_cli("report", *args, "-o", target)
    assert code == 0, err
    return target.read_text()


def test_report_of_a_store(run_cli, tmp_path):
    text = _report(run_cli, tmp_path, STORE, "--by", "alternative", "--benchmark", "n",
                   "--no-figures")
    page = Page(text)
    assert page.open == [] and page.count("script") == 1
    runs = [a for t, a in page.tags if t == "svg" and a.get("class") == "run-order"]
    assert [a["aria-label"] for a in runs] == ["run order of 20000", "run order of 40000"]
    words = page.all_text()
    assert "benchmark 20000" in words and "variance of the mean by level" in words
    assert "environment recorded in" in words and "session 1" in words
    assert "noise warnings" in words  # the store recorded a busy machine and ASLR
    sha = hashlib.sha256(STORE.read_bytes()).hexdigest()
    assert sha in words and f"benchlab report {STORE}" in words
    links = [(t, a.get("href") or a.get("src")) for t, a in page.tags if "href" in a or "src" in a]
    inside = [h for _, h in links if h.startswith("#")]
    docs = [(t, h) for t, h in links if not h.startswith("#")]
    assert inside and docs  # the page's own anchors, and "how to read"'s links to the docs
    for tag, href in docs:  # links (never a fetched src) to the docs pages beside the package
        path, _, fragment = href.partition("#")
        assert tag == "a" and path.startswith((ROOT / "docs").as_uri() + "/"), href
        assert (ROOT / "docs" / path.rsplit("/", 1)[1]).is_file() and fragment, href


def test_figures_inline_in_one_page_have_ids_of_their_own(run_cli, tmp_path):
    """matplotlib numbers ids per figure (axes_1, patch_1, ...): several figures inline in
    one page repeated them, and a reference could reach another figure's element. Every id
    of the page is unique, and every reference inside a figure names one of its own ids."""
    pytest.importorskip("matplotlib")
    text = _report(run_cli, tmp_path, STORE)
    page = Page(text)
    ids = [a["id"] for _, a in page.tags if a.get("id")]
    assert len(ids) == len(set(ids)), sorted(i for i in set(ids) if ids.count(i) > 1)[:5]
    figures = re.findall(r"<svg xmlns:xlink=.*?</svg>", text, re.S)  # matplotlib's
    assert len(figures) == 3  # loop.db's page: the overview and a panel per benchmark
    for svg in figures:
        own = set(re.findall(r'\bid="([^"]+)"', svg))
        assert {"figure_1", "axes_1"} <= {i.split("-", 1)[1] for i in own}
        references = re.findall(r'(?:href="#|url\(#)([^")]+)', svg)
        assert references and set(references) <= own


def test_run_order_marks_warmup_and_keeps_time_order():
    from benchlab.report.figures.run_order import run_order_svg, run_orders
    from benchlab.runner.store import Store

    plots = run_orders(str(STORE), benchmark="n")
    store = Store.open(str(STORE))
    try:
        rows = store.rows(store.metrics()[0][0], warmup=True)
    finally:
        store.close()
    assert sum(len(s.seq) for p in plots for s in p.series) == len(rows)
    assert sum(int(s.warmup.sum()) for p in plots for s in p.series) == sum(
        r.warmup for r in rows)
    seq = np.concatenate([s.seq for p in plots for s in p.series])
    assert sorted(seq) == list(range(1, len(rows) + 1))  # one place in time each
    for p in plots:
        for s in p.series:
            assert np.all(np.diff(s.seq) > 0)
    svg = run_order_svg(plots[0])
    hollow = svg.count('fill="none"')
    assert hollow == sum(int(s.warmup.sum()) for s in plots[0].series) + 1  # + legend


def test_report_of_a_single_comparison_and_hostile_suite(run_cli, tmp_path):
    data = tmp_path / "hostile.csv"
    lines = ["bench,system,value"]
    rng = np.random.default_rng(1)
    for name in HOSTILE:
        quoted = '"' + name.replace('"', '""') + '"'
        lines += [f"{quoted},{system},{v:.5f}" for system in ("old", "new")
                  for v in rng.normal(10, 0.5, 6)]
    data.write_text("\n".join(lines) + "\n")
    text = _report(run_cli, tmp_path, data, "--by", "system", "--value", "value",
                   "--benchmark", "bench", "--no-figures", "--title", "<b>t</b>")
    page = Page(text)
    assert page.count("script") == 1 and page.count("b") == 0
    assert "<title>&lt;b&gt;t&lt;/b&gt;</title>" in text
    cells = [a["data-sort"] for t, a in page.tags
             if t == "td" and "benchmark" in (a.get("class") or "")]
    assert cells == HOSTILE
    single = _report(run_cli, tmp_path, ROOT / "examples/kamp/current.txt",
                     ROOT / "examples/kamp/buf_work.txt", "--unit", "s", "--no-figures")
    assert "current vs buf_work" in Page(single).all_text()


@pytest.mark.parametrize("args, message", [
    (["-o", "/nonexistent/dir/r.html"], "does not exist"),
    (["-o", str(STORE)], "one of this command's inputs"),
])
def test_report_bad_output_is_one_line(run_cli, args, message):
    code, out, err = run_cli("report", STORE, "--by", "alternative", "--benchmark", "n", *args)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_report_refuses_to_replace_a_store(run_cli, tmp_path):
    other = tmp_path / "other.db"
    other.write_bytes(STORE.read_bytes())
    code, _, err = run_cli("report", ROOT / "examples/kamp/current.txt",
                           ROOT / "examples/kamp/buf_work.txt", "-o", other)
    assert code == 2 and "store" in err and other.read_bytes() == STORE.read_bytes()


def test_report_needs_two_samples(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("1\n2\n3\n")
    code, _, err = run_cli("report", one, "-o", tmp_path / "r.html")
    assert code == 2 and "at least two samples" in err
    assert not (tmp_path / "r.html").exists()


def test_compare_format_html_stays_light():
    """`compare --format html` imports no matplotlib, pandas or scipy.stats."""
    code = ("import sys; from benchlab.cli.main import main; "
            f"main(['compare', {str(ROOT / 'examples/kamp/current.txt')!r}, "
            f"{str(ROOT / 'examples/kamp/buf_work.txt')!r}, '--format', 'html']); "
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('matplotlib', 'pandas') or m == 'scipy.stats')))")
    out = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout
    assert "<!DOCTYPE html>" in out
    assert json.loads(re.findall(r"^\[.*\]$", out, re.M)[-1]) == []


def test_report_of_a_store_alone_follows_its_design(tmp_path):
    """Like compare STORE: alternatives are the groups (baseline first), each factor
    combination a benchmark — not every case against the first."""
    from benchlab.cli.main import main

    out = tmp_path / "r.html"
    assert main(["report", "examples/experiments/loop.db", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    head = page[page.index('<table class="sortable headline"'):]
    head = head[:head.index("</table>")]
    rows = head.split("<tr>")[2:]  # the header row first
    assert len(rows) == 2 and ['data-sort="n=20000"' in rows[0], 'data-sort="n=40000"' in
                               rows[1]] == [True, True]
    for row in rows:  # the alternatives are the groups, the file's baseline first
        assert '<td class="name">full</td><td class="name">half</td>' in row


def _headline(text: str) -> dict[str, tuple[str, str]]:
    """benchmark → (the CI cell with its level cell in brackets, the verdict's outcome) of
    a report's headline table."""
    table = text.split('class="sortable headline"', 1)[1].split("</table>", 1)[0]
    rows = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]:
        bench = re.search(r'data-sort="([^"]*)"', row).group(1)
        ci = re.search(r'<td class="num ci"[^>]*>([^<]*)</td>', row).group(1)
        level = re.search(r'<td class="num level"[^>]*>([^<]*)</td>', row).group(1)
        outcome = re.search(r'data-outcome="([^"]*)"', row).group(1)
        rows[bench] = (f"{ci} ({level})", outcome)
    return rows


def test_report_suite_headline_shows_the_interval_its_verdict_used(run_cli, tmp_path):
    """Family-wise (Holm) verdicts sit beside the Holm-level interval they were read from;
    --no-adjust gives per-benchmark verdicts beside the 95% interval, as compare does."""
    args = (ROOT / "docs/examples/aa-suite.csv", "--by", "system", "--benchmark", "benchmark",
            "--seed", "1", "--no-diagnostics", "--no-figures")
    family = _headline(_report(run_cli, tmp_path, *args))
    alone = _headline(_report(run_cli, tmp_path, *args, "--no-adjust"))
    code, out, _ = run_cli("compare", *args[:-1], "--format", "json", expect=0)
    doc = json.loads(out)
    for d in doc["decisions"]:
        ci, outcome = family[d["benchmark"]]
        assert ci == f"{d['low']:.4f} .. {d['high']:.4f} (98.75%)" and outcome == d["outcome"]
        ci, level = alone[d["benchmark"]][0].split(" (")
        assert level == "95%)"
        low, high = (float(x) for x in ci.split(" .. "))
        assert d["low"] < low < high < d["high"]  # the 95% interval lies inside
    # benchmark c: its 95% CI excludes 1 (a change alone), the 98.75% CI does not
    assert family["c"][1] == "inconclusive" and alone["c"][1] == "change"


def test_report_no_adjust_needs_a_suite(run_cli, tmp_path):
    code, _, err = run_cli("report", ROOT / "examples/kamp/current.txt",
                           ROOT / "examples/kamp/buf_work.txt", "--no-adjust",
                           "-o", tmp_path / "r.html")
    assert code == 2 and "--no-adjust applies to suites" in err
    assert not (tmp_path / "r.html").exists()


def test_report_of_a_median_suite_shows_the_medians_its_verdicts_rest_on(run_cli, tmp_path):
    """--statistic median: the headline's ratio, interval and verdict are those of the
    decisions on the ratios of medians (as `compare --statistic median --format json`)."""
    args = (ROOT / "docs/examples/aa-suite.csv", "--by", "system", "--benchmark", "benchmark",
            "--seed", "1", "--no-diagnostics", "--statistic", "median")
    text = _report(run_cli, tmp_path, *args, "--no-figures")
    assert "ratio of medians" in text and "geometric mean of median ratios" in text
    rows = _headline(text)
    code, out, _ = run_cli("compare", *args, "--format", "json", expect=0)
    doc = json.loads(out)
    assert doc["statistic"] == "median"
    table = text.split('class="sortable headline"', 1)[1].split("</table>", 1)[0]
    shown = {}
    for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]:
        ratio_cell = re.search(r'<td class="num ratio"[^>]*>', row).group(0)
        shown[re.search(r'data-sort="([^"]*)"', row).group(1)] = re.search(
            r'data-estimate="([^"]*)"', ratio_cell).group(1)
    for d in doc["decisions"]:
        assert float(shown[d["benchmark"]]) == d["estimate"]
        ci, outcome = rows[d["benchmark"]]
        assert ci.startswith(f"{d['low']:.4f} .. {d['high']:.4f}") and outcome == d["outcome"]


def test_api_suite_on_medians_and_without_adjustment():
    import benchlab

    rng = np.random.default_rng(5)
    table = {"system": np.repeat(["old", "new"] * 3, 20),
             "bench": np.repeat(["x", "y", "z"], 40),
             "value": rng.lognormal(0, 0.05, 120)}
    medians = benchlab.compare_suite(table, by="system", benchmark="bench",
                                     statistic="median", seed=1)
    assert medians.statistic == "median"
    assert {d.statistic for d in medians.decisions} == {"median"}
    alone = benchlab.compare_suite(table, by="system", benchmark="bench", adjust="none")
    assert alone.adjust == "none" and {d.level for d in alone.decisions} == {0.95}


def test_report_footer_says_the_analysis_the_json_keeps(run_cli, tmp_path):
    """The provenance footer carries the analysis specification in one line, the same
    choices `compare --format json` keeps under `analysis`."""
    from benchlab.report.html_page import analysis_text
    from benchlab.stats.spec import AnalysisSpec

    args = (ROOT / "docs/examples/aa-suite.csv", "--by", "system", "--benchmark", "benchmark",
            "--seed", "1", "--no-diagnostics", "--statistic", "median", "--threshold", "2%")
    page = Page(_report(run_cli, tmp_path, *args, "--no-figures"))
    assert page.open == []
    footer = page.all_text().split("provenance", 1)[1]
    line = re.search(r"analysis: ([^\n]*?)input", footer).group(1)
    code, out, _ = run_cli("compare", *args, "--format", "json", expect=0)
    spec = json.loads(out)["analysis"]
    assert line == analysis_text(AnalysisSpec(**{**spec, "df_method": None,
                                                 "levels": spec["levels"] or None}))
    assert line.startswith("ratio of medians · 95% confidence · threshold 2% · df welch")
    assert "no diagnostics" in line and "replicates 10000" in line
    paired = analysis_text(AnalysisSpec(levels=("build", "run"), resample="RNR",
                                        pair_by="commit", bootstrap=200))
    assert "levels build › run" in paired and "resample RNR" in paired
    assert "paired by commit" in paired and "df paired" in paired and "bootstrap 200" in paired


def test_section_ids_are_stable_unique_and_inert():
    from benchlab.report.html_page import section_ids

    names = ["<script>alert(1)</script>", "a|b", "a b", "two\nlines", "", "µs/op", None]
    ids = section_ids(names)
    assert ids == ["bench-script-alert-1-script", "bench-a-b", "bench-a-b-2", "bench-two-lines",
                   "bench-5", "bench-s-op", "comparison"]
    assert section_ids(names) == ids and len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+", i) for i in ids)


def test_headline_links_every_benchmark_to_its_section(run_cli, tmp_path):
    data = tmp_path / "hostile.csv"
    rng = np.random.default_rng(2)
    lines = ["bench,system,value"]
    for name in HOSTILE:
        quoted = '"' + name.replace('"', '""') + '"'
        lines += [f"{quoted},{system},{v:.5f}" for system in ("old", "new")
                  for v in rng.normal(10, 0.5, 5)]
    data.write_text("\n".join(lines) + "\n")
    page = Page(_report(run_cli, tmp_path, data, "--by", "system", "--value", "value",
                        "--benchmark", "bench", "--no-figures"))
    sections = [a["id"] for t, a in page.tags if t == "section" and "id" in a
                and "bench" in (a.get("class") or "")]
    targets = [a["href"][1:] for t, a in page.tags if t == "a"
               and a.get("href", "").startswith("#bench-") and a.get("class") != "self"]
    assert len(sections) == len(HOSTILE) and targets == sections
    assert "how to read this page" in page.all_text() and "Holm" in page.all_text()


def test_run_order_marks_each_executions_steady_state_start(run_cli, tmp_path):
    """--warmup auto: a dashed line at each execution's steady-state start, an execution
    without a steady state shaded whole (examples/experiments/warming.db: [steady_state]
    ended every execution but one, which drifted to its maximum)."""
    from benchlab.report.figures.run_order import run_order_svg, run_orders

    store = ROOT / "examples" / "experiments" / "warming.db"
    plain = run_orders(str(store))
    assert plain[0].cuts == ()
    page = tmp_path / "w.html"
    run_cli("report", store, "--warmup", "auto", "--no-figures", "-o", page, expect=0)
    svg = page.read_text()
    starts = svg.count('class="steady-start"')
    assert starts == 11 and svg.count('class="cut"') == 1  # the drifting execution
    assert "no steady state" in svg and "left out" not in svg
    from benchlab.runner.store import Store

    opened = Store.open(str(store))
    try:
        measured = [r.iteration for r in opened.rows("time_ms") if r.trial == 2]
    finally:
        opened.close()
    plots = run_orders(str(store), steady={"1": None, "2": str(min(measured) + 5)})
    cuts = plots[0].cuts
    assert [c.start is None for c in cuts] == [True, False]
    first, second = cuts
    assert first.first < first.last < second.first <= second.start <= second.last
    drawn = run_order_svg(plots[0])
    assert drawn.count('class="steady-start"') == 1 and drawn.count('class="cut"') == 2

"""`benchlab report` and `--format html` opened in a real headless Chromium.

What only a browser can tell: the page raises no console error, fetches nothing
beyond its own file, lays every figure out with a non-empty box, shows
hostile benchmark names as text (no script runs, the title stays), carries the
JSON's numbers, and sorts its headline table on a click. The browser is
Debian's `chromium` driven through `chromium-driver` (.ci/run installs both;
the `browser` fixture is in conftest.py); where neither can be started the tests skip
and say why.
"""

from __future__ import annotations

import csv
import json
import random
import re
from pathlib import Path

import pytest

from benchlab.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ["<script>alert(1)</script>", "a|b", "two\nlines", "plain"]
TITLE = "hostile names"


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    """The HTML files under test and the JSON of the same comparison."""
    tmp = tmp_path_factory.mktemp("pages")
    rng = random.Random(3)
    data = tmp / "hostile.csv"
    with data.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["bench", "system", "value"])
        for b, name in enumerate(HOSTILE):
            for system, scale in (("old", 1.0), ("new", 0.85 + 0.12 * b)):
                for _ in range(8):
                    out.writerow([name, system, f"{scale * (10 + b) * rng.gauss(1, 0.04):.5f}"])
    files = {"hostile": tmp / "hostile.html", "json": tmp / "hostile.json",
             "store": tmp / "store.html", "section": tmp / "section.html",
             "strips": tmp / "strips.html", "panels": tmp / "panels.html"}
    suite = [str(data), "--by", "system", "--value", "value", "--benchmark", "bench",
             "--seed", "1"]
    assert main(["report", *suite, "--title", TITLE, "-o", str(files["hostile"])]) == 0
    assert main(["compare", *suite, "--json", "-o", str(files["json"])]) == 0
    with pytest.MonkeyPatch.context() as patch:  # the small panels of a large suite
        patch.setattr("benchlab.report.html_page.FIGURE_LIMIT", 0)
        assert main(["report", *suite, "-o", str(files["panels"])]) == 0
    with pytest.MonkeyPatch.context() as patch:  # the light figures without matplotlib
        patch.setattr("benchlab.report.html_page._panels", lambda figures: None)
        assert main(["report", *suite, "-o", str(files["strips"])]) == 0
    store = str(ROOT / "examples" / "experiments" / "loop.db")
    assert main(["report", store, "--by", "alternative", "--benchmark", "n",
                 "-o", str(files["store"])]) == 0
    assert main(["compare", str(data), "--by", "bench", "--value", "value",  # names as samples
                 "--format", "html", "-o", str(files["section"])]) == 0
    return files


def _open(driver, path: Path) -> None:
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get_log("performance")
    driver.get(path.as_uri())


def _requests(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


@pytest.mark.parametrize("name", ["hostile", "store", "section", "strips", "panels"])
def test_no_console_error_and_no_request_leaves_the_file(browser, pages, name):
    _open(browser, pages[name])
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == []
    urls = _requests(browser)
    assert urls and all(u == pages[name].as_uri() or u.startswith("data:") for u in urls), urls
    linked = browser.execute_script(
        "return Array.from(document.querySelectorAll('[src],[href]'))"
        ".map(e => e.getAttribute('src') || e.getAttribute('href'))")
    assert not [u for u in linked if u.lower().startswith(("http:", "https:", "//"))]


@pytest.mark.parametrize("name", ["hostile", "store", "strips", "panels"])
def test_every_figure_has_a_box(browser, pages, name):
    _open(browser, pages[name])
    boxes = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg, img')).map(e => {"
        "const r = e.getBoundingClientRect(); return [r.width, r.height]; })")
    assert boxes, "the page has no figure"
    assert all(w > 0 and h > 0 for w, h in boxes), boxes
    if name == "store":  # one run-order plot per benchmark of the store
        assert browser.execute_script(
            "return document.querySelectorAll('svg.run-order').length") == 2
    if name == "strips":  # one strip plot per benchmark, and the page says why
        assert browser.execute_script(
            "return document.querySelectorAll('svg.strip').length") == len(HOSTILE)
        assert "matplotlib is not installed" in browser.execute_script(
            "return document.querySelector('ul.warnings').textContent")
    if name in ("hostile", "panels"):  # a distribution panel per benchmark
        assert browser.execute_script(
            "return document.querySelectorAll('figure.panel svg').length") == len(HOSTILE)


@pytest.mark.parametrize("name", ["hostile", "section", "strips", "panels"])
def test_hostile_names_render_as_text(browser, pages, name):
    from selenium.common.exceptions import NoAlertPresentException

    _open(browser, pages[name])
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - reading it raises when there is none
    assert browser.title == {"hostile": TITLE, "section": "benchlab compare",
                             "strips": "benchlab report", "panels": "benchlab report"}[name]
    text = browser.execute_script("return document.body.textContent")
    for hostile in HOSTILE:
        assert hostile in text
    scripts = browser.execute_script("return document.scripts.length")
    assert scripts == (0 if name == "section" else 1)  # the sorter only


def test_numbers_equal_the_json(browser, pages):
    _open(browser, pages["hostile"])
    cells = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.headline tbody tr')).map(r => ["
        "r.cells[0].getAttribute('data-sort'), r.querySelector('td.ratio').dataset.estimate,"
        "r.querySelector('td.ratio').dataset.low, r.querySelector('td.ratio').dataset.high,"
        "r.querySelector('td.ratio').textContent, r.querySelector('td.ci').textContent,"
        "r.querySelector('td.level').textContent, r.querySelector('td.method').textContent])")
    doc = json.loads(pages["json"].read_text())
    expected = {b["benchmark"]: b["comparisons"][0]["ratio"] for b in doc["benchmarks"]}
    decided = {d["benchmark"]: d for d in doc["decisions"]}
    assert sorted(c[0] for c in cells) == sorted(expected)
    for bench, estimate, low, high, shown, ci, level, method in cells:
        ratio, d = expected[bench], decided[bench]
        assert (float(estimate), float(low), float(high)) == (
            ratio["estimate"], ratio["low"], ratio["high"])
        assert shown == f"{ratio['estimate']:.4f}"
        # the CI beside the verdict is the one the (family-wise) verdict was read from,
        # at the level and by the method the next cells name
        assert ci == f"{d['low']:.4f} .. {d['high']:.4f}"
        assert float(level.rstrip("%")) == pytest.approx(100 * d["level"], abs=0.01)
        assert method == f"{ratio['method']}; Holm step-down"


def test_sorting_by_a_header(browser, pages):
    from selenium.webdriver.common.by import By

    _open(browser, pages["hostile"])

    def column(selector: str, attribute: str) -> list:
        return browser.execute_script(
            f"return Array.from(document.querySelectorAll('table.headline tbody {selector}'))"
            f".map(c => c.getAttribute('{attribute}'))")

    headers = browser.find_elements(By.CSS_SELECTOR, "table.headline th")
    ratio = next(h for h in headers if h.text.startswith("ratio"))
    ratio.click()
    values = [float(v) for v in column("td.ratio", "data-estimate")]
    assert values == sorted(values) and values != [float(v) for v in reversed(values)]
    assert ratio.get_attribute("aria-sort") == "ascending"
    ratio.click()
    assert [float(v) for v in column("td.ratio", "data-estimate")] == sorted(values, reverse=True)
    bench = next(h for h in headers if h.text.startswith("benchmark"))
    bench.click()
    names = column("td.benchmark", "data-sort")
    ordered = browser.execute_script(
        "return arguments[0].slice().sort((a, b) => a.localeCompare(b))", names)
    assert names == ordered and set(names) == set(HOSTILE)
    assert names != column("td.ratio", "data-estimate")  # the order did change with the key


# -- a 50-benchmark suite from 1 µs to 1 s: every distribution on its own axis ----------
WIDE_CANDIDATE, HEAVY_TAIL, MANY_VALUES = 7, 11, 23  # benchmarks drawn on a log axis / thinned


@pytest.fixture(scope="module")
def suite50(tmp_path_factory) -> Path:
    """The report of 50 benchmarks whose means run from 1 µs to 1 s (seeded; 12 values per
    system, 2,000 for one benchmark, whose dots are thinned), one benchmark's candidate 30×
    slower and one benchmark heavy-tailed: those two need a log axis."""
    import numpy as np

    tmp = tmp_path_factory.mktemp("suite50")
    rng = np.random.default_rng(50)
    rows = ["bench,system,value"]
    for b, mean in enumerate(np.geomspace(1e-6, 1.0, 50)):
        for system, factor in (("old", 1.0), ("new", 30.0 if b == WIDE_CANDIDATE else 0.97)):
            n = 2000 if b == MANY_VALUES else 12
            sigma = 0.9 if b == HEAVY_TAIL else 0.04
            rows += [f"bench {b:02d},{system},{v:.6g}"
                     for v in mean * factor * rng.lognormal(0, sigma, n)]
    data = tmp / "suite50.csv"
    data.write_text("\n".join(rows) + "\n")
    page = tmp / "suite50.html"
    assert main(["report", str(data), "--by", "system", "--value", "value", "--benchmark",
                 "bench", "--unit", "s", "--seed", "1", "--no-diagnostics",
                 "-o", str(page)]) == 0
    return page


def test_every_headline_link_targets_its_section(browser, suite50):
    _open(browser, suite50)
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.headline a')).map(a => ["
        "a.getAttribute('href'), a.textContent, (() => {"
        "  const all = document.querySelectorAll('[id=\"' + a.getAttribute('href').slice(1)"
        "   + '\"]'); return [all.length, all.length ? all[0].tagName + '.' + all[0].className"
        "   : '', all.length ? all[0].querySelector('h2').textContent : ''];"
        "})()])")
    assert len(links) == 50 and len({href for href, _, _ in links}) == 50
    for href, name, (count, element, heading) in links:
        assert href.startswith("#bench-") and count == 1 and element == "SECTION.bench"
        assert heading.startswith(f"benchmark {name} ")
    # every verdict, in the headline and in each section, has its CI's level and method
    # beside it
    beside = browser.execute_script(
        "return Array.from(document.querySelectorAll('td.verdict')).map(v => {"
        "const row = v.closest('tr'); return [row.querySelector('td.level').textContent,"
        "row.querySelector('td.method').textContent]; })")
    assert len(beside) == 100
    assert all(re.fullmatch(r"\d+(\.\d+)?%", level) and method.startswith("Fieller")
               for level, method in beside), beside


def test_every_panel_is_filled_by_its_own_points(browser, suite50):
    """Each benchmark's distributions on its own axis: the dots' horizontal extent covers at
    least half of the axes' width (a shared axis would leave the 1 µs benchmarks a dot at
    the edge of a 1 s axis), and stays inside it; the two wide benchmarks are on a log
    axis, the others on a linear one."""
    _open(browser, suite50)
    panels = browser.execute_script("""
        return Array.from(document.querySelectorAll('figure.panel')).map(f => {
          const id = f.dataset.panel, axes = document.getElementById(id + '-axes');
          const box = axes.getBoundingClientRect();
          const dots = Array.from(f.querySelectorAll('[id^="' + id + '-dots-"]'))
            .map(d => d.getBoundingClientRect());
          return [id, f.dataset.scale, box.left, box.right,
                  dots.map(d => [d.left, d.right, d.width])];
        });""")
    assert len(panels) == 50
    scales = {}
    for anchor, scale, left, right, dots in panels:
        assert len(dots) == 2 and all(width > 0 for _, _, width in dots), anchor
        low, high = min(d[0] for d in dots), max(d[1] for d in dots)
        assert left - 1 <= low and high <= right + 1, anchor
        assert (high - low) / (right - left) >= 0.5, (anchor, low, high, left, right)
        scales[anchor] = scale
    wide = {f"bench-bench-{b:02d}" for b in (WIDE_CANDIDATE, HEAVY_TAIL)}
    assert {a for a, s in scales.items() if s == "log"} == wide

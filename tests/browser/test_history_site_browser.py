"""`history publish`'s site opened from file:// in headless Chromium: no console error, no
request but its own files, every series page reachable from the index by its link, its
changes with the ratios and bounds of `history check --json`, a stored PR check's page
reached from the index with `history compare --json`'s numbers, the filter and the sort
working, the detail chart and table drawn, hostile names shown as text (no script of
theirs runs), and a series of 1,000 commits readable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchlab.cli.main import main
from tests.report.site_history import HOSTILE, KEYS, SHOWN_MACHINE, build


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("browser-site")
    db = tmp / "history.db"
    build(str(db))
    out = tmp / "site"
    assert main(["history", "compare", "--db", str(db), "--head", "0039abcdef", "--store",
                 "--json", "-o", str(tmp / "compare.json")]) == 0  # a PR check's page
    assert main(["history", "publish", "--db", str(db), "-o", str(out),
                 "--commit-url", "https://example.org/c/{sha}"]) == 0
    assert main(["history", "check", "--db", str(db), "--json", "-o",
                 str(out.parent / "check.json")]) == 0
    return out


def _load(driver, page: Path | str) -> tuple[list, list[str]]:
    """Open the page (a file or a URL); its SEVERE console entries and the URLs it
    requested."""
    driver.get_log("browser")
    driver.get_log("performance")
    driver.get(page.as_uri() if isinstance(page, Path) else page)
    driver.execute_script("return document.readyState")
    severe = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return severe, urls


def test_every_page_loads_quietly_and_fetches_only_its_files(browser, site):
    severe, urls = _load(browser, site / "index.html")
    assert severe == [] and urls
    assert all(u.startswith(site.as_uri()) for u in urls), urls
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('#series tbody td:first-child a'))"
        ".map(a => a.href)")
    assert len(links) == len(KEYS)
    names, shown = set(), []
    for link in links:  # every series page, reached by following its link from the index
        severe, urls = _load(browser, link)
        assert severe == [], link
        assert {u.rsplit("/", 1)[-1] for u in urls} == {link.rsplit("/", 1)[-1], "site.css",
                                                          "commits.js", "site.js"}, urls
        assert all(u.startswith("file://") for u in urls)
        names.add(browser.execute_script("return document.querySelector('h1').textContent"))
        shown += browser.execute_script(
            "const name = JSON.parse(document.getElementById('series-data').textContent)"
            ".benchmark; return Array.from(document.querySelectorAll('tr.change-row')).map("
            "r => { const c = r.querySelector('td.ratio'); return [name, r.dataset.commit, "
            "r.dataset.kind, Number(c.dataset.estimate), Number(c.dataset.low), "
            "Number(c.dataset.high)]; })")
        drawn = browser.execute_script(
            "return [document.querySelectorAll('#detail g.commit').length,"
            " document.querySelectorAll('#commits tbody tr').length,"
            " JSON.parse(document.getElementById('series-data').textContent).commits.length,"
            " document.querySelector('#overview').getBoundingClientRect().width]")
        assert drawn[0] == drawn[1] == drawn[2] == 40 and drawn[3] > 0
    assert names == {bench for bench, _ in KEYS}
    # the changes the pages show, as the browser reads them, are history check --json's
    doc = json.loads((site.parent / "check.json").read_text())
    expected = sorted((c["benchmark"], c["commit"], c["kind"], c["ratio"]["estimate"],
                       c["ratio"]["low"], c["ratio"]["high"]) for c in doc["changes"])
    assert sorted(map(tuple, shown)) == expected and expected


def test_the_pr_check_page_is_reached_from_the_index(browser, site):
    _load(browser, site / "index.html")
    (link,) = browser.execute_script(
        "return Array.from(document.querySelectorAll('#checks a.check')).map(a => a.href)")
    severe, urls = _load(browser, link)
    assert severe == [] and {u.rsplit("/", 1)[-1] for u in urls} == {
        link.rsplit("/", 1)[-1], "site.css", "site.js"}
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('#check td.ratio')).map(c => "
        "[Number(c.dataset.estimate), Number(c.dataset.low), Number(c.dataset.high), "
        "Number(c.dataset.level)])")
    doc = json.loads((site.parent / "compare.json").read_text())
    decided = {d["benchmark"]: d for d in doc["decisions"]}
    assert shown == [[decided[b["benchmark"]][k] for k in ("estimate", "low", "high", "level")]
                     for b in doc["benchmarks"]] and shown
    assert HOSTILE in browser.execute_script("return document.body.textContent")
    series = browser.execute_script(
        "return Array.from(document.querySelectorAll('#check td.name a')).map(a => a.href)")
    assert len(series) == len(shown)
    browser.get(series[0])  # and on to a series page, which links back
    assert browser.execute_script(
        "return document.querySelector('a.check').href") == link


def test_hostile_names_are_text(browser, site):
    from selenium.common.exceptions import NoAlertPresentException

    _load(browser, site / "index.html")
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018 - reading it raises when there is none
    text = browser.execute_script("return document.body.textContent")
    assert HOSTILE in text and SHOWN_MACHINE in text
    assert browser.execute_script("return document.scripts.length") == 1


def test_filtering_and_sorting(browser, site):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    _load(browser, site / "index.html")

    def visible() -> list[str]:
        return browser.execute_script(
            "return Array.from(document.querySelectorAll('#series tbody tr'))"
            ".filter(r => !r.hidden).map(r => r.cells[0].textContent)")

    assert len(visible()) == len(KEYS)
    box = browser.find_element(By.ID, "filter")
    box.send_keys("EPIS")  # case-insensitive
    assert visible() == ["episode"]
    assert browser.find_element(By.ID, "shown").text == f"showing 1 of {len(KEYS)} series"
    box.clear()
    box.send_keys("script")  # matches the hostile benchmark and the hostile machine
    assert sorted(visible()) == sorted([HOSTILE, KEYS[4][0]])
    box.clear()
    box.send_keys(" ")  # only spaces: every row
    Select(browser.find_element(By.ID, "verdict-filter")).select_by_value("worse")
    assert sorted(visible()) == ["episode", "step"]
    Select(browser.find_element(By.ID, "verdict-filter")).select_by_value("none")
    assert len(visible()) == len(KEYS) - 2
    Select(browser.find_element(By.ID, "verdict-filter")).select_by_value("")
    header = next(h for h in browser.find_elements(By.CSS_SELECTOR, "#series th")
                  if h.text.startswith("commits since"))
    header.click()
    order = visible()
    assert order[:2] == ["step", "episode"]  # 20 and 20 commits since, then those without


def test_brushing_the_overview_narrows_the_detail(browser, site):
    from selenium.webdriver.common.action_chains import ActionChains

    _load(browser, site / "index.html")
    link = browser.execute_script(
        "return Array.from(document.querySelectorAll('#series tbody a'))"
        ".find(a => a.textContent === 'step').href")
    browser.get(link)
    overview = browser.find_element("id", "overview")
    width = overview.size["width"]
    # from a quarter to a half of the plot: about commits 10 to 20 of 40
    ActionChains(browser).move_to_element_with_offset(overview, -width // 8, 0) \
        .click_and_hold().move_by_offset(width // 4, 0).release().perform()
    rows = browser.execute_script(
        "return Array.from(document.querySelectorAll('#commits tbody tr'))"
        ".map(r => Number(r.dataset.index))")
    assert 3 <= len(rows) < 40 and rows == sorted(rows, reverse=True)
    assert len(browser.find_elements("css selector", "#detail g.commit")) == len(rows)
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []


@pytest.fixture(scope="module")
def long_series(tmp_path_factory) -> Path:
    """One series of 1,000 commits (a step in the middle): its page."""
    import numpy as np

    from benchlab.history.store import CommitResults, History, SeriesData

    tmp = tmp_path_factory.mktemp("long-site")
    rng = np.random.default_rng(1000)
    runs = np.arange(3).astype(str)
    commits = [CommitResults(f"{c:040x}", None, None, (SeriesData(
        "long", "time", "default", "s", False, ("run",),
        (1.05 if c >= 500 else 1.0) * (1 + rng.normal(0, 0.01, 3)), (runs,)),))
        for c in range(1000)]
    with History.open_or_create(str(tmp / "h.db")) as h:
        h.add(commits)
    assert main(["history", "publish", "--db", str(tmp / "h.db"), "-o", str(tmp / "site")]) == 0
    return next((tmp / "site" / "series").glob("long-*.html"))


def _overlapping_ticks(driver, selector: str) -> list:
    """The pairs of axis labels under the plot (those below it) whose boxes overlap."""
    return driver.execute_script("""
        const boxes = Array.from(document.querySelectorAll(arguments[0] + ' text.tick'))
          .map(t => t.getBoundingClientRect()).filter(b => b.width > 0)
          .sort((a, b) => a.left - b.left);
        const rows = {};
        boxes.forEach(b => (rows[Math.round(b.top)] = rows[Math.round(b.top)] || []).push(b));
        const bad = [];
        Object.values(rows).forEach(r => r.forEach((b, i) => {
          if (i && b.left < r[i - 1].right) bad.push([r[i - 1].right, b.left]); }));
        return bad;""", selector)


def test_a_thousand_commits_stay_readable(browser, long_series):
    severe, _ = _load(browser, long_series)
    assert severe == []
    points = browser.execute_script(
        "return document.querySelector('#overview polyline.mean').getAttribute('points')"
        ".trim().split(/\\s+/).length")
    assert points == 1000  # every commit in the overview
    assert browser.execute_script(
        "return document.querySelectorAll('#overview line.step').length") == 1
    rows = browser.execute_script("return document.querySelectorAll('#commits tbody tr').length")
    assert rows == 200  # the detail starts at the last 200 commits
    for window in ("all", "200", "50"):
        browser.find_element("css selector", f"[data-window='{window}']").click()
        assert _overlapping_ticks(browser, "#detail") == [], window
        shown = browser.execute_script(
            "return document.querySelectorAll('#detail g.commit').length")
        assert shown == {"all": 1000, "200": 200, "50": 50}[window]
    assert _overlapping_ticks(browser, "#overview") == []
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []

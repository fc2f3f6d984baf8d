"""The files `history publish` writes: every series linked from the index, the numbers of
`history check --json`, every name escaped, the same bytes for the same history, and a
second publish after one more commit rewriting only the pages that changed."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from benchlab.cli.main import main
from benchlab.history.analysis_cache import FILE as ANALYSIS
from benchlab.report.history_site.files import MANIFEST
from tests.report.site_history import HOSTILE, KEYS, SHOWN_MACHINE, build, commit

URL = "https://example.org/r/commit/{sha}"


class Elements(HTMLParser):
    """Every element's tag and attributes, and the text of the whole page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.scripts: list[dict[str, str]] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, {k: v or "" for k, v in attrs}))
        if tag == "script":
            self.scripts.append({k: v or "" for k, v in attrs})
            self._in_script = True

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if not self._in_script:
            self.text.append(data)

    def having(self, **attrs) -> list[dict[str, str]]:
        return [a for _, a in self.found
                if all(a.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def parse(path: Path) -> Elements:
    p = Elements()
    p.feed(path.read_text(encoding="utf-8"))
    return p


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("site")
    db = tmp / "history.db"
    build(str(db))
    out = tmp / "site"
    assert main(["history", "publish", "--db", str(db), "-o", str(out), "--commit-url", URL,
                 "--title", "<i>team</i>"]) == 0
    assert main(["history", "check", "--db", str(db), "--json", "-o",
                 str(tmp / "check.json")]) == 0
    return {"db": db, "dir": out, "check": json.loads((tmp / "check.json").read_text()),
            "tmp": tmp}


def _series_links(site) -> list[str]:
    index = parse(site["dir"] / "index.html")
    return [a["href"] for tag, a in index.found if tag == "a" and a.get("href", "")
            .startswith("series/")]


def test_the_index_links_every_series_once(site):
    links = _series_links(site)
    assert len(links) == len(set(links)) == len(KEYS)
    pages = {str(p.relative_to(site["dir"])) for p in (site["dir"] / "series").iterdir()}
    assert set(links) == pages
    for link in links:  # each page names its series and links back to the index
        page = parse(site["dir"] / link)
        assert any(a.get("href") == "../index.html" for _, a in page.found)
    shown = {json.loads(re.search(r'<script type="application/json" id="series-data">(.*?)'
                                  r"</script>", (site["dir"] / link).read_text()).group(1))
             ["benchmark"] for link in links}
    assert shown == {bench for bench, _ in KEYS}


def test_the_numbers_are_history_checks(site):
    """Every change and transient of `history check --json` is on its series' page with the
    same ratio, bounds, confidence and kind, and the page has no other."""
    doc = site["check"]
    assert doc["changes"], "the history must have changes to compare"
    expected = {}
    for c in doc["changes"]:
        expected[(c["benchmark"], c["machine"], c["commit"], c["kind"])] = c
    found = {}
    transients = {}
    for link in _series_links(site):
        page = parse(site["dir"] / link)
        data = json.loads(re.search(r'id="series-data">(.*?)</script>',
                                    (site["dir"] / link).read_text()).group(1))
        rows = [a for tag, a in page.found if tag == "tr" and a.get("class") == "change-row"]
        cells = [a for tag, a in page.found if tag == "td" and "ratio" in a.get("class", "")]
        change_cells = cells[:len(rows)]
        for row, cell in zip(rows, change_cells, strict=True):
            key = (data["benchmark"], data["machine"], row["data-commit"], row["data-kind"])
            found[key] = cell
        for row, cell in zip([a for tag, a in page.found if tag == "tr"
                              and a.get("class") == "transient-row"], cells[len(rows):],
                             strict=True):
            transients[(data["benchmark"], data["machine"], row["data-commit"])] = cell
    assert set(found) == set(expected)
    for key, c in expected.items():
        cell = found[key]
        ratio = c["ratio"]
        assert float(cell["data-estimate"]) == ratio["estimate"]
        assert float(cell["data-low"]) == ratio["low"]
        assert float(cell["data-high"]) == ratio["high"]
        assert float(cell["data-confidence"]) == ratio["confidence"]
    assert set(transients) == {(t["benchmark"], t["machine"], t["commit"])
                               for t in doc["transients"]}
    for t in doc["transients"]:
        cell = transients[(t["benchmark"], t["machine"], t["commit"])]
        assert float(cell["data-estimate"]) == t["ratio"]["estimate"]


def test_the_index_says_what_the_series_page_says(site):
    """An episode's row on the index: its verdict says it is over and where the level came
    back (the page's "ends at"), and "commits since" counts from the change's first commit
    as the page places it; the page's head paragraph does not call its baseline "commits
    since the last change" (audit 29 C, D)."""
    episode = next(c for c in site["check"]["changes"] if c["benchmark"] == "episode")
    assert episode["kind"] == "episode" and episode["end_commit"]
    text = (site["dir"] / "index.html").read_text()
    row = next(r for r in text.split("<tr ") if ">episode</a>" in r)
    end = URL.format(sha=episode["end_commit"])
    assert re.search(rf'regression(?: \(recent\))?, over: back at <a class="commit" '
                     rf'href="{re.escape(end)}"',
                     row), row
    commits = site["check"]["commits"]
    page = next(link for link in _series_links(site) if "episode" in link)
    html = (site["dir"] / page).read_text()
    start = re.search(rf'data-commit="{episode["commit"]}" data-start="(\d+)"', html)
    since = re.search(r'<td class="num" data-sort="(\d+)">\1</td><td class="verdict', row)
    assert start and since and int(since.group(1)) == commits - int(start.group(1))
    assert "since the last change" not in html
    assert "commits at the level of the head" in html


def test_the_commit_means_are_history_shows(site, tmp_path):
    """The means and CIs the page's script draws are `history show --json`'s."""
    out = tmp_path / "show.json"
    assert main(["history", "show", "--db", str(site["db"]), "--json", "-o", str(out)]) == 0
    show = {(s["benchmark"], s["machine"]): s for s in json.loads(out.read_text())["series"]}
    shas = json.loads((site["dir"] / "commits.js").read_text()
                      .split("=", 1)[1].strip().rstrip(";"))
    for link in _series_links(site):
        data = json.loads(re.search(r'id="series-data">(.*?)</script>',
                                    (site["dir"] / link).read_text()).group(1))
        points = show[(data["benchmark"], data["machine"])]["commits"]
        assert [shas[c[0]][0] for c in data["commits"]] == [p["commit"] for p in points]
        for c, p in zip(data["commits"], points, strict=True):
            assert (c[1], c[2], c[3], c[4]) == (p["n"], p["mean"], p["low"], p["high"])
            assert len(c[5]) == c[1] == 4
            assert sum(c[5]) / len(c[5]) == pytest.approx(c[2], rel=1e-5)  # 6 digits each


def test_every_name_is_escaped(site):
    for path in [site["dir"] / "index.html", *(site["dir"] / "series").iterdir()]:
        text = path.read_text(encoding="utf-8")
        page = parse(path)
        assert "<script>alert" not in text and "<i>team" not in text and "<b>x" not in text
        # the only scripts are the site's own: its data (inert JSON) and its files
        assert all(s.get("src", "").endswith((".js",)) or s.get("type") == "application/json"
                   for s in page.scripts), page.scripts
        assert len(re.findall(r"</script>", text)) == len(page.scripts)
    index = parse(site["dir"] / "index.html")
    text = "".join(index.text)
    assert HOSTILE in text and "<i>team</i>" in text and SHOWN_MACHINE in text
    assert 'quote"&amp;\'' in text
    for path in site["dir"].rglob("*.html"):  # controls only as visible escapes
        assert "\u202e" not in path.read_text(encoding="utf-8")


def test_commit_links_follow_the_template(site):
    index = parse(site["dir"] / "index.html")
    hrefs = [a["href"] for tag, a in index.found if tag == "a" and "commit" in a.get("class", "")]
    assert hrefs and all(re.fullmatch(r"https://example\.org/r/commit/\d{4}abcdef", h)
                         for h in hrefs)


def test_the_same_history_gives_the_same_bytes(site, tmp_path):
    again = tmp_path / "again"
    assert main(["history", "publish", "--db", str(site["db"]), "-o", str(again),
                 "--commit-url", URL, "--title", "<i>team</i>"]) == 0
    first = {p.relative_to(site["dir"]): p.read_bytes() for p in site["dir"].rglob("*")
             if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()}
    assert first == second


def test_one_more_commit_rewrites_only_what_changed(tmp_path, capsys):
    db, out = tmp_path / "h.db", tmp_path / "site"
    build(str(db), commits=30)
    assert main(["history", "publish", "--db", str(db), "-o", str(out), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    total = 5 + len(KEYS)  # index, commits.js, script, style, analysis, a page per series
    assert first["kept"] == 0 and len(first["written"]) == total
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert main(["history", "publish", "--db", str(db), "-o", str(out)]) == 0
    assert f"wrote 0 files, kept {total} unchanged, removed 0" in capsys.readouterr().out
    from benchlab.history.store import History

    touched = KEYS[1:3]  # the new commit has results of two series only
    with History.open(str(db), write=True) as h:
        h.add([commit(30, keys=touched)])
    assert main(["history", "publish", "--db", str(db), "-o", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    pages = [w for w in doc["written"] if w.startswith("series/")]
    assert len(pages) == 2 and {"index.html", "commits.js", ANALYSIS} <= set(doc["written"])
    assert len(doc["written"]) == 5 and doc["kept"] == total - 5 and doc["analysed"] == 2
    for path, mtime in before.items():
        name = str(path.relative_to(out))
        if name not in doc["written"] and name != MANIFEST:
            assert path.stat().st_mtime_ns == mtime, name  # not touched
    manifest = json.loads((out / MANIFEST).read_text())
    assert set(manifest["files"]) == {str(p.relative_to(out)) for p in out.rglob("*")
                                      if p.is_file() and p.name != MANIFEST}


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*")
            if p.is_file()}


def test_a_republish_analyses_only_the_series_whose_inputs_changed(tmp_path, run_cli,
                                                                    monkeypatch):
    """The findings of a series whose measurements, commits and settings are unchanged
    are kept from the last publish, and its page taken from the disk: after a commit of
    one series that series alone is analysed and laid out, and the site is byte for byte
    a publish from scratch; other settings, or a kept analysis that cannot be read, mean
    every series is analysed; a page changed on the disk is laid out again."""
    import benchlab.report.history_site as site_module
    from benchlab.history.store import History

    laid_out = []
    real = site_module.series_page
    monkeypatch.setattr(site_module, "series_page",
                        lambda s, *a: laid_out.append(s.benchmark) or real(s, *a))
    db, out = tmp_path / "h.db", tmp_path / "site"
    build(str(db), commits=30)

    def publish(folder: Path, *more: str) -> dict:
        _, text, _ = run_cli("history", "publish", "--db", db, "-o", folder, "--json",
                             "--commit-url", URL, *more, expect=0)
        return json.loads(text)

    assert publish(out)["analysed"] == len(KEYS) and len(laid_out) == len(KEYS)
    assert publish(out)["analysed"] == 0 and len(laid_out) == len(KEYS)
    with History.open(str(db), write=True) as h:
        h.add([commit(30, keys=KEYS[1:2])])  # the series with the step, alone
    doc = publish(out)
    assert doc["analysed"] == 1 and "series/step-time-default-" in " ".join(doc["written"])
    assert laid_out[len(KEYS):] == ["step"]
    assert publish(tmp_path / "scratch")["analysed"] == len(KEYS)
    assert _files(out) == _files(tmp_path / "scratch")
    flat = next((out / "series").glob("flat-*.html"))
    flat.write_bytes(flat.read_bytes().replace(b"<h1", b"<h1 edited"))
    assert publish(out)["written"] == [str(flat.relative_to(out))]
    assert _files(out) == _files(tmp_path / "scratch")

    assert publish(out, "--threshold", "3%")["analysed"] == len(KEYS)
    assert publish(tmp_path / "scratch3", "--threshold", "3%")["analysed"] == len(KEYS)
    assert _files(out) == _files(tmp_path / "scratch3")
    (out / ANALYSIS).write_text("{not json")
    doc = publish(out, "--threshold", "3%")
    assert doc["analysed"] == len(KEYS) and doc["notes"][0].startswith(
        f"{out / ANALYSIS}: cannot read the kept analysis")
    assert _files(out) == _files(tmp_path / "scratch3")


def test_kept_findings_read_back_equal_and_of_the_same_types(site):
    """Every finding of the example history through the analysis file's encoding: equal,
    field for field and type for type (numpy scalars included), the Fieller inputs an
    interval keeps (compare=False) as well."""
    import dataclasses

    import numpy as np

    from benchlab.history import analysis_cache
    from benchlab.history.check import confirmed_changes
    from benchlab.history.store import History

    def same(a, b, where="findings"):
        assert type(a) is type(b), where
        if dataclasses.is_dataclass(a):
            for f in dataclasses.fields(a):
                same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
        elif isinstance(a, (tuple, list)):
            assert len(a) == len(b), where
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                same(x, y, f"{where}[{i}]")
        elif isinstance(a, float) and np.isnan(a):
            assert np.isnan(b), where
        else:
            assert a == b, where

    with History.open(str(site["db"])) as h:
        found = confirmed_changes(h.series(), h.commits(), threshold=0.02, confidence=0.95)
    assert sum(len(f.changes) for _, f in found) >= 2
    for _, f in found:
        same(f, analysis_cache.decode(json.loads(json.dumps(analysis_cache.encode(f)))))
    odd = (np.float64(0.1), np.int64(3), np.bool_(True), float("nan"), float("-inf"), 7)
    same(odd, analysis_cache.decode(json.loads(json.dumps(analysis_cache.encode(odd)))))
    with pytest.raises(ValueError):
        analysis_cache.encode({"a": 1})
    for bad in ({"@": "Popen", "f": {}}, {"q": 1}, {"t": 1}):
        with pytest.raises(ValueError):
            analysis_cache.decode(bad)


def test_a_directory_of_other_files_is_refused(tmp_path, run_cli):
    db = tmp_path / "h.db"
    build(str(db), commits=12)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine\n")
    _, _, err = run_cli("history", "publish", "--db", db, "-o", other, expect=2)
    assert "holds no site benchlab published" in err and len(err.strip().splitlines()) == 1
    assert (other / "notes.txt").read_text() == "mine\n" and len(list(other.iterdir())) == 1


def test_the_assets_ship_with_the_package():
    """pyproject's package data names every file of assets/, so a wheel carries them (a
    site whose script is missing would fetch nothing and sort nothing)."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    from fnmatch import fnmatch

    root = Path(__file__).resolve().parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["benchlab.report.history_site"]
    assets = root / "benchlab" / "report" / "history_site" / "assets"
    names = [f"assets/{p.name}" for p in assets.iterdir()]
    assert names and all(any(fnmatch(n, p) for p in patterns) for n in names)


def test_a_postgresql_history_publishes_the_same_site(site, postgres_server, tmp_path):
    """The same history in PostgreSQL (read through the same History interface) gives the
    same files, byte for byte."""
    from benchlab.history.store import History

    url = postgres_server.database("publish_site")
    with History.open_or_create(url) as h:
        h.add([commit(c) for c in range(40)])
    out = tmp_path / "pg"
    assert main(["history", "publish", "--db", url, "-o", str(out), "--commit-url", URL,
                 "--title", "<i>team</i>"]) == 0
    first = {p.relative_to(site["dir"]): p.read_bytes() for p in site["dir"].rglob("*")
             if p.is_file()}
    second = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert first == second


def test_a_kept_finding_of_the_wrong_type_is_a_note_and_analysed_again(tmp_path, run_cli):
    """A kept analysis edited so that a field has another type (head.commits "x") or a
    number out of range (1e400 reads as inf; the encoding tags non-finite numbers) is not
    used: a note names the series, it alone is analysed again, and the site is a publish
    from scratch."""
    db, out = tmp_path / "h.db", tmp_path / "site"
    build(str(db), commits=12)

    def publish(folder: Path) -> dict:
        _, text, _ = run_cli("history", "publish", "--db", db, "-o", folder, "--json",
                             expect=0)
        return json.loads(text)

    assert publish(out)["analysed"] == len(KEYS)
    doc = json.loads((out / ANALYSIS).read_text())
    keys = sorted(doc["series"])
    heads = [doc["series"][k]["f"]["head"]["f"] for k in keys[:2]]
    heads[0]["commits"] = "x"
    heads[1]["detectable"] = {"t": [1234.5]}
    names = [f"{h['benchmark']} ({h['metric']}, {h['machine']})" for h in heads]
    (out / ANALYSIS).write_text(json.dumps(doc).replace("1234.5", "1e400"))
    again = publish(out)
    assert again["analysed"] == 2
    notes = [n for n in again["notes"] if "kept analysis of" in n]
    assert len(notes) == 2, again["notes"]
    said = " ".join(notes)
    assert "HeadPower.commits is not of its type: x" in said
    assert "a number out of range: inf" in said
    assert all(f"analysis of {name} cannot be used" in said for name in names), said
    assert publish(tmp_path / "scratch")["analysed"] == len(KEYS)
    assert _files(out) == _files(tmp_path / "scratch")
    assert publish(out)["analysed"] == 0  # the rewritten analysis is whole again

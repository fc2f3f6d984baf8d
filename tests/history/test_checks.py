"""Stored PR checks on SQLite: `history compare --store` keeps what `--json` printed and
replaces only the check of the same head and machine; a schema-2 history reads as having
none and gains the tables when written; `history publish` gives each check a page whose
numbers are `history compare --json`'s, linked from the index and the series pages, and
rewrites only what a new check changes (PostgreSQL's side: test_store_postgres.py)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace

import pytest

from benchlab.cli.main import main
from benchlab.history.store import History
from benchlab.report.history_site.pages import page_name
from tests.report.site_history import HOSTILE, build

HEAD, OTHER = "0039abcdef", "0038abcdef"


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, dict]:
    """The publish tests' history (hostile names included) with the check of HEAD stored,
    and the document `history compare --json --store` printed."""
    tmp = tmp_path_factory.mktemp("checks")
    db = tmp / "history.db"
    build(str(db))
    out = tmp / "compare.json"
    assert main(["history", "compare", "--db", str(db), "--head", HEAD, "--store", "--json",
                 "-o", str(out)]) == 0
    return db, json.loads(out.read_text())


def _copy(stored, tmp_path: Path) -> str:
    target = tmp_path / "history.db"
    shutil.copy(stored[0], target)
    return str(target)


class Attributes(HTMLParser):
    """Every start tag's attributes (unescaped), in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


def _tags(path: Path) -> list[tuple[str, dict[str, str]]]:
    parser = Attributes()
    parser.feed(path.read_text())
    return parser.tags


def test_the_stored_check_is_what_json_printed(stored):
    db, doc = stored
    with History.open(str(db)) as h:
        (check,) = h.checks()
    assert check.head == HEAD and check.document["decisions"] == doc["decisions"]
    assert check.settings == {"confidence": 0.95, "threshold": 0.02, "seed": 0,
                              "metrics": None}
    machines = {s["benchmark"].rsplit(", ", 1)[1][:-1] for s in doc["benchmarks"]}
    assert check.machine == ",".join(sorted(machines))
    decided = {d["benchmark"]: d for d in doc["decisions"]}
    assert [r.name for r in check.rows] == [b["benchmark"] for b in doc["benchmarks"]]
    for r in check.rows:  # exact: the same doubles
        d = decided[r.name]
        assert (r.estimate, r.low, r.high, r.level) == (d["estimate"], d["low"], d["high"],
                                                       d["level"])
        assert r.name == f"{r.benchmark} ({r.metric}, {r.machine})"
    assert {r.judgement for r in check.rows} <= {"worse", "better", "change", "none"}


def test_a_rerun_replaces_the_check_and_nothing_else(stored, run_cli, tmp_path):
    db = _copy(stored, tmp_path)
    _, before, _ = run_cli("history", "export", "--db", db, expect=0)
    run_cli("history", "compare", "--db", db, "--head", OTHER, "--store", expect=0)
    _, _, err = run_cli("history", "compare", "--db", db, "--head", HEAD, "--store",
                        "--threshold", "5%", expect=0)
    assert f"stored the check of head {HEAD}" in err and "replacing the one recorded" in err
    with History.open(db) as h:
        checks = h.checks()
    assert [(c.head, c.threshold) for c in checks] == [(OTHER, 0.02), (HEAD, 0.05)]
    _, after, _ = run_cli("history", "export", "--db", db, expect=0)
    strip = lambda text: [x for x in text.splitlines()[1:] if '"check"' not in x[:10]]  # noqa: E731
    assert strip(after) == strip(before)


def test_a_schema_2_history_has_no_checks_until_written(stored, run_cli, tmp_path):
    db = _copy(stored, tmp_path)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DROP TABLE check_results")
        conn.execute("DROP TABLE checks")
        conn.execute("UPDATE history_meta SET value = '2' WHERE key = 'schema_version'")
    conn.close()
    with History.open(db) as h:
        assert h.version == 2 and h.checks() == []
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", tmp_path / "site", expect=0)
    assert "PR check" not in out
    assert 'id="pr-checks"' not in (tmp_path / "site" / "index.html").read_text()
    run_cli("history", "compare", "--db", db, "--head", HEAD, "--store", expect=0)
    with History.open(db) as h:
        assert h.version == 3 and [c.head for c in h.checks()] == [HEAD]


def test_the_check_page_shows_compare_json_s_numbers(stored, run_cli, tmp_path):
    db, doc = stored
    site = tmp_path / "site"
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", site, "--json", expect=0)
    assert json.loads(out)["checks"] == 1
    index = _tags(site / "index.html")
    (link,) = [a["href"] for tag, a in index if tag == "a" and a.get("class") == "check"]
    page = site / link
    tags = _tags(page)
    rows = [a for tag, a in tags if tag == "tr" and a.get("class") == "check-row"]
    assert HOSTILE in [r["data-benchmark"] for r in rows]  # escaped, read back whole
    cells = [a for tag, a in tags if tag == "td" and "ratio" in a.get("class", "")]
    decided = {d["benchmark"]: d for d in doc["decisions"]}
    assert len(rows) == len(cells) == len(decided) == len(doc["benchmarks"])
    for cell, b in zip(cells, doc["benchmarks"], strict=True):  # in the document's order
        d = decided[b["benchmark"]]
        assert [float(cell[k]) for k in ("data-estimate", "data-low", "data-high",
                                          "data-level")] == [d["estimate"], d["low"],
                                                             d["high"], d["level"]]
    text = page.read_text()
    assert HOSTILE not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    # each row links its series' page, and that page links back to the check
    series = [a["href"] for tag, a in tags if tag == "a" and a["href"].startswith("../series/")]
    assert len(series) == len(rows)
    for href in series:
        back = [a["href"] for tag, a in _tags(page.parent / href)
                if tag == "a" and a.get("class") == "check"]
        assert back == [f"../{link}"]


def test_publishing_a_new_check_rewrites_only_what_it_changes(stored, run_cli, tmp_path):
    db = _copy(stored, tmp_path)
    site = tmp_path / "site"
    run_cli("history", "publish", "--db", db, "-o", site, expect=0)
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", site, "--json", expect=0)
    assert json.loads(out)["written"] == []
    run_cli("history", "compare", "--db", db, "--head", OTHER, "--store", expect=0)
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", site, "--json", expect=0)
    written = json.loads(out)["written"]
    with History.open(db) as h:
        (other,) = [c for c in h.checks() if c.head == OTHER]
    linked = {page_name(SimpleNamespace(benchmark=r.benchmark, metric=r.metric,
                                        machine=r.machine, key=r.key)) for r in other.rows}
    pages = [w for w in written if w.startswith("checks/")]
    assert len(pages) == 1 and linked  # the new check's page, the index, its series' pages
    assert set(written) - {"benchlab-site.json"} == {"index.html", pages[0]} | linked
    manifest = json.loads((site / "benchlab-site.json").read_text())["files"]
    assert pages[0] in manifest


def _two_metrics(path: str) -> None:
    """12 commits of benchmarks a and b, each in two metrics (time, instructions)."""
    import numpy as np

    from benchlab.history.store import CommitResults, SeriesData

    runs = np.arange(3).astype(str)
    with History.open_or_create(path) as h:
        h.add([CommitResults(f"c{c:02d}", f"2024-03-01T00:00:{c:02d}Z", "main", tuple(
            SeriesData(b, metric, "default", unit, False, ("run",), level * (1 + np.random
                       .default_rng([c, k]).normal(0, 0.005, 3)), (runs,))
            for k, (b, metric, unit, level) in enumerate([
                ("a", "time", "s", 1.0), ("a", "instructions", "", 5e6),
                ("b", "time", "s", 2.0), ("b", "instructions", "", 7e6)])))
            for c in range(12)])


def test_publish_metric_keeps_to_those_metrics_in_the_checks_too(run_cli, tmp_path):
    """`publish --metric time`: a check of both metrics shows its time rows only (its
    geometric mean, over all four, left out, and a note saying so); a check of
    instructions alone gets no page and no row in the index."""
    db, site = str(tmp_path / "h.db"), tmp_path / "site"
    _two_metrics(db)
    run_cli("history", "compare", "--db", db, "--head", "c11", "--store", expect=0)
    run_cli("history", "compare", "--db", db, "--head", "c10", "--store", "--metric",
            "instructions", expect=0)
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", site, "--json", expect=0)
    assert json.loads(out)["checks"] == 2 and json.loads(out)["series"] == 4
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", site, "--json", "--metric",
                        "time", expect=0)
    doc = json.loads(out)
    assert doc["checks"] == 1 and doc["series"] == 2 and len(doc["removed"]) == 3
    index = _tags(site / "index.html")
    (link,) = [a["href"] for tag, a in index if tag == "a" and a.get("class") == "check"]
    assert link.startswith("checks/c11-") and sorted(p.name for p in (site / "checks")
                                                     .iterdir()) == [link[len("checks/"):]]
    tags = _tags(site / link)
    rows = [a for tag, a in tags if tag == "tr" and a.get("class") == "check-row"]
    assert [(r["data-benchmark"], r["data-metric"]) for r in rows] == [("a", "time"),
                                                                        ("b", "time")]
    text = (site / link).read_text()
    assert 'class="geomean"' not in text
    assert ("2 of the check&#x27;s 4 benchmarks shown, those of metric time (history "
            "publish --metric)") in text
    with History.open(db) as h:
        full = {c.head: c for c in h.checks()}
    assert len(full["c11"].rows) == 4  # the history keeps the whole check
    _, out, _ = run_cli("history", "publish", "--db", db, "-o", site, "--json", "--metric",
                        "instructions", expect=0)
    assert json.loads(out)["checks"] == 2


def test_export_and_import_carry_the_checks(stored, run_cli, tmp_path):
    db = _copy(stored, tmp_path)
    target = tmp_path / "h.jsonl"
    _, _, err = run_cli("history", "export", "--db", db, "-o", target, expect=0)
    assert "and 1 PR check of" in err
    copy = str(tmp_path / "copy.db")
    _, out, _ = run_cli("history", "import", target, "--db", copy, expect=0)
    assert "and 1 PR check from" in out
    with History.open(db) as a, History.open(copy) as b:
        assert a.checks() == b.checks() and len(b.checks()) == 1
    # a second import of the same check is refused (nothing added), --replace replaces
    _, _, err = run_cli("history", "import", target, "--db", copy, expect=2)
    assert err.count("\n") == 1 and "already has results" in err
    run_cli("history", "import", target, "--db", copy, "--replace", expect=0)
    with History.open(db) as a, History.open(copy) as b:
        assert a.checks() == b.checks()
    lines = target.read_text().splitlines()
    bad = json.loads(lines[-1])
    bad["check"]["rows"][0]["estimate"] = "1.0"
    (tmp_path / "bad.jsonl").write_text("\n".join([*lines[:-1], json.dumps(bad)]) + "\n")
    _, _, err = run_cli("history", "import", tmp_path / "bad.jsonl", "--db",
                        tmp_path / "new.db", expect=2)
    assert f"bad.jsonl:{len(lines)}" in err and "numbers (or null)" in err


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "history"
ADD = (("history", "add", EXAMPLES / "past.csv", "--by", "benchmark", "--value", "time",
        "--unit", "s", "--levels", "run", "--commit-column", "commit", "--date-column",
        "date"),
       ("history", "add", EXAMPLES / "head.csv", "--by", "benchmark", "--value", "time",
        "--unit", "s", "--levels", "run", "--commit", "9b1e004", "--date",
        "2024-05-16T08:00:00Z", "--branch", "main"))


def test_postgresql_keeps_the_checks_as_sqlite_does(run_cli, postgres_server, tmp_path):
    """The example history in both stores: the stored check, its replacement, a schema-2
    history gaining the tables, and an export from PostgreSQL into SQLite."""
    from dataclasses import replace

    sqlite, url = str(tmp_path / "h.db"), postgres_server.database("pr_checks")
    docs = []
    for db in (sqlite, url):
        for args in ADD:
            run_cli(*args, "--db", db, expect=0)
        _, out, _ = run_cli("history", "compare", "--db", db, "--head", "9b1e004", "--json",
                            "--store", expect=0)
        docs.append(json.loads(out))
    with History.open(sqlite) as a, History.open(url) as b:
        (x,), (y,) = a.checks(), b.checks()
    assert "s3cret" not in json.dumps(y.document) and "***" in json.dumps(y.document)
    for key in ("argv", "inputs"):  # the envelope names the store: the one difference
        assert x.document.pop(key) != y.document.pop(key)
    assert replace(x, recorded="") == replace(y, recorded="")
    assert [(r.estimate, r.low, r.high, r.level) for r in y.rows] == [
        (d["estimate"], d["low"], d["high"], d["level"]) for d in docs[1]["decisions"]]
    _, _, err = run_cli("history", "compare", "--db", url, "--head", "9b1e004", "--store",
                        "--threshold", "3%", expect=0)
    assert "replacing the one recorded" in err and "s3cret" not in err
    with History.open(url) as b:
        assert [c.threshold for c in b.checks()] == [0.03]
    # a schema-2 history in PostgreSQL: no checks, and the tables when written
    old = postgres_server.database("pr_checks_v2")
    for args in ADD:
        run_cli(*args, "--db", old, expect=0)
    with History.open(old, write=True) as h:
        with h.db.write():
            h.db.execute("DROP TABLE check_results")
            h.db.execute("DROP TABLE checks")
            h.db.execute("UPDATE history_meta SET value = '2' WHERE key = 'schema_version'")
    with History.open(old) as h:
        assert h.version == 2 and h.checks() == []
    run_cli("history", "compare", "--db", old, "--head", "9b1e004", "--store", expect=0)
    with History.open(old) as h:
        assert h.version == 3 and [c.head for c in h.checks()] == ["9b1e004"]
    # PostgreSQL to SQLite, whole
    _, text, _ = run_cli("history", "export", "--db", url, expect=0)
    (tmp_path / "pg.jsonl").write_text(text)
    copy = str(tmp_path / "copy.db")
    run_cli("history", "import", tmp_path / "pg.jsonl", "--db", copy, expect=0)
    with History.open(url) as b, History.open(copy) as c:
        assert b.checks() == c.checks()


def _noisy_history(path: Path) -> None:
    """Seven commits of two benchmarks whose 6 runs vary by about 100% (lognormal, σ 1):
    each head's ratio CI (Fieller) reaches below 0, and some of the geometric mean's
    bootstrap replicates have a head mean at or below 0 (the head's pseudo-units)."""
    import numpy as np

    from benchlab.history.store import CommitResults, SeriesData

    rng = np.random.default_rng(0)
    commits = [CommitResults(f"{c:04d}abcdef", f"2024-01-01T00:00:{c:02d}Z", "main",
                             tuple(SeriesData(b, "wall", "default", "s", False, (),
                                              rng.lognormal(0.0, 1.0, 6), ())
                                   for b in ("a", "b")))
               for c in range(7)]
    with History.open_or_create(str(path)) as h:
        h.add(commits)


def test_an_unbounded_geometric_mean_is_null_in_json_stored_and_published(run_cli, tmp_path):
    db = tmp_path / "noisy.db"
    _noisy_history(db)
    _, text, _ = run_cli("history", "compare", "--db", db, "--head", "0006abcdef", expect=0)
    assert "ratio 1.4 (-0.7 .. 5.2)" in text and "(unbounded)" in text.split("geomean")[1]
    _, html, _ = run_cli("history", "compare", "--db", db, "--head", "0006abcdef",
                         "--format", "html", expect=0)
    geo_table = html.split('class="geomean"')[1].split("</table>")[0]
    assert '<td class="num">unbounded</td>' in geo_table and "n/a" not in geo_table
    _, out, _ = run_cli("history", "compare", "--db", db, "--head", "0006abcdef", "--json",
                        "--store", expect=0)
    doc = json.loads(out)
    (g,) = doc["geometric_means"]
    # the replicates without a geometric mean lie below every other: the low end
    assert g["low"] is None and g["estimate"] < g["high"] < 5.2
    assert all(r["ratio"]["low"] < 0 for b in doc["benchmarks"] for r in b["comparisons"])
    with History.open(str(db)) as h:
        (check,) = h.checks()
    assert check.document == doc
    site = tmp_path / "site"
    run_cli("history", "publish", "--db", db, "-o", site, expect=0)
    (page,) = (site / "checks").glob("*.html")
    (geo,) = [a for tag, a in _tags(page) if a.get("class") == "geomean"]
    assert geo["data-low"] == "" and float(geo["data-high"]) == g["high"]
    assert "[unbounded]" in page.read_text()

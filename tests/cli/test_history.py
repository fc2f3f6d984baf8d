"""`benchlab history add|check|compare` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest


def write_past(path: Path, levels: dict[str, list[float]], runs: int = 3, per_run: int = 2,
               noise: float = 0.01, seed: int = 0, dates: bool = True) -> str:
    """A long table: per commit, benchmark, run and iteration one time; `levels` gives each
    benchmark's true mean per commit."""
    rng = np.random.default_rng(seed)
    lines = ["commit,date,benchmark,run,time"]
    n = len(next(iter(levels.values())))
    for c in range(n):
        for bench, means in levels.items():
            for r in range(runs):
                for x in rng.normal(means[c], noise * means[c], per_run):
                    date = f"2024-01-01T00:{c // 60:02d}:{c % 60:02d}Z" if dates else ""
                    lines.append(f"c{c:03d},{date},{bench},{r},{x:.6f}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def bulk(run_cli, csv: str, db: str, *extra: str):
    return run_cli("history", "add", csv, "--by", "benchmark", "--value", "time", "--unit", "s",
                   "--levels", "run", "--commit-column", "commit", "--date-column", "date",
                   "--db", db, *extra)


@pytest.fixture
def shifted(tmp_path, run_cli) -> str:
    """40 commits; `sort` 5% slower from c025, `parse` unchanged."""
    csv = write_past(tmp_path / "past.csv", {"sort": [1.0] * 25 + [1.05] * 15,
                                             "parse": [2.0] * 40})
    db = str(tmp_path / "h.db")
    code, out, err = bulk(run_cli, csv, db)
    assert code == 0 and "added 480 measurements of 2 benchmarks for 40 commits" in out, err
    return db


def test_check_reports_the_change_where_it_starts(run_cli, shifted):
    code, out, err = run_cli("history", "check", "--db", shifted, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["command"] == "history check" and doc["series"] == 2 and doc["commits"] == 40
    [change] = doc["changes"]
    assert (change["benchmark"], change["commit"], change["previous_commit"]) == \
        ("sort", "c025", "c024")
    assert change["ratio"]["low"] < 1.05 < change["ratio"]["high"]
    assert change["ratio"]["low"] > 1.02
    assert change["verdict"]["outcome"] == "change" and change["verdict"]["regression"]
    assert (change["commits_before"], change["commits_after"]) == (25, 15)


def test_the_ratio_ci_is_that_of_compare_on_the_commit_means(run_cli, shifted, tmp_path):
    """Each commit is one unit: compare on the per-commit means gives the same interval."""
    from benchlab.history.check import commit_means
    from benchlab.history.store import History

    _, out, _ = run_cli("history", "check", "--db", shifted, "--json", expect=0)
    ratio = json.loads(out)["changes"][0]["ratio"]
    with History.open(shifted) as h:
        sort = next(s for s in h.series() if s.benchmark == "sort")
    _, means = commit_means(sort)
    np.savetxt(tmp_path / "before.txt", means[:25])
    np.savetxt(tmp_path / "after.txt", means[25:])
    _, out, _ = run_cli("compare", tmp_path / "before.txt", tmp_path / "after.txt", "--json",
                        "--no-diagnostics", expect=0)
    ref = json.loads(out)["comparisons"][0]["ratio"]
    assert ratio["low"] == pytest.approx(ref["low"], rel=1e-9)
    assert ratio["high"] == pytest.approx(ref["high"], rel=1e-9)


def test_fail_on_and_the_reporting_window(run_cli, shifted):
    assert run_cli("history", "check", "--db", shifted, "--fail-on", "regression")[0] == 1
    assert run_cli("history", "check", "--db", shifted, "--fail-on", "change")[0] == 1
    code, out, _ = run_cli("history", "check", "--db", shifted, "--last", "10", "--json",
                           "--fail-on", "regression")
    assert code == 0 and json.loads(out)["changes"] == []
    _, out, _ = run_cli("history", "check", "--db", shifted, "--since", "c020", "--json", expect=0)
    assert [c["commit"] for c in json.loads(out)["changes"]] == ["c025"]
    code, _, err = run_cli("history", "check", "--db", shifted, "--since", "nope")
    assert code == 2 and "no commit 'nope'" in err


def test_a_change_below_the_threshold_is_not_reported(run_cli, shifted):
    _, out, _ = run_cli("history", "check", "--db", shifted, "--threshold", "8%", "--json",
                        expect=0)
    assert json.loads(out)["changes"] == []


def test_a_short_series_is_said_and_reports_nothing(run_cli, tmp_path):
    csv = write_past(tmp_path / "p.csv", {"sort": [1.0, 1.0, 2.0, 2.0]})
    db = str(tmp_path / "h.db")
    bulk(run_cli, csv, db)
    code, out, _ = run_cli("history", "check", "--db", db)
    assert code == 0 and "0\n" in out.splitlines()[0] + "\n"
    assert "4 commits; finding a change needs at least 6" in out


def test_every_format_of_check(run_cli, shifted):
    for fmt in ("text", "markdown", "csv", "html"):
        code, out, err = run_cli("history", "check", "--db", shifted, "--format", fmt)
        assert code == 0 and "c025" in out, (fmt, err)
    _, out, _ = run_cli("history", "check", "--db", shifted, "--format", "csv", expect=0)
    assert out.splitlines()[0].startswith("table,benchmark,metric,term,estimate,low,high")


def test_add_refuses_a_second_add_and_a_commit_with_two_dates(run_cli, tmp_path):
    csv = write_past(tmp_path / "p.csv", {"sort": [1.0] * 3})
    db = str(tmp_path / "h.db")
    assert bulk(run_cli, csv, db)[0] == 0
    code, _, err = bulk(run_cli, csv, db)
    assert code == 2 and "already has results" in err and "--replace" in err
    assert bulk(run_cli, csv, db, "--replace")[0] == 0
    text = Path(csv).read_text().replace("c001,2024-01-01T00:00:01Z,sort,1",
                                         "c001,2024-01-01T00:00:09Z,sort,1")
    (tmp_path / "twice.csv").write_text(text)
    code, _, err = bulk(run_cli, str(tmp_path / "twice.csv"), str(tmp_path / "new.db"))
    assert code == 2 and "commit 'c001' is given with different dates" in err
    assert len(err.splitlines()) == 1


def test_add_one_commit_and_a_corrupt_db(run_cli, tmp_path):
    one = tmp_path / "one.txt"
    one.write_text("1.0\n1.1\n0.9\n")
    db = tmp_path / "h.db"
    code, out, err = run_cli("history", "add", one, "--db", db, "--commit", "abc",
                             "--unit", "ms")
    assert code == 0 and "added 3 measurements of 1 benchmark for commit abc" in out, err
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not sqlite at all")
    code, _, err = run_cli("history", "add", one, "--db", bad, "--commit", "abc")
    assert code == 2 and "not a benchlab history" in err and len(err.splitlines()) == 1
    assert bad.read_bytes() == b"not sqlite at all"
    code, _, err = run_cli("history", "add", one, "--db", db)
    assert code == 2 and "--commit SHA, or --commit-column" in err


def test_compare_uses_the_segment_since_the_last_change(run_cli, shifted, tmp_path):
    """The head of `sort` is 4% above the level since c025 (9% above the old level): the
    baseline is c025..c039, so the ratio is near 1.04, and family-wise decisions apply."""
    rng = np.random.default_rng(9)
    lines = ["benchmark,run,time"]
    for bench, mean in (("sort", 1.05 * 1.04), ("parse", 2.0)):
        lines += [f"{bench},{r},{x:.6f}" for r in range(3) for x in rng.normal(mean, 0.01, 2)]
    head = tmp_path / "head.csv"
    head.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("history", "add", head, "--by", "benchmark", "--value", "time",
                           "--levels", "run", "--unit", "s", "--db", shifted, "--commit", "h",
                           "--date", "2024-02-01")
    assert code == 0, err
    code, out, err = run_cli("history", "compare", "--db", shifted, "--head", "h", "--json",
                             "--fail-on", "regression")
    assert code == 1, err
    doc = json.loads(out)
    assert any(n.startswith("sort: baseline 15 commits from c025; commit-to-commit spread")
               for n in doc["notes"])
    spreads = {s["benchmark"]: s for s in doc["spreads"]}
    assert (spreads["sort"]["baseline_commits"], spreads["sort"]["baseline_start"]) == \
        (15, "c025")
    assert doc["head"] == "h" and doc["unbaselined"] == []
    rows = {b["benchmark"]: b for b in doc["benchmarks"]}
    ratio = rows["sort"]["comparisons"][0]["ratio"]
    assert ratio["low"] < 1.04 < ratio["high"] and ratio["low"] > 1.02
    assert rows["parse"]["comparisons"][0]["verdict"]["outcome"] != "change"
    code, _, err = run_cli("history", "compare", "--db", shifted, "--head", "nope")
    assert code == 2 and "no commit 'nope'" in err


# -- history show ----------------------------------------------------------------------
def test_show_json_gives_every_commit_with_the_t_interval_of_its_runs(run_cli, shifted):
    """Each commit's mean and CI from its run means, checked with scipy's t interval."""
    from scipy import stats

    from benchlab.history.store import History

    code, out, err = run_cli("history", "show", "--db", shifted, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["command"] == "history show" and doc["commits"] == 40
    by_name = {s["benchmark"]: s for s in doc["series"]}
    assert [c["commit"] for c in by_name["sort"]["changes"]] == ["c025"]
    assert by_name["parse"]["changes"] == []
    with History.open(shifted) as h:
        sort = next(s for s in h.series() if s.benchmark == "sort")
    for c in (0, 31):
        mask = sort.commit_index == c
        runs = [sort.values[mask][sort.levels[0][mask] == r].mean() for r in "012"]
        low, high = stats.t.interval(0.95, 2, loc=np.mean(runs), scale=stats.sem(runs))
        point = by_name["sort"]["commits"][c]
        assert point["commit"] == f"c{c:03d}" and point["n"] == 3
        assert point["mean"] == pytest.approx(np.mean(runs), rel=1e-12)
        assert (point["low"], point["high"]) == (pytest.approx(low, rel=1e-10),
                                                 pytest.approx(high, rel=1e-10))


def test_show_text_has_a_sparkline_with_the_change_marked(run_cli, shifted):
    code, out, err = run_cli("history", "show", "--db", shifted, "--benchmark", "sort")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("sort (value, default): 40 commits c000 .. c039")
    spark, marks = lines[1].strip(), lines[2]
    assert len(spark) == 40 and set(spark) <= set("▁▂▃▄▅▆▇█")
    assert max(spark[:25]) < min(spark[25:])  # the 5% step stands out of 1% noise
    assert marks.index("^") == 2 + 25
    assert "parse" not in out


def test_show_last_and_csv_rows(run_cli, shifted):
    import csv
    import io

    code, out, err = run_cli("history", "show", "--db", shifted, "--last", "20", "--format",
                             "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 40 and {r["benchmark"] for r in rows} == {"sort", "parse"}
    sort = [r for r in rows if r["benchmark"] == "sort"]
    assert sort[0]["commit"] == "c020" and [r["commit"] for r in sort
                                           if r["change"] == "True"] == ["c025"]
    # the change at c025 is found on the whole history and still shown from c020 on
    code, out, _ = run_cli("history", "show", "--db", shifted, "--last", "10", "--json", expect=0)
    assert [s["changes"] for s in json.loads(out)["series"]] == [[], []]


def test_show_markdown_html_and_plot(run_cli, shifted, tmp_path):
    code, out, err = run_cli("history", "show", "--db", shifted, "--format", "markdown")
    assert code == 0, err
    assert "**sort**" in out and "- from `c025` (after `c024`)" in out
    plot, page = tmp_path / "t.svg", tmp_path / "t.html"
    code, out, err = run_cli("history", "show", "--db", shifted, "--format", "html", "-o",
                             page, "--plot", plot)
    assert code == 0, err
    html = page.read_text()
    import re

    assert html.count("<svg") == 2 and "c025" in html
    assert not re.search(r'(src|href)="https?:', html)  # nothing fetched
    assert plot.read_text().startswith("<?xml") and "c024" in plot.read_text()


def test_check_and_show_give_one_answer_per_change(run_cli, shifted):
    """`history show` marks exactly the changes `history check` reports, with the same CI,
    for the whole history, one benchmark alone, and the last commits only."""
    _, out, _ = run_cli("history", "check", "--db", shifted, "--json", expect=0)
    checked = json.loads(out)["changes"]
    assert checked, "the fixture has a change"
    for extra in ((), ("--benchmark", "sort"), ("--last", "20")):
        code, out, err = run_cli("history", "show", "--db", shifted, "--json", *extra)
        assert code == 0, err
        shown = [c for s in json.loads(out)["series"] for c in s["changes"]]
        assert shown == checked, extra
    _, text_check, _ = run_cli("history", "check", "--db", shifted, expect=0)
    _, text_show, _ = run_cli("history", "show", "--db", shifted, expect=0)
    ratio = text_check.split(" ratio ")[1].split(":")[0]
    assert f"ratio {ratio}:" in text_show


def test_show_gives_the_last_mean_in_the_units_of_the_reports(run_cli, shifted):
    """"last mean" as the other reports print a mean: scaled unit, the digits its CI
    justifies (report/numbers.py), not six significant digits in seconds."""
    from benchlab.report.numbers import fmt_quantity
    from benchlab.units import make_unit

    _, out, _ = run_cli("history", "show", "--db", shifted, "--json", expect=0)
    last = json.loads(out)["series"][0]["commits"][-1]
    expected = fmt_quantity(last["mean"], make_unit("s"), (last["high"] - last["low"]) / 2)
    assert expected.endswith(" ms") or expected.endswith(" s")
    for fmt in ("text", "markdown"):
        code, out, err = run_cli("history", "show", "--db", shifted, "--format", fmt)
        assert code == 0, err
        assert f"last mean {expected}" in out, fmt
    _, out, _ = run_cli("history", "show", "--db", shifted, "--benchmark", "parse", expect=0)
    shown = out.split("last mean ")[1].split(" s, 0 changes")[0]
    assert 1.9 < float(shown) < 2.1 and len(shown) <= 5  # "1.99" (its CI ±1%), not "1.99312"


@pytest.mark.parametrize("args, message", [
    (("--benchmark", "nope"), "--benchmark: no benchmark 'nope'"),
    (("--last", "0"), "--last must be 1 or more"),
])
def test_show_bad_input_is_one_line(run_cli, shifted, args, message):
    code, out, err = run_cli("history", "show", "--db", shifted, *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


# -- benchmarks with too few commits ---------------------------------------------------
def _head_file(tmp_path: Path, means: dict[str, float], runs: int = 3) -> Path:
    rng = np.random.default_rng(4)
    lines = ["benchmark,run,time"]
    for bench, mean in means.items():
        lines += [f"{bench},{r},{x:.6f}" for r in range(runs) for x in rng.normal(mean, 0.01, 2)]
    path = tmp_path / "head.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _add_head(run_cli, path: Path, db: str, sha: str = "h") -> None:
    code, _, err = run_cli("history", "add", path, "--by", "benchmark", "--value", "time",
                           "--levels", "run", "--unit", "s", "--db", db, "--commit", sha,
                           "--date", "2024-02-01")
    assert code == 0, err


def test_check_says_which_benchmark_has_too_few_commits(run_cli, shifted, tmp_path):
    """A benchmark in one commit only: one note line with its name, its commit count and
    the count needed; nothing reported for it, the others still checked."""
    _add_head(run_cli, _head_file(tmp_path, {"fresh": 3.0}), shifted)
    code, out, err = run_cli("history", "check", "--db", shifted, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [c["benchmark"] for c in doc["changes"]] == ["sort"]
    [note] = [n for n in doc["notes"] if "fresh" in n]
    assert note == ("fresh (value, default): 1 commit; finding a change needs at least 6 (3 "
                    "on each side), so none is reported")
    _, text, _ = run_cli("history", "check", "--db", shifted, expect=0)
    assert sum("fresh" in line for line in text.splitlines()) == 1


def test_compare_gives_a_new_benchmark_its_row(run_cli, shifted, tmp_path):
    _add_head(run_cli, _head_file(tmp_path, {"sort": 1.05, "parse": 2.0, "fresh": 3.0}),
              shifted)
    code, out, err = run_cli("history", "compare", "--db", shifted, "--head", "h")
    assert code == 0, err
    [row] = [line for line in out.splitlines() if line.startswith("fresh ")]
    assert row.endswith("new benchmark, no baseline") and "n=3" in row
    assert any(line.startswith("sort ") for line in out.splitlines())
    code, out, _ = run_cli("history", "compare", "--db", shifted, "--head", "h", "--json", expect=0)
    doc = json.loads(out)
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["parse", "sort"]
    [new] = doc["unbaselined"]
    assert (new["benchmark"], new["baseline_commits"], new["head_n"], new["verdict"]) == \
        ("fresh", 0, 3, "new benchmark, no baseline")
    assert new["head_mean"] == pytest.approx(3.0, rel=0.02)
    for fmt in ("markdown", "csv", "html"):
        code, out, err = run_cli("history", "compare", "--db", shifted, "--head", "h",
                                 "--format", fmt)
        assert code == 0 and "fresh" in out and "new benchmark, no baseline" in out, (fmt, err)


def test_compare_of_a_head_with_no_baseline_at_all(run_cli, tmp_path):
    db = str(tmp_path / "h.db")
    _add_head(run_cli, _head_file(tmp_path, {"a": 1.0, "b": 2.0}), db, "first")
    code, out, err = run_cli("history", "compare", "--db", db, "--head", "first",
                             "--fail-on", "change")
    assert code == 0, err
    assert out.splitlines()[0].startswith("head first: no benchmark has a baseline")
    assert sum(line.endswith("new benchmark, no baseline") for line in out.splitlines()) == 2
    code, out, _ = run_cli("history", "compare", "--db", db, "--head", "first", "--json", expect=0)
    doc = json.loads(out)
    assert doc["benchmarks"] == [] and [u["benchmark"] for u in doc["unbaselined"]] == ["a", "b"]
    for fmt in ("markdown", "csv", "html"):
        code, out, err = run_cli("history", "compare", "--db", db, "--head", "first",
                                 "--format", fmt)
        assert code == 0 and "new benchmark, no baseline" in out, (fmt, err)


# -- history compare against the parent alone ------------------------------------------
def _commit_file(tmp_path: Path, name: str, mean: float, runs: int = 4, seed: int = 0
                 ) -> Path:
    """One commit of benchmark `parse`: `runs` runs of 2 iterations around `mean`."""
    rng = np.random.default_rng(seed)
    lines = ["benchmark,run,time"]
    lines += [f"parse,{r},{x:.6f}" for r in range(runs) for x in rng.normal(mean, 0.01, 2)]
    path = tmp_path / f"{name}.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _add_commit(run_cli, path: Path, db: str, sha: str, date: str) -> None:
    code, _, err = run_cli("history", "add", path, "--by", "benchmark", "--value", "time",
                           "--levels", "run", "--unit", "s", "--db", db, "--commit", sha,
                           "--date", date)
    assert code == 0, err


def test_compare_with_one_parent_is_compare_of_their_runs(run_cli, tmp_path):
    """With one earlier commit the head's run means are compared with the parent's as
    `compare` compares two samples (same CI bounds), and the output says the
    commit-to-commit variance is unknown and that 2 earlier commits would estimate it."""
    db = str(tmp_path / "h.db")
    parent, head = _commit_file(tmp_path, "p", 1.0, seed=1), _commit_file(tmp_path, "h", 1.03,
                                                                           runs=5, seed=2)
    _add_commit(run_cli, parent, db, "p1", "2024-01-01")
    _add_commit(run_cli, head, db, "h1", "2024-01-02")
    code, out, err = run_cli("history", "compare", "--db", db, "--head", "h1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["parent_only"] == [{"benchmark": "parse", "parent": "p1", "parent_n": 4,
                                   "head_n": 5, "commit_variance": None,
                                   "commits_needed": 2}]
    assert doc["spreads"] == [] and doc["unbaselined"] == []
    [row] = doc["benchmarks"]
    [got] = row["comparisons"]
    # the reference: compare on the two commits' run means (each run one unit)
    means = {}
    for name, path in (("p", parent), ("h", head)):
        table = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding=None)
        runs = [table["time"][table["run"] == r].mean() for r in np.unique(table["run"])]
        means[name] = tmp_path / f"{name}-runs.txt"
        means[name].write_text("\n".join(repr(float(x)) for x in runs) + "\n")
    code, out, err = run_cli("compare", means["p"], means["h"], "--unit", "s", "--threshold",
                             "2%", "--json")
    assert code == 0, err
    [want] = json.loads(out)["comparisons"]
    assert got["ratio"]["method"] == want["ratio"]["method"] == "Fieller (welch df)"
    for key in ("estimate", "low", "high"):
        assert got["ratio"][key] == pytest.approx(want["ratio"][key], rel=1e-9), key
    assert got["verdict"]["outcome"] == want["verdict"]["outcome"]
    said = " ".join(doc["notes"])
    assert "compared with its parent p1 alone" in said
    assert "commit-to-commit variance is unknown" in said
    assert "needs 2 earlier commits on the branch (1 more)" in said
    code, text, err = run_cli("history", "compare", "--db", db, "--head", "h1")
    assert code == 0, err
    assert text.startswith("benchmark") and "\nparse " in text
    assert "commit-to-commit variance is unknown" in text and "new benchmark" not in text
    code, _, err = run_cli("history", "compare", "--db", db, "--head", "h1", "--fail-on",
                           "regression")
    assert code == (1 if want["verdict"]["regression"] else 0), err


def test_compare_with_two_parents_keeps_the_commit_spread(run_cli, tmp_path):
    """From 2 earlier commits on, the head carries the commit-to-commit variance (spreads)
    and nothing is compared with the parent alone."""
    db = str(tmp_path / "h.db")
    for k, (sha, mean) in enumerate((("p0", 1.0), ("p1", 1.01), ("h1", 1.03))):
        _add_commit(run_cli, _commit_file(tmp_path, sha, mean, seed=k), db, sha,
                    f"2024-01-0{k + 1}")
    code, out, err = run_cli("history", "compare", "--db", db, "--head", "h1", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["parent_only"] == [] and doc["unbaselined"] == []
    [spread] = doc["spreads"]
    assert spread["baseline_commits"] == 2 and spread["baseline_start"] == "p0"
    assert not any("unknown" in n for n in doc["notes"])
    # and the head against the first commit alone is the parent-only comparison
    code, out, err = run_cli("history", "compare", "--db", db, "--head", "p1", "--json")
    assert code == 0, err
    assert [p["parent"] for p in json.loads(out)["parent_only"]] == ["p0"]


def test_compare_with_a_parent_of_one_run_is_not_compared(run_cli, tmp_path):
    """A parent with a single unit gives no within-commit variance: a row of its own."""
    db = str(tmp_path / "h.db")
    _add_commit(run_cli, _commit_file(tmp_path, "p", 1.0, runs=1), db, "p1", "2024-01-01")
    _add_commit(run_cli, _commit_file(tmp_path, "h", 1.0, seed=3), db, "h1", "2024-01-02")
    code, out, err = run_cli("history", "compare", "--db", db, "--head", "h1")
    assert code == 0, err
    assert ("no baseline: 1 earlier commit on its branch with 1 unit, the head 4; comparing "
            "with the parent needs 2 on each side") in out
    code, out, _ = run_cli("history", "compare", "--db", db, "--head", "h1", "--json",
                           expect=0)
    [u] = json.loads(out)["unbaselined"]
    assert (u["baseline_commits"], u["parent_n"], u["head_n"]) == (1, 1, 4)


def test_units_along_a_series_are_converted_or_refused_in_one_line(run_cli, tmp_path):
    """A series keeps its first unit: ms converts to s; MB/s cannot, and is refused in one
    line with nothing written."""
    db = tmp_path / "h.db"
    for sha, unit, values in (("a", "s", "1.0\n1.1\n0.9\n"), ("b", "ms", "1000\n1100\n900\n"),
                              ("c", "MB/s", "5\n6\n7\n")):
        (tmp_path / sha).mkdir()
        path = tmp_path / sha / "sort.txt"  # the same benchmark, named by its file
        path.write_text(values)
        code, out, err = run_cli("history", "add", path, "--db", db, "--commit", sha,
                                 "--unit", unit)
        if sha != "c":
            assert code == 0 and "1 benchmark" in out, err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "is stored in s; its new results in MB/s cannot be converted" in err
    from benchlab.history.store import History

    with History.open(str(db)) as h:
        [s] = h.series()
        assert [c.sha for c in h.commits()] == ["a", "b"]
    np.testing.assert_allclose(s.values, [1.0, 1.1, 0.9, 1.0, 1.1, 0.9])


def test_compare_notes_a_head_whose_runs_vary_more(run_cli, shifted, tmp_path):
    """`parse`'s head runs spread about 5% (its baseline's about 0.7%): a note says how much
    more and the F test's p, its CI uses the head's own spread (wider than the pooled one),
    and the JSON spreads carry the test; `sort`'s ordinary head gets no note."""
    rng = np.random.default_rng(12)
    lines = ["benchmark,run,time"]
    for r, offset in enumerate((-0.1, 0.1, -0.08, 0.12, 0.0, -0.04)):
        lines += [f"parse,{r},{x:.6f}" for x in rng.normal(2.0 + offset, 0.02, 2)]
    lines += [f"sort,{r},{x:.6f}" for r in range(6) for x in rng.normal(1.05, 0.01, 2)]
    head = tmp_path / "head.csv"
    head.write_text("\n".join(lines) + "\n")
    _add_head(run_cli, head, shifted)
    code, out, err = run_cli("history", "compare", "--db", shifted, "--head", "h")
    assert code == 0, err
    noted = [line for line in out.splitlines() if "runs vary" in line]
    assert len(noted) == 1 and "parse: the head's runs vary" in noted[0]
    assert "(F test p = " in noted[0] and noted[0].endswith("its CI uses the head's own spread")
    code, out, err = run_cli("history", "compare", "--db", shifted, "--head", "h", "--json",
                             expect=0)
    doc = json.loads(out)
    spreads = {s["benchmark"]: s for s in doc["spreads"]}
    parse, sort = spreads["parse"], spreads["sort"]
    assert parse["head_within_used"] == "head" and parse["head_noisier"] is True
    assert parse["head_f_df"] == [5, 80] and parse["head_f"] > 10 and parse["head_f_p"] < 0.01
    assert parse["head_within_df"] == 5 and parse["within_df"] == 80
    assert sort["head_noisier"] is False and sort["head_f_df"] == [5, 30]
    from benchlab.history.compare import compare_head
    from benchlab.history.store import History

    with History.open(shifted) as h:
        series, commits = h.series(), h.commits()
    pooled = compare_head(series, commits, "h", head_spread=False, replicates=100)
    rows = {b["benchmark"]: b for b in doc["benchmarks"]}
    ratio = rows["parse"]["comparisons"][0]["ratio"]
    before = dict(pooled.benchmarks)["parse"].comparisons[0].ratio
    assert ratio["high"] - ratio["low"] > 2 * (before.high - before.low)


def test_a_store_run_on_machines_gives_each_machine_its_series(run_cli, tmp_path):
    """A cluster run with the machine as a factor (docs/cluster.md): each machine's data is
    that machine's series of the benchmark; identical machines (role level) stay one series
    with the machine as a level; --machine beside machines of the store is refused."""
    import sqlite3

    examples = Path(__file__).resolve().parents[2] / "examples" / "experiments"
    db = tmp_path / "h.db"
    code, out, err = run_cli("history", "add", examples / "machines.db", "--db", db,
                             "--commit", "c1")
    assert code == 0, err
    with sqlite3.connect(db) as conn:
        keys = sorted(conn.execute("SELECT benchmark, machine FROM series").fetchall())
    assert keys == [("long", "m1"), ("long", "m2"), ("short", "m1"), ("short", "m2")]
    _, out, _ = run_cli("history", "show", "--db", db, "--format", "json", expect=0)
    by_key = {(s["benchmark"], s["machine"]): s for s in json.loads(out)["series"]}
    store = sqlite3.connect(f"file:{examples / 'machines.db'}?mode=ro", uri=True)
    expected = store.execute(
        "SELECT AVG(m.value) FROM measurements m JOIN trials t ON t.seq = m.trial WHERE "
        "m.warmup = 0 AND m.metric = 'wall' AND t.alternative = 'long' AND "
        "json_extract(t.factors, '$.machine') = 'm2'").fetchone()[0]
    store.close()
    shown = by_key[("long", "m2")]["commits"][0]["mean"]
    assert shown == pytest.approx(expected, rel=1e-12)
    code, _, err = run_cli("history", "add", examples / "machines.db", "--db", db,
                           "--commit", "c2", "--machine", "lab")
    assert code == 2 and "m1, m2" in err and "--machine" in err
    level = tmp_path / "level.db"
    assert run_cli("history", "add", examples / "machines-level.db", "--db", level,
                   "--commit", "c1")[0] == 0
    with sqlite3.connect(level) as conn:
        rows = conn.execute("SELECT benchmark, machine, levels FROM series").fetchall()
    assert sorted(r[:2] for r in rows) == [("full", "default"), ("half", "default")]
    assert all("machine" in json.loads(r[2]) for r in rows)


def test_check_gives_episodes_head_changes_and_transients(run_cli, tmp_path):
    """A 4-commit regression that was fixed, a spike, and a +6% change 2 commits before the
    head: an episode, a transient and a recent change at the head that --fail-on trips."""
    sort = [1.0] * 60
    sort[20:24] = [1.08] * 4
    parse = [2.0] * 60
    parse[40] = 2.6
    parse[58:] = [2.12] * 2
    csv = write_past(tmp_path / "p.csv", {"sort": sort, "parse": parse}, noise=0.005)
    db = str(tmp_path / "h.db")
    assert bulk(run_cli, csv, db)[0] == 0
    code, out, err = run_cli("history", "check", "--db", db, "--json")
    assert code == 0, err
    doc = json.loads(out)
    kinds = {c["benchmark"]: c for c in doc["changes"]}
    episode, head = kinds["sort"], kinds["parse"]
    assert (episode["kind"], episode["commit"], episode["end_commit"],
            episode["commits_after"], episode["recent"]) == ("episode", "c020", "c024", 4, False)
    assert (head["kind"], head["commit"], head["commits_after"], head["recent"]) == \
        ("head", "c058", 2, True)
    assert head["ratio"]["low"] > 1.02 and head["verdict"]["regression"]
    [spike] = doc["transients"]
    assert (spike["benchmark"], spike["commit"]) == ("parse", "c040")
    assert spike["ratio"]["low"] > 1.02 and spike["commits_compared"] > 40
    assert doc["min_segment"] == 2
    sizes = {h["benchmark"]: [d["change"] for d in h["detectable"]] for h in doc["heads"]}
    assert sizes["sort"][0] > sizes["sort"][-1] > 0.02
    code, out, _ = run_cli("history", "check", "--db", db)
    assert code == 0
    assert "episode from c020 to c024, fixed at c024" in out
    assert "possible change at the head, 2 commits since: may still move" in out
    assert "a change of ±" in out
    assert "transients (one-commit spikes, not changes): 1" in out
    code, out, _ = run_cli("history", "show", "--db", db)
    assert code == 0 and "^ episode from c020 to c024: ratio" in out
    assert "^ at the head from c058: ratio" in out
    assert run_cli("history", "check", "--db", db, "--last", "3", "--fail-on",
                   "regression")[0] == 1
    code, out, _ = run_cli("history", "check", "--db", db, "--min-segment", "5", "--json")
    # no window shorter than 5: the 4 commits are seen in a 5-commit window, diluted
    wide = [c for c in json.loads(out)["changes"] if c["kind"] == "episode"]
    assert code == 0 and [c["commits_after"] for c in wide] == [5]
    assert wide[0]["ratio"]["estimate"] < episode["ratio"]["estimate"]
    code, _, err = run_cli("history", "check", "--db", db, "--min-segment", "1")
    assert code == 2 and "--min-segment must be between 2 and 32, not 1" in err


def test_check_links_a_fixed_regression_of_two_steps_into_one_episode(run_cli, tmp_path):
    """40 commits at +6% (longer than any window of the scan): E-Divisive's two steps are
    one episode, since the level after the fix is that before it within ±2%; in text a
    line says so, in JSON `back` gives that ratio; a regression, so --fail-on trips."""
    sort = [1.0] * 20 + [1.06] * 40 + [1.0] * 20
    csv = write_past(tmp_path / "p.csv", {"sort": sort}, noise=0.01)
    db = str(tmp_path / "h.db")
    assert bulk(run_cli, csv, db)[0] == 0
    code, out, err = run_cli("history", "check", "--db", db, "--json")
    assert code == 0, err
    [c] = json.loads(out)["changes"]
    assert (c["kind"], c["commit"], c["end_commit"], c["commits_after"]) == \
        ("episode", "c020", "c060", 40)
    assert c["ratio"]["low"] > 1.04 and c["ratio"]["confidence"] == 0.95
    assert 0.98 < c["back"]["low"] < c["back"]["high"] < 1.02
    code, out, _ = run_cli("history", "check", "--db", db, "--fail-on", "regression")
    assert code == 1
    assert "episode from c020 to c060, fixed at c060 (40 commits against the 40" in out
    assert "two steps, one episode: after c060 the level is back within ±2% of before" in out

"""`benchlab profile-diff STORE`: the per-function profiles a store made with counter =
"callgrind" keeps, ranked between two alternatives (median over the counted executions).
One real experiment per module: examples/experiments/profiles.c (the program of
tests/fixtures/counts, copied as work.c) built twice (the second with
more iterations in scale()), two counted executions of each under callgrind."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import textwrap

import pytest

from benchlab.data.profiles import read_profile
from benchlab.runner.session import run_experiment
from benchlab.runner.store import Store

SOURCE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "experiments",
                      "profiles.c")


def _counted_store(tmp_path_factory, name: str, factors: str, argument: str) -> str:
    """A real store of two builds of the example program counted under callgrind (two
    executions per cell), with `factors` (TOML of a [factors] table, or "") and the
    program's `argument`."""
    for tool in ("cc", "valgrind"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (.ci/run installs valgrind from Debian)")
    folder = tmp_path_factory.mktemp(name)
    shutil.copy(SOURCE, folder / "work.c")
    (folder / "exp.toml").write_text(textwrap.dedent("""
        seed = 5
        executions = 2
        metrics = ["instructions"]
        counter = "callgrind"
        FACTORS
        [alternatives.base]
        build = ["cc", "-O1", "-g", "-o", "work-base", "work.c"]
        command = ["./work-{alternative}", "ARGUMENT"]
        [alternatives.slow]
        build = ["cc", "-O1", "-g", "-DEXTRA=500", "-o", "work-slow", "work.c"]
        command = ["./work-{alternative}", "ARGUMENT"]
    """).replace("FACTORS", factors).replace("ARGUMENT", argument))
    db = str(folder / "r.db")
    result = run_experiment(str(folder / "exp.toml"), db)
    cells = 2 * (2 if factors else 1)
    assert result.status == "finished" and result.counts == {"ok": 2 + cells * 2}
    return db


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    return _counted_store(tmp_path_factory, "profiles", "", "20000")


def _stored(db: str, key=lambda p: p.alternative) -> dict:
    """The store's kept trials as profiles read from their out files by the file reader
    (one process each: the command is run directly), grouped by `key` of each (by
    alternative unless told)."""
    handle = Store.open(db)
    try:
        kept = handle.profiles()
    finally:
        handle.close()
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for p in kept:
            path = os.path.join(tmp, f"{p.trial}.{p.part}")
            with open(path, "w") as f:
                f.write(p.text())
            out.setdefault(key(p), []).append(read_profile(path))
    return out


def test_ranks_the_injected_function_first_from_the_store(store, run_cli):
    _, out, _ = run_cli("profile-diff", store, "--json", expect=0)
    doc = json.loads(out)
    assert (doc["old"]["alternative"], doc["new"]["alternative"]) == ("base", "slow")
    assert doc["old"]["runs"] == doc["new"]["runs"] == 2 and doc["inclusive"]
    first = doc["functions"][0]
    assert first["name"] == "scale"
    stored = _stored(store)
    assert len(stored["base"]) == len(stored["slow"]) == 2
    # counts are deterministic: every trial has the same count, which is the median
    (old,) = {p.exclusive[first["function"]][0] for p in stored["base"]}
    (new,) = {p.exclusive[first["function"]][0] for p in stored["slow"]}
    assert (first["old"], first["new"]) == (old, new)
    assert first["inclusive_change"] == new - old  # scale() calls nothing
    assert doc["total_change"] == stored["slow"][0].totals[0] - stored["base"][0].totals[0]
    # 500 more iterations of scale()'s loop of a few instructions each
    assert 5 * 500 <= first["change"] <= 20 * 500
    _, text, _ = run_cli("profile-diff", store, "--old", "slow", "--new", "base", "--top",
                         "1", expect=0)
    assert f"{-first['change']:+,}" in text
    assert "slow (median of 2 counted executions) -> base (median of 2" in text


@pytest.mark.parametrize("args, message", [
    (("--new", "fast"), "no profiles of alternative 'fast' in the store (alternatives with "
                        "profiles: base, slow)"),
    (("--old", "slow", "--new", "slow"), "the same alternative 'slow'"),
])
def test_store_choices_are_checked(store, run_cli, args, message):
    _, out, err = run_cli("profile-diff", store, *args, expect=2)
    assert message in err and "Traceback" not in err and out == ""


def test_inputs_are_checked(store, run_cli, tmp_path):
    fixture = os.path.join(os.path.dirname(__file__), "..", "fixtures", "counts",
                           "callgrind_old.out")
    _, _, err = run_cli("profile-diff", fixture, fixture, "--old", "base", expect=2)
    assert "--old and --new choose a store's alternatives" in err
    _, _, err = run_cli("profile-diff", fixture, expect=2)
    assert "must be a store made with counter" in err
    _, _, err = run_cli("profile-diff", tmp_path / "none.db", expect=2)
    assert "none.db: no such file" in err
    _, _, err = run_cli("profile-diff", store, store, store, expect=2)
    assert "two out files or one store, not 3 inputs" in err
    plain = tmp_path / "plain.db"
    (tmp_path / "exp.toml").write_text('executions = 1\n[alternatives.a]\ncommand = ["true"]\n')
    run_experiment(str(tmp_path / "exp.toml"), str(plain))
    _, _, err = run_cli("profile-diff", plain, expect=2)
    assert "keeps no per-function profiles" in err and "counter: none" in err


def test_the_report_says_which_functions_changed_with_the_same_numbers(store, run_cli,
                                                                       tmp_path):
    """The report's section holds profile-diff STORE's numbers, as its JSON, text and
    Markdown do."""
    _, out, _ = run_cli("profile-diff", store, "--json", expect=0)
    doc = json.loads(out)
    _, text, _ = run_cli("profile-diff", store, expect=0)
    _, markdown, _ = run_cli("profile-diff", store, "--format", "markdown", expect=0)
    page = tmp_path / "report.html"
    run_cli("report", store, "--no-figures", "-o", page, expect=0)
    html = page.read_text()
    start = html.index('<section class="profiles"')
    section = html[start:html.index("</section>", start)]
    assert "<h2>which functions changed</h2>" in section
    rows = re.findall(r"<tr>(.*?)</tr>", section)[1:]  # after the header
    assert len(rows) == len(doc["functions"])
    keys = ("change", "relative", "old", "new", "inclusive_change", "old_inclusive",
            "new_inclusive")
    for row, function in zip(rows, doc["functions"], strict=True):
        sorts = [float(v) if v else None for v in re.findall(r'data-sort="([^"]*)"', row)]
        assert sorts == [function[k] for k in keys]  # counts whole, relative its repr
        assert f">{function['function']}<" in row
        assert f"{function['change']:+,}" in row and f"{function['change']:+,}" in text
        assert f"| {function['change']} |" in markdown
    assert f"total {doc['old']['total']:,} -&gt; {doc['new']['total']:,}" in section
    plain = tmp_path / "plain.db"
    (tmp_path / "exp.toml").write_text('executions = 2\n[alternatives.a]\ncommand = ["true"]\n'
                                       '[alternatives.b]\ncommand = ["true"]\n')
    run_experiment(str(tmp_path / "exp.toml"), str(plain))
    run_cli("report", plain, "--no-figures", "-o", tmp_path / "plain.html", expect=0)
    assert "which functions changed" not in (tmp_path / "plain.html").read_text()


@pytest.fixture(scope="module")
def factor_store(tmp_path_factory):
    """The same two builds with a factor: the program's n at two levels (each cell counted
    twice under callgrind)."""
    return _counted_store(tmp_path_factory, "factors", "[factors]\nn = [20000, 10000]", "{n}")


def _stored_cells(db: str) -> dict[tuple[str, str], list]:
    """Each cell's (alternative, n) trials as profiles read by the file reader."""
    return _stored(db, lambda p: (p.alternative, dict(p.factors)["n"]))


def _count(profiles: list, function: str) -> int:
    (value,) = {p.exclusive[function][0] for p in profiles}  # deterministic: one count
    return value


def test_a_store_with_factors_is_compared_per_combination(factor_store, run_cli):
    """Baseline against the other alternative at each combination of levels, in the file's
    order of the levels (as compare STORE lists them), each from that cell's profiles."""
    stored = _stored_cells(factor_store)
    _, out, _ = run_cli("profile-diff", factor_store, "--json", "--top", "2", expect=0)
    doc = json.loads(out)
    assert doc["factors"] == ["n"] and doc["event"] == "Ir"
    assert [c["combination"] for c in doc["comparisons"]] == [{"n": "20000"}, {"n": "10000"}]
    _, text, _ = run_cli("profile-diff", factor_store, "--top", "2", expect=0)
    _, markdown, _ = run_cli("profile-diff", factor_store, "--top", "2", "--format",
                             "markdown", expect=0)
    for comparison in doc["comparisons"]:
        n = comparison["combination"]["n"]
        assert (comparison["old"]["alternative"], comparison["new"]["alternative"]) == \
            ("base", "slow")
        assert comparison["old"]["factors"] == comparison["new"]["factors"] == {"n": n}
        assert comparison["old"]["runs"] == comparison["new"]["runs"] == 2
        first = comparison["functions"][0]
        assert first["name"] == "scale"
        assert (first["old"], first["new"]) == (_count(stored["base", n], first["function"]),
                                                _count(stored["slow", n], first["function"]))
        assert 5 * 500 <= first["change"] <= 20 * 500
        assert comparison["total_change"] == (stored["slow", n][0].totals[0]
                                              - stored["base", n][0].totals[0])
        assert (f"base n={n} (median of 2 counted executions) -> slow n={n} (median of 2 "
                "counted executions)") in text
        assert f"| n={n} | Ir | 1 | {first['function']} |" in markdown
    assert text.index("base n=20000") < text.index("base n=10000")


def test_cells_of_a_store_with_factors_are_named_as_its_case_column(factor_store, run_cli):
    """--old/--new 'ALTERNATIVE n=LEVEL' choose one pair; a cell on one side takes the other
    side's alternative to its levels."""
    stored = _stored_cells(factor_store)
    _, out, _ = run_cli("profile-diff", factor_store, "--new", "slow n=10000", "--json",
                        expect=0)
    doc = json.loads(out)
    assert "comparisons" not in doc
    assert (doc["old"]["alternative"], doc["old"]["factors"]) == ("base", {"n": "10000"})
    assert (doc["new"]["alternative"], doc["new"]["factors"]) == ("slow", {"n": "10000"})
    assert doc["functions"][0]["name"] == "scale"
    _, out, _ = run_cli("profile-diff", factor_store, "--old", "base n=10000", "--new",
                        "base n=20000", "--json", expect=0)
    doc = json.loads(out)
    first = doc["functions"][0]  # mix() runs n iterations: 10,000 more
    assert first["name"] == "mix"
    assert (first["old"], first["new"]) == (_count(stored["base", "10000"], first["function"]),
                                            _count(stored["base", "20000"], first["function"]))
    assert first["change"] >= 3 * 10000


@pytest.mark.parametrize("args, message", [
    (("--new", "slow n=5"), "no alternative or cell 'slow n=5' with profiles in the store "
                            "(alternatives: base, slow; cells: base n=20000, slow n=20000, "
                            "base n=10000, slow n=10000)"),
    (("--old", "slow n=10000", "--new", "slow"), "--old and --new name the same cell "
                                                 "'slow n=10000'"),
])
def test_cell_choices_are_checked(factor_store, run_cli, args, message):
    _, out, err = run_cli("profile-diff", factor_store, *args, expect=2)
    assert message in err and "Traceback" not in err and out == ""


def test_the_report_of_a_store_with_factors_says_which_functions_changed(factor_store,
                                                                         run_cli, tmp_path):
    _, out, _ = run_cli("profile-diff", factor_store, "--json", expect=0)
    doc = json.loads(out)
    page = tmp_path / "report.html"
    run_cli("report", factor_store, "--no-figures", "-o", page, expect=0)
    html = page.read_text()
    start = html.index('<section class="profiles"')
    section = html[start:html.index("</section>", start)]
    assert "left out" not in section
    blocks = section.split('<div class="profile-diff">')[1:]
    assert len(blocks) == len(doc["comparisons"]) == 2
    for block, comparison in zip(blocks, doc["comparisons"], strict=True):
        n = comparison["combination"]["n"]
        assert f"base n={n} (median of 2 counted executions) -&gt; slow n={n}" in block
        rows = re.findall(r"<tr>(.*?)</tr>", block)[1:]
        assert len(rows) == len(comparison["functions"])
        for row, function in zip(rows, comparison["functions"], strict=True):
            assert f">{function['function']}<" in row and f"{function['change']:+,}" in row

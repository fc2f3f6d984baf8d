"""`benchlab profile-diff STORE`: the per-function profiles a store made with counter =
"callgrind" keeps, ranked between two alternatives (median over the counted executions).
One real experiment per module: tests/fixtures/counts/work.c built twice (the second with
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

SOURCE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "counts", "work.c")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    for tool in ("cc", "valgrind"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (.ci/run installs valgrind from Debian)")
    folder = tmp_path_factory.mktemp("profiles")
    shutil.copy(SOURCE, folder / "work.c")
    (folder / "exp.toml").write_text(textwrap.dedent("""
        seed = 5
        executions = 2
        metrics = ["instructions"]
        counter = "callgrind"
        [alternatives.base]
        build = ["cc", "-O1", "-g", "-o", "work-base", "work.c"]
        command = ["./work-{alternative}", "20000"]
        [alternatives.slow]
        build = ["cc", "-O1", "-g", "-DEXTRA=500", "-o", "work-slow", "work.c"]
        command = ["./work-{alternative}", "20000"]
    """))
    db = str(folder / "r.db")
    result = run_experiment(str(folder / "exp.toml"), db)
    assert result.status == "finished" and result.counts == {"ok": 2 + 2 * 2}
    return db


def _stored(db: str) -> dict[str, list]:
    """Each alternative's trials as profiles read from the stored out files by the file
    reader (one process each: the command is run directly)."""
    handle = Store.open(db)
    try:
        kept = handle.profiles()
    finally:
        handle.close()
    out: dict[str, list] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for p in kept:
            path = os.path.join(tmp, f"{p.trial}.{p.part}")
            with open(path, "w") as f:
                f.write(p.text())
            out.setdefault(p.alternative, []).append(read_profile(path))
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
    fixture = os.path.join(os.path.dirname(SOURCE), "callgrind_old.out")
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

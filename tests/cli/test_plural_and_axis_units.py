"""Counts agree with their nouns in history's text ("1 commit", not "1 commits"; notation.plural),
and `history publish`'s overview has one unit per y axis, chosen from its range, with the
decimals its tick step needs ("0.95 s" .. "1.10 s", not "950.0 ms" beside "1.100 s")."""

from __future__ import annotations

import re

import pytest

from benchlab.report.history_site.chart import LEFT, axis_labels, nice_ticks
from benchlab.units import make_unit
from tests.cli.test_history import bulk, write_past


def test_history_text_says_one_commit_in_the_singular(run_cli, tmp_path):
    csv = write_past(tmp_path / "one.csv", {"sort": [1.0]})
    db = str(tmp_path / "h.db")
    code, out, err = bulk(run_cli, csv, db)
    assert code == 0, err
    assert "for commit c000" in out and "(now 1 commit, 1 series)" in out
    _, out, _ = run_cli("history", "show", "--db", db, expect=0)
    assert "1 commit c000 .. c000" in out and "0 changes" in out
    assert not re.search(r"\b1 (commits|changes)\b", out)
    _, out, _ = run_cli("history", "check", "--db", db, expect=0)
    assert "1 series over 1 commit;" in out and not re.search(r"\b1 commits\b", out)
    _, out, _ = run_cli("history", "show", "--db", db, "--format", "markdown", expect=0)
    assert "1 commit, last mean" in out and not re.search(r"\b1 commits\b", out)


@pytest.mark.parametrize("lo, hi, unit, expected", [
    (0.95, 1.1, "s", ["0.95 s", "1.00 s", "1.05 s", "1.10 s"]),
    (0.0004, 0.0012, "s", ["0.4 ms", "0.6 ms", "0.8 ms", "1.0 ms", "1.2 ms"]),
    (2.0e6, 2.5e6, "instructions", ["2.0 M instructions", "2.1 M instructions",
                                    "2.2 M instructions", "2.3 M instructions",
                                    "2.4 M instructions", "2.5 M instructions"]),
    (10, 30, None, ["10", "15", "20", "25", "30"]),
])
def test_an_axis_is_labelled_in_one_unit_with_the_decimals_of_its_step(lo, hi, unit,
                                                                       expected):
    assert axis_labels(nice_ticks(lo, hi), make_unit(unit)) == expected


def test_the_published_overview_has_one_unit_on_its_axis(run_cli, tmp_path):
    """Means of 0.95 s and 1.1 s: every y tick of the overview's SVG in s, with two
    decimals (the step is 0.05 s)."""
    csv = write_past(tmp_path / "two.csv", {"sort": [0.95, 0.95, 1.1, 1.1]}, noise=0.002)
    db = str(tmp_path / "h.db")
    code, _, err = bulk(run_cli, csv, db)
    assert code == 0, err
    site = tmp_path / "site"
    run_cli("history", "publish", "--db", db, "-o", site, expect=0)
    (page,) = [p for p in site.rglob("*.html") if "overview" in p.read_text()]
    svg = re.search(r'<svg class="overview".*?</svg>', page.read_text(), re.S).group(0)
    ticks = re.findall(rf'<text class="tick" x="{LEFT - 6}" y="[\d.]+" text-anchor="end">'
                       r"([^<]*)</text>", svg)  # the y axis's (x: its commits')
    assert len(ticks) >= 3
    assert all(re.fullmatch(r"\d\.\d\d s", t) for t in ticks), ticks
    values = [float(t.split()[0]) for t in ticks]
    assert values[0] <= 0.95 and values[-1] >= 1.1

"""One store, one set of design decisions (issue 21): `compare`, `report`, `summary` and
`history add` read a store's levels and grouping from data/store_design
(default_analysis and the recorded_levels it uses), not each its own way.

compare and report analyse (execution means paired by round for loop.db, whose rounds
interleave the alternatives); summary and history add only describe and keep, so what
they share with compare is the grouping (alternative × factor combination, the same
measurements in each group) and the hierarchy's levels — the levels default_analysis
analyses whenever it pairs nothing (here forced with --resample).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from benchlab.cli import common
from benchlab.data import store_design
from benchlab.data.samples import load_inputs
from benchlab.report.html_page import analysis_text
from benchlab.stats.spec import AnalysisSpec

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "examples" / "experiments" / "loop.db"


def _plan(**spec):
    samples = load_inputs([str(STORE)], by=store_design.BY).samples
    return store_design.default_analysis(store_design.store_info(str(STORE)), samples,
                                         AnalysisSpec(**spec))


def test_compare_report_summary_and_history_take_one_design(run_cli, tmp_path):
    paired, hierarchy = _plan(), _plan(resample="flat", bootstrap=100)
    levels = list(hierarchy.spec.levels)
    assert levels == ["build", "execution"] and paired.spec.paired and paired.spec.levels == ()

    _, out, _ = run_cli("compare", STORE, "--seed", "1", "--format", "json", expect=0)
    doc = json.loads(out)
    assert doc["design"]["note"] == paired.design.note and doc["design"]["blocks"] == "round"
    assert doc["analysis"]["paired"] and doc["analysis"]["levels"] == []

    report = tmp_path / "r.html"
    run_cli("report", STORE, "--seed", "1", "--no-figures", "-o", report, expect=0)
    page = report.read_text(encoding="utf-8")
    assert paired.design.note in page.replace("&#x27;", "'")
    spec = AnalysisSpec(**{**doc["analysis"], "df_method": None, "levels": ()})
    assert f'<p class="analysis">analysis: {analysis_text(spec)}</p>' in page

    _, out, _ = run_cli("summary", STORE, "--format", "json", expect=0)
    summary = json.loads(out)
    assert summary["level_columns"] == levels
    means = {g["name"]: g["mean"] for g in summary["groups"]}
    compared = {f"{s['name']} {b['benchmark']}": s["mean"]
                for b in doc["benchmarks"] for s in b["samples"]}
    assert means.keys() == compared.keys() and len(means) == 4
    for name, mean in compared.items():  # the same measurements in each group
        assert abs(means[name] - mean) <= 1e-9 * abs(mean), name

    db = tmp_path / "h.db"
    run_cli("history", "add", STORE, "--db", db, "--commit", "abc123", "--date",
            "2024-05-16T08:00:00Z", expect=0)
    with sqlite3.connect(db) as conn:
        kept = dict(conn.execute("SELECT benchmark, levels FROM series").fetchall())
    assert kept.keys() == means.keys()
    assert {tuple(json.loads(v)) for v in kept.values()} == {tuple(levels)}


def test_summary_levels_follow_the_store_unless_told(run_cli):
    """--levels still overrides what the store records; `--levels none` describes flat."""
    _, out, _ = run_cli("summary", STORE, "--levels", "none", "--format", "json", expect=0)
    assert json.loads(out)["level_columns"] == []
    code, _, err = run_cli("summary", STORE, "--levels", "build,nosuch")
    assert code == 2 and "nosuch" in err


def test_recorded_levels_are_one_answer_or_none():
    samples = load_inputs([str(STORE)], by=store_design.BY).samples
    assert store_design.recorded_levels(samples) == ("build", "execution")
    assert store_design.recorded_levels([]) == ()

    class Args:
        levels = None
    assert common.resolved_levels(Args(), samples) == ["build", "execution"]

"""The Python API: arrays, lists and pandas Series in; a frozen report mirroring the JSON out."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import benchlab
from benchlab.errors import InputError


def test_compare_with_lists_and_series():
    old = pd.Series([10.0, 10.1, 9.9, 10.05, 9.95], name="old")
    new = pd.Series([9.0, 9.1, 8.9, 9.05, 8.95], name="new")
    report = benchlab.compare(old, new, unit="s", threshold=0.02)
    comp = report.comparisons[0]
    assert (comp.baseline, comp.candidate) == ("old", "new")
    assert comp.verdict.outcome == "change"
    assert comp.verdict.text.startswith("new is 10.0% faster than old")
    assert comp.ratio.estimate == pytest.approx(0.9)
    lists = benchlab.compare(list(old), list(new), unit="s", threshold=0.02)
    assert lists.comparisons[0].ratio == comp.ratio
    assert (lists.comparisons[0].baseline, lists.comparisons[0].candidate) == (
        "baseline", "candidate")


def test_report_is_frozen_and_to_dict_is_the_json():
    report = benchlab.compare(np.array([1.0, 1.2, 1.1]), np.array([1.3, 1.4, 1.5]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.confidence = 0.9
    doc = report.to_dict()
    json.dumps(doc, allow_nan=False)
    assert doc["comparisons"][0]["ratio"]["estimate"] == report.comparisons[0].ratio.estimate
    assert doc["samples"][1]["mean"] == report.samples[1].mean
    assert doc["confidence"] == report.confidence


def test_paired_and_errors():
    report = benchlab.compare([1.0, 2.0, 3.0], [1.1, 2.1, 3.2], paired=True)
    assert report.comparisons[0].paired
    with pytest.raises(InputError, match="equal length"):
        benchlab.compare([1.0, 2.0, 3.0], [1.0, 2.0], paired=True)
    with pytest.raises(InputError, match="NaN"):
        benchlab.compare([1.0, float("nan"), 3.0], [1.0, 2.0])


def test_hierarchical_api_with_dataframes():
    from pathlib import Path

    table = pd.read_csv(Path(__file__).parent / "fixtures" / "hierarchy" / "two_systems.csv")
    old, new = table[table.system == "old"], table[table.system == "new"]
    report = benchlab.compare(old, new, levels=["build", "run"], names=("old", "new"))
    ref = json.loads((Path(__file__).parent / "fixtures" / "hierarchy" /
                      "reference.json").read_text())["ratio"]["fieller"]
    assert report.comparisons[0].ratio.low == pytest.approx(ref["lower"], rel=1e-12)
    s = benchlab.summary(old, ["build", "run"], name="old")
    assert s.top_units == 6 and s.components[0].name == "build"
    p = benchlab.plan(old, ["build", "run"], {"build": 1200, "run": 6, "measurement": 0.1},
                      budget=6 * 3600)
    assert p.optimal.total_cost <= 6 * 3600
    with pytest.raises(ValueError, match="costs needs every level"):
        benchlab.plan(old, ["build", "run"], {"build": 1.0}, budget=10)


def test_qreg_api_equals_the_command(run_cli):
    path = Path(__file__).resolve().parents[1] / "examples" / "factorial" / "latency.csv"
    table = pd.read_csv(path, comment="#")
    orders = {"sched": ["BFS", "CFS"], "machine": ["core2", "p4"]}
    result = benchlab.qreg(table, "latency", ["sched", "machine"], taus=[0.5, 0.9],
                           level_order=orders, cluster="run", seed=4)
    assert dataclasses.is_dataclass(result) and result.se_method == "cluster"
    code, out, err = run_cli("qreg", path, "--response", "latency", "--factors",
                             "sched,machine", "--taus", "0.5,0.9", "--seed", "4", "--json")
    assert code == 0, err
    doc = json.loads(out)
    mine = result.to_dict()
    assert mine["quantiles"] == doc["quantiles"] and mine["terms"] == doc["terms"]
    with pytest.raises(ValueError, match="cannot also be a factor"):
        benchlab.qreg(table, "latency", ["latency"])
    with pytest.raises(ValueError, match="nosuch"):
        benchlab.qreg(table, "latency", ["sched"], cluster="nosuch")

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
    assert comp.verdict.text.startswith("new is faster than old: -10.0% (95% CI")
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


def test_read_gives_the_dataset_and_a_frame():
    import benchlab

    data = benchlab.read("examples/fft/two_systems.csv")
    frame = data.to_frame()
    assert list(frame.columns[:4]) == ["system", "build", "run", "iteration"]
    assert len(frame) == len(data.values) and frame["value"].sum() == pytest.approx(
        data.values.sum())


def test_compare_groups_k_samples_and_renderings():
    import json

    import benchlab

    result = benchlab.compare_groups({"a": [1.0, 2, 3, 4], "b": [2.0, 3, 4, 5],
                                      "c": [1.1, 2, 3, 4]}, baseline="b")
    assert [c.baseline for c in result.comparisons] == ["b", "b"]
    assert [c.candidate for c in result.comparisons] == ["a", "c"]
    assert "a vs b" in str(result)  # the text rendering
    doc = result.to_dict()
    assert json.loads(json.dumps(doc))["comparisons"][1]["candidate"] == "c"
    frame = result.to_frame()
    ratios = frame[(frame["table"] == "comparisons") & (frame["statistic"] == "ratio of means")]
    assert ratios["estimate"].tolist() == pytest.approx([2.5 / 3.5, 2.525 / 3.5])


def test_compare_suite_from_a_long_table():
    import benchlab

    rng = np.random.default_rng(4)
    rows = {"system": [], "bench": [], "value": []}
    for bench, slow in (("x", 1.0), ("y", 1.2)):
        for system in ("old", "new"):
            values = rng.normal(100 * (slow if system == "new" else 1.0), 1.0, 20)
            rows["system"] += [system] * 20
            rows["bench"] += [bench] * 20
            rows["value"] += list(values)
    suite = benchlab.compare_suite(rows, by="system", benchmark="bench", seed=1)
    verdicts = {b: r.comparisons[0].verdict.outcome for b, r in suite.benchmarks}
    assert verdicts["y"] == "change" and suite.benchmarks[0][1].comparisons[0].baseline == "old"
    assert suite.geometric_means[0].estimate == pytest.approx(1.2 ** 0.5, rel=0.02)


def test_compare_takes_the_statistic_of_the_command_line():
    """api.compare(statistic="median") is `benchlab compare --statistic median`: the verdict
    on the ratio of medians with its bootstrap CI, the spec kept in the result."""
    rng = np.random.default_rng(5)
    old, new = rng.lognormal(0.0, 0.1, 40), rng.lognormal(-0.1, 0.1, 40)
    report = benchlab.compare(old, new, statistic="median", seed=3)
    comp = report.comparisons[0]
    assert report.statistic == "median" and report.analysis.statistic.name == "median"
    assert comp.headline is not None and comp.headline.statistic == "median"
    assert comp.headline.estimate == pytest.approx(np.median(new) / np.median(old))
    assert "ratio of medians" in comp.verdict.text
    assert report.to_dict()["statistic"] == "median"
    with pytest.raises(ValueError, match="statistic must be one of"):
        benchlab.compare(old, new, statistic="mode")

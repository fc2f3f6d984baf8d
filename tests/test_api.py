"""The Python API: arrays, lists and pandas Series in; a frozen report mirroring the JSON out."""

from __future__ import annotations

import dataclasses
import json

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

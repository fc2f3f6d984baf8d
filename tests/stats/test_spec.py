"""AnalysisSpec (stats/spec.py): every choice of a comparison, checked once and kept."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchlab.errors import ParameterError
from benchlab.stats.compare import compare_hierarchical, compare_samples
from benchlab.stats.spec import (
    DEFAULT_REPLICATES,
    MEAN,
    MEDIAN,
    AnalysisSpec,
    SpecError,
    statistic,
)


@pytest.mark.parametrize(("options", "parameter", "flag"), [
    ({"confidence": 1.0}, "confidence", "--confidence"),
    ({"confidence": 0}, "confidence", "--confidence"),
    ({"threshold": -0.01}, "threshold", "--threshold"),
    ({"threshold": float("inf")}, "threshold", "--threshold"),
    ({"df_method": "student"}, "df", "--df"),
    ({"statistic": "mode"}, "statistic", "--statistic"),
    ({"bootstrap": 0}, "bootstrap", "--bootstrap"),
    ({"replicates": -5}, "replicates", "--replicates"),
    ({"seed": -1}, "seed", "--seed"),
    ({"adjust": "bonferroni"}, "adjust", "--adjust"),
    ({"levels": ("run", "run")}, "levels", "--levels"),
    ({"levels": ("build", "run"), "resample": "RR"}, "resample", "--resample"),
    ({"levels": ("build",), "resample": "RX"}, "resample", "--resample"),
])
def test_a_bad_choice_names_its_parameter(options, parameter, flag):
    with pytest.raises(SpecError) as caught:
        AnalysisSpec(**options)
    err = caught.value
    assert isinstance(err, ValueError) and isinstance(err, ParameterError)
    assert err.parameter == parameter and str(err).startswith(parameter)
    err.as_option()
    assert str(err).startswith(flag)


def test_defaults_are_decided_once():
    spec = AnalysisSpec()
    assert (spec.confidence, spec.threshold, spec.df_rule, spec.statistic) == (
        0.95, 0.0, "welch", MEAN)
    assert spec.headline_replicates == spec.geomean_replicates == DEFAULT_REPLICATES == 10_000
    assert spec.resampling(2) == "RRR" and not spec.resamples
    assert AnalysisSpec(bootstrap=500).geomean_replicates == 500
    assert AnalysisSpec(bootstrap=500, replicates=2000).geomean_replicates == 2000
    assert AnalysisSpec(paired=True, df_method="pooled").df_rule == "paired"
    assert AnalysisSpec(pair_by="boot").paired
    assert AnalysisSpec(resample="flat", levels=("run",)).resampling(1) == "flat"
    assert AnalysisSpec(resample="rn", levels=("run",)).resample == "RN"


def test_the_statistic_is_a_strategy():
    assert statistic("median") is MEDIAN and statistic(MEAN) is MEAN
    assert AnalysisSpec(statistic="median").statistic is MEDIAN
    assert MEAN.bootstraps(None) == () and MEDIAN.bootstraps(None) == ("median",)
    assert MEAN.bootstraps(200) == MEDIAN.bootstraps(200) == ("mean", "median")
    assert AnalysisSpec(statistic="median").resamples


def test_keywords_build_the_spec_and_unknown_ones_are_refused():
    spec = AnalysisSpec.of(None, confidence=0.9)
    assert spec == AnalysisSpec(confidence=0.9)
    assert AnalysisSpec.of(spec, threshold=0.02) == AnalysisSpec(confidence=0.9, threshold=0.02)
    with pytest.raises(TypeError, match="confidnce"):
        AnalysisSpec.of(None, confidnce=0.9)


def test_the_result_keeps_the_spec_it_was_made_with():
    rng = np.random.default_rng(1)
    a, b = rng.normal(10, 1, 30), rng.normal(9.5, 1, 30)
    spec = AnalysisSpec(confidence=0.99, threshold=0.02, bootstrap=200)
    result = compare_samples([("a", a), ("b", b)], spec)
    assert result.analysis.confidence == 0.99 and result.analysis.bootstrap == 200
    assert result.analysis.seed is not None and result.analysis.seed == result.seed  # drawn
    assert result.comparisons[0].ratio.confidence == 0.99
    same = compare_samples([("a", a), ("b", b)], confidence=0.99, threshold=0.02,
                           bootstrap=200, seed=result.seed)
    assert same.comparisons[0].ratio == result.comparisons[0].ratio
    assert same.comparisons[0].bootstrap == result.comparisons[0].bootstrap
    doc = json.loads(json.dumps(result.analysis.to_dict()))
    assert doc["confidence"] == 0.99 and doc["statistic"] == "mean"
    assert doc["df_method"] == "welch" and doc["seed"] == result.seed


def test_a_hierarchy_adds_its_levels_and_checks_the_resampling():
    rng = np.random.default_rng(2)
    runs = np.repeat(np.arange(4), 5)
    data = [(n, rng.normal(m, 0.2, 20), [runs]) for n, m in (("a", 10.0), ("b", 9.0))]
    result = compare_hierarchical(data, ["run"], bootstrap=200, seed=1)
    assert result.analysis.levels == ("run",) and result.resample == "RR"
    with pytest.raises(ValueError, match="wants R or N for each of the 2 levels"):
        compare_hierarchical(data, ["run"], bootstrap=200, seed=1, resample="RRR")


def test_a_store_design_becomes_the_spec_of_its_analysis():
    """data/store_design.default_analysis: an interleaved store is paired by round (no
    levels), the user's choices kept; --resample asks for the hierarchy instead."""
    from benchlab.data import store_design
    from benchlab.data.samples import load_inputs

    path = "examples/experiments/loop.db"
    info = store_design.store_info(path)
    assert info.order == "interleaved-random" and info.factors == ("n",)
    samples = load_inputs([path], by=store_design.BY).samples
    plan = store_design.default_analysis(info, samples, AnalysisSpec(confidence=0.9))
    assert plan.spec == AnalysisSpec(confidence=0.9, paired=True, levels=())
    assert plan.design.blocks == "round" and plan.benchmark == "combination"
    plan = store_design.default_analysis(info, samples, AnalysisSpec(resample="flat",
                                                                     bootstrap=200))
    assert not plan.spec.paired and plan.spec.levels == tuple(samples[0].dataset.levels)
    assert plan.paired is None and "--resample" in plan.design.note

"""Variance components, CI of the mean and planning against STATS.md §5–6 and R (lme4, moments).

Fixtures: tests/fixtures/hierarchy/make_reference.R. For balanced data with
every T² > 0 the moment estimators equal lme4's REML estimates (to ~1e-7,
the flatness of the REML criterion).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from benchlab.errors import InputError
from benchlab.stats.hierarchy import optimal_repetitions, plan_experiment, summarize

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "hierarchy"
REF = json.loads((FIX / "reference.json").read_text())


def load(name: str, system: str = "A") -> tuple[np.ndarray, list[np.ndarray], list[str]]:
    with open(FIX / name) as handle:
        rows = [r for r in csv.DictReader(handle) if r["system"] == system]
    levels = [c for c in ("build", "run") if c in rows[0]]
    return (np.array([float(r["value"]) for r in rows]),
            [np.array([r[c] for r in rows]) for c in levels], levels)


def summary_of(dataset: str, system: str = "A"):
    x, levels, names = load(REF["datasets"][dataset]["file"], system)
    return summarize(x, levels, names, name=system, measurement_name="iteration")


def test_stats_md_worked_example_three_levels():
    s = summary_of("ks3")
    assert s.grand_mean == 6.5
    got = {c.name: (round(c.s2, 1), round(c.t2, 1)) for c in s.components}
    assert got == {"build": (3.6, 2.3), "run": (2.6, -5.7), "iteration": (16.5, 16.5)}
    assert [c.droppable for c in s.components] == [False, True, False]
    assert any("'run' adds no detectable variation" in w for w in s.warnings)


def test_stats_md_worked_example_two_levels():
    s = summary_of("ks2")
    got = {c.name: (round(c.s2, 1), round(c.t2, 1)) for c in s.components}
    assert got == {"run": (3.6, 0.4), "iteration": (12.7, 12.7)}


@pytest.mark.parametrize("dataset,system", [
    ("ks3", "A"), ("ks2", "A"), ("balanced_3level", "A"), ("balanced_2level", "A"),
    ("two_systems", "old"), ("two_systems", "new"), ("tiny_build_var", "A"), ("ks_plan", "A")])
def test_moment_estimators_match_r(dataset, system):
    want = REF["datasets"][dataset]["systems"][system]["moment"]
    s = summary_of(dataset, system)
    assert s.grand_mean == pytest.approx(want["grand_mean"], rel=1e-13)
    for c in s.components:
        assert c.s2 == pytest.approx(want["S2"][c.name], rel=1e-12)
        assert c.t2 == pytest.approx(want["T2"][c.name], rel=1e-12, abs=1e-12)
        assert c.repetitions == want["reps"][c.name]
        assert c.relative_sd == pytest.approx(want["relative_sd"][c.name], rel=1e-12, abs=1e-15)
        assert c.share == pytest.approx(want["share"][c.name], rel=1e-12, abs=1e-15)
    assert s.low == pytest.approx(want["ci_mean"]["lower"], rel=1e-12)
    assert s.high == pytest.approx(want["ci_mean"]["upper"], rel=1e-12)
    # The order of units is a labelling convention (R sorts labels as strings here).
    assert np.allclose(np.sort(s.top_means), np.sort(want["top_means"]), rtol=1e-13)


@pytest.mark.parametrize("dataset,system", [("balanced_3level", "A"), ("balanced_2level", "A"),
                                            ("two_systems", "old"), ("two_systems", "new")])
def test_balanced_components_equal_lme4_reml(dataset, system):
    entry = REF["datasets"][dataset]["systems"][system]
    assert entry["cross_check"]["agree"] and not entry["reml"]["singular"]
    s = summary_of(dataset, system)
    for c in s.components:
        assert c.t2 == pytest.approx(entry["reml"]["var"][c.name], rel=1e-6)
    assert s.grand_mean == pytest.approx(entry["reml"]["intercept"], rel=1e-12)


def test_single_unit_level_is_refused_with_advice():
    x = np.arange(12.0)
    builds = np.array(["1"] * 12)
    runs = np.repeat(["1", "2", "3"], 4)
    with pytest.raises(InputError, match=r"s: level 'build' \(the top level\) has a single "
                                         "unit") as info:
        summarize(x, [builds, runs], ["build", "run"], name="s")
    assert info.value.sample == "s"
    with pytest.raises(InputError, match=r"level 'run' has a single unit everywhere, so its "
                                         r"variance cannot be estimated; repeat it \(at least 2 "
                                         "per build"):
        summarize(x, [runs, np.array(["1"] * 12)], ["build", "run"])


def test_labels_nest_within_their_parent():
    # run "1" of build "a" is not run "1" of build "b"
    x = np.array([1.0, 2.0, 10.0, 11.0, 3.0, 4.0, 12.0, 13.0])
    builds = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    runs = np.array(["1", "1", "2", "2", "1", "1", "2", "2"])
    s = summarize(x, [builds, runs], ["build", "run"])
    assert s.components[1].repetitions == 2 and s.top_units == 2


def test_numeric_looking_labels_keep_their_identity():
    # "1.1", "1.10" and "01" are three different runs, though 1.1 == 1.10 and 01 == 1 as numbers
    from benchlab.stats.hierarchy import nested_codes

    runs = np.array(["1.1", "1.10", "01", "1", "1.1", "01", "2", "10"])
    code = nested_codes([runs])[0]
    assert len(set(code.tolist())) == 6
    assert code[0] == code[4] and code[2] == code[5] and code[0] != code[1]
    # numeric order is kept for ordering: 01, 1, 1.1, 1.10, 2, 10
    assert [code[i] for i in (2, 3, 0, 1, 6, 7)] == [0, 1, 2, 3, 4, 5]
    x = np.array([1.0, 5.0, 9.0, 2.0, 3.0, 11.0, 4.0, 6.0])
    s = summarize(x, [runs], ["run"])
    assert s.top_units == 6


def test_unbalanced_data_is_flagged():
    x = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 5.0, 6.0, 7.0, 8.0])
    runs = np.array(["1", "1", "1", "2", "2", "3", "3", "3", "3"])
    s = summarize(x, [runs], ["run"])
    assert not s.balanced and any("unbalanced" in w for w in s.warnings)
    assert s.grand_mean == pytest.approx(np.mean([2.0, 10.5, 6.5]))  # units weigh equally


def test_planning_matches_stats_md_and_r():
    want = REF["planning"]
    s = summary_of("ks_plan")
    t2 = [c.t2 for c in s.components][::-1]  # low → high
    r = optimal_repetitions(t2, [3.0, 20.0, 100.0])
    assert r == pytest.approx([want["optimal_reps"]["iteration"], want["optimal_reps"]["run"]],
                              rel=1e-12)
    plan = plan_experiment(s, [100.0, 20.0, 3.0], budget=3600)
    assert plan.optimal.repetitions[1:] == (2, 5)
    assert plan.optimal.repetitions[0] == 3600 // (100 + 2 * (20 + 5 * 3))
    assert plan.single_level.repetitions == (3600 // 123, 1, 1)
    assert plan.optimal.relative_halfwidth < plan.single_level.relative_halfwidth


def test_plan_for_a_target_is_the_smallest_that_meets_it():
    s = summary_of("balanced_3level")
    plan = plan_experiment(s, [1200.0, 6.0, 0.1], target=0.02)
    assert plan.optimal.relative_halfwidth <= 0.02
    one_less = (plan.optimal.repetitions[0] - 1) * plan.optimal.cost_per_top_unit
    fewer = plan_experiment(s, [1200.0, 6.0, 0.1], budget=one_less)
    assert fewer.optimal.relative_halfwidth > 0.02


def test_plan_drops_levels_without_variation():
    s = summary_of("ks3")
    plan = plan_experiment(s, [100.0, 20.0, 3.0], budget=10_000)
    assert plan.dropped == ("run",) and plan.optimal.repetitions[1] == 1


def _sorted_iterations(slow: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """JMH sample mode: per-operation samples sorted by value inside each iteration; the
    iterations of a fork are in time order and the first `slow` of every fork are slow."""
    rng = np.random.default_rng(5)
    values, forks, iterations = [], [], []
    for f in range(8):
        for i in range(10):
            n = int(rng.integers(30, 60))
            values.append(np.sort(rng.normal(100.0 * (1.3 if i < slow else 1.0), 3.0, n)))
            forks += [str(f)] * n
            iterations += [str(i)] * n
    return np.concatenate(values), [np.array(forks), np.array(iterations)]


def test_unordered_measurements_are_checked_one_level_up():
    from benchlab.stats.hierarchy_diagnostics import diagnose_hierarchy

    x, levels = _sorted_iterations(slow=0)
    as_sequence = {d.kind for d in diagnose_hierarchy(x, levels, "s")}
    assert {"autocorrelation", "warmup"} <= as_sequence  # what the sorting alone produces
    assert diagnose_hierarchy(x, levels, "s", ordered=False) == []
    x, levels = _sorted_iterations(slow=2)
    kinds = {d.kind: d for d in diagnose_hierarchy(x, levels, "s", ordered=False)}
    assert kinds["warmup"].statistic == 2.0 and "first 2 iterations" in kinds["warmup"].message
    single = diagnose_hierarchy(x, levels[:1], "s", ordered=False)
    assert not {d.kind for d in single} & {"warmup", "autocorrelation"}


@pytest.mark.parametrize("labels", [["b", "a", "10", "2", "a"], ["10", "2", "02", "1.0", "1"],
                                    ["x"], ["3", "1", "2", "1"], ["é", "e", "E", ""]])
def test_label_codes_are_the_sorted_texts_ids_numeric_where_all_are_numbers(labels):
    from benchlab.stats.hierarchy import _label_codes

    arr = np.array(labels)
    distinct, local = np.unique(arr, return_inverse=True)
    try:
        numbers = distinct.astype(float)
    except ValueError:
        expected = local
    else:
        rank = np.empty(distinct.size, dtype=np.int64)
        rank[np.lexsort((distinct, numbers))] = np.arange(distinct.size)
        expected = rank[local]
    np.testing.assert_array_equal(_label_codes(arr), expected)


def test_nested_codes_keep_runs_of_different_builds_apart():
    from benchlab.stats.hierarchy import nested_codes

    build = np.array(["1", "1", "2", "2", "10", "10"])
    run = np.array(["a", "b", "a", "b", "a", "a"])
    top, child = nested_codes([build, run])
    np.testing.assert_array_equal(top, [0, 0, 1, 1, 2, 2])
    np.testing.assert_array_equal(child, [0, 1, 2, 3, 4, 4])

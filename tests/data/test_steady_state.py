"""data/steady_state: samples cut at each execution's steady-state start (--warmup auto of
every command): what is cut, what is kept or dropped, and which rows form one execution."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.data.dataset import Dataset
from benchlab.data.samples import Sample
from benchlab.data.steady_state import cut_to_steady_state, execution_rows
from benchlab.errors import InputError
from benchlab.stats.spec import AnalysisSpec, SpecError, WarmupCut


def _sample(shapes, n=200, seed=3, extra=None) -> Sample:
    """One sample of executions (`fork` 1, 2, ...): each `shapes` item is the warm-up length
    (iterations 40% slower), or "drift" for a late step (no steady state)."""
    rng = np.random.default_rng(seed)
    values, forks = [], []
    for k, shape in enumerate(shapes, start=1):
        y = 2.0 * (1 + 0.01 * rng.standard_normal(n))
        if shape == "drift":
            y[n - n // 12:] *= 1.2
        else:
            y[:shape] *= 1.4
        values.append(y)
        forks += [str(k)] * n
    v = np.concatenate(values)
    columns = {"fork": np.array(forks, dtype=object), "value": v}
    if extra:
        columns.update(extra)
    return Sample("s", v, Dataset(columns, "value", levels=("fork",)))


def test_each_execution_cut_at_its_start():
    s = _sample([30, 0, 55])
    found = cut_to_steady_state([s], ["fork"], WarmupCut())
    c = found.cuts[0]
    assert [e.steady_start for e in c.executions] == [30, 0, 55]
    assert [e.kind for e in c.executions] == ["warm-up", "flat", "warm-up"]
    assert (c.cut, c.kept, found.iterations_cut) == (85, 600 - 85, 85)
    kept = found.samples[0]
    assert kept.values.size == 515 and kept.dataset.columns["fork"].size == 515
    # the steady values only: every kept value near 2.0, none of the 40% slower ones
    assert np.all(kept.values < 2.2)
    assert c.executions[2].first_row == 400 and c.executions[2].start_row == 455
    assert found.warnings == ()
    assert c.note() == ("s: --warmup auto cut 85 of 600 iterations at the steady states' "
                        "starts (3 executions)")


def test_no_steady_state_kept_or_dropped_with_a_warning():
    s = _sample([20, "drift"])
    kept = cut_to_steady_state([s], ["fork"], WarmupCut())
    assert kept.samples[0].values.size == 400 - 20
    assert kept.warnings == ("s: 1 of 2 executions reach no steady state (fork 2); kept "
                             "whole, warm-up included",)
    dropped = cut_to_steady_state([s], ["fork"], WarmupCut(no_steady_state="drop"))
    assert dropped.samples[0].values.size == 200 - 20
    doc = dropped.to_dict()
    assert doc["mode"] == "auto" and doc["iterations_dropped"] == 200
    assert doc["samples"][0]["steady_starts"][1] == {
        "levels": {"fork": "2"}, "class": "no steady state", "steady_start": None,
        "iterations": 200}
    assert "left out (200 iterations)" in dropped.notes[0]
    only = _sample(["drift"])
    with pytest.raises(InputError, match="no execution reaches a steady state"):
        cut_to_steady_state([only], ["fork"], WarmupCut(no_steady_state="drop"))


def test_within_columns_separate_executions():
    # two commits whose runs are both numbered 1: without `within` one execution of 400
    s = _sample([30, 60], extra={"commit": np.array(["a"] * 200 + ["b"] * 200, dtype=object)})
    s.dataset.columns["fork"][:] = "1"
    assert len(execution_rows(s, ["fork"])) == 1
    rows = execution_rows(s, ["fork"], within=("commit",))
    assert [label for label, _ in rows] == [(("fork", "1"), ("commit", "a")),
                                            (("fork", "1"), ("commit", "b"))]
    found = cut_to_steady_state([s], ["fork"], WarmupCut(), within=("commit",))
    assert [e.steady_start for e in found.cuts[0].executions] == [30, 60]


def test_direction_decides_warm_up_from_slowdown():
    s = _sample([40])
    assert cut_to_steady_state([s], ["fork"], WarmupCut()).cuts[0].executions[0].kind \
        == "warm-up"
    assert cut_to_steady_state([s], ["fork"], WarmupCut(),
                               higher_is_better=True).cuts[0].executions[0].kind == "slowdown"


def test_the_cut_is_part_of_the_analysis_spec():
    spec = AnalysisSpec(warmup=WarmupCut(no_steady_state="drop"))
    assert spec.to_dict()["warmup"]["no_steady_state"] == "drop"
    assert AnalysisSpec().to_dict()["warmup"] is None
    with pytest.raises(SpecError):
        WarmupCut(no_steady_state="maybe")
    with pytest.raises(SpecError):
        WarmupCut(steady_fraction=1.5)
    with pytest.raises(SpecError):
        AnalysisSpec(warmup="auto")
    with pytest.raises(ValueError, match="level columns"):
        cut_to_steady_state([_sample([10])], [], WarmupCut())

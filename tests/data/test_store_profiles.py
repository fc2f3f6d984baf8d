"""An alternative's profile from a store's kept out files (data/store_profiles.py): the
processes of a trial added, then per function the lower median over the trials (0 where a
function did not run); a store with factors is compared per factor combination, in the
file's order of the levels, as in the report. Stores are
written through Store.record with made-up callgrind files, so counts can differ by trial
(real counts of a C program never do)."""

from __future__ import annotations

import zlib

import pytest

from benchlab.data.store_profiles import against_baseline, read_pair, read_pairs
from benchlab.errors import InputError
from benchlab.runner.config import parse_experiment
from benchlab.runner.execute import Outcome
from benchlab.runner.plan import make_plan
from benchlab.runner.store import Store
from benchlab.runner.trial import measurements


def _out(costs: dict[str, int], calls: dict[str, tuple[str, int]] | None = None) -> bytes:
    """A callgrind out file: each function's own cost, and calls (caller: (callee, cost))."""
    lines = ["# callgrind format", "events: Ir", "fl=a.c"]
    for name, cost in costs.items():
        lines += [f"fn={name}", f"1 {cost}"]
        if calls and name in calls:
            callee, inclusive = calls[name]
            lines += [f"cfn={callee}", "calls=1 1", f"1 {inclusive}"]
    lines.append(f"totals: {sum(costs.values())}")
    return zlib.compress(("\n".join(lines) + "\n").encode())


def _store(tmp_path, text: str, parts_of, factors: dict[str, list[str]] | None = None) -> str:
    """A store of `text`'s plan whose counted trials kept `parts_of(alternative, k)` (with
    `factors`, its names and levels: `parts_of(alternative, k, levels)`), k counting the
    trials of a cell."""
    import json

    e = parse_experiment(text, str(tmp_path / "exp.toml"))
    db = str(tmp_path / "s.db")
    meta = {"seed": "1", "experiment_text": text, "alternatives": '["base", "new"]',
            "baseline": "base"}
    if factors:
        meta |= {"factors": json.dumps(list(factors)), "factor_levels": json.dumps(factors)}
    store = Store.create(db, meta, make_plan(e, 1))
    seen: dict[tuple, int] = {}
    for trial in make_plan(e, 1):
        k = seen[trial.cell] = seen.get(trial.cell, 0) + 1
        parts = parts_of(trial.alternative, k, dict(trial.factors)) if factors else \
            parts_of(trial.alternative, k)
        outcome = Outcome(0.1, 0.0, 0.0, 0, 0, None, False, None, "",
                          counts={"instructions": 1.0}, profiles=parts)
        store.record(trial, None, "2026-11-27T00:00:00Z", "x", outcome,
                     measurements(e, trial, outcome))
    store.close()
    return db


TEXT = ('seed = 1\nexecutions = 3\nmetrics = ["instructions"]\ncounter = "callgrind"\n'
        '[alternatives.base]\ncommand = ["true"]\n[alternatives.new]\ncommand = ["true"]\n')


def test_the_profile_is_the_lower_median_over_trials_of_the_summed_processes(tmp_path):
    base = {1: {"main": 10, "f": 100}, 2: {"main": 10, "f": 300}, 3: {"main": 10, "f": 200}}
    new = {1: {"main": 10, "f": 400, "g": 7}, 2: {"main": 12, "f": 500}, 3: {"main": 10,
                                                                           "f": 450}}

    def parts(alternative: str, k: int) -> tuple[bytes, ...]:
        costs = (base if alternative == "base" else new)[k]
        # two processes: a shell (5 of its own) and the program, calling f from main
        return (_out({"sh": 5}), _out(costs, {"main": ("f", costs["f"])}))

    pair = read_pair(_store(tmp_path, TEXT, parts))
    old, cand = pair.old, pair.new
    assert (old.alternative, cand.alternative, old.runs, cand.runs) == ("base", "new", 3, 3)
    assert old.exclusive["a.c:f"] == (200,) and cand.exclusive["a.c:f"] == (450,)
    assert cand.exclusive["a.c:g"] == (0,)  # ran in one trial of three: median 0
    assert cand.exclusive["a.c:main"] == (10,) and old.exclusive["a.c:sh"] == (5,)
    assert old.inclusive["a.c:main"] == (210,)  # 10 + 100, 300, 200 of f: the median 210
    assert old.totals == (215,)  # the trials' totals 115, 315, 215 (with the shell's 5)
    assert cand.totals == (465,)  # 422, 517, 465


def test_an_even_number_of_trials_takes_the_lower_median(tmp_path):
    text = TEXT.replace("executions = 3", "executions = 2")

    def parts(alternative: str, k: int) -> tuple[bytes, ...]:
        return (_out({"f": 100 * k if alternative == "base" else 1000 + k}),)

    pair = read_pair(_store(tmp_path, text, parts))
    assert pair.old.exclusive["a.c:f"] == (100,) and pair.new.exclusive["a.c:f"] == (1001,)


def test_a_store_with_factors_is_compared_per_combination(tmp_path):
    """Baseline against the other alternative at each combination, in the file's order of
    the levels; a cell named ("new size=1") compares one pair, at its levels."""
    text = TEXT + '[factors]\nsize = ["2", "1"]\n'

    def parts(alternative: str, k: int, levels: dict[str, str]) -> tuple[bytes, ...]:
        return (_out({"f": 100 * int(levels["size"]) + (7 * k if alternative == "new"
                                                         else 0)}),)

    db = _store(tmp_path, text, parts, {"size": ["2", "1"]})
    pairs = against_baseline(db)
    assert [(p.old.factors, p.new.factors) for p in pairs] == [
        ((("size", "2"),), (("size", "2"),)), ((("size", "1"),), (("size", "1"),))]
    for p, size in zip(pairs, (2, 1), strict=True):
        assert (p.old.alternative, p.new.alternative, p.old.runs) == ("base", "new", 3)
        assert p.old.exclusive["a.c:f"] == (100 * size,)
        assert p.new.exclusive["a.c:f"] == (100 * size + 14,)  # the median of k = 1, 2, 3
    assert read_pairs(db)[1] is True
    with pytest.raises(InputError, match="the store has factors: name two cells"):
        read_pair(db)
    one = read_pair(db, new="new size=1")
    assert (one.old.alternative, one.old.factors) == ("base", (("size", "1"),))
    across = read_pair(db, old="base size=1", new="base size=2")
    assert across.new.exclusive["a.c:f"][0] - across.old.exclusive["a.c:f"][0] == 100
    from benchlab.cli.report import _profile_diffs

    diffs, note = _profile_diffs(db)
    assert note is None and [d.old.factors for d in diffs] == [(("size", "2"),),
                                                               (("size", "1"),)]
    assert [d.functions[0].change for d in diffs] == [14, 14]

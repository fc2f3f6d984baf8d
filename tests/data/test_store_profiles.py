"""An alternative's profile from a store's kept out files (data/store_profiles.py): the
processes of a trial added, then per function the lower median over the trials (0 where a
function did not run); a store with factors is refused, and the report says why. Stores are
written through Store.record with made-up callgrind files, so counts can differ by trial
(real counts of a C program never do)."""

from __future__ import annotations

import zlib

import pytest

from benchlab.data.store_profiles import against_baseline, read_pair
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


def _store(tmp_path, text: str, parts_of) -> str:
    """A store of `text`'s plan whose counted trials kept `parts_of(alternative, k)`."""
    e = parse_experiment(text, str(tmp_path / "exp.toml"))
    db = str(tmp_path / "s.db")
    store = Store.create(db, {"seed": "1", "experiment_text": text,
                              "alternatives": '["base", "new"]', "baseline": "base"},
                         make_plan(e, 1))
    seen: dict[str, int] = {}
    for trial in make_plan(e, 1):
        k = seen[trial.alternative] = seen.get(trial.alternative, 0) + 1
        outcome = Outcome(0.1, 0.0, 0.0, 0, 0, None, False, None, "",
                          counts={"instructions": 1.0}, profiles=parts_of(trial.alternative, k))
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


def test_a_store_with_factors_is_refused_and_the_report_says_why(tmp_path, monkeypatch):
    text = TEXT.replace("executions = 3", "executions = 1") + '[factors]\nsize = ["1", "2"]\n'
    db = _store(tmp_path, text, lambda alternative, k: (_out({"f": k}),))
    with pytest.raises(InputError, match="alternative 'base' has profiles at 2 factor "
                                         "combinations"):
        against_baseline(db)
    from benchlab.cli.report import _profile_diffs

    diffs, note = _profile_diffs(db)
    assert diffs == () and note.startswith("left out: alternative 'base' has profiles at 2")

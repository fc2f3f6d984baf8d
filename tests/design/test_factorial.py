"""Full factorial designs: standard order, replicates, reproducible random orders, refusals."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.design.factorial import full_factorial, make_factor, parse_factor
from benchlab.errors import UsageError


def test_standard_order_first_factor_fastest():
    d = full_factorial([("A", ["lo", "hi"]), ("B", ["x", "y", "z"])], order="standard")
    assert [r.levels for r in d.runs] == [("lo", "x"), ("hi", "x"), ("lo", "y"), ("hi", "y"),
                                          ("lo", "z"), ("hi", "z")]
    assert [r.id for r in d.runs] == ["1-1", "2-1", "3-1", "4-1", "5-1", "6-1"]
    assert d.seed is None


def test_jain_sign_table_2_cubed():
    d = full_factorial([("A", "-+"), ("B", "-+"), ("C", "-+")], order="standard")
    matrix, letters = d.sign_table()
    assert letters == ["I", "A", "B", "AB", "C", "AC", "BC", "ABC"]
    # Jain Table 17.x: the rows of A, B, C in standard order; products give the rest
    assert matrix[:, 1].tolist() == [-1, 1, -1, 1, -1, 1, -1, 1]
    assert matrix[:, 2].tolist() == [-1, -1, 1, 1, -1, -1, 1, 1]
    assert matrix[:, 4].tolist() == [-1, -1, -1, -1, 1, 1, 1, 1]
    assert (matrix[:, 7] == matrix[:, 1] * matrix[:, 2] * matrix[:, 4]).all()
    assert (matrix.T @ matrix == 8 * np.eye(8)).all()  # orthogonal columns
    y = np.array([14, 22, 10, 34, 46, 58, 50, 86])
    assert (matrix.T @ y / 8).tolist() == [40, 10, 5, 5, 20, 2, 3, 1]


def test_random_order_reproducible_and_a_permutation():
    factors = [("A", ["a1", "a2"]), ("B", ["b1", "b2"])]
    one = full_factorial(factors, replicates=5, seed=7)
    two = full_factorial(factors, replicates=5, seed=7)
    other = full_factorial(factors, replicates=5, seed=8)
    assert one.runs == two.runs
    assert [r.id for r in one.runs] != [r.id for r in other.runs]
    standard = full_factorial(factors, replicates=5, order="standard")
    assert sorted(r.id for r in one.runs) == sorted(r.id for r in standard.runs)
    assert [r.run for r in one.runs] == list(range(1, 21))


def test_seed_drawn_and_recorded_when_missing():
    d = full_factorial([("A", ["1", "2"])], replicates=3)
    assert isinstance(d.seed, int)
    again = full_factorial([("A", ["1", "2"])], replicates=3, seed=d.seed)
    assert again.runs == d.runs


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(2, 4), min_size=1, max_size=4), st.integers(1, 4),
       st.sampled_from(["random", "blocks", "standard"]), st.integers(0, 2**32 - 1))
def test_every_cell_exactly_r_times(counts, r, order, seed):
    factors = [(f"f{j}", [f"l{i}" for i in range(c)]) for j, c in enumerate(counts)]
    d = full_factorial(factors, replicates=r, order=order, seed=seed)
    n_cells = int(np.prod(counts))
    assert len(d.runs) == n_cells * r
    assert Counter(run.levels for run in d.runs) == {c: r for c in d.cells()}
    assert len({run.id for run in d.runs}) == len(d.runs)
    for run in d.runs:  # the id names the cell and replicate the levels belong to
        assert d.cells()[run.cell] == run.levels
        assert run.id.split("-") == [f"{run.cell + 1:0{len(str(n_cells))}d}", str(run.replicate)]
    if order == "blocks":  # each block of n_cells runs is one replicate, every cell once
        for b in range(r):
            block = d.runs[b * n_cells:(b + 1) * n_cells]
            assert {run.replicate for run in block} == {b + 1}
            assert sorted(run.cell for run in block) == list(range(n_cells))


def test_parse_factor():
    assert parse_factor("sched=BFS,CFS") == make_factor("sched", ["BFS", "CFS"])
    assert parse_factor(" load = compile , encode ").levels == ("compile", "encode")


@pytest.mark.parametrize("text, message", [
    ("sched=BFS", "single level"),
    ("sched", "NAME=LEVEL"),
    ("=a,b", "NAME=LEVEL"),
    ("sched=BFS,,CFS", "empty level"),
    ("sched=BFS,BFS", "twice"),
    ("run=a,b", "taken by a plan column"),
    ("a b=1,2", "not a column name"),
])
def test_bad_factors(text, message):
    with pytest.raises(UsageError, match=message):
        parse_factor(text)


def test_bad_designs():
    with pytest.raises(UsageError, match="given twice"):
        full_factorial([("A", "12"), ("A", "34")])
    with pytest.raises(UsageError, match="replicates"):
        full_factorial([("A", "12")], replicates=0)
    with pytest.raises(UsageError, match="not a plan"):
        full_factorial([(f"f{i}", "12") for i in range(21)])
    with pytest.raises(UsageError, match="two-level"):
        full_factorial([("A", "12"), ("B", "123")]).sign_table()


def test_python_api():
    import json

    import benchlab

    d = benchlab.factorial_design({"sched": ["BFS", "CFS"], "load": ["compile", "encode"]},
                                  replicates=2, seed=7)
    assert d.seed == 7 and len(d.rows()) == 8
    doc = d.to_dict()
    assert doc["sign_table"]["columns"] == ["I", "A", "B", "AB"]
    json.dumps(doc, allow_nan=False)

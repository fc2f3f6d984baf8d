"""Loading a factor table: level order, cells, and one-line errors."""

from __future__ import annotations

import pytest

from benchlab.data.factor_table import load_factor_table
from benchlab.errors import InputError, UsageError

CSV = """run,sched,machine,n,latency
1,CFS,p4,10,1.5
2,BFS,core2,2,2.5
3,CFS,core2,10,3.5
4,BFS,p4,2,4.0
5,BFS,p4,2,4.5
"""


@pytest.fixture
def table_file(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text(CSV)
    return str(path)


def test_levels_sort_alphabetically_or_numerically(table_file):
    t = load_factor_table(table_file, "latency", ["sched", "machine", "n"])
    assert t.levels == (("BFS", "CFS"), ("core2", "p4"), ("2", "10"))
    assert t.codes[0].tolist() == [1, 1, 1]
    assert t.cell_counts().tolist() == [1, 0, 2, 0, 0, 1, 0, 1]
    assert t.cell_label(5) == "sched=CFS, machine=core2, n=10"
    assert t.two_level and len(t) == 5


def test_level_order_overrides(table_file):
    t = load_factor_table(table_file, "latency", ["sched"], level_order={"sched": ["CFS", "BFS"]})
    assert t.levels == (("CFS", "BFS"),)
    assert t.codes[:, 0].tolist() == [0, 1, 0, 1, 1]


@pytest.mark.parametrize(("response", "factors", "order", "error", "text"), [
    ("latency", ["latency"], None, UsageError, "cannot also be a factor"),
    ("latency", ["nope"], None, UsageError, "no factor column 'nope'"),
    ("sched", ["machine"], None, InputError, ":2: 'CFS' in column 'sched' is not a number"),
    ("latency", ["sched"], {"sched": ["CFS", "XX"]}, InputError, "level 'BFS', not among"),
    ("latency", ["sched", "sched"], None, UsageError, "named twice"),
])
def test_bad_input_is_one_clear_error(table_file, response, factors, order, error, text):
    with pytest.raises(error, match=text):
        load_factor_table(table_file, response, factors, level_order=order)


def test_single_level_factor_is_refused(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("load,t\nhigh,1\nhigh,2\n")
    with pytest.raises(InputError, match="single level"):
        load_factor_table(str(path), "t", ["load"])

"""The result store as a data source: long format, levels, metrics, warm-up left out."""

from __future__ import annotations

import sqlite3
import textwrap
from pathlib import Path

import numpy as np
import pytest

from benchlab.data import readers
from benchlab.data.source import open_source
from benchlab.errors import InputError
from benchlab.runner.session import run_experiment

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "experiments" / "loop.db"


def make_store(tmp_path, text: str) -> str:
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent(text))
    db = str(tmp_path / "r.db")
    run_experiment(str(exp), db)
    return db


PARSED = """
    seed = 1
    builds = {builds}
    executions = {executions}
    iterations = {iterations}
    [warmup]
    executions = 1
    iterations = 1
    [measure]
    regex = 'v: (?P<v>[0-9.]+) w: (?P<w>[0-9.]+)'
    unit = {{ v = "ms", w = "MB/s" }}
    [alternatives.base]
    command = ["sh", "-c", "for i in $(seq $1); do echo v: 2 w: 5; done", "sh", "{{iterations}}"]
    [alternatives.fast]
    command = ["sh", "-c", "for i in $(seq $1); do echo v: 1 w: 9; done", "sh", "{{iterations}}"]
"""


def test_sqlite_is_recognised_before_text_decoding(tmp_path):
    db = make_store(tmp_path, PARSED.format(builds=1, executions=2, iterations=2))
    source = open_source(db)
    assert source.sqlite and source.lines == ()
    assert readers.reader_for(source).NAME == "store"


def test_long_format_with_levels_and_warmup_left_out(tmp_path):
    db = make_store(tmp_path, PARSED.format(builds=2, executions=2, iterations=3))
    d = readers.read(db)
    assert d.metric == "v" and d.unit.name == "ms" and d.default_by == "alternative"
    assert d.levels == ("build", "execution")
    assert d.factors == ("alternative",)
    # 2 alternatives x 2 builds x 2 executions x 3 iterations, warm-up left out
    assert len(d) == 24
    assert set(d.columns["execution"]) == {"2", "3"}  # execution 1 is the warm-up
    assert set(d.columns["iteration"]) == {"2", "3", "4"}  # iteration 1 is the warm-up
    assert d.group_names("alternative") == ["base", "fast"]  # the baseline first
    w = readers.read(db, metric="w")
    assert w.unit.name == "MB/s" and w.unit.higher_is_better
    np.testing.assert_array_equal(np.unique(w.values), [5.0, 9.0])


def test_unknown_metric(tmp_path):
    db = make_store(tmp_path, PARSED.format(builds=1, executions=2, iterations=2))
    with pytest.raises(InputError, match=r"no metric 'x' in the store \(metrics: v, w\)"):
        readers.read(db, metric="x")


@pytest.mark.parametrize("builds, executions, iterations, levels", [
    (1, 3, 2, ("execution",)),
    (2, 1, 3, ("build",)),
    (2, 2, 1, ("build",)),  # one measured iteration: the execution is the measurement
    (1, 1, 4, ()),
])
def test_levels_are_the_estimable_ones(tmp_path, builds, executions, iterations, levels):
    db = make_store(tmp_path, PARSED.format(builds=builds, executions=executions,
                                            iterations=iterations))
    assert readers.read(db).levels == levels


def test_process_timed_whole(tmp_path):
    db = make_store(tmp_path, """
        seed = 1
        builds = 2
        executions = 3
        [alternatives.a]
        command = ["true"]
    """)
    d = readers.read(db)
    assert d.metric == "wall" and d.unit.name == "s" and d.levels == ("build",)
    assert len(d) == 6
    rss = readers.read(db, metric="maxrss")
    assert rss.unit.name == "B" and (rss.values > 0).all()


def test_factors_name_samples_by_case(tmp_path):
    db = make_store(tmp_path, """
        seed = 1
        executions = 2
        [factors]
        size = ["s", "m"]
        [alternatives.a]
        command = ["echo", "{size}"]
    """)
    d = readers.read(db)
    assert d.default_by == "case" and d.factors == ("case", "alternative", "size")
    assert sorted(d.group_names("case")) == ["a size=m", "a size=s"]


def test_failed_trials_are_not_data(tmp_path):
    db = make_store(tmp_path, """
        seed = 1
        executions = 2
        [alternatives.a]
        command = ["true"]
        [alternatives.b]
        command = ["false"]
    """)
    assert readers.read(db).group_names("alternative") == ["a"]


def test_nothing_finished(tmp_path):
    db = make_store(tmp_path, "executions = 2\n[alternatives.b]\ncommand = [\"false\"]\n")
    with pytest.raises(InputError, match="no finished measurements"):
        readers.read(db)


def test_a_sqlite_file_that_is_not_a_store(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="not a benchlab store"):
        readers.read(str(path))


def test_the_committed_example_store():
    d = readers.read(str(EXAMPLE))
    assert d.levels == ("build", "execution")
    assert d.default_by == "case" and len(d) == 2 * 2 * 3 * 3 * 5

"""Metrics in the runner (issue 23 part 1): `metrics = [...]`, perf_event_open counters in the
timed execution, `counter = "cachegrind"` in separate counted executions, no silent fallback.

The PMU path needs a hardware PMU; where the kernel exposes none (perf_event_open of
instructions fails with ENOENT, as on this project's virtual machines) its tests skip
saying so. The software events (task-clock, page-faults) need no PMU and run for real,
and Valgrind runs for real on a small C program.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import textwrap

import pytest

from benchlab.cli.main import main
from benchlab.errors import InputError
from benchlab.runner import metric_sources, perf_event
from benchlab.runner.config import parse_experiment
from benchlab.runner.execute import run_process
from benchlab.runner.plan import make_plan, plan_size
from benchlab.runner.session import run_experiment
from benchlab.runner.store import Store

HAS_VALGRIND = shutil.which("valgrind") is not None and shutil.which("cc") is not None
needs_valgrind = pytest.mark.skipif(not HAS_VALGRIND, reason="valgrind or cc not installed")
SOFTWARE = perf_event.probe("task-clock")
needs_software = pytest.mark.skipif(not SOFTWARE.ok,
                                    reason=f"no software perf events: {SOFTWARE.reason}")
PMU = perf_event.probe("instructions")
needs_pmu = pytest.mark.skipif(not PMU.ok, reason=f"no hardware PMU here: {PMU.reason}")

LOOP_C = r"""
#include <stdlib.h>
int main(int argc, char **argv) {
    volatile unsigned long s = 0;
#ifdef LENGTH
    long n = LENGTH;
#else
    long n = atol(argv[1]);
#endif
    for (long i = 0; i < n; i++) s += i ^ (s >> 3);
    return (int)(s & 0);
}
"""


def experiment(text: str, path: str = "<experiment>"):
    return parse_experiment(textwrap.dedent(text), path)


def query(db: str, sql: str) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# -- the experiment file --------------------------------------------------------------------
def test_metrics_key_sets_what_is_measured_and_its_units():
    e = experiment("""
        metrics = ["cpu", "wall", "task-clock", "page-faults", "instructions"]
        counter = "cachegrind"
        [alternatives.a]
        command = ["true"]
    """)
    assert e.measure.metrics == ("cpu", "wall", "task-clock", "page-faults", "instructions")
    assert e.measure.units == ("s", "s", "s", "events", "instructions")
    assert e.counter == "cachegrind"
    assert metric_sources.perf_events(e.measure.metrics, e.counter) == ("task-clock",
                                                                        "page-faults")
    assert [metric_sources.source_of(m, e.counter) for m in e.measure.metrics] == [
        "rusage", "clock", "software", "software", "cachegrind"]


def test_a_counter_alone_adds_instructions_to_the_default_metrics():
    e = experiment('counter = "callgrind"\n[alternatives.a]\ncommand = ["true"]\n')
    assert e.measure.metrics == ("wall", "user", "sys", "maxrss", "instructions")


@pytest.mark.parametrize("text, line, message", [
    ('metrics = ["wall", "instrs"]\n', 1, "unknown metric 'instrs' (did you mean 'instructions'?)"),
    ('metrics = []\n', 1, "metrics is empty"),
    ('metrics = ["wall", "wall"]\n', 1, "metrics lists 'wall' twice"),
    ('metrics = "wall"\n', 1, "metrics must be a list of metric names"),
    ('counter = "perf"\n', 1, "counter must be one of cachegrind, callgrind, not 'perf'"),
    ('metrics = ["wall"]\ncounter = "cachegrind"\n', 2,
     'counter = "cachegrind" counts instructions: add "instructions" to metrics'),
    ('metrics = ["wall"]\n[measure]\nregex = "t: (?P<t>[0-9]+)"\n', 1,
     "metrics goes with a process timed whole"),
])
def test_bad_metrics_are_one_line_at_their_line(text, line, message):
    with pytest.raises(InputError) as info:
        experiment(text + '[alternatives.a]\ncommand = ["true"]\n', "exp.toml")
    assert info.value.where == f"exp.toml:{line}"
    assert message in info.value.message


# -- the plan -------------------------------------------------------------------------------
def test_counted_executions_are_separate_trials_in_the_measured_rounds():
    e = experiment("""
        executions = 3
        metrics = ["wall", "instructions"]
        counter = "cachegrind"
        [warmup]
        executions = 1
        [factors]
        n = [1, 2]
        [alternatives.a]
        command = ["true", "{n}"]
        [alternatives.b]
        command = ["true", "{n}"]
    """)
    plan = make_plan(e, 7)
    assert len(plan) == plan_size(e)[0] == 4 * (1 + 3) + 4 * 3
    counted = [t for t in plan if t.kind == "count"]
    assert len(counted) == 12 and not any(t.warmup for t in counted)
    for x in (2, 3, 4):  # each measured round: every cell once timed, once counted
        kinds = collections_of(plan, x)
        assert kinds == {"execution": 4, "count": 4}
    assert collections_of(plan, 1) == {"execution": 4}  # warm-up: timed only
    # interleaved: some round does not put all counted trials after the timed ones
    assert any([t.kind for t in plan if t.execution == x] != sorted(
        (t.kind for t in plan if t.execution == x), reverse=True) for x in (2, 3, 4))


def collections_of(plan, x: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in plan:
        if t.execution == x:
            out[t.kind] = out.get(t.kind, 0) + 1
    return out


def test_only_counted_metrics_plan_no_timed_executions_and_no_counter_keeps_the_order():
    only = experiment("""
        executions = 2
        metrics = ["instructions"]
        counter = "cachegrind"
        order = "sequential"
        [warmup]
        executions = 1
        [alternatives.a]
        command = ["true"]
    """)
    assert [(t.kind, t.execution) for t in make_plan(only, 1)] == [("count", 2), ("count", 3)]
    assert plan_size(only)[0] == 2
    base = 'executions = 3\n[alternatives.a]\ncommand = ["true"]\n[alternatives.b]\n' \
           'command = ["true"]\n'
    plain, wall = experiment(base), experiment('metrics = ["wall"]\n' + base)
    assert [(t.alternative, t.kind) for t in make_plan(plain, 5)] == \
        [(t.alternative, t.kind) for t in make_plan(wall, 5)]


# -- perf_event_open ------------------------------------------------------------------------
@needs_software
def test_software_events_count_every_execution_from_exec_to_exit():
    counters = perf_event.Counters(("task-clock", "page-faults"))
    try:
        seen = []
        for _ in range(6):  # without the guard event counting stopped after two executions
            outcome = run_process(["true"], counters=counters)
            seen.append(outcome.counts)
        big = run_process(["python3", "-c", "x = bytearray(64 << 20)"], counters=counters)
    finally:
        counters.close()
    assert all(c["page-faults"] > 5 and 0 < c["task-clock"] < 5 for c in seen)
    # 64 MiB touched: at least 16,384 page faults of 4 KiB (fewer with huge pages, not here)
    assert big.counts["page-faults"] > 4 * seen[0]["page-faults"]
    assert big.counts["task-clock"] <= big.wall * 1.05 + 0.01


def test_the_probe_names_the_kernels_reason():
    probe = perf_event.probe("instructions")
    assert probe.ok or probe.reason.startswith("perf_event_open: E")
    hardware, software, reason = perf_event.offered()
    assert set(hardware) <= set(perf_event.HARDWARE)
    assert (reason == "") == bool(hardware)


@needs_pmu
def test_pmu_instructions_of_a_loop_grow_with_its_length(tmp_path):
    binary = _loop_binary(tmp_path)
    counters = perf_event.Counters(("instructions",))
    try:
        small = run_process([binary, "1000000"], counters=counters).counts["instructions"]
        large = run_process([binary, "2000000"], counters=counters).counts["instructions"]
    finally:
        counters.close()
    assert 1.8 < large / small < 2.1


@pytest.mark.skipif(PMU.ok, reason="this machine has a PMU: nothing to refuse")
def test_instructions_without_pmu_or_counter_is_one_line_naming_both(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text('executions = 2\nmetrics = ["wall", "instructions"]\n'
                    '[alternatives.a]\ncommand = ["true"]\n')
    assert main(["run", str(path), "-o", str(tmp_path / "r.db")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{path}:2: metric 'instructions' needs a hardware PMU" in err
    assert 'counter = "cachegrind"' in err and "--counter cachegrind" in err
    assert not (tmp_path / "r.db").exists()
    assert main(["run", "--metrics", "wall,cycles", "-r", "2", "--", "true"]) == 2
    assert "metric 'cycles' is a hardware PMU event this machine does not offer" in \
        capsys.readouterr().err


@needs_software
def test_quick_mode_records_cpu_and_software_events(tmp_path, capsys):
    db = str(tmp_path / "q.db")
    assert main(["run", "--metrics", "cpu,task-clock,page-faults", "-r", "2", "-o", db,
                 "--format", "json", "--", "sh -c true"]) == 0
    capsys.readouterr()
    store = Store.open(db)
    try:
        assert store.metrics() == [("cpu", "s"), ("task-clock", "s"), ("page-faults", "events")]
        assert store.metric_sources() == {"cpu": {"source": "rusage"},
                                          "task-clock": {"source": "software"},
                                          "page-faults": {"source": "software"}}
        rows = store.rows()
    finally:
        store.close()
    assert len(rows) == 2 * 3
    assert all(r.value > 0 for r in rows if r.metric == "page-faults")


# -- cachegrind, for real -------------------------------------------------------------------
def _loop_binary(tmp_path) -> str:
    source = tmp_path / "loop.c"
    source.write_text(LOOP_C)
    import subprocess

    subprocess.run(["cc", "-O1", "-o", str(tmp_path / "loop"), str(source)], check=True)
    return str(tmp_path / "loop")


@pytest.fixture(scope="module")
def counted_store(tmp_path_factory):
    """A C loop built in the experiment's build step, two lengths 1% apart, two timed and
    two counted executions each under cachegrind."""
    if not HAS_VALGRIND:
        pytest.skip("valgrind or cc not installed")
    tmp = tmp_path_factory.mktemp("counted")
    (tmp / "loop.c").write_text(LOOP_C)
    path = tmp / "exp.toml"
    path.write_text(textwrap.dedent("""
        seed = 3
        executions = 2
        metrics = ["wall", "instructions"]
        counter = "cachegrind"
        [alternatives.base]
        build = ["cc", "-O1", "-DLENGTH=200000", "-o", "loop-base", "loop.c"]
        command = ["./loop-{alternative}"]
        [alternatives.longer]
        build = ["cc", "-O1", "-DLENGTH=202000", "-o", "loop-longer", "loop.c"]
        command = ["./loop-{alternative}"]
    """))
    db = str(tmp / "r.db")
    result = run_experiment(str(path), db)
    assert result.status == "finished" and result.counts == {"ok": 2 + 2 * 2 * 2}
    return db


def test_counted_and_timed_executions_are_stored_apart(counted_store):
    rows = query(counted_store, "SELECT t.kind, m.metric, COUNT(*), COUNT(DISTINCT m.value) "
                                "FROM measurements m JOIN trials t ON t.seq = m.trial "
                                "WHERE t.kind != 'build' GROUP BY t.kind, m.metric, "
                                "t.alternative ORDER BY 1, 2")
    assert [r[:3] for r in rows] == [("count", "instructions", 2)] * 2 + \
        [("execution", "wall", 2)] * 2
    assert [r[3] for r in rows[:2]] == [1, 1]  # cachegrind's counts: identical every time
    store = Store.open(counted_store)
    try:
        sources = store.metric_sources()
        counter = json.loads(store.meta["counter"])
    finally:
        store.close()
    assert sources["wall"] == {"source": "clock"}
    assert sources["instructions"]["source"] == "cachegrind"
    assert sources["instructions"]["version"].startswith("valgrind-")
    assert counter["tool"] == "cachegrind" and "--cache-sim=no" in counter["options"]


def test_compare_decides_a_one_percent_change_in_instructions(counted_store, capsys):
    assert main(["compare", counted_store, "--metric", "instructions", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (pair,) = doc["comparisons"]
    assert pair["verdict"]["outcome"] == "change"
    # 2,000 more iterations of a loop of a few instructions each, over ~1.4 M: about +1%
    assert 1.005 < pair["ratio"]["estimate"] < 1.02


def test_a_failing_command_under_the_counter_is_a_failed_trial(tmp_path):
    if not HAS_VALGRIND:
        pytest.skip("valgrind not installed")
    path = tmp_path / "exp.toml"
    path.write_text('executions = 1\nmetrics = ["instructions"]\ncounter = "cachegrind"\n'
                    '[alternatives.a]\ncommand = ["sh", "-c", "exit 3"]\n')
    result = run_experiment(str(path), str(tmp_path / "r.db"))
    assert result.counts == {"failed": 1}
    assert result.failures[0][2] == "exit code 3"


def test_counted_executions_of_a_failed_build_are_not_run(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text('executions = 2\nmetrics = ["instructions"]\ncounter = "cachegrind"\n'
                    '[alternatives.a]\nbuild = ["false"]\ncommand = ["true"]\n')
    if not HAS_VALGRIND:
        pytest.skip("valgrind not installed")
    result = run_experiment(str(path), str(tmp_path / "r.db"))
    assert result.counts == {"failed": 3}
    assert [f[2] for f in result.failures[1:]] == ["not run: build 1 of a failed"] * 2
    assert query(str(tmp_path / "r.db"), "SELECT kind FROM trials ORDER BY seq") == [
        ("build",), ("count",), ("count",)]

"""Machines without Dask (issue 13): the plan of role "level" and of builds per machine, the
store's `machine` column (and stores made before it), the store reader's machine level, the
progress and closing lines per machine, and stopping the command a worker runs."""

from __future__ import annotations

import json
import sqlite3
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from benchlab.errors import InputError
from benchlab.runner.config import parse_experiment
from benchlab.runner.plan import build_key, command_for, machine_of, make_plan, plan_size


def experiment(tmp: Path, body: str, name: str = "exp.toml"):
    path = tmp / name
    path.write_text(textwrap.dedent(body))
    return parse_experiment(path.read_text(), str(path))


LEVEL = """
    seed = 3
    builds = {builds}
    executions = 3
    shell = true
    [machines]
    names = ["m1", "m2", "m3"]
    role = "level"
    [factors]
    n = ["1", "2"]
    [alternatives.a]
    build = 'echo {{machine}} {{build}}'
    command = 'echo {{machine}} {{build}} {{n}}'
    [alternatives.b]
    command = 'echo {{machine}} {{build}} {{n}}'
"""


def test_level_plan_nests_builds_in_machines(tmp_path):
    e = experiment(tmp_path, LEVEL.format(builds=2))
    assert e.factor_names == ("n",)  # the machine is not a factor with role level
    plan = make_plan(e, 11)
    assert len(plan) == plan_size(e)[0] == 2 * (3 + 2 * 2 * 3 * 3)
    assert [t.seq for t in plan] == list(range(1, len(plan) + 1))
    # build numbers are unique across machines: round k on machine i is (k-1)*3 + i
    index = {"m1": 1, "m2": 2, "m3": 3}
    for t in plan:
        k = 1 if t.seq <= len(plan) // 2 else 2
        assert t.build == (k - 1) * 3 + index[t.machine]
    machine_of_build = {}
    for t in plan:
        assert machine_of_build.setdefault(t.build, t.machine) == t.machine
    # a build round holds every machine's build of a, then each execution round runs every
    # cell once on every machine
    rounds: dict[int, list] = {}
    for t in plan:
        rounds.setdefault(t.round, []).append(t)
    kinds = [{t.kind for t in ts} for _, ts in sorted(rounds.items())]
    assert kinds == [{"build"}, *[{"execution"}] * 3] * 2
    for ts in rounds.values():
        if ts[0].kind == "build":
            assert sorted(t.machine for t in ts) == ["m1", "m2", "m3"]
            assert {t.alternative for t in ts} == {"a"}
        else:
            keys = Counter((t.alternative, t.factors, t.machine) for t in ts)
            assert len(keys) == 2 * 2 * 3 and set(keys.values()) == {1}
    # the machine and the build reach the commands
    t = next(t for t in plan if t.kind == "execution" and t.machine == "m2")
    assert command_for(e, t).show() == f"echo m2 {t.build} {dict(t.factors)['n']}"
    # the order within a round is drawn: not the cells' order in every round
    orders = {tuple((t.alternative, t.factors, t.machine) for t in ts)
              for ts in rounds.values() if ts[0].kind == "execution"}
    assert len(orders) > 1
    assert make_plan(e, 11) == plan and make_plan(e, 12) != plan


def test_level_without_build_steps_and_sequential(tmp_path):
    e = experiment(tmp_path, LEVEL.format(builds=1).replace(
        "build = 'echo {machine} {build}'\n", ""))
    plan = make_plan(e, 1)
    assert len(plan) == plan_size(e)[0] == 2 * 2 * 3 * 3
    assert sorted({(t.machine, t.build) for t in plan}) == [("m1", 1), ("m2", 2), ("m3", 3)]
    s = experiment(tmp_path, LEVEL.format(builds=2).replace("seed = 3", "order = 'sequential'"),
                   "seq.toml")
    plan = make_plan(s, 1)
    assert len(plan) == plan_size(s)[0]
    # one alternative at a time; within it, one build (and its machine) at a time
    assert [t.alternative for t in plan] == sorted(t.alternative for t in plan)
    first = [t for t in plan if t.alternative == "a"]
    assert [t.build for t in first] == sorted(t.build for t in first)
    assert [t.kind for t in first[:2]] == ["build", "execution"]


def test_factor_role_builds_once_per_machine(tmp_path):
    e = experiment(tmp_path, """
        seed = 2
        builds = 2
        executions = 2
        [machines]
        names = ["x", "y"]
        [alternatives.a]
        build = ["echo", "{machine}", "{build}"]
        command = ["echo", "{machine}"]
    """)
    plan = make_plan(e, 5)
    assert len(plan) == plan_size(e)[0] == 2 * (2 + 2 * 2)
    steps = [t for t in plan if t.kind == "build"]
    assert sorted((t.build, t.machine) for t in steps) == [(1, "x"), (1, "y"), (2, "x"),
                                                          (2, "y")]
    assert {command_for(e, t).show() for t in steps} == {"echo x 1", "echo y 1", "echo x 2",
                                                         "echo y 2"}
    for t in plan:
        if t.kind == "execution":  # the factor and the trial's machine agree
            assert dict(t.factors)["machine"] == t.machine
    # a failed build is keyed by its machine: y's executions of build 1 only
    failed = {build_key(t) for t in steps if t.machine == "y" and t.build == 1}
    hit = [t for t in plan if t.kind == "execution" and build_key(t) in failed]
    assert {(t.machine, t.build) for t in hit} == {("y", 1)} and len(hit) == 2


def old_plan(e, seed):
    """The interleaved plan as make_plan drew it before machines (an independent copy of the
    earlier code): (round, kind, alternative, factors, build, execution)."""
    import itertools

    rng = np.random.default_rng(seed)
    combos = list(itertools.product(*(levels for _, levels in e.factors)))
    cells = [(a.name, tuple(zip(e.factor_names, c, strict=True))) for a in e.alternatives
             for c in combos]
    built = [a.name for a in e.alternatives if a.build is not None]
    out, rnd = [], 0
    for b in range(1, e.builds + 1):
        if built:
            rnd += 1
            out += [(rnd, "build", built[i], (), b, 0) for i in rng.permutation(len(built))]
        for x in range(1, e.warmup_executions + e.executions + 1):
            rnd += 1
            out += [(rnd, "execution", *cells[i], b, x) for i in rng.permutation(len(cells))]
    return out


def test_plans_without_level_draw_as_before(tmp_path):
    plain = experiment(tmp_path, LEVEL.format(builds=2).replace(
        '[machines]\n    names = ["m1", "m2", "m3"]\n    role = "level"\n', "").replace(
        "{machine} ", ""), "plain.toml")
    assert plain.machines is None
    factor = experiment(tmp_path, """
        builds = 2
        executions = 3
        [machines]
        names = ["m1", "m2"]
        [factors]
        n = ["1", "2"]
        [alternatives.a]
        command = ["true"]
        [alternatives.b]
        command = ["true"]
    """, "factor.toml")
    for e in (plain, factor):
        for seed in (0, 9):
            got = [(t.round, t.kind, t.alternative, t.factors, t.build, t.execution)
                   for t in make_plan(e, seed)]
            assert got == old_plan(e, seed)


@pytest.mark.parametrize(("body", "message"), [
    ('[machines]\nnames = ["solo"]\nrole = "level"\n', "needs at least 2 machines"),
    ('[machines]\nnames = ["a", "a"]\nrole = "level"\n', "repeats 'a'"),
    ('[machines]\nnames = ["a", ""]\nrole = "level"\n', "is not a machine name"),
    ('[machines]\nnames = ["a", "b"]\nrole = "both"\n', "must be one of factor, level"),
    ("", "unknown placeholder {machine}"),
])
def test_machines_errors(body, message):
    text = body + '[alternatives.a]\ncommand = ["true"]\nbuild = ["echo", "{machine}"]\n'
    with pytest.raises(InputError, match=message) as info:
        parse_experiment(text, "exp.toml")
    assert "\n" not in str(info.value) and "exp.toml:" in str(info.value)


# The schema of the stores made before trials had a machine column.
OLD_SCHEMA = """
CREATE TABLE benchlab_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY, started TEXT NOT NULL, finished TEXT, argv TEXT NOT NULL,
    environment TEXT NOT NULL, warnings TEXT NOT NULL, outcome TEXT);
CREATE TABLE trials (
    seq INTEGER PRIMARY KEY, round INTEGER NOT NULL, kind TEXT NOT NULL,
    alternative TEXT NOT NULL, factors TEXT NOT NULL, build INTEGER NOT NULL,
    execution INTEGER NOT NULL, warmup INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'planned', session INTEGER REFERENCES sessions(id),
    started TEXT, command TEXT, wall REAL, user REAL, sys REAL, maxrss INTEGER,
    exit_code INTEGER, signal INTEGER, error TEXT, stderr_tail TEXT);
CREATE TABLE measurements (
    trial INTEGER NOT NULL REFERENCES trials(seq), iteration INTEGER NOT NULL,
    metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT NOT NULL, warmup INTEGER NOT NULL,
    PRIMARY KEY (trial, iteration, metric));
"""


def old_store(tmp_path: Path, exp: Path, factors: dict) -> Path:
    """A store as the earlier runner made it (old schema), its plan written by hand: two
    alternatives x 2 executions, the first trial already recorded."""
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db)
    conn.executescript(OLD_SCHEMA)
    meta = {"format": "benchlab-store", "schema_version": "1", "created": "2026-01-01T00:00:00Z",
            "status": "running", "experiment_path": str(exp), "experiment_text": exp.read_text(),
            "seed": "1", "name": "old", "baseline": "a", "order": "interleaved-random",
            "factors": json.dumps(list(factors)), "factor_levels": json.dumps(
                {k: [v] for k, v in factors.items()}),
            "metrics": json.dumps([["wall", "s"], ["user", "s"], ["sys", "s"], ["maxrss", "B"]]),
            "alternatives": json.dumps(["a", "b"]), "builds": "1", "executions": "2",
            "iterations": "1"}
    conn.executemany("INSERT INTO benchlab_meta VALUES (?, ?)", list(meta.items()))
    trials = [(1, 1, "a"), (2, 1, "b"), (3, 2, "b"), (4, 2, "a")]
    conn.executemany("INSERT INTO trials (seq, round, kind, alternative, factors, build, "
                     "execution, warmup) VALUES (?, ?, 'execution', ?, ?, 1, ?, 0)",
                     [(s, r, a, json.dumps(factors), r) for s, r, a in trials])
    conn.execute("UPDATE trials SET status = 'ok', wall = 0.001 WHERE seq = 1")
    conn.executemany("INSERT INTO measurements VALUES (1, 1, ?, ?, ?, 0)",
                     [("wall", 0.001, "s"), ("user", 0.0, "s"), ("sys", 0.0, "s"),
                      ("maxrss", 1e6, "B")])
    conn.commit()
    conn.close()
    return db


def test_store_made_before_the_machine_column(tmp_path):
    from benchlab.data.readers import store as reader
    from benchlab.data.source import open_source
    from benchlab.runner.session import run_experiment
    from benchlab.runner.store import Store

    exp = tmp_path / "old.toml"
    exp.write_text('seed = 1\nexecutions = 2\n[alternatives.a]\ncommand = ["true"]\n'
                   '[alternatives.b]\ncommand = ["true"]\n')
    db = old_store(tmp_path, exp, {})
    s = Store.open(str(db))  # read-only: nothing is added
    assert not s.has_machine and [t.machine for t in s.trials()] == [None] * 4
    assert s.machine_counts() == {} and len(s.rows("wall")) == 1
    s.close()
    assert "machine" not in [r[1] for r in sqlite3.connect(db).execute(
        "PRAGMA table_info(trials)")]
    result = run_experiment(str(exp), str(db), resume=True)  # resumed: the column added
    assert result.status == "finished" and result.counts == {"ok": 4}
    columns = [r[1] for r in sqlite3.connect(db).execute("PRAGMA table_info(trials)")]
    assert columns[-1] == "machine"
    data = reader.read(open_source(str(db)))
    assert "machine" not in data.columns and len(data.values) == 4
    # an old role-"factor" store: the machine is found in the factors
    (tmp_path / "old.db").unlink()
    db = old_store(tmp_path, exp, {"machine": "m1"})
    s = Store.open(str(db))
    assert {machine_of(t) for t in s.trials()} == {"m1"}
    assert s.machine_counts() == {"m1": {"ok": 1, "planned": 3}}
    s.close()


def level_store(tmp_path: Path, seed: int = 4) -> tuple[Path, dict]:
    """A role-"level" store recorded by hand: 3 machines x 2 builds x 3 executions x 4
    iterations of a and b; values with a machine, build and execution effect."""
    from benchlab.runner.execute import Outcome
    from benchlab.runner.store import Store
    from benchlab.runner.trial import measurements as _measurements

    exp = tmp_path / "lvl.toml"
    exp.write_text(textwrap.dedent("""
        builds = 2
        executions = 3
        iterations = 4
        [measure]
        regex = 'v: (?P<v>[0-9.]+)'
        unit = "ms"
        [machines]
        names = ["m1", "m2", "m3"]
        role = "level"
        [alternatives.a]
        command = ["true"]
        [alternatives.b]
        command = ["true"]
    """))
    e = parse_experiment(exp.read_text(), str(exp))
    plan = make_plan(e, seed)
    meta = {"experiment_text": e.text, "seed": str(seed), "baseline": "a",
            "order": e.order, "factors": "[]", "metrics": json.dumps([["v", "ms"]]),
            "alternatives": json.dumps(["a", "b"]), "factor_levels": "{}",
            "machines": json.dumps({"names": list(e.machines.names), "role": "level"})}
    db = tmp_path / "lvl.db"
    store = Store.create(str(db), meta, plan)
    assert store.trials() == plan  # every trial read back with its machine
    rng = np.random.default_rng(seed)
    machine_effect = {m: rng.normal(0, 3) for m in e.machines.names}
    build_effect = {b: rng.normal(0, 1) for b in range(1, 7)}
    values = {}
    for t in plan:
        base = 100.0 + (10 if t.alternative == "b" else 0) + machine_effect[t.machine] \
            + build_effect[t.build] + rng.normal(0, 0.5)
        rows = [{"v": float(base + rng.normal(0, 0.2))} for _ in range(4)]
        values[t.seq] = rows
        outcome = Outcome(0.01, 0.0, 0.0, 0, 0, None, False, None, "", rows)
        store.record(t, 1, "2026-01-01T00:00:00Z", "true", outcome, _measurements(e, t, outcome))
    store.close()
    return db, {"plan": plan, "values": values}


def test_reader_gives_the_machine_level(tmp_path):
    from benchlab.data.readers import store as reader
    from benchlab.data.source import open_source

    db, made = level_store(tmp_path)
    data = reader.read(open_source(str(db)))
    assert data.levels == ("machine", "build", "execution")
    assert "machine" not in data.factors
    machine = np.asarray(data.columns["machine"]).astype(str)
    build = np.asarray(data.columns["build"]).astype(str)
    assert sorted(set(machine)) == ["m1", "m2", "m3"]
    pairs = set(zip(build, machine, strict=True))  # builds nest in machines
    assert len({b for b, _ in pairs}) == len(pairs) == 6
    by_seq = {t.seq: t for t in made["plan"]}
    trial = np.asarray(data.columns["trial"]).astype(int)
    assert all(by_seq[s].machine == m for s, m in zip(trial, machine, strict=True))
    # a role-factor store has the machine as its factor (in the cell): no machine level
    columns = dict(data.columns)
    columns["case"] = np.char.add(np.asarray(columns["alternative"]).astype(str),
                                  np.char.add(" machine=", machine))
    assert reader.levels_of(columns)[0] != "machine"


def test_summary_machine_component_against_a_direct_computation(tmp_path, capsys):
    """`benchlab summary STORE`'s machine and build S² (Kalibera & Jones: the variance of the
    level's unit means, averaged within the level above) against numpy on the raw values."""
    from benchlab.cli.main import main

    db, made = level_store(tmp_path)
    assert main(["summary", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["level_columns"] == ["machine", "build", "execution"]
    for group in doc["groups"]:
        alt = group["name"]
        trials = [t for t in made["plan"] if t.alternative == alt]
        cube = np.array([[[[r["v"] for r in made["values"][t.seq]]
                           for t in sorted(trials, key=lambda t: t.execution)
                           if t.build == b]
                          for b in sorted({t.build for t in trials if t.machine == m})]
                         for m in ("m1", "m2", "m3")])  # machine x build x execution x iter
        assert cube.shape == (3, 2, 3, 4)
        s2 = {lv["level"]: lv["s2"] for lv in group["levels"]}
        build_means = cube.mean(axis=(2, 3))
        assert s2["machine"] == pytest.approx(build_means.mean(axis=1).var(ddof=1), rel=1e-9)
        assert s2["build"] == pytest.approx(build_means.var(axis=1, ddof=1).mean(), rel=1e-9)
        assert s2["measurement"] == pytest.approx(cube.var(axis=3, ddof=1).mean(), rel=1e-9)
        assert group["mean"] == pytest.approx(cube.mean(), rel=1e-12)


def test_dry_run_names_each_trial_machine(tmp_path):
    from benchlab.result import render
    from benchlab.runner.session import plan_only

    e = experiment(tmp_path, LEVEL.format(builds=1))
    planned = plan_only(e.path, str(tmp_path / "x.db"), seed=None, resume=False)
    doc = render(planned, "json")
    assert [t["machine"] for t in doc["trials"]] == [t.machine for t in make_plan(e, 3)]
    text = str(planned)
    assert "levels: 3 machines x 1 build x 3 executions" in text
    assert " a on m1 " in text and " b n=2 on m3 " in text


def test_progress_and_closing_lines_name_the_machine(tmp_path):
    import io

    from benchlab.result import render
    from benchlab.runner.plan import Trial
    from benchlab.runner.progress import PlainProgress, describe
    from benchlab.runner.session import RunResult

    t = Trial(5, 2, "execution", "fast", (("n", "1"), ("machine", "m2")), 1, 3, False, "m2")
    assert describe(t) == "round 2 on m2: fast n=1, build 1, execution 3"
    level = Trial(6, 2, "build", "fast", (), 4, 0, False, "m\x1b1")
    assert describe(level) == "round 2 on m\\x1b1: fast, build 4, build step"
    out = io.StringIO()
    p = PlainProgress(out)
    p.start(2, 0)
    p.end(t, "exit code 1", 0.0)
    assert "on m2: fast n=1" in out.getvalue()
    result = RunResult("s.db", 1, "finished", None, {"ok": 3, "failed": 1}, 12, 4,
                       machines={"m1": {"ok": 2}, "m2": {"ok": 1, "failed": 1}})
    text = str(result)
    assert "  on m1: 2 ok, 0 failed, 0 not run\n  on m2: 1 ok, 1 failed, 0 not run\n" in text
    assert render(result, "json")["machines"]["m2"] == {"ok": 1, "failed": 1, "not_run": 0}
    assert "machines" not in render(RunResult("s.db", 1, "finished", None, {}, 0, 0), "json")


def test_stop_running_kills_the_waited_command():
    from benchlab.runner import execute, worker

    assert worker.stop_trials() == 0  # nothing runs
    outcome = []
    thread = threading.Thread(target=lambda: outcome.append(
        execute.run_process(["sh", "-c", "sleep 600 & sleep 600"])), daemon=True)
    began = time.monotonic()
    thread.start()
    while not execute.RUNNING and time.monotonic() - began < 120:  # polled: loaded machines
        time.sleep(0.01)
    assert len(execute.RUNNING) == 1
    assert worker.stop_trials() == 1
    thread.join(120)  # killed, not waited for: 120 s is far from both (and from 600 s)
    assert not thread.is_alive()
    assert outcome[0].error == "killed by signal SIGKILL"
    assert not execute.RUNNING


def test_identical_machines_that_differ_are_warned_about_at_start_and_end(tmp_path):
    """Role "level": the driver's warnings name each key that matters on which the machines
    differ (CPU, kernel); role "factor" shows no such line; the run's text repeats them."""
    from benchlab.runner import environment
    from benchlab.runner.cluster import Cluster, identical_machine_warnings, machine_warnings
    from benchlab.runner.session import RunResult

    base = environment.collect()
    records = {"m1": {**base, "kernel": "6.1.0-18"}, "m2": {**base, "kernel": "6.1.0-21"},
               "m3": dict(base)}
    cluster = Cluster(client=None, address="local:3", environments=records)
    level = experiment(tmp_path, LEVEL.format(builds=1))
    lines = identical_machine_warnings(cluster, level)
    assert len(lines) == 1 and "kernel" in lines[0] and "6.1.0-21" in lines[0]
    assert all(w in machine_warnings(cluster, level) for w in lines)
    factor = experiment(tmp_path, LEVEL.format(builds=1).replace('"level"', '"factor"'),
                        "factor.toml")
    assert identical_machine_warnings(cluster, factor) == []
    assert not any("meant to be identical" in w for w in machine_warnings(cluster, factor))
    result = RunResult("x.db", 1, "finished", None, {"ok": 3}, 3, 3, lines, [], {},
                       differing_machines=lines)
    assert f"warning: {lines[0]}" in str(result).splitlines()


def test_an_interrupted_batch_runs_no_further_trial(tmp_path):
    """stop_trials kills the running command of a batch and the batch runs none after it
    (the driver sends short executions in batches; Ctrl-C must stop the whole batch)."""
    from benchlab.runner import execute, worker

    e = experiment(tmp_path, """
        seed = 1
        executions = 6
        [alternatives.a]
        command = ["sleep", "100"]
    """)
    batch = [t for t in make_plan(e, 1) if t.kind == "execution"]
    assert len(batch) == 6
    raised = []

    def run() -> None:
        try:
            worker.run_trials(e, batch)
        except worker.Stopped as exc:
            raised.append(str(exc))

    thread = threading.Thread(target=run, daemon=True)
    began = time.monotonic()
    thread.start()
    while not execute.RUNNING and time.monotonic() - began < 120:  # polled: loaded machines
        time.sleep(0.01)
    assert worker.stop_trials() == 1
    thread.join(120)  # far below 6 x 100 s: the batch stopped at its first trial
    assert not thread.is_alive()
    assert raised and f"trial {batch[1].seq}" in raised[0]
    # a batch started after the stop runs in full
    quick = experiment(tmp_path, """
        seed = 1
        executions = 1
        [alternatives.a]
        command = ["true"]
    """, "quick.toml")
    assert len(worker.run_trials(quick, [t for t in make_plan(quick, 1)
                                          if t.kind == "execution"])) == 1


def test_a_noise_warning_shared_by_machines_is_one_line(tmp_path):
    """The same noise warning on several machines (ASLR on both) is said once, naming them;
    one that differs (the load figure) stays per machine."""
    from benchlab.runner import environment
    from benchlab.runner.cluster import Cluster, machine_warnings

    base = {**environment.collect(), "aslr": 2}
    records = {"m1": {**base, "load_average": [0.0, 0.0, 0.0]},
               "m2": {**base, "load_average": [3.5, 3.0, 3.0]}}
    level = experiment(tmp_path, LEVEL.format(builds=1).replace('"m1", "m2", "m3"',
                                                                  '"m1", "m2"'))
    lines = machine_warnings(Cluster(client=None, address="local:2", environments=records),
                             level)
    aslr = [w for w in lines if "layout randomization" in w]
    assert len(aslr) == 1 and aslr[0].startswith("machines m1, m2: ")
    busy = [w for w in lines if "busy" in w]
    assert len(busy) == 1 and busy[0].startswith("machine m2: ")

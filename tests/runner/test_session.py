"""Whole experiments with real processes: levels, warm-up, failures, builds, stopping, resume."""

from __future__ import annotations

import collections
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchlab.errors import InputError, UsageError
from benchlab.runner.session import plan_only, run_experiment
from benchlab.runner.store import Store


def write(tmp_path, text: str, name: str = "exp.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def query(db: str, sql: str, *args) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def test_levels_warmup_builds_and_order(tmp_path):
    exp = write(tmp_path, """
        seed = 4
        builds = 2
        executions = 2
        iterations = 3
        [warmup]
        executions = 1
        iterations = 1
        [measure]
        regex = 'v: (?P<v>[0-9.]+)'
        unit = "ms"
        [factors]
        n = [1, 2]
        [alternatives.a]
        command = ["sh", "-c", "echo a >> order.log; for i in $(seq $1); do echo v: $2; done",
                   "sh", "{iterations}", "{n}"]
        build = ["sh", "-c", "echo built > build-$1-$2", "sh", "{alternative}", "{build}"]
        [alternatives.b]
        command = ["sh", "-c", "echo b >> order.log; for i in $(seq $1); do echo v: $2; done",
                   "sh", "{iterations}", "{n}"]
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db)
    assert result.status == "finished"
    assert result.counts == {"ok": 2 * 2 * 2 * 3 + 2}  # executions + the build steps of a
    assert sorted(p.name for p in tmp_path.glob("build-*")) == [
        "build-a-1", "build-a-2"]
    # 4 cells x 2 builds x 3 executions x 4 iterations
    assert result.measurements == 96
    warm = query(db, "SELECT COUNT(*) FROM measurements WHERE warmup = 1")[0][0]
    assert warm == 4 * 2 * (4 + 2)  # the warm-up execution whole + one iteration of the others
    first_iter = query(db, "SELECT DISTINCT m.warmup FROM measurements m JOIN trials t ON "
                       "t.seq = m.trial WHERE m.iteration = 1")
    assert first_iter == [(1,)]
    values = query(db, "SELECT DISTINCT t.factors, m.value FROM measurements m JOIN trials t "
                   "ON t.seq = m.trial ORDER BY m.value")
    assert [v for _, v in values] == [1.0, 2.0]
    # the processes ran in the plan's order
    store = Store.open(db)
    planned = [t.alternative for t in store.trials() if t.kind == "execution"]
    store.close()
    logged = (tmp_path / "order.log").read_text().split()
    assert logged == planned


def test_failures_are_recorded_and_the_run_goes_on(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 3
        [alternatives.good]
        command = ["true"]
        [alternatives.bad]
        command = ["sh", "-c", "echo 'it broke' >&2; exit 4"]
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db)
    assert result.status == "finished"
    assert result.counts == {"ok": 3, "failed": 3}
    assert result.failures[0][2] == "exit code 4"
    assert result.failures[0][3] == "it broke\n"
    assert query(db, "SELECT COUNT(*) FROM measurements m JOIN trials t ON t.seq = m.trial "
                 "WHERE t.alternative = 'bad'") == [(0,)]


def test_fail_fast_then_resume(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 3
        order = "sequential"
        [alternatives.bad]
        command = ["sh", "-c", "test -f ok || exit 1"]
        [alternatives.good]
        command = ["true"]
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db, fail_fast=True)
    assert result.status == "failed" and result.counts == {"failed": 1, "planned": 5}
    (tmp_path / "ok").write_text("")
    result = run_experiment(exp, db, resume=True)
    assert result.status == "finished" and result.counts == {"failed": 1, "ok": 5}
    assert query(db, "SELECT COUNT(*) FROM sessions") == [(2,)]


def test_failed_build_skips_its_executions(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        builds = 2
        executions = 2
        [alternatives.a]
        command = ["true"]
        build = ["sh", "-c", "test $1 = 1", "sh", "{build}"]
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.counts == {"ok": 3, "failed": 3}
    errors = [e for _, _, e, _ in result.failures]
    assert errors == ["exit code 1", "not run: build 2 of a failed", "not run: build 2 of a "
                      "failed"]


def test_timeout_in_an_experiment(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 1
        timeout = "0.2s"
        [alternatives.slow]
        command = ["sleep", "10"]
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.counts == {"failed": 1}
    assert result.failures[0][2] == "timed out after 0.2 s"


def test_stop_when_halfwidth(tmp_path):
    """Constant values: the ratio CI has width 0 from two top-level units on, but the rule
    waits for stopping.MIN_UNITS (5) per side, so the run stops after round 5 of 50."""
    exp = write(tmp_path, """
        seed = 1
        executions = 50
        [measure]
        regex = 'v: (?P<v>[0-9.]+)'
        [alternatives.a]
        command = ["echo", "v: 10"]
        [alternatives.b]
        command = ["echo", "v: 12"]
        [stop_when]
        halfwidth = "1%"
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db)
    assert result.status == "stopped" and "±1%" in result.stop_reason
    assert result.counts == {"ok": 10, "planned": 90}
    again = run_experiment(exp, db, resume=True)
    assert again.status == "already-stopped" and again.ran == 0


def test_stop_when_max_time(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 100
        [alternatives.a]
        command = ["sleep", "0.03"]
        [stop_when]
        max_time = "0.1s"
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.status == "stopped" and "max_time" in result.stop_reason
    # it stopped after the first round whose trials' recorded walls add up to 0.1 s: how
    # many that is depends on the machine's load, so the test reads the walls back
    conn = sqlite3.connect(tmp_path / "r.db")
    rounds = conn.execute("SELECT round, SUM(wall) FROM trials WHERE wall IS NOT NULL "
                          "GROUP BY round ORDER BY round").fetchall()
    conn.close()
    walls = [w for _, w in rounds]
    assert sum(walls) >= 0.1 and (len(walls) == 2 or 0.1 > sum(walls[:-1]))
    assert result.counts["ok"] == len(walls) < 100


def test_max_time_never_stops_before_two_values_per_alternative(tmp_path):
    """A limit the first round already passes: one value cannot be compared, so the run
    stops after the second round, not the first."""
    exp = write(tmp_path, """
        seed = 1
        executions = 100
        [alternatives.a]
        command = ["sleep", "0.03"]
        [alternatives.b]
        command = ["true"]
        [stop_when]
        max_time = "0.001s"
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.status == "stopped" and "max_time" in result.stop_reason
    assert result.counts == {"ok": 4, "planned": 196}


def test_resume_refuses_another_experiment_file(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 2
        [alternatives.a]
        command = ["true"]
    """)
    db = str(tmp_path / "r.db")
    run_experiment(exp, db)
    other = write(tmp_path, """
        seed = 1
        executions = 3
        [alternatives.a]
        command = ["true"]
    """, "other.toml")
    with pytest.raises(InputError) as info:
        run_experiment(other, db, resume=True)
    message = str(info.value)
    assert "other.toml:3:" in message and "'executions = 3'" in message
    assert "'executions = 2'" in message


def test_existing_store_is_never_overwritten(tmp_path):
    exp = write(tmp_path, "executions = 2\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = str(tmp_path / "r.db")
    run_experiment(exp, db)
    with pytest.raises(UsageError, match="--resume"):
        run_experiment(exp, db)


def test_resume_with_another_seed_is_refused(tmp_path):
    exp = write(tmp_path, "executions = 2\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = str(tmp_path / "r.db")
    run_experiment(exp, db, seed=3)
    with pytest.raises(UsageError, match="seed"):
        run_experiment(exp, db, seed=4, resume=True)


def test_dry_run_plans_without_running(tmp_path):
    exp = write(tmp_path, """
        seed = 9
        executions = 2
        [alternatives.a]
        command = ["sh", "-c", "touch ran"]
    """)
    planned = plan_only(exp, str(tmp_path / "r.db"), seed=None, resume=False)
    assert len(planned.trials) == 2 and planned.seed == 9 and planned.estimate is None
    assert not (tmp_path / "ran").exists() and not (tmp_path / "r.db").exists()
    db = str(tmp_path / "r.db")
    run_experiment(exp, db)
    again = plan_only(exp, db, seed=None, resume=True)
    assert again.trials == [] and again.estimate == 0.0


def test_environment_is_recorded(tmp_path):
    exp = write(tmp_path, "executions = 1\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = str(tmp_path / "r.db")
    run_experiment(exp, db, argv=["benchlab", "run"])
    store = Store.open(db)
    sessions = store.sessions()
    meta = store.meta
    store.close()
    env = sessions[0]["environment"]
    for key in ("cpu_model", "cpus_usable", "kernel", "load_average", "aslr",
                "environment_bytes", "python", "benchlab", "governors", "turbo"):
        assert key in env
    assert meta["experiment_text"] == open(exp).read()
    assert sessions[0]["outcome"] == "finished"
    from benchlab.runner import environment

    assert list(env) == list(environment.collect())  # every key, in collect()'s order
    import platform  # what the record's system keys were read with before os.uname()

    assert [env[k] for k in ("os", "hostname", "kernel", "kernel_version", "machine",
                             "python")] == [platform.system(), platform.node(),
                                            platform.release(), platform.version(),
                                            platform.machine(), platform.python_version()]
    assert env["counters"] == environment.counters()


@pytest.mark.parametrize("metrics, before", [(None, False), ('["wall", "task-clock"]', True)])
def test_counters_are_looked_up_after_the_executions_unless_the_run_counts(
        tmp_path, monkeypatch, metrics, before):
    """The machine's counters (a probe of each event, `valgrind --version`) join the
    session's record after the executions, unless the experiment counts with them."""
    from benchlab.runner import environment, perf_event

    if metrics and not perf_event.probe("task-clock").ok:
        pytest.skip("the kernel offers no task-clock here")
    ran = tmp_path / "ran"
    seen = []
    real = environment.counters
    monkeypatch.setattr(environment, "counters", lambda: seen.append(ran.exists()) or real())
    line = f"metrics = {metrics}\n" if metrics else ""
    exp = write(tmp_path, f"executions = 1\n{line}[alternatives.a]\n"
                          f'command = ["touch", "{ran}"]\n')
    db = str(tmp_path / "r.db")
    run_experiment(exp, db)
    store = Store.open(db)
    env = store.sessions()[0]["environment"]
    store.close()
    assert seen == [not before] and list(env)[-1] == "counters", seen


def test_counts_are_per_cell(tmp_path):
    exp = write(tmp_path, """
        seed = 2
        builds = 3
        executions = 2
        [factors]
        k = ["x", "y"]
        [alternatives.a]
        command = ["echo", "{k}"]
        [alternatives.b]
        command = ["echo", "{k}"]
    """)
    db = str(tmp_path / "r.db")
    run_experiment(exp, db)
    rows = query(db, "SELECT t.alternative, t.factors, t.build FROM measurements m JOIN "
                 "trials t ON t.seq = m.trial WHERE m.metric = 'wall'")
    counts = collections.Counter(rows)
    assert len(counts) == 2 * 2 * 3 and set(counts.values()) == {2}


def test_setup_prepare_teardown_cwd_and_env(tmp_path):
    (tmp_path / "work").mkdir()
    exp = write(tmp_path, """
        seed = 1
        executions = 2
        setup = [["sh", "-c", "echo 5 > work/base"], ["sh", "-c", "echo setup >> log"]]
        prepare = ["sh", "-c", "echo prepare >> log"]
        teardown = ["sh", "-c", "echo teardown >> log"]
        env = { OFFSET = "{k}0" }
        [measure]
        regex = 'v: (?P<v>[0-9]+)'
        [factors]
        k = [1, 2]
        [alternatives.a]
        cwd = "work"
        command = ["sh", "-c", "echo v: $(( $(cat base) + OFFSET ))"]
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db)
    assert result.status == "finished" and result.counts == {"ok": 4}
    values = sorted(v for (v,) in query(db, "SELECT value FROM measurements"))
    assert values == [15.0, 15.0, 25.0, 25.0]
    log = (tmp_path / "log").read_text().split()
    assert log == ["setup"] + ["prepare"] * 4 + ["teardown"]


@pytest.mark.parametrize("env", ["", 'env = { FIXED = "f" }', 'env = { BY_CELL = "{k}" }'])
def test_commands_get_the_runners_environment_and_the_experiments(tmp_path, monkeypatch,
                                                                  env):
    """Without variables of its own (or with placeholders only) the runner passes its own
    environment as it is at each start; either way a command sees the runner's variables,
    the experiment's, and PATH."""
    monkeypatch.setenv("BENCHLAB_TEST_INHERITED", "from the runner")
    exp = write(tmp_path, f"""
        seed = 1
        executions = 1
        {env}
        [factors]
        k = [1, 2]
        [alternatives.a]
        command = ["sh", "-c", "echo \\"$BENCHLAB_TEST_INHERITED|$FIXED|$BY_CELL\\" >> seen"]
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.status == "finished" and result.counts == {"ok": 2}
    seen = sorted((tmp_path / "seen").read_text().splitlines())
    fixed = "f" if "FIXED" in env else ""
    cells = ["1", "2"] if "BY_CELL" in env else ["", ""]
    assert seen == [f"from the runner|{fixed}|{c}" for c in cells]


def test_failing_setup_stops_with_a_one_line_error(tmp_path):
    exp = write(tmp_path, """
        executions = 2
        setup = ["sh", "-c", "echo 'missing tool' >&2; exit 3"]
        [alternatives.a]
        command = ["true"]
    """)
    with pytest.raises(InputError) as info:
        run_experiment(exp, str(tmp_path / "r.db"))
    message = str(info.value)
    assert message.startswith(str(tmp_path / "exp.toml") + ":3: setup command 'sh -c ")
    assert message.endswith("failed: exit code 3: missing tool")
    assert "exp.toml:3:" in message
    assert query(str(tmp_path / "r.db"), "SELECT outcome FROM sessions") == [("interrupted",)]


def test_cpu_pinning_applies_to_the_command_only(tmp_path):
    import os

    cpu = min(os.sched_getaffinity(0))
    before = os.sched_getaffinity(0)
    exp = write(tmp_path, f"""
        seed = 1
        executions = 2
        cpus = [{cpu}]
        [measure]
        regex = 'Cpus_allowed_list:\\s+(?P<cpu>[0-9]+)$'
        [alternatives.a]
        command = ["grep", "Cpus_allowed_list", "/proc/self/status"]
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db)
    assert result.status == "finished", result.failures
    assert query(db, "SELECT DISTINCT value FROM measurements") == [(float(cpu),)]
    assert os.sched_getaffinity(0) == before


def test_one_runner_per_store(tmp_path):
    exp = write(tmp_path, "executions = 1\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = str(tmp_path / "r.db")
    run_experiment(exp, db)
    holder = Store.open(db, write=True)
    try:
        with pytest.raises(UsageError, match="being written by another benchlab run"):
            run_experiment(exp, db, resume=True)
        assert Store.open(db).meta["status"] == "finished"  # readers are not locked out
    finally:
        holder.close()
    assert run_experiment(exp, db, resume=True).status == "already-finished"


def test_build_timeout_and_programs_a_build_makes(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        builds = 2
        executions = 1
        timeout = "0.5s"
        build_timeout = "5s"
        [alternatives.a]
        build = ["sh", "-c", "sleep 0.7; printf '#!/bin/sh\\necho v: $1\\n' > m$1; chmod +x m$1",
                 "sh", "{build}"]
        command = ["./m{build}", "{build}"]
        [measure]
        regex = 'v: (?P<v>[0-9]+)'
    """)
    db = str(tmp_path / "r.db")
    result = run_experiment(exp, db)
    assert result.counts == {"ok": 4}, result.failures
    assert sorted(v for (v,) in query(db, "SELECT value FROM measurements")) == [1.0, 2.0]


def test_missing_working_directory_is_a_failed_trial(tmp_path):
    """Refused before anything runs, unless a setup command may make it (issue 15); if the
    setup did not, each trial is recorded as failed."""
    text = """
        executions = 1
        [alternatives.a]
        command = ["true"]
        cwd = "gone"
    """
    with pytest.raises(InputError, match="alternatives.a.cwd: no such directory"):
        run_experiment(write(tmp_path, text), str(tmp_path / "r.db"))
    assert not (tmp_path / "r.db").exists()
    exp = write(tmp_path, 'setup = ["true"]\n' + textwrap.dedent(text))
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.counts == {"failed": 1}
    assert result.failures[0][2].startswith("cannot enter the working directory")


def test_stop_when_on_build_means(tmp_path):
    """With builds, the top-level units are builds: the check can pass only once every cell
    has five build means (stopping.MIN_UNITS), i.e. after the first round of build 5."""
    exp = write(tmp_path, """
        seed = 1
        builds = 20
        executions = 2
        [measure]
        regex = 'v: (?P<v>[0-9.]+)'
        [alternatives.a]
        command = ["echo", "v: 10"]
        [alternatives.b]
        command = ["echo", "v: 11"]
        [stop_when]
        halfwidth = "0.5%"
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.status == "stopped"
    assert result.counts["ok"] == 2 * (4 * 2 + 1)


def test_a_finished_store_is_one_file(tmp_path):
    exp = write(tmp_path, "executions = 2\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = tmp_path / "r.db"
    run_experiment(exp, str(db))
    assert query(str(db), "PRAGMA journal_mode") == [("delete",)]
    from benchlab.data.readers import read

    read(str(db))
    run_experiment(exp, str(db), resume=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.toml", "r.db"]


def test_build_steps_are_kept_but_not_analysed(tmp_path):
    """A build step's times are recorded, but they are not measurements of the command:
    the store's readers (and so every analysis) see the executions only."""
    exp = write(tmp_path, """
        seed = 2
        builds = 2
        executions = 2
        [alternatives.a]
        build = ["sh", "-c", "echo built"]
        command = ["true"]
        [alternatives.b]
        build = ["sh", "-c", "echo built"]
        command = ["true"]
    """)
    db = str(tmp_path / "b.db")
    assert run_experiment(exp, db).status == "finished"
    builds = {seq for (seq,) in query(db, "SELECT seq FROM trials WHERE kind = 'build'")}
    assert len(builds) == 4
    # nothing recorded is dropped: each build step keeps its wall, user, sys and maxrss
    kept = query(db, "SELECT COUNT(*) FROM measurements WHERE trial IN "
                 f"({', '.join(map(str, builds))})")[0][0]
    assert kept == 4 * 4
    store = Store.open(db)
    try:
        rows = store.rows("wall")
        means = store.execution_means("wall")
    finally:
        store.close()
    assert len(rows) == 2 * 2 * 2 and not {r.trial for r in rows} & builds
    assert all(r.execution >= 1 for r in rows)
    assert len(means) == 2 * 2 * 2 and all(execution >= 1 for *_, execution, _ in means)


# Each execution appends how many shared objects its parent, the runner, has mapped: an
# extension module the runner imports partway through (numpy's, scipy's) adds mappings.
SO_PROBE = "grep -c '[.]so' /proc/$PPID/maps >> {out}"


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs Linux /proc")
@pytest.mark.parametrize("rule", ["halfwidth", "steady"])
def test_the_runner_loads_nothing_partway_through_a_run(tmp_path, rule):
    """A stopping rule's statistics (scipy.special; the t quantiles' statistics module, used
    from 3 degrees of freedom) and a steady state's (scipy.ndimage) are loaded before the
    first execution: loaded on first use, they raised the runner's
    resident size, the floor of every later command's maxrss, partway through the run (and
    the steady state's loaded while its first execution ran beside it)."""
    out = tmp_path / "maps.txt"
    probe = SO_PROBE.format(out=out)
    if rule == "halfwidth":  # checked between rounds from the second on; never met here
        body = (f'executions = 8\nstop_when = {{ halfwidth = "0.001%" }}\n'
                f'[alternatives.a]\ncommand = ["sh", "-c", "{probe}"]\n'
                f'[alternatives.b]\ncommand = ["sh", "-c", "{probe}; true"]\n')
    else:  # iterations printed until the steady state holds (the watch classifies them)
        body = (f'executions = 2\niterations = 200\n[steady_state]\niterations = 20\n'
                f'[measure]\nregex = \'t=(?P<t>[0-9.]+)\'\n[alternatives.a]\n'
                f'command = ["sh", "-c", "{probe}; for i in $(seq 200); do echo t=1; done"]\n')
    (tmp_path / "e.toml").write_text(body)
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-m", "benchlab", "run", "e.toml", "-o", "s.db",
                           "--quiet"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    counts = [int(line) for line in out.read_text().split()]
    assert len(counts) == (16 if rule == "halfwidth" else 2), counts
    assert counts[0] > 0 and len(set(counts)) == 1, counts

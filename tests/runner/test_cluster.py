"""Runs on a Dask cluster (issue 13): a real `dask scheduler` and real `benchlab worker`
processes on 127.0.0.1 (no mocks). Each worker's environment says which machine it is
(WHO), and every execution appends "{machine} $WHO" to a log: a trial that ran on the wrong
machine shows as a line whose two words differ. Every process a test starts is killed at
its end (process groups), so nothing outlives pytest."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import textwrap
import time
from collections import Counter
from pathlib import Path

import pytest

from benchlab.errors import InputError, UsageError
from benchlab.runner.config import parse_experiment

from ..support.dask_processes import BENCHLAB, ENV, NotReady, Processes, free_port

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed "
                                  "(pip install benchlab[cluster])")

def _started(start, *args, **kwargs):
    """`start(...)`; a Dask process that does not start here (a loaded machine can take
    minutes) skips the test rather than failing it."""
    try:
        return start(*args, **kwargs)
    except NotReady as exc:
        pytest.skip(f"a Dask process did not start here: {exc}")


@pytest.fixture
def procs(tmp_path):
    p = Processes(tmp_path)
    yield p
    p.close()


@pytest.fixture
def scheduler(procs):
    """A `dask scheduler` on a free port of 127.0.0.1; its address."""
    return _started(procs.scheduler)


def start_worker(procs: Processes, address: str, machine: str, tag: str = "") -> subprocess.Popen:
    # OMP_NUM_THREADS as a user may set it on purpose: it must reach the commands
    return _started(procs.worker, address, machine, name=f"worker-{machine}{tag}",
                    env=dict(ENV, WHO=machine, OMP_NUM_THREADS="3"))


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """The processes of the module's shared cluster (`cluster`), all killed at its end."""
    processes = Processes(tmp_path_factory.mktemp("cluster"))
    yield processes
    processes.close()


@pytest.fixture(scope="module")
def cluster(shared):
    """A scheduler with workers m1 and m2 that the tests share (starting three Dask
    processes takes seconds); its address. A test that kills a worker starts its machine's
    worker again (in `shared`) before it ends."""
    address = _started(shared.scheduler)
    for m in ("m1", "m2"):
        start_worker(shared, address, m)
    return address


def experiment(tmp: Path, names: str = '"m1", "m2"', executions: int = 3,
               sleep: str = "0.01") -> Path:
    path = tmp / "exp.toml"
    path.write_text(textwrap.dedent(f"""
        seed = 7
        executions = {executions}
        shell = true
        [machines]
        names = [{names}]
        role = "factor"
        [factors]
        n = ["1", "2"]
        [alternatives.a]
        command = 'echo {{machine}} "$WHO" {{alternative}} {{n}} >> ran.log; sleep {sleep}'
        [alternatives.b]
        command = 'echo {{machine}} "$WHO" {{alternative}} {{n}} >> ran.log; sleep {sleep}'
    """))
    return path


def check_store(db: Path, tmp: Path, planned: int) -> None:
    """Every planned trial ran once, with its 4 time metrics once, on its own machine."""
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT seq, status, factors FROM trials").fetchall()
    assert len(rows) == planned
    assert {r[1] for r in rows} == {"ok"}
    machines = [json.loads(r[2])["machine"] for r in rows]
    assert sorted(set(machines)) == ["m1", "m2"]
    per_trial = dict(conn.execute("SELECT trial, COUNT(*) FROM measurements GROUP BY trial"))
    assert per_trial == {r[0]: 4 for r in rows}
    sessions = conn.execute("SELECT environment FROM sessions").fetchall()
    for (env,) in sessions:
        assert sorted(json.loads(env)["machines"]) == ["m1", "m2"]
    conn.close()
    lines = [line.split() for line in (tmp / "ran.log").read_text().splitlines()]
    assert lines and all(len(w) == 4 and w[0] == w[1] for w in lines), lines


def test_two_machines_end_to_end(cluster, tmp_path, run_cli):
    exp = experiment(tmp_path)
    db = tmp_path / "s.db"  # the driver in-process (its start-up once less; the workers are
    # separate processes, and the driver's own process is killed in the tests below)
    _, out, _ = run_cli("run", exp, "--cluster", cluster, "-o", db, "--quiet", "--json",
                        expect=0)
    assert json.loads(out)["status"] == "finished"
    planned = 2 * 2 * 2 * 3  # alternatives x n x machines x executions
    check_store(db, tmp_path, planned)
    assert len((tmp_path / "ran.log").read_text().splitlines()) == planned
    # the interleaved plan is kept per machine: each machine ran its trials in plan order
    ran = [line.split() for line in (tmp_path / "ran.log").read_text().splitlines()]
    conn = sqlite3.connect(db)
    for m in ("m1", "m2"):
        plan = [[r[0], json.loads(r[1])["n"]] for r in conn.execute(
            "SELECT alternative, factors FROM trials WHERE json_extract(factors, "
            "'$.machine') = ? ORDER BY seq", (m,))]
        assert [w[2:] for w in ran if w[0] == m] == plan
    conn.close()


def test_worker_commands_see_its_start_environment(cluster, tmp_path, run_cli):
    """A command on a `benchlab worker` sees the environment the worker was started with
    (start_worker's: OMP_NUM_THREADS=3 among it), nothing more and nothing less but the
    shell's PWD."""
    exp = tmp_path / "exp.toml"
    exp.write_text(f'executions = 1\n[machines]\nnames = ["m1"]\n[alternatives.a]\n{DUMP_ENV}')
    run_cli("run", exp, "--cluster", cluster, "-o", tmp_path / "s.db", "--quiet", "--json",
            expect=0)
    # PWD is set by sh to the directory it runs in, the experiment's (tmp_path)
    assert command_environ(tmp_path / "env.txt") == dict(ENV, WHO="m1", OMP_NUM_THREADS="3",
                                                         PWD=str(tmp_path))


def test_missing_machine_and_dead_scheduler(cluster, tmp_path, run_cli):
    from benchlab.runner.cluster import connect

    scheduler = cluster
    e = parse_experiment(experiment(tmp_path, '"m1", "m3"').read_text(),
                         str(tmp_path / "exp.toml"))
    with pytest.raises(UsageError, match=r"machine m3 is not connected to .* \(connected "
                       r"machines: m1, m2\)"):
        connect(scheduler, e, machine_wait=0.2)
    nobody = f"tcp://127.0.0.1:{free_port()}"
    began = time.monotonic()
    with pytest.raises(UsageError, match="no Dask scheduler answers at .* within 1 s"):
        connect(nobody, e, timeout=1.0)
    assert time.monotonic() - began < 60  # gives up, not waits on (bound far from 1 s)
    # the command line (in-process): one line, exit 2, and no store left behind
    db = tmp_path / "none.db"
    _, _, err = run_cli("run", tmp_path / "exp.toml", "--cluster", scheduler, "-o", db,
                        expect=2)
    assert err.strip().count("\n") == 0 and "machine m3 is not connected" in err, err
    assert not db.exists()


def test_killed_worker_loses_only_its_running_trial(cluster, shared, procs, tmp_path):
    """m1's worker of the shared cluster SIGKILLed mid-run and started again (staying in the
    cluster for the tests after this one)."""
    scheduler = cluster
    first = next(p for p in shared.procs if "m1" in p.args and p.poll() is None)
    exp = experiment(tmp_path, executions=4, sleep="0.15")
    db = tmp_path / "k.db"
    driver = procs.start([*BENCHLAB, "run", str(exp), "--cluster", scheduler, "-o", str(db)],
                         "driver")
    deadline = time.monotonic() + 120  # polled: loaded machines
    ok = 0
    while ok < 4 and time.monotonic() < deadline:  # kill m1's worker once it has done some
        time.sleep(0.05)
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    ok = conn.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok' AND "
                                      "json_extract(factors, '$.machine') = 'm1'").fetchone()[0]
            except sqlite3.OperationalError:
                continue
    assert ok >= 4, (tmp_path / "driver.log").read_text()
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=10)
    time.sleep(0.5)
    start_worker(shared, scheduler, "m1", tag=f"-again-{first.pid}")
    assert driver.wait(timeout=300) == 0, (tmp_path / "driver.log").read_text()
    planned = 2 * 2 * 2 * 4
    check_store(db, tmp_path, planned)
    # only what m1's worker held ran again: the trial it was running (cut short by the kill)
    # and any it had finished whose outcome the driver had not fetched yet (a loaded driver
    # is late: two cells with one execution more each were seen), so at most the WINDOW
    # tasks a machine is sent, of one execution each (0.15 s executions are not batched);
    # each is recorded once (check_store). A line of ran.log is a cell: 4 executions each
    from benchlab.runner.cluster import WINDOW

    ran = Counter((tmp_path / "ran.log").read_text().splitlines())
    extra = {line: count - 4 for line, count in ran.items() if count != 4}
    assert len(ran) == planned // 4
    assert all(more > 0 for more in extra.values()) and sum(extra.values()) <= WINDOW, extra
    assert all(line.startswith("m1 ") for line in extra), extra


DUMP_ENV = 'command = ["sh", "-c", "env > env.txt"]\n'  # the environment a command sees


def command_environ(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def test_local_cluster_without_machines(tmp_path, run_cli, monkeypatch):
    """local:2 runs every trial; its commands see the driver's environment as a local run's
    do (a user's OMP_NUM_THREADS=3 kept), none of the variables Dask's Nanny sets in its
    worker processes (OMP_NUM_THREADS=1, MALLOC_TRIM_THRESHOLD_, PYTHONHASHSEED, ...), and
    the driver's own environment is as it was."""
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("PYTHONHASHSEED", raising=False)
    exp = tmp_path / "plain.toml"
    # a variable of the file's: the local run's environment is then os.environ too (without,
    # glibc's environ, which in pytest's process holds COLUMNS and LINES, os.environ not)
    exp.write_text('seed = 1\nexecutions = 2\n[env]\nFROM_FILE = "1"\n[alternatives.a]\n'
                   f'command = ["true"]\n[alternatives.b]\n{DUMP_ENV}')
    db = tmp_path / "p.db"
    before = dict(os.environ)
    _, out, _ = run_cli("run", exp, "--cluster", "local:2", "-o", db, "--quiet", "--json",
                        expect=0)  # in-process: the driver's start-up once less
    assert json.loads(out)["status"] == "finished"
    assert dict(os.environ) == before
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*), SUM(status = 'ok') FROM trials").fetchone() == (4, 4)
    assert conn.execute("SELECT COUNT(*) FROM measurements").fetchone()[0] == 16
    conn.close()
    on_cluster = command_environ(tmp_path / "env.txt")
    run_cli("run", exp, "-o", tmp_path / "local.db", "--quiet", "--json", expect=0)
    here = command_environ(tmp_path / "env.txt")
    assert here["OMP_NUM_THREADS"] == "3" and here["FROM_FILE"] == "1"
    assert "PYTHONHASHSEED" not in here
    assert on_cluster == here


@pytest.mark.parametrize(("table", "message"), [
    ('names = ["m1", "m1"]', "machines.names repeats 'm1'"),
    ("names = []", "machines.names is empty"),
    ('names = [""]', "is not a machine name"),
    ('names = ["m1"]\nrole = "pool"', "machines.role must be one of factor, level"),
    ('names = ["m1"]\nrole = "level"', "needs at least 2 machines"),
    ('role = "factor"', "needs names"),
])
def test_machines_table_errors(table, message):
    text = f'[machines]\n{table}\n[alternatives.a]\ncommand = ["true"]\n'
    with pytest.raises(InputError, match=message) as info:
        parse_experiment(text, "exp.toml")
    assert "\n" not in str(info.value) and "exp.toml:" in str(info.value)


def test_machine_is_a_factor_and_needs_a_cluster(tmp_path):
    from benchlab.runner.plan import make_plan
    from benchlab.runner.session import run_experiment

    e = parse_experiment(experiment(tmp_path).read_text(), str(tmp_path / "exp.toml"))
    assert e.factors[-1] == ("machine", ("m1", "m2"))
    plan = make_plan(e, 1)
    assert sorted({dict(t.factors)["machine"] for t in plan}) == ["m1", "m2"]
    with pytest.raises(UsageError, match="run it with --cluster"):
        run_experiment(str(tmp_path / "exp.toml"), str(tmp_path / "x.db"))
    with pytest.raises(InputError, match="clashes with"):
        parse_experiment('[machines]\nnames = ["a"]\n[factors]\nmachine = ["x"]\n'
                         '[alternatives.a]\ncommand = ["true"]\n')
    built = parse_experiment('[machines]\nnames = ["a", "b"]\n[alternatives.a]\n'
                             'command = ["true", "{machine}"]\nbuild = ["true", "{machine}"]\n')
    steps = [t for t in make_plan(built, 1) if t.kind == "build"]
    assert sorted(t.machine for t in steps) == ["a", "b"]  # each machine builds its own


def test_bad_cluster_address():
    from benchlab.runner.cluster import parse_address

    assert parse_address("local:3") == ("local", 3)
    assert parse_address("tcp://h:1") == ("tcp://h:1", None)
    for bad in ("local:0", "h:8786", "local:x"):
        with pytest.raises(UsageError, match="local:N"):
            parse_address(bad)


def test_killed_driver_then_resume(procs, tmp_path):
    exp = tmp_path / "slow.toml"
    exp.write_text('seed = 3\nexecutions = 20\n[alternatives.a]\ncommand = ["sleep", "0.05"]\n'
                   '[alternatives.b]\ncommand = ["sleep", "0.05"]\n')
    db = tmp_path / "r.db"  # one worker: the driver's kill and resume are the point
    argv = [*BENCHLAB, "run", str(exp), "--cluster", "local:1", "-o", str(db), "--quiet"]
    driver = procs.start(argv, "driver")
    deadline, ok = time.monotonic() + 120, 0  # polled
    while ok < 5 and time.monotonic() < deadline and driver.poll() is None:
        time.sleep(0.05)
        if not db.exists():  # (connecting would create an empty file)
            continue
        try:
            with sqlite3.connect(db, timeout=5) as conn:
                ok = conn.execute("SELECT COUNT(*) FROM trials WHERE status = 'ok'").fetchone()[0]
        except sqlite3.OperationalError:
            continue
    assert ok >= 5, (tmp_path / "driver.log").read_text()
    os.killpg(driver.pid, signal.SIGKILL)  # the driver and the workers it started
    driver.wait(timeout=10)
    done = subprocess.run([*argv, "--resume"], cwd=tmp_path, env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*), SUM(status = 'ok') FROM trials").fetchone() == (40, 40)
    per_trial = conn.execute("SELECT COUNT(*), COUNT(DISTINCT trial) FROM measurements")
    assert per_trial.fetchone() == (160, 40)
    assert len(conn.execute("SELECT id FROM sessions").fetchall()) == 2
    conn.close()


def level_experiment(tmp: Path, builds: int = 2, fail_on: str | None = None,
                     role: str = "level") -> Path:
    """Two machines; each build step writes "{machine} {build} <its worker's pid>" into the
    machine's own build directory, and each execution appends "{machine} {build} <the
    build's line> <its worker's pid>" to a log ($PPID: the worker that spawned the shell)."""
    path = tmp / "lvl.toml"
    fail = f" && test {{machine}} != {fail_on}" if fail_on else ""
    out = "out/{machine}-{build}"
    build = f"mkdir -p {out} && echo {{machine}} {{build}} $PPID > {out}/"
    run = f"echo {{machine}} {{build}} $(cat {out}/ALT) $PPID >> ran.log"
    path.write_text(textwrap.dedent(f"""
        seed = 4
        builds = {builds}
        executions = 2
        shell = true
        [machines]
        names = ["m1", "m2"]
        role = "{role}"
        [alternatives.a]
        build = '{build}a{fail}'
        command = '{run.replace("ALT", "a")}'
        [alternatives.b]
        build = '{build}b'
        command = '{run.replace("ALT", "b")}'
    """))
    return path


def test_level_role_on_a_local_cluster(tmp_path, run_cli):
    """role = "level" with build steps on local:2: every machine builds its own builds,
    numbered across machines, and runs every execution on its own builds; the store's machine
    column, the reader's machine level, summary's machine component and plan's machine row."""
    exp = level_experiment(tmp_path)
    db = tmp_path / "l.db"
    done = subprocess.run([*BENCHLAB, "run", str(exp), "--cluster", "local:2", "-o", str(db),
                           "--json"], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["machines"] == {m: {"ok": 12, "failed": 0, "not_run": 0} for m in ("m1", "m2")}
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT kind, machine, build, factors FROM trials").fetchall()
    assert len(rows) == 2 * (2 * 2 + 2 * 2 * 2) and {r[3] for r in rows} == {"{}"}
    assert sorted({(r[1], r[2]) for r in rows}) == [("m1", 1), ("m1", 3), ("m2", 2), ("m2", 4)]
    meta = dict(conn.execute("SELECT key, value FROM benchlab_meta"))
    assert json.loads(meta["machines"]) == {"names": ["m1", "m2"], "role": "level"}
    conn.close()
    ran = [line.split() for line in (tmp_path / "ran.log").read_text().splitlines()]
    assert len(ran) == 16
    worker_of = {}
    for machine, build, built_on, built_build, build_pid, pid in ran:
        # the execution used its own machine's build, made by the same worker it runs on
        assert (built_on, built_build) == (machine, build) and build_pid == pid
        assert worker_of.setdefault(machine, pid) == pid
    assert len(set(worker_of.values())) == 2
    _, out, _ = run_cli("summary", db, "--metric", "wall", "--json", expect=0)  # in-process
    groups = json.loads(out)["groups"]
    assert [lv["level"] for lv in groups[0]["levels"]] == ["machine", "build", "measurement"]
    _, out, _ = run_cli("plan", db, "--budget", "10h", "--cost", "machine=1h", "--cost",
                        "build=1s", expect=0)
    assert "\n  machine " in out and "per machine" in out


def test_factor_role_builds_per_machine_and_a_build_failing_on_one(cluster, tmp_path,
                                                                  run_cli):
    """role = "factor" with build steps, on the shared cluster's m1 and m2 (the driver
    in-process; local:N with machines is the test above): build 1 of a fails on m2 only, so
    only m2's executions of a are not run; m1's run on m1's build."""
    exp = level_experiment(tmp_path, builds=1, fail_on="m2", role="factor")
    db = tmp_path / "f.db"
    _, _, err = run_cli("run", exp, "--cluster", cluster, "-o", db, "--json", "--quiet",
                        expect=1)  # failed trials: exit 1 (docs/exit-codes.md)
    assert "3 of 12 trials failed or timed out (exit 1)" in err
    conn = sqlite3.connect(db)
    failed = conn.execute("SELECT kind, alternative, machine, error FROM trials WHERE status = "
                          "'failed' ORDER BY seq").fetchall()
    assert failed[0][:3] == ("build", "a", "m2")
    assert [f[:3] for f in failed[1:]] == [("execution", "a", "m2")] * 2
    assert all(f[3] == "not run: build 1 of a failed on machine m2" for f in failed[1:])
    ok = conn.execute("SELECT alternative, machine, json_extract(factors, '$.machine') FROM "
                      "trials WHERE status = 'ok' AND kind = 'execution'").fetchall()
    assert sorted(ok) == sorted([("a", "m1", "m1")] * 2 + [("b", "m1", "m1")] * 2
                                + [("b", "m2", "m2")] * 2)
    conn.close()
    ran = [line.split() for line in (tmp_path / "ran.log").read_text().splitlines()]
    assert len(ran) == 6 and all(w[0] == w[2] and w[4] == w[5] for w in ran)


def test_ctrl_c_stops_the_commands_running_on_workers(procs, tmp_path):
    """SIGINT to a `run --cluster local:1` driver: the command its worker runs (sleep 600) is
    killed at once, and its trial stays planned for --resume."""
    exp = tmp_path / "slow.toml"
    exp.write_text("seed = 1\nexecutions = 1\nshell = true\n[alternatives.a]\n"
                   "command = 'echo $$ > pid; exec sleep 600'\n")
    db = tmp_path / "c.db"
    driver = procs.start([*BENCHLAB, "run", str(exp), "--cluster", "local:1", "-o", str(db)],
                         "driver")
    pid_file = tmp_path / "pid"
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline and driver.poll() is None, \
            (tmp_path / "driver.log").read_text()
        time.sleep(0.05)
    sleeping = int(pid_file.read_text())
    driver.send_signal(signal.SIGINT)
    began = time.monotonic()
    assert driver.wait(timeout=120) == 130, (tmp_path / "driver.log").read_text()

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        return state != "Z"

    while alive(sleeping) and time.monotonic() - began < 60:  # polled; sleep 600 is far
        time.sleep(0.05)
    assert not alive(sleeping)
    assert f"go on with: benchlab run {exp} --cluster local:1 -o {db} --resume" in (
        tmp_path / "driver.log").read_text()  # the resume goes to a cluster too
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT status FROM trials").fetchall() == [("planned",)]
    conn.close()


def test_a_trial_longer_than_the_wait_note(cluster, tmp_path, monkeypatch):
    """Dask's wait raises TimeoutError when nothing ends within WAIT_NOTE: the driver waits
    on instead of failing (a trial of 1 s with WAIT_NOTE = 0.2 s, on the shared cluster)."""
    from benchlab.runner import cluster as dispatch
    from benchlab.runner.session import run_experiment

    monkeypatch.setattr(dispatch, "WAIT_NOTE", 0.2)
    exp = tmp_path / "long.toml"
    exp.write_text('seed = 1\nexecutions = 1\n[alternatives.a]\ncommand = ["sleep", "1"]\n')
    result = run_experiment(str(exp), str(tmp_path / "w.db"), cluster=cluster)
    assert result.status == "finished" and result.counts == {"ok": 1}


def test_batches_of_short_executions():
    """The driver's batch size: 1 until an execution of the machine has returned, then as many
    as add up to about BATCH_TARGET by the median of the last 32, between 1 and MAX_BATCH."""
    from collections import deque

    from benchlab.runner import cluster

    d = cluster.Dispatch(None, None, None, None, set())
    assert d._batch("m1") == 1
    d.recent["m1"] = deque([0.001] * 5 + [9.0] * 2, maxlen=32)  # the median, not the mean
    assert d._batch("m1") == round(cluster.BATCH_TARGET / 0.001)
    d.recent["m1"] = deque([1e-5] * 3, maxlen=32)
    assert d._batch("m1") == cluster.MAX_BATCH
    d.recent[None] = deque([1.0], maxlen=32)
    assert d._batch(None) == 1 and d._batch("m2") == 1

"""Runner hygiene: a default timeout (overridable, "none" disables it), and the processes a
trial leaves running killed at its end and reported; setup's stay (a server the trials use)."""

from __future__ import annotations

import os
import signal
import sqlite3
import textwrap
import time

import pytest

from benchlab.runner import config
from benchlab.runner.config import parse_experiment
from benchlab.runner.execute import end_leftovers, run_process
from benchlab.runner.session import run_experiment

OK = '[alternatives.a]\ncommand = ["true"]\n'


def write(tmp_path, text: str, name: str = "exp.toml") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie awaiting its reaper is not running)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2:].split()[0] != b"Z"


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return False


def test_default_timeout_and_none():
    assert parse_experiment(OK).timeout == config.DEFAULT_TIMEOUT == 600.0
    assert parse_experiment('timeout = "none"\n' + OK).timeout is None
    assert parse_experiment('timeout = "None"\nbuild_timeout = "none"\n' + OK).build_timeout \
        is None
    assert parse_experiment('timeout = "2m"\n' + OK).timeout == pytest.approx(120.0)
    assert parse_experiment(OK).build_timeout is None  # builds: no default


def test_the_default_timeout_applies(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "DEFAULT_TIMEOUT", 0.3)
    exp = write(tmp_path, 'seed = 1\nexecutions = 1\n[alternatives.slow]\n'
                          'command = ["sleep", "30"]\n')
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.counts == {"failed": 1}
    assert result.failures[0][2] == "timed out after 0.3 s"


def test_timeout_option_overrides_the_file(tmp_path, run_cli):
    exp = write(tmp_path, 'seed = 1\nexecutions = 1\ntimeout = "0.1s"\n'
                          '[alternatives.a]\ncommand = ["sleep", "0.3"]\n')
    code, out, err = run_cli("run", exp, "-o", tmp_path / "none.db", "--timeout", "none",
                             "--quiet", "--json")
    assert code == 0, err
    code, out, err = run_cli("run", exp, "-o", tmp_path / "short.db", "--timeout", "50ms",
                             "--quiet")
    assert code == 1
    assert "timed out after 0.05 s" in out
    from benchlab.cli.run import resume_command

    assert resume_command(exp, "s.db", timeout="50ms") == \
        f"benchlab run {exp} --timeout 50ms -o s.db --resume"  # a resume keeps the option


@pytest.mark.parametrize("value", ["soon", "0", "-1s", "30d", "9999h"])
def test_a_bad_timeout_option_is_one_line(tmp_path, run_cli, value):
    exp = write(tmp_path, "seed = 1\nexecutions = 1\n" + OK)
    code, out, err = run_cli("run", exp, "-o", tmp_path / "r.db", f"--timeout={value}")
    assert code == 2
    assert err.startswith("benchlab: --timeout must be") and err.count("\n") == 1
    assert not (tmp_path / "r.db").exists()


def test_a_bad_timeout_in_the_file_names_the_line(tmp_path, run_cli):
    exp = write(tmp_path, 'seed = 1\ntimeout = "never"\n' + OK)
    code, _, err = run_cli("run", exp, "-o", tmp_path / "r.db")
    assert code == 2
    assert f"{exp}:2" in err and 'or \\"none\\"' not in err and '"none"' in err


@pytest.mark.parametrize("holds_pipes", [False, True])
def test_leftover_processes_are_killed_and_reported(tmp_path, run_cli, holds_pipes):
    """A command that backgrounds `sleep 1000` (detached from the pipes, or still holding
    standard error): the sleeper is gone after the trial and a warning names the trial."""
    redirect = " >/dev/null 2>&1" if not holds_pipes else ""
    exp = write(tmp_path, f"""
        seed = 1
        executions = 1
        [alternatives.leaky]
        command = ["sh", "-c", "sleep 1000{redirect} & echo $! > sleeper.pid"]
    """)
    code, out, err = run_cli("run", exp, "-o", tmp_path / "r.db", "--quiet")
    assert code == 0, err
    pid = int((tmp_path / "sleeper.pid").read_text())
    assert wait_gone(pid), f"sleep 1000 ({pid}) still runs"
    assert ("benchlab: warning: trial 1 (leaky, build 1, execution 1) left 1 process running "
            "after it ended; killed it (SIGTERM, then SIGKILL)") in err


def test_leftovers_are_in_the_result_and_every_trial_is_named(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 2
        [alternatives.leaky]
        command = ["sh", "-c", "sleep 1000 >/dev/null 2>&1 & sleep 1000 >/dev/null 2>&1 &"]
        [alternatives.clean]
        command = ["true"]
    """)
    said: list[str] = []
    result = run_experiment(exp, str(tmp_path / "r.db"), warn=said.append)
    assert result.counts == {"ok": 4}
    leftover = [w for w in result.warnings if "left 2 processes" in w]
    assert len(leftover) == 2 and leftover == [w for w in said if "left" in w]
    conn = sqlite3.connect(tmp_path / "r.db")
    leaky = [seq for (seq,) in conn.execute(
        "SELECT seq FROM trials WHERE alternative = 'leaky' ORDER BY seq")]
    conn.close()
    assert [w.split(", build")[0] for w in leftover] == [f"trial {seq} (leaky" for seq in leaky]


def test_a_term_ignoring_leftover_is_killed():
    """A leftover that ignores SIGTERM gets SIGKILL after the grace."""
    start = time.monotonic()
    outcome = run_process(["sh", "-c", "(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 &"])
    assert outcome.ok and outcome.leftovers == 1
    assert time.monotonic() - start < 30  # bounded, not a measurement


def test_setup_may_leave_a_server_running(tmp_path):
    exp = write(tmp_path, """
        seed = 1
        executions = 1
        setup = ["sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo $! > server.pid"]
        [alternatives.a]
        command = ["true"]
    """)
    result = run_experiment(exp, str(tmp_path / "r.db"))
    pid = int((tmp_path / "server.pid").read_text())
    try:
        assert result.counts == {"ok": 1} and alive(pid)
        assert not [w for w in result.warnings if "left" in w]
    finally:
        os.kill(pid, signal.SIGKILL)


def test_no_leftovers_costs_nothing_to_count():
    assert end_leftovers(os.getpid() + 10_000_000) == 0  # no such group
    assert run_process(["true"]).leftovers == 0


def test_leftovers_on_a_cluster_worker_are_reported_by_the_driver(tmp_path):
    """The worker ends what its trial left (the same run_process) and the driver warns."""
    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    exp = write(tmp_path, """
        seed = 1
        executions = 1
        [alternatives.leaky]
        command = ["sh", "-c", "sleep 1000 >/dev/null 2>&1 & echo $! > sleeper.pid"]
    """)
    said: list[str] = []
    result = run_experiment(exp, str(tmp_path / "r.db"), cluster="local:1", warn=said.append)
    assert result.counts == {"ok": 1}
    assert wait_gone(int((tmp_path / "sleeper.pid").read_text()))
    assert [w for w in said if "left" in w] == [
        "trial 1 (leaky, build 1, execution 1) left 1 process running after it ended; killed "
        "it (SIGTERM, then SIGKILL)"]


def test_the_api_takes_a_timeout(tmp_path):
    import benchlab

    exp = write(tmp_path, 'seed = 1\nexecutions = 1\n[alternatives.a]\ncommand = ["sleep", "5"]\n')
    result = benchlab.run_experiment(exp, str(tmp_path / "r.db"), timeout="0.2s")
    assert result.failures[0][2] == "timed out after 0.2 s"

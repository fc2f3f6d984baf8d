"""Progress output, the polling path without pidfd, SIGTERM during a run, the Python API."""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import benchlab
from benchlab.runner import execute
from benchlab.runner.plan import Trial
from benchlab.runner.progress import PlainProgress, RichProgress, format_seconds

ROOT = Path(__file__).resolve().parents[2]
TRIAL = Trial(3, 2, "execution", "fast", (("n", "10"),), 1, 2, False)


def test_plain_progress_lines():
    stream = io.StringIO()
    p = PlainProgress(stream)
    p.start(10, 2)
    p.end(TRIAL, None, 0.0123)
    p.end(TRIAL, "exit code 1", 0.5)
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("[ 3/10] round 2: fast n=10, build 1, execution 2: 12 ms  (ETA ")
    assert lines[1].startswith("[ 4/10] round 2: fast n=10, build 1, execution 2: FAILED: "
                               "exit code 1")


def test_rich_progress_renders():
    stream = io.StringIO()
    p = RichProgress(stream)
    p.start(2, 0)
    p.begin(TRIAL)
    p.end(TRIAL, "timed out after 1 s", 1.0)
    p.end(TRIAL, None, 0.1)
    p.close()
    text = stream.getvalue()
    assert "FAILED round 2: fast n=10, build 1, execution 2: timed out after 1 s" in text
    assert "2/2" in text


def test_format_seconds():
    assert [format_seconds(x) for x in (0.25, 12.34, 245, 7800)] == [
        "250 ms", "12.3 s", "4m 05s", "2h 10m"]


def test_without_pidfd_the_exit_is_polled(monkeypatch):
    def no_pidfd(pid):
        raise OSError("no pidfd")

    monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    out = execute.run_process(["sh", "-c", "echo err >&2; exit 5"])
    assert out.exit_code == 5 and out.stderr_tail == "err\n"
    # bounds far from both what a loaded machine needs and the sleep's 600 s
    out = execute.run_process(["sleep", "600"], timeout=0.2)
    assert out.timed_out and out.wall < 120
    out = execute.run_process(["sh", "-c", "sleep 600 & exit 0"])
    assert out.ok and out.wall < 120


def test_sigterm_stops_the_run_and_its_command(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent("""
        seed = 1
        executions = 3
        [alternatives.slow]
        command = ["sh", "-c", "echo $$ > pid; sleep 30"]
    """))
    db = tmp_path / "r.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "benchlab", "run", str(exp), "-o", str(db),
                             "--quiet"], env=env, stderr=subprocess.PIPE, text=True)
    pidfile = tmp_path / "pid"
    deadline = time.monotonic() + 120  # polled: loaded machines
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "interrupted" in err
    child = int(pidfile.read_text())

    def gone() -> bool:
        try:
            return "Z" in Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[:1]
        except FileNotFoundError:
            return True

    deadline = time.monotonic() + 60  # polled: killed at once, reaped when the kernel gets to it
    while not gone() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gone()
    conn = sqlite3.connect(db)
    states = dict(conn.execute("SELECT status, COUNT(*) FROM trials GROUP BY status"))
    outcome = conn.execute("SELECT outcome FROM sessions").fetchone()[0]
    conn.close()
    assert states == {"planned": 3} and outcome == "interrupted"


def test_python_api(tmp_path):
    exp = tmp_path / "exp.toml"
    exp.write_text("seed = 1\nexecutions = 2\n[alternatives.a]\ncommand = [\"true\"]\n")
    result = benchlab.run_experiment(str(exp), str(tmp_path / "r.db"))
    assert result.status == "finished" and result.counts == {"ok": 2}
    data = benchlab.read_store(str(tmp_path / "r.db"), metric="user")
    assert data.metric == "user" and len(data) == 2

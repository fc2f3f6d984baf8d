"""Factors whose levels set system state (runner/state_config.py, runner/switching.py): the
file's tables, the blocked order, the switches a run records, a failed setup, SIGTERM and a
SIGKILL resumed, the per-trial built-ins (affinity, ASLR), and the checks before a run."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from benchlab.errors import InputError
from benchlab.runner import switching, system_settings
from benchlab.runner.config import parse_experiment
from benchlab.runner.plan import make_plan

ROOT = Path(__file__).resolve().parents[2]

NOISE = """
[factors.noise]
[factors.noise.levels.quiet]
[factors.noise.levels.busy]
setup = "echo on > state; echo set up"
teardown = ["rm", "state"]
"""


def _file(tmp_path: Path, body: str, head: str = "") -> Path:
    exp = tmp_path / "exp.toml"
    exp.write_text(textwrap.dedent(head) + textwrap.dedent(body))
    return exp


def _switches(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT factor, level, action, exit_code, error, output "
                            "FROM switches ORDER BY id").fetchall()
    finally:
        conn.close()


def _in_force(db: Path) -> dict:
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT value FROM benchlab_meta WHERE key = ?",
                           (switching.META_KEY,)).fetchone()
    finally:
        conn.close()
    return json.loads(row[0]) if row else {}


# -- the file --------------------------------------------------------------------------------

def test_state_factor_tables_are_read():
    e = parse_experiment(textwrap.dedent("""
        [factors.pin]
        set = "affinity"
        levels = { free = "all", one = 0 }
        [factors.aslr]
        set = "aslr"
        levels = ["on", "off"]
        [factors.size]
        levels = 1
        [alternatives.a]
        command = ["true"]
    """).replace("[factors.size]\nlevels = 1\n", "") + NOISE)
    assert e.factors == (("pin", ("free", "one")), ("aslr", ("on", "off")),
                         ("noise", ("quiet", "busy")))
    kinds = {s.name: (s.kind, s.switched) for s in e.states}
    assert kinds == {"pin": ("affinity", False), "aslr": ("aslr", False),
                     "noise": ("commands", True)}
    busy = e.states[2].level("busy")
    assert busy.setup[0].shell and busy.setup[0].argv == ("echo on > state; echo set up",)
    assert busy.teardown[0].argv == ("rm", "state") and not busy.teardown[0].shell


@pytest.mark.parametrize("body, message", [
    ('[factors.x]\nset = "cache"\nlevels = ["a"]\n', "factors.x.set must be one of"),
    ('[factors.x]\nset = "aslr"\nlevels = ["maybe"]\n', "factors.x.levels.maybe must be on or off"),
    ('[factors.x]\nset = "affinity"\nlevels = { a = "1-x" }\n', "must be a CPU list"),
    ('[factors.x]\nset = "turbo"\n', "factor 'x' needs levels"),
    ('[factors.x.levels.a]\nsetup = ["nosuchprogram-xyz"]\n', "command not found"),
    ('[factors.x.levels.a]\nstart = "true"\n', "unknown key 'factors.x.levels.a.start'"),
    ('order = "blocked"\n[factors.x]\nset = "aslr"\nlevels = ["on"]\n',
     "order = \"blocked\" groups the trials"),
    ('cpus = [0]\n[factors.x]\nset = "affinity"\nlevels = ["0"]\n', "keep one"),
])
def test_bad_state_factors_are_one_line_errors(body, message):
    with pytest.raises(InputError) as err:
        parse_experiment(body + '[alternatives.a]\ncommand = ["true"]\n', "e.toml")
    assert message in str(err.value) and str(err.value).startswith("e.toml:")
    assert "\n" not in str(err.value)


def test_blocked_order_groups_each_round_by_state(tmp_path):
    e = parse_experiment(textwrap.dedent("""
        order = "blocked"
        executions = 6
        [factors.n]
        levels = ["1", "2", "3"]
        [alternatives.a]
        command = ["true"]
        [alternatives.b]
        command = ["true"]
    """).replace("[factors.n]\nlevels = ", "[factors]\nn = ") + NOISE)
    plan = make_plan(e, 5)
    for rnd in range(1, 7):
        states = [dict(t.factors)["noise"] for t in plan if t.round == rnd]
        assert len(states) == 12
        changes = sum(a != b for a, b in zip(states, states[1:], strict=False))
        assert changes == 1  # each state once, contiguous
    counts = switching.plan_switches(e, plan)
    # the state of one round's end opens the next: 1 + 6 setups, as many teardowns
    assert counts.counts["noise"]["setup"] == counts.counts["noise"]["teardown"] == 7
    random = make_plan(parse_experiment(e.text.replace('order = "blocked"', "")), 5)
    assert switching.plan_switches(e, random).total > counts.total


# -- a run -----------------------------------------------------------------------------------

def test_a_run_records_every_switch_and_leaves_no_state(tmp_path, run_cli):
    exp = _file(tmp_path, """
        seed = 2
        executions = 2
        order = "blocked"
        [alternatives.a]
        command = ["test", "-e", "state"]
    """ + NOISE)
    db = tmp_path / "r.db"
    code, out, err = run_cli("run", exp, "-o", db, "--quiet", "--dry-run")
    # busy, then quiet; quiet goes on into round 2, then busy
    assert code == 0 and "switches of system state: 6 (noise 3 setups + 3 teardowns)" in out
    run_cli("run", exp, "-o", db, "--quiet", expect=1)  # the quiet level fails: no state file
    conn = sqlite3.connect(db)
    status = dict(conn.execute("SELECT json_extract(factors, '$.noise'), "
                               "group_concat(DISTINCT status) FROM trials GROUP BY 1"))
    conn.close()
    assert status == {"busy": "ok", "quiet": "failed"}  # the setup's file existed for busy
    rows = _switches(db)
    assert [r[2] for r in rows] == ["setup", "teardown"] * 3
    busy = [r for r in rows if r[1] == "busy"]
    assert busy[0][3] == 0 and busy[0][5] == "set up\n" and busy[1][3] == 0
    assert not (tmp_path / "state").exists()
    assert _in_force(db) == {"levels": {}, "saved": {}}
    code, out, _ = run_cli("run", exp, "-o", tmp_path / "x.db", "--dry-run",
                           "--estimate-from", db)
    assert code == 0 and "switches of system state: 6" in out and "; estimated " in out


def test_a_failed_setup_stops_with_exit_2_after_its_teardown(tmp_path, run_cli):
    exp = _file(tmp_path, """
        seed = 1
        executions = 2
        [alternatives.a]
        command = ["true"]
        [factors.noise.levels.bad]
        setup = "touch state; echo broken >&2; exit 3"
        teardown = ["rm", "state"]
    """)
    db = tmp_path / "r.db"
    code, _, err = run_cli("run", exp, "-o", db, "--quiet")
    assert code == 2 and "setup of noise = bad failed: exit status 3: broken" in err
    error = [line for line in err.splitlines() if "warning" not in line]
    assert len(error) == 1 and error[0].startswith(f"benchlab: {exp}:")
    assert not (tmp_path / "state").exists()  # its teardown ran
    assert [(r[2], r[3]) for r in _switches(db)] == [("setup", 3), ("teardown", 0)]
    exp.write_text(exp.read_text().replace('exit 3"', 'true"'))  # now the teardown fails
    exp.write_text(exp.read_text().replace('["rm", "state"]', '["false"]'))
    code, _, err = run_cli("run", exp, "-o", tmp_path / "t.db", "--quiet")
    assert code == 0 and "the teardown of noise = bad failed: exit status 1" in err


def _wait_for(path: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout  # polled: a loaded machine
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert path.exists()


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_the_state_is_restored_after_sigterm_and_on_resume(tmp_path, how, run_cli):
    exp = _file(tmp_path, """
        seed = 1
        executions = 3
        [alternatives.a]
        command = ["sh", "-c", "touch started; sleep 0.3"]
        [factors.noise.levels.busy]
        setup = "sleep 600 & echo $! > noise.pid; echo on > state"
        teardown = "kill $(cat noise.pid); rm state noise.pid"
    """)
    db = tmp_path / "r.db"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "benchlab", "run", str(exp), "-o", str(db),
                             "--quiet"], cwd=tmp_path, env=env, stderr=subprocess.PIPE,
                            text=True)
    _wait_for(tmp_path / "started")  # a trial runs: its setup is done and recorded
    noise = int((tmp_path / "noise.pid").read_text())
    proc.send_signal(getattr(signal, how))
    _, err = proc.communicate(timeout=120)
    if how == "SIGTERM":
        assert proc.returncode == 130 and "interrupted" in err
        assert not (tmp_path / "state").exists()  # the teardown ran on the way out
        assert [r[2] for r in _switches(db)] == ["setup", "teardown"]
        assert _in_force(db)["levels"] == {}
    else:
        assert proc.returncode == -signal.SIGKILL
        assert (tmp_path / "state").exists()  # nothing ran on the way out...
        assert _in_force(db)["levels"] == {"noise": "busy"}  # ...but the store knows
    _, _, err = run_cli("run", exp, "-o", db, "--resume", "--quiet", expect=0)  # in-process
    actions = [r[2] for r in _switches(db)]
    if how == "SIGKILL":
        assert actions[:2] == ["setup", "restore"] and "restored the state" in err
    assert actions[-2:] == ["setup", "teardown"] and not (tmp_path / "state").exists()
    deadline = time.monotonic() + 60
    while os.path.exists(f"/proc/{noise}") and time.monotonic() < deadline:
        time.sleep(0.02)  # killed by the teardown; reaped by init
    stat = Path(f"/proc/{noise}/stat")
    assert not stat.exists() or " Z " in stat.read_text()


PROBE = ("import os; p = int(open('/proc/self/personality').read(), 16); "
         "print('cpus:', len(os.sched_getaffinity(0)), 'norandom:', int(bool(p & 0x40000)))")


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or os.cpu_count() < 2
                    or not os.path.exists("/proc/self/personality"),
                    reason="needs Linux with 2 CPUs")
def test_affinity_and_aslr_levels_reach_the_command_and_anova_allocates(tmp_path, run_cli):
    usable = sorted(os.sched_getaffinity(0))
    exp = _file(tmp_path, f"""
        seed = 4
        executions = 3
        [measure]
        regex = 'cpus: (?P<cpus>[0-9]+) norandom: (?P<norandom>[0-9]+)'
        [factors.pin]
        set = "affinity"
        levels = {{ free = "all", one = "{usable[-1]}" }}
        [factors.aslr]
        set = "aslr"
        levels = ["on", "off"]
        [alternatives.a]
        command = ["{sys.executable}", "-c", "{PROBE}"]
    """)
    db = tmp_path / "r.db"
    run_cli("run", exp, "-o", db, "--quiet", expect=0)
    conn = sqlite3.connect(db)
    seen = set(conn.execute(
        "SELECT json_extract(t.factors, '$.pin'), json_extract(t.factors, '$.aslr'), "
        "m.metric, m.value FROM trials t JOIN measurements m ON m.trial = t.seq"))
    conn.close()
    assert seen == {(p, a, "cpus", float(len(usable) if p == "free" else 1))
                    for p in ("free", "one") for a in ("on", "off")} | {
        (p, a, "norandom", float(a == "off")) for p in ("free", "one") for a in ("on", "off")}
    code, out, err = run_cli("anova", db, "--response", "value", "--factors", "pin,aslr",
                             "--json")  # the first metric: cpus
    assert code == 0, err
    doc = json.loads(out)
    variation = {t["term"]: t["variation"] for t in doc["anova"]}
    assert variation["pin"] == pytest.approx(1.0)  # all of it: the CPU count is the level's


# -- checks before the run -------------------------------------------------------------------

def test_unsupported_built_ins_stop_the_run_before_the_store(tmp_path, run_cli):
    missing = tmp_path / "root"  # a /sys and /proc without any of the files
    missing.mkdir()
    for kind, level in (("governor", "performance"), ("turbo", "off"), ("smt", "off"),
                        ("irq_affinity", "0")):
        e = parse_experiment(f'[factors.x]\nset = "{kind}"\nlevels = ["{level}"]\n'
                             '[alternatives.a]\ncommand = ["true"]\n', "e.toml")
        with pytest.raises(InputError) as err:
            switching.check_support(e, root=str(missing))
        assert str(err.value).startswith("e.toml:1: factors.x level") and kind in str(err.value)
    if not system_settings.governor_files():
        exp = _file(tmp_path, """
            [factors.gov]
            set = "governor"
            levels = ["performance"]
            [alternatives.a]
            command = ["true"]
        """)
        code, _, err = run_cli("run", exp, "-o", tmp_path / "r.db", "--quiet")
        assert code == 2 and "scaling_governor" in err and not (tmp_path / "r.db").exists()


def _fake_sys(root: Path) -> None:
    """A /sys and /proc shaped tree: 2 CPUs with cpufreq, turbo, SMT, two IRQs."""
    files = {"sys/devices/system/cpu/online": "0-1",
             "sys/devices/system/cpu/smt/control": "on",
             "sys/devices/system/cpu/intel_pstate/no_turbo": "0",
             "proc/irq/5/smp_affinity": "3", "proc/irq/9/smp_affinity": "3",
             "proc/irq/default_smp_affinity": "3"}
    for cpu in (0, 1):
        files[f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"] = "powersave"
        files[f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_available_governors"] = \
            "performance powersave"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")


def test_built_in_levels_switch_and_restore_on_a_fake_tree(tmp_path):
    root = tmp_path / "root"
    _fake_sys(root)
    e = parse_experiment(textwrap.dedent("""
        [factors.gov]
        set = "governor"
        levels = ["performance", "unchanged"]
        [factors.irq]
        set = "irq_affinity"
        levels = { away = "0", shared = "unchanged" }
        [factors.turbo]
        set = "turbo"
        levels = ["off", "on"]
        [alternatives.a]
        command = ["true"]
    """), "e.toml")
    switching.check_support(e, root=str(root))
    from benchlab.runner.store import Store

    plan = make_plan(e, 1)
    store = Store.create(str(tmp_path / "r.db"), {"experiment_text": e.text, "seed": "1"}, plan)
    try:
        sw = switching.Switcher(e, store, 1, dict(os.environ), root=str(root))
        sw.enter((("gov", "performance"), ("irq", "away"), ("turbo", "off")))
        read = lambda p: (root / p.lstrip("/")).read_text().strip()  # noqa: E731
        assert read("/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor") == "performance"
        assert read("/proc/irq/9/smp_affinity") == "1" and read(system_settings.NO_TURBO) == "1"
        assert json.loads(store.meta[switching.META_KEY])["saved"]["irq"][
            "/proc/irq/9/smp_affinity"] == "3"
        sw.enter((("gov", "unchanged"), ("irq", "away"), ("turbo", "on")))
        assert read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") == "powersave"
        sw.leave_all()
        assert read("/proc/irq/9/smp_affinity") == "3" and read(system_settings.NO_TURBO) == "0"
        assert read(system_settings.IRQ_DEFAULT) == "3"
        actions = [(s["factor"], s["action"]) for s in switching.switches(store)]
        assert actions.count(("gov", "setup")) == 2 and actions[-1][1] == "teardown"
    finally:
        store.close()

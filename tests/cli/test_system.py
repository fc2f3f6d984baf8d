"""`benchlab system show|tune|reset` (runner/system_tune.py): tune then reset leaves every
setting as it was, on this machine (what it allows) and on a tree shaped like /sys and /proc
(what it lacks: cpufreq, turbo); unsupported settings are reported with their reason."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from benchlab.runner import system_settings as ss
from benchlab.runner import system_tune


def _snapshot(root: str = "") -> dict[str, str | None]:
    """Every file tune may write, as it reads now."""
    paths = [*ss.governor_files(root), *ss.irq_files(root).values(), ss.IRQ_DEFAULT, ss.ASLR,
             ss.SAMPLE_RATE, ss.PARANOID, ss.NO_TURBO, ss.BOOST, ss.SMT_CONTROL]
    return {p: ss.read(p, root) for p in paths}


def _writable(path: str) -> bool:
    return ss.read(path) is not None and not ss.probe([ss.Write(path, "", "")])[1]


def test_show_names_every_setting_with_its_reason(run_cli):
    code, out, _ = run_cli("system", "show", "--cpus", "0", "--json", expect=0)
    settings = {s["name"]: s for s in json.loads(out)["settings"]}
    assert list(settings) == ["governor", "turbo", "smt", "aslr", "irq_affinity",
                              "isolated CPUs", "nohz_full CPUs", "perf_event_paranoid",
                              "perf_event_max_sample_rate"]
    if not ss.governor_files():
        assert settings["governor"]["value"] == "unsupported"
        assert "scaling_governor" in settings["governor"]["note"]
    code, out, _ = run_cli("system", "show", expect=0)
    assert out.startswith("setting") and "irq_affinity" in out
    run_cli("system", "show", "--dry-run", expect=2)
    run_cli("system", "tune", "--cpus", "0-x", expect=2)


@pytest.mark.skipif(not _writable(ss.SAMPLE_RATE) or len(ss.online_cpus()) < 2,
                    reason="needs root with a writable perf_event_max_sample_rate and 2 CPUs")
def test_tune_then_reset_leaves_this_machine_as_it_was(tmp_path, run_cli):
    state = tmp_path / "state.json"
    before = _snapshot()
    cpu = str(ss.online_cpus()[-1])
    try:
        code, out, _ = run_cli("system", "tune", "--cpus", cpu, "--dry-run", "--state-file",
                               state, expect=0)
        assert "dry run: nothing written" in out and not state.exists()
        assert _snapshot() == before
        code, out, _ = run_cli("system", "tune", "--cpus", cpu, "--state-file", state,
                               "--json", expect=0)
        doc = json.loads(out)
        changed = {c["path"]: c for c in doc["changes"]}
        unsupported = {u["name"]: u["reason"] for u in doc["unsupported"]}
        assert ss.read(ss.SAMPLE_RATE) == "1"
        for name in ("isolated CPUs", "nohz_full CPUs"):
            assert "set at boot only" in unsupported[name]
        if not ss.governor_files():  # reported, not skipped
            assert "scaling_governor" in unsupported["governor"]
        for path in ss.irq_files().values():  # moved away from the CPU, or refused with why
            assert path in changed or path in unsupported or \
                int(cpu) not in ss.mask_cpus(ss.read(path) or "0")
        saved = json.loads(state.read_text())["previous"]
        assert set(saved) == set(changed) and all(saved[p] == before[p] for p in saved)
        code, out, _ = run_cli("system", "reset", "--state-file", state, expect=0)
        assert "every saved value is back" in out and not state.exists()
        assert _snapshot() == before
        run_cli("system", "reset", "--state-file", state, expect=2)  # nothing to reset
    finally:
        if state.exists():  # never leave this shared machine changed
            ss.restore(json.loads(state.read_text())["previous"])


def _tree(root: Path) -> None:
    files = {"sys/devices/system/cpu/online": "0-3",
             "sys/devices/system/cpu/cpufreq/boost": "1",
             "proc/sys/kernel/perf_event_max_sample_rate": "50000",
             "proc/irq/7/smp_affinity": "f", "proc/irq/8/smp_affinity": "00000000,00000004"}
    for cpu in range(4):
        files[f"sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"] = \
            "performance" if cpu == 0 else "schedutil"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")


def test_tune_and_reset_on_a_tree_with_cpufreq_and_boost(tmp_path):
    root = tmp_path / "root"
    _tree(root)
    before = _snapshot(str(root))
    state = str(tmp_path / "s" / "state.json")
    shown = {s.name: s for s in system_tune.show(str(root), cpus=(2, 3)).settings}
    assert shown["governor"].value == "performance, schedutil" and shown["governor"].good is False
    assert shown["turbo"].value == "on" and shown["irq_affinity"].good is False
    result = system_tune.tune(state, cpus=(2, 3), root=str(root))
    assert ss.read("/sys/devices/system/cpu/cpu3/cpufreq/scaling_governor", str(root)) == \
        "performance"
    assert ss.read(ss.BOOST, str(root)) == "0"
    assert ss.read("/proc/irq/8/smp_affinity", str(root)) == "3"
    assert {c.setting for c in result.changes} == {"governor", "turbo", "perf_sample_rate",
                                                   "irq_affinity"}
    # cpu0 was performance already: not saved, so reset does not touch it
    saved = json.loads(Path(state).read_text())["previous"]
    assert "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor" not in saved
    again = system_tune.tune(state, cpus=(2, 3), root=str(root))  # a second tune keeps the
    assert not again.changes and json.loads(Path(state).read_text())["previous"] == saved
    reset = system_tune.reset(state, root=str(root))
    assert not reset.unsupported and not os.path.exists(state)
    assert _snapshot(str(root)) == before

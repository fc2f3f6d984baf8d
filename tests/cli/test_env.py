"""`benchlab env`: the machine, its noise warnings with fixes, and what a store recorded."""

from __future__ import annotations

import json

from benchlab.runner import environment


def test_env_text_and_json(run_cli):
    code, out, err = run_cli("env")
    assert code == 0, err
    for label in ("CPU:", "cores usable:", "governor:", "turbo boost:", "kernel:",
                  "load average:", "ASLR:", "environment:", "timer:"):
        assert label in out
    code, out, err = run_cli("env", "--json")
    doc = json.loads(out)
    assert doc["benchlab_version"] and doc["command"] == "env"
    assert doc["environment"]["timer_resolution_s"] > 0
    assert all(set(w) == {"key", "message", "fix"} for w in doc["warnings"])


def test_warnings_carry_fixes():
    env = {"governors": {"powersave": 4}, "turbo": True,
           "turbo_control": "/sys/devices/system/cpu/intel_pstate/no_turbo",
           "cpus_usable": [0, 1, 2, 3], "load_average": [3.5, 1.0, 1.0], "aslr": 2}
    warnings = {w.key: w for w in environment.check(env, cpus=(2, 7))}
    assert set(warnings) == {"governor", "turbo", "load", "aslr", "pinning"}
    assert "cpupower frequency-set --governor performance" in warnings["governor"].fix
    assert warnings["turbo"].fix == ("echo 1 | sudo tee "
                                     "/sys/devices/system/cpu/intel_pstate/no_turbo")
    assert "randomize_va_space" in warnings["aslr"].fix
    assert "7 is not usable" in warnings["pinning"].message
    quiet = {"governors": {"performance": 4}, "turbo": False, "cpus_usable": [0, 1, 2, 3],
             "load_average": [0.1, 0.1, 0.1], "aslr": 0}
    assert environment.check(quiet, cpus=(2,)) == []
    assert [w.key for w in environment.check(quiet, cpus=(0, 1, 2, 3))] == ["pinning"]


def test_env_of_a_store(tmp_path, run_cli):
    exp = tmp_path / "e.toml"
    exp.write_text("executions = 1\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = tmp_path / "r.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    code, out, err = run_cli("env", "--store", db)
    assert code == 0 and out.startswith("session 1: ") and "finished" in out
    code, out, err = run_cli("env", "--store", db, "--json")
    doc = json.loads(out)
    assert doc["sessions"][0]["environment"]["benchlab"] == doc["benchlab_version"]


def test_env_checks_the_pinning_of_an_experiment(tmp_path, run_cli):
    exp = tmp_path / "e.toml"
    exp.write_text("cpus = [4096]\n[alternatives.a]\ncommand = [\"true\"]\n")
    code, out, err = run_cli("env", exp, "--strict")
    assert code == 1 and "4096 is not usable" in out

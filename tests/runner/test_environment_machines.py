"""Machines' environment records compared key by key (issue 13 item 4): which keys differ,
which of them matter for machines meant to be identical, the warning lines, and where the
store says the machines' role."""

from __future__ import annotations

import copy
import json
import os

import numpy as np
import pytest

from benchlab.runner import environment as envm

BASE = {
    "time": "2026-11-25T17:00:00Z", "hostname": "m1.lab", "os": "Linux",
    "kernel": "6.1.0-18-amd64", "kernel_version": "#1 SMP Debian 6.1.76-1",
    "machine": "x86_64", "cpu_model": "Intel(R) Core(TM) i7-8700", "cpus_online": 12,
    "cpus_usable": list(range(12)), "smt_active": True, "governors": {"performance": 12},
    "turbo": False, "turbo_control": "/sys/devices/system/cpu/intel_pstate/no_turbo",
    "load_average": [0.1, 0.2, 0.3], "aslr": 0, "environment_bytes": 1800,
    "memory_bytes": 16 * 2**30, "python": "3.11.7", "python_executable": "/usr/bin/python3",
    "numpy": "2.1.0", "benchlab": "0.1.0", "runner_maxrss_bytes": 50_000_000,
    "timer": "time.perf_counter_ns (CLOCK_MONOTONIC)", "timer_resolution_s": 1e-9,
    "spawn": "glibc posix_spawn through ctypes",
    "counters": {"pmu": [], "pmu_absent": "perf_event_open: ENOENT", "software": ["task-clock"],
                 "valgrind": "valgrind-3.19.0"},
}
# A changed value for every key, of the same kind as the original.
OTHER = {
    "time": "2026-11-25T17:00:09Z", "hostname": "m2.lab", "os": "FreeBSD",
    "kernel": "6.1.0-21-amd64", "kernel_version": "#1 SMP Debian 6.1.90-1",
    "machine": "aarch64", "cpu_model": "AMD EPYC 7302", "cpus_online": 16,
    "cpus_usable": list(range(16)), "smt_active": False, "governors": {"powersave": 12},
    "turbo": True, "turbo_control": "/sys/devices/system/cpu/cpufreq/boost",
    "load_average": [1.5, 0.2, 0.3], "aslr": 2, "environment_bytes": 1900,
    "memory_bytes": 32 * 2**30, "python": "3.12.1", "python_executable": "/opt/py/bin/python3",
    "numpy": "2.2.0", "benchlab": "0.2.0", "runner_maxrss_bytes": 51_000_000,
    "timer": "time.perf_counter_ns (CLOCK_REALTIME)", "timer_resolution_s": 1e-6,
    "spawn": "os.posix_spawn",
    "counters": {"pmu": ["instructions"], "software": ["task-clock"], "valgrind": None},
}
MATTER = {"cpu_model", "cpus_online", "cpus_usable", "smt_active", "governors", "turbo",
          "memory_bytes", "os", "kernel", "kernel_version", "machine", "aslr", "python",
          "numpy", "benchlab", "timer", "timer_resolution_s", "spawn", "counters"}


def test_identical_records_have_no_differences():
    records = {"m1": BASE, "m2": copy.deepcopy(BASE)}
    assert envm.differences(records) == []
    assert envm.identical_machine_warnings(records) == []


def test_every_key_is_classified_as_the_issue_says():
    assert set(OTHER) == set(BASE) == {k for k, _, _ in envm.KEYS}
    assert {k for k in BASE if envm.matters(k)} == MATTER
    # the ones that differ by nature: never warned about
    assert not any(envm.matters(k) for k in ("hostname", "time", "load_average", "uptime",
                                              "python_executable", "runner_maxrss_bytes"))


def _reference(records: dict[str, dict]) -> set[str]:
    """The differing keys by pairwise comparison with Python's own equality (dicts compare
    regardless of order), written independently of environment.differences."""
    keys = set().union(*records.values())
    names = list(records)
    return {k for k in keys for a in names for b in names
            if records[a].get(k, None) != records[b].get(k, None)}


def test_differences_match_a_pairwise_reference_on_random_records():
    rng = np.random.default_rng(13)
    keys = list(BASE)
    for _ in range(200):
        n = int(rng.integers(2, 5))
        records = {}
        for j in range(n):
            record = copy.deepcopy(BASE)
            for k in keys:
                if rng.random() < 0.08:
                    record[k] = copy.deepcopy(OTHER[k])
                elif rng.random() < 0.02:
                    del record[k]  # an older worker's record lacks a key: unknown
            if rng.random() < 0.1:
                record["uptime_s"] = float(rng.integers(0, 3))  # a key this version lacks
            records[f"m{j + 1}"] = record
        found = envm.differences(records)
        assert {d.key for d in found} == _reference(records)
        order = [k for k, _, _ in envm.KEYS] + ["uptime_s"]
        assert [d.key for d in found] == sorted((d.key for d in found), key=order.index)
        assert envm.identical_machine_warnings(records) == \
            [d.warning() for d in found if d.key in MATTER]
        for d in found:
            assert list(d.values) == list(records)
            assert d.values == {m: r.get(d.key) for m, r in records.items()}


def test_dict_order_and_key_absence():
    a = {**BASE, "governors": {"performance": 6, "schedutil": 6}}
    b = {**BASE, "governors": {"schedutil": 6, "performance": 6}}
    assert envm.differences({"a": a, "b": b}) == []
    c = {k: v for k, v in BASE.items() if k != "turbo"}
    (d,) = envm.differences({"a": BASE, "c": c})
    assert (d.key, d.values) == ("turbo", {"a": False, "c": None})
    assert d.warning() == ("machines a and c are meant to be identical but differ in turbo "
                           "boost: off vs unknown")
    # a record that is not an object (a damaged store) compares as empty
    assert {x.key for x in envm.differences({"a": BASE, "z": "oops"})} == set(BASE)


def test_warning_lines():
    m2 = {**BASE, "kernel": "6.1.0-21", "hostname": "m2.lab", "load_average": [2.0, 1, 1]}
    m1 = {**BASE, "kernel": "6.1.0-18"}
    assert envm.identical_machine_warnings({"m1": m1, "m2": m2}) == [
        "machines m1 and m2 are meant to be identical but differ in kernel: "
        "6.1.0-18 vs 6.1.0-21"]
    m3 = {**m2, "governors": {"powersave": 12}}
    assert envm.identical_machine_warnings({"m1": m1, "m2": m2, "m3": m3}) == [
        "machines m1, m2 and m3 are meant to be identical but differ in governor: "
        "performance (12 CPUs) (m1, m2) vs powersave (12 CPUs) (m3)",
        "machines m1, m2 and m3 are meant to be identical but differ in kernel: "
        "6.1.0-18 (m1) vs 6.1.0-21 (m2, m3)"]
    # role factor: the differences are the point, not warned about; role level: warned
    assert envm.machine_warnings({"m1": m1, "m2": m2}, "factor") == []
    assert envm.machine_warnings({"m1": m1, "m2": m2}, None) == []
    assert len(envm.machine_warnings({"m1": m1, "m2": m2}, "level")) == 1


def test_shown_values():
    assert envm.show_value("memory_bytes", 16 * 2**30) == "16 GiB"
    assert envm.show_value("memory_bytes", 8_000_000_000) == "7.45 GiB"
    assert envm.show_value("runner_maxrss_bytes", 512) == "512 B"
    assert envm.show_value("governors", {"performance": 4}) == "performance (4 CPUs)"
    assert envm.show_value("turbo", None) == "unknown"
    assert envm.show_value("smt_active", True) == "on"
    assert envm.show_value("load_average", [0.5, 1.25, 2.0]) == "0.50, 1.25, 2.00"
    assert envm.show_value("timer_resolution_s", 1e-9) == "1e-09 s"


@pytest.mark.parametrize(("meta", "role"), [
    ({"machines": json.dumps({"names": ["a", "b"], "role": "level"})}, "level"),
    ({"machines": json.dumps({"names": ["a", "b"], "role": "factor"})}, "factor"),
    ({"machines": json.dumps({"names": ["a", "b"]})}, "factor"),  # the default role
    ({"machines": json.dumps({"names": ["a"], "role": "cluster"})}, None),
    ({"machines": "{not json"}, None),
    ({"experiment_text": '[machines]\nnames = ["a", "b"]\nrole = "level"\n'}, "level"),
    ({"experiment_text": '[machines]\nnames = ["a", "b"]\n'}, "factor"),
    ({"experiment_text": "executions = 3\n"}, None),
    ({"experiment_text": "this is = = not toml"}, None),
    ({}, None),
])
def test_the_role_is_read_defensively(meta, role):
    assert envm.machines_role(meta) == role


def test_machines_of_a_session_record():
    assert envm.machines_of({**BASE}) == {}
    assert envm.machines_of({**BASE, "machines": []}) == {}
    assert envm.machines_of({**BASE, "machines": {"a": BASE, "b": None}}) == {"a": BASE,
                                                                              "b": {}}


def test_memory_is_this_machines_physical_memory():
    memory = envm.collect()["memory_bytes"]
    if not os.path.exists("/proc/meminfo"):
        pytest.skip("no /proc/meminfo")
    # MemTotal against the page count the C library reports (a different source)
    pages = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert abs(memory - pages) <= 0.01 * pages


def test_a_store_result_says_each_identical_machine_warning_once():
    m1, m2 = {**BASE, "kernel": "6.1.0-18"}, {**BASE, "kernel": "6.1.0-21"}
    line = ("machines m1 and m2 are meant to be identical but differ in kernel: "
            "6.1.0-18 vs 6.1.0-21")
    session = {"id": 1, "started": "s", "finished": None, "outcome": None, "argv": ["run"],
               "environment": {**BASE, "machines": {"m1": m1, "m2": m2}},
               "warnings": ["machine m1: load (fix: wait)", line]}  # a runner that stored it
    meta = {"machines": json.dumps({"names": ["m1", "m2"], "role": "level"})}
    result = envm.store_environments("x.db", [session, {**session, "id": 2}], meta)
    (s1, s2) = result.sessions
    assert s1.machine_warnings == (line,) and s1.warnings == ("machine m1: load (fix: wait)",)
    assert result.machine_warnings == [line] and [d.key for d in s1.differences] == ["kernel"]
    factor = envm.store_environments("x.db", [session], {})  # no role recorded: no warning
    assert factor.role is None and factor.sessions[0].machine_warnings == ()
    assert factor.sessions[0].warnings == ("machine m1: load (fix: wait)", line)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json", "rows", "csv", "html"])
def test_damaged_machine_records_render_in_every_format(fmt):
    """A store anyone could have written: values of the wrong type, a record that is not
    an object, a name with controls; every format renders, nothing raises."""
    from benchlab.result import render

    odd = {"cpu_model": {"nested": [1, {"x": None}]}, "cpus_online": "two",
           "timer_resolution_s": "fast", "governors": {"performance": "all"},
           "load_average": ["a", 1.5], "memory_bytes": 1.5e9, "turbo": "maybe",
           "kernel": "x" * 300}
    session = {"id": 1, "started": "s", "finished": None, "outcome": None, "argv": "oops",
               "environment": {"machines": {"m\x1b1": odd, "m2": BASE, "m3": [1, 2]}},
               "warnings": "not a list"}
    meta = {"machines": json.dumps({"names": ["m\x1b1", "m2", "m3"], "role": "level"})}
    result = envm.store_environments("x.db", [session], meta)
    out = render(result, fmt)
    assert out
    if fmt in ("text", "markdown"):  # CSV keeps names exact (csv_format.py); in HTML an
        assert "\x1b" not in out      # escape character is inert text (html_format.py)
    s = result.sessions[0]
    assert s.machines["m3"] == {} and s.warnings == ()
    assert {d.key for d in s.differences} == set(BASE) | set(odd)

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
    code, out, err = run_cli("env", "--json", expect=0)
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
    code, out, err = run_cli("env", "--store", db, "--json", expect=0)
    doc = json.loads(out)
    assert doc["sessions"][0]["environment"]["benchlab"] == doc["benchlab_version"]


def test_env_of_a_store_with_a_damaged_record(tmp_path, run_cli):
    """A recorded value of the wrong type is shown as it is, never a traceback."""
    import sqlite3

    exp = tmp_path / "e.toml"
    exp.write_text("executions = 1\n[alternatives.a]\ncommand = [\"true\"]\n")
    db = tmp_path / "r.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    with sqlite3.connect(db) as conn:
        env = json.loads(conn.execute("SELECT environment FROM sessions").fetchone()[0])
        env.update(timer_resolution_s="fine", cpus_online="many")
        conn.execute("UPDATE sessions SET environment = ?", (json.dumps(env),))
    code, out, err = run_cli("env", db)
    assert code == 0, err
    assert "resolution fine" in out and "many" in out


def test_env_checks_the_pinning_of_an_experiment(tmp_path, run_cli):
    exp = tmp_path / "e.toml"
    exp.write_text("cpus = [4096]\n[alternatives.a]\ncommand = [\"true\"]\n")
    code, out, err = run_cli("env", exp, "--strict")
    assert code == 1 and "4096 is not usable" in out


# -- machines side by side (issue 13 item 4) ---------------------------------------------

def _machines_store(tmp_path, run_cli, role: str | None, names=("m1", "m2"),
                    kernels=("6.1.0-18", "6.1.0-21")):
    """A real store whose session record is given machines, as a run on Dask records
    them (each machine a copy of this machine's record, kernels as given), and
    [machines] in benchlab_meta as the runner records it."""
    import sqlite3

    exp = tmp_path / "e.toml"
    exp.write_text("executions = 3\nseed = 1\n[alternatives.a]\ncommand = [\"true\"]\n"
                   "[alternatives.b]\ncommand = [\"true\"]\n")
    db = tmp_path / "m.db"
    assert run_cli("run", exp, "-o", db, "--quiet")[0] == 0
    conn = sqlite3.connect(db)
    env = json.loads(conn.execute("SELECT environment FROM sessions").fetchone()[0])
    machines = {n: {**env, "kernel": k, "hostname": f"host-{i}", "load_average": [i, 0, 0]}
                for i, (n, k) in enumerate(zip(names, kernels, strict=True))}
    with conn:
        # no noise warnings: --strict then answers for the machines' differences alone
        conn.execute("UPDATE sessions SET environment = ?, warnings = '[]'",
                     (json.dumps({**env, "machines": machines}),))
        if role is not None:
            conn.execute("INSERT OR REPLACE INTO benchlab_meta VALUES ('machines', ?)",
                         (json.dumps({"names": list(names), "role": role}),))
    conn.close()
    return db


WARNING = ("machines m1 and m2 are meant to be identical but differ in kernel: "
           "6.1.0-18 vs 6.1.0-21")


def _rows(out: str) -> dict[str, str]:
    """The side-by-side text table's lines by their label (the ≠ mark kept)."""
    lines = {}
    for line in out.split("\n"):
        body = line[2:]  # the session's indent
        if body[:2] in ("  ", "≠ ") and body[2:].strip():
            lines[body[2:].split("  ")[0].strip()] = body
    return lines


def test_identical_machines_that_differ_are_warned_about(tmp_path, run_cli):
    db = _machines_store(tmp_path, run_cli, "level")
    code, out, err = run_cli("env", db)
    assert code == 0, err
    assert "machines m1, m2 (role level: the machines are meant to be identical)" in out
    assert f"  - {WARNING}" in out
    rows = _rows(out)
    assert rows["kernel"].startswith("≠ ") and "6.1.0-18" in rows["kernel"]
    assert rows["host name"].startswith("≠ ") and rows["CPU"].startswith("  ")
    # the warning comes above the table, the keys that differ by nature below the others
    assert out.index(WARNING) < out.index("kernel  ") < out.index("expected to differ:") \
        < out.index("host name")
    assert run_cli("env", db, "--strict")[0] == 1
    assert run_cli("env", "--store", db, expect=0)[1] == out


def test_machines_as_a_factor_differ_without_warnings(tmp_path, run_cli):
    db = _machines_store(tmp_path, run_cli, "factor")
    code, out, err = run_cli("env", db)
    assert code == 0 and "role factor" in out and "meant to be identical" not in out
    assert _rows(out)["kernel"].startswith("≠ ")
    doc = json.loads(run_cli("env", db, "--json", expect=0)[1])
    assert doc["machines_role"] == "factor" and doc["warnings"] == []
    assert doc["sessions"][0]["machine_warnings"] == []
    assert doc["sessions"][0]["warnings"] == []
    assert run_cli("env", db, "--strict")[0] == 0  # differences of a factor: no warning


def test_json_has_each_machines_record_and_the_differing_keys(tmp_path, run_cli):
    db = _machines_store(tmp_path, run_cli, "level")
    doc = json.loads(run_cli("env", db, "--json", expect=0)[1])
    (s,) = doc["sessions"]
    assert s["machines"] == ["m1", "m2"]
    assert s["environment"]["machines"]["m2"]["kernel"] == "6.1.0-21"
    diffs = {d["key"]: d for d in s["differences"]}
    assert set(diffs) == {"kernel", "hostname", "load_average"}
    assert diffs["kernel"] == {"key": "kernel", "label": "kernel", "matters": True,
                               "values": {"m1": "6.1.0-18", "m2": "6.1.0-21"}}
    assert diffs["hostname"]["matters"] is False
    assert s["machine_warnings"] == [WARNING] and doc["warnings"] == [WARNING]
    assert doc["machines_role"] == "level" and doc["command"] == "env"


def test_csv_markdown_and_html_of_machines(tmp_path, run_cli):
    import csv
    import io
    from html.parser import HTMLParser

    db = _machines_store(tmp_path, run_cli, "level")
    rows = list(csv.DictReader(io.StringIO(run_cli("env", db, "--format", "csv", expect=0)[1])))
    kernel = {r["machine"]: r for r in rows if r["table"] == "environment"
              and r["key"] == "kernel"}
    assert kernel["m2"]["value"] == "6.1.0-21" and kernel["m1"]["differs"] == "True"
    assert {r["message"] for r in rows if r["table"] == "warning"} >= {WARNING}
    cpu = [r for r in rows if r["key"] == "cpu_model"]
    assert len(cpu) == 2 and {r["differs"] for r in cpu} == {"False"}

    md = run_cli("env", db, "--format", "markdown", expect=0)[1]
    assert "| key | m1 | m2 | differs |" in md
    assert "| kernel | 6\\.1\\.0\\-18 | 6\\.1\\.0\\-21 | ≠ |" in md or \
        any(line.startswith("| kernel |") and line.endswith("| ≠ |") for line in md.split("\n"))

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            if tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(self.cell)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    page = run_cli("env", db, "--format", "html", expect=0)[1]
    parser = Cells()
    parser.feed(page)
    table = {r[0]: r[1:] for r in parser.rows if r}
    assert table[""] == ["m1", "m2"]
    assert table["kernel"] == ["≠ 6.1.0-18", "≠ 6.1.0-21"]
    assert not table["CPU"][0].startswith("≠")
    assert page.index(WARNING) < page.index("<table")


def test_machine_names_are_inert(tmp_path, run_cli):
    names = ("<script>alert(1)</script>", "m|2\x1b[31m")
    db = _machines_store(tmp_path, run_cli, "level", names=names)
    out = run_cli("env", db, expect=0)[1]
    assert "\x1b" not in out and "\\x1b[31m" in out
    page = run_cli("env", db, "--format", "html", expect=0)[1]
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    md = run_cli("env", db, "--format", "markdown", expect=0)[1]
    assert "<script>" not in md and "m\\|2" in md


def test_the_report_shows_machines_side_by_side(tmp_path, run_cli):
    db = _machines_store(tmp_path, run_cli, "level", names=("m1", "<b>m2</b>"))
    page = tmp_path / "r.html"
    code, out, err = run_cli("report", db, "-o", page)
    assert code == 0, err
    text = page.read_text()
    section = text[text.index('<section class="environment">'):]
    warning = ("machines m1 and &lt;b&gt;m2&lt;/b&gt; are meant to be identical but differ "
               "in kernel: 6.1.0-18 vs 6.1.0-21")
    assert warning in section and "<b>m2</b>" not in section
    assert section.index(warning) < section.index('<table class="environment machines">')
    assert "≠ 6.1.0-21" in section
    # said at the top of the page too, among the headline's warnings
    assert text.index(warning) < text.index('<section class="bench"')
    # a shade for keys that must agree, the glyph alone for those expected to differ
    kernel = section[section.index("<td class=\"name\">kernel</td>"):]
    assert kernel[:kernel.index("</tr>")].count("background:") == 2
    host = section[section.index("host name (expected to differ)"):]
    host = host[:host.index("</tr>")]
    assert host.count("≠ host-") == 2 and "background:" not in host


def test_a_store_and_an_experiment_together_are_refused(tmp_path, run_cli):
    db = _machines_store(tmp_path, run_cli, None)
    code, out, err = run_cli("env", db, "--store", db)
    assert code == 2 and err.count("\n") == 1 and "not both" in err
    doc = json.loads(run_cli("env", db, "--json", expect=0)[1])
    assert doc["machines_role"] is None and doc["warnings"] == []  # no role: no warning
    assert [d["key"] for d in doc["sessions"][0]["differences"]] == [
        "kernel", "hostname", "load_average"]


def test_a_real_run_on_two_local_workers(tmp_path, run_cli):
    """`run --cluster local:2` (real Dask workers): each machine's record side by side."""
    import pytest

    pytest.importorskip("distributed", reason="Dask distributed is not installed")
    db = tmp_path / "c.db"
    code, out, err = run_cli("run", "examples/experiments/machines.toml", "--cluster",
                             "local:2", "-o", db, "--quiet")
    assert code == 0, err
    doc = json.loads(run_cli("env", db, "--json", expect=0)[1])
    (s,) = doc["sessions"]
    assert s["machines"] == ["m1", "m2"] and doc["machines_role"] == "factor"
    records = s["environment"]["machines"]
    # one machine played twice: nothing that matters may differ
    assert not [d for d in s["differences"] if d["matters"]]
    assert records["m1"]["memory_bytes"] == records["m2"]["memory_bytes"] > 0
    code, out, err = run_cli("env", db)
    assert code == 0 and "machines m1, m2 (role factor" in out
    assert _rows(out)["memory"].count("GiB") + _rows(out)["memory"].count("MiB") == 2

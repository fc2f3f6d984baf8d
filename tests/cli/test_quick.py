"""`benchlab run -- CMD1 CMD2` (quick mode): exit codes, what it prints, the store it keeps
or removes, hyperfine's option names. Structure is checked, not timings: the commands are
short sleeps on a loaded machine."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import sys
import tempfile

import pytest

from benchlab.cli.main import main

from ..support.cli import main_output

PAIR = ("sleep 0.01", "sleep 0.012")


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """One run kept in a store, its JSON on stdout and its Markdown exported."""
    folder = tmp_path_factory.mktemp("quick")
    db, md = folder / "q.db", folder / "q.md"
    options = ("run", "--runs", "6", "--seed", "7", "-o", db, "--", *PAIR)
    code, out, err = main_output(*options[:-3], "--format", "json", "--export-markdown", md,
                           *options[-3:])
    return {"code": code, "out": out, "err": err, "db": db, "md": md, "options": options}


def test_a_kept_run_prints_compare_json_and_exports(kept):
    assert kept["code"] == 0, kept["err"]
    doc = json.loads(kept["out"])
    assert doc["command"] == "compare" and doc["argv"][0] == "run"
    assert [s["name"] for s in doc["samples"]] == list(PAIR)
    (comparison,) = doc["comparisons"]
    assert comparison["paired"] and comparison["candidate"] == "sleep 0.012"
    assert comparison["ratio"]["low"] < comparison["ratio"]["estimate"] < \
        comparison["ratio"]["high"]
    assert "ratio" in kept["md"].read_text() and "|" in kept["md"].read_text()
    assert f"store {kept['db']}" in kept["err"] and "seed 7" in kept["err"]


def test_the_commands_are_interleaved_round_by_round(kept):
    conn = sqlite3.connect(kept["db"])
    rounds: dict[int, list[str]] = {}
    for r, alternative in conn.execute("SELECT round, alternative FROM trials ORDER BY seq"):
        rounds.setdefault(r, []).append(alternative)
    conn.close()
    assert len(rounds) == 6
    assert all(sorted(names) == sorted(PAIR) for names in rounds.values())


def test_the_kept_store_resumes_and_reports(kept, run_cli, tmp_path):
    code, out, err = run_cli(*kept["options"][:-3], "--resume", "--quiet",
                             *kept["options"][-3:], expect=0)
    assert "nothing left to run" in err and "ratio of means" in out
    code, out, err = run_cli(*kept["options"][:-3], "--runs", "7", "--resume",
                             *kept["options"][-3:])
    assert code == 2 and "different experiment" in err
    run_cli("report", kept["db"], "-o", tmp_path / "r.html", expect=0)
    code, out, err = run_cli("compare", kept["db"], "--seed", "7", expect=0)
    assert "sleep 0.012 vs sleep 0.01 (paired)" in out


def test_text_run_in_a_temporary_store_with_progress(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code, out, err = run_cli("run", "--runs", "3", "--", *PAIR, expect=0)
    assert "sleep 0.012 vs sleep 0.01 (paired)" in out and "ratio of means" in out
    assert "[1/6] round 1: " in err and "ETA" in err
    assert "interleaved in a random order" in err and "not kept" in err
    assert list(tmp_path.iterdir()) == []  # the temporary store is removed


def test_progress_bar_on_a_terminal(monkeypatch, tmp_path):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    bar = Terminal()
    monkeypatch.setattr(sys, "stderr", bar)
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["run", "--runs", "2", "-o", str(tmp_path / "b.db"), "--", *PAIR])
    assert code == 0
    assert "4/4" in bar.getvalue() and "ETA" in bar.getvalue()


def test_a_scan_of_two_commands_prints_a_suite(run_cli):
    code, out, err = run_cli("run", "--runs", "3", "-L", "n", "1,2", "--quiet", "--",
                             "sleep 0.00{n}", "sleep 0.00{n}5", expect=0)
    lines = out.splitlines()
    assert any(line.startswith("benchmark") and "sleep 0.00{n}5" in line for line in lines)
    assert [line.split()[0] for line in lines if line.startswith(("n=", "geomean"))] == \
        ["n=1", "n=2", "geomean"]


def test_a_scan_of_one_command_with_two_values_is_one_comparison(run_cli):
    code, out, err = run_cli("run", "-r", "3", "-P", "n", "1", "3", "-D", "2", "--quiet",
                             "--", "sleep 0.00{n}", expect=0)
    assert "n=3 vs n=1 (paired)" in out


def test_a_scan_of_one_command_prints_a_suite_against_its_first_value(run_cli, tmp_path):
    """Three values: a suite of n=2 and n=3 against n=1 (each row with n=1's executions),
    Holm across the rows, paired by round; `compare STORE` prints the same table."""
    db = tmp_path / "s.db"
    code, out, err = run_cli("run", "-r", "3", "-P", "n", "1", "3", "--seed", "5", "--quiet",
                             "--format", "json", "-o", db, "--", 'sh -c "exit 0" {n}',
                             expect=0)
    doc = json.loads(out)
    assert doc["design"]["blocks"] == "round" and "n=1" in doc["design"]["note"]
    assert [b["benchmark"] for b in doc["benchmarks"]] == ["n=2", "n=3"]
    for b in doc["benchmarks"]:
        assert [s["name"] for s in b["samples"]] == ["n=1", "value"]
        assert b["samples"][0]["n"] == b["samples"][1]["n"] == 3
    raw = {h["benchmark"]: h["pvalue"] for h in doc["holm"]}
    first, second = sorted(raw, key=raw.get)  # Holm: the smaller p times 2, then the max
    adjusted = {first: min(1.0, 2 * raw[first])}
    adjusted[second] = min(1.0, max(adjusted[first], raw[second]))
    levels = {d["benchmark"]: d["level"] for d in doc["decisions"]}
    for h in doc["holm"]:
        assert h["adjusted_pvalue"] == pytest.approx(adjusted[h["benchmark"]], rel=1e-9)
    assert levels[first] == pytest.approx(0.975)
    assert levels[second] == pytest.approx(0.95 if adjusted[first] < 0.05 else 0.975)
    code, text, _ = run_cli("compare", db, "--seed", str(doc["seed"]), expect=0)
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("benchmark"))
    assert header.split()[1:3] == ["n=1", "value"] and "Holm p" in header
    assert [line.split()[0] for line in lines if line.startswith(("n=", "geomean"))] == \
        ["n=2", "n=3", "geomean"]
    assert " vs " not in text


def test_a_scanned_store_is_known_by_its_meta_key_or_by_its_old_name(run_cli, tmp_path):
    """New stores say `scanned` in their meta; one made before the key (without it) is known
    by the experiment name quick mode gave it; an experiment file of that name is not."""
    from benchlab.data.store_design import store_info
    from benchlab.runner.quick import SCANNED_NAME

    scan, pair = tmp_path / "scan.db", tmp_path / "pair.db"
    run_cli("run", "-r", "2", "-L", "n", "1,2,3", "--quiet", "-o", scan, "--", "true {n}",
            expect=0)
    run_cli("run", "-r", "2", "--quiet", "-o", pair, "--", "true", "true 1", expect=0)

    def meta(db, **values):
        with contextlib.closing(sqlite3.connect(db)) as conn, conn:
            for key, value in values.items():
                conn.execute("DELETE FROM benchlab_meta WHERE key = ?", (key,))
                if value is not None:
                    conn.execute("INSERT INTO benchlab_meta VALUES (?, ?)", (key, value))
            return dict(conn.execute("SELECT key, value FROM benchlab_meta"))

    assert meta(scan)["scanned"] == "true" and meta(pair)["scanned"] == "false"
    assert store_info(str(scan)).scanned and not store_info(str(pair)).scanned
    meta(scan, name="renamed")  # the key decides, not the name
    assert store_info(str(scan)).scanned
    meta(scan, scanned=None, name=SCANNED_NAME)  # an old store: its name
    assert store_info(str(scan)).scanned
    run_cli("compare", scan, "--seed", "1", expect=0)
    meta(scan, name="renamed")
    assert not store_info(str(scan)).scanned
    meta(scan, name=SCANNED_NAME, experiment_path="/tmp/exp.toml")  # a file of that name
    assert not store_info(str(scan)).scanned


def test_one_command_prints_its_summary(run_cli):
    code, out, err = run_cli("run", "--runs", "3", "--quiet", "-c", "sleep 0.001", expect=0)
    assert out.startswith("sleep 0.001: n = 3, mean ")


def test_hyperfine_options_and_export_json(run_cli, tmp_path):
    exported = tmp_path / "h.json"
    code, out, err = run_cli("run", "-N", "--warmup", "1", "--runs", "2", "--prepare", "true",
                             "--setup", "true", "--cleanup", "true", "--parameter-list", "x",
                             "a,b", "--command-name", "one", "--command-name", "two",
                             "--export-json", exported, "--quiet", "--",
                             "echo {x}", "printf {x}", expect=0)
    doc = json.loads(exported.read_text())
    assert doc["schema"] and doc["command"] == "compare"
    assert "one" in out and "two" in out


def test_min_time_stops_after_its_duration(run_cli):
    code, out, err = run_cli("run", "--min-time", "0.05s", "--runs", "200", "--quiet", "--",
                             *PAIR, expect=0)
    assert "stopped: max_time reached" in err


def test_failed_executions_exit_1(run_cli):
    code, out, err = run_cli("run", "--runs", "2", "--quiet", "--", "true", "false", expect=1)
    assert "execution" in err and "of 'false' failed: exit code 1" in err
    assert "2 of 4 executions failed (exit 1)" in err


def test_dry_run_names_the_seed_option(run_cli):
    code, out, err = run_cli("run", "--dry-run", "-P", "n", "1", "2", "--", "echo {n}",
                             "printf {n}", expect=0)
    assert out.startswith("experiment: the commands of the command line (quick mode)")
    assert "(drawn; this order again: add --seed " in out
    assert "printf 2" in out and "8 trials" not in out


def test_a_failed_setup_is_one_line_without_a_file_line(run_cli):
    code, out, err = run_cli("run", "--setup", "false", "--quiet", "--", "true", "sleep 0",
                             expect=2)
    assert "benchlab: setup command 'false' failed: exit code 1" in err.splitlines()


@pytest.mark.parametrize("args, fragment", [
    ((), "nothing to run"),
    (("x.toml", "--", "true"), "an experiment file and commands"),
    (("-c", "true", "x.toml"), "an experiment file and -c commands"),
    (("-c", "true", "--", "false"), "give them one way"),
    (("-P", "n", "3", "1", "--", "sleep {n}"), "LOW is above HIGH"),
    (("--", "sleep {m}", "true"), "{m} is not a parameter"),
    (("--runs", "3", "x.toml"), "--runs goes with commands"),
    (("--plot", "f.png", "x.toml"), "--plot goes with commands"),
    (("--resume", "--", "true", "false"), "--resume needs -o"),
    (("--step", "2", "--", "true", "false"), "--step goes with -P"),
    (("--fail-on", "change", "--", "true"), "--fail-on compares commands"),
    (("--min-time", "soon", "--", "true", "false"), "--min-time must be a duration"),
])
def test_bad_combinations_are_one_line_exit_2(run_cli, args, fragment):
    code, out, err = run_cli("run", *args, expect=2)
    assert fragment in err and len(err.strip().splitlines()) == 1


def test_the_resume_command_repeats_the_options_with_the_store():
    from benchlab.cli.quick import resume_command

    argv = ["run", "--runs", "5", "-o", "old.db", "--resume", "-oother.db", "-P", "n", "1",
            "2", "--", "sleep 0.0{n}", "-o"]
    assert resume_command(argv, "/tmp/x y/run.db") == (
        "benchlab run -o '/tmp/x y/run.db' --resume --runs 5 -P n 1 2 -- 'sleep 0.0{n}' -o")

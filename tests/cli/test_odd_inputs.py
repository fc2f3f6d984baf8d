"""The reproductions of issue 20 (item 4) that ended in exit 3 now end in exit 2 with one line
naming the file (and line) and the problem, in summary, compare and history add alike: a hex
float that overflows, a JSON integer of 5,000 digits, a lone surrogate in a JSON name, a
10^6-digit token; a CSV header field over 131,072 characters is read; an `env` value with a
factor placeholder in an experiment with a build step is refused by --dry-run and run alike."""

from __future__ import annotations

from pathlib import Path

import pytest

HYPERFINE = '{{"results": [{{"command": {name}, "times": [1.5, 1.6, {value}]}}, ' \
            '{{"command": "b", "times": [2.5, 2.6, 2.7]}}]}}'
CASES = {
    # file name: (content, the line the message names, words it must hold)
    "hex.txt": ("1\n2\n0x1.8p99999\n", 3, "'0x1.8p99999' is too large for a double"),
    "hex.csv": ("system,value\na,1\na,2\nb,0x1.8p99999\nb,3\n", 4,
                "'0x1.8p99999' is too large for a double"),
    "bigint.json": (HYPERFINE.format(name='"a"', value="9" * 5000), 1,
                    "(5,000 characters) is too large for a double (an integer of 5,000 digits)"),
    "surrogate.json": (HYPERFINE.format(name='"a\\ud800"', value="1.7"), 1,
                       "lone UTF-16 surrogate (\\ud800)"),
    "giant.txt": ("1\n2\n" + "7" * 1_000_000 + "x\n", 3, "(1,000,001 characters) is not a number"),
}


def _commands(path: Path, tmp_path: Path) -> list[tuple[str, ...]]:
    other = tmp_path / "other.txt"
    other.write_text("1.5\n1.6\n1.7\n")
    return [("summary", path), ("compare", path, other),
            ("history", "add", path, "--db", tmp_path / "h.db", "--commit", "abc",
             "--date", "2024-01-01T00:00:00Z")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_odd_input_is_exit_2_and_one_line_in_every_command(run_cli, tmp_path, name):
    text, line, words = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    for argv in _commands(path, tmp_path):
        code, out, err = run_cli(*argv, expect=2)
        assert err.count("\n") == 1 and err.startswith(f"benchlab: {path}:{line}: "), err[:300]
        assert words in err and len(err) < 400, err[:300]


def test_a_csv_header_field_over_131072_characters_is_read(run_cli, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("system," + "v" * 140_000 + "\na,1\na,2\nb,3\nb,4\n")
    code, out, err = run_cli("summary", path, "--by", "system", expect=0)
    assert "a: n = 2" in out and "b: n = 2" in out
    code, out, err = run_cli("history", "add", path, "--by", "system", "--db",
                             tmp_path / "h.db", "--commit", "abc", "--date",
                             "2024-01-01T00:00:00Z", expect=0)
    assert "2 benchmarks" in out


def test_a_file_name_that_is_not_utf8_is_printed_and_stored_escaped(run_cli, tmp_path):
    path = Path(str(tmp_path / "bad") + "\udcff.txt")  # the file name b"bad\xff.txt"
    path.write_text("1.5\n1.6\n1.7\n")
    code, out, err = run_cli("summary", path, expect=0)
    assert out.startswith("bad\\xff: n = 3")
    db = tmp_path / "h.db"
    run_cli("history", "add", path, "--db", db, "--commit", "abc", "--date",
            "2024-01-01T00:00:00Z", expect=0)
    code, out, err = run_cli("history", "show", "--db", db, expect=0)
    assert "bad\\xff" in out


EXPERIMENT = """\
name = "envbuild"
seed = 1
executions = 2
iterations = 1
{top}
[factors]
n = [1, 2]
[alternatives.a]
build = ["true"]
command = ["sh", "-c", "echo time_ms: $SIZE"]
{alternative}
[measure]
regex = 'time_ms: (?P<time_ms>[0-9.]+)'
unit = "ms"
"""


@pytest.mark.parametrize("top,alternative,line", [
    ("", 'env = { SIZE = "{n}" }', 11),
    ('env = { SIZE = "{n}" }', "", 5),
])
def test_a_factor_in_env_beside_a_build_step_is_refused_by_dry_run_and_run(
        run_cli, tmp_path, top, alternative, line):
    path = tmp_path / "e.toml"
    path.write_text(EXPERIMENT.format(top=top, alternative=alternative))
    for extra in (("--dry-run",), ()):
        code, out, err = run_cli("run", path, "-o", tmp_path / "e.db", *extra, expect=2)
        assert err == (f"benchlab: {path}:{line}: {{n}} in env: the environment is also the "
                       "build step's (of alternative 'a'), which runs once for all levels of "
                       "n; give it in the command instead (known here: alternative, build, "
                       "iterations)\n")
    assert not (tmp_path / "e.db").exists()


def test_env_of_build_placeholders_beside_a_build_step_runs(run_cli, tmp_path):
    path = tmp_path / "e.toml"
    path.write_text(EXPERIMENT.format(top="", alternative='env = { SIZE = "{build}" }'))
    run_cli("run", path, "-o", tmp_path / "e.db", "--quiet", expect=0)
    code, out, err = run_cli("summary", tmp_path / "e.db", "--by", "n", expect=0)
    assert out.count("n = 2, mean 1 ") == 2, out  # SIZE was the build's number, 1


def test_export_refuses_a_named_pipe_or_device_as_a_store_without_waiting(run_cli, tmp_path):
    import os

    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    for path in (fifo, "/dev/zero"):
        code, out, err = run_cli("export", path, "-o", tmp_path / "x.csv", expect=2)
        assert err == (f"benchlab: {path}: is a device, named pipe or socket, not a benchlab "
                       "store\n")


def test_history_names_given_on_the_command_line_must_be_utf8(run_cli, tmp_path):
    data = tmp_path / "a.txt"
    data.write_text("1.5\n1.6\n1.7\n")
    db = tmp_path / "h.db"
    for option in ("--commit", "--branch", "--machine"):
        argv = {"--commit": "abc", "--branch": "main", option: "x\udcff"}  # b"x\xff"
        code, out, err = run_cli("history", "add", data, "--db", db, "--date",
                                 "2024-01-01T00:00:00Z", *(a for kv in argv.items() for a in kv),
                                 expect=2)
        assert err == (f"benchlab: argument {option}: 'x\\xff' is not UTF-8 text (see "
                       "benchlab history add --help)\n")
    assert not db.exists()


def test_command_line_names_that_are_not_utf8_are_shown_escaped_or_refused(run_cli, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1.5\n1.6\n1.7\n")
    b.write_text("2.5\n2.6\n2.7\n")
    out_md = tmp_path / "out.md"
    run_cli("compare", a, b, "--name", "a=x\udcff", "--no-plot", "-o", out_md, "--format",
            "markdown", expect=0)  # the label b"x\xff" shown as an escape, as file names are
    assert "x\\\\xff" in out_md.read_text()  # Markdown escapes the backslash itself
    code, out, err = run_cli("compare", a, b, "--unit", "s\udcff", expect=2)
    assert err == ("benchlab: argument --unit: 's\\xff' is not UTF-8 text (see benchlab "
                   "compare --help)\n")
    design = tmp_path / "d.csv"
    run_cli("design", "--factor", "a=\udcff,2", "--seed", "1", "-o", design, expect=0)
    assert b",\xff," in design.read_bytes()  # written back byte for byte, as stdout does

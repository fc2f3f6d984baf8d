"""Experiment files checked fully before anything runs (issue 15, item 7): working directories
that do not exist, NUL bytes, non-string environment values and command arguments, integers
and durations out of range, a UTF-8 byte order mark — each a one-line error with the file,
the key and the line, through the library and through `benchlab run` (exit 2)."""

from __future__ import annotations

import pytest

from benchlab.errors import InputError
from benchlab.runner.config import load_experiment, parse_experiment


def write(tmp_path, text: str, name: str = "exp.toml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def error(tmp_path, text: str) -> str:
    with pytest.raises(InputError) as info:
        parse_experiment(text, write(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message
    return message


OK = '[alternatives.fast]\ncommand = ["true"]\n'


@pytest.mark.parametrize("text, line, fragment", [
    # a working directory that does not exist, or is a file
    ('cwd = "gone"\n' + OK, 1, "cwd: no such directory: "),
    (OK + 'cwd = "gone"\n', 3, "alternatives.fast.cwd: no such directory: "),
    (OK + 'cwd = "exp.toml"\n', 3, "alternatives.fast.cwd: not a directory: "),
    # NUL bytes anywhere: arguments, shell strings, env values and names, levels, keys
    ('[alternatives.fast]\ncommand = ["true", "a\\u0000b"]\n', 2,
     "alternatives.fast.command[1] contains a NUL byte"),
    ('shell = true\n[alternatives.fast]\ncommand = "true \\u0000"\n', 3,
     "alternatives.fast.command contains a NUL byte"),
    (OK + 'env = { X = "\\u0000" }\n', 3, "alternatives.fast.env.X contains a NUL byte"),
    ('[factors]\nn = ["1", "\\u0000"]\n' + OK, 2, "factors.n[1] contains a NUL byte"),
    ('cwd = "\\u0000"\n' + OK, 1, "cwd contains a NUL byte"),
    ('[alternatives."a\\u0000"]\ncommand = ["true"]\n', 1, "contains a NUL byte"),
    # environment values and names
    (OK + "env = { X = 1 }\n", 3, 'alternatives.fast.env.X must be a string, not int 1 '
                                  '(write X = "1")'),
    ("[env]\nX = 1.5\n" + OK, 2, "env.X must be a string, not float 1.5"),
    ("env = { X = true }\n" + OK, 1, "env.X must be a string, not true"),
    ('env = { "A=B" = "1" }\n' + OK, 1, "without '='"),
    # command arguments
    ("[alternatives.fast]\ncommand = [1, 2]\n", 2,
     'alternatives.fast.command[0] must be a string, not int 1 (write "1")'),
    ('[alternatives.fast]\ncommand = ["true"]\nbuild = ["make", 3]\n', 3,
     "alternatives.fast.build[1] must be a string, not int 3"),
    ('setup = ["true", false]\n' + OK, 1, "setup[1] must be a string, not false"),
    # numbers out of range
    ("seed = 99999999999999999999\n" + OK, 1, "seed is out of range: TOML integers are 64-bit"),
    ("executions = 1" + "0" * 5000 + "\n" + OK, 1, "integer out of range"),
    ('timeout = "1e400s"\n' + OK, 1, "timeout must be a positive duration"),
    ("timeout = inf\n" + OK, 1, "timeout must be a positive duration"),
    ('build_timeout = "30d"\n' + OK, 1, "build_timeout must be a positive duration"),
    ('timeout = "1000h"\n' + OK, 1, "timeout must be at most 7 days"),
    ("cpus = [99999999999]\n" + OK, 1, "cpus must list CPU numbers"),
])
def test_bad_values_name_the_key_and_line(tmp_path, text, line, fragment):
    message = error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'exp.toml'}:{line}: "), message
    assert fragment in message, message


def test_numbers_and_strings_that_are_fine(tmp_path):
    e = parse_experiment('[factors]\nn = [1, 2.5, "x y"]\n[alternatives.fast]\n'
                         'command = ["echo", "{n}"]\nenv = { X = "1" }\n', write(tmp_path, ""))
    assert e.factors == (("n", ("1", "2.5", "x y")),)  # levels may be numbers
    assert e.alternatives[0].env == (("X", "1"),)


def test_existing_working_directories(tmp_path):
    (tmp_path / "sub").mkdir()
    e = parse_experiment('cwd = "sub"\n' + OK + 'cwd = "."\n', write(tmp_path, ""))
    assert e.cwd == str(tmp_path / "sub")
    assert e.alternatives[0].cwd == str(tmp_path)


def test_setup_may_make_an_alternatives_directory(tmp_path):
    """As with its command, an alternative's directory may be made by a setup command; the
    top-level cwd, where setup itself runs, must exist."""
    e = parse_experiment('setup = ["mkdir", "-p", "out"]\n' + OK + 'cwd = "out"\n',
                         write(tmp_path, ""))
    assert e.alternatives[0].cwd == str(tmp_path / "out")
    message = error(tmp_path, 'setup = ["true"]\ncwd = "gone"\n' + OK)
    assert ":2: cwd: no such directory" in message


def test_byte_order_mark_is_accepted_and_kept(tmp_path):
    path = tmp_path / "bom.toml"
    text = "executions = 3\n" + OK
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    e = load_experiment(str(path))
    assert e.executions == 3 and e.alternatives[0].name == "fast"
    assert e.text == "\ufeff" + text  # recorded as written
    assert e.where("executions").endswith(":1")
    with pytest.raises(InputError, match=r"bom\.toml:1: executions must be an integer"):
        parse_experiment('\ufeffexecutions = "3"\n' + OK, str(path))


@pytest.mark.parametrize("text, fragment", [
    ('cwd = "gone"\n' + OK, ":1: cwd: no such directory"),
    ('[alternatives.fast]\ncommand = ["true", "a\\u0000b"]\n', ":2: alternatives.fast.command[1] "
     "contains a NUL byte"),
    (OK + "env = { X = 1 }\n", ":3: alternatives.fast.env.X must be a string"),
    ("[alternatives.fast]\ncommand = [1, 2]\n", ":2: alternatives.fast.command[0] must be a "
     "string"),
])
@pytest.mark.parametrize("dry_run", [True, False])
def test_through_the_cli_exit_2_and_one_line(tmp_path, capsys, text, fragment, dry_run):
    from benchlab.cli.main import main

    exp = write(tmp_path, text)
    db = tmp_path / "r.db"
    code = main(["run", exp, "-o", str(db), *(["--dry-run"] if dry_run else [])])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith(f"benchlab: {exp}") and fragment in captured.err
    assert not db.exists()


def test_byte_order_mark_through_the_cli(tmp_path, capsys):
    from benchlab.cli.main import main

    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + ("executions = 2\n" + OK).encode())
    assert main(["run", str(path), "--dry-run", "--seed", "1"]) == 0
    assert "plan: 2 trials" in capsys.readouterr().out

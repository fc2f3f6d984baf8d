"""Placeholders in `shell = true` commands are shell-quoted (issue 15): a factor level
`1; touch x` is one word for /bin/sh, not a second command — unless the template asks for
the raw value with `{name:raw}`. Argv commands and env values are never quoted (no shell
reads them)."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchlab.errors import InputError
from benchlab.runner.config import Command, parse_experiment, substitute
from benchlab.runner.plan import command_for, env_for, make_plan
from benchlab.runner.session import run_experiment

EVIL = "1; touch pwned"


def write(tmp_path, text: str) -> str:
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return str(path)


def shell_experiment(tmp_path, command: str) -> str:
    return write(tmp_path, f'executions = 1\nshell = true\n[factors]\nn = ["{EVIL}"]\n'
                           f'[measure]\nregex = \'v=(?P<v>[0-9]+)\'\n'
                           f"[alternatives.a]\ncommand = '{command}'\n")


def test_substitute_quotes_for_the_shell_unless_raw():
    values = {"n": EVIL, "m": "plain"}
    assert substitute("echo {n} {m}", values, quote=True) == "echo '1; touch pwned' plain"
    assert substitute("echo {n:raw}", values, quote=True) == "echo 1; touch pwned"
    assert substitute("echo {n}", values) == "echo 1; touch pwned"  # an argv argument
    assert substitute("{{{n}}}", values, quote=True) == "{'1; touch pwned'}"
    assert substitute("x{m}", {"m": ""}, quote=True) == "x''"  # an empty value stays a word


@given(st.text(alphabet=st.characters(blacklist_characters="\x00"), max_size=30))
def test_a_quoted_value_is_one_word(value):
    assert shlex.split(substitute("prog {n} end", {"n": value}, quote=True)) == \
        ["prog", value, "end"]


def test_a_level_does_not_run_a_command_by_default(tmp_path):
    exp = shell_experiment(tmp_path, "echo v=2 {n}")
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.counts == {"ok": 1}
    assert not (tmp_path / "pwned").exists()


def test_raw_placeholders_are_substituted_as_written(tmp_path):
    exp = shell_experiment(tmp_path, "echo v=2 {n:raw}")
    result = run_experiment(exp, str(tmp_path / "r.db"))
    assert result.counts == {"ok": 1}
    assert (tmp_path / "pwned").exists()  # asked for: the level is shell code


def test_through_the_cli(tmp_path, capsys):
    from benchlab.cli.main import main

    exp = shell_experiment(tmp_path, "echo v=2 {n}")
    assert main(["run", exp, "-o", str(tmp_path / "r.db"), "--quiet"]) == 0
    assert not (tmp_path / "pwned").exists()
    capsys.readouterr()
    assert main(["run", exp, "--dry-run", "--seed", "1"]) == 0
    assert "echo v=2 '1; touch pwned'" in capsys.readouterr().out  # the command as run


def test_argv_commands_and_env_are_not_quoted(tmp_path):
    e = parse_experiment(
        f'[factors]\nn = ["{EVIL}"]\n[alternatives."my alt"]\n'
        'command = ["echo", "{n}", "{alternative}", "{n:raw}"]\nenv = { N = "{n}" }\n'
        '[alternatives.b]\nshell = true\ncommand = "echo {alternative} {n}"\n',
        write(tmp_path, ""))
    trials = {t.alternative: t for t in make_plan(e, seed=1)}
    assert command_for(e, trials["my alt"]).argv == ("echo", EVIL, "my alt", EVIL)
    assert env_for(e, trials["my alt"]) == {"N": EVIL}
    assert command_for(e, trials["b"]) == Command(("echo b '1; touch pwned'",), True)


def test_an_unknown_placeholder_format_is_an_error(tmp_path):
    with pytest.raises(InputError, match=r"exp\.toml:5: unknown placeholder format \{n:quoted\} "
                                         r"\(only \{n:raw\}"):
        parse_experiment('shell = true\n[factors]\nn = [1]\n[alternatives.a]\n'
                         'command = "echo {n:quoted}"\n', write(tmp_path, "x"))

"""Exit codes mean one thing each: a crash is 3 with one line, never the gate's 1."""

from __future__ import annotations

import os

import pytest

from benchlab.cli import compare as compare_cli
from benchlab.cli.main import EXIT_GATE, EXIT_INTERNAL, EXIT_USAGE, main


@pytest.fixture
def crashing_compare(monkeypatch, tmp_path):
    def boom(args):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(compare_cli, "run", boom)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("BENCHLAB_TRACEBACK", raising=False)
    return tmp_path


def test_internal_error_is_exit_3_one_line_traceback_saved(crashing_compare, capsys, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1\n2\n3\n")
    b.write_text("1\n2\n3\n")
    code = main(["compare", str(a), str(b), "--fail-on", "change"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL != EXIT_GATE
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("benchlab: internal error (ZeroDivisionError: float division by zero)")
    assert "please report" in err
    saved = err.rsplit("traceback saved in ", 1)[1].strip()
    assert saved.startswith(str(crashing_compare)) and os.path.exists(saved)
    text = open(saved, encoding="utf-8").read()
    assert "Traceback (most recent call last)" in text and "boom" in text
    assert "command: benchlab compare" in text


def test_traceback_printed_when_asked(crashing_compare, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHLAB_TRACEBACK", "1")
    a = tmp_path / "a.txt"
    a.write_text("1\n2\n")
    assert main(["compare", str(a), str(a)]) == EXIT_INTERNAL
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_usage_error_is_2(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["compare", "--no-such-option"])
    assert stop.value.code == EXIT_USAGE
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("text, expected", [("95", 0.95), ("95%", 0.95), ("0.95", 0.95),
                                             ("50", 0.5), ("0.9999", 0.9999), ("99", 0.99)])
def test_confidence_levels_accepted(text, expected):
    from benchlab.cli.common import confidence

    assert confidence(text) == pytest.approx(expected)


@pytest.mark.parametrize("text", ["1", "1%", "0.3", "30", "99.999", "100", "120", "0", "-95",
                                  "nan", "inf", "0.99%"])
def test_confidence_levels_refused(text):
    from benchlab.cli.common import confidence
    from benchlab.errors import UsageError

    with pytest.raises(UsageError, match="between 50% and 99.99%"):
        confidence(text)


def test_command_list_is_what_the_modules_register():
    """cli/commands.py lists each command's help for `benchlab --help` without importing its
    module: the list must be what the modules register, in the same order, one each."""
    import argparse

    from benchlab.cli.commands import COMMANDS
    from benchlab.cli.main import build_parser

    parser = build_parser(every_command=True)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert [(a.dest, a.help) for a in sub._choices_actions] == \
        [(name, text) for name, _, text in COMMANDS]
    assert list(sub.choices) == [name for name, _, _ in COMMANDS]
    assert all(p.format_help().count("\n") > 3 for p in sub.choices.values())


def test_a_command_is_built_when_chosen(capsys):
    """`benchlab --help` builds no command's options; a command parsed builds its own, and
    lists its options in its help as before."""
    from benchlab.cli.main import build_parser

    parser = build_parser()
    assert "profile-diff" in parser.format_help() and "--resume" not in parser.format_help()
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(["run", "--help"])
    assert stop.value.code == 0
    assert "--resume" in capsys.readouterr().out
    args = parser.parse_args(["summary", "x.txt"])
    assert args.command == "summary" and callable(args.run)

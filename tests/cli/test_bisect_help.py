"""`benchlab bisect --help` and `history bisect --help` say what the code does (the default
worker machine of `history bisect --cluster`, as docs/bisect.md "history bisect on a cluster"
says), and every command's examples read as a shell takes them."""

from __future__ import annotations

import argparse
import re


def _help(run_cli, *command: str) -> str:
    _, out, _ = run_cli(*command, "--help", expect=0)
    return out


def test_history_bisect_names_its_default_worker_machine(run_cli):
    """With --machine, its machine (where the change was seen); without, the one machine
    connected (it is not the series' machine then: local:1's worker is named "local")."""
    words = " ".join(_help(run_cli, "history", "bisect").split())
    assert ("--cluster-machine NAME with --cluster: the machine whose worker builds and "
            "measures (needed when several are connected); default: the machine --machine "
            "names, where the change was seen; without --machine, the one machine "
            "connected") in words



def _parsers(parser: argparse.ArgumentParser, name: str = "benchlab"):
    """(command, parser) of `parser` and of every subcommand under it."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {word}")


def test_examples_continue_their_lines(run_cli):
    """An example's long command goes on after a backslash on an indented line: a
    backslash-newline inside the Python string would join the lines with a run of spaces
    (bisect's and plan's did). Every command's examples, bisect's as --help prints them."""
    from benchlab.cli.main import build_parser

    epilogs = {name: p.epilog or "" for name, p in _parsers(build_parser(every_command=True))}
    assert "--cluster tcp://" in epilogs["benchlab bisect"]
    epilogs["benchlab bisect --help"] = _help(run_cli, "bisect").split("examples:", 1)[1]
    for name, epilog in epilogs.items():
        lines = epilog.splitlines()
        for line, after in zip(lines, [*lines[1:], ""], strict=True):
            assert not re.search(r"\S {2,}-", line), (name, line)
            if line.endswith(" \\"):
                assert after.startswith("      ") and after.strip(), (name, line, after)

"""`benchlab completion bash|zsh|tcsh|fish`: print a shell's completion script, generated
from the argument parser itself, so it cannot fall behind the options.

Every script comes from shtab (https://github.com/iterative/shtab), which reads an
argparse parser and writes a static script: subcommands, options, `choices` (so
`--format` offers text, markdown, ...) and the arguments marked as files below. shtab
writes fish too (since 1.13), with its own scan that skips options' values, so all four
shells share one generator; argcomplete, the other well-kept choice, would instead run
benchlab (building every command's parser) on each Tab press and hook into `main`.
shtab is imported only here, so `benchlab --help` does not pay for it. How to install
each script: docs/completion.md.

The scripts leave out `completion` itself: it is typed once, when installing, and
without it `benchlab com<Tab>` completes to `compare`, the command typed every day.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator

from benchlab.errors import UsageError

SHELLS = ("bash", "zsh", "tcsh", "fish")

# Which arguments name files: benchlab spells a file's metavar FILE or STORE, and its
# positional inputs files/file/experiment/store (tests/cli/test_completion.py checks
# that every value-taking argument of these names gets file completion).
# DB: a history, a SQLite file unless a postgresql:// URL is typed, so files are offered
FILE_METAVARS = frozenset({"FILE", "STORE", "DB", "EXPERIMENT|STORE", "EXPERIMENT | CMD"})
FILE_DESTS = frozenset({"files", "file", "experiment", "store"})

EXAMPLE = """examples:
  source <(benchlab completion bash)                        # this bash session
  benchlab completion bash > ~/.local/share/bash-completion/completions/benchlab
  benchlab completion zsh > ~/.zfunc/_benchlab              # with fpath=(~/.zfunc $fpath)
  benchlab completion fish > ~/.config/fish/completions/benchlab.fish
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "completion", help="print a shell completion script (bash, zsh, tcsh, fish)",
        description="Print the completion script of SHELL for benchlab, generated from its\n"
                    "argument parser: commands, options, the values of options with a fixed\n"
                    "set (--format, --statistic, ...) and file names where a file is meant.\n"
                    "Installing it: docs/completion.md; the man page: man/benchlab.1.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shell", choices=SHELLS, metavar="SHELL",
                   help="the shell to write the script for: " + ", ".join(SHELLS))
    p.set_defaults(run=run)


def names_a_file(action: argparse.Action) -> bool:
    """Whether `action` takes a file name (so the shell offers the files in the directory)."""
    if action.nargs == 0 or action.choices:
        return False
    return action.metavar in FILE_METAVARS or (action.metavar is None
                                                and action.dest in FILE_DESTS)


def mark_files(parser: argparse.ArgumentParser, complete: dict[str, str]) -> None:
    """Give every file argument of `parser` and of its subcommands shtab's `complete`
    attribute (its file completer), which is how shtab learns what a file is."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in dict.fromkeys(action.choices.values()):  # aliases once
                mark_files(command, complete)
        elif names_a_file(action):
            action.complete = complete  # type: ignore[attr-defined]


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of `shell` for `parser`: its file arguments marked, the
    `completion` command left out (see the module's docstring)."""
    try:
        import shtab
    except ModuleNotFoundError:  # a dependency of benchlab: only a broken install lacks it
        raise UsageError("completion scripts need shtab: python3 -m pip install shtab"
                         ) from None
    mark_files(parser, shtab.FILE)
    with _without_command(parser, "completion"):
        return shtab.complete(parser, shell)


@contextlib.contextmanager
def _without_command(parser: argparse.ArgumentParser, name: str) -> Iterator[None]:
    """`parser` with its subcommand `name` taken out for the duration (then put back)."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    command = sub.choices.pop(name)
    listed = [a for a in sub._choices_actions if a.dest == name]
    for action in listed:
        sub._choices_actions.remove(action)
    try:
        yield
    finally:
        sub.choices[name] = command
        sub._choices_actions.extend(listed)


def run(args: argparse.Namespace) -> int:
    from benchlab.cli.commands import load_all

    sys.stdout.write(script(load_all(args.parser), args.shell))
    return 0

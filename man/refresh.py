"""Write man/benchlab.1, benchlab's man page, from its argument parser with argparse-manpage.

    python3 man/refresh.py            # rewrite man/benchlab.1 (after changing any option)
    python3 man/refresh.py --check    # exit 1 if man/benchlab.1 is out of date

The page is committed, so a fresh clone has it (`man -l man/benchlab.1`) and
`pip install .` puts it in share/man/man1 (pyproject's data-files) without running
anything at build time; argparse-manpage is needed only here (the `test` extra).
tests/test_man_page.py fails, naming the first command above, when the parser has
changed and the page has not. argparse's layout differs between Python versions (and
the generator's between its own), so the page records the versions that wrote it and
the byte-for-byte check runs with those only; with any other, `names_everything` still
checks that every command, option, choice and help text of the parser is in the page.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "man" / "benchlab.1"
COMMAND = "python3 man/refresh.py"
WIDTH = 70  # argparse's wrapping width: usage lines then fit an 80-column man page
_TH = re.compile(r'^\.TH (\S+) "(\d+)" "([^"]*)"', re.M)
_MADE_BY = re.compile(r"^\.\\\" made by man/refresh\.py with (.+)$", re.M)

EXIT_STATUS = r""".TP
\fB0\fR
success: the analysis ran (whatever its verdict), the file was written
.TP
\fB1\fR
a gate tripped: \fB\-\-fail\-on\fR, \fBenv \-\-strict\fR, a \fBrun\fR whose trials failed
.TP
\fB2\fR
bad usage or input, one line on standard error naming the file and line
.TP
\fB3\fR
an internal error (a bug): one line, the traceback saved to a file
.TP
\fB130\fR
interrupted"""

SEE_ALSO = r"""The pages in the \fIdocs/\fR folder of benchlab's sources: one per command, with
real example output and the keys of its JSON document; \fIdocs/STATS.md\fR for the
statistics; \fIdocs/completion.md\fR for shell completion
(\fBbenchlab completion\fR)."""


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps help at $COLUMNS: the page must not depend on the terminal."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before


def parser() -> argparse.ArgumentParser:
    """benchlab's parser, its list of commands titled "commands" (argparse says
    "positional arguments")."""
    sys.path.insert(0, str(ROOT))  # this checkout's benchlab, not an installed one
    try:
        from benchlab.cli.main import build_parser
    finally:
        sys.path.remove(str(ROOT))
    built = build_parser(every_command=True)
    for group in built._action_groups:
        if any(isinstance(a, argparse._SubParsersAction) for a in group._group_actions):
            group.title = "commands"
    return built


def page(date: str) -> str:
    """The man page's text, dated `date`."""
    from argparse_manpage.manpage import Manpage

    with _columns(WIDTH):
        built = parser()
        from benchlab.version import __version__  # this checkout's, as parser() found it

        manpage = Manpage(built, {"project_name": "benchlab", "version": __version__,
                                  "date": date, "manual_title": "benchlab manual",
                                  "description": "rigorous computer performance experiments"},
                          format="single-commands-section")
        manpage.add_section("exit status", "=", EXIT_STATUS)
        manpage.add_section("see also", "=", SEE_ALSO)
        text = str(manpage)
    return (f'.\\" Generated from benchlab\'s argument parser; do not edit: run {COMMAND}\n'
            f".\\\" made by man/refresh.py with {tools()}\n" + text)


def dated(text: str) -> str | None:
    """The date in a page's .TH line, or None."""
    found = _TH.search(text)
    return found.group(3).replace("\\-", "-") if found else None


def tools() -> str:
    """The versions the page's layout depends on: Python's argparse (major.minor) and
    argparse-manpage."""
    from importlib.metadata import version

    return (f"Python {sys.version_info.major}.{sys.version_info.minor}, "
            f"argparse-manpage {version('argparse-manpage')}")


def made_with(text: str) -> str | None:
    """What wrote a page (as `tools()` says it), or None."""
    found = _MADE_BY.search(text)
    return found.group(1) if found else None


def current(committed: str) -> str:
    """What the page should be now, with the committed page's date (a page is out of date
    when anything but its date differs)."""
    return page(dated(committed) or _today())


def names_everything(text: str) -> list[str]:
    """What the parser has that `text` (a page) does not say: each command's section
    (`.SS benchlab CMD`) with its option strings in bold, its choices, its help texts and
    its description, as argparse-manpage escapes them. Empty when all are in."""
    sections = _sections(text)
    missing = []

    def need(what: str, path: str, bold: bool = False) -> None:
        spelled = " ".join(_escaped(what).split())
        if (rf"\fB{spelled}\fR" if bold else spelled) not in sections.get(path, ""):
            missing.append(f"{path}: {what!r}")

    def walk(p: argparse.ArgumentParser, path: str) -> None:
        formatter = p._get_formatter()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, command in action.choices.items():
                    walk(command, f"{path} {name}")
                continue
            if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                continue  # argparse-manpage leaves out -h/--help and hidden options
            for option in action.option_strings:
                need(option, path, bold=True)
            for choice in action.choices or ():
                need(str(choice), path)
            if action.help and action.help != argparse.SUPPRESS:
                need(formatter._expand_help(action), path)
        if p.description:
            need(p.description, path)

    with _columns(WIDTH):
        walk(parser(), "benchlab")
    return missing


def _sections(text: str) -> dict[str, str]:
    """Each command's part of a page by its name ("benchlab compare"), whitespace made
    single spaces; "benchlab" is the whole page (its own options come last)."""
    parts = {"benchlab": " ".join(text.split())}
    for chunk in re.split(r"^(?=\.S[SH] )", text, flags=re.M):
        heading = re.match(r"\.SS \\fB(.+?)\\fR", chunk)
        if heading:
            parts[heading.group(1).replace("\\-", "-")] = " ".join(chunk.split())
    return parts


def _escaped(text: str) -> str:
    """`text` as roff source spells it (argparse-manpage escapes backslashes and hyphens)."""
    return text.replace("\\", "\\\\").replace("-", "\\-")


def _today() -> str:
    """Today (UTC), or SOURCE_DATE_EPOCH's day for a reproducible build."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch
              else datetime.datetime.now(datetime.timezone.utc))
    return moment.strftime("%Y-%m-%d")


def main(argv: list[str]) -> int:
    check = "--check" in argv
    committed = PAGE.read_text(encoding="utf-8") if PAGE.exists() else ""
    wanted = current(committed) if committed else page(_today())
    if wanted == committed:
        return 0
    if check:
        print(f"{PAGE.relative_to(ROOT)} is out of date: run {COMMAND}", file=sys.stderr)
        return 1
    if committed:  # something changed: the page carries the day it was made
        wanted = page(_today())
    PAGE.write_text(wanted, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

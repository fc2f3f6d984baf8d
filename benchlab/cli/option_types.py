"""argparse `type=` functions for counts and seeds: a bad value is a usage error naming the
option, never a traceback from numpy and never blamed on an input file.

argparse reports an ArgumentTypeError as "argument --seed: ..." with exit code 2,
through the command's one-line usage message.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable


def _integer(text: str, what: str) -> int:
    try:
        return int(text.strip().replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r} ({what})") from None


def seed(text: str) -> int:
    """A random seed: a whole number 0 or more (numpy's generators refuse negative seeds)."""
    value = _integer(text, "a seed is a whole number, 0 or more")
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be 0 or more, not {value}")
    return value


def count(minimum: int, what: str) -> Callable[[str], int]:
    """A whole number at least `minimum`, e.g. count(100, "bootstrap replicates")."""

    def parse(text: str) -> int:
        value = _integer(text, f"{what}, at least {minimum}")
        if value < minimum:
            raise argparse.ArgumentTypeError(f"needs at least {minimum} {what}, not {value}")
        return value

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def text(value: str) -> str:
    """A name given on the command line (a commit, a branch, a machine): it is stored and
    printed, so bytes that are not UTF-8 (Python holds them as lone surrogates, which no
    UTF-8 stream or SQLite text takes) are refused here rather than deep in SQLite."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        from benchlab.data.source import display_name

        raise argparse.ArgumentTypeError(f"'{display_name(value)}' is not UTF-8 text") from None
    return value


def regex(text: str) -> re.Pattern[str]:
    """A regular expression (Python's `re`), compiled: a bad one is a one-line usage error
    saying what is wrong and where, before anything is read."""
    try:
        return re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({exc})"
                                         ) from None

"""`benchlab` entry point: dispatch to one module per command; errors become one line, exit 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from benchlab import __version__
from benchlab.errors import BenchlabError

COMMAND_MODULES = ("benchlab.cli.compare", "benchlab.cli.summary", "benchlab.cli.plan",
                   "benchlab.cli.design", "benchlab.cli.test", "benchlab.cli.qreg",
                   "benchlab.cli.run", "benchlab.cli.env", "benchlab.cli.export",
                   "benchlab.cli.anova")


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line and exit code 2 (its own default is 2 too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"benchlab: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="benchlab",
        description="A laboratory for rigorous computer performance experiments.",
        epilog="example: benchlab compare examples/kamp/current.txt examples/kamp/buf_work.txt "
               "--unit s",
    )
    parser.add_argument("--version", action="version", version=f"benchlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=_Parser)
    import importlib

    for module in COMMAND_MODULES:
        importlib.import_module(module).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    from benchlab.cli.compare import prepare_argv

    argv = prepare_argv(list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return int(args.run(args))
    except BenchlabError as exc:
        print(f"benchlab: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("benchlab: interrupted", file=sys.stderr)
        return 130

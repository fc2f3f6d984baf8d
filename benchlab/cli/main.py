"""`benchlab` entry point: dispatch to one module per command; every failure is one line.

Exit codes mean one thing each, for every command (docs/exit-codes.md): 0 success,
1 a gate tripped (`--fail-on`, `env --strict`, a `run` whose trials failed), 2 bad
usage or input, 3 an internal error (a bug: one line, the traceback saved to a
file), 130 interrupted. A crash must never look like a tripped gate to CI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from benchlab.cli import commands
from benchlab.errors import BenchlabError
from benchlab.version import __version__

EXIT_OK, EXIT_GATE, EXIT_USAGE, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130



class _Parser(argparse.ArgumentParser):
    """argparse with usage errors as one line and exit code 2 (its own default is 2 too)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"benchlab: {message} (see {self.prog} --help)\n")


def build_parser(every_command: bool = False) -> argparse.ArgumentParser:
    """benchlab's parser. A command's options are built when the command is parsed (its
    module imported then: cli/commands.py); `every_command` builds them all at once, for
    what reads them (completion scripts, the man page)."""
    parser = _Parser(
        prog="benchlab",
        description="A laboratory for rigorous computer performance experiments.",
        epilog="example: benchlab compare examples/kamp/current.txt examples/kamp/buf_work.txt "
               "--unit s",
    )
    parser.add_argument("--version", action="version", version=f"benchlab {__version__}")
    commands.add_all(parser, _Parser)
    if every_command:
        commands.load_all(parser)
    parser.set_defaults(parser=parser)  # for `completion`, which writes a script from it
    return parser


def main(argv: Sequence[str] | None = None,
         parser: argparse.ArgumentParser | None = None) -> int:
    """Run one command line; `parser` is one build_parser made already (a `run` printing
    its analysis passes its own: building every command's options again cost more than
    the rest of a short run's start)."""
    parser = parser or build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--bootstrap" in argv:  # compare's module only when its rewriting can apply
        from benchlab.cli.compare import prepare_argv

        argv = prepare_argv(argv)
    parser.set_defaults(argv=list(argv))  # the command line as given, for the JSON envelope
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    read = sys.modules.get("benchlab.data.source")  # streams a previous command (in this
    if read is not None:  # process: tests, notebooks) read are not this command's
        read.forget_streams()
    try:
        return int(args.run(args))
    except BenchlabError as exc:
        from benchlab.errors import ParameterError

        if isinstance(exc, ParameterError):
            exc.as_option()  # the library names its parameter; here the option is meant
        print(f"benchlab: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        print("benchlab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: one line and a saved traceback, never the gate's code
        return internal_error(exc, argv)


def internal_error(exc: BaseException, argv: Sequence[str]) -> int:
    """Report an unexpected exception as one line naming where its traceback was saved.

    BENCHLAB_TRACEBACK=1 prints the traceback too (for developers)."""
    import os
    import traceback

    from benchlab.conninfo import hidden

    text = hidden("".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), argv)
    saved = _save_traceback(text, [hidden(a, argv) for a in argv])
    what = hidden(str(exc), argv).strip().splitlines()
    kind = "out of memory" if isinstance(exc, MemoryError) else type(exc).__name__
    detail = f"{kind}: {what[0][:200]}" if what else kind
    where = f"traceback saved in {saved}" if saved else "traceback (it could not be saved)"
    if os.environ.get("BENCHLAB_TRACEBACK"):
        sys.stderr.write(text)
    print(f"benchlab: internal error ({detail}); please report it with the command line, "
          f"benchlab {__version__} and the {where}", file=sys.stderr)
    return EXIT_INTERNAL


def _save_traceback(text: str, argv: Sequence[str]) -> str | None:
    """The traceback, version and command line in a new file readable by this user alone
    (0600, in a 0700 directory: a command line may name private files); its path, or None."""
    import os
    import platform
    import tempfile
    import time

    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    body = (f"benchlab {__version__}, Python {platform.python_version()}, "
            f"{platform.platform()}\ncommand: benchlab {' '.join(argv)}\n\n{text}")
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    for folder in (os.path.join(cache, "benchlab", "crashes"),
                   os.path.join(tempfile.gettempdir(), f"benchlab-crashes-{os.getuid()}")):
        name = f"benchlab-crash-{stamp}-{os.getpid()}.txt"
        try:
            where = _private_folder(folder)
            try:
                fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                             dir_fd=where)
            finally:
                os.close(where)
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(body)
            return os.path.join(folder, name)
        except OSError:
            continue
    return None


def _private_folder(folder: str) -> int:
    """A descriptor of `folder`, made with mode 0700 or checked to be this user's own
    directory (not a symbolic link) and closed to others; OSError when it cannot be trusted
    (in a shared /tmp another user may have made it first: it is then never written into)."""
    import os
    import stat

    os.makedirs(os.path.dirname(folder), exist_ok=True)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        info = os.fstat(fd)
        if info.st_uid != os.getuid():
            raise PermissionError(f"{folder} belongs to another user")
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.fchmod(fd, 0o700)
    except BaseException:
        os.close(fd)
        raise
    return fd

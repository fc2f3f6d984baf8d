"""`benchlab ARGS` run in the test's own process with its output captured, for module
fixtures (which have no capsys; tests use conftest's run_cli)."""

from __future__ import annotations

import contextlib
import io


def main_output(*args: object) -> tuple[int, str, str]:
    """(exit code, standard output, standard error) of `benchlab ARGS` run in this process."""
    from benchlab.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()

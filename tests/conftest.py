"""Shared fixtures: paths of the reference data and a CLI runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def r_reference() -> dict:
    """Values computed by R (tests/fixtures/r/make_reference.R)."""
    return json.loads((FIXTURES / "r" / "reference.json").read_text())["cases"]


@pytest.fixture
def run_cli(capsys):
    """Run `benchlab ARGS...` in-process; returns (exit code, stdout, stderr). With
    `expect=CODE` it also asserts the exit code (showing standard error if it differs):
    a test that reads the output alone would pass when the command fails."""
    from benchlab.cli.main import main

    def run(*args: str, expect: int | None = None) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse's own exits (--help, usage errors)
            code = exc.code if isinstance(exc.code, int) else 2
        out = capsys.readouterr()
        if expect is not None:
            assert code == expect, (f"benchlab {' '.join(map(str, args))}: exit {code}, "
                                    f"expected {expect}\n{out.err}")
        return code, out.out, out.err

    return run

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
    """Run `benchlab ARGS...` in-process; returns (exit code, stdout, stderr)."""
    from benchlab.cli.main import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse's own exits (--help, usage errors)
            code = exc.code if isinstance(exc.code, int) else 2
        out = capsys.readouterr()
        return code, out.out, out.err

    return run

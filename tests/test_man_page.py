"""man/benchlab.1 is built from the argument parser (man/refresh.py), stays current with
it, renders with man(1), and is installed with the package (issue 22)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "man" / "benchlab.1"


@pytest.fixture(scope="module")
def refresh():
    spec = importlib.util.spec_from_file_location("man_refresh", ROOT / "man" / "refresh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def committed() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_page_is_current(refresh, committed):
    """Byte for byte (but its date) what the parser gives now, with the tools that wrote it:
    argparse lays help out differently in other Python versions."""
    if refresh.made_with(committed) != refresh.tools():
        pytest.skip(f"the page was made with {refresh.made_with(committed)}, this is "
                    f"{refresh.tools()}: test_page_names_every_option checks it here")
    assert refresh.current(committed) == committed, (
        f"man/benchlab.1 is out of date with the parser: run {refresh.COMMAND}")


def test_page_names_every_option(refresh, committed):
    missing = refresh.names_everything(committed)
    assert not missing, (f"man/benchlab.1 lacks what the parser has, run {refresh.COMMAND}: "
                         f"{missing[:5]}")


def test_the_check_catches_a_changed_option(refresh, committed):
    changed = committed.replace(r"\fB\-\-fail\-on\fR", r"\fB\-\-fail\-at\fR")
    assert changed != committed
    assert refresh.current(changed) != changed
    assert any("'--fail-on'" in line for line in refresh.names_everything(changed))


def test_man_renders_the_page():
    if shutil.which("man") is None:
        pytest.skip("man is not installed")
    env = {**os.environ, "MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"}
    done = subprocess.run(["man", "--warnings", "-l", str(PAGE)], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # groff's warnings (-ww) would be here
    text = done.stdout
    assert text.startswith("BENCHLAB(1)")
    for heading in ("NAME", "SYNOPSIS", "COMMANDS", "EXIT STATUS", "SEE ALSO"):
        assert f"\n{heading}\n" in text
    assert "benchlab compare" in text and "--format" in text and "--fail-on" in text


def test_the_page_is_installed_with_the_package():
    if sys.version_info < (3, 11):
        import tomli as tomllib
    else:
        import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["data-files"]["share/man/man1"] == ["man/benchlab.1"]

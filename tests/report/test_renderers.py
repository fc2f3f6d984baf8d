"""report/renderers.py: every module it names exists, and a missing one fails loudly."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass

import pytest

from benchlab.report import renderers
from benchlab.result import Result, render


def test_every_listed_module_exists():
    for name in renderers.EVERYTHING:
        assert importlib.util.find_spec(name) is not None, f"{name} is listed but missing"


def test_a_typo_in_families_is_an_error_not_silence(monkeypatch):
    """A misspelt module in FAMILIES raises ModuleNotFoundError on first render; it used to
    be skipped, leaving the type with no renderer (or the wrong one) and no word why."""

    @dataclass(frozen=True)
    class Probe(Result):
        value: int = 1

    monkeypatch.setitem(renderers.FAMILIES, Probe.__module__,
                        ("benchlab.report.no_such_formats",))
    with pytest.raises(ModuleNotFoundError, match="no_such_formats"):
        render(Probe(), "text")

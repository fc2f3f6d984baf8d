"""Every example in docs/ shows what the command prints today (docs/examples/refresh.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _refresh_module():
    spec = importlib.util.spec_from_file_location("refresh", DOCS / "examples" / "refresh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_examples_are_current(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    assert _refresh_module().refresh(text) == text, (
        f"docs/{page} is out of date: run python3 docs/examples/refresh.py")

"""The layers of docs/architecture.md: no module imports a layer above its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "benchlab"

BASE = {"errors", "units", "notation", "escape", "output_file", "result", "limits", "progress",
        "warnings_capture", "version", "sqlite_file"}
# Each layer and the layers it may import (docs/architecture.md, "Layers").
ALLOWED = {
    "base": {"base"},
    "stats": {"base", "stats"},
    "design": {"base", "stats", "design"},
    "runner": {"base", "stats", "design", "runner"},
    "data": {"base", "stats", "runner", "data"},
    "history": {"base", "stats", "design", "runner", "data", "history"},
    "report": {"base", "stats", "design", "runner", "data", "history", "report"},
    "api": {"base", "stats", "design", "runner", "data", "history", "report", "api"},
    "cli": {"base", "stats", "design", "runner", "data", "history", "report", "api", "cli"},
    "__main__": {"cli"},
    # benchlab/__init__.py: the version, and the API's names imported lazily on first use
    "package": {"base", "data", "api"},
}
# The one upward import, documented: rendering a result registers report's renderers.
EXCEPTIONS = {("benchlab/result.py", "benchlab.report.renderers")}


def layer_of(module: str) -> str:
    """'benchlab.stats.fieller' -> 'stats'; 'benchlab.errors' -> 'base'."""
    parts = module.split(".")
    if len(parts) == 1 or module == "benchlab.__init__":
        return "package"
    name = parts[1]
    if name in BASE:
        return "base"
    return name


def imports(path: Path) -> list[str]:
    """Every benchlab module `path` imports, at any depth of the file (lazy imports too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "benchlab":
                found.extend(f"benchlab.{a.name}" for a in node.names)
            elif node.module.startswith("benchlab."):
                found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.startswith("benchlab"))
    return found


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)


FILES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_upward_import(path):
    here = layer_of(module_name(path))
    assert here in ALLOWED, f"{path}: layer {here!r} is not in docs/architecture.md"
    rel = str(path.relative_to(PACKAGE.parent))
    wrong = [m for m in imports(path)
             if layer_of(m) not in ALLOWED[here] and (rel, m) not in EXCEPTIONS]
    assert not wrong, f"{rel} ({here}) imports {wrong}: a higher layer (docs/architecture.md)"


def test_the_checker_catches_an_upward_import(tmp_path):
    """The test above can fail: a stats module importing report/ is found."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from benchlab.report.text import render_text\n")
    assert [layer_of(m) for m in imports(bad)] == ["report"]
    assert "report" not in ALLOWED["stats"]


def test_every_top_level_module_has_a_layer():
    for path in PACKAGE.iterdir():
        name = path.stem
        if path.suffix == ".py" and name not in ("api", "__main__", "__init__"):
            assert name in BASE, f"benchlab/{path.name} is in no layer of docs/architecture.md"

"""The runner imports in one direction (docs/architecture.md): session → rounds → executors →
trial → execute, with no circle between its modules, and a Dask worker imports the trial and
what it needs, never the store, the round loop, the session or the driver."""

from __future__ import annotations

import ast
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "benchlab" / "runner"


def imports(path: Path) -> set[str]:
    """The runner modules `path` imports anywhere (top level or inside functions)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "benchlab.runner":
                out.update(alias.name for alias in node.names)
            elif node.module.startswith("benchlab.runner."):
                out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            out.update(alias.name.split(".")[2] for alias in node.names
                       if alias.name.startswith("benchlab.runner."))
    return out - {path.stem}


def graph() -> dict[str, set[str]]:
    modules = {p.stem for p in RUNNER.glob("*.py")}
    return {p.stem: imports(p) & modules for p in RUNNER.glob("*.py")}


def reachable(g: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in g[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_no_import_circle_in_the_runner():
    g = graph()
    circles = sorted(m for m in g if m in reachable(g, m))
    assert circles == [], f"modules on an import circle: {circles}"


def test_a_worker_imports_the_trial_and_not_the_driver():
    g = graph()
    assert "trial" in g["worker"]
    assert reachable(g, "worker").isdisjoint(
        {"store", "store_checks", "rounds", "session", "cluster"})
    assert reachable(g, "trial").isdisjoint({"store", "rounds", "session", "cluster", "worker"})


def test_the_round_loop_knows_no_cluster():
    g = graph()
    assert reachable(g, "rounds").isdisjoint({"cluster", "worker", "session"})

"""Every CLI test checks the exit code: a test that reads only the output of `run_cli` would
pass when the command fails. This reads the tests' source and lists every `run_cli(...)`
call whose code is never looked at: one neither given `expect=CODE` (the fixture asserts
it, tests/conftest.py) nor unpacked into a name that is read before it is assigned again,
nor indexed at [0], nor compared or passed on (`helper(*run_cli(...))`) as a whole."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _is_run_cli(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "run_cli")


def _reads_before_next_store(function: ast.AST, name: str, line: int) -> bool:
    """Whether `name`, bound on `line`, is read after it and before its next assignment."""
    stores = [n.lineno for n in ast.walk(function) if isinstance(n, ast.Name)
              and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno > line]
    until = min(stores, default=10 ** 9)
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               and line <= n.lineno <= until for n in ast.walk(function))


def _checked(call: ast.Call, parent: ast.AST, function: ast.AST) -> bool:
    if any(k.arg == "expect" for k in call.keywords):
        return True
    if isinstance(parent, ast.Subscript):
        index = parent.slice
        if isinstance(index, ast.Constant):
            return index.value == 0
        return isinstance(index, ast.Slice) and index.lower is None  # [:2], [::2]: with code
    if isinstance(parent, (ast.Compare, ast.Starred)):
        return True  # run_cli(...) == (0, ..., ...); helper(*run_cli(...)) gets the code too
    if isinstance(parent, (ast.Assign, ast.AnnAssign)):
        target = parent.targets[0] if isinstance(parent, ast.Assign) else parent.target
        first = target.elts[0] if isinstance(target, ast.Tuple) else target
        return (isinstance(first, ast.Name) and first.id != "_"
                and _reads_before_next_store(function, first.id, parent.lineno))
    return isinstance(parent, ast.Return)  # a helper's caller checks it


def unchecked_calls(source: str, filename: str) -> list[str]:
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if _is_run_cli(node) and parents.get(node) is not None:
                if not _checked(node, parents[node], function):
                    found.append(f"{filename}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_every_run_cli_call_checks_its_exit_code():
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if "fixtures" not in path.parts:
            found += unchecked_calls(path.read_text(encoding="utf-8"),
                                     str(path.relative_to(TESTS.parent)))
    assert not found, ("run_cli calls whose exit code no one checks (add expect=CODE):\n"
                       + "\n".join(found))


def test_the_check_sees_an_unchecked_call():
    text = '''
def test_a(run_cli):
    _, out, _ = run_cli("compare", "a", "b")
    code, out, _ = run_cli("compare", "a", "b")
    code, out, _ = run_cli("compare", "a", "b")
    assert code == 0
    doc = run_cli("compare", "a", "b", "--json")[1]
    run_cli("compare", "a", "b")
    assert run_cli("compare", "a", "b")[0] == 1
    assert run_cli("compare", "a", "b", expect=0)[1] == ""
'''
    found = sorted(int(line.split(":")[1]) for line in unchecked_calls(text, "t.py"))
    assert found == [3, 4, 7, 8]

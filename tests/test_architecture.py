"""The layers of docs/architecture.md: no module imports a layer above its own."""

from __future__ import annotations

import ast
import re
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


# A flag of the command line in a message: `--levels`, `-R` (not `a--b`, not "-1").
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[A-Za-z](?![\w-]))")


def _strings(node: ast.AST) -> list[str]:
    """The literal text of every string (and f-string part) under `node`."""
    return [n.value for n in ast.walk(node)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def flag_messages(source: str) -> list[tuple[int, str]]:
    """(line, text) of every literal naming a flag in an error raised by `source`: the
    exception of a `raise`, and what is given to `limits.check*` (which raises)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            parts = [node.exc]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id == "limits"
              and node.func.attr.startswith("check")):
            parts = [*node.args, *(k.value for k in node.keywords)]
        else:
            continue
        found.extend((node.lineno, text) for part in parts for text in _strings(part)
                     if FLAG.search(text))
    return found


@pytest.mark.parametrize("path", sorted((PACKAGE / "stats").glob("*.py")),
                         ids=lambda p: p.name)
def test_no_flag_names_in_stats_errors(path):
    """stats/ errors name parameters (ParameterError's `{param}`), never the command line's
    options: the same message serves the Python API, and the CLI says its option."""
    found = flag_messages(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name}: an error names a command-line flag: {found}"


def test_the_flag_checker_catches_a_flag():
    bad = ('def f(x):\n    if x:\n        raise ValueError("lower --bootstrap")\n'
           '    limits.check_memory(1, "what", "lower -R ")\n')
    assert [line for line, _ in flag_messages(bad)] == [3, 4]
    good = 'def f():\n    raise ParameterError("lower {param}", "bootstrap")\n'
    assert flag_messages(good) == []


def option_writes(source: str) -> list[int]:
    """Lines of `source` that write into parsed options: `args.X = ...` (also augmented
    and inside tuples), `setattr(args, ...)`, or a copy of them made to be changed
    (`copy(args)`, `argparse.Namespace(**vars(args))`)."""
    def writes(target: ast.AST) -> bool:
        if isinstance(target, (ast.Tuple, ast.List)):
            return any(writes(t) for t in target.elts)
        return (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                and target.value.id == "args")

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and any(writes(t) for t in node.targets):
            found.append(node.lineno)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and writes(node.target):
            found.append(node.lineno)
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            first = node.args[0] if node.args else None
            if name in ("setattr", "copy", "deepcopy") and isinstance(first, ast.Name) \
                    and first.id == "args":
                found.append(node.lineno)
            if name == "Namespace" and any("vars(args)" in ast.unparse(k.value)
                                           for k in node.keywords):
                found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", sorted((PACKAGE / "cli").glob("*.py")), ids=lambda p: p.name)
def test_no_writes_into_parsed_options(path):
    """The parsed options are read, never written: a command builds its analysis (an
    AnalysisSpec) and passes values on, so what a function sees is what the user said."""
    found = option_writes(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name}: writes into the parsed options at lines {found}"


def test_the_option_checker_catches_writes():
    bad = ("def f(args):\n    args.by = 'x'\n    args.n += 1\n    a, args.b = 1, 2\n"
           "    setattr(args, 'c', 1)\n    sub = copy(args)\n    args.d.append(1)\n"
           "    load(argparse.Namespace(**{**vars(args), 'by': 'x'}))\n")
    assert option_writes(bad) == [2, 3, 4, 5, 6, 8]

"""The layers of docs/architecture.md: no module imports a layer above its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "benchlab"

BASE = {"errors", "units", "notation", "escape", "output_file", "result", "limits", "progress",
        "conninfo",
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
    bad.write_text("def f():\n    from benchlab.report.compare.text import render_text\n")
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


# -- import circles and private names ------------------------------------------------------
def _module_of(path: Path) -> str:
    """'benchlab/report/__init__.py' -> 'benchlab.report'."""
    return module_name(path).removesuffix(".__init__")


MODULES = {_module_of(p): p for p in FILES}


def _type_checking(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and (getattr(test, "id", None) == "TYPE_CHECKING"
                                         or getattr(test, "attr", None) == "TYPE_CHECKING")


def _nodes(tree: ast.AST):
    """Every node of `tree` but those only type checkers see (`if TYPE_CHECKING:`)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            stack.extend(child.orelse if _type_checking(child) else [child])


def module_imports(name: str, source: str) -> tuple[set[str], list[tuple[str, str]]]:
    """The benchlab modules `source` (module `name`) imports at any depth, `from p import m`
    counting as importing module p.m when that is a module; and (module, name) of every
    private name (`_x`, not `__x__`) it imports from another module, or reads as an
    attribute of a module it imported (`hf._wrap`)."""
    found: set[str] = set()
    private: list[tuple[str, str]] = []
    aliases: dict[str, str] = {}
    for node in _nodes(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and (node.module == "benchlab" or node.module.startswith("benchlab.")):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                if sub in MODULES:
                    found.add(sub)
                    aliases[alias.asname or alias.name] = sub
                    continue
                found.add(node.module)
                if alias.name.startswith("_") and not alias.name.endswith("__") \
                        and node.module != name:
                    private.append((node.module, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("benchlab"):
                    found.add(alias.name)
                    if alias.asname:
                        aliases[alias.asname] = alias.name
    for node in _nodes(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and node.attr.startswith("_") \
                and not node.attr.endswith("__") and aliases[node.value.id] != name:
            private.append((aliases[node.value.id], node.attr))
    return found - {name}, private


def import_graph() -> dict[str, set[str]]:
    graph = {}
    for name, path in MODULES.items():
        found, _ = module_imports(name, path.read_text(encoding="utf-8"))
        graph[name] = {m for m in found if m in MODULES}
    return graph


def circles(graph: dict[str, set[str]], skip: set[tuple[str, str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    iterative), leaving out the edges in `skip`."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if (node, child) in skip:
                    continue
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
    return found


# The documented lookup (docs/architecture.md): rendering a result imports the registry.
RENDERER_LOOKUP = {("benchlab.result", "benchlab.report.renderers")}
# Circles not untangled yet. This list only shrinks: a new circle fails the test, and so
# does an entry here that is gone (remove it). There were 5 when this check began; none now.
KNOWN_CIRCLES: set[frozenset[str]] = set()
# Private names (`_x`) a module takes from another, not removed yet; the same rules.
# There were 43 when this check began; none now.
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str, str]] = set()


def test_no_import_circles():
    """No two modules import each other, directly or around a longer circle, lazy imports
    included (type-checking ones not): each module can be read, and tested, before the
    ones that import it."""
    found = set(circles(import_graph(), RENDERER_LOOKUP))
    new = [sorted(c) for c in found - KNOWN_CIRCLES]
    gone = [sorted(c) for c in KNOWN_CIRCLES - found]
    assert not new, f"import circles: {new}"
    assert not gone, f"these circles are gone: remove them from KNOWN_CIRCLES: {gone}"


def test_no_private_names_across_modules():
    """A module uses another's public names only: a `_name` is free to change with the
    module that defines it. A name two modules need is made public where it lives."""
    found = set()
    for name, path in MODULES.items():
        _, private = module_imports(name, path.read_text(encoding="utf-8"))
        found |= {(name, module, item) for module, item in private}
    new = sorted(found - KNOWN_PRIVATE_IMPORTS)
    gone = sorted(KNOWN_PRIVATE_IMPORTS - found)
    assert not new, f"private names imported across modules: {new}"
    assert not gone, f"no longer imported: remove from KNOWN_PRIVATE_IMPORTS: {gone}"


def test_the_circle_and_private_checkers_can_fail():
    """Both checks find what they are for: a circle of three, a private name imported or
    read from a module, and not the allowed lookup or a module's own names."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert sorted(map(sorted, circles(graph, {("f", "e")}))) == [["a", "b", "c"]]
    source = ("from benchlab.stats.bootstrap import _mean_replicates, percentile\n"
              "from benchlab.report import html_format as hf\n"
              "from benchlab.version import __version__\n"
              "if TYPE_CHECKING:\n    from benchlab.stats.compare import _hidden\n"
              "def f():\n    return hf._wrap(hf.esc('x'))\n")
    found, private = module_imports("benchlab.x", source)
    assert private == [("benchlab.stats.bootstrap", "_mean_replicates"),
                       ("benchlab.report.html_format", "_wrap")]
    assert found == {"benchlab.stats.bootstrap", "benchlab.report.html_format",
                     "benchlab.version"}
    own, none = module_imports("benchlab.stats.bootstrap", source.splitlines()[0])
    assert none == [] and own == set()


ISSUE = re.compile(r"\bissues?\s+#?\d+", re.IGNORECASE)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_tracker_numbers_in_the_code(path):
    """Comments and docstrings say why in words: the issue tracker is not in the
    repository, so "issue 12" tells a reader nothing."""
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if ISSUE.search(line)]
    assert not found, f"{path.name}: issue numbers at lines {found}"


def test_the_tracker_checker_catches_numbers():
    assert ISSUE.search("(issue 12, item 6)") and ISSUE.search("see Issue #41")
    assert not ISSUE.search("the issuer's key") and not ISSUE.search("an issue, 3 times")


STATISTIC_NAMES = {"mean", "median"}
STRATEGY_MODULE = PACKAGE / "stats" / "spec.py"


def _names_statistic(node: ast.AST) -> bool:
    """Whether an operand is something named statistic: `statistic`, `x.statistic`, or
    `getattr(x, "statistic", ...)`."""
    if isinstance(node, ast.Name):
        return "statistic" in node.id
    if isinstance(node, ast.Attribute):
        return "statistic" in node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id == "getattr" and len(node.args) >= 2:
        name = node.args[1]
        return isinstance(name, ast.Constant) and "statistic" in str(name.value)
    return False


def statistic_branches(source: str) -> list[int]:
    """Lines comparing something named statistic with "mean" or "median" (== or !=)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        if not any(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            continue
        named = any(isinstance(o, ast.Constant) and o.value in STATISTIC_NAMES
                    for o in operands)
        if named and any(_names_statistic(o) for o in operands):
            found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", [p for p in FILES if p != STRATEGY_MODULE],
                         ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_branches_on_a_statistic_name(path):
    """The statistic is a strategy (stats/spec.Statistic: its reducer, its words, its
    draws): code asks it (`statistic_of(result).ratios`) rather than comparing its name,
    so a third statistic is one new object, not a hunt through report/."""
    found = statistic_branches(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name}: compares a statistic's name at lines {found}"


def test_the_statistic_checker_catches_a_branch():
    assert statistic_branches('x = 1 if result.statistic == "median" else 2') == [1]
    assert statistic_branches('if "mean" != statistic:\n    pass') == [1]
    assert statistic_branches('of = getattr(r, "statistic", "mean") == "median"') == [1]
    assert statistic_branches('x = kind == "median"\ny = statistic == "max"') == []


# -- one layout for report/ (docs/architecture.md, "The layout of report/") ---------------
# The modules that serve a format for every result and lay out none of their own. A new
# one is a new format's machinery and is listed here and in the docs.
MACHINERY = {"__init__", "renderers", "numbers", "envelope", "csv_format", "markdown_format",
             "html_format", "html_page", "bmf_format"}
# Analyses rendered outside the registry (a byte-exact layout a command calls itself).
OUTSIDE_THE_REGISTRY = {"ministat"}
GENERIC = "benchlab.result.Result"


def report_part(module: str) -> str:
    """'benchlab.report.compare.text' -> 'compare'; 'benchlab.report' -> '__init__'."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def registrations(source: str) -> list[tuple[int, str, str]]:
    """(line, format, 'module.QualName' of the type) of every `@renders(format, Type...)`
    in `source`; a type named by an imported name is resolved through the import."""
    tree = ast.parse(source)
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for deco in node.decorator_list:
            if not (isinstance(deco, ast.Call) and getattr(deco.func, "id", None) == "renders"):
                continue
            fmt = deco.args[0].value if isinstance(deco.args[0], ast.Constant) else "?"
            for arg in deco.args[1:]:
                if isinstance(arg, ast.Constant):
                    kind = str(arg.value)
                elif isinstance(arg, ast.Name):
                    kind = names.get(arg.id, f"?{arg.id}")
                else:
                    kind = f"?{ast.unparse(arg)}"
                found.append((deco.lineno, fmt, kind))
    return found


def eager_imports(source: str) -> set[str]:
    """The benchlab modules `source` imports when it is imported (module-level statements)."""
    found = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("benchlab.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("benchlab."):
            found.add(node.module)
            found |= {f"{node.module}.{a.name}" for a in node.names}
    return found


def defining_modules(kind: str) -> list[str]:
    """The modules defining `kind` and its bases (what `renderers.load` looks up), or []
    when the name does not resolve."""
    import importlib

    module, _, name = kind.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError, ValueError):
        return []
    return [k.__module__ for k in cls.__mro__ if k is not object]


def layout_problems(sources: dict[str, str], formats: dict[str, tuple[str, ...]],
                    families: dict[str, tuple[str, ...]]) -> list[str]:
    """What breaks the layout of report/ among `sources` (module name -> source of every
    module under benchlab.report), against renderers.py's FORMATS and FAMILIES:

    - a module that is neither listed machinery, nor figures, nor of an analysis (the
      module or package FAMILIES names, or one rendered outside the registry);
    - FORMATS or FAMILIES naming a module that does not exist, FAMILIES naming a module
      that is not an analysis's, or keyed by a module that does not exist;
    - a renderer registered where `renderers.load(format, type)` does not import it (so it
      would be silently missing, or found only by luck);
    - machinery registering anything but the generic `Result`, a
      figure module registering another format, an unresolvable type.
    """
    analyses = {report_part(m) for mods in families.values() for m in mods} \
        | OUTSIDE_THE_REGISTRY

    def kind_of(module: str) -> str | None:
        part = report_part(module)
        if part in MACHINERY:
            return "machinery"
        if part == "figures":
            return "figures"
        return "analysis" if part in analyses else None

    problems = []
    for module in sorted(sources):
        if kind_of(module) is None:
            problems.append(f"{module}: neither machinery (MACHINERY) nor an analysis's "
                            "module (renderers.FAMILIES)")
    for table, entries in (("FORMATS", formats), ("FAMILIES", families)):
        for key, mods in entries.items():
            for m in mods:
                if m not in sources:
                    problems.append(f"{table}[{key!r}] names {m}, which does not exist")
                elif table == "FAMILIES" and kind_of(m) != "analysis":
                    problems.append(f"FAMILIES[{key!r}] names {m}, not an analysis's module")
    problems += [f"FAMILIES is keyed by {key}, which does not exist"
                 for key in families if key not in MODULES]

    def imported_by_load(fmt: str, kind: str) -> set[str]:
        todo = list(formats.get(fmt, ()))
        todo += [m for k in defining_modules(kind) for m in families.get(k, ())]
        seen: set[str] = set()
        while todo:
            m = todo.pop()
            if m not in seen and m in sources:
                seen.add(m)
                todo += [i for i in eager_imports(sources[m]) if i in sources]
        return seen

    for module, source in sorted(sources.items()):
        where = kind_of(module)
        for line, fmt, kind in registrations(source):
            at = f"{module}:{line} renders {fmt} of {kind}"
            if not defining_modules(kind):
                problems.append(f"{at}: the type does not resolve")
                continue
            if module not in imported_by_load(fmt, kind):
                problems.append(f"{at}: renderers.load({fmt!r}, ...) does not import it")
            if where == "machinery" and kind != GENERIC:
                problems.append(f"{at}: machinery renders only the generic Result; the "
                                "type's analysis module renders it")
            if where == "figures" and fmt != "figure":
                problems.append(f"{at}: report/figures/ registers figures only")
    return problems


def report_sources() -> dict[str, str]:
    return {name: path.read_text(encoding="utf-8") for name, path in MODULES.items()
            if name == "benchlab.report" or name.startswith("benchlab.report.")}


def test_report_is_in_one_layout():
    """report/ holds format machinery (listed above) and one module or package per analysis,
    which registers every format of its results where the renderer lookup finds it."""
    from benchlab.report import renderers

    sources = report_sources()
    problems = layout_problems(sources, renderers.FORMATS, renderers.FAMILIES)
    assert not problems, "report/ layout:\n" + "\n".join(problems)


def test_the_layout_checker_catches_a_bad_layout():
    """Each rule can fail: a module of no analysis, a renderer the lookup never imports,
    machinery laying out an analysis, a figure module with text, and lookups naming
    modules that are not there (or not an analysis's)."""
    sources = {
        "benchlab.report.renderers": "",
        "benchlab.report.csv_format": ('from benchlab.result import Result, renders\n'
                                       '@renders("csv", Result)\ndef f(r, c): ...\n'),
        "benchlab.report.compare.formats": (
            "from benchlab.stats.compare import CompareResult\n"
            '@renders("text", CompareResult)\ndef t(r, c): ...\n'
            '@renders("text", "benchlab.stats.anova.AnovaResult")\ndef a(r, c): ...\n'),
        "benchlab.report.suite_formats": "",
        "benchlab.report.html_format": ("from benchlab.stats.power import PowerReport\n"
                                        '@renders("html", PowerReport)\ndef h(r, c): ...\n'),
        "benchlab.report.figures.power": ("from benchlab.stats.power import PowerReport\n"
                                          '@renders("text", PowerReport)\ndef p(r, c): ...\n'
                                          '@renders("figure", Missing)\ndef q(r, c): ...\n'),
    }
    formats = {"csv": ("benchlab.report.csv_format",), "html": ("benchlab.report.html_format",),
               "figure": ("benchlab.report.figures.power",)}
    families = {"benchlab.stats.compare": ("benchlab.report.compare.formats",),
                "benchlab.stats.anova": ("benchlab.report.anova",),
                "benchlab.stats.power": ("benchlab.report.csv_format",),
                "benchlab.stats.no_such": ("benchlab.report.compare.formats",)}
    problems = layout_problems(sources, formats, families)
    expected = [
        "benchlab.report.suite_formats: neither machinery",
        "FAMILIES['benchlab.stats.anova'] names benchlab.report.anova, which does not exist",
        "FAMILIES['benchlab.stats.power'] names benchlab.report.csv_format, not an analysis",
        "FAMILIES is keyed by benchlab.stats.no_such",
        "compare.formats:4 renders text of benchlab.stats.anova.AnovaResult: "
        "renderers.load('text', ...) does not import it",
        "figures.power:2 renders text of benchlab.stats.power.PowerReport: "
        "renderers.load('text', ...) does not import it",
        "html_format:2 renders html of benchlab.stats.power.PowerReport: machinery",
        "figures.power:2 renders text of benchlab.stats.power.PowerReport: report/figures/",
        "figures.power:4 renders figure of ?Missing: the type does not resolve",
    ]
    for text in expected:
        assert any(text in p for p in problems), (text, problems)
    assert len(problems) == len(expected), problems
    good = {k: v for k, v in sources.items() if k in ("benchlab.report.renderers",
                                                     "benchlab.report.csv_format")}
    assert layout_problems(good, {"csv": ("benchlab.report.csv_format",)}, {}) == []

"""The result mix-in and the registry of renderers (docs/architecture.md).

Analyses (stats/, design/, runner/) return frozen dataclasses deriving from
`Result`; they know nothing of output. report/ registers one function per
format and result type with `@renders(format, ResultType)`, so the lower layers
never import the higher ones, yet every result prints as text (`str`), shows
as HTML in Jupyter, and gives its JSON document and a DataFrame.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

FORMATS = ("text", "markdown", "json", "csv", "html", "bmf")

_RENDERERS: dict[tuple[str, type | str], Callable[[Any, RenderContext], Any]] = {}


@dataclass(frozen=True)
class RenderContext:
    """What a renderer may need beyond the result: the command, its arguments, the
    inputs (path, SHA-256), notes to add, and display options."""

    command: str = ""
    argv: tuple[str, ...] = ()
    inputs: tuple[tuple[str, str | None], ...] = ()
    notes: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)

    def option(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)


def renders(fmt: str, *types: type | str) -> Callable:
    """Register the decorated function as the `fmt` renderer of `types`: classes, or their
    "module.QualName" (so a renderer module need not import what it renders until it
    runs)."""
    if fmt not in FORMATS and fmt not in ("rows", "figure"):
        raise ValueError(f"unknown format {fmt!r}")

    def register(function: Callable) -> Callable:
        for kind in types:
            _RENDERERS[(fmt, kind)] = function
        return function

    return register


def renderer(fmt: str, result: Any) -> Callable[[Any, RenderContext], Any]:
    """The renderer of `fmt` for `result`'s type or its nearest registered base class."""
    # The one upward import of the layers, made on first use and allowed by
    # tests/test_architecture.py: it registers the renderers this format and type need
    # (only those: start-up), so a result prints without its caller importing report/.
    import benchlab.report.renderers

    benchlab.report.renderers.load(fmt, type(result))
    for kind in type(result).__mro__:
        function = (_RENDERERS.get((fmt, kind))
                    or _RENDERERS.get((fmt, f"{kind.__module__}.{kind.__qualname__}")))
        if function is not None:
            return function
    raise LookupError(f"no {fmt} rendering for {type(result).__name__}")


def has_renderer(fmt: str, result: Any) -> bool:
    try:
        renderer(fmt, result)
    except LookupError:
        return False
    return True


def render(result: Any, fmt: str, context: RenderContext | None = None) -> Any:
    """`result` in format `fmt` (text, markdown, html, csv: str; json: a dict; rows: the
    tidy rows as a list of dicts)."""
    return renderer(fmt, result)(result, context or RenderContext())


class Result:
    """Mix-in of every frozen result object: renderings on request, none stored."""

    def __str__(self) -> str:
        return render(self, "text")

    def _repr_html_(self) -> str:
        """The result's HTML for Jupyter: a fragment (no <!DOCTYPE>, <html> or <head>: a
        notebook cell is no document) that carries its own inline style."""
        return render(self, "html", RenderContext(options={"fragment": True, "styled": True}))

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the command that makes this result."""
        return render(self, "json")

    def to_rows(self) -> list[dict[str, Any]]:
        """Tidy rows, one per estimate: what `--format csv` writes."""
        return render(self, "rows")

    def to_frame(self):
        """The tidy rows as a pandas DataFrame (pandas is imported only here)."""
        try:
            import pandas as pd
        except ModuleNotFoundError:
            raise ModuleNotFoundError("to_frame() needs pandas: python3 -m pip install "
                                      "'benchlab[pandas]'") from None
        return pd.DataFrame(self.to_rows())


def field_names(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The columns of tidy rows in first-seen order."""
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    return list(names)

"""Figures of every analysis: one matplotlib Figure per result, by type (docs/architecture.md).

A figure module registers `@renders("figure", ResultType)` functions that take
(result, context) and return a matplotlib Figure; `report/figures/style.py` is
the one style every figure uses. matplotlib is imported only when a figure is
asked for. `write_figure` saves by extension (PNG/SVG/PDF) through a temporary
file; `svg_text` gives the inline SVG that the HTML report embeds.
"""

from __future__ import annotations

import re
from typing import Any

from benchlab.errors import UsageError
from benchlab.result import RenderContext, has_renderer, render

FORMATS = (".png", ".svg", ".pdf")


def check_path(path: str, option: str = "--plot") -> None:
    """Refuse an extension the figure writer does not know (before any work is done)."""
    if not path.lower().endswith(FORMATS):
        raise UsageError(f"{option} {path}: say .png, .svg or .pdf")


def need_matplotlib() -> None:
    """A one-line error naming the extra to install when matplotlib is missing (it is not
    needed by anything but figures, so `pip install benchlab` leaves it out)."""
    try:
        import matplotlib  # noqa: F401
    except ModuleNotFoundError:
        raise UsageError("figures need matplotlib: python3 -m pip install 'benchlab[plot]'"
                         ) from None


def has_figure(result: Any) -> bool:
    return has_renderer("figure", result)


def make_figure(result: Any, context: RenderContext | None = None):
    """The matplotlib Figure of `result` (LookupError when its type has none)."""
    from benchlab.report.figures import style

    need_matplotlib()
    style.use()
    return render(result, "figure", context)


def write_figure(result: Any, path: str, context: RenderContext | None = None, *,
                 inputs: tuple[str, ...] = (), force: bool = False) -> None:
    """Draw `result` and save it to `path` atomically; the format from the extension."""
    check_path(path)
    need_matplotlib()
    import matplotlib.pyplot as plt

    from benchlab.output_file import replacing

    fig = make_figure(result, context)
    try:
        with replacing(path, inputs, force=force) as tmp:
            fig.savefig(tmp, format=path.lower().rsplit(".", 1)[-1],
                        metadata=_metadata(path))
    finally:
        plt.close(fig)


def _metadata(path: str) -> dict[str, Any] | None:
    """No date in the file: the same result gives the same bytes (SVG ids are salted by the
    style, PNG carries none)."""
    lowered = path.lower()
    if lowered.endswith(".svg"):
        return {"Date": None}
    if lowered.endswith(".pdf"):
        return {"CreationDate": None, "ModDate": None}
    return None


def svg_text(result: Any, context: RenderContext | None = None) -> str:
    """The figure of `result` as an SVG document (for embedding in HTML), its ids made its
    own (`unique_ids`): a page holds several figures."""
    import io

    import matplotlib.pyplot as plt

    fig = make_figure(result, context)
    try:
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
        return unique_ids(out.getvalue())
    finally:
        plt.close(fig)


# an id, or a reference to one: href="#x", xlink:href="#x", url(#x)
_ID_OR_REFERENCE = re.compile(r'(\bid="|href="#|url\(#)([^")]+)')


def unique_ids(svg: str) -> str:
    """`svg` with every id (and every reference to it) prefixed by one of the figure's own,
    from a hash of its text: matplotlib numbers ids per figure (axes_1, patch_1, ...) and
    salts its hashed ones with one salt, so two figures inline in one page repeat ids, and a
    reference may reach the other figure's element. The same figure keeps the same bytes."""
    import hashlib

    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if not ids:
        return svg
    prefix = "f" + hashlib.sha256(svg.encode()).hexdigest()[:10] + "-"
    return _ID_OR_REFERENCE.sub(
        lambda m: m.group(1) + prefix + m.group(2) if m.group(2) in ids else m.group(0), svg)

"""Text, Markdown, JSON and HTML of a store's comparison with the design it followed.

`benchlab compare STORE` analyses by the experiment's design (data/store_design.py)
and says so in one note line above the usual output; the JSON document gets a
`design` key (docs/compare.md, "Stores"). Everything else is the plain
comparison's or suite's rendering, reached through `stats.blocks.plain`.
"""

from __future__ import annotations

from typing import Any

from benchlab.escape import markdown as md
from benchlab.escape import terminal
from benchlab.result import RenderContext, render, renders
from benchlab.stats.blocks import Design, DesignedCompare, DesignedSuite, plain


def design_document(design: Design | None) -> dict[str, Any] | None:
    """The `design` key: how the store's structure was used."""
    if design is None:
        return None
    return {"note": design.note, "by": design.by, "benchmark": design.benchmark,
            "levels": list(design.levels), "blocks": design.blocks, "unit": design.unit,
            "pairs": design.pairs, "dropped_blocks": list(design.dropped),
            "notes": list(design.notes)}


@renders("text", DesignedCompare, DesignedSuite)
def designed_text(result, context: RenderContext) -> str:
    body = render(plain(result), "text", context)
    if result.design is None:
        return body
    notes = [result.design.note, *result.design.notes]
    return "".join(f"note: {terminal(n)}\n" for n in notes) + f"\n{body}"


@renders("markdown", DesignedCompare, DesignedSuite)
def designed_markdown(result, context: RenderContext) -> str:
    body = render(plain(result), "markdown", context)
    if result.design is None:
        return body
    notes = [result.design.note, *result.design.notes]
    return "\n\n".join(f"_note: {md(n)}_" for n in notes) + f"\n\n{body}"


@renders("json", DesignedCompare, DesignedSuite)
def designed_json(result, context: RenderContext) -> dict[str, Any]:
    return {**render(plain(result), "json", context), "design": design_document(result.design)}


@renders("html", DesignedCompare, DesignedSuite)
def designed_html(result, context: RenderContext) -> str:
    from html import escape

    body = render(plain(result), "html", context)
    if result.design is None:
        return body
    notes = [result.design.note, *result.design.notes]
    return "".join(f"<p class=\"note\">note: {escape(n)}</p>\n" for n in notes) + body

"""Text, CSV, Markdown, JSON and rows of a factorial design (`benchlab design`)."""

from __future__ import annotations

from typing import Any

from benchlab.design.factorial import Design
from benchlab.escape import markdown as md
from benchlab.result import RenderContext, renders


@renders("text", Design)
def design_text(design: Design, context: RenderContext) -> str:
    """The sign table when asked for (--sign-table), else the plan CSV, as the command
    has always printed."""
    from benchlab.report.design import plan_csv, sign_table_text

    return sign_table_text(design) if context.option("sign_table") else plan_csv(design)


@renders("csv", Design)
def design_csv(design: Design, context: RenderContext) -> str:
    """The plan CSV anova and qreg read (with its `# factor` level-order lines)."""
    from benchlab.report.design import plan_csv

    return plan_csv(design)


@renders("rows", Design)
def design_rows(design: Design, context: RenderContext) -> list[dict[str, Any]]:
    return design.rows()


@renders("markdown", Design)
def design_markdown(design: Design, context: RenderContext) -> str:
    from benchlab.report.design import describe

    columns = ["run", "id", *design.names, "replicate"]
    lines = [md(describe(design)), "", "| " + " | ".join(md(c) for c in columns) + " |",
             "|" + "|".join(" ---: " if c in ("run", "id", "replicate") else " --- "
                            for c in columns) + "|"]
    for r in design.runs:
        cells = [str(r.run), str(r.id), *(md(v) for v in r.levels), str(r.replicate)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

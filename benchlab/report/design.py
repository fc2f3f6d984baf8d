"""Every format of a factorial design (`benchlab design`, design/factorial.Design) but HTML:
the plan CSV, the sign table, a summary line, the JSON document, Markdown and tidy rows.

Its HTML comes from the generic renderer of the rows (report/html_format.py).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from benchlab.design.factorial import Design
from benchlab.escape import markdown as md
from benchlab.escape import spreadsheet_cell, terminal, terminal_lines
from benchlab.result import RenderContext, renders
from benchlab.version import __version__


def plan_csv(design: Design) -> str:
    """The plan as CSV text: run, id, the factor columns, replicate (the input of anova/qreg).

    `# factor NAME=L1,L2` comment lines first record each factor's level order, so
    anova and qreg code the first level -1 whatever order the runs come in. A level a
    spreadsheet would run as a formula is written guarded (escape.spreadsheet_cell) in
    both places, so the file still reads back consistently.
    """
    out = io.StringIO()
    for f in design.factors:
        out.write(f"# factor {f.name}={','.join(map(spreadsheet_cell, f.levels))}\n")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["run", "id", *map(spreadsheet_cell, design.names), "replicate"])
    for r in design.runs:
        writer.writerow([r.run, r.id, *map(spreadsheet_cell, r.levels), r.replicate])
    return out.getvalue()


def describe(design: Design) -> str:
    """'16 cells (2×2×2×2) × 5 replicates = 80 runs, random order (seed 7)'."""
    shape = "×".join(str(c) for c in design.level_counts)
    order = {"random": "random order", "blocks": "random order within each replicate",
             "standard": "standard (Yates) order"}[design.order]
    seed = f" (seed {design.seed})" if design.seed is not None else ""
    return (f"{design.n_cells} cells ({shape}) × {design.replicates} replicate"
            f"{'s' if design.replicates != 1 else ''} = {len(design.runs)} runs, {order}{seed}")


def sign_table_text(design: Design) -> str:
    """Jain's sign table: one row per cell in standard order, its levels, then ±1 columns.

    Factor names and levels show control characters escaped (`escape.terminal`).
    """
    matrix, letters = design.sign_table()
    cells = [[terminal(level) for level in cell] for cell in design.cells()]
    names = [terminal(n) for n in design.names]
    heads = ["cell", *names]
    widths = [max(len("cell"), len(str(len(cells))))]
    widths += [max(len(n), *(len(c[j]) for c in cells)) for j, n in enumerate(names)]
    sign_w = [max(2, len(x)) for x in letters]
    lines = ["  ".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)) + "  "
             + " ".join(x.rjust(w) for x, w in zip(letters, sign_w, strict=True))]
    for i, (cell, row) in enumerate(zip(cells, matrix, strict=True), start=1):
        left = [str(i).ljust(widths[0])]
        left += [c.ljust(w) for c, w in zip(cell, widths[1:], strict=True)]
        signs = [("+1" if s > 0 else "-1").rjust(w) for s, w in zip(row, sign_w, strict=True)]
        lines.append("  ".join(left) + "  " + " ".join(signs))
    legend = ", ".join(f"{chr(ord('A') + j)} = {n} ({f.levels[0]} -1, {f.levels[1]} +1)"
                       for j, (n, f) in enumerate(zip(design.names, design.factors,
                                                      strict=True)))
    return terminal_lines([*lines, "", legend]) + "\n"


def design_document(design: Design) -> dict[str, Any]:
    """The JSON document: factors, order, seed, runs and (2^k) the sign table."""
    doc: dict[str, Any] = {
        "benchlab_version": __version__,
        "command": "design",
        "design": "2^k full factorial" if design.two_level else "general full factorial",
        "factors": [{"name": f.name, "levels": list(f.levels)} for f in design.factors],
        "cells": design.n_cells,
        "replicates": design.replicates,
        "order": design.order,
        "seed": design.seed,
        "columns": ["run", "id", *design.names, "replicate"],
        "runs": [{"run": r.run, "id": r.id, "cell": r.cell + 1, "replicate": r.replicate,
                  "levels": dict(zip(design.names, r.levels, strict=True))}
                 for r in design.runs],
        "sign_table": None,
    }
    if design.two_level:
        matrix, letters = design.sign_table()
        doc["sign_table"] = {"columns": letters,
                             "rows": [[int(x) for x in row] for row in matrix]}
    return doc


@renders("json", Design)
def design_json(design: Design, context: RenderContext) -> dict[str, Any]:
    return design_document(design)


@renders("text", Design)
def design_text(design: Design, context: RenderContext) -> str:
    """The sign table when asked for (--sign-table), else the plan CSV, as the command
    has always printed."""
    return sign_table_text(design) if context.option("sign_table") else plan_csv(design)


@renders("csv", Design)
def design_csv(design: Design, context: RenderContext) -> str:
    """The plan CSV anova and qreg read (with its `# factor` level-order lines)."""
    return plan_csv(design)


@renders("rows", Design)
def design_rows(design: Design, context: RenderContext) -> list[dict[str, Any]]:
    return design.rows()


@renders("markdown", Design)
def design_markdown(design: Design, context: RenderContext) -> str:
    columns = ["run", "id", *design.names, "replicate"]
    lines = [md(describe(design)), "", "| " + " | ".join(md(c) for c in columns) + " |",
             "|" + "|".join(" ---: " if c in ("run", "id", "replicate") else " --- "
                            for c in columns) + "|"]
    for r in design.runs:
        cells = [str(r.run), str(r.id), *(md(v) for v in r.levels), str(r.replicate)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"

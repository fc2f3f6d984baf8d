"""What `history publish` prints: a line saying what the site holds and how many of its
files were written, kept and removed (text), or the same as a JSON document."""

from __future__ import annotations

import os
from typing import Any

from benchlab.escape import terminal
from benchlab.history.publish import Published
from benchlab.notation import plural
from benchlab.result import RenderContext, renders
from benchlab.version import __version__


@renders("text", Published)
def published_text(result: Published, context: RenderContext) -> str:
    index = os.path.join(result.directory, "index.html")
    checks = f" and {plural(result.checks, 'PR check')}" if result.checks else ""
    return (f"published {plural(result.series, 'series', 'series')} over "
            f"{plural(result.commits, 'commit')}{checks} to {terminal(index)}: analysed "
            f"{plural(result.analysed, 'series', 'series')}, wrote "
            f"{plural(len(result.written), 'file')}, kept {result.kept} unchanged, removed "
            f"{len(result.removed)}\n" + "".join(f"note: {terminal(n)}\n" for n in result.notes))


@renders("json", Published)
def published_json(result: Published, context: RenderContext) -> dict[str, Any]:
    return {"benchlab_version": __version__, "command": "history publish",
            "directory": result.directory, "series": result.series,
            "commits": result.commits, "checks": result.checks,
            "analysed": result.analysed,
            "written": list(result.written), "kept": result.kept,
            "removed": list(result.removed), "seed": result.seed,
            "threshold": result.threshold, "confidence": result.confidence,
            "notes": list(result.notes)}

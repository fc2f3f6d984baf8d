"""The JSON envelope every command's document shares (docs/architecture.md).

Provenance first — the schema version, benchlab's version, the command and its
arguments, the seed, every input with its SHA-256 — then the command's own keys
(unchanged: the keys each command documents keep their names), with notes from
the command line (unit conversions, ...) appended to the document's own.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from benchlab.result import RenderContext
from benchlab.version import __version__

SCHEMA_VERSION = 1
KEYS = ("schema", "benchlab_version", "command", "argv", "seed", "inputs", "notes", "warnings")


def file_sha256(path: str) -> str | None:
    """The SHA-256 of a file's bytes; None for standard input or what cannot be read."""
    if path in ("-", "") or not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def envelope(document: dict[str, Any], context: RenderContext) -> dict[str, Any]:
    """`document` inside the shared envelope."""
    out: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "benchlab_version": __version__,
        "command": context.command or document.get("command"),
        "argv": list(context.argv),
        "seed": document.get("seed"),
        "inputs": [{"path": path, "sha256": sha} for path, sha in context.inputs],
    }
    for key, value in document.items():
        if key not in ("benchlab_version", "command"):
            out[key] = value
    notes = list(document.get("notes", []))
    out["notes"] = notes + [n for n in context.notes if n not in notes]
    out.setdefault("warnings", [])
    caches = context.options.get("simulated_caches")  # a store's cache metric
    if caches:  # (data/simulated_caches.py): per store, the caches Valgrind simulated
        out["simulated_caches"] = caches
    cut = context.options.get("warmup_cut")  # --warmup auto (data/steady_state.py)
    if cut is not None:
        out["warmup_cut"] = cut.to_dict()
        out["warnings"] = [*out["warnings"], *cut.warnings]
    return out

"""Reader registry: each format is a module with `NAME`, `sniff(source)` and `read(source, **opts)`.

Adding a format is one new module and one line in READERS. Sniffing tries the
readers in order; `numbers` (ministat's plain files) is the fallback.
"""

from __future__ import annotations

from types import ModuleType

from benchlab.data.dataset import Dataset
from benchlab.data.readers import numbers, table
from benchlab.data.source import Source, open_source
from benchlab.errors import UsageError

READERS: dict[str, ModuleType] = {table.NAME: table, numbers.NAME: numbers}
ALIASES = {"csv": table.NAME, "tsv": table.NAME, "plain": numbers.NAME}


def reader_for(source: Source, format: str | None = None) -> ModuleType:
    """The reader module for `source`: the named format, else the first that sniffs it."""
    if format is not None:
        key = ALIASES.get(format, format)
        if key not in READERS:
            raise UsageError(f"unknown input format {format!r} (known: {', '.join(READERS)})")
        return READERS[key]
    for reader in READERS.values():
        if reader.sniff(source):
            return reader
    return numbers


def read(path: str, format: str | None = None, **opts: object) -> Dataset:
    """Read one input (a path or "-") into a Dataset, choosing the reader by content."""
    source = open_source(path)
    return reader_for(source, format).read(source, **opts)

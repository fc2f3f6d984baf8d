"""Reader registry: each format is a module with `NAME`, `sniff(source)` and `read(source, **opts)`.

Adding a format is one new module and one line in READERS. Sniffing tries the
readers in order; `numbers` (ministat's plain files) is the fallback. Modules
load on first use, so importing one reader does not import the others.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from benchlab.data.source import Source, open_source
from benchlab.errors import UsageError

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset

READERS: dict[str, str] = {
    "store": "benchlab.data.readers.store",
    "jmh": "benchlab.data.readers.jmh",
    "pyperf": "benchlab.data.readers.pyperf",
    "gbench": "benchlab.data.readers.gbench",
    "hyperfine": "benchlab.data.readers.hyperfine",
    "gotest": "benchlab.data.readers.gotest",
    "table": "benchlab.data.readers.table",
    "numbers": "benchlab.data.readers.numbers",
}
ALIASES = {"csv": "table", "tsv": "table", "plain": "numbers"}
DELIMITERS = {"csv": ",", "tsv": "\t"}  # formats that fix the table's delimiter


def load(name: str) -> ModuleType:
    """The reader module registered as `name`."""
    return importlib.import_module(READERS[name])


def reader_for(source: Source, format: str | None = None) -> ModuleType:
    """The reader module for `source`: the named format, else the first that sniffs it."""
    if format is not None:
        key = ALIASES.get(format, format)
        if key not in READERS:
            raise UsageError(f"unknown input format {format!r} (known: {', '.join(READERS)})")
        return load(key)
    for name in READERS:
        reader = load(name)
        if reader.sniff(source):
            return reader
    return load("numbers")


def read(path: str, format: str | None = None, **opts: object) -> Dataset:
    """Read one input (a path or "-") into a Dataset, choosing the reader by content."""
    source = open_source(path)
    if format in DELIMITERS:
        opts["delimiter"] = DELIMITERS[format]
    reader = reader_for(source, format)
    name = getattr(reader, "NAME", "another format")
    if opts.get("mode") is not None and name != "jmh":
        raise UsageError(f"--mode chooses among a JMH file's benchmark modes; this file is "
                         f"read as {name}", source.name)
    return reader.read(source, **opts)

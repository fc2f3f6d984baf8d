"""Reader registry: each format is a module with `NAME`, `sniff(source)` and `read(source, **opts)`.

Adding a format is one new module and one line in READERS. Sniffing tries the
readers in order; `numbers` (ministat's plain files) is the fallback, except
for JSON that no reader recognized, which is refused naming the formats read. Modules
load on first use, so importing one reader does not import the others.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import TYPE_CHECKING

from benchlab.data.source import Source, open_source
from benchlab.errors import InputError, UsageError

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset

READERS: dict[str, str] = {
    "store": "benchlab.data.readers.store",
    "jmh": "benchlab.data.readers.jmh",
    "pyperf": "benchlab.data.readers.pyperf",
    "gbench": "benchlab.data.readers.gbench",
    "hyperfine": "benchlab.data.readers.hyperfine",
    "pytest-benchmark": "benchlab.data.readers.pytestbench",
    "criterion": "benchlab.data.readers.criterion",
    "asv": "benchlab.data.readers.asv",
    "bmf": "benchlab.data.readers.bmf",
    "gotest": "benchlab.data.readers.gotest",
    "perf": "benchlab.data.readers.perfstat",
    "valgrind": "benchlab.data.readers.valgrind",
    "table": "benchlab.data.readers.table",
    "numbers": "benchlab.data.readers.numbers",
}
ALIASES = {"csv": "table", "tsv": "table", "plain": "numbers", "cachegrind": "valgrind",
           "callgrind": "valgrind"}
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
        if name in TEXT_READERS:
            unknown_json(source)
        reader = load(name)
        if reader.sniff(source):
            return reader
    return load("numbers")


TEXT_READERS = ("table", "numbers")  # the readers a JSON document must not fall through to
KNOWN_JSON = ("hyperfine (--export-json), pyperf (-o), Google Benchmark "
              "(--benchmark_format=json), JMH (-rf json), pytest-benchmark "
              "(--benchmark-json with --benchmark-save-data), Criterion.rs "
              "(target/criterion/**/new/sample.json), asv (results/<machine>/*.json), Bencher's "
              "BMF and perf stat -j")


def unknown_json(source: Source) -> None:
    """Refuse a JSON document that no reader recognized, naming the formats benchlab reads.

    A file that starts with `{`, or with `[` and parses as JSON, is JSON: read as a
    table or as numbers it would give "a header but no rows" or "'{}' is not a
    number". Invalid JSON that starts with `{` gets the JSON error with its line. So does
    any file named *.json that no reader recognized: its name says JSON, and "'garbage{'
    is not a number" would not say what is wrong with it.
    """
    from benchlab.data.readers import _foreign

    head = _foreign.prefix(source, 64).lstrip()
    named = source.name.lower().endswith(".json") and bool(head)
    if not named and not head.startswith(("{", "[")):
        return
    if named and not head.startswith("{"):
        doc = _named_json(source)
    elif head.startswith("["):
        import json

        try:
            doc = json.loads("\n".join(source.lines))
        except ValueError:
            return  # not JSON: a table or numbers file that starts with "["
        except RecursionError:
            raise InputError("invalid JSON: nested too deeply", source.name) from None
    else:
        doc = _foreign.load_json(source, "benchmark")
    raise InputError(f"{_describe(doc)}; benchlab reads the JSON of {KNOWN_JSON}, "
                     "and CSV/TSV, go test and plain-number files", source.name)


def _named_json(source: Source) -> object:
    """The document of a file named *.json; one that does not parse as JSON is refused,
    naming the line and what the parser found."""
    import json

    from benchlab.data.readers import _foreign

    try:
        json.loads("\n".join(source.lines))
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON, though its name ends in .json: {exc.msg} (line "
                         f"{exc.lineno}, column {exc.colno})",
                         f"{source.name}:{exc.lineno}") from None
    except (ValueError, RecursionError):
        pass  # too deep, or a giant integer: load_json says which
    return _foreign.load_json(source, "benchmark")


def _describe(doc: object) -> str:
    """What the unknown JSON document is, as far as can be told."""
    if doc == {} or doc == []:
        return f"an empty JSON {'object' if doc == {} else 'array'}, not benchmark results"
    if isinstance(doc, dict):
        keys = ", ".join(repr(k) for k in list(doc)[:4])
        return f"JSON of no known benchmark format (an object with keys {keys})"
    if isinstance(doc, list):
        return "JSON of no known benchmark format (an array)"
    return "JSON of no known benchmark format"


def read(path: str, format: str | None = None, **opts: object) -> Dataset:
    """Read one input (a path or "-") into a Dataset, choosing the reader by content.

    A directory is read as Criterion.rs results (`target/criterion`, or one benchmark's),
    or as the runs of one sample when its files are of a format with one run per file
    (cachegrind/callgrind out files, BMF).
    """
    if path != "-" and os.path.isdir(path) and format != "criterion":
        from benchlab.data.readers import criterion

        if format is not None or not criterion.is_results_dir(path):
            from benchlab.data.readers import runs

            dataset = runs.read_directory(path, lambda s: reader_for(s, format),
                                          named=format is not None, **opts)
            if dataset is not None:
                return dataset
    if path != "-" and os.path.isdir(path) and format in (None, "criterion"):
        from benchlab.data.readers import criterion

        if opts.get("mode") is not None:
            raise UsageError("--mode chooses among a JMH file's benchmark modes; this "
                             "directory is read as Criterion.rs results", path)
        return criterion.read_directory(path, **opts)
    source = open_source(path)
    if format in DELIMITERS:
        opts["delimiter"] = DELIMITERS[format]
    reader = reader_for(source, format)
    name = getattr(reader, "NAME", "another format")
    if opts.get("mode") is not None and name != "jmh":
        raise UsageError(f"--mode chooses among a JMH file's benchmark modes; this file is "
                         f"read as {name}", source.name)
    try:
        return reader.read(source, **opts)
    except InputError:
        if name == "numbers":
            _check_column(source, opts)
        raise


def _check_column(source: Source, opts: dict) -> None:
    """After a plain file gave no numbers: say so if -C asked for a column it does not have
    (rather than "no numbers found")."""
    column = opts.get("column", 1)
    if not isinstance(column, int) or column <= 1:
        return
    from benchlab.data.readers.numbers import DEFAULT_DELIMITERS, split_fields

    delimiters = str(opts.get("delimiters") or DEFAULT_DELIMITERS)
    widest = 0
    for line in source.lines:
        tokens = split_fields(line, delimiters)
        fields = next((k for k, t in enumerate(tokens) if t.startswith("#")), len(tokens))
        widest = max(widest, fields)  # tokens before a comment, as the reader counts them
    if widest < column:
        raise UsageError(f"-C {column}: the file has only {widest} column"
                         f"{'' if widest == 1 else 's'}", source.name)

"""A directory of result files, each one run, read as one sample (cachegrind, callgrind, BMF).

Valgrind writes one out file per execution (`cachegrind.out.<pid>`) and a BMF
document holds one value per benchmark, so a sample of runs is a directory of
files. Every regular file not starting with "." is read, in name order, by the
reader its content picks (or `format`); all must be of one format whose module
says `RUNS_PER_FILE`. The rows keep the file they came from (`file`) and its
number in that order (`run`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from benchlab.data.source import Source, display_name, open_source
from benchlab.errors import InputError

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset


def read_directory(path: str, reader_for: Callable[[Source], ModuleType], *,
                   named: bool = False, **opts: object) -> Dataset | None:
    """The files of `path` as the runs of one sample, each read by `reader_for(source)`'s
    module (`named`: the format was given); None when the first file is of no
    one-run-per-file format and none was named (so the caller can say what it expected)."""
    import numpy as np

    from benchlab.data.dataset import Dataset

    names = sorted(n for n in os.listdir(path)
                   if not n.startswith(".") and os.path.isfile(os.path.join(path, n)))
    parts: list[tuple[str, Dataset]] = []
    kind = None
    for name in names:
        file = os.path.join(path, name)
        source = open_source(file)
        reader = reader_for(source)
        if not getattr(reader, "RUNS_PER_FILE", False):
            if not parts and not named:
                return None
            raise InputError(f"{name} is read as {getattr(reader, 'NAME', 'another format')}, "
                             "not as a run of the directory's format (cachegrind/callgrind out "
                             "files or BMF, one run per file)", display_name(path))
        if kind is not None and reader.NAME != kind:
            raise InputError(f"{name} is {reader.NAME}, the files before it {kind}: a "
                             "directory of runs holds one format", display_name(path))
        kind = reader.NAME
        parts.append((name, reader.read(source, **opts)))
    if not parts:
        return None
    first = parts[0][1]
    columns: dict[str, np.ndarray] = {}
    for column in first.columns:
        for name, part in parts:
            if column not in part.columns:
                raise InputError(f"{name} has no {column!r} column, unlike "
                                 f"{parts[0][0]}", display_name(path))
        columns[column] = np.concatenate([part.columns[column] for _, part in parts])
    for name, part in parts:
        if part.metric != first.metric or part.unit != first.unit:
            raise InputError(f"{name} measures {part.metric!r}, {parts[0][0]} "
                             f"{first.metric!r}", display_name(path))
    count = [len(part) for _, part in parts]
    columns["file"] = np.repeat(np.array([n for n, _ in parts], dtype=object), count)
    columns["run"] = np.repeat(np.array([str(i) for i in range(1, len(parts) + 1)],
                                        dtype=object), count)
    return Dataset(columns, first.value, first.factors, first.levels, first.metric, first.unit,
                   display_name(path), None, first.default_by, first.ordered, first.synthetic)

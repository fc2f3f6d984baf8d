"""A store's measurements in long format: CSV, TSV or Parquet (`benchlab export`).

One row per measurement of a finished trial, warm-up included and flagged
(`warmup` 1/0) unless left out: alternative, the factor columns, case (when
there are factors), build, execution, iteration, warmup, metric, unit, value,
trial (the trial's position in the run order, the key of the store's trials
table). Parquet is written with pyarrow when it is installed.
"""

from __future__ import annotations

import csv
import sys
from typing import TextIO

from benchlab.errors import InputError, UsageError
from benchlab.escape import spreadsheet_cell
from benchlab.runner.store import Row, Store

FORMATS = ("csv", "tsv", "parquet")


def long_table(store_path: str, *, metric: str | None = None,
               warmup: bool = True) -> tuple[list[str], list[list]]:
    """(header, rows) of the store's measurements; `metric` None or "all" for every metric."""
    store = Store.open(store_path)
    try:
        names = [m for m, _ in store.metrics()]
        if metric not in (None, "all") and metric not in names:
            raise InputError(f"no metric {metric!r} in the store (metrics: {', '.join(names)})",
                             store_path)
        rows: list[Row] = store.rows(None if metric in (None, "all") else metric, warmup=warmup)
        factors = store.factor_names()
    finally:
        store.close()
    order = {m: i for i, m in enumerate(names)}
    # the store's order (baseline first, cells in the file's order, then build, execution,
    # iteration: time order within a cell), metrics in the experiment's order
    cells: dict[tuple, int] = {}
    for r in rows:
        cells.setdefault((r.alternative, r.factors), len(cells))
    rows.sort(key=lambda r: (cells[(r.alternative, r.factors)], r.build, r.execution,
                             r.iteration, order.get(r.metric, len(order))))
    header = ["alternative", *factors, *(["case"] if factors else []), "build", "execution",
              "iteration", "warmup", "metric", "unit", "value", "trial"]
    out = []
    for r in rows:
        levels = [v for _, v in r.factors]
        case = [" ".join([r.alternative, *(f"{k}={v}" for k, v in r.factors)])] if factors \
            else []
        out.append([r.alternative, *levels, *case, r.build, r.execution, r.iteration,
                    int(r.warmup), r.metric, r.unit, r.value, r.trial])
    return header, out


def format_for(path: str, requested: str | None) -> str:
    if requested is not None:
        return requested
    lowered = path.lower()
    for fmt in FORMATS:
        if lowered.endswith("." + fmt):
            return fmt
    if path == "-":
        return "csv"
    raise UsageError(f"cannot tell the format of {path!r} from its extension; use .csv, .tsv "
                     "or .parquet, or --format")


def write(header: list[str], rows: list[list], path: str, fmt: str,
          stdout: TextIO | None = None, *, inputs: tuple[str, ...] = (),
          force: bool = False) -> None:
    """Write the table to `path` ("-" for standard output, not for Parquet), through a
    temporary file; a store or one of `inputs` there is refused unless `force`."""
    from benchlab.output_file import replacing, writing

    delimiter = "\t" if fmt == "tsv" else ","
    if path == "-":
        if fmt == "parquet":
            _parquet(header, rows, path)  # refuses standard output
        _delimited(header, rows, stdout or sys.stdout, delimiter)
        return
    if fmt == "parquet":
        with replacing(path, inputs, force=force) as tmp:
            _parquet(header, rows, tmp)
        return
    with writing(path, inputs, force=force) as handle:
        _delimited(header, rows, handle, delimiter)


def _delimited(header: list[str], rows: list[list], handle: TextIO, delimiter: str) -> None:
    writer = csv.writer(handle, delimiter=delimiter, lineterminator="\n")
    writer.writerow([spreadsheet_cell(h) for h in header])
    for row in rows:
        writer.writerow([repr(v) if isinstance(v, float) else spreadsheet_cell(v) for v in row])


def _parquet(header: list[str], rows: list[list], path: str) -> None:
    if path == "-":
        raise UsageError("Parquet cannot go to standard output; give a file with -o")
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise UsageError("writing Parquet needs pyarrow (python3 -m pip install pyarrow); "
                         "CSV needs nothing") from None
    columns = {name: [row[j] for row in rows] for j, name in enumerate(header)}
    try:
        pq.write_table(pa.table(columns), path)
    except OSError as exc:
        raise InputError(f"cannot write: {exc}", path) from None

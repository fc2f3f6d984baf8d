"""asv (airspeed velocity) result files (`results/<machine>/<commit>-<env>.json`).

Layout, format version 2 (asv 0.5 and later): {"commit_hash", "env_name",
"date", "params": {machine...}, "python", "requirements", "env_vars",
"result_columns": ["result", "params", "version", "started_at", "duration",
"stats_ci_99_a", "stats_ci_99_b", "stats_q_25", "stats_q_75", "stats_number",
"stats_repeat", "samples", "profile"], "results": {benchmark: [one value per
column; trailing columns may be missing]}, "durations", "version": 2}.

A benchmark's `params` is a list of value lists (asv writes each value as its
repr, e.g. "'numpy'", "100"); its parameter combinations are their product in
order (the last varying fastest), and "result", "samples", "stats_*" hold one
entry per combination. `samples` holds, per combination, the time per
iteration of every sample asv took (seconds), and is written only by
`asv run --record-samples`; without it a result is one summary number, and a
benchmark is refused saying so. A combination whose result is null failed or
was skipped in asv's run: it has no measurements and is left out. Benchmarks
other than timings (`mem_`, `peakmem_`, `track_`: one value per run, never
samples) are left out; a file with none of them but those is refused.

The hierarchy: asv spreads a benchmark's samples over several processes
(`processes`, default 2) but does not record which sample came from which, so
there are no level columns. Factors: `benchmark` ("name" or "name(p1, p2)" for
a parametrized one; it names the samples). Unit: seconds, lower is better.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from benchlab.data.readers import _foreign
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset

NAME = "asv"
WHAT = "asv result JSON"
VERSIONS = (2,)
MAX_COMBINATIONS = 1_000_000
_OBJECT = re.compile(r"\s*\{")
_KEYS = re.compile(r'"(result_columns|commit_hash|env_name)"\s*:')
_NOT_TIMES = ("mem_", "peakmem_", "track_")


def sniff(source: Source) -> bool:
    """An object with "result_columns", or with asv's "commit_hash" and "env_name"."""
    head = _foreign.prefix(source)
    if not _OBJECT.match(head):
        return False
    keys = set(_KEYS.findall(head))
    return "result_columns" in keys or {"commit_hash", "env_name"} <= keys


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per recorded sample of every timing benchmark and parameter combination."""
    from benchlab.units import make_unit

    if metric not in (None, "time"):
        raise InputError(f"no metric {quoted(metric)} in asv result files as benchlab reads "
                         "them (metrics: time, the timing samples)", source.name)
    doc = _foreign.load_json(source, "asv")
    version = _foreign.get(doc, "version", "", source, int, WHAT)
    if version not in VERSIONS:
        raise InputError(f"asv result format version {version} is not supported (supported: "
                         f"{', '.join(map(str, VERSIONS))}, written by asv 0.5 and later; "
                         "`asv update` upgrades older results)", source.name)
    columns = _foreign.get(doc, "result_columns", "", source, list, WHAT)
    if not all(isinstance(c, str) for c in columns) or "result" not in columns:
        raise InputError("result_columns is not a list of column names with \"result\"",
                         source.name)
    results = _foreign.get(doc, "results", "", source, dict, WHAT)
    rows = _foreign.Rows()
    skipped: list[str] = []
    for name, entry in results.items():
        path = f"results[{quoted(name)}]"
        if not isinstance(entry, list):
            raise InputError(f"{path} is {_foreign.show(entry)}, not a list of column values",
                             source.name)
        if len(entry) > len(columns):
            raise InputError(f"{path} has {len(entry)} values for {len(columns)} "
                             "result_columns", source.name)
        if name.rpartition(".")[2].startswith(_NOT_TIMES):
            skipped.append(name)
            continue
        _add_benchmark(rows, name, dict(zip(columns, entry, strict=False)), path, source)
    if rows.count == 0:
        what = (f"only benchmarks of one value per run ({', '.join(skipped[:3])}"
                f"{', ...' if len(skipped) > 3 else ''}), no timings" if skipped
                else "no benchmark results")
        raise InputError(f"the asv file has {what}: nothing to compare", source.name)
    return rows.dataset(source, factors=("benchmark",), levels=(), unit=make_unit("s", False),
                        metric="time", default_by="benchmark")


def _add_benchmark(rows: _foreign.Rows, name: str, entry: dict[str, Any], path: str,
                   source: Source) -> None:
    """The samples of every parameter combination of one benchmark that ran."""
    params = entry.get("params") or []
    if not isinstance(params, list) or not all(isinstance(p, list) and p for p in params):
        raise InputError(f"{path}: params is {_foreign.show(params)}, not a list of value "
                         "lists", source.name)
    count = 1
    for values in params:
        count *= len(values)
        if count > MAX_COMBINATIONS:
            raise InputError(f"{path}: more than {MAX_COMBINATIONS} parameter combinations",
                             source.name)
    combos = [", ".join(map(_foreign.label, c)) for c in itertools.product(*params)]
    if entry.get("result", []) is None:
        return  # the whole benchmark failed or was skipped in asv's run
    result = _per_combination(entry, "result", path, combos, source)
    samples = _per_combination(entry, "samples", path, combos, source)
    if samples is None:
        raise InputError(f"{path} has only asv's summary of each run (result, quartiles), "
                         "not its samples: run asv again with `asv run --record-samples`",
                         source.name)
    for k, combo in enumerate(combos):
        label = f"{name}({combo})" if params else name
        if result is not None and result[k] is None:
            continue  # failed or skipped in asv's run: nothing was measured
        values = samples[k]
        where = f"{path}.samples[{k}]"
        if values is None:
            raise InputError(f"{where} ({quoted(label)}) has a result but no samples: run asv "
                             "again with `asv run --record-samples`", source.name)
        if not isinstance(values, list):
            raise InputError(f"{where} is {_foreign.show(values)}, not a list", source.name)
        if not values:
            raise InputError(f"{where} ({quoted(label)}) is empty: no sample was recorded",
                             source.name)
        numbers = [_foreign.number(v, f"{where}[{j}]", source) for j, v in enumerate(values)]
        rows.add(numbers, {"benchmark": label})


def _per_combination(entry: dict[str, Any], key: str, path: str, combos: list[str],
                     source: Source) -> list | None:
    """entry[key] as one item per parameter combination; None when the column is absent."""
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError(f"{path}.{key} is {_foreign.show(value)}, not a list", source.name)
    if len(value) != len(combos):
        raise InputError(f"{path}.{key} has {len(value)} entries for {len(combos)} parameter "
                         "combination" + ("s" if len(combos) != 1 else ""), source.name)
    return value

"""hyperfine's JSON export (`hyperfine --export-json FILE ...`).

Layout: {"results": [{"command", "times": [seconds...], "exit_codes",
"parameters"?: {name: value}, "mean", "stddev", ...}]}. Each timed run of a
command is one measurement, so there are no level columns: hyperfine runs every
command as a fresh process, and the process is the measurement. Factors:
`command` (names the samples) and `param_<name>` for `--parameter-scan` /
`--parameter-list` values (`parameter` for the single unnamed one that hyperfine
before 1.11 wrote). The summaries (mean, min, user, system, ...) are
derived from the runs and are not read. `metric="memory_usage_byte"` reads the
per-run peak memory that newer hyperfine versions record, instead of times.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from benchlab.data.readers import _foreign
from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset

NAME = "hyperfine"
WHAT = "hyperfine JSON"
_START = re.compile(r'\s*\{\s*"results"\s*:\s*\[')
_METRICS = {"times": ("time", "s"), "memory_usage_byte": ("memory_usage_byte", "B")}


def sniff(source: Source) -> bool:
    """A JSON object whose first key is "results", holding objects with a "command"."""
    head = _foreign.prefix(source)
    return bool(_START.match(head)) and re.search(r'"command"\s*:', head) is not None


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per timed run; `metric` "time" (default) or "memory_usage_byte"."""
    from benchlab.units import make_unit

    key = "times" if metric in (None, "time", "times") else metric
    if key not in _METRICS:
        raise InputError(f"unknown metric {quoted(metric)} for a hyperfine file (known: time, "
                         "memory_usage_byte)", source.name)
    doc = _foreign.load_json(source, "hyperfine")
    results = _foreign.get(doc, "results", "", source, list, WHAT)
    if not results:
        raise InputError("no results in the hyperfine file", source.name)
    rows = _foreign.Rows()
    commands: list[str] = []
    params: dict[str, None] = {}
    for i, result in enumerate(results):
        path = f"results[{i}]"
        command = _foreign.get(result, "command", path, source, str, WHAT)
        if "times" not in result:
            raise InputError(f"{path} ({quoted(command)}) has only summaries, no \"times\" of the "
                             "single runs: export it again with a hyperfine version that "
                             "writes them (--export-json)", source.name)
        values = _foreign.get(result, key, path, source, list, WHAT, required=False)
        if values is None:  # only a metric other than the times can be missing here
            have = [_METRICS[k][0] for k in _METRICS if k in result]
            raise InputError(f"{path} ({quoted(command)}) has no {quoted(key)}: its metrics are "
                             f"{', '.join(have)} (newer hyperfine versions also record the "
                             "memory of each run)", source.name)
        if not values:  # a command that never ran: refused, not dropped from the comparison
            raise InputError(f"{path} ({quoted(command)}) has an empty {quoted(key)} list: no "
                             "run of it was recorded (remove the result, or run hyperfine again)",
                             source.name)
        numbers = [_foreign.number(v, f"{path}.{key}[{j}]", source)
                   for j, v in enumerate(values)]
        labels: dict[str, str] = {"command": command}
        parameters = _foreign.get(result, "parameters", path, source, dict, WHAT,
                                  required=False) or {}
        if not parameters and "parameter" in result:  # hyperfine before 1.11: one, unnamed
            parameters = {"": result["parameter"]}
        for name, value in parameters.items():
            column = f"param_{name}" if name else "parameter"
            labels[column] = _foreign.label(value)
            params.setdefault(column, None)
        rows.add(numbers, labels)
        commands.append(command)
    factors: tuple[str, ...] = ("command", *params)
    default_by = "command"
    if len(set(commands)) != len(commands):  # the same command twice: keep them apart
        seen: dict[str, int] = {}
        cases = []
        for command in commands:
            seen[command] = seen.get(command, 0) + 1
            cases.append(command if seen[command] == 1 else f"{command} ({seen[command]})")
        rows.label_chunks("case", cases)
        factors = ("case", *factors)
        default_by = "case"
    metric_name, unit = _METRICS[key]
    return rows.dataset(source, factors=factors, levels=(), unit=make_unit(unit, False),
                        metric=metric_name, default_by=default_by)


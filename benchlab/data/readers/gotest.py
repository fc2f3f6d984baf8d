"""Go's benchmark text format (`go test -bench . -count N [-benchmem]`), as benchstat reads it.

Configuration lines `key: value` (goos, goarch, pkg, cpu, ...; the key starts
with a lower-case letter and has no spaces or upper-case letters) set a factor
for every result after them, until the key is set again (an empty value unsets
it). A result line is `BenchmarkName-P  <iterations>  <value> <unit>
[<value> <unit>]...`. Every other line (PASS, ok, test output, `Unit` metadata)
is skipped; a line that starts with "Benchmark" and has more than a name but
does not parse is an error naming its line. So is a last benchmark line without
a line end that does not parse or has other units than the line before it: the
file was cut mid-line, and "12.5 ns/o" must not become a metric of its own.

Each result line is one measurement (one `-count` repetition), so there are no
level columns. Factors: `benchmark` (the name without "Benchmark" and without
the -P suffix, as benchstat shows it), `procs` (P, the GOMAXPROCS suffix; "1"
when absent, as `go test` omits it then), the configuration keys, and
`metric` (the unit of the value, e.g. "ns/op"). A line with several metrics
gives one row per metric, and one metric is kept: `metric` picks it, by
default the time ("sec/op" or "ns/op") if any line has it, else the first one
seen. Units: "ns/op" is kept in ns ("sec/op" in s), "B/op" and other "/op"
units are lower-is-better, "MB/s" and other rates higher-is-better.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from benchlab.data.source import Source
from benchlab.errors import InputError
from benchlab.escape import shorten
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset
    from benchlab.units import Unit

NAME = "gotest"
SNIFF_LINES = 2000
_RESULT = re.compile(r"Benchmark\S*[ \t]+\d+[ \t]+[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?[ \t]+\S")
_CONFIG = re.compile(r"([^\W\d_A-Z][^\sA-Z:]*):(?:[ \t]+(.*)|$)")
_FIRST_LINES = ("=== ", "--- ", "PASS", "FAIL", "ok", "?", "Unit ", "# ")
_PROCS = re.compile(r"(.*)-(\d+)")
_RESERVED = ("benchmark", "procs", "metric", "value", "case")
_TIME_UNITS = {"ns/op": "ns", "sec/op": "s", "us/op": "us", "ms/op": "ms"}


def _is_config(line: str) -> bool:
    match = _CONFIG.match(line)
    return match is not None and match.group(1)[0].islower()


def _is_benchmark(line: str) -> bool:
    """Starts with "Benchmark" and then not a lower-case letter ("Benchmarking" is prose)."""
    return line.startswith("Benchmark") and not line[9:10].islower()


def sniff(source: Source) -> bool:
    """A first line that go test could print, and a benchmark line near the top: a well-formed
    result, or (after a configuration line) any line with a benchmark name and more."""
    first = next((line for line in source.lines[:SNIFF_LINES] if line.strip()), None)
    if first is None:
        return False
    config_first = _is_config(first)
    if not (config_first or _is_benchmark(first) or first.startswith(_FIRST_LINES)):
        return False
    return any(_is_benchmark(line) and (_RESULT.match(line) is not None
                                        or config_first and len(line.split()) > 1)
               for line in source.lines[:SNIFF_LINES])


def go_unit(name: str) -> Unit:
    """A Go benchmark unit as a Unit: ns/op → ns; B/op lower is better; MB/s higher."""
    from benchlab.units import make_unit

    if name in _TIME_UNITS:
        return make_unit(_TIME_UNITS[name], False)
    if name.endswith("/op"):
        return make_unit(name, False)
    if name.endswith("/s"):
        return make_unit(name, True)
    return make_unit(name)


def _parse_number(token: str) -> float | None:
    try:
        value = float(token)
    except ValueError:
        return None
    return value if "_" not in token else None


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per result line, of the chosen metric; lines kept for messages."""
    import math

    from benchlab.data.readers._foreign import Rows

    config: dict[str, str] = {}  # replaced, not changed, so results can share it
    config_key: tuple[tuple[str, str], ...] = ()
    config_keys: dict[str, None] = {}
    found: list[tuple[int, str, str, dict[str, str], tuple[tuple[str, str], ...],
                      list[tuple[float, str]]]] = []
    last = len(source.lines) if source.unterminated else 0
    for number, line in enumerate(source.lines, start=1):
        if _is_benchmark(line):
            fields = line.split()
            where = f"{source.name}:{number}"
            if number == last:
                _check_last_line(fields, found, where)
            if len(fields) == 1:
                continue  # go test -v announces a benchmark that logs: the name alone
            name = fields[0]
            if not (fields[1].isascii() and fields[1].isdigit()):
                raise InputError(f"malformed benchmark line: {quoted(fields[1])} is not an "
                                 "iteration count", where)
            pairs = fields[2:]
            if not pairs:
                raise InputError("malformed benchmark line: no measurements after the "
                                 "iteration count", where)
            if len(pairs) % 2:
                raise InputError(f"malformed benchmark line: the value {quoted(pairs[-1])} has "
                                 "no unit", where)
            measured = []
            for k in range(0, len(pairs), 2):
                value = _parse_number(pairs[k])
                if value is None:
                    raise InputError(f"malformed benchmark line: {quoted(pairs[k])} is not a "
                                     f"number (before unit {quoted(pairs[k + 1])})", where)
                if not math.isfinite(value):
                    raise InputError(f"{shorten(pairs[k])} {shorten(pairs[k + 1])} is not a "
                                     "finite number", where)
                measured.append((value, pairs[k + 1]))
            short = name[len("Benchmark"):] or name
            match = _PROCS.fullmatch(short)
            base, procs = (match.group(1), match.group(2)) if match else (short, "1")
            found.append((number, base, procs, config, config_key, measured))
            continue
        match = _CONFIG.match(line)
        if match is not None and match.group(1)[0].islower():
            key = match.group(1)
            key = f"config_{key}" if key in _RESERVED else key
            value = (match.group(2) or "").strip()
            if value:
                config = {**config, key: value}
                config_keys.setdefault(key, None)
            else:
                config = {k: v for k, v in config.items() if k != key}
            config_key = tuple(sorted(config.items()))
    if not found:
        raise InputError("no benchmark results (lines like 'BenchmarkX-8  1000  12.5 ns/op')",
                         source.name)
    metrics = list(dict.fromkeys(unit for *_, measured in found for _, unit in measured))
    chosen = _choose_metric(metric, metrics, source.name)
    values: list[float] = []
    lines: list[int] = []
    bases: list[str] = []
    procs_column: list[str] = []
    configs: list[dict[str, str]] = []
    details: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    for number, base, procs, cfg, cfg_key, measured in found:
        for value, unit in measured:
            if unit == chosen:
                values.append(value)
                lines.append(number)
                bases.append(base)
                procs_column.append(procs)
                configs.append(cfg)
                details.append((procs, cfg_key))
    rows = Rows()  # one chunk, a label per row
    rows.add(values, {"benchmark": bases, "procs": procs_column,
                      **{k: [c.get(k, "") for c in configs] for k in config_keys},
                      "metric": chosen})
    default_by = "benchmark"
    factors: tuple[str, ...] = ("benchmark", "procs", *config_keys, "metric")
    cases = _cases(bases, details)
    if cases is not None:
        rows.label_chunks("case", [cases])
        factors = ("case", *factors)
        default_by = "case"
    return rows.dataset(source, factors=factors, levels=(), unit=go_unit(chosen),
                        metric=chosen, default_by=default_by, lines=lines)


def _check_last_line(fields: list[str], found: list, where: str) -> None:
    """Refuse a last result line that the end of the file cut: no line end after it, and
    it does not parse, or its units are not those of the result line before it (a cut
    "12.5 ns/o" would be a new metric "ns/o")."""
    cut = InputError("the file ends in the middle of this benchmark line (no line end after "
                     "it): was it cut short? Remove the line, or complete it", where)
    pairs = fields[2:]
    if len(fields) < 4 or len(pairs) % 2 or not fields[1].isdigit() or any(
            _parse_number(pairs[k]) is None for k in range(0, len(pairs), 2)):
        raise cut
    if found and [unit for _, unit in found[-1][-1]] != pairs[1::2]:
        raise cut


def metrics(source: Source) -> list[str]:
    """The metrics (units) of the file's result lines, in order of first appearance: what
    `read(metric=...)` can pick (`compare` makes one table of each)."""
    seen: dict[str, None] = {}
    for line in source.lines:
        if _is_benchmark(line):
            seen.update(dict.fromkeys(line.split()[3::2]))
    return list(seen)


def _choose_metric(metric: str | None, metrics: list[str], name: str) -> str:
    if metric is None:
        for candidate in ("sec/op", "ns/op"):
            if candidate in metrics:
                return candidate
        return metrics[0]
    if metric in metrics:
        return metric
    if metric in ("sec/op", "time") and "ns/op" in metrics:
        return "ns/op"
    raise InputError(f"no results in {metric!r} (the file has: {', '.join(metrics)})", name)


def _cases(bases: list[str], details: list[tuple[str, tuple[tuple[str, str], ...]]]
           ) -> list[str] | None:
    """Sample names when a benchmark name recurs with other procs or configuration: such a
    benchmark gets "-P" if its procs differ and ":key=value,..." for its differing
    configuration; the others keep their name (None: every name is one sample already)."""
    variants: dict[str, set] = {}
    for base, detail in zip(bases, details, strict=True):
        variants.setdefault(base, set()).add(detail)
    if all(len(v) == 1 for v in variants.values()):
        return None
    names = []
    for base, (procs, cfg) in zip(bases, details, strict=True):
        seen = variants[base]
        name = base
        if len({p for p, _ in seen}) > 1:
            name = f"{base}-{procs}"
        keys = sorted({k for _, c in seen for k, _ in c})
        varying = [k for k in keys if len({dict(c).get(k, "") for _, c in seen}) > 1]
        if varying:
            name += ":" + ",".join(f"{k}={dict(cfg).get(k, '')}" for k in varying)
        names.append(name)
    return names

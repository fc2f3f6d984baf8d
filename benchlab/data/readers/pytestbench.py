"""pytest-benchmark's JSON (`pytest --benchmark-json=FILE`, and the files of `--benchmark-save`).

Layout (pytest-benchmark 3.x to 5.x): {"machine_info": {...}, "commit_info":
{...}, "benchmarks": [{"group", "name", "fullname", "params", "param",
"extra_info", "options", "stats": {"min", "max", "mean", "stddev", "rounds",
"median", "iqr", "q1", "q3", ..., "ops", "total", "iterations", "data"?}}],
"datetime", "version"}. `stats.data` holds the time of every round, in seconds
per iteration (pytest-benchmark divides each round's time by its
`iterations`); it is written only with `--benchmark-save-data`. Without it a
file holds summaries only, from which no confidence interval that respects the
rounds can be computed, so such a benchmark is refused, saying how to save the
rounds.

The hierarchy: all rounds of a benchmark run in one pytest process, so there
are no level columns; each round is one measurement. Factors: `benchmark` (the
`fullname`, else the `name`; it names the samples) and `group` when a
benchmark has one (`@pytest.mark.benchmark(group=...)`). Unit: seconds, lower
is better. `metric="ops"` reads each round as operations per second (1 / its time,
pytest-benchmark's `ops` column per round; higher is better).
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

NAME = "pytest-benchmark"
WHAT = "pytest-benchmark JSON"
_START = re.compile(r'\s*\{\s*"(machine_info|commit_info)"\s*:')
_OBJECT = re.compile(r"\s*\{")
_BENCH_KEYS = re.compile(r'"(fullname|stats)"\s*:')


def sniff(source: Source) -> bool:
    """An object whose first key is "machine_info" (pytest-benchmark's order), or one whose
    benchmarks carry "fullname" and "stats" (files written by a `pytest_benchmark_generate_json`
    hook)."""
    head = _foreign.prefix(source)
    if _START.match(head):
        return True
    return (bool(_OBJECT.match(head)) and re.search(r'"benchmarks"\s*:\s*\[', head) is not None
            and len(set(_BENCH_KEYS.findall(head))) == 2)


METRICS = ("time", "ops")  # ops derives from time: not a second table by default


def read(source: Source, *, metric: str | None = None, **_: object) -> Dataset:
    """One row per round of every benchmark (its `stats.data`): in seconds, or with
    `metric="ops"` in operations per second."""
    from benchlab.units import make_unit

    metric = metric or "time"
    if metric not in METRICS:
        raise InputError(f"no metric {quoted(metric)} in a pytest-benchmark file (metrics: "
                         f"{', '.join(METRICS)})", source.name)
    doc = _foreign.load_json(source, "pytest-benchmark")
    benchmarks = _foreign.get(doc, "benchmarks", "", source, list, WHAT)
    if not benchmarks:
        raise InputError("no benchmarks in the pytest-benchmark file", source.name)
    chunks: list[tuple[list[float], str, str | None]] = []
    names: dict[str, str] = {}
    for i, bench in enumerate(benchmarks):
        path = f"benchmarks[{i}]"
        name = _name(bench, path, source)
        if name in names:
            raise InputError(f"{path}: benchmark {quoted(name)} appears twice (also {names[name]})",
                             source.name)
        names[name] = path
        stats = _foreign.get(bench, "stats", path, source, dict, WHAT)
        data = _foreign.get(stats, "data", f"{path}.stats", source, list, WHAT, required=False)
        if data is None:
            rounds = stats.get("rounds")
            what = f"of its {rounds} rounds " if isinstance(rounds, int) else ""
            raise InputError(f"{path} ({quoted(name)}) has only summary statistics {what}(mean, "
                             "stddev, ...), not the time of each round, so no confidence "
                             "interval can be computed from it: run pytest again with "
                             "--benchmark-json=FILE --benchmark-save-data", source.name)
        if not data:
            raise InputError(f"{path} ({quoted(name)}) has an empty stats.data: no round of it was "
                             "recorded (remove the benchmark, or run it again)", source.name)
        values = [_foreign.number(v, f"{path}.stats.data[{j}]", source)
                  for j, v in enumerate(data)]
        if metric == "ops":
            values = _per_second(values, f"{path} ({quoted(name)})", source)
        group = _foreign.get(bench, "group", path, source, (str, type(None)), WHAT,
                             required=False)
        chunks.append((values, name, group))
    grouped = any(group is not None for _, _, group in chunks)
    rows = _foreign.Rows()
    for values, name, group in chunks:
        rows.add(values, {"benchmark": name, "group": group or ""} if grouped
                 else {"benchmark": name})
    factors = ("benchmark", "group") if grouped else ("benchmark",)
    unit = make_unit("s", False) if metric == "time" else make_unit("ops/s", True)
    return rows.dataset(source, factors=factors, levels=(), unit=unit,
                        metric=metric, default_by="benchmark")


def _per_second(times: list[float], what: str, source: Source) -> list[float]:
    """Operations per second of each round (1 / its time); a round of 0 s has none."""
    if any(t <= 0 for t in times):
        raise InputError(f"{what} has a round of {min(times)} s: no operations per second "
                         "(read its times without --metric ops)", source.name)
    return [1.0 / t for t in times]


def _name(bench: object, path: str, source: Source) -> str:
    """The benchmark's `fullname` ("tests/test_x.py::test_sort[100]"), else its `name`."""
    full = _foreign.get(bench, "fullname", path, source, str, WHAT, required=False)
    if full:
        return full
    return _foreign.get(bench, "name", path, source, str, WHAT)


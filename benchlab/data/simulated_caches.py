"""Which caches a store's cache misses are of: the configuration Valgrind simulated.

A counted execution under cache simulation (`i1-misses`, `d1-misses`,
`ll-misses`: runner/counter.py) gets its first-level instruction and data
caches and its last level from this machine's CPUID, and its out file says
which (`desc: I1 cache: 32768 B, 64 B, 8-way associative`). The runner records
each configuration it met in the store (`benchlab_meta.simulated_caches`, a
JSON list, one entry unless machines differed); a store made before it has
none and reads as "not recorded". compare, summary and report note it beside a
cache metric (`note`), and JSON documents carry it as `simulated_caches`
(`document`).
"""

from __future__ import annotations

import re
from typing import Any

_DESC = re.compile(r"(\d+) B, (\d+) B, (\d+)-way associative")
NOT_RECORDED = ("simulated caches: not recorded (the store was made before benchlab recorded "
                "them)")


def _store_facts(path: str, metric: str | None) -> tuple[bool, list[dict[str, str]] | None,
                                                         str]:
    """Whether `metric` (None: the store's first) is a cache metric a counter simulated,
    the configurations recorded (None: the key is absent), and the counter's tool."""
    from benchlab.runner import store_checks
    from benchlab.runner.counter import CACHE_EVENTS
    from benchlab.runner.metric_sources import COUNTERS
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        names = [m for m, _ in store.metrics()]
        chosen = metric if metric is not None else (names[0] if names else None)
        source = store.metric_sources().get(chosen or "", {}).get("source")
        raw = store.meta.get("simulated_caches")
        counted = "counter" in store.meta
    finally:
        store.close()
    # a store made before metric_sources: a cache metric of one with a counter
    cache = chosen in CACHE_EVENTS and (source in COUNTERS or (source is None and counted))
    if raw is None:
        return cache, None, str(source)
    value = store_checks.parse_json(raw, path, "benchlab_meta", "'simulated_caches'", "value")
    if not isinstance(value, list) or not all(
            isinstance(c, dict) and all(isinstance(k, str) and isinstance(v, str)
                                        for k, v in c.items()) for c in value):
        raise store_checks.fail(path, "benchlab_meta", "'simulated_caches'", "value", value,
                                "a list of objects of cache → description")
    return cache, value, str(source)


def _size(text: str) -> str:
    """Bytes as Valgrind gives them, in KiB or MiB when whole."""
    n = int(text)
    for unit, factor in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n} B"


def describe(config: dict[str, str]) -> str:
    """One configuration as a line: "I1 32 KiB, 64 B lines, 8-way; D1 ...; LL ..."
    (Valgrind's own words for a description of another form)."""
    parts = []
    for name, text in config.items():
        match = _DESC.fullmatch(text)
        parts.append(f"{name} {_size(match[1])}, {match[2]} B lines, {match[3]}-way" if match
                     else f"{name} {text}")
    return "; ".join(parts)


def note(path: str, metric: str | None) -> str | None:
    """The line saying which caches `metric`'s misses are of, for a store and a cache
    metric; None for any other metric or input."""
    cache, configs, tool = _store_facts(path, metric)
    if not cache:
        return None
    if configs is None:
        return NOT_RECORDED
    if not configs:
        return f"simulated caches ({tool}): none recorded (no counted execution finished)"
    return f"simulated caches ({tool}): " + " | ".join(describe(c) for c in configs)


def document(path: str, metric: str | None) -> list[dict[str, Any]] | None | bool:
    """`simulated_caches` of a JSON document: per configuration and cache its `size`,
    `line_size` (bytes), `ways` and Valgrind's `description`; None when not recorded;
    False when the metric is no cache metric (the key is then left out)."""
    cache, configs, _ = _store_facts(path, metric)
    if not cache:
        return False
    if configs is None:
        return None
    out = []
    for config in configs:
        entry: dict[str, Any] = {}
        for name, text in config.items():
            match = _DESC.fullmatch(text)
            entry[name] = {"size": int(match[1]) if match else None,
                           "line_size": int(match[2]) if match else None,
                           "ways": int(match[3]) if match else None, "description": text}
        out.append(entry)
    return out

"""`history publish`'s analysis kept between publishes: each series' findings under a hash
of everything they are computed from, so that a republish analyses only the series whose
inputs changed.

A series' findings (history/check.py `series_findings`) are a function of its
measurements (the values in order and the commit of each), the ids of those commits, its
benchmark, metric, machine and unit, the settings (threshold, confidence, seed,
min-segment), its random stream (its position among the series analysed: check.py
spawns one per series) and the code: `key` hashes all of them, the code as the bytes of
benchlab's own modules with numpy's, scipy's and Python's versions (`code_stamp`).

The site's directory keeps them in one file (FILE, written with the site, listed in its
manifest): per key the findings as JSON in a tagged encoding of a fixed set of frozen
dataclasses (never pickle: a directory is not trusted with code), every float as the
shortest text that reads back to the same double and every value with its own type
(numpy scalars tagged), so that findings read back are equal, type for type, to those
computed, and the pages made from them the same bytes (tests/history/
test_publish_incremental.py publishes into a fresh directory and compares).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from benchlab.history.check import Change, Findings, HeadPower, Transient
from benchlab.history.store import Commit, Series
from benchlab.stats.fieller import FiellerInputs, RatioInterval
from benchlab.stats.verdict import Advice, Verdict
from benchlab.version import __version__

FILE = "benchlab-analysis.json"
FORMAT = "benchlab-site-analysis"
VERSION = 1
CLASSES = {cls.__name__: cls for cls in (Findings, Change, Transient, HeadPower,
                                         RatioInterval, FiellerInputs, Verdict, Advice)}
SCALARS = {"f8": (np.float64, float), "i8": (np.int64, int), "b1": (np.bool_, bool)}


def code_stamp() -> str:
    """What computed the findings: a hash of benchlab's modules (every .py file of the
    package, so a changed analysis is never taken for the old one, released or not) and
    the versions of numpy, scipy and Python."""
    from importlib import metadata

    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    try:
        scipy = metadata.version("scipy")
    except metadata.PackageNotFoundError:
        scipy = "none"
    digest.update(json.dumps([__version__, np.__version__, scipy,
                              list(sys.version_info[:3])]).encode())
    return digest.hexdigest()


def key(s: Series, history: list[Commit], stream: int, settings: tuple) -> str:
    """The hash of everything one series' findings are computed from (module docstring):
    `stream` is its position among the series analysed, `settings` (threshold,
    confidence, seed, min_segment)."""
    at, inverse = np.unique(s.commit_index, return_inverse=True)
    digest = hashlib.sha256(json.dumps(
        [list(settings), stream, s.benchmark, s.metric, s.machine, s.unit,
         s.higher_is_better, [history[i].sha for i in at.tolist()]]).encode())
    digest.update(np.ascontiguousarray(inverse.ravel(), dtype="<i8").tobytes())
    digest.update(np.ascontiguousarray(s.values, dtype="<f8").tobytes())
    return digest.hexdigest()


def encode(value: Any) -> Any:
    """`value` (findings, or anything inside them) as JSON-able data that `decode` turns
    back into an equal value of the same types; a ValueError for a type outside the set."""
    if value is None or isinstance(value, (str, bool)) or type(value) is int:
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"x": repr(value)}
    for tag, (numpy_type, plain) in SCALARS.items():
        if type(value) is numpy_type:
            return {tag: encode(plain(value))}
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    cls = type(value)
    if dataclasses.is_dataclass(value) and CLASSES.get(cls.__name__) is cls:
        return {"@": cls.__name__,
                "f": {f.name: encode(getattr(value, f.name))
                      for f in dataclasses.fields(value)}}
    raise ValueError(f"{cls.__module__}.{cls.__qualname__} is not kept in the analysis file")


def decode(data: Any) -> Any:
    """The value `encode` gave `data` for; a ValueError for anything it does not give: a
    plain number that is not finite (`encode` tags those), a kept class with a field
    missing, extra or not of its type (`_fits`)."""
    if isinstance(data, float) and not math.isfinite(data):
        raise ValueError(f"a number out of range: {data!r}")
    if data is None or isinstance(data, (str, bool, int, float)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError(f"not an encoded value: {str(data)[:80]}")
    if "@" in data:
        cls = CLASSES.get(data["@"])
        fields = data.get("f")
        if cls is None or not isinstance(fields, dict):
            raise ValueError(f"not a kept class: {str(data['@'])[:80]}")
        return _checked(cls, {name: decode(v) for name, v in fields.items()})
    (tag, inner), = data.items()
    if tag == "t" and isinstance(inner, list):
        return tuple(decode(v) for v in inner)
    if tag == "x" and inner in ("nan", "inf", "-inf"):
        return float(inner)
    if tag in SCALARS:
        numpy_type, plain = SCALARS[tag]
        return numpy_type(plain(decode(inner)))
    raise ValueError(f"not an encoded value: {str(data)[:80]}")


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The type of each field of a kept class (its annotations, resolved)."""
    import typing

    return typing.get_type_hints(cls)


def _fits(value: Any, hint: Any) -> bool:
    """True when `value` is one `encode` gives for a field annotated `hint`: the type
    itself (numpy's scalar of it too; an int where a float is meant), None where the
    hint allows it, tuples of the element types, a kept class."""
    import types
    import typing

    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return len(value) == len(args) and all(map(_fits, value, args))
    if hint is bool:
        return type(value) in (bool, np.bool_)
    if hint is int:
        return type(value) in (int, np.int64)
    if hint is float:
        return type(value) in (float, np.float64, int, np.int64)
    if hint is str:
        return type(value) is str
    return isinstance(hint, type) and CLASSES.get(hint.__name__) is hint \
        and type(value) is hint


def _checked(cls: type, fields: dict[str, Any]) -> Any:
    """An instance of the kept class `cls` from decoded `fields`; a ValueError naming the
    field when one is missing, extra or not of its annotated type."""
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    if set(fields) != set(names):
        odd = sorted(set(fields) ^ set(names))
        raise ValueError(f"{cls.__name__} with fields missing or unknown: {', '.join(odd)}")
    for name in names:
        if not _fits(fields[name], hints[name]):
            raise ValueError(f"{cls.__name__}.{name} is not of its type: "
                             f"{str(fields[name])[:80]}")
    return cls(**fields)


def read(path: str, stamp: str) -> tuple[dict[str, Any], str | None]:
    """The findings kept in the analysis file at `path` by key (decoded when used, by
    `findings`), and a note when the file is there but cannot be used (unreadable, not
    this format): nothing is reused then. A file made by other code (another `stamp`)
    holds nothing reusable and is no surprise: no note."""
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.loads(handle.read())
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return {}, f"{path}: cannot read the kept analysis ({exc}): every series analysed"
    if not (isinstance(doc, dict) and doc.get("format") == FORMAT
            and doc.get("version") == VERSION and isinstance(doc.get("series"), dict)):
        return {}, f"{path}: not a kept analysis of benchlab's: every series analysed"
    if doc.get("code") != stamp:
        return {}, None
    return doc["series"], None


def findings(kept: dict[str, Any], k: str) -> tuple[Findings | None, str | None]:
    """The findings kept under key `k` (None: none kept), and why what is kept there
    cannot be used (not what `encode` writes: an unknown class, a field missing, extra,
    of another type or a number out of range), then None for the findings."""
    data = kept.get(k)
    if data is None:
        return None, None
    try:
        found = decode(data)
    except (ValueError, TypeError, RecursionError) as exc:
        return None, str(exc)
    if not isinstance(found, Findings):
        return None, f"not findings: {str(data)[:80]}"
    return found, None


def dump(entries: Iterable[tuple[str, Findings]], stamp: str) -> bytes:
    """The analysis file: every (key, findings), sorted by key, one compact JSON document
    (the same entries give the same bytes). Findings that cannot be encoded are left out:
    they are analysed again next time."""
    series = {}
    for k, f in entries:
        try:
            series[k] = encode(f)
        except ValueError:
            continue
    doc = {"format": FORMAT, "version": VERSION, "code": stamp, "series": series}
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"

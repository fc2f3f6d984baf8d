"""Per-function costs of a cachegrind or callgrind out file (docs/profile-diff.md).

The format (Valgrind manual, "Callgrind Format Specification"; cachegrind writes
its subset): `events:` names the counted events; `fl=` sets the file and `fn=`
the function that the following cost lines (`position cost cost ...`, trailing
zero costs left out) belong to; `fi=`/`fe=` switch the file of inlined code
without leaving the function. Callgrind adds `cfi=`/`cfl=`, `cfn=` and `calls=N
target`: the cost line after `calls=` is the inclusive cost of those calls,
which belongs to the call, not to the caller's own (exclusive) cost. Names may
be compressed: `fn=(12) name` defines id 12, a later `fn=(12)` means it. Files
share one table of ids (fl, fi, fe, cfi, cfl), functions another (fn, cfn).

A function is "file:function", the file being its `fl=`. Exclusive cost: its
cost lines. Inclusive cost (callgrind only): exclusive plus the cost of every
call it makes to another function; a call of a function to itself is left out,
as it is inside the caller's own cost already. Mutual recursion (f calls g calls
f) counts the inner f twice, as callgrind_annotate's inclusive counts do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchlab.data.source import Source, open_source
from benchlab.errors import InputError
from benchlab.escape import token as quoted

_COMPRESSED = re.compile(r"\((\d+)\)(?:\s+(.*))?")
_SPEC = re.compile(r"(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn|calls|jump|jcnd)=(.*)")
_FILE_KEYS = ("fl", "fi", "fe", "cfi", "cfl")


@dataclass(frozen=True)
class Profile:
    """The costs of one out file: per function its exclusive (and, for callgrind, its
    inclusive) cost of each event, the file's totals, and what made it."""

    path: str
    tool: str  # "cachegrind" or "callgrind"
    command: str
    events: tuple[str, ...]
    totals: tuple[int, ...]
    exclusive: dict[str, tuple[int, ...]]
    inclusive: dict[str, tuple[int, ...]] | None  # None for cachegrind: no call costs
    alternative: str | None = None  # a store's alternative (data/store_profiles.py), else None
    runs: int = 1  # the counted executions whose median it is (a store's), 1 for a file
    factors: tuple[tuple[str, str], ...] = ()  # a store's cell: its factor levels

    def event_index(self, event: str) -> int:
        if event not in self.events:
            raise InputError(f"no event {quoted(event)} in the profile (events: "
                             f"{', '.join(self.events)})", self.path)
        return self.events.index(event)


class _Names:
    """A table of compressed names: "(id) name" defines, "(id)" refers."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def resolve(self, text: str, where: str) -> str:
        text = text.strip()
        match = _COMPRESSED.fullmatch(text)
        if match is None:
            return text
        ident, name = match.group(1), match.group(2)
        if name is not None:
            self.names[ident] = name
            return name
        if ident not in self.names:
            raise InputError(f"name ({ident}) is used before it is defined", where)
        return self.names[ident]


def read_profile(path: str) -> Profile:
    """Parse `path` (a cachegrind or callgrind out file); errors name its line."""
    from benchlab.data.readers import valgrind

    source = open_source(path)
    if not valgrind.sniff(source):
        raise InputError("not a cachegrind or callgrind out file (no such header and "
                         "events: line at its start)", source.name)
    return parse(source)


def parse(source: Source) -> Profile:
    events: tuple[str, ...] | None = None
    positions = 1
    totals: tuple[int, ...] | None = None
    command = ""
    tool = "cachegrind"
    files, functions = _Names(), _Names()
    objects = _Names()
    file = function = ""
    call_file = call_function = None
    pending_call: str | None = None  # the callee of a calls= line whose cost line follows
    skip_position = False  # after jump=/jcnd=: a position line without costs
    exclusive: dict[str, list[int]] = {}
    called: dict[str, list[int]] = {}  # per caller: the inclusive cost of its calls out
    for number, raw in enumerate(source.lines, 1):
        line = raw.strip()
        where = f"{source.name}:{number}"
        if not line or line.startswith("#"):
            if line.startswith("# callgrind format"):
                tool = "callgrind"
            continue
        first = line[0]
        if first.isdigit() or first in "+-*" or line.startswith("0x"):
            if skip_position:
                skip_position = False
                continue
            if events is None:
                raise InputError("a cost line before the events: line", where)
            fields = line.split()
            costs = _costs(fields[positions:], len(events), where)
            if pending_call is not None:
                key = f"{file}:{function}"
                if pending_call != key:
                    _add(called, key, costs)
                pending_call = None
            else:
                _add(exclusive, f"{file}:{function}", costs)
            continue
        spec = _SPEC.fullmatch(line)
        if spec is not None:
            key, value = spec.group(1), spec.group(2)
            if key in _FILE_KEYS:
                name = files.resolve(value, where)
                if key == "fl":
                    file, call_file = name, None
                elif key in ("cfi", "cfl"):
                    call_file = name
            elif key == "fn":
                function = functions.resolve(value, where)
                call_file = call_function = None
            elif key == "cfn":
                call_function = functions.resolve(value, where)
            elif key in ("ob", "cob"):
                objects.resolve(value, where)
            elif key == "calls":
                if call_function is None:
                    raise InputError("calls= without a cfn= line before it", where)
                pending_call = f"{call_file if call_file is not None else file}:{call_function}"
                call_file = call_function = None
            else:  # jump=, jcnd=: the next line is the jump's position, without costs
                skip_position = True
            continue
        head, _, rest = line.partition(":")
        if head == "events":
            events = tuple(rest.split())
            if not events:
                raise InputError("events: names no event", where)
        elif head == "positions":
            positions = len(rest.split()) or 1
        elif head in ("summary", "totals") and events is not None:
            if totals is None or head == "summary":
                totals = _costs(rest.split(), len(events), where)
        elif head == "cmd":
            command = rest.strip()
        elif head == "creator" and "callgrind" in rest:
            tool = "callgrind"
        elif head not in ("version", "creator", "pid", "part", "desc", "thread", "events",
                          "summary", "totals", "positions", "cmd"):
            raise InputError(f"{quoted(line)} is no cachegrind/callgrind line", where)
    if events is None:
        raise InputError("no events: line (not a cachegrind or callgrind out file?)",
                         source.name)
    if totals is None:
        raise InputError("no summary: or totals: line (a file cut short?)", source.name)
    width = len(events)
    exclusive_t = {k: tuple(v) for k, v in exclusive.items()}
    inclusive = None
    if tool == "callgrind":
        inclusive = {k: tuple(a + b for a, b in zip(exclusive.get(k, [0] * width),
                                                    called.get(k, [0] * width), strict=True))
                     for k in {*exclusive, *called}}
    return Profile(source.name, tool, command, events, totals, exclusive_t, inclusive)


def _costs(fields: list[str], width: int, where: str) -> tuple[int, ...]:
    if len(fields) > width:
        raise InputError(f"{len(fields)} costs for {width} events", where)
    try:
        numbers = [int(f) for f in fields]
    except ValueError:
        bad = next(f for f in fields if not f.lstrip("-").isdigit())
        raise InputError(f"cost {quoted(bad)} is not an integer", where) from None
    return tuple(numbers + [0] * (width - len(numbers)))


def _add(table: dict[str, list[int]], key: str, costs: tuple[int, ...]) -> None:
    current = table.get(key)
    if current is None:
        table[key] = list(costs)
    else:
        for i, c in enumerate(costs):
            current[i] += c

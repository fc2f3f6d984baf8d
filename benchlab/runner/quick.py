"""Quick mode: commands and options from the command line turned into an experiment file.

`benchlab run -- 'CMD1' 'CMD2'` writes the TOML text an experiment file would hold
(docs/experiment-file.md) and reads it with the file's own parser, so quick mode
shares the runner, the store, `--resume` (the same options give the same text) and
every analysis with file mode; the text is kept in the store like a file's.

Two or more commands are the alternatives (the first is the baseline) and each
parameter scan (`-P`, `-L`) is a factor the runner substitutes, so the store's
analysis is one comparison per level combination (a suite). One command with
scans has nothing to compare within a level: its level combinations become the
alternatives ("n=1", "n=2", ...; the first is the baseline), and the experiment
is marked `scanned` (the store's meta key "scanned") so that the store's analysis
compares each with the first as a suite (data/store_design.reference_suite); stores
made before the key are known by the experiment's name, SCANNED_NAME.

A `{NAME}` whose NAME is a scan's is a placeholder, as are the runner's own
`{alternative}`, `{build}` and `{iterations}`; another `{word}` is refused (a
typo would otherwise run the command with the braces); `{{` and `}}` are braces;
any other brace (`awk '{print $1}'`, `find -exec {} +`) is kept as written.
"""

from __future__ import annotations

import itertools
import re
import shlex
from dataclasses import dataclass

from benchlab.errors import UsageError
from benchlab.runner.config import (
    RESERVED,
    Experiment,
    parse_duration,
    parse_experiment,
    placeholders,
    substitute,
)

SOURCE = "<command line>"  # the experiment's path in messages and in the store
SCANNED_NAME = "benchlab run, one command scanned"  # its store: a suite against the first value
BUILTINS = ("alternative", "build", "iterations")  # placeholders the runner itself fills
DEFAULT_RUNS = 10  # as an experiment file's `executions`
MIN_TIME_RUNS = 1000  # the most rounds of a --min-time run without --runs
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
# `{{`, `}}`, a placeholder `{name}` / `{name:raw}`, or any other single brace
_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)(:raw)?\}|[{}]")


@dataclass(frozen=True)
class Scan:
    """One parameter and its values, in order: `-P NAME LOW HIGH` or `-L NAME a,b,c`."""

    name: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class QuickSpec:
    """What the quick-mode options say, before they become an experiment."""

    commands: tuple[str, ...]
    names: tuple[str, ...] = ()
    shell: bool = False
    runs: int | None = None
    min_time: float | None = None
    warmup: int = 0
    prepare: str | None = None
    setup: str | None = None
    cleanup: str | None = None
    scans: tuple[Scan, ...] = ()
    order: str = "interleaved-random"
    metrics: tuple[str, ...] = ()  # --metrics; () for the default
    counter: str | None = None  # --counter


def scan_values(name: str, low: str, high: str, step: str | None) -> Scan:
    """`-P NAME LOW HIGH [--step S]`: LOW, LOW+S, ... up to HIGH (S = 1), in decimal
    arithmetic so that 0.1 steps print as 0.1, 0.2, 0.3; whole numbers print without a
    point. UsageError when LOW > HIGH, S <= 0 or a bound is not a number."""
    from decimal import Decimal, InvalidOperation  # only for -P: 2 ms of every start

    check_name(name)
    bounds = []
    for what, text in (("LOW", low), ("HIGH", high), ("--step", step or "1")):
        try:
            number = Decimal(text)
        except InvalidOperation:
            raise UsageError(f"-P {name}: {what} must be a number, not {text!r}") from None
        if not number.is_finite():
            raise UsageError(f"-P {name}: {what} must be a finite number, not {text!r}")
        bounds.append(number)
    first, last, delta = bounds
    if first > last:
        raise UsageError(f"-P {name} {low} {high}: LOW is above HIGH")
    if delta <= 0:
        raise UsageError(f"-P {name}: --step must be above 0, not {step}")
    count = int((last - first) / delta) + 1
    exponent = min(first.as_tuple().exponent, delta.as_tuple().exponent, 0)
    quantum = Decimal(1).scaleb(exponent)
    values = tuple(str((first + k * delta).quantize(quantum)) for k in range(count))
    return Scan(name, values)


def list_values(name: str, text: str) -> Scan:
    """`-L NAME a,b,c`: the values split at commas; UsageError when one repeats."""
    check_name(name)
    values = tuple(text.split(","))
    if len(set(values)) != len(values):
        twice = next(v for v in values if values.count(v) > 1)
        raise UsageError(f"-L {name}: the value {twice!r} is listed twice")
    return Scan(name, values)


def check_name(name: str) -> None:
    if not _NAME.match(name):
        raise UsageError(f"parameter name {name!r} must be letters, digits, _ or - "
                         "(starting with a letter or _)")
    if name in RESERVED or name in BUILTINS:
        raise UsageError(f"parameter name {name!r} is reserved (reserved: "
                         f"{', '.join((*RESERVED, *BUILTINS))})")


def template(text: str, known: set[str], where: str) -> str:
    """`text` as the runner's template: placeholders of `known` names kept, `{{`/`}}` kept,
    every other brace doubled (literal); UsageError for `{word}` not known."""
    def one(m: re.Match[str]) -> str:
        token = m.group(0)
        if token in ("{{", "}}"):
            return token
        if m.group(1) is None:  # a lone brace
            return token * 2
        if m.group(1) not in known:
            defined = ", ".join(sorted(known - set(BUILTINS))) or "none"
            raise UsageError(f"{where}: {{{m.group(1)}}} is not a parameter (defined: "
                             f"{defined}); define it with -P {m.group(1)} LOW HIGH or -L "
                             f"{m.group(1)} a,b,c, or write {{{{{m.group(1)}}}}} for braces")
        return token

    return _TOKEN.sub(one, text)


def _words(text: str, where: str, shell: bool) -> list[str]:
    """A command's text as its argv (shell words) or, with `shell`, one /bin/sh string."""
    if not text.strip():
        raise UsageError(f"{where} is empty")
    return [text] if shell else command_words(text, where)


def command_words(text: str, where: str) -> list[str]:
    """A command given as one text on the command line (quick mode's, bisect's) split into
    its words as /bin/sh would; a one-line UsageError naming `where` when it cannot be."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"{where}: cannot split {text!r} into words ({exc}); quote it "
                         "again, or run it with --shell") from None
    if not words:
        raise UsageError(f"{where} is empty")
    return words


def _literal(text: str) -> str:
    """A finished text in template syntax: every brace doubled."""
    return text.replace("{", "{{").replace("}", "}}")


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _toml_command(words: list[str], shell: bool) -> str:
    if shell:
        return _toml_string(words[0])
    return "[" + ", ".join(_toml_string(w) for w in words) + "]"


def alternatives(spec: QuickSpec) -> list[tuple[str, list[str], bool]]:
    """(name, command words, whether the runner substitutes the scans) per alternative."""
    scan_names = {s.name for s in spec.scans}
    if len(set(scan_names)) != len(spec.scans):
        twice = next(s.name for s in spec.scans
                     if [t.name for t in spec.scans].count(s.name) > 1)
        raise UsageError(f"parameter {twice!r} is defined twice")
    known = scan_names | set(BUILTINS)
    if spec.names and len(spec.names) != len(spec.commands):
        raise UsageError(f"{len(spec.names)} --name for {len(spec.commands)} commands: give "
                         "one name per command, in order")
    templates = []
    for text in spec.commands:
        where = f"command {text!r}"
        templates.append([template(w, known, where) for w in _words(text, where, spec.shell)])
    used = {name for words in templates for w in words for name in placeholders(w)}
    unused = [s.name for s in spec.scans if s.name not in used]
    if unused:
        raise UsageError(f"no command uses the parameter {{{unused[0]}}}: each of its values "
                         "would run the same commands")
    if len(spec.commands) > 1 or not spec.scans:
        names = list(spec.names) or list(spec.commands)
        out = [(name, words, True) for name, words in zip(names, templates, strict=True)]
    else:  # one command with scans: each level combination is an alternative
        words = templates[0]
        out = []
        for combo in itertools.product(*(s.values for s in spec.scans)):
            values = {s.name: v for s, v in zip(spec.scans, combo, strict=True)}
            label = " ".join(f"{k}={v}" for k, v in values.items())
            if spec.names:
                label = substitute(template(spec.names[0], scan_names, "--name"), values)
            out.append((label, [_fill(w, values, spec.shell) for w in words], False))
    seen: dict[str, int] = {}
    for k, (name, _, _) in enumerate(out):
        if not name.strip():
            raise UsageError(f"--name {k + 1} is empty")
        if name in seen:
            what = "--name" if spec.names else "command"
            raise UsageError(f"the {what} {name!r} is given twice: every command needs its "
                             "own name (--name)")
        seen[name] = k
    return out


def _fill(word: str, values: dict[str, str], shell: bool) -> str:
    """A template word with the scans' values put in (shell-quoted in a shell string, as the
    runner does) and kept a template: the runner's own placeholders stay, all else literal."""
    def one(m: re.Match[str]) -> str:
        token = m.group(0)
        if token in ("{{", "}}"):
            return token
        name = m.group(1)
        if name in values:
            value = values[name] if not shell or m.group(2) else shlex.quote(values[name])
            return _literal(value)
        return token  # a built-in placeholder: the runner fills it

    return re.sub(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_-]*)(:raw)?\}", one, word)


def one_command_scanned(spec: QuickSpec) -> bool:
    """Whether the scans' values are the alternatives (no command substitutes a value, so
    there is nothing to compare within a value): the store's analysis is then a suite of
    each value against the first."""
    return bool(spec.scans) and not any(a[2] for a in alternatives(spec))


def experiment_text(spec: QuickSpec) -> str:
    """The experiment file these options describe (deterministic: the same options give
    the same text, which is what --resume checks)."""
    if not spec.commands:
        raise UsageError("no command to run: benchlab run -- 'CMD1' 'CMD2', or -c CMD")
    if spec.runs is not None and spec.runs < 1:
        raise UsageError(f"--runs must be at least 1, not {spec.runs}")
    if spec.warmup < 0:
        raise UsageError(f"--warmup must be 0 or more, not {spec.warmup}")
    if spec.min_time is not None and spec.order == "sequential":
        raise UsageError("--min-time needs the interleaved order: a sequential run has no "
                         "rounds in which every command has run")
    alts = alternatives(spec)
    substituted = [a for a in alts if a[2]]
    name = SCANNED_NAME if one_command_scanned(spec) else "benchlab run"
    lines = ["# written by benchlab run from its command line (quick mode)",
             f"name = {_toml_string(name)}", f"order = {_toml_string(spec.order)}",
             f"shell = {'true' if spec.shell else 'false'}"]
    runs = spec.runs if spec.runs is not None else \
        MIN_TIME_RUNS if spec.min_time is not None else DEFAULT_RUNS
    lines.append(f"executions = {runs}")
    if spec.metrics:
        lines.append(f"metrics = [{', '.join(_toml_string(m) for m in spec.metrics)}]")
    if spec.counter is not None:
        lines.append(f"counter = {_toml_string(spec.counter)}")
    for key, text in (("prepare", spec.prepare), ("setup", spec.setup),
                      ("teardown", spec.cleanup)):
        if text is not None:
            option = "--cleanup" if key == "teardown" else f"--{key}"
            words = _words(text, option, spec.shell)
            command = _toml_command([template(w, set(), option) for w in words], spec.shell)
            lines.append(f"{key} = {command}")
    if spec.warmup:
        lines += ["", "[warmup]", f"executions = {spec.warmup}"]
    if spec.min_time is not None:
        lines += ["", "[stop_when]", f"max_time = {spec.min_time!r}"]
    if spec.scans and substituted:
        lines += ["", "[factors]"]
        lines += [f"{_toml_string(s.name)} = [{', '.join(_toml_string(v) for v in s.values)}]"
                  for s in spec.scans]
    for name, words, _ in alts:
        lines += ["", f"[alternatives.{_toml_string(name)}]",
                  f"command = {_toml_command(words, spec.shell)}"]
    return "\n".join(lines) + "\n"


def quick_experiment(spec: QuickSpec) -> Experiment:
    """The experiment of these options, read and checked as an experiment file is; a
    problem the file's checks find (a program not on PATH) is said without the file's
    line, which the user never wrote."""
    from dataclasses import replace

    from benchlab.errors import InputError

    text = experiment_text(spec)
    try:
        e = parse_experiment(text, SOURCE)
    except InputError as exc:
        message = exc.message  # the file's keys that quick mode's options wrote, as options
        if message.startswith(("metrics", "counter")):
            message = "--" + message
        raise UsageError(message) from None
    return replace(e, scanned=True) if one_command_scanned(spec) else e


def min_time(text: str) -> float:
    """`--min-time`'s duration in seconds."""
    seconds = parse_duration(text)
    if seconds is None:
        raise UsageError(f"--min-time must be a duration such as 10s or 2m, not {text!r}")
    return seconds

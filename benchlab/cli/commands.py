"""benchlab's commands — name, module, one-line help — and the subcommands action that
imports a command's module only when that command is chosen.

Building every command's options imported every command module (the analyses, the
readers, the store, ...) at each start: 60-90 ms of CPU, more than a short `benchlab
run` spent on its executions (benchmarks/runner_cpu.py). Now `benchlab CMD` imports
CMD's module alone, and `benchlab --help` lists the commands from COMMANDS without
importing any. What reads every command's options — shell completion, the man page
(man/refresh.py), tests walking the parser — loads them all first (`load_all`).
tests/cli/test_main.py checks that each help here is the one its module registers, so
the list cannot drift from the modules.
"""

from __future__ import annotations

import argparse
import importlib

# (command, its module, its one-line help) in the order `benchlab --help` lists them; a new
# command is one line here and a module with add_parser(sub) and run(args)
COMMANDS = (
    ("compare", "benchlab.cli.compare",
     "compare samples: ratio CI, difference, verdict (or ministat's output)"),
    ("summary", "benchlab.cli.summary",
     "one dataset: descriptives, CI of the mean, variance components"),
    ("plan", "benchlab.cli.plan",
     "optimal repetitions per level for a budget or a target CI width"),
    ("design", "benchlab.cli.design", "factorial designs and randomized run orders"),
    ("test", "benchlab.cli.test", "hypothesis-test protocols: Speedup-Test, Kruskal-Wallis"),
    ("qreg", "benchlab.cli.qreg",
     "quantile regression: each factor's effect at every quantile"),
    ("warmup", "benchlab.cli.warmup",
     "warm-up and steady state of each execution (Barrett et al.'s classes)"),
    ("run", "benchlab.cli.run",
     "run an experiment file, or commands (quick mode); results into a SQLite store"),
    ("env", "benchlab.cli.env", "pre-flight noise check: governor, turbo, load, ASLR, pinning"),
    ("export", "benchlab.cli.export", "a result store as a long-format CSV/TSV/Parquet file"),
    ("anova", "benchlab.cli.anova",
     "factorial analysis: effects, allocation of variation, diagnostics"),
    ("report", "benchlab.cli.report",
     "one self-contained HTML report: tables, figures, run order, machine"),
    ("profile-diff", "benchlab.cli.profile_diff",
     "rank functions by their change between two callgrind/cachegrind profiles"),
    ("history", "benchlab.cli.history",
     "results across commits: add them, find changes, check a head commit"),
    ("bisect", "benchlab.cli.bisect",
     "find the commit where a benchmark changed (interleaved, resumable)"),
    ("worker", "benchlab.cli.worker", "serve this machine to a Dask scheduler for `run --cluster`"),
    ("cluster", "benchlab.cli.cluster",
     "set up a cluster for `run --cluster`: its TLS certificates"),
    ("completion", "benchlab.cli.completion",
     "print a shell completion script (bash, zsh, tcsh, fish)"),
    ("system", "benchlab.cli.system", "show, tune and reset the system settings that add noise"),
)


class LazyCommands(argparse._SubParsersAction):
    """argparse's subcommands, each a placeholder (its name and help) until it is chosen:
    then its module's add_parser builds the real one in its place."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._pending: dict[str, str] = {}  # command -> its module, not imported yet

    def add_lazy(self, name: str, module: str, help: str) -> None:  # noqa: A002 (argparse's)
        super().add_parser(name, help=help, add_help=False)
        self._pending[name] = module

    def load(self, name: str) -> None:
        """The real parser of command `name` in its placeholder's place (a no-op once done)."""
        module = self._pending.pop(name, None)
        if module is None:
            return
        order = list(self._name_parser_map)
        del self._name_parser_map[name]
        listed = len(self._choices_actions)
        importlib.import_module(module).add_parser(self)
        added = self._choices_actions[listed:]  # the module's line of the command list
        del self._choices_actions[listed:]
        at = next(i for i, a in enumerate(self._choices_actions) if a.dest == name)
        self._choices_actions[at:at + 1] = added
        parsers = [(k, self._name_parser_map[k]) for k in order if k in self._name_parser_map]
        parsers += [(k, p) for k, p in self._name_parser_map.items() if k not in order]
        self._name_parser_map.clear()  # `choices` is this dict: reordered in place
        self._name_parser_map.update(parsers)

    def load_all(self) -> None:
        for name in list(self._pending):
            self.load(name)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if values and values[0] in self._pending:
            self.load(values[0])
        super().__call__(parser, namespace, values, option_string)


def add_all(parser: argparse.ArgumentParser, parser_class: type) -> LazyCommands:
    """The subcommands of `parser`: every command of COMMANDS, loaded when chosen."""
    sub = parser.add_subparsers(dest="command", metavar="command", parser_class=parser_class,
                                action=LazyCommands)
    for name, module, text in COMMANDS:
        sub.add_lazy(name, module, text)
    return sub


def load_all(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """`parser` with every command's options (for what reads them all); returns it."""
    for action in parser._actions:
        if isinstance(action, LazyCommands):
            action.load_all()
    return parser

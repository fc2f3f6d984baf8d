"""`benchlab env`: the machine as the runner records it, and its noise warnings with fixes;
for a store, what each session recorded, each machine of a run on Dask side by side."""

from __future__ import annotations

import argparse

from benchlab.cli import output_options

EXAMPLE = """examples:
  benchlab env
  benchlab env examples/experiments/sleep.toml     # also checks the file's CPU pinning
  benchlab env --json
  benchlab env sleep.db                            # what a store recorded, session by session
  benchlab env cluster.db --format markdown        # a run on Dask: its machines side by side
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "env", help="pre-flight noise check: governor, turbo, load, ASLR, pinning",
        description="Describe this machine (CPU, cores, governor, turbo, memory, kernel, load,\n"
                    "ASLR, environment size, versions) and warn about what adds noise to\n"
                    "measurements, each warning with the command that fixes it. `benchlab run`\n"
                    "does the same check and records it in the store. Given a store, show what\n"
                    "each session recorded: for a run on Dask, every machine side by side, the\n"
                    "values that differ marked, and warnings where machines meant to be\n"
                    "identical ([machines] role = \"level\") differ.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", nargs="?", metavar="EXPERIMENT|STORE",
                   help="an experiment file whose cpus = [...] pinning to check, or a store "
                        "whose recorded environments to show")
    p.add_argument("--store", help="show the environments a store recorded (same as giving "
                                   "the store as the argument)")
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when there is a warning (noise, or identical machines that "
                        "differ)")
    output_options.add(p, plot=False)
    p.set_defaults(run=run)


def _store_path(args: argparse.Namespace) -> str | None:
    """The store to show: --store, or the argument when it is a SQLite file."""
    from benchlab.errors import UsageError
    from benchlab.sqlite_file import is_sqlite

    if args.store and args.experiment:
        raise UsageError("give an experiment file or a store, not both")
    if args.store:
        return args.store
    if args.experiment and is_sqlite(args.experiment):
        return args.experiment
    return None


def _of_store(path: str):
    """The store's sessions as a StoreEnvironments result."""
    from benchlab.runner.environment import store_environments
    from benchlab.runner.store import Store

    store = Store.open(path)
    try:
        sessions, meta = store.sessions(), dict(store.meta)
    finally:
        store.close()
    return store_environments(path, sessions, meta)


def run(args: argparse.Namespace) -> int:
    from benchlab.runner import environment

    store = _store_path(args)
    inputs = [store] if store else [args.experiment] if args.experiment else []
    output_options.check(args, inputs)
    if store:
        result = _of_store(store)
        warned = any(s.warnings or s.machine_warnings for s in result.sessions)
    else:
        cpus = None
        if args.experiment:
            from benchlab.runner.config import load_experiment

            cpus = load_experiment(args.experiment).cpus
        env = environment.collect()
        result = environment.EnvironmentCheck(env, tuple(environment.check(env, cpus)))
        warned = bool(result.warnings)
    output_options.emit(args, result, output_options.context(args, "env", inputs), inputs)
    return 1 if args.strict and warned else 0

"""`benchlab run`: run an experiment file, or commands given on the command line (quick
mode, cli/quick.py), recording every measurement into a SQLite store."""

from __future__ import annotations

import argparse
import functools
import os
import sys

from benchlab.cli import output_options

EXAMPLE = """examples:
  benchlab run examples/experiments/sleep.toml --dry-run --seed 1
  benchlab run examples/experiments/sleep.toml -o sleep.db
  benchlab run examples/experiments/sleep.toml -o sleep.db --resume   # after a crash or kill
  benchlab compare sleep.db
  benchlab run --runs 20 -- 'sleep 0.01' 'sleep 0.012'           # quick mode: no file
  benchlab run -P n 1 3 --warmup 1 -- 'sleep 0.0{n}'                # a parameter scan
  benchlab run -L size 10,100 -o scan.db -- './old {size}' './new {size}'  # a suite, kept
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="run an experiment file, or commands (quick mode); results into a "
                    "SQLite store",
        usage="benchlab run [options] EXPERIMENT\n"
              "       benchlab run [options] -- CMD [CMD ...]\n"
              "       benchlab run [options] -c CMD [-c CMD ...]",
        description="Run the builds, executions and iterations an experiment file describes,\n"
                    "interleaved in a seeded random order, recording each measurement in a SQLite\n"
                    "store as soon as it exists (resumable after a kill). Given commands instead\n"
                    "of a file (quick mode), run each --runs times interleaved and print what\n"
                    "benchlab compare prints for them (docs/run.md, quick mode).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", metavar="EXPERIMENT | CMD",
                   help="the experiment file (TOML; see docs/experiment-file.md), or the "
                        "commands to compare (quick mode; after --)")
    p.add_argument("-o", dest="store", metavar="STORE",
                   help="the store to write (default: the experiment file's name with .db, "
                        "in the current directory; quick mode: a temporary store, removed "
                        "after the output is printed)")
    p.add_argument("--resume", action="store_true",
                   help="finish the plan of an existing store (made by the same file)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan and its estimated duration; run nothing")
    p.add_argument("--estimate-from", metavar="STORE",
                   help="with --dry-run: estimate the duration from the trials of this store "
                        "(a pilot run of the same alternatives and factor levels)")
    p.add_argument("--seed", type=int, help="seed of the run order (default: the file's seed, "
                   "else a drawn one, printed and stored)")
    p.add_argument("--timeout", metavar="DURATION|none",
                   help="kill an execution (and prepare) still running after this, e.g. 30s or "
                        "5m; none: no timeout (default: the file's timeout, else 10m)")
    p.add_argument("--fail-fast", action="store_true",
                   help="stop at the first failed trial (exit 1); default: record it, go on")
    p.add_argument("--cluster", metavar="tls://HOST:PORT|local:N",
                   help="run the trials on Dask workers: a scheduler's address (workers "
                        "started with benchlab worker; tls:// with the --tls-* files), or N "
                        "workers started on this machine; the store stays here "
                        "(docs/cluster.md)")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    output_options.add(p, plot=False, output=False)  # -o is the store
    from benchlab.cli import quick, tls_options

    quick.add_options(p)

    tls_options.add(p, "the driver's (client)")
    p.set_defaults(run=run)


def _store_path(args: argparse.Namespace, experiment: str) -> str:
    if args.store:
        return args.store
    stem = os.path.splitext(os.path.basename(experiment))[0] or "results"
    return f"{stem}.db"


def run(args: argparse.Namespace) -> int:
    from benchlab.cli import quick
    from benchlab.cli.run_steps import check_targets, cluster_tls, dry_run, execute
    from benchlab.errors import UsageError

    if args.seed is not None and args.seed < 0:
        raise UsageError("--seed must be 0 or more")
    experiment = quick.experiment_file(args)
    if experiment is None:
        return quick.run(args)
    store = _store_path(args, experiment)
    again = functools.partial(resume_command, experiment, store, args.cluster,
                              timeout=args.timeout)
    check_targets(args, store, [experiment, store])
    tls = cluster_tls(args)
    if args.dry_run:
        return dry_run(args, experiment, store, [experiment])
    if args.estimate_from is not None:
        raise UsageError("--estimate-from goes with --dry-run")
    result = execute(args, experiment, store, tls, again,
                     progress_stream=None if args.format == "text" else False)
    if isinstance(result, int):
        return result
    analysis = analysis_command(store, result.seed, one_alternative(store))
    ctx = output_options.context(
        args, "run", [experiment], analysis=analysis,
        resume=again(tls=tls))
    output_options.emit(args, result, ctx)
    if args.format == "text" and result.status != "failed" and result.counts.get("ok", 0):
        _print_analysis(analysis, getattr(args, "parser", None))
    return _exit_code(result, store)


def _exit_code(result, store: str) -> int:
    """1 when any trial of the store failed or timed out (docs/exit-codes.md), with one line
    saying how many; 0 when every trial that ran succeeded."""
    failed = result.counts.get("failed", 0)
    if result.status != "failed" and not failed:
        return 0
    total = sum(result.counts.values())
    print(f"benchlab: {failed} of {total} {'trial' if total == 1 else 'trials'} failed or "
          f"timed out (exit 1); the store {store} keeps every trial", file=sys.stderr)
    return 1


def resume_command(experiment: str, store: str, cluster: str | None = None,
                   tls=None, timeout: str | None = None) -> str:
    """The command that finishes this run's plan (on the same cluster, with the same TLS
    files, for a cluster run; with the same --timeout)."""
    from shlex import quote

    where = f" --cluster {quote(cluster)}" if cluster else ""
    if timeout is not None:
        where += f" --timeout {quote(timeout)}"
    if tls is not None:
        where += (f" --tls-ca-file {quote(tls.ca_file)} --tls-cert {quote(tls.cert)} "
                  f"--tls-key {quote(tls.key)}")
    return f"benchlab run {quote(experiment)}{where} -o {quote(store)} --resume"


def analysis_command(store: str, seed: int, single: bool = False) -> list[str]:
    """`benchlab compare STORE --seed N`: the store's default analysis (data/store_design.py),
    its bootstrap seeded with the run's seed so that the command reproduces it exactly; for a
    store of one alternative (`single`), `benchlab summary STORE`, as quick mode with one
    command: there is no alternative to compare (each combination of factor levels is
    summarised; `compare --by FACTOR` compares the levels of one)."""
    if single:
        return ["benchlab", "summary", store]
    return ["benchlab", "compare", store, "--seed", str(seed)]


def one_alternative(store: str) -> bool:
    """Whether the store measured one alternative (on one machine)."""
    from benchlab.runner.store import Store

    opened = Store.open(store)
    try:
        alternatives = opened.conn.execute(
            "SELECT COUNT(DISTINCT alternative) FROM trials WHERE kind != 'build'").fetchone()[0]
        return alternatives == 1 and not opened.machine_counts()
    finally:
        opened.close()


def _print_analysis(command: list[str], parser: argparse.ArgumentParser | None) -> None:
    """The analysis of what was measured, through `benchlab compare`'s own code path (its
    errors, e.g. a single alternative, print as compare prints them), parsed by this run's
    own parser when it has one."""
    from benchlab.cli.main import main
    from benchlab.runner.blas import load_single_threaded

    load_single_threaded()  # the run's first numpy (unless the run needed it): one BLAS thread
    print()
    sys.stdout.flush()
    main(command[1:], parser)
    sys.stdout.flush()

"""`benchlab run`: run an experiment file, recording every measurement into a SQLite store."""

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
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run", help="run an experiment file; results into a SQLite store",
        description="Run the builds, executions and iterations an experiment file describes,\n"
                    "interleaved in a seeded random order, recording each measurement in a SQLite\n"
                    "store as soon as it exists (resumable after a kill).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("experiment", help="the experiment file (TOML; see docs/experiment-file.md)")
    p.add_argument("-o", dest="store", metavar="STORE",
                   help="the store to write (default: the experiment file's name with .db, "
                        "in the current directory)")
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
    from benchlab.cli import tls_options

    tls_options.add(p, "the driver's (client)")
    p.set_defaults(run=run)


def _store_path(args: argparse.Namespace) -> str:
    if args.store:
        return args.store
    stem = os.path.splitext(os.path.basename(args.experiment))[0] or "results"
    return f"{stem}.db"


def run(args: argparse.Namespace) -> int:
    from benchlab.errors import UsageError

    if args.seed is not None and args.seed < 0:
        raise UsageError("--seed must be 0 or more")
    store = _store_path(args)
    again = functools.partial(resume_command, args.experiment, store, args.cluster,
                              timeout=args.timeout)
    if any(os.path.abspath(f) == os.path.abspath(store) for f in output_options.targets(args)):
        raise UsageError(f"{store}: is the store this run writes (-o); an --export-* file "
                         "must be another file")
    output_options.check(args, [args.experiment, store])
    tls = None
    if args.cluster is not None and not args.dry_run:  # checked before anything is written
        from benchlab.cli import tls_options
        from benchlab.runner.cluster import parse_address, require_distributed

        require_distributed("--cluster")
        parse_address(args.cluster)
        tls = tls_options.files(args, args.cluster)
    elif args.cluster is None and (args.tls_ca_file or args.tls_cert or args.tls_key):
        raise UsageError("--tls-ca-file, --tls-cert and --tls-key go with --cluster "
                         "tls://HOST:PORT")
    if args.dry_run:
        from benchlab.runner.session import plan_only

        planned = plan_only(args.experiment, store, seed=args.seed, resume=args.resume,
                            estimate_from=args.estimate_from, timeout=args.timeout)
        output_options.emit(args, planned, output_options.context(args, "run",
                                                                  [args.experiment]))
        return 0
    if args.estimate_from is not None:
        raise UsageError("--estimate-from goes with --dry-run")
    import signal

    from benchlab.runner.blas import load_single_threaded

    load_single_threaded()  # before anything imports numpy: no idle BLAS threads in the runner

    from benchlab.runner.progress import make_progress
    from benchlab.runner.session import run_experiment

    def terminate(signum, frame):  # SIGTERM ends the run like Ctrl-C: the store stays whole
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    # Commands run in a process group of their own, in the background of the terminal: one
    # that reads or sets up the terminal gets an error (EIO) instead of being stopped.
    for stop in (signal.SIGTTIN, signal.SIGTTOU):
        signal.signal(stop, signal.SIG_IGN)
    progress = make_progress(args.quiet or args.format != "text")  # stdout is the document
    try:
        result = run_experiment(
            args.experiment, store, seed=args.seed, resume=args.resume,
            fail_fast=args.fail_fast, progress=progress, cluster=args.cluster, tls=tls,
            timeout=args.timeout,
            argv=["benchlab", "run", *sys.argv[2:]],
            warn=lambda text: print(f"benchlab: warning: {text}", file=sys.stderr))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: every finished trial is in the store
        if os.path.exists(store):  # else nothing ran: main's plain "interrupted"
            from benchlab.cli.main import EXIT_INTERRUPTED

            print(f"benchlab: interrupted; the finished trials are in {store}; go on with: "
                  f"{again(tls=tls)}",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        raise
    analysis = analysis_command(store, result.seed)
    ctx = output_options.context(
        args, "run", [args.experiment], analysis=analysis,
        resume=again(tls=tls))
    output_options.emit(args, result, ctx)
    if args.format == "text" and result.status != "failed" and result.counts.get("ok", 0):
        _print_analysis(analysis)
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


def analysis_command(store: str, seed: int) -> list[str]:
    """`benchlab compare STORE --seed N`: the store's default analysis (data/store_design.py),
    its bootstrap seeded with the run's seed so that the command reproduces it exactly."""
    return ["benchlab", "compare", store, "--seed", str(seed)]


def _print_analysis(command: list[str]) -> None:
    """The analysis of what was measured, through `benchlab compare`'s own code path (its
    errors, e.g. a single alternative, print as compare prints them)."""
    from benchlab.cli.main import main

    print()
    sys.stdout.flush()
    main(command[1:])
    sys.stdout.flush()

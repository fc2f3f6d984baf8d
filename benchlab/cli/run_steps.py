"""The steps `benchlab run` takes for an experiment file and for quick mode alike: check the
output targets and the cluster's TLS files, print the plan, run into the store."""

from __future__ import annotations

import argparse
import os
import sys

from benchlab.cli import output_options


def check_targets(args: argparse.Namespace, store: str, inputs: list[str]) -> None:
    """Refuse an --export-* (or --plot) file that is the store or an input, before any work."""
    from benchlab.errors import UsageError

    if any(os.path.abspath(f) == os.path.abspath(store) for f in output_options.targets(args)):
        raise UsageError(f"{store}: is the store this run writes (-o); an --export-* file "
                         "must be another file")
    output_options.check(args, inputs)


def cluster_tls(args: argparse.Namespace):
    """The driver's TLS files of a --cluster run (checked before anything is written)."""
    from benchlab.errors import UsageError

    if args.cluster is not None and not args.dry_run:
        from benchlab.cli import tls_options
        from benchlab.runner.cluster import parse_address, require_distributed

        require_distributed("--cluster")
        parse_address(args.cluster)
        return tls_options.files(args, args.cluster)
    if args.cluster is None and (args.tls_ca_file or args.tls_cert or args.tls_key):
        raise UsageError("--tls-ca-file, --tls-cert and --tls-key go with --cluster "
                         "tls://HOST:PORT")
    return None


def dry_run(args: argparse.Namespace, experiment, store: str | None,
            inputs: list[str]) -> int:
    """Print the plan (`experiment` a file's path, or quick mode's Experiment)."""
    from benchlab.runner.session import plan_only

    planned = plan_only(experiment, store, seed=args.seed, resume=args.resume,
                        estimate_from=args.estimate_from, timeout=args.timeout)
    output_options.emit(args, planned, output_options.context(args, "run", inputs))
    return 0


def execute(args: argparse.Namespace, experiment, store: str, tls, again,
            progress_stream):
    """Run `experiment` (a path or an Experiment) into `store`: its RunResult, or the exit
    code of an interrupted run (having said where the finished trials are and how to go on).
    Progress goes to `progress_stream` (None: standard output; False: none)."""
    import signal

    from benchlab.runner.progress import make_progress
    from benchlab.runner.session import run_experiment

    def terminate(signum, frame):  # SIGTERM ends the run like Ctrl-C: the store stays whole
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    # Commands run in a process group of their own, in the background of the terminal: one
    # that reads or sets up the terminal gets an error (EIO) instead of being stopped.
    for stop in (signal.SIGTTIN, signal.SIGTTOU):
        signal.signal(stop, signal.SIG_IGN)
    progress = make_progress(args.quiet or progress_stream is False,
                             progress_stream or None)
    try:
        return run_experiment(
            experiment, store, seed=args.seed, resume=args.resume,
            fail_fast=args.fail_fast, progress=progress, cluster=args.cluster, tls=tls,
            timeout=args.timeout,
            argv=["benchlab", *(getattr(args, "argv", None) or ["run", *sys.argv[2:]])],
            warn=lambda text: print(f"benchlab: warning: {text}", file=sys.stderr))
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: every finished trial is in the store
        if os.path.exists(store):  # else nothing ran: main's plain "interrupted"
            from benchlab.cli.main import EXIT_INTERRUPTED

            print(f"benchlab: interrupted; the finished trials are in {store}; go on with: "
                  f"{again(tls=tls)}",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        raise

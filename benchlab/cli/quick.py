"""`benchlab run -- CMD1 CMD2`: quick mode, commands without an experiment file.

The options become an experiment (runner/quick.py) that the runner runs as it runs
a file; the store (-o, else a temporary one removed afterwards) is then analysed by
`benchlab compare`'s own code (`benchlab summary`'s for one command), and its output
is what quick mode prints: `--format`, `--export-*` and `--plot` are compare's. The
options that mean the same as hyperfine's have its names too (docs/coming-from-hyperfine.md).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from benchlab.errors import BenchlabError, UsageError

# (dest, option) of every quick-mode option, for "goes with commands" errors
QUICK_OPTIONS = (("commands", "-c"), ("runs", "--runs"), ("min_time", "--min-time"),
                 ("warmup", "--warmup"), ("prepare", "--prepare"), ("setup", "--setup"),
                 ("cleanup", "--cleanup"), ("scan", "-P"), ("step", "--step"),
                 ("parameter_list", "-L"), ("shell", "--shell"), ("no_shell", "-N"),
                 ("name", "--name"), ("order", "--order"), ("figure", "--plot"),
                 ("no_plot", "--no-plot"), ("threshold", "--threshold"),
                 ("fail_on", "--fail-on"), ("metrics", "--metrics"), ("counter", "--counter"))


def add_options(p: argparse.ArgumentParser) -> None:
    """The options of quick mode (commands instead of an experiment file)."""
    g = p.add_argument_group(
        "quick mode (commands instead of an experiment file; hyperfine's names too)")
    g.add_argument("-c", "--command", dest="commands", action="append", metavar="CMD",
                   help="a command to compare (repeat it; or give the commands after --)")
    g.add_argument("-r", "--runs", type=int, metavar="N",
                   help="executions of each command (default 10); with "
                        "--min-time the most")
    g.add_argument("--min-time", metavar="DURATION",
                   help="run rounds until the executions took this long in all, e.g. 10s")
    g.add_argument("-w", "--warmup", type=int, default=0, metavar="N",
                   help="warm-up executions of each command, not measured (default 0)")
    g.add_argument("-p", "--prepare", metavar="CMD",
                   help="run CMD before each execution (not timed)")
    g.add_argument("-s", "--setup", metavar="CMD",
                   help="run CMD once before the first execution")
    g.add_argument("--cleanup", metavar="CMD", help="run CMD once after the last execution")
    g.add_argument("-P", "--parameter-scan", dest="scan", nargs=3, action="append",
                   metavar=("NAME", "LOW", "HIGH"),
                   help="run each command with {NAME} = LOW, LOW+STEP, ... HIGH")
    g.add_argument("-D", "--step", "--parameter-step-size", dest="step", metavar="STEP",
                   help="the step of -P (default 1; decimals allowed)")
    g.add_argument("-L", "--parameter-list", dest="parameter_list", nargs=2, action="append",
                   metavar=("NAME", "VALUES"),
                   help="run each command with {NAME} = each of the comma-separated VALUES")
    g.add_argument("--shell", action="store_true",
                   help="run each command with /bin/sh -c (default: split into words and run "
                        "directly, no shell)")
    g.add_argument("-N", "--no-shell", dest="no_shell", action="store_true",
                   help="run without a shell (the default; hyperfine's -N)")
    g.add_argument("-n", "--name", "--command-name", dest="name", action="append",
                   metavar="NAME", help="the name of a command in the output (repeat it, "
                                        "in the commands' order)")
    g.add_argument("--order", choices=("interleaved", "sequential"),
                   help="interleaved: every round runs each command once, in a random order "
                        "(default); sequential: all runs of one command, then the next "
                        "(hyperfine's order)")
    g.add_argument("--metrics", metavar="LIST",
                   help="what to measure, comma-separated: wall, cpu, user, sys, maxrss, "
                        "instructions, cycles, task-clock, page-faults, ... (default "
                        "wall,user,sys,maxrss; docs/metrics.md)")
    g.add_argument("--counter", choices=("cachegrind", "callgrind"),
                   help="count instructions under Valgrind in separate executions, "
                        "interleaved with the timed ones")
    g.add_argument("--plot", metavar="FILE", dest="figure",
                   help="draw the comparison's figure to FILE (.png, .svg or .pdf)")
    g.add_argument("--no-plot", action="store_true",
                   help="omit the distribution plot from the text output")
    g.add_argument("--threshold", metavar="THRESHOLD",
                   help="the smallest change that matters, e.g. 2%% (compare's --threshold)")
    g.add_argument("--fail-on", choices=["change", "regression"],
                   help="exit 1 if a verdict is a change / a change in the bad direction")


def _given(args: argparse.Namespace) -> list[str]:
    """The quick-mode options given, by their option names."""
    return [flag for dest, flag in QUICK_OPTIONS
            if getattr(args, dest, None) not in (None, False, 0, [])]


def _looks_like_file(word: str) -> bool:
    """An experiment file: a name ending in .toml, or an existing file that is not a
    program (a command's first word is one, or a command line with spaces)."""
    if word.lower().endswith(".toml"):
        return True
    return os.path.isfile(word) and not os.access(word, os.X_OK)


def experiment_file(args: argparse.Namespace) -> str | None:
    """The experiment file of a file-mode run, or None for quick mode; UsageError for a file
    and commands together, for neither, or for quick-mode options beside a file."""
    inputs, commands = args.inputs, args.commands or []
    if inputs and commands:
        if _looks_like_file(inputs[0]):
            raise UsageError(f"{inputs[0]}: an experiment file and -c commands: give one or "
                             "the other")
        raise UsageError("commands both after -- and with -c: give them one way")
    if not inputs and not commands:
        raise UsageError("nothing to run: give an experiment file (benchlab run FILE) or "
                         "commands (benchlab run -- 'CMD1' 'CMD2')")
    if commands or not _looks_like_file(inputs[0]):
        return None
    if len(inputs) > 1:
        raise UsageError(f"{inputs[0]}: an experiment file and commands: give one or the "
                         "other (quick mode: benchlab run -- 'CMD1' 'CMD2')")
    given = _given(args)
    if given:
        raise UsageError(f"{given[0]} goes with commands (quick mode), not with an experiment "
                         "file, which says it itself (docs/experiment-file.md)")
    return inputs[0]


def spec_of(args: argparse.Namespace):
    """The QuickSpec of the options (runner/quick.py checks the rest)."""
    from benchlab.runner import quick

    if args.shell and args.no_shell:
        raise UsageError("--shell and -N/--no-shell contradict each other")
    if args.step is not None and not args.scan:
        raise UsageError("--step goes with -P NAME LOW HIGH")
    if args.min_time is not None and args.runs is not None and args.runs < 1:
        raise UsageError(f"--runs must be at least 1, not {args.runs}")
    scans = [quick.scan_values(name, low, high, args.step) for name, low, high in args.scan or []]
    scans += [quick.list_values(name, values) for name, values in args.parameter_list or []]
    return quick.QuickSpec(
        commands=tuple(args.commands or args.inputs), names=tuple(args.name or ()),
        shell=args.shell, runs=args.runs,
        min_time=quick.min_time(args.min_time) if args.min_time is not None else None,
        warmup=args.warmup, prepare=args.prepare, setup=args.setup, cleanup=args.cleanup,
        scans=tuple(scans), metrics=_metric_list(args.metrics), counter=args.counter,
        order="sequential" if args.order == "sequential" else "interleaved-random")


def _metric_list(text: str | None) -> tuple[str, ...]:
    """`--metrics wall,instructions` as names (checked by the experiment's own parser)."""
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if not all(names):
        raise UsageError(f"--metrics {text!r}: an empty name; give names separated by commas, "
                         "e.g. --metrics wall,instructions")
    return names


def resume_command(argv: list[str], store: str) -> str:
    """This run's command line with `-o STORE --resume` (any -o or --resume given removed):
    the same options give the same experiment, which --resume requires."""
    words, i = [], 0
    options = list(argv[1:] if argv and argv[0] == "run" else argv)
    while i < len(options):
        word = options[i]
        if word == "--":
            words += options[i:]
            break
        if word == "-o":
            i += 2
            continue
        if not (word == "--resume" or (word.startswith("-o") and not word.startswith("--"))):
            words.append(word)
        i += 1
    return shlex.join(["benchlab", "run", "-o", store, "--resume", *words])


def run(args: argparse.Namespace) -> int:
    """Quick mode: the options as an experiment, run into a store, analysed as compare does."""
    from benchlab.cli import run_steps as file_mode
    from benchlab.errors import InputError
    from benchlab.runner.quick import SOURCE, quick_experiment

    if args.resume and not args.store:
        raise UsageError("--resume needs -o STORE: a run without -o keeps no store to resume")
    spec = spec_of(args)
    experiment = quick_experiment(spec)
    single = len(experiment.alternatives) == 1
    analysis_flags = [flag for flag, value in (("--no-plot", args.no_plot),
                                                ("--threshold", args.threshold),
                                                ("--fail-on", args.fail_on)) if value]
    if single and analysis_flags:
        raise UsageError(f"{analysis_flags[0]} compares commands: give two or more, or a "
                         "parameter scan")
    if args.dry_run:
        if args.figure:
            raise UsageError("--plot draws the result: it does not go with --dry-run")
        file_mode.check_targets(args, args.store or "", [])
        return file_mode.dry_run(args, experiment, args.store, [])
    if args.estimate_from is not None:
        raise UsageError("--estimate-from goes with --dry-run")
    import tempfile

    temporary = None
    if args.store:
        store = args.store
    else:
        temporary = tempfile.mkdtemp(prefix="benchlab-run-")
        store = os.path.join(temporary, "run.db")
    try:
        file_mode.check_targets(args, store, [store])
        tls = file_mode.cluster_tls(args)
        again = _again(args, store)
        try:
            result = file_mode.execute(args, experiment, store, tls, again,
                                       progress_stream=sys.stderr)
        except InputError as exc:  # a failed setup: the line of a file nobody wrote
            if exc.where and exc.where.startswith(SOURCE):
                raise InputError(exc.message) from None
            raise
        if isinstance(result, int):  # interrupted: the store is kept to go on with
            temporary = None
            return result
        _say_run(result, experiment, args.store is not None)
        code = 0
        failed = result.counts.get("failed", 0)
        if result.counts.get("ok", 0):
            try:
                code = _analyse(args, store, result.seed, single)
            except BenchlabError as exc:
                if not failed:
                    raise
                print(f"benchlab: {exc}", file=sys.stderr)  # e.g. a command that never ran
        if failed or result.status == "failed":
            total = sum(result.counts.values())
            print(f"benchlab: {failed} of {total} executions failed (exit 1)"
                  + (f"; the store {store} keeps them" if args.store else ""), file=sys.stderr)
            return max(code, 1)
        return code
    finally:
        if temporary is not None:
            import shutil

            shutil.rmtree(temporary, ignore_errors=True)


def _again(args: argparse.Namespace, store: str):
    argv = list(getattr(args, "argv", None) or sys.argv[1:])

    def again(tls=None) -> str:
        return resume_command(argv, store)

    return again


def _say_run(result, experiment, kept: bool) -> None:
    """One line on standard error: what ran, in which order and seed, where the store is."""
    from benchlab.escape import terminal

    order = "interleaved in a random order" if experiment.order != "sequential" \
        else "one command after another"
    where = f"store {result.store}" if kept else "measurements not kept (-o STORE keeps them)"
    status = "" if result.status in ("finished", "already-finished") else \
        f"; stopped: {result.stop_reason}" if result.stop_reason else ""
    if result.status.startswith("already-"):
        ran = "nothing left to run: the store's executions have all run"
    else:
        from benchlab.notation import plural

        ran = f"{plural(result.ran, 'execution')} ran ({order}, seed {result.seed}){status}"
    print(terminal(f"benchlab: {ran}; {where}"), file=sys.stderr)
    for seq, alternative, error, tail in result.failures[:5]:
        last = tail.strip().split("\n")[-1] if tail.strip() else ""
        print(terminal(f"benchlab: execution {seq} of {alternative!r} failed: {error}"
                       + (f": {last}" if last else "")), file=sys.stderr)


def _analyse(args: argparse.Namespace, store: str, seed: int, single: bool) -> int:
    """compare's (summary's, for one command) output for the store, with this run's output
    options and its command line in the JSON envelope; its exit status."""
    words = ["summary" if single else "compare", store]
    if not single:
        words += ["--seed", str(seed)]  # the analysis's bootstrap: reproducible from the store
    words += ["--format", args.format]
    for fmt in ("json", "markdown", "csv", "html"):
        target = getattr(args, f"export_{fmt}")
        if target:
            words += [f"--export-{fmt}", target]
    if args.figure:
        words += ["--plot", args.figure]
    if args.force:
        words.append("--overwrite")
    if args.no_plot:
        words.append("--no-plot")
    if args.threshold:
        words += ["--threshold", args.threshold]
    if args.fail_on:
        words += ["--fail-on", args.fail_on]
    parser = getattr(args, "parser", None)  # main's, built once (else a caller's Namespace)
    if parser is None:
        from benchlab.cli.main import build_parser

        parser = build_parser()
    parsed = parser.parse_args(words)
    own = argparse.Namespace(**{**vars(parsed), "argv": list(getattr(args, "argv", None)
                                                                or sys.argv[1:])})
    sys.stdout.flush()
    from benchlab.runner.blas import load_single_threaded

    load_single_threaded()  # the run's first numpy (unless the run needed it): one BLAS thread
    return int(own.run(own))

"""`benchlab bisect`: the commit between a good and a bad revision where a benchmark changed.

Parses the options into the search's Settings (runner/bisect.py), opens or creates the
store, runs the search with one progress line per step on standard error, and hands the
result to report/bisect.py. `--resume` with the store alone takes every setting from it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from benchlab.cli import common, output_options
from benchlab.errors import UsageError

EXAMPLE = """examples:
  benchlab bisect --repo . --good v1.2 --bad HEAD --build 'make -j2' --command './bench'
  benchlab bisect --repo . --good v1.2 --bad HEAD --build make --command './bench' \\
      --threshold 3% -o bisect.db --json
  benchlab bisect --repo . --good v1.2 --bad HEAD --build make --command './bench' \\
      --metric instructions --counter cachegrind   # exact counts: a loaded machine too
  benchlab bisect -o bisect.db --resume          # after Ctrl-C or a kill
  benchlab bisect --repo . --good v1.2 --bad HEAD --build make --command './bench' \\
      --cluster tcp://10.0.0.1:8786 --machine m1   # built and measured on machine m1
"""
DEFAULT_RUNS, DEFAULT_MAX_RUNS = 5, 100
# (dest, option) of the settings a resumed store keeps; given again they must agree
# (--command's dest is not "command": that is the name of the subcommand itself)
SETTINGS = (("repo", "--repo"), ("good", "--good"), ("bad", "--bad"), ("build", "--build"),
            ("benchmark_command", "--command"), ("threshold", "--threshold"),
            ("metric", "--metric"), ("confidence", "--confidence"), ("runs", "--runs"),
            ("max_runs", "--max-runs"), ("warmup", "--warmup"), ("prepare", "--prepare"),
            ("seed", "--seed"), ("timeout", "--timeout"), ("counter", "--counter"))


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bisect", help="find the commit where a benchmark changed (interleaved, resumable)",
        description="Build each needed commit of a git repository in its own worktree and "
                    "find the first commit between --good and --bad whose command is slower "
                    "(or faster) beyond the threshold: the ends are confirmed first, then "
                    "each middle commit is run interleaved with the current ends until the CI "
                    "of its position says on which side it is; every decision at a level that "
                    "keeps the chance of a wrong culprit below 1 - confidence "
                    "(docs/bisect.md).",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("what to bisect")
    g.add_argument("--good", metavar="REV", help="a commit with the old performance")
    g.add_argument("--bad", metavar="REV", help="a later commit with the new performance")
    add_options(p, g)
    add_cluster_options(p, "--machine")
    p.set_defaults(run=run)


def add_cluster_options(p: argparse.ArgumentParser, machine_flag: str) -> None:
    """--cluster, the worker's machine (`machine_flag`: --machine on bisect, --cluster-machine
    on history bisect, whose --machine names the series) and the TLS files of run --cluster
    (cli/tls_options.py)."""
    from benchlab.cli import tls_options

    c = p.add_argument_group("cluster")
    c.add_argument("--cluster", metavar="ADDRESS",
                   help="build and measure on one worker of the Dask scheduler at tls://"
                   "HOST:PORT or tcp://HOST:PORT (`benchlab "
                   "worker ADDRESS --machine NAME`; tls:// with the --tls-* files), or on "
                   "local:1, one worker process started on this machine; the repository must "
                   "be at the same path there (docs/bisect.md)")
    c.add_argument(machine_flag, dest="cluster_machine", metavar="NAME", help="with --cluster: "
                   "the machine whose worker builds and measures (needed when several are "
                   "connected)" + ("" if machine_flag == "--machine" else "; default: the "
                                   "machine --machine names, where the change was seen; "
                                   "without --machine, the one machine connected"))
    p.set_defaults(cluster_machine_flag=machine_flag)
    tls_options.add(p, "the driver's (client)")


HISTORY_EXAMPLE = """examples:
  benchlab history bisect --db history.db --benchmark sort --repo . --build make \\
      --command './bench sort'
  benchlab history bisect --db history.db --benchmark sort --change 2 --repo . ...
"""


def add_history_parser(inner: argparse._SubParsersAction) -> None:
    """`benchlab history bisect`: bisect the commits of a change `history check` found."""
    p = inner.add_parser(
        "bisect", help="bisect the range of a change history check found, to its commit",
        description="Find the change of --benchmark that `history check` reports (with the "
                    "same --threshold), take the commits between the last one measured before "
                    "it and the first one after as good and bad, and bisect them as "
                    "`benchlab bisect` does (docs/bisect.md).",
        epilog=HISTORY_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("what to bisect")
    g.add_argument("--db", required=True, metavar="DB", help="the history: a SQLite file or "
                   "postgresql://USER@HOST:PORT/NAME")
    g.add_argument("--benchmark", required=True, metavar="NAME",
                   help="the benchmark whose change to bisect")
    g.add_argument("--machine", metavar="NAME", help="its series of this machine (needed "
                   "when the benchmark has changes on several)")
    g.add_argument("--change", type=int, metavar="N", help="which of the benchmark's changes, "
                   "oldest first (needed when it has several)")
    add_options(p, g)
    add_cluster_options(p, "--cluster-machine")
    p.set_defaults(history_run=run_history)


def add_options(p: argparse.ArgumentParser, g: argparse._ArgumentGroup) -> None:
    """The options of `bisect` and `history bisect` but --good and --bad."""
    from benchlab.runner.bisect_store import METRICS

    g.add_argument("--repo", metavar="DIR", help="the git repository (never checked out: "
                   "each commit is built in a worktree of its own)")
    g.add_argument("--build", metavar="CMD",
                   help="the build command, run with /bin/sh in the commit's worktree")
    g.add_argument("--command", dest="benchmark_command", metavar="CMD",
                   help="the command to time, run in the commit's worktree (split into "
                        "words; --shell runs it with /bin/sh)")
    g.add_argument("--shell", action="store_true",
                   help="run --command and --prepare with /bin/sh -c")
    g.add_argument("--prepare", metavar="CMD", help="run CMD before each execution (not timed)")
    g.add_argument("--cache", metavar="DIR", help="where the worktrees and builds are kept "
                   "(default ~/.cache/benchlab/bisect/<repository>)")
    g.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="the longest a build or an execution may take")
    a = p.add_argument_group("decisions")
    a.add_argument("--threshold", type=common.percent_type("threshold"), metavar="THRESHOLD",
                   help="the smallest change that matters (default 2%%)")
    a.add_argument("--metric", choices=METRICS,
                   help="what to compare: wall time (default), user or sys CPU time, cpu "
                        "(user + sys), maxrss (peak memory), instructions (counted: by the "
                        "PMU, or by Valgrind with --counter)")
    a.add_argument("--counter", choices=("cachegrind", "callgrind"),
                   help="with --metric instructions: count them under Valgrind (exact, "
                        "about 20-50 times slower; docs/metrics.md)")
    a.add_argument("--confidence", metavar="LEVEL", help="the chance of naming the right "
                   "commit, at least (default 95)")
    a.add_argument("-r", "--runs", type=int, metavar="N", help="executions of each arm at a "
                   f"step's first look (default {DEFAULT_RUNS}); each later look doubles them")
    a.add_argument("--max-runs", type=int, metavar="N", help="executions of each arm at a "
                   f"step's last look, at most (default {DEFAULT_MAX_RUNS}); the steps after "
                   "the ends take what the ends' spread says they need, up to this")
    a.add_argument("-w", "--warmup", type=int, metavar="N",
                   help="unmeasured rounds at the start of each step (default 0)")
    a.add_argument("--seed", type=int, metavar="N",
                   help="the seed of the run order (default: drawn, kept in the store)")
    a.add_argument("--fail-on", choices=["found"],
                   help="exit 1 when a culprit is found (for CI)")
    s = p.add_argument_group("store")
    s.add_argument("-o", "--store", metavar="STORE", help="keep every build, step and "
                   "execution in STORE (default: a temporary store, removed at the end)")
    s.add_argument("--resume", action="store_true",
                   help="continue the bisect of -o STORE where it stopped (the settings are "
                        "the store's)")
    output_options.add(p, plot=False, output=False)


def _given(args: argparse.Namespace) -> dict[str, object]:
    return {dest: getattr(args, dest) for dest, _ in SETTINGS if getattr(args, dest) is not None}


def settings_of(args: argparse.Namespace, good_rev: str | None, bad_rev: str | None):
    """The Settings of a new bisect from the options and the two revisions (resolved to
    SHAs)."""
    import random

    from benchlab.runner import git_builds
    from benchlab.runner.bisect import Settings

    given = {"--repo": args.repo, "--good": good_rev, "--bad": bad_rev, "--build": args.build,
             "--command": args.benchmark_command}
    for flag, value in given.items():
        if value is None:
            raise UsageError(f"{flag} is needed (or -o STORE --resume to continue a bisect)")
    runs = DEFAULT_RUNS if args.runs is None else args.runs
    most = max(DEFAULT_MAX_RUNS, runs) if args.max_runs is None else args.max_runs
    if runs < 2:
        raise UsageError(f"--runs must be at least 2 (a spread needs 2), not {runs}")
    if most < runs:
        raise UsageError(f"--max-runs ({most}) must be at least --runs ({runs})")
    if args.warmup is not None and args.warmup < 0:
        raise UsageError(f"--warmup must be 0 or more, not {args.warmup}")
    if args.timeout is not None and not args.timeout > 0:
        raise UsageError(f"--timeout must be above 0, not {args.timeout:g}")
    metric = args.metric or "wall"
    check_counting(metric, args.counter)
    repo = os.path.realpath(args.repo)
    good = git_builds.resolve(repo, str(good_rev))
    bad = git_builds.resolve(repo, str(bad_rev))
    settings = Settings(
        repo=repo, good=good, bad=bad, build=args.build, command=args.benchmark_command,
        shell=args.shell, threshold=0.02 if args.threshold is None else args.threshold,
        metric=metric, confidence=common.confidence(args.confidence),
        first=runs, most=most, warmup=args.warmup or 0, prepare=args.prepare,
        seed=random.SystemRandom().randrange(2**31) if args.seed is None else args.seed,
        timeout=args.timeout, counter=args.counter)
    settings.argv(settings.command)  # a command that cannot be split: said now
    return settings


def check_counting(metric: str, counter: str | None) -> None:
    """--counter only with --metric instructions; instructions only where they can be
    counted (the PMU, or Valgrind installed for --counter): refused before any build."""
    if counter is not None and metric != "instructions":
        raise UsageError(f"--counter {counter} counts instructions: give --metric "
                         f"instructions (not {metric})")
    if metric != "instructions":
        return
    if counter is not None:
        from benchlab.runner.counter import version

        if version() is None:
            raise UsageError(f"--counter {counter} needs Valgrind, which is not installed "
                             "here (apt-get install valgrind)")
        return
    from benchlab.runner.perf_event import probe

    found = probe("instructions")
    if not found.ok:
        raise UsageError("--metric instructions needs a hardware PMU, which this machine does "
                         f"not offer ({found.reason}); count them under Valgrind with "
                         "--counter cachegrind")


def resumed_settings(args: argparse.Namespace, stored: dict[str, object]):
    """The store's Settings; UsageError when an option given says otherwise."""
    from benchlab.runner.bisect import Settings

    settings = Settings(**stored)
    given = _given(args)
    if args.shell and not settings.shell:
        raise UsageError("--shell: the store's bisect runs its command without a shell")
    checks = {"repo": os.path.realpath(str(given.get("repo", settings.repo))),
              "threshold": given.get("threshold"), "metric": given.get("metric"),
              "build": given.get("build"), "command": given.get("benchmark_command"),
              "prepare": given.get("prepare"), "seed": given.get("seed"),
              "warmup": given.get("warmup"), "timeout": given.get("timeout"),
              "counter": given.get("counter")}
    if "confidence" in given:
        checks["confidence"] = common.confidence(str(given["confidence"]))
    if "runs" in given:
        checks["first"] = given["runs"]
    if "max_runs" in given:
        checks["most"] = given["max_runs"]
    for key, value in checks.items():
        if value is not None and value != getattr(settings, key):
            flag = dict(SETTINGS).get({"first": "runs", "most": "max_runs"}.get(key, key),
                                      f"--{key}")
            raise UsageError(f"{flag} {value}: the store's bisect has "
                             f"{getattr(settings, key)!r}; --resume continues it as it was "
                             "(leave the option out, or start a new store)")
    for key in ("good", "bad"):
        if key in given:
            from benchlab.runner import git_builds

            if git_builds.resolve(settings.repo, str(given[key])) != getattr(settings, key):
                raise UsageError(f"--{key} {given[key]}: the store's bisect has "
                                 f"{getattr(settings, key)[:12]}")
    return settings


def history_range(args: argparse.Namespace) -> tuple[str, str, str]:
    """(good, bad, what) of the change `history check` reports for --benchmark: the last
    commit measured before it and its first commit (an episode's start)."""
    from benchlab.conninfo import shown
    from benchlab.history.check import check
    from benchlab.history.store import History

    threshold = 0.02 if args.threshold is None else args.threshold
    with History.open(args.db) as history:
        commits = history.commits()
        series = [x for x in history.series() if x.benchmark == args.benchmark
                  and (args.machine is None or x.machine == args.machine)]
    if not series:
        raise UsageError(f"--benchmark {args.benchmark}: no such series in {shown(args.db)}"
                         + (f" on machine {args.machine}" if args.machine else ""))
    found = check(series, commits, threshold=threshold).changes
    order = {c.sha: i for i, c in enumerate(commits)}
    changes = sorted(found, key=lambda c: order[c.commit])
    if not changes:
        raise UsageError(f"history check finds no change of {args.benchmark} beyond "
                         f"{100 * threshold:g}% in {shown(args.db)}: nothing to bisect")
    listed = "; ".join(f"{k}: {c.kind} at {c.commit} (after {c.previous_commit}, "
                       f"machine {c.machine}, metric {c.metric})"
                       for k, c in enumerate(changes, start=1))
    if args.change is None and len(changes) > 1:
        raise UsageError(f"{args.benchmark} has {len(changes)} changes ({listed}): choose "
                         "one with --change N")
    k = 1 if args.change is None else args.change
    if not 1 <= k <= len(changes):
        raise UsageError(f"--change {k}: {args.benchmark} has {len(changes)} change"
                         f"{'s' if len(changes) > 1 else ''} ({listed})")
    c = changes[k - 1]
    return c.previous_commit, c.commit, (f"{c.kind} of {c.benchmark} ({c.metric}, machine "
                                         f"{c.machine}) at {c.commit}, after "
                                         f"{c.previous_commit}: {c.verdict.text}")


def run_history(args: argparse.Namespace) -> int:
    """`history bisect`: the change's range as --good and --bad, then bisect's own run."""
    if args.resume:
        raise UsageError("history bisect starts a bisect; continue one with "
                         "benchlab bisect -o STORE --resume")
    if args.repo is None:
        raise UsageError("--repo is needed: the repository of the history's commits")
    good, bad, what = history_range(args)
    print(f"benchlab: bisecting the {what}", file=sys.stderr, flush=True)
    # on a cluster, measured on the machine the change was seen on unless said otherwise
    seen_on = args.machine if args.cluster is not None and not args.cluster_machine else None
    try:
        return bisect(args, good, bad, args.cluster_machine or seen_on)
    except UsageError as exc:
        if seen_on is None or f"machine {seen_on} is not connected" not in str(exc):
            raise
        raise UsageError(f"{exc} (the worker of --machine {seen_on}, where the change was "
                         "seen; --cluster-machine NAME chooses another)") from None


def resume_command(store: str, remote=None, tls=None) -> str:
    """The command that continues the bisect of `store` (on the same cluster's machine, with
    the same TLS files)."""
    words = ["benchlab", "bisect", "-o", store, "--resume"]
    if remote is not None:
        words += ["--cluster", remote.cluster.address, "--machine", remote.machine]
    if tls is not None:
        words += ["--tls-ca-file", tls.ca_file, "--tls-cert", tls.cert, "--tls-key", tls.key]
    return shlex.join(words)


def _tls(args: argparse.Namespace, address: str | None):
    """The driver's checked TLS files for a tls:// --cluster (cli/tls_options.py), else None;
    a --tls-* option without a tls:// --cluster is one line."""
    from benchlab.cli import tls_options

    if address is not None:
        return tls_options.files(args, address)
    named = [flag for flag, dest in (("--tls-ca-file", "tls_ca_file"),
                                     ("--tls-cert", "tls_cert"), ("--tls-key", "tls_key"))
             if getattr(args, dest, None)]
    if named:
        raise UsageError(f"{', '.join(named)} {'go' if len(named) > 1 else 'goes'} with "
                         "--cluster tls://HOST:PORT")
    return None


def _connect(address: str, machine: str | None, cache: str, say, tls):
    """The Dask worker of `machine` that builds and measures (runner/bisect_cluster.py); one
    line when no scheduler or no such machine answers."""
    from benchlab.runner.bisect_cluster import connect

    return connect(address, machine, os.path.abspath(cache), say, tls=tls)


def _cluster_options(stored: dict) -> str:
    """The options that resume on the cluster machine of the store's `measured_on`: local:1
    again (with --machine unless it was local:1's default name), else the machine's address."""
    from benchlab.runner.bisect_cluster import LOCAL_MACHINE

    machine, scheduler = stored.get("machine"), str(stored.get("scheduler", ""))
    if scheduler.startswith("local:"):
        return f"--cluster {scheduler}" + ("" if machine == LOCAL_MACHINE else
                                           f" --machine {machine}")
    return f"--cluster ADDRESS --machine {machine}"


def _check_measured_on(store, remote) -> None:
    """One bisect measures on one machine: the store keeps where (meta `measured_on`: this
    machine, or the cluster's machine), and a resume elsewhere is refused, since a step's
    executions measured on two machines would compare their hardware."""
    import json
    import platform

    here = remote.where() if remote is not None else {"where": "local",
                                                      "host": platform.node()}
    text = store.meta("measured_on")
    if text is None:
        if store.count() and remote is not None:  # a store of a bisect from before the meta
            text = json.dumps({"where": "local"})
        else:
            store.set_meta("measured_on", json.dumps(here, sort_keys=True))
            return
    stored = json.loads(text)
    if stored.get("where") != here["where"] or stored.get("machine") != here.get("machine"):
        was = (f"machine {stored.get('machine')} of a cluster" if stored.get("where") ==
               "cluster" else "this machine, without --cluster")
        now = (f"--cluster's machine {here['machine']}" if remote is not None else
               "this machine")
        hint = (" (leave --cluster out)" if stored.get("where") != "cluster" else
                f" (give {_cluster_options(stored)})")
        raise UsageError(f"the store's executions were measured on {was}, not on {now}: a "
                         f"bisect measures on one machine; resume it there{hint}")


def run(args: argparse.Namespace) -> int:
    return bisect(args, args.good, args.bad, args.cluster_machine)


def bisect(args: argparse.Namespace, good: str | None, bad: str | None,
           machine: str | None) -> int:
    """Bisect from `good` to `bad` (or resume the store's bisect) with the options; with
    --cluster, on the worker of `machine` (None: the only machine connected)."""
    import tempfile

    from benchlab.runner import git_builds
    from benchlab.runner.bisect import Search
    from benchlab.runner.bisect_store import BisectStore

    output_options.check(args, [args.store] if args.store else [])
    if args.resume and not args.store:
        raise UsageError("--resume needs -o STORE: a bisect without -o keeps no store")
    address = getattr(args, "cluster", None)
    if getattr(args, "cluster_machine", None) is not None and address is None:
        raise UsageError(f"{getattr(args, 'cluster_machine_flag', '--machine')} NAME chooses "
                         "a worker of --cluster ADDRESS: give --cluster too")
    tls = _tls(args, address)

    def say(text: str) -> None:
        print(f"benchlab: {text}", file=sys.stderr, flush=True)

    temporary = None
    remote = None
    if args.resume:
        store = BisectStore.open(args.store)
        try:
            settings = resumed_settings(args, store.settings())
            cache = args.cache or store.meta("cache") or git_builds.default_cache(settings.repo)
            if address is not None:
                remote = _connect(address, machine, cache, say, tls)
            _check_measured_on(store, remote)
        except BaseException:
            store.close()
            if remote is not None:
                remote.close()
            raise
    else:
        settings = settings_of(args, good, bad)
        cache = args.cache or git_builds.default_cache(settings.repo)
        if address is not None:
            remote = _connect(address, machine, cache, say, tls)
        if args.store:
            path = args.store
        else:
            temporary = tempfile.mkdtemp(prefix="benchlab-bisect-")
            path = os.path.join(temporary, "bisect.db")
        try:
            store = BisectStore.create(path, settings.document())
        except BaseException:
            if remote is not None:
                remote.close()
            raise
        _check_measured_on(store, remote)  # a new store: records where it measures
    if store.meta("cache") != os.path.abspath(cache):
        store.set_meta("cache", os.path.abspath(cache))  # a resume finds the builds there
    extra = {}
    if remote is not None:
        extra = {"builder": remote.builder(settings), "remote": remote}
        say(f"building and measuring on machine {remote.machine} (host {remote.host}, "
            f"worker {remote.worker})")

    try:
        try:
            result = Search(settings, store, cache, say, **extra).run()
        except KeyboardInterrupt:
            if args.store:
                say(f"interrupted; continue with: {resume_command(args.store, remote, tls)}")
            raise
        store.set_meta("status", result.status)
        import json

        store.set_meta("subjects", json.dumps(result.subjects, sort_keys=True))
        from dataclasses import replace

        if remote is not None:
            result = replace(result, notes=(*result.notes, (
                f"every build and execution ran on machine {remote.machine} (host "
                f"{remote.host}, Dask worker {', then '.join(remote.workers)}): all commits "
                "measured on the same hardware")))
        if temporary is not None:
            result = replace(result, store=None)
    finally:
        store.close()
        if remote is not None:
            remote.close()
        if temporary is not None:
            import shutil

            shutil.rmtree(temporary, ignore_errors=True)
    ctx = output_options.context(args, "bisect", [], kept=bool(args.store))
    output_options.emit(args, result, ctx)
    if args.fail_on == "found" and result.culprit is not None:
        return 1
    return 0

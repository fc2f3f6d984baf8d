"""What runs on the Dask worker of `benchlab bisect --cluster` (docs/bisect.md): a commit's
build in its worktree, and a look's executions timed right there, in the order given.

The worker runs the very functions a local bisect uses (git_builds.Builder, and
runner/bisect.time_once, which times the command with execute.run_process beside it), so
a measurement covers the spawn and the wait on the worker's machine and nothing of the
dispatch. No Dask here: the driver (runner/bisect_cluster.py) sends these functions by
reference and the worker imports them.
"""

from __future__ import annotations

from benchlab.runner import git_builds
from benchlab.runner.bisect import Settings, Timing, time_once


def cached(s: Settings, cache: str, sha: str) -> git_builds.Build | None:
    """The commit's build made before on this machine (under `cache`), or None."""
    return git_builds.Builder(s.repo, cache, s.build, s.timeout).cached(sha)


def build(s: Settings, cache: str, sha: str) -> git_builds.Build:
    """The commit built on this machine in its worktree under `cache` (or found there)."""
    return git_builds.Builder(s.repo, cache, s.build, s.timeout).build(sha)


def run_executions(s: Settings, cache: str, shas: list[str]) -> list[tuple[str, Timing]]:
    """Execute each commit's command once, in the order given, in its worktree on this
    machine: (start time, its timing) for each."""
    from benchlab.sqlite_file import timestamp

    builder = git_builds.Builder(s.repo, cache, s.build, s.timeout)
    argv = s.argv(s.command)
    prepare = s.argv(s.prepare) if s.prepare else None
    counters = None
    if s.metric == "instructions" and s.counter is None:
        from benchlab.runner.perf_event import Counters

        counters = Counters(("instructions",))
    out = []
    try:
        for sha in shas:
            started = timestamp()
            out.append((started, time_once(s, argv, prepare, sha, builder.tree(sha),
                                           counters)))
    finally:
        if counters is not None:
            counters.close()
    return out

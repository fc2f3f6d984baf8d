"""Commits of a git repository built each in its own worktree, for `benchlab bisect`.

The user's checkout is never touched: every commit gets a detached worktree
(`git worktree add --detach`) under a cache folder, named by the commit and a hash of
the build command, and the build command runs there with /bin/sh. What a build did
(its status, duration, exit code, the tail of its standard error and its environment)
is written beside the worktree, so a later bisect with the same build command reuses
it, a failed build included (it is skipped again, as `git bisect skip` would be).
Writing a worktree adds its entry to the repository's .git/worktrees, nothing else.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
from dataclasses import asdict, dataclass, field

from benchlab.errors import InputError
from benchlab.runner.execute import run_process

# Variables of the environment that usually change what a build makes; recorded with it.
BUILD_VARIABLES = ("PATH", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS",
                   "MAKEFLAGS", "RUSTFLAGS", "GOFLAGS", "PYTHONPATH")


def git(repo: str, *args: str) -> str:
    """`git -C repo ARGS`'s standard output; InputError naming the repository when it fails."""
    try:
        done = subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise InputError("git is not installed (bisect needs it)") from None
    if done.returncode != 0:
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise InputError(f"git {' '.join(args)}: {said}", repo)
    return done.stdout


def resolve(repo: str, rev: str) -> str:
    """The full SHA of the commit `rev` names."""
    if not os.path.isdir(repo):
        raise InputError("no such directory", repo)
    git(repo, "rev-parse", "--git-dir")  # "not a git repository" said once, plainly
    try:
        return git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    except InputError:
        raise InputError(f"{rev!r} is not a commit of this repository", repo) from None


def subject(repo: str, sha: str) -> str:
    """The first line of a commit's message."""
    return git(repo, "log", "-1", "--format=%s", sha).strip()


def commits_between(repo: str, good: str, bad: str) -> list[str]:
    """The commits after `good` up to `bad` on bad's first-parent line (a merged branch is
    judged as its merge commit), oldest first; InputError unless good is an ancestor of bad."""
    if good == bad:
        raise InputError(f"good and bad are the same commit {good[:12]}", repo)
    try:
        git(repo, "merge-base", "--is-ancestor", good, bad)
    except InputError:
        raise InputError(f"the good commit {good[:12]} is not an ancestor of the bad commit "
                         f"{bad[:12]}", repo) from None
    out = git(repo, "rev-list", "--reverse", "--first-parent", "--ancestry-path",
              f"{good}..{bad}").split()
    if not out or out[-1] != bad:
        raise InputError(f"no first-parent path from {good[:12]} to {bad[:12]}", repo)
    return out


def default_cache(repo: str) -> str:
    """$XDG_CACHE_HOME/benchlab/bisect/<hash of the repository's path>."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    key = hashlib.sha256(os.path.realpath(repo).encode()).hexdigest()[:12]
    return os.path.join(base, "benchlab", "bisect", key)


@dataclass(frozen=True)
class Build:
    """One commit's build: `ok`, where it is, what it took and in what environment."""

    sha: str
    ok: bool
    path: str
    seconds: float
    exit_code: int | None
    error: str | None
    stderr_tail: str
    environment: dict[str, object] = field(default_factory=dict)
    cached: bool = False

    def record(self) -> dict[str, object]:
        out = asdict(self)
        out.pop("cached")
        return out


def build_environment(command: str) -> dict[str, object]:
    """What a build ran in: the command, the machine, the variables of BUILD_VARIABLES set."""
    from benchlab.sqlite_file import timestamp

    return {"command": command, "host": platform.node(), "system": platform.system(),
            "kernel": platform.release(), "machine": platform.machine(),
            "started": timestamp(),
            "variables": {k: os.environ[k] for k in BUILD_VARIABLES if k in os.environ}}


class Builder:
    """Builds commits of `repo` with `command` in worktrees under `cache`, once each."""

    def __init__(self, repo: str, cache: str, command: str, timeout: float | None = None):
        self.repo, self.command, self.timeout = repo, command, timeout
        key = hashlib.sha256(command.encode()).hexdigest()[:8]
        self.folder = os.path.join(os.path.abspath(cache), f"build-{key}")

    def tree(self, sha: str) -> str:
        return os.path.join(self.folder, sha)

    def _marker(self, sha: str) -> str:
        return os.path.join(self.folder, f"{sha}.json")

    def cached(self, sha: str) -> Build | None:
        """The build of `sha` made before with this command (its worktree still there)."""
        try:
            with open(self._marker(sha), encoding="utf-8") as handle:
                saved = json.load(handle)
        except (OSError, ValueError):
            return None
        if saved.get("environment", {}).get("command") != self.command or \
                not os.path.isdir(self.tree(sha)):
            return None
        try:
            return Build(**{**saved, "cached": True})
        except TypeError:  # a marker of another benchlab: build again
            return None

    def _clear(self, tree: str) -> None:
        """Remove what a killed process left of the worktree `tree`, so it is made again: a
        `git worktree add` killed midway leaves the worktree locked ("initializing"), with or
        without its folder or the folder's .git file, which `git worktree remove --force` and
        `prune` both refuse to touch; so it is unlocked, its folder deleted, then pruned."""
        if self._locked(tree):
            git(self.repo, "worktree", "unlock", tree)
        if os.path.isdir(tree):
            try:
                shutil.rmtree(tree)
            except OSError as error:
                raise InputError(f"cannot remove the half-made worktree to build it again: "
                                 f"{error.strerror or error}", tree) from None
        git(self.repo, "worktree", "prune")

    def _locked(self, tree: str) -> bool:
        """Whether the repository lists `tree` as a locked worktree."""
        listed = git(self.repo, "worktree", "list", "--porcelain").split("\n\n")
        heads = {f"worktree {os.path.abspath(tree)}\n", f"worktree {os.path.realpath(tree)}\n"}
        return any(entry.startswith(tuple(heads)) and "\nlocked" in entry for entry in listed)

    def build(self, sha: str) -> Build:
        """The commit built (or its cached build); a failed build is a Build with ok False."""
        found = self.cached(sha)
        if found is not None:
            return found
        os.makedirs(self.folder, exist_ok=True)
        tree = self.tree(sha)
        self._clear(tree)
        git(self.repo, "worktree", "add", "--force", "--detach", tree, sha)
        env = {**os.environ, "BENCHLAB_COMMIT": sha}
        environment = build_environment(self.command)
        outcome = run_process(["/bin/sh", "-c", self.command], cwd=tree, env=env,
                              timeout=self.timeout)
        built = Build(sha, outcome.ok, tree, outcome.wall, outcome.exit_code, outcome.error,
                      outcome.stderr_tail, environment)
        tmp = self._marker(sha) + ".partial"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(built.record(), handle)
        os.replace(tmp, self._marker(sha))
        return built

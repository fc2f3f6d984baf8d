"""runner/git_builds.Builder on a real generated git repository (validation/bisect_repo.py):
a build interrupted inside `git worktree add` (its worktree left locked "initializing", as
git leaves it) is made again, with or without its folder, instead of stopping the bisect."""

from __future__ import annotations

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

from benchlab.runner.git_builds import Builder

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bisect_repo", ROOT / "validation" /
                                               "bisect_repo.py")
bisect_repo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bisect_repo)

BUILD = "echo built > out"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def _locked(repo: Path, tree: str) -> bool:
    """Whether git lists `tree` as a locked worktree of `repo`."""
    entries = _git(repo, "worktree", "list", "--porcelain").split("\n\n")
    return any(e.startswith(f"worktree {os.path.realpath(tree)}\n") and "\nlocked" in e
               for e in entries)


@pytest.fixture
def built(tmp_path):
    """A 3-commit repository, its first commit built once in a cache."""
    repo = tmp_path / "repo"
    shas = bisect_repo.make_repo(str(repo), commits=3, culprit=None, loops=10)
    builder = Builder(str(repo), str(tmp_path / "cache"), BUILD)
    first = builder.build(shas[0])
    assert first.ok and not first.cached
    return repo, builder, shas[0]


def _interrupt_add(repo: Path, builder: Builder, sha: str, left: str) -> str:
    """What a `git worktree add` killed midway leaves (its admin entry locked with the
    reason "initializing") where the build cache expects the commit's worktree."""
    tree = builder.tree(sha)
    os.remove(os.path.join(builder.folder, f"{sha}.json"))
    _git(repo, "worktree", "remove", "--force", tree)
    _git(repo, "worktree", "add", "-q", "--detach", "--lock", "--reason", "initializing",
         tree, sha)
    if left == "folder-gone":
        subprocess.run(["rm", "-rf", tree], check=True)
    else:
        Path(tree, "half-made").write_text("left by the killed process\n")
    if left == "no-dot-git":  # killed before git wrote the folder's .git file
        os.remove(os.path.join(tree, ".git"))
    assert _locked(repo, tree)
    return tree


@pytest.mark.parametrize("left", ["folder-kept", "folder-gone", "no-dot-git"])
def test_a_worktree_left_locked_by_a_killed_add_is_made_again(built, left):
    repo, builder, sha = built
    tree = _interrupt_add(repo, builder, sha, left)
    again = builder.build(sha)
    assert again.ok and not again.cached and again.path == tree
    assert Path(tree, "out").read_text() == "built\n"
    assert not Path(tree, "half-made").exists()
    assert not _locked(repo, tree)
    assert _git(repo, "-C", tree, "rev-parse", "HEAD").strip() == sha
    # the user's checkout is untouched and the next bisect takes the build from the cache
    assert not (repo / "out").exists() and _git(repo, "status", "--porcelain") == ""
    assert builder.build(sha).cached

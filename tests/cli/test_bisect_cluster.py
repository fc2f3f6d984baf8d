"""`benchlab bisect --cluster`: a real `dask scheduler` and one real `benchlab worker` on
127.0.0.1 (tests/support/dask_processes.py) build and measure a generated repository whose
sleep grows 10-fold at a known commit; the culprit must be the one a local bisect names
(tests/cli/test_bisect.py, same repository and options), and the store must say which
machine measured. Every process is killed at the end."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest

from benchlab.errors import UsageError

from ..support.dask_processes import NotReady, Processes, free_port

distributed = pytest.importorskip("distributed", reason="Dask distributed is not installed "
                                  "(pip install benchlab[cluster])")

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bisect_repo", ROOT / "validation" /
                                               "bisect_repo.py")
bisect_repo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bisect_repo)

COMMITS, CULPRIT, BROKEN = 8, 5, 3


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory):
    """A scheduler and the worker of machine bw1; the scheduler's address."""
    procs = Processes(tmp_path_factory.mktemp("dask"))
    try:
        address = procs.scheduler()
        procs.worker(address, "bw1")
    except NotReady as exc:
        procs.close()
        pytest.skip(f"a Dask process did not start here: {exc}")
    yield address
    procs.close()


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bisect-cluster")
    shas = bisect_repo.make_repo(str(folder / "repo"), commits=COMMITS, culprit=CULPRIT,
                                 loops=5000, factor=10, broken=(BROKEN,), sleep=True)
    return folder, shas


def _args(repo, cache: str, store: Path, document: Path, *more: str) -> list[str]:
    folder, shas = repo
    return ["bisect", "--repo", str(folder / "repo"), "--good", shas[0], "--bad", shas[-1],
            "--build", bisect_repo.BUILD, "--command", bisect_repo.COMMAND,
            "--cache", str(folder / cache), "--seed", "3", "--runs", "10", "-o", str(store),
            "--export-json", str(document), *more]


def _measured_on(store: Path) -> dict:
    with sqlite3.connect(store) as conn:
        return json.loads(conn.execute("SELECT value FROM meta WHERE key = 'measured_on'")
                          .fetchone()[0])


def test_cluster_names_the_local_culprit_and_says_who_measured(scheduler, repo, tmp_path,
                                                                  run_cli):
    _, shas = repo
    remote = tmp_path / "remote.db"
    _, text, err = run_cli(*_args(repo, "cache-remote", remote, tmp_path / "remote.json",
                                  "--cluster", scheduler, "--machine", "bw1"), expect=0)
    there = json.loads((tmp_path / "remote.json").read_text())
    # the culprit and the skipped commit of the same bisect run locally (tests/cli/
    # test_bisect.py: the same repository, options and seed)
    assert there["culprit"] == shas[CULPRIT], there["steps"]
    assert there["skipped"] == [shas[BROKEN]]  # its build failed on the worker too
    assert "building and measuring on machine bw1" in err
    assert any("machine bw1" in n for n in there["notes"]) and "machine bw1" in text
    assert _measured_on(remote)["where"] == "cluster"
    assert _measured_on(remote)["machine"] == "bw1"
    # the worker built in the cache: a marker per build
    built = list((Path(repo[0]) / "cache-remote").glob("build-*/*.json"))
    assert len(built) == len(there["builds"])
    with sqlite3.connect(remote) as conn:
        n = conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    assert n == there["executions"]
    # a resume elsewhere is refused in one line: one bisect measures on one machine
    code, _, err = run_cli("bisect", "-o", remote, "--resume")
    assert code == 2 and "measured on machine bw1 of a cluster" in err
    assert err.strip().count("\n") == 0
    # and resumed there it finishes with the same culprit, running nothing more
    run_cli("bisect", "-o", remote, "--resume", "--cluster", scheduler,
            "--export-json", tmp_path / "again.json", expect=0)
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["culprit"] == shas[CULPRIT] and again["executions"] == there["executions"]


def test_no_scheduler_or_no_such_machine_is_one_line(scheduler, tmp_path, run_cli):
    from benchlab.runner.bisect_cluster import connect

    with pytest.raises(UsageError, match=r"machine nope is not connected to .* \(connected "
                       r"machines: bw1\)"):
        connect(scheduler, "nope", str(tmp_path), machine_wait=0.2)
    with pytest.raises(UsageError, match="no Dask scheduler answers at .* within 1 s"):
        connect(f"tcp://127.0.0.1:{free_port()}", None, str(tmp_path), timeout=1.0)
    code, _, err = run_cli("bisect", "--repo", ".", "--good", "HEAD~1", "--bad", "HEAD",
                           "--build", "true", "--command", "true", "--cluster", "local:2")
    assert code == 2 and "bisect --cluster takes a scheduler's tcp://HOST:PORT" in err
    code, _, err = run_cli("bisect", "--repo", ".", "--good", "HEAD~1", "--bad", "HEAD",
                           "--build", "true", "--command", "true", "--machine", "bw1")
    assert code == 2 and "give --cluster too" in err

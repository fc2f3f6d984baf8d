"""`benchlab history bisect --cluster tls://...`: a real `dask scheduler` with TLS and one real
`benchlab worker` with TLS on 127.0.0.1 (tests/support/dask_processes.py), all with the
certificates `benchlab cluster certs` makes (runner/certs.py), bisect the change a history
finds, on the worker of the machine the history saw it on (the history's --machine). The
driver's files come from the BENCHLAB_TLS_* variables, as for run --cluster; without them,
or with the files given to a tcp:// address, one line and exit 2. Every process is killed
at the end."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
from pathlib import Path

import pytest

from ..support.dask_processes import ENV as BASE_ENV
from ..support.dask_processes import NotReady, Processes

distributed = pytest.importorskip("distributed", reason="pip install benchlab[cluster]")
pytest.importorskip("cryptography", reason="pip install benchlab[cluster]")

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bisect_repo", ROOT / "validation" /
                                               "bisect_repo.py")
bisect_repo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bisect_repo)

COMMITS, CULPRIT, BROKEN = 8, 5, 3
ENV = {k: v for k, v in BASE_ENV.items() if not k.startswith("BENCHLAB_TLS_")}
TLS = {"CA_FILE": "ca.pem", "CERT": "client.pem", "KEY": "client.key"}


def _tls(d: Path, name: str) -> list[str]:
    return ["--tls-ca-file", str(d / "ca.pem"), "--tls-cert", str(d / f"{name}.pem"),
            "--tls-key", str(d / f"{name}.key")]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Certificates for machine bt1, a TLS scheduler and bt1's TLS worker; (address, certs)."""
    from benchlab.runner.certs import make

    tmp = tmp_path_factory.mktemp("bisect-tls")
    certs = tmp / "certs"
    make(certs, ["bt1"])
    procs = Processes(tmp, ENV, timeout=180)
    try:
        address = procs.scheduler("--tls-ca-file", str(certs / "ca.pem"), "--tls-cert",
                                  str(certs / "scheduler.pem"), "--tls-key",
                                  str(certs / "scheduler.key"), host="tls://127.0.0.1")
        procs.worker(address, "bt1", *_tls(certs, "bt1"))
    except NotReady as exc:
        procs.close()
        pytest.fail(f"a Dask process did not start: {exc}")
    try:
        yield address, certs
    finally:
        procs.close()


def test_history_bisect_through_tls_on_the_machine_of_the_change(lab, tmp_path, run_cli,
                                                                 monkeypatch):
    """A history of machine bt1's results for commits 0, 1, 2, 5, 6, 7 (3 and 4 never
    measured; 3 does not build): `history bisect --machine bt1 --cluster tls://...` picks
    that series' change (5 after 2) and bisects it on bt1's worker, the series' machine,
    through bisect's own code; the store keeps the TLS scheduler as where it measured."""
    address, certs = lab
    shas = bisect_repo.make_repo(str(tmp_path / "repo"), commits=COMMITS, culprit=CULPRIT,
                                 loops=5000, factor=10, broken=(BROKEN,), sleep=True)
    table = tmp_path / "history.csv"
    rows = ["commit,benchmark,run,time"]
    for k in (0, 1, 2, 5, 6, 7):
        rows += [f"{shas[k]},prog,{run},{0.050 if k >= CULPRIT else 0.005}" for run in range(3)]
    table.write_text("\n".join(rows) + "\n")
    db = tmp_path / "h.db"
    run_cli("history", "add", table, "--by", "benchmark", "--value", "time", "--unit", "s",
            "--levels", "run", "--commit-column", "commit", "--machine", "bt1", "--db", db,
            expect=0)
    store = tmp_path / "h-bisect.db"
    args = ["history", "bisect", "--db", db, "--benchmark", "prog", "--machine", "bt1",
            "--repo", tmp_path / "repo", "--build", bisect_repo.BUILD, "--command",
            bisect_repo.COMMAND, "--cache", tmp_path / "cache", "--seed", "3", "--runs", "5",
            "-o", store, "--cluster", address]
    for name in TLS:  # the test's own environment may hold files of another cluster
        monkeypatch.delenv(f"BENCHLAB_TLS_{name}", raising=False)
    code, _, err = run_cli(*args, expect=2)  # no files: named, nothing connected or built
    assert "is a TLS address: give --tls-ca-file (or BENCHLAB_TLS_CA_FILE)" in err.splitlines()[-1]
    assert not store.exists()
    for name, file in TLS.items():
        monkeypatch.setenv(f"BENCHLAB_TLS_{name}", str(certs / file))
    _, out, err = run_cli(*args, "--json", expect=0)
    doc = json.loads(out)
    assert (doc["good"], doc["bad"]) == (shas[2], shas[CULPRIT])
    assert doc["culprit"] == shas[CULPRIT] and doc["skipped"] == [shas[BROKEN]], doc["steps"]
    assert "bisecting the step of prog (value, machine bt1)" in err
    assert "building and measuring on machine bt1" in err
    with sqlite3.connect(store) as conn:
        where = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'measured_on'")
                           .fetchone()[0])
        n = conn.execute("SELECT COUNT(*) FROM executions").fetchone()[0]
    assert (where["where"], where["machine"], where["scheduler"]) == ("cluster", "bt1", address)
    assert n == doc["executions"]
    # --cluster-machine without --cluster, and TLS files for a tcp:// address: one line each
    code, _, err = run_cli(*args[:-2], "--cluster-machine", "bt1", expect=2)
    assert "--cluster-machine NAME chooses a worker of --cluster ADDRESS" in err
    tcp = "tcp://" + address.split("://", 1)[1]
    code, _, err = run_cli("bisect", "-o", store, "--resume", "--cluster", tcp,
                           *_tls(certs, "client"), expect=2)
    assert f"given but {tcp} is not a TLS address" in err and err.count("\n") == 1

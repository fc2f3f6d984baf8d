"""Shared fixtures: paths of the reference data and a CLI runner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def r_reference() -> dict:
    """Values computed by R (tests/fixtures/r/make_reference.R)."""
    return json.loads((FIXTURES / "r" / "reference.json").read_text())["cases"]


@pytest.fixture
def run_cli(capsys):
    """Run `benchlab ARGS...` in-process; returns (exit code, stdout, stderr). With
    `expect=CODE` it also asserts the exit code (showing standard error if it differs):
    a test that reads the output alone would pass when the command fails."""
    from benchlab.cli.main import main

    def run(*args: str, expect: int | None = None) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse's own exits (--help, usage errors)
            code = exc.code if isinstance(exc.code, int) else 2
        out = capsys.readouterr()
        if expect is not None:
            assert code == expect, (f"benchlab {' '.join(map(str, args))}: exit {code}, "
                                    f"expected {expect}\n{out.err}")
        return code, out.out, out.err

    return run


def _mount_tmpfs(folder: Path, size: str) -> str | None:
    """Mount a tmpfs of `size` on `folder`; None when done, else why it cannot be."""
    import shutil
    import subprocess

    if shutil.which("mount") is None:
        return "no mount(8) on this system"
    folder.mkdir(exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs",
                           str(folder)], capture_output=True, text=True)
    if done.returncode != 0:
        return (f"cannot mount a size-limited tmpfs (needs root or CAP_SYS_ADMIN): "
                f"{done.stderr.strip() or done.returncode}")
    return None


def _unmount(folder: Path) -> None:
    import subprocess

    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture
def small_filesystem(tmp_path):
    """A real 1 MiB file system (tmpfs) to fill, for what a full disk does; skipped, with
    the reason, where a tmpfs cannot be mounted (not root, no CAP_SYS_ADMIN)."""
    folder = tmp_path / "small"
    why = _mount_tmpfs(folder, "1m")
    if why is not None:
        pytest.skip(why)
    try:
        yield folder
    finally:
        _unmount(folder)


@pytest.fixture
def read_only_copy(tmp_path):
    """`copy(*files)`: a directory this process cannot write, holding copies of `files`;
    returns it. Not root: the directory is chmod 0555. Root writes through permissions, so
    a tmpfs is mounted and remounted read-only (skipped, with the reason, if it cannot be)."""
    import os
    import shutil
    import subprocess

    folder = tmp_path / "read-only"
    mounted = []

    def copy(*files: Path) -> Path:
        if os.geteuid() == 0:
            why = _mount_tmpfs(folder, "16m")
            if why is not None:
                pytest.skip(why)
            mounted.append(folder)
        else:
            folder.mkdir()
        for f in files:
            shutil.copy(f, folder / Path(f).name)
        if os.geteuid() == 0:
            done = subprocess.run(["mount", "-o", "remount,ro", str(folder)],
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
        else:
            folder.chmod(0o555)
        return folder

    try:
        yield copy
    finally:
        for m in mounted:
            _unmount(m)
        if folder.exists() and not mounted:
            folder.chmod(0o755)


# The docs examples (tests/test_docs.py) are about 300 commands run as subprocesses: most
# of the suite's time. As soon as collection ends they start in a process of their own
# (docs/examples/refresh.py --emit, one page per core at a time), so they run beside the
# in-process tests instead of after them, and nothing of theirs (threads, descriptors,
# allocations, os.environ) happens in this process. Each page's test waits for its file.
_docs_run: dict = {}


def refresh_module():
    """docs/examples/refresh.py, loaded as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("refresh", ROOT / "docs" / "examples"
                                                  / "refresh.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pytest_collection_finish(session):
    import subprocess
    import sys
    import tempfile

    pages = sorted({item.callspec.params["page"] for item in session.items
                    if getattr(item, "originalname", "") == "test_examples_are_current"
                    and hasattr(item, "callspec")})
    if not pages or session.config.option.collectonly:
        return
    folder = Path(tempfile.mkdtemp(prefix="benchlab-docs-examples-"))
    size = {p: (ROOT / "docs" / p).read_text(encoding="utf-8").count("\n$ ") for p in pages}
    order = sorted(pages, key=lambda p: -size[p])  # the longest first
    log = open(folder / "stderr.txt", "wb")  # closed at session end
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "docs" / "examples" / "refresh.py"), "--emit",
         str(folder), "--jobs", str(os.cpu_count() or 1), *order],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    _docs_run.update(folder=folder, process=process, log=log)


def pytest_sessionfinish(session, exitstatus):
    import shutil
    import signal

    process = _docs_run.get("process")
    if process is None:
        return
    if process.poll() is None:  # the session stopped early (-x, ^C): stop the examples too
        os.killpg(process.pid, signal.SIGTERM)
        process.wait()
    _docs_run["log"].close()
    shutil.rmtree(_docs_run["folder"], ignore_errors=True)


@pytest.fixture(scope="session")
def refreshed_page():
    """`refreshed_page(name)`: (what docs/NAME shows, what its examples print now), from
    the background run started after collection (or run here if there was none)."""
    import time

    def get(page: str) -> tuple[str, str]:
        if "process" not in _docs_run:
            text = (ROOT / "docs" / page).read_text(encoding="utf-8")
            return text, refresh_module().refresh(text)
        done = _docs_run["folder"] / f"{page}.json"
        while not done.exists():
            if _docs_run["process"].poll() is not None and not done.exists():
                log = (_docs_run["folder"] / "stderr.txt").read_text(errors="replace")
                pytest.fail(f"the docs examples' run stopped before docs/{page}:\n{log}")
            time.sleep(0.2)
        doc = json.loads(done.read_text(encoding="utf-8"))
        return doc["documented"], doc["now"]

    return get


class PostgresServer:
    """A PostgreSQL server of this test session: `url(db)` names a database on it with the
    password in the URL, `database(name)` creates one (empty) and gives its URL."""

    def __init__(self, port: int, user: str, password: str) -> None:
        self.port, self.user, self.password = port, user, password

    def url(self, db: str = "postgres", password: str | None = None) -> str:
        return (f"postgresql://{self.user}:{self.password if password is None else password}"
                f"@127.0.0.1:{self.port}/{db}")

    def database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _postgres_bin(tool: str) -> str | None:
    """PostgreSQL's `tool` on PATH, or in Debian's /usr/lib/postgresql/VERSION/bin."""
    import glob
    import shutil

    found = shutil.which(tool)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"))
    return candidates[-1] if candidates else None


@pytest.fixture(scope="session")
def postgres_server():
    """One real PostgreSQL server for the session: `initdb` into a temporary directory and
    `pg_ctl start` on a free loopback port, password authentication (scram-sha-256).
    initdb refuses root, so as root the server runs as the unprivileged user `nobody`
    (through runuser). Skipped, saying why, only where psycopg or PostgreSQL's programs
    are not installed, or root has no unprivileged user to run it as."""
    import pwd
    import shutil
    import socket
    import subprocess
    import tempfile

    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip('psycopg is not installed (pip install "benchlab[postgres]", or .[test])')
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (apt-get install "
                    "postgresql; .ci/run does)")
    prefix: list[str] = []
    owner = None
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            owner = pwd.getpwnam("nobody")
        except KeyError:
            owner = None
        if runuser is None or owner is None:
            pytest.skip("running as root, and initdb refuses root: no runuser(1) or no "
                        "user 'nobody' to run PostgreSQL as")
        prefix = [runuser, "-u", owner.pw_name, "--"]
    # as root, in /tmp: the unprivileged user must reach it, and TMPDIR may be root's own
    folder = Path(tempfile.mkdtemp(prefix="benchlab-pg-", dir="/tmp" if owner else None))
    password = "s3cret-Pw"
    (folder / "pw").write_text(password + "\n")
    if owner is not None:
        for path in (folder, folder / "pw"):
            os.chown(path, owner.pw_uid, owner.pw_gid)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data, log = folder / "data", folder / "log"
    try:
        subprocess.run([*prefix, initdb, "-D", str(data), "-U", "bench", "-E", "UTF8",
                        "--auth=scram-sha-256", f"--pwfile={folder / 'pw'}", "--no-sync",
                        "--no-instructions"],
                       check=True, capture_output=True, text=True, env=_c_locale())
        started = subprocess.run(
            [*prefix, pg_ctl, "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o",
             f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off "
             "-c synchronous_commit=off -c full_page_writes=off", "start"],
            capture_output=True, text=True, env=_c_locale())
        if started.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {started.stderr}\n"
                               f"{log.read_text() if log.exists() else ''}")
        yield PostgresServer(port, "bench", password)
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, env=_c_locale())
        shutil.rmtree(folder, ignore_errors=True)


def _c_locale() -> dict[str, str]:
    return dict(os.environ, LC_ALL="C", LANG="C")

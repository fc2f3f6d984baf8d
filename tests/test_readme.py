"""README.md runs as written: every command of its ```sh blocks and its ```python block.

The commands run in order, each as bash runs it, in a copy of the repository
(so the files they write, `loop.db`, `history.db`, figures, do not land in the
checkout), with `benchlab`, `dask` and `python3` meaning this interpreter's
(`sys.executable -m benchlab`); a plain `benchlab` line runs in this process
through benchlab.cli.main, as the CLI tests do, to spare forty interpreter
starts. Each must exit 0, or 1 where it has a
`--fail-on` gate. Lines ending in `&` (the Dask scheduler and its workers)
start in the background and are stopped at the end; the one change made to
what the README says is the scheduler's port, a free one instead of 8786, so
that parallel runs of the suite do not collide. Before the first command after
them the test waits until every worker has connected, as a person typing the
next line would. In the set-up block, `pip install` is not run (the extras it
names must exist) nor `python3 -m pytest` (this suite); what they chain runs.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\s*$")
BACKGROUND = re.compile(r"&\s*(#.*)?$")
TIMEOUT = 300  # s per command: generous for a loaded 2-core machine
PRELUDE = ('benchlab() { "$PY" -m benchlab "$@"; }\n'
           'dask() { "$PY" -m dask "$@"; }\n'
           'python3() { "$PY" "$@"; }\n')


def blocks(language: str) -> list[list[str]]:
    """The logical lines (continuations joined, blank and comment lines left out) of every
    README block in `language`, in order; a python block as one entry."""
    out: list[list[str]] = []
    lines = README.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while lines[j].rstrip() != "```":
            j += 1
        body = lines[i + 1:j]
        if m.group(1) == language == "python":
            out.append(["\n".join(body)])
        elif m.group(1) == language:
            logical, pending = [], ""
            for line in body:
                if line.endswith("\\"):
                    pending += line[:-1]
                    continue
                line = pending + line
                pending = ""
                if line.strip() and not line.lstrip().startswith("#"):
                    logical.append(line)
            out.append(logical)
        i = j + 1
    return out


def _copy(tmp_path: Path) -> Path:
    """The repository's files (not .git, caches or builds) under tmp_path."""
    where = tmp_path / "repo"
    shutil.copytree(ROOT, where, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", "*.pyc", ".pytest_cache", ".ruff_cache", ".hypothesis",
        "build", "dist", "*.egg-info", ".venv"))
    return where


def _env(port: int | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PY"] = sys.executable
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["MPLBACKEND"] = "Agg"
    env["COLUMNS"] = "80"
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(line: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", PRELUDE + line], cwd=cwd, env=_env(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def _expected(line: str) -> set[int]:
    return {0, 1} if "--fail-on" in line else {0}


def _wait_for_workers(port: int, n: int, cwd: Path) -> None:
    """Until the scheduler at `port` has `n` workers (started in the background)."""
    code = ("from distributed import Client\n"
            f"c = Client('tcp://localhost:{port}', timeout=120)\n"
            f"c.wait_for_workers({n}, timeout=120)\nc.close()\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, f"the README's {n} workers did not connect: {done.stderr}"


def _stop(background: list[subprocess.Popen]) -> None:
    for p in background:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in background:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


def test_the_readme_has_the_blocks_this_test_runs():
    setup, use = blocks("sh")[:2], blocks("sh")[2:]
    assert len(setup) == 2 and len(use) == 1 and len(use[0]) >= 30
    assert len(blocks("python")) == 1
    assert any(line.startswith("benchlab history compare") for line in use[0])


def test_the_set_up_commands_run(tmp_path):
    """Set up: the extras `pip install` names exist; the compare of Kamp's kernels runs;
    the linter runs clean, and .ci/run lints and tests with the same commands."""
    from benchlab.runner.config import _toml  # tomllib, or tomli before Python 3.11

    extras = set(_toml().loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"])
    ci = (ROOT / ".ci" / "run").read_text()
    where = _copy(tmp_path)
    ran = 0
    for block in blocks("sh")[:2]:
        for line in block:
            for part in (p.strip() for p in line.split("&&")):
                if part.startswith("python3 -m pip install"):
                    target = part.split()[-1].strip("\"'")
                    assert target == "." or target.startswith(".[")
                    assert set(re.findall(r"\w+", target)) <= extras, target
                    continue
                if part == "python3 -m pytest":
                    assert "python3 -m pytest" in ci  # CI runs the same suite
                    continue
                if part.startswith("python3 -m ruff"):
                    assert part in ci, f"the README lints as .ci/run does: {part!r}"
                done = _run(part, where)
                assert done.returncode == 0, (part, done.stdout[-2000:], done.stderr[-2000:])
                ran += 1
    assert ran == 2  # the compare and the linter


def _in_process(line: str) -> list[str] | None:
    """The arguments of a `benchlab` line that can run in this process (no shell syntax;
    not `run` or `worker`, which start processes of their own), else None."""
    import shlex

    if re.search(r"[$|;<>`]|&&", line.split("#")[0]):
        return None
    words = shlex.split(line, comments=True)
    if words[0] != "benchlab" or words[1] in ("run", "worker"):
        return None
    return words[1:]


def test_every_use_command_runs(tmp_path, monkeypatch, capsys):
    """Every command of the Use block, in order, in a copy of the repository. A `benchlab`
    line without shell syntax runs in this process (benchlab.cli.main, as tests/cli do:
    one interpreter start instead of forty on a loaded machine); the others in bash."""
    from benchlab.cli.main import main

    where = _copy(tmp_path)
    monkeypatch.chdir(where)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("COLUMNS", "80")
    port = _free_port()
    [lines] = blocks("sh")[2:]
    lines = [line.replace("8786", str(port)) for line in lines]
    background: list[subprocess.Popen] = []
    workers = 0
    failures = []
    try:
        for line in lines:
            if BACKGROUND.search(line):
                command = BACKGROUND.sub("", line)
                workers += "benchlab worker" in command
                background.append(subprocess.Popen(
                    ["bash", "-c", PRELUDE + "exec " + command], cwd=where, env=_env(),
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, start_new_session=True))
                continue
            if workers:
                _wait_for_workers(port, workers, where)
                workers = 0
            args = _in_process(line)
            if args is not None:
                try:
                    code = main(args)
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 2
                out, err = capsys.readouterr()
            else:
                done = _run(line, where)
                code, out, err = done.returncode, done.stdout, done.stderr
            if code not in _expected(line) or "Traceback" in err:
                failures.append(f"{line}\n  exit {code}: {(err or out)[-1500:]}")
    finally:
        _stop(background)
    assert not failures, "\n".join(failures)
    for written in ("loop.db", "report.html", "loop.csv", "m.db", "m2.db", "history.db",
                    "timeline.png", "r.csv", "r.png", "plan.csv", "effects.png"):
        assert (where / written).stat().st_size > 0, written
    assert not any((ROOT / name).exists() and not _tracked(name)
                   for name in ("loop.db", "history.db", "m.db"))


def _tracked(name: str) -> bool:
    done = subprocess.run(["git", "ls-files", "--error-unmatch", name], cwd=ROOT,
                          capture_output=True, check=False)
    return done.returncode == 0


def test_the_python_block_runs(tmp_path):
    [[code]] = blocks("python")
    done = subprocess.run([sys.executable, "-c", code], cwd=_copy(tmp_path), env=_env(),
                          capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    assert "faster" in done.stdout


@pytest.mark.parametrize("line", [line for block in blocks("sh") for line in block],
                         ids=lambda line: " ".join(line.split()[:3])[:40])
def test_every_path_a_command_names_exists(line):
    """A path-like argument names a file of the repository or one an earlier line writes."""
    written = {"loop.db", "m.db", "m2.db", "history.db", "report.html", "loop.csv",
               "plan.csv", "r.csv", "r.png", "effects.png", "timeline.png", "."}
    for token in re.findall(r"(?<![\w/.-])([\w./-]+\.(?:txt|csv|toml|db|json|tsv))\b", line):
        assert token in written or (ROOT / token).exists(), f"{token} in: {line}"
    for token in re.findall(r"tests/fixtures/\S+|docs/examples/\S+|examples/\S+", line):
        assert (ROOT / token).exists(), f"{token} in: {line}"

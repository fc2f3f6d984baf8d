"""Crash reports (the traceback of an exit 3) are private: a 0600 file in a 0700 directory, in
the user's cache or else in a per-user directory of the temporary folder, never a file others
can read, and never in a directory another user (or a symbolic link) provides."""

from __future__ import annotations

import os
import stat
import tempfile

import pytest

from benchlab.cli import compare as compare_cli
from benchlab.cli.main import EXIT_INTERNAL, main


@pytest.fixture
def crash(monkeypatch, tmp_path):
    """`benchlab compare` raising a bug; returns a function running it, (code, saved path)."""
    def boom(args):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(compare_cli, "run", boom)
    monkeypatch.delenv("BENCHLAB_TRACEBACK", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    data = tmp_path / "a.txt"
    data.write_text("1\n2\n3\n")
    old = os.umask(0)  # the modes must not depend on the umask
    yield lambda capsys: _run(capsys, data)
    os.umask(old)


def _run(capsys, data) -> tuple[int, str | None]:
    code = main(["compare", str(data), str(data)])
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    saved = err.rsplit("traceback saved in ", 1)[1].strip() if "saved in" in err else None
    return code, saved


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_in_the_cache_0700_and_0600(crash, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, saved = crash(capsys)
    assert code == EXIT_INTERNAL
    assert saved is not None and saved.startswith(str(tmp_path / "cache" / "benchlab" /
                                                       "crashes"))
    assert mode(saved) == 0o600 and mode(os.path.dirname(saved)) == 0o700
    assert "ZeroDivisionError" in open(saved, encoding="utf-8").read()


def test_an_open_crash_directory_is_closed(crash, capsys, monkeypatch, tmp_path):
    folder = tmp_path / "cache" / "benchlab" / "crashes"
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, saved = crash(capsys)
    assert code == EXIT_INTERNAL and saved is not None and saved.startswith(str(folder))
    assert mode(folder) == 0o700 and mode(saved) == 0o600


def test_fallback_is_a_private_per_user_directory(crash, capsys, monkeypatch, tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # the cache cannot be made
    code, saved = crash(capsys)
    folder = tmp_path / "tmp" / f"benchlab-crashes-{os.getuid()}"
    assert code == EXIT_INTERNAL and saved is not None and saved.startswith(str(folder))
    assert mode(folder) == 0o700 and mode(saved) == 0o600
    assert not [p for p in (tmp_path / "tmp").iterdir() if p.is_file()]  # nothing loose


def test_a_symbolic_link_in_tmp_is_not_followed(crash, capsys, monkeypatch, tmp_path):
    """Someone made /tmp/benchlab-crashes-UID a link to a directory they read: refused, and
    the report is not saved rather than saved there."""
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (tmp_path / "tmp" / f"benchlab-crashes-{os.getuid()}").symlink_to(theirs)
    code, saved = crash(capsys)
    assert code == EXIT_INTERNAL and saved is None
    assert list(theirs.iterdir()) == []


@pytest.mark.skipif(os.getuid() != 0, reason="making a directory another user owns needs root")
def test_a_directory_of_another_user_is_not_written_into(crash, capsys, monkeypatch, tmp_path):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    theirs = tmp_path / "tmp" / f"benchlab-crashes-{os.getuid()}"
    theirs.mkdir(mode=0o777)
    os.chown(theirs, 65534, 65534)
    code, saved = crash(capsys)
    assert code == EXIT_INTERNAL and saved is None
    assert list(theirs.iterdir()) == [] and mode(theirs) != 0o700

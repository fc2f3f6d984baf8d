"""Outputs never replace a store or an input unless forced, and never appear half-written."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchlab.cli.main import main
from benchlab.errors import InputError, UsageError
from benchlab.output_file import check_target, replacing, write_text

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "examples" / "experiments" / "loop.db"


def test_refuses_store_and_input_unless_forced(tmp_path):
    store = tmp_path / "s.db"
    shutil.copy(STORE, store)
    with pytest.raises(UsageError, match="existing benchlab store"):
        check_target(str(store))
    data = tmp_path / "in.csv"
    data.write_text("x\n1\n")
    link = tmp_path / "alias.csv"
    link.symlink_to(data)
    with pytest.raises(UsageError, match="one of this command's inputs"):
        check_target(str(link), [str(data)])
    check_target(str(store), force=True)
    check_target(str(tmp_path / "new.csv"), [str(data)])


def test_failed_writer_leaves_old_file_and_no_partial(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(ZeroDivisionError), replacing(str(target)) as tmp:
        Path(tmp).write_text("half")
        1 / 0  # noqa: B018 - the writer fails midway
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["out.csv"]
    write_text(str(target), "new\n")
    assert target.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["out.csv"]


def test_missing_directory_and_directory_target(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        write_text(str(tmp_path / "no" / "x.csv"), "x")
    with pytest.raises(UsageError, match="is a directory"):
        write_text(str(tmp_path), "x")


def test_unwritable_directory_is_one_line(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only directories")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(InputError, match="cannot write"):
            write_text(str(folder / "x.csv"), "x")
    finally:
        folder.chmod(0o700)


def test_export_over_its_store_and_design_over_a_store(tmp_path, capsys):
    store = tmp_path / "S.db"
    shutil.copy(STORE, store)
    before = store.read_bytes()
    assert main(["export", str(store), "-o", str(store), "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--overwrite" in err
    assert main(["design", "--factor", "a=1,2", "-o", str(store)]) == 2
    assert "existing benchlab store" in capsys.readouterr().err
    assert store.read_bytes() == before
    assert main(["design", "--factor", "a=1,2", "--seed", "1", "-o", str(store),
                 "--overwrite"]) == 0
    assert "run,id,a,replicate" in store.read_text()
    store.write_bytes(before)  # --force, the older name, still works
    assert main(["design", "--factor", "a=1,2", "--seed", "1", "-o", str(store),
                 "--force"]) == 0
    assert "run,id,a,replicate" in store.read_text()


def test_device_and_fifo_targets_are_written_into_not_replaced(tmp_path):
    """`-o /dev/null` must not rename a regular file over the device (as root it did)."""
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_text(str(fifo), "through the pipe\n")
    reader.join(timeout=30)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]

    write_text(os.devnull, "discarded\n")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_full_device_is_one_line(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("this system has no /dev/full to write to")
    with pytest.raises(InputError, match="cannot write"):
        write_text("/dev/full", "x" * 100_000)


def test_symbolic_link_target_keeps_the_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_text(str(link), "new\n")
    assert link.is_symlink()
    assert real.read_text() == "new\n"

"""Bounded reads (issue 20, item 2): devices, named pipes and sockets are refused by type
before reading, every input is read within BENCHLAB_MAX_INPUT_MB, and the streams people
use — standard input and the pipes of `<(command)` — still read, once."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from benchlab.data import source as source_module
from benchlab.data.source import open_source
from benchlab.errors import InputError


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_character_devices_are_refused_before_reading(run_cli, tmp_path, device):
    if not os.path.exists(device):
        pytest.skip(f"{device} does not exist on this system")
    link = tmp_path / "data.txt"
    link.symlink_to(device)
    for path in (device, link):
        code, out, err = run_cli("summary", path, expect=2)
        assert err == f"benchlab: {path}: is a character device, not a file of measurements\n"


def test_named_pipe_without_writer_is_refused_not_waited_for(run_cli, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, err = run_cli("summary", fifo, expect=2)  # returns: the open never happens
    assert "is a named pipe (FIFO)" in err and err.count("\n") == 1


def test_socket_is_refused(run_cli, tmp_path):
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))
        code, out, err = run_cli("summary", path, expect=2)
    assert err == f"benchlab: {path}: is a socket, not a file of measurements\n"


def test_file_over_the_limit_is_refused_from_its_size(run_cli, tmp_path, monkeypatch):
    big = tmp_path / "big.txt"
    big.write_text("1.5\n" * 300_000)  # 1.2 MB
    monkeypatch.setenv("BENCHLAB_MAX_INPUT_MB", "1")
    code, out, err = run_cli("summary", big, expect=2)
    assert err == (f"benchlab: {big}: more than 1 MB; a larger input needs "
                   "BENCHLAB_MAX_INPUT_MB raised\n")
    monkeypatch.setenv("BENCHLAB_MAX_INPUT_MB", "2")
    run_cli("summary", big, expect=0)


def run_benchlab(args: list[str], stdin: bytes, env: dict | None = None):
    return subprocess.run([sys.executable, "-m", "benchlab", *args], input=stdin,
                          capture_output=True, timeout=300, env={**os.environ, **(env or {})})


def test_standard_input_is_bounded_and_binary_ends_at_once():
    done = run_benchlab(["summary", "-"], b"\0" * (8 << 20))
    assert done.returncode == 2
    assert done.stderr == b"benchlab: <stdin>: binary content, not a text file of measurements\n"
    done = run_benchlab(["summary", "-"], b"2.5\n" * 400_000, {"BENCHLAB_MAX_INPUT_MB": "1"})
    assert done.returncode == 2 and b"<stdin>: more than 1 MB" in done.stderr
    done = run_benchlab(["summary", "-"], b"1\n2\n3\n4\n")
    assert done.returncode == 0 and b"n = 4" in done.stdout


def test_pipes_of_process_substitution_read_once_even_when_opened_twice():
    """`benchlab compare <(cmd1) <(cmd2)`: /dev/fd/N pipes; compare opens each input twice
    (metrics, then the reader), which read nothing the second time before."""
    if not os.path.isdir("/dev/fd"):
        pytest.skip("no /dev/fd on this system")
    fds = []
    for text in (b"1\n2\n3\n4\n5\n", b"2\n3\n4\n5\n6\n"):
        read, write = os.pipe()
        os.write(write, text)
        os.close(write)
        fds.append(read)
    try:
        done = subprocess.run([sys.executable, "-m", "benchlab", "compare",
                               *(f"/dev/fd/{fd}" for fd in fds), "--format", "json"],
                              capture_output=True, timeout=300, pass_fds=fds, text=True)
    finally:
        for fd in fds:
            os.close(fd)
    assert done.returncode == 0, done.stderr
    assert '"n": 5' in done.stdout


def test_open_source_keeps_a_stream_it_read(tmp_path, monkeypatch):
    read, write = os.pipe()
    os.write(write, b"7\n8\n")
    os.close(write)
    path = f"/dev/fd/{read}"
    monkeypatch.setattr(source_module, "_streams_read", {})
    try:
        first = open_source(path)
        second = open_source(path)
    finally:
        os.close(read)
    assert tuple(first.lines) == ("7", "8") and second is first
    with pytest.raises(InputError, match="no such file"):
        open_source(str(tmp_path / "missing.txt"))

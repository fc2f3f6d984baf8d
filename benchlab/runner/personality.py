"""ASLR off for one process: the runner sets personality(ADDR_NO_RANDOMIZE) on itself around
a spawn, and the command inherits it (`setarch -R` does the same). The layout of the runner
itself is fixed at its own exec, so only the commands spawned meanwhile are affected, and
nothing of the machine changes (the sysctl randomize_va_space would change it for all)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator

ADDR_NO_RANDOMIZE = 0x0040000  # <linux/personality.h>
_QUERY = 0xFFFFFFFF


@functools.lru_cache(maxsize=1)
def _libc():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.personality.argtypes = [ctypes.c_ulong]
        libc.personality.restype = ctypes.c_int
        return libc
    except (OSError, AttributeError):
        return None


def available() -> bool:
    """Whether personality(2) can be called (Linux with glibc or musl)."""
    libc = _libc()
    return libc is not None and libc.personality(_QUERY) != -1


@contextlib.contextmanager
def aslr_off(off: bool = True) -> Iterator[None]:
    """Commands spawned meanwhile run without address-space layout randomization."""
    if not off:
        yield
        return
    libc = _libc()
    if libc is None:
        raise OSError("personality(2) is not available")
    previous = libc.personality(_QUERY)
    if previous == -1 or libc.personality(previous | ADDR_NO_RANDOMIZE) == -1:
        raise OSError(ctypes.get_errno(), "personality(ADDR_NO_RANDOMIZE) failed")
    try:
        yield
    finally:
        libc.personality(previous)

"""Progress of a long analysis: a rich bar on standard error, shown only where it helps.

The command turns progress on for its run (`showing(...)`), and only when
standard error is a terminal and the output is not JSON; the long loops
(bootstrap chunks, qreg replicates, reading a large file) report their steps
through `task(...)`, which costs nothing when progress is off. A bar appears
only once a task is expected to take more than two seconds (projected from
its pace after the first half second), so quick analyses print nothing
extra. Like the runner's bar (benchlab/runner/progress.py) it is redrawn by
the working code, at most ten times a second, with no refresh thread; it is
transient, so the command's output below it is all that stays on screen.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

SHOW_AFTER = 0.5  # seconds of work before the pace is trusted
EXPECTED = 2.0  # a task projected to take longer than this shows a bar
REDRAW = 0.1  # seconds between redraws

_stream: TextIO | None = None  # where bars go; None: progress is off


@contextmanager
def showing(enabled: bool = True, stream: TextIO | None = None) -> Iterator[None]:
    """Turn progress on for the block when `enabled` and the stream (stderr) is a terminal."""
    global _stream
    target = stream if stream is not None else sys.stderr
    previous = _stream
    try:
        is_tty = bool(target.isatty())
    except (AttributeError, ValueError):
        is_tty = False
    _stream = target if enabled and is_tty else None
    try:
        yield
    finally:
        _stream = previous


def active() -> bool:
    """Whether progress is shown at all (for callers that would do extra work to report it)."""
    return _stream is not None


class _Task:
    """One task's count and, once it is expected to be long, its rich bar."""

    def __init__(self, description: str, total: int, stream: TextIO) -> None:
        self.description, self.total, self.stream = description, max(int(total), 1), stream
        self.done = 0
        self.started = time.perf_counter()
        self.drawn = 0.0
        self.bar = None
        self.bar_task = None
        self.lock = threading.Lock()

    def advance(self, steps: int = 1) -> None:
        with self.lock:
            self.done += steps
            now = time.perf_counter()
            if now - self.drawn < REDRAW:
                return
            self.drawn = now
            elapsed = now - self.started
            if self.bar is None:
                if elapsed < SHOW_AFTER or self.done <= 0:
                    return
                if elapsed * self.total / self.done <= EXPECTED:
                    return
                self._start_bar()
            self.bar.update(self.bar_task, completed=min(self.done, self.total), refresh=True)

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(file=self.stream, stderr=True)
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                            console=console, transient=True, auto_refresh=False)
        self.bar.start()
        self.bar_task = self.bar.add_task(self.description, total=self.total,
                                          completed=self.done)

    def close(self) -> None:
        with self.lock:
            if self.bar is not None:
                self.bar.stop()
                self.bar = None


def nothing(steps: int = 1) -> None:
    """The step counter of a task when progress is off."""


@contextmanager
def task(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A unit of long work of `total` steps; yields `advance(steps)` (thread-safe)."""
    stream = _stream
    if stream is None:
        yield nothing
        return
    current = _Task(description, total, stream)
    try:
        yield current.advance
    finally:
        current.close()

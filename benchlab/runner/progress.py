"""Progress of a run: a rich progress bar on a terminal, plain lines otherwise, or nothing.

Every form shows the current trial and an estimate of the time left (the mean
duration of this session's trials times the trials left). What comes from the
experiment file (names, levels) or from a failed command (its error) is shown
inert: control characters escaped (`escape.terminal`) and, in the rich
bar, never read as rich markup.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from benchlab.escape import terminal
from benchlab.runner.config import MACHINE_FACTOR
from benchlab.runner.plan import Trial, machine_of


def format_seconds(seconds: float) -> str:
    """A duration for people: 850 ms, 12.3 s, 4m 05s, 2h 10m."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m {int(seconds % 60):02d}s"
    return f"{int(seconds // 3600)}h {int(seconds % 3600 // 60):02d}m"


def describe(trial: Trial) -> str:
    """"round 3: fast size=10, build 1, execution 2 (warm-up)", control characters escaped;
    with machines "round 3 on m1: fast size=10, build 1, execution 2" (the machine said
    once, not again as the factor `machine=m1` of role "factor")."""
    what = "build step" if trial.kind == "build" else f"execution {trial.execution}" \
        if trial.kind == "execution" else f"counted execution {trial.execution}"
    warm = " (warm-up)" if trial.warmup else ""
    machine = machine_of(trial)
    label = trial.label()
    where = ""
    if machine is not None:
        where = f" on {terminal(machine)}"
        label = " ".join([trial.alternative, *(f"{k}={v}" for k, v in trial.factors
                                               if k != MACHINE_FACTOR)])
    return f"round {trial.round}{where}: {terminal(label)}, build {trial.build}, {what}{warm}"


class Progress:
    """Silent progress (--quiet); the base of the visible forms."""

    def __init__(self) -> None:
        self.total = self.done = self.this_session = 0
        self.started = time.perf_counter()

    def start(self, total: int, done: int) -> None:
        self.total, self.done = total, done
        self.started = time.perf_counter()

    def eta(self) -> float | None:
        if self.this_session == 0:
            return None
        per = (time.perf_counter() - self.started) / self.this_session
        return per * (self.total - self.done)

    def begin(self, trial: Trial) -> None:
        pass

    def end(self, trial: Trial, error: str | None, wall: float) -> None:
        self.done += 1
        self.this_session += 1

    def note(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class PlainProgress(Progress):
    """One line per finished trial, for logs and pipes."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def end(self, trial: Trial, error: str | None, wall: float) -> None:
        super().end(trial, error, wall)
        eta = self.eta()
        state = f"FAILED: {terminal(error)}" if error else format_seconds(wall)
        width = len(str(self.total))
        self.stream.write(f"[{self.done:>{width}}/{self.total}] {describe(trial)}: {state}"
                          f"{'' if eta is None else f'  (ETA {format_seconds(eta)})'}\n")
        self.stream.flush()

    def note(self, text: str) -> None:
        self.stream.write(terminal(text) + "\n")
        self.stream.flush()


class RichProgress(Progress):
    """A rich progress bar: trials done, the current trial, elapsed time and ETA.

    Redrawn between trials only (no auto-refresh thread): a thread that renders
    ten times a second would run beside the measurements, and a runner with a
    second thread pays more per spawned command (benchlab/runner/blas.py). And
    at most ten times a second, before the trial that finds a redraw due (a failure
    and the last trial always draw): two redraws per trial cost 4.8 ms per trial on
    a loaded 2-core machine, more than a short command takes; throttled, 0.006 ms
    (benchmarks/progress_redraw.py).
    """

    REDRAW = 0.1  # seconds between redraws

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.console = Console(file=stream)
        from rich.progress import Progress as Bar

        # markup=False: a name like "[red]x" or "[/]" is text, not rich markup (or an error)
        self.bar = Bar(TextColumn("{task.description}", markup=False), BarColumn(),
                       MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("ETA"),
                       TimeRemainingColumn(),
                       console=self.console, transient=False, auto_refresh=False)
        self.task = None
        self.drawn = 0.0  # perf_counter of the last redraw

    def start(self, total: int, done: int) -> None:
        super().start(total, done)
        self.bar.start()
        self.task = self.bar.add_task("starting", total=total, completed=done)
        self.drawn = 0.0

    def _due(self) -> bool:
        now = time.perf_counter()
        if now - self.drawn < self.REDRAW:
            return False
        self.drawn = now
        return True

    def begin(self, trial: Trial) -> None:
        """When a redraw is due: the trial starting and the count, drawn; else nothing (the
        bar is not touched between redraws: describing and updating it for every trial cost
        about 100 µs of the runner's CPU per execution of `true`)."""
        if self._due():
            self.bar.update(self.task, description=describe(trial), completed=self.done,
                            refresh=True)

    def end(self, trial: Trial, error: str | None, wall: float) -> None:
        super().end(trial, error, wall)
        if error:
            self.bar.console.print(f"FAILED {describe(trial)}: {terminal(error)}", markup=False,
                                   highlight=False)
        if error or self.done >= self.total:  # else counted, drawn at the next redraw
            self.bar.update(self.task, completed=self.done, refresh=True)

    def note(self, text: str) -> None:
        self.bar.console.print(terminal(text), markup=False, highlight=False)

    def close(self) -> None:
        self.bar.stop()


def make_progress(quiet: bool, stream: TextIO | None = None) -> Progress:
    """Nothing with `quiet`, a bar on a terminal, plain lines otherwise."""
    stream = stream or sys.stdout
    if quiet:
        return Progress()
    if stream.isatty():
        return RichProgress(stream)
    return PlainProgress(stream)

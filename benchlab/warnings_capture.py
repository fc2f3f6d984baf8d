"""Library warnings (numpy, scipy, statsmodels, diptest) as benchlab's own notes, or silence.

Left alone, a RuntimeWarning prints its source file and line to stderr
("…/numpy/_core/_methods.py:190: RuntimeWarning: overflow encountered in square"
and the code line), which tells a user nothing about their data. `noting(run)`
wraps a command's run function: warnings raised while it runs are recorded,
and when it ends normally each distinct kind is one line `benchlab: note: …`
on stderr saying what it means for the results. Warnings that mean nothing for
the output (scipy's precision note on near-identical data, which benchlab's
own zero-spread handling covers) are dropped. When the command ends with an
error, the notes are dropped too, so the error stays the single line printed.
"""

from __future__ import annotations

import functools
import re
import sys
import warnings
from collections.abc import Callable
from typing import Any

# (pattern of the message, the note; None silences it). First match wins.
_NOTES: tuple[tuple[re.Pattern[str], str | None], ...] = (
    (re.compile(r"precision loss occurred in moment calculation|catastrophic cancellation",
                re.I), None),
    (re.compile(r"overflow", re.I),
     "a computation overflowed (values near the largest float, about 1.8e308?); statistics "
     "shown as inf or nan could not be computed (rescale the data, e.g. with --unit)"),
    (re.compile(r"underflow", re.I),
     "a computation underflowed (values near the smallest float, about 1e-308?); some "
     "statistics may have lost precision"),
    (re.compile(r"divide by zero|invalid value|division by zero|degrees of freedom <= 0|"
                r"mean of empty slice", re.I),
     "some statistics are undefined for these data (a division by zero: identical values, "
     "no residual variation or too few values) and are shown as nan or left out"),
)


def note_for(message: str, category: type[Warning], filename: str) -> str | None:
    """benchlab's note for one warning, or None when it means nothing for the output
    (deprecations are about the libraries' future, not these results)."""
    if issubclass(category, (DeprecationWarning, PendingDeprecationWarning, FutureWarning)):
        return None
    for pattern, note in _NOTES:
        if pattern.search(message):
            return note
    library = next((name for name in ("numpy", "scipy", "statsmodels", "diptest", "pandas",
                                      "matplotlib") if f"{name}" in filename), None)
    first = message.strip().splitlines()[0] if message.strip() else category.__name__
    origin = f"{library} " if library else ""
    return f"{origin}{category.__name__}: {first}"


def notes_of(caught: list[warnings.WarningMessage]) -> list[str]:
    """The distinct notes of the recorded warnings, in the order first seen."""
    notes: dict[str, None] = {}
    for w in caught:
        note = note_for(str(w.message), w.category, w.filename or "")
        if note is not None:
            notes.setdefault(note, None)
    return list(notes)


def noting(run: Callable[[Any], int]) -> Callable[[Any], int]:
    """`run` with library warnings turned into one-line notes on stderr (see module doc)."""

    @functools.wraps(run)
    def wrapped(args: Any) -> int:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code = run(args)
        for note in notes_of(caught):
            print(f"benchlab: note: {note}", file=sys.stderr)
        return code

    return wrapped

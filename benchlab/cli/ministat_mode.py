"""`benchlab compare --ministat`: FreeBSD ministat's output, byte for byte.

Options as ministat's: -A (no plot), -C column, -c confidence, -d delimiters,
-n (vitals only), -q (no legend and header), -s (separate bars), -w width.
Errors follow ministat's messages on stderr with exit status 2, prefixed with
"benchlab: " where ministat prefixes "ministat: ". Deliberate differences from
ministat (docs/ministat.md): NaN and infinite values are refused, a plot
narrower than 2 columns is refused, and every error exits with 2.

This module and the stats/report modules it uses are pure Python (no numpy):
this mode must start fast.
"""

from __future__ import annotations

import math
import os
import re
from typing import TextIO

from benchlab.data.readers.numbers import DEFAULT_DELIMITERS, InvalidToken, extract, parse_number
from benchlab.data.source import STDIN_NAME, Source, open_source
from benchlab.errors import InputError
from benchlab.escape import terminal
from benchlab.report import ministat as report
from benchlab.stats import ministat as stats

EXIT_ERROR = 2


class _Refused(Exception):
    """A message to print on stderr, then exit 2."""


def _atoi(text: str) -> int:
    """C's atoi: optional blanks and sign, then digits; 0 if none."""
    match = re.match(r"[ \t\n\v\f\r]*([+-]?\d+)", text)
    return int(match.group(1)) if match else 0


def default_width(stdout: TextIO) -> int:
    """ministat's width: 74, or on a terminal $COLUMNS or the terminal width minus 2."""
    try:
        if not stdout.isatty():
            return report.DEFAULT_WIDTH
        columns = os.environ.get("COLUMNS", "")
        if columns:
            return _atoi(columns)
        size = os.get_terminal_size(stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return report.DEFAULT_WIDTH
    return size.columns - 2 if size.columns > 0 else report.DEFAULT_WIDTH


def _confidence_index(text: str | None) -> int:
    if text is None:
        return stats.DEFAULT_CONFIDENCE_INDEX
    # strtod: the empty string converts (to 0) without error; anything else must parse fully.
    level = 0.0 if text == "" else parse_number(text)
    if level is None:
        raise _Refused(f"benchlab: Not a floating point number: {text!r}")
    try:
        return stats.confidence_index(level)
    except ValueError:
        choices = ", ".join(f"{pct:g}" for pct in stats.CONFIDENCE_LEVELS)
        raise _Refused(f"benchlab: No support for confidence level {text} "
                       f"(choose one of {choices})") from None


def _read_sets(files: list[str], column: int, delimiters: str,
               flavor: str) -> list[stats.MinistatSample]:
    """Open every file first (as current ministat does), then read each in turn."""
    if not files:
        named = [(STDIN_NAME, "-")]
    else:
        # Current ministat names a set by its argument, so an explicit "-" shows
        # as "-"; the 2015 port called it "<stdin>".
        named = [(STDIN_NAME if path == "-" and flavor == stats.LEGACY_2015 else path, path)
                 for path in files]
    sources: list[tuple[str, Source]] = []
    for name, path in named:
        try:
            sources.append((name, open_source(path)))
        except InputError as exc:
            raise _Refused(f"benchlab: {exc}") from None
    samples = []
    for name, source in sources:
        try:
            values, lines = extract(source, column, delimiters)
        except InvalidToken as exc:
            raise _Refused(f"benchlab: Invalid data on line {exc.line} in {name}") from None
        if len(values) < stats.MIN_POINTS:
            raise _Refused(f"Dataset {name} must contain at least 3 data points")
        for value, line in zip(values, lines, strict=True):
            if not math.isfinite(value):
                what = "NaN" if math.isnan(value) else "an infinite value"
                raise _Refused(f"benchlab: {name}:{line}: {what} is refused in ministat mode "
                               "(ministat cannot compute with it)")
        samples.append(stats.describe(name, values, flavor=flavor))
    return samples


def run(files: list[str], *, all_stats: bool = False, column: int = 1,
        confidence: str | None = None, delimiters: str = DEFAULT_DELIMITERS,
        stats_only: bool = False, quiet: bool = False, separate: bool = False,
        width: int | None = None, stdout: TextIO, stderr: TextIO,
        flavor: str = stats.CURRENT) -> int:
    """Run ministat's job over `files` (none: standard input); return the exit status.

    all_stats is -A (no plot), stats_only -n (no plot, no comparisons), quiet -q
    (no legend, no table header), separate -s, width -w (None: ministat's
    default, 74 or the terminal's width). `confidence` is the -c text as given.
    `flavor` "2015" computes as Debian's 2015 port does (for the tests).
    """
    try:
        output = _run(files, all_stats=all_stats, column=column, confidence=confidence,
                      delimiters=delimiters, stats_only=stats_only, quiet=quiet,
                      separate=separate, width=width, stdout=stdout, flavor=flavor)
    except _Refused as exc:
        stderr.write(f"{terminal(str(exc))}\n")  # a file name's control characters escaped
        return EXIT_ERROR
    stdout.write(output)
    return 0


def _run(files: list[str], *, all_stats: bool, column: int, confidence: str | None,
         delimiters: str, stats_only: bool, quiet: bool, separate: bool,
         width: int | None, stdout: TextIO, flavor: str) -> str:
    if column <= 0:
        raise _Refused("benchlab: Column number should be positive.")
    confidence_idx = _confidence_index(confidence)
    if delimiters == "":
        raise _Refused("benchlab: Can't use empty delimiter string")
    if width is None:
        width = default_width(stdout)
    if width < 0:
        raise _Refused("benchlab: Unable to move beyond left margin.")
    plot = not (stats_only or all_stats)
    if plot and width < 2:
        raise _Refused(f"benchlab: A plot needs a width of at least 2, not {width} "
                       "(use -A to leave the plot out)")
    if len(files) > stats.MAX_DATASETS:
        raise _Refused("benchlab: Too many datasets.")

    samples = _read_sets(files, column, delimiters, flavor)
    comparisons = None
    if not stats_only:
        comparisons = [stats.relative(s, samples[0], confidence_idx, flavor=flavor)
                       for s in samples[1:]]
    try:
        return report.render(samples, comparisons, plot=plot, width=width,
                             separate=separate, quiet=quiet)
    except ValueError as exc:
        raise _Refused(f"benchlab: cannot draw the plot: {exc} (use -A to leave it out)") \
            from None

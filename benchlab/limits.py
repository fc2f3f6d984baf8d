"""Limits on the size of an analysis, checked before anything is allocated.

A typo such as `--bootstrap 1000000000000` or `--taus 0.001:0.999:0.000001`
would otherwise end in a MemoryError traceback or hours of silent work. Each
limit is generous (far above what any sound analysis needs), is named in the
one-line refusal, and can be raised with an environment variable:

BENCHLAB_MAX_REPLICATES (10,000,000): bootstrap replicates (--bootstrap, -R);
BENCHLAB_MAX_RESAMPLED (200,000,000,000): values one bootstrap draws (B × n);
BENCHLAB_MAX_TAUS (1,000): quantiles of `qreg --taus`;
BENCHLAB_MAX_MEMORY_MB (4,096): the largest arrays an analysis would hold;
BENCHLAB_MAX_PAIRS (5,000): the pairwise tests of `test` (kruskal post hoc, speedup);
BENCHLAB_MAX_COEFFICIENTS (1,000): coefficients of an `anova` or `qreg` model;
BENCHLAB_MAX_INPUT_MB (2,048): the bytes read from one input file or stream.

docs/limits.md lists them for users.
"""

from __future__ import annotations

import os

from benchlab.errors import ParameterError, UsageError

MAX_REPLICATES = ("BENCHLAB_MAX_REPLICATES", 10_000_000)
MAX_RESAMPLED = ("BENCHLAB_MAX_RESAMPLED", 200_000_000_000)
MAX_TAUS = ("BENCHLAB_MAX_TAUS", 1_000)
MAX_MEMORY_MB = ("BENCHLAB_MAX_MEMORY_MB", 4_096)
MAX_PAIRS = ("BENCHLAB_MAX_PAIRS", 5_000)
MAX_COEFFICIENTS = ("BENCHLAB_MAX_COEFFICIENTS", 1_000)
MAX_INPUT_MB = ("BENCHLAB_MAX_INPUT_MB", 2_048)


def limit(setting: tuple[str, int]) -> int:
    """The limit its environment variable sets (a positive integer), else the default."""
    variable, default = setting
    text = os.environ.get(variable, "").strip()
    if not text:
        return default
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{variable} must be a positive integer, not {text[:40]!r}")
    return value


def check(value: int, setting: tuple[str, int], what: str, how: str,
          parameter: str | None = None) -> None:
    """Refuse `value` above the limit: "WHAT is N, more than the limit of L; HOW or set VAR".

    With `parameter`, HOW says `{param}` where the library's parameter is meant (a
    ParameterError: the command line names its option there)."""
    bound = limit(setting)
    if value > bound:
        _refuse(f"{what} is {value:,}, more than the limit of {bound:,}; {how}or set "
                f"{setting[0]} to raise the limit", parameter)


def _refuse(message: str, parameter: str | None) -> None:
    if parameter is None:
        raise UsageError(message)
    raise ParameterError(message, parameter)


def check_replicates(replicates: int, option: str) -> None:
    """Bootstrap replicates: each is kept (8 bytes per statistic, a few arrays of them)."""
    check(replicates, MAX_REPLICATES, f"{option} {replicates}", f"lower {option} ")


def check_resampled(replicates: int, values: int, option: str) -> None:
    """A bootstrap's work: every replicate draws about as many values as the data hold."""
    check(replicates * values, MAX_RESAMPLED,
          f"the bootstrap's work ({option} {replicates:,} × {values:,} values)",
          f"lower {option} ")


def check_memory(nbytes: int, what: str, how: str, parameter: str | None = None) -> None:
    """An array about to be allocated: `what` needs `nbytes` bytes (`parameter` as in
    check)."""
    megabytes = -(-int(nbytes) // 2**20)
    bound = limit(MAX_MEMORY_MB)
    if megabytes > bound:
        _refuse(f"{what} would take {megabytes:,} MB of memory, more than the limit of "
                f"{bound:,} MB; {how}or set {MAX_MEMORY_MB[0]} to raise the limit", parameter)


def check_pairs(samples: int, pairs: int, what: str) -> None:
    """Tests run pair by pair (about a millisecond each, a line of output each)."""
    check(pairs, MAX_PAIRS, f"{what} for {samples:,} samples: the number of tests", "compare "
          "fewer samples (e.g. --by a column with fewer groups) ")

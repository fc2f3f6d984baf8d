"""A small history for the tests of `history publish` (tests/report/test_history_site.py,
tests/browser/test_history_site_browser.py): five series over 40 commits, one with a step,
one with an episode, and names that would break a page that did not escape them."""

from __future__ import annotations

import numpy as np

from benchlab.history.store import CommitResults, History, SeriesData

HOSTILE = "<script>alert(1)</script>"
KEYS = (  # (benchmark, machine)
    ("flat", "default"),
    ("step", "default"),
    ("episode", "default"),
    (HOSTILE, "default"),
    ('quote"&amp;\'', "m</script>\n<b>x\u202e"),  # a newline, a right-to-left override
)
SHOWN_MACHINE = "m</script>\\n<b>x\\u202e"  # the hostile machine as the pages show it
RUNS = 4


def _values(b: int, c: int, rng: np.random.Generator) -> np.ndarray:
    level = 1.0 + 0.1 * b
    if b == 1 and c >= 20:
        level *= 1.10  # a step of +10%
    if b == 2 and 15 <= c < 20:
        level *= 1.08  # an episode of five commits
    return level * (1 + rng.normal(0, 0.004)) * (1 + rng.normal(0, 0.006, RUNS))


def commit(c: int, keys=KEYS, seed: int = 5) -> CommitResults:
    """Commit number c with the series of `keys` (each series' values from its own seeded
    stream, so a commit's values do not depend on which other series it has)."""
    runs = np.arange(RUNS).astype(str)
    series = []
    for b, (bench, machine) in enumerate(KEYS):
        if (bench, machine) not in keys:
            continue
        rng = np.random.default_rng([seed, b, c])
        series.append(SeriesData(bench, "time", machine, "s", False, ("run",),
                                 _values(b, c, rng), (runs,)))
    return CommitResults(f"{c:04d}abcdef", f"2024-01-01T00:{c // 60:02d}:{c % 60:02d}Z",
                         "main", tuple(series))


def build(path: str, commits: int = 40) -> None:
    with History.open_or_create(path) as h:
        h.add([commit(c) for c in range(commits)])

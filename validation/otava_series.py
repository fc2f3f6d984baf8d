"""The series of validation/history_otava.py (and of history_otava_reference.py, which runs
Apache Otava itself on them), from Otava's public test-data generators
(`pip install otava-test-data`); see history_otava.py for the list. No benchlab import, so
that Otava's own environment (apache-otava pins its numpy) can read them too."""

from __future__ import annotations

import numpy as np

COMMITS, PER_KIND, LATE = 500, 15, 50
NEAR = 2  # a report within ±2 commits of a true change finds it


def generate(seed: int) -> list[tuple[str, np.ndarray, list[int], list[int]]]:
    """(kind, values, true change indices, true spike indices) of every series."""
    from otava_test_data import (
        banding,
        multiple_changes,
        noise_normal,
        outlier,
        regression_fix,
        step_function,
    )

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(PER_KIND):
        s = int(rng.integers(2**31))
        at = int(rng.integers(50, COMMITS - 50))
        out.append(("steps +3%", step_function(COMMITS, 100, 103, at, 1.0, s).data, [at], []))
        at = int(rng.integers(50, COMMITS - 50))
        out.append(("steps +5%", step_function(COMMITS, 100, 105, at, 1.0, s + 1).data, [at],
                    []))
        cuts = sorted(int(x) for x in rng.choice(np.arange(60, COMMITS - 60, 20), 3, False))
        out.append(("several changes", multiple_changes(COMMITS, [100, 105, 102, 107], cuts,
                                                        1.0, s + 2).data, cuts, []))
        at = int(rng.integers(50, COMMITS - 60))
        out.append(("fixed regression", regression_fix(COMMITS, 100, 110, 100, at, 10, 2.0,
                                                       s + 3).data, [at, at + 10], []))
        at = int(rng.integers(20, COMMITS - 20))
        out.append(("spike", outlier(COMMITS, 100, 130, at, 1.0, s + 4).data, [], [at]))
        out.append(("noise", noise_normal(COMMITS, 100, 2.0, s + 5).data, [], []))
        out.append(("banding", banding(COMMITS, 100, 105, 1.0, s + 6).data, [], []))
    for back in (1, 2, 3, 5):
        for _ in range(LATE):
            s = int(rng.integers(2**31))
            out.append((f"late step, {back} before head",
                        step_function(COMMITS, 100, 105, COMMITS - back, 1.0, s).data,
                        [COMMITS - back], []))
    return out

"""A bisect's store read as data: one sample per commit it measured (docs/bisect.md).

`benchlab compare`, `summary` and `report` read a store of `benchlab bisect -o` through
the store reader (data/readers/store.py hands it here): a row per execution of a
commit that succeeded and was not a warm-up, in the bisect's metric (`--metric` picks
another it recorded: wall, user, sys, cpu, maxrss, and instructions where counted),
the sample named by the commit's SHA (12 digits), the samples in history order with
the good end first (so it is the baseline), the commits the bisect never measured
left out. A commit's executions from every step that ran it are one sample: each
execution is one measurement (no levels), `step`, `arm` and `round` are columns for
--by or a filter, and `subject` holds the first line of its message where the bisect
named it. The culprit's own CI (at the family level the search spent) stays the
bisect's: `benchlab bisect -o STORE --resume` prints it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchlab.errors import InputError
from benchlab.escape import token as quoted

if TYPE_CHECKING:
    from benchlab.data.dataset import Dataset


def read(path: str, metric: str | None = None) -> Dataset:
    """The store's executions of `metric` (default: the bisect's) as a Dataset by commit."""
    import numpy as np

    from benchlab.data.dataset import Dataset
    from benchlab.runner.bisect_store import METRIC_UNITS, METRICS
    from benchlab.runner.bisect_store import read as read_store
    from benchlab.units import make_unit

    recorded = read_store(path)
    chosen = metric if metric is not None else str(recorded.settings.get("metric", "wall"))
    if chosen not in METRICS:
        raise InputError(f"no metric {quoted(chosen)} in a bisect store (metrics: "
                         f"{', '.join(METRICS)})", path)
    kept = [e for e in recorded.executions if not e.warmup and e.error is None]
    if chosen == "instructions":
        if any(e.instructions is None for e in kept):
            raise InputError("this bisect counted no instructions (it measured "
                             f"{recorded.settings.get('metric', 'wall')}): choose that "
                             "metric", path)
    if not kept:
        raise InputError(f"no finished executions in the bisect store ({len(recorded.executions)} "
                         "recorded, all warm-ups or failed)", path)
    good = str(recorded.settings["good"])
    history = [good, *(recorded.commits or [])]
    rank = {sha: k for k, sha in enumerate(history)}
    first_seen: dict[str, int] = {}
    for k, e in enumerate(kept):
        first_seen.setdefault(e.sha, k)
    # history order, good first; a store written before it kept its commits: the order in
    # which the bisect first measured each commit (good and bad first), said in the docs
    kept.sort(key=lambda e: (rank.get(e.sha, len(history) + first_seen[e.sha]), e.step,
                             e.round, e.slot))
    columns = {
        "commit": np.array([e.sha[:12] for e in kept], dtype=object),
        "subject": np.array([recorded.subjects.get(e.sha, "") for e in kept], dtype=object),
        "step": np.array([str(e.step) for e in kept], dtype=object),
        "arm": np.array([e.arm for e in kept], dtype=object),
        "round": np.array([str(e.round) for e in kept], dtype=object),
        "value": np.array([e.value(chosen) for e in kept], dtype=np.float64),
    }
    return Dataset(columns, "value", ("commit",), (), chosen, make_unit(METRIC_UNITS[chosen]),
                   path, None, "commit")

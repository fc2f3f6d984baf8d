"""Blocks of a run: the top-level unit means of each alternative, paired by the block they share.

`benchlab run` interleaves the alternatives in rounds: within one round every
cell (alternative × factor levels) runs once, in a fresh random order, so
whatever the machine does slowly — thermal state, background load, drift —
reaches all alternatives of a round alike. A round is then a block in the
sense of STATS.md §3 ("run i of A and run i of B share a boot, so compare them
pair by pair"): the analysis pairs each block's mean of one alternative with
the same block's mean of the other, and Fieller's interval with the covariance
term (§3, paired; v_ab = cov(a_i, b_i)/n, df = n − 1) removes the block effect
from the ratio's uncertainty instead of counting it as noise.

Which unit is paired follows Kalibera & Jones (STATS.md §5: only the
top-level unit means carry the uncertainty of a mean):

- executions paired by round when the executions are the top level with a
  randomness of their own (no build step: the store's "builds" then only group
  rounds in time, so their variation is shared by the alternatives and cancels
  in the pairs);
- build means paired by build index when the builds are real (a build step, or
  a command that uses the build number): each build of an alternative is its
  own random unit, and build b of every alternative spans the same rounds, so
  the round effects cancel inside each build's pair as well.

Both are the paired analysis of §3 on the top-level units of §5; a unit's mean
is the mean of its children (§5, unbalanced data).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.stats.compare import CompareResult
from benchlab.stats.suite import SuiteResult


def block_means(values: np.ndarray, units: np.ndarray, blocks: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(block ids in increasing order, the mean of each block's unit means).

    values: the measurements; units: an integer id of each measurement's lowest
    unit (an execution), nested in blocks: the integer block id of each
    measurement. A unit's mean is the mean of its measurements, a block's the
    mean of its units' means (every unit weighs the same, STATS.md §5).
    """
    values = np.asarray(values, dtype=np.float64)
    units = np.asarray(units)
    blocks = np.asarray(blocks, dtype=np.int64)
    if not values.size:
        return np.empty(0, dtype=np.int64), np.empty(0)
    _, first, inverse = np.unique(units, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    unit_means = np.bincount(inverse, weights=values) / np.bincount(inverse)
    ids, b_inverse = np.unique(blocks[first], return_inverse=True)
    b_inverse = b_inverse.ravel()
    return ids, np.bincount(b_inverse, weights=unit_means) / np.bincount(b_inverse)


@dataclass(frozen=True)
class Paired:
    """Block means of several samples on their common blocks, in block order.

    means[i][j] is sample i's mean in blocks[j]; dropped lists the blocks that
    some sample lacks (a failed or unfinished trial), left out of every pair.
    """

    names: tuple[str, ...]
    blocks: np.ndarray
    means: tuple[np.ndarray, ...]
    dropped: tuple[int, ...]


def pair_blocks(samples: Sequence[tuple[str, np.ndarray, np.ndarray]]) -> Paired:
    """Align (name, block ids, block means) of every sample on the blocks all of them have."""
    common = None
    every: set[int] = set()
    for _, ids, _ in samples:
        ids_set = {int(i) for i in ids}
        every |= ids_set
        common = ids_set if common is None else common & ids_set
    keep = np.array(sorted(common or ()), dtype=np.int64)
    means = []
    for _, ids, m in samples:
        position = np.searchsorted(np.asarray(ids), keep)
        means.append(np.asarray(m, dtype=np.float64)[position])
    dropped = tuple(sorted(every - set(keep.tolist())))
    return Paired(tuple(n for n, _, _ in samples), keep, tuple(means), dropped)


@dataclass(frozen=True)
class Design:
    """How a store's analysis followed the experiment's design (said in one note line).

    by: the column naming the groups; benchmark: the column naming the benchmarks
    (None: one comparison); levels: the hierarchy used (empty when blocked);
    blocks: "round" or "build" when the top-level unit means are paired by the
    block they share, else None; unit: the unit paired ("execution", "build");
    pairs: the blocks used (the smallest over benchmarks); dropped: blocks left out
    because some alternative lacks them; note: the sentence shown; notes: what else
    the store says of its data, a line each (the caches Valgrind simulated for a cache
    metric: data/simulated_caches.py).
    """

    note: str
    by: str
    benchmark: str | None
    levels: tuple[str, ...]
    blocks: str | None = None
    unit: str | None = None
    pairs: int | None = None
    dropped: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()


def _with_design(base, cls, design: Design):
    from dataclasses import fields

    return cls(**{f.name: getattr(base, f.name) for f in fields(base)}, design=design)


def designed(result, design: Design):
    """The result (CompareResult or SuiteResult) carrying the design it followed."""
    if isinstance(result, CompareResult):
        return _with_design(result, DesignedCompare, design)
    if isinstance(result, SuiteResult):
        return _with_design(result, DesignedSuite, design)
    raise TypeError(f"no design for a {type(result).__name__}")


def plain(result):
    """The result without its design (the base class), for the base renderers."""
    from dataclasses import fields

    base = type(result).__mro__[1]
    return base(**{f.name: getattr(result, f.name) for f in fields(base)})


@dataclass(frozen=True)
class DesignedCompare(CompareResult):
    """A comparison of a store's samples, with the design it followed."""

    design: Design | None = None


@dataclass(frozen=True)
class DesignedSuite(SuiteResult):
    """A suite comparison of a store's factor combinations, with the design it followed."""

    design: Design | None = None

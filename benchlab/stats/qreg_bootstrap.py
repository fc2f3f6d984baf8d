"""Bootstrap replicates of quantile-regression coefficients, resampling within cells.

`cluster` resamples whole runs (clusters) within each cell of the design,
`boot` resamples observations (xy pairs) within each cell; cell sizes stay as
designed, as in a stratified bootstrap (STATS.md §9). For saturated factorial
models a replicate is a set of integer weights on the observations, and each
cell's weighted type-1 quantile is found by one cumulative sum and a binary
search over the cell's sorted values: O(n) per replicate, vectorized over
blocks of replicates. Other models are refitted by the LP solver with the
weights (ρ_τ is positively homogeneous, so weight w scales the row by w).
"""

from __future__ import annotations

import numpy as np

from benchlab import progress
from benchlab.stats.qreg_design import FactorialModel

_BLOCK_CELLS = 2_000_000  # weights held at once (rows × replicates in a block)


def _check_size(replicates: int, taus: int, p: int) -> None:
    """Refuse, before allocating, replicate coefficients too large to hold (8 bytes each)."""
    from benchlab import limits

    limits.check_memory(replicates * taus * p * 8,
                        f"{replicates:,} replicates × {taus} quantiles × {p} coefficients",
                        "lower -R or give fewer --taus ")


def _groups(cell: np.ndarray, cluster: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Group (run within cell) of each row, and the cell of each group; rows are groups when
    there is no cluster column."""
    if cluster is None:
        return np.arange(len(cell)), cell.copy()
    if (np.issubdtype(cluster.dtype, np.integer) and np.issubdtype(cell.dtype, np.integer)
            and cluster.size and cluster.min() >= 0 and cell.min() >= 0
            and (int(cell.max()) + 1) * (int(cluster.max()) + 1) < 2**62):
        # One integer per (cell, cluster), in the same (lexicographic) order as the rows of
        # np.unique(pairs, axis=0), which sorts structured rows about 15× slower.
        width = int(cluster.max()) + 1
        keys, group = np.unique(cell.astype(np.int64) * width + cluster, return_inverse=True)
        return group.ravel(), keys // width
    pairs = np.stack([cell, cluster], axis=1)
    uniq, group = np.unique(pairs, axis=0, return_inverse=True)
    return group.ravel(), uniq[:, 0]


def _draw_counts(rng: np.random.Generator, group_cell: np.ndarray, n_cells: int,
                 m: int) -> np.ndarray:
    """(m, G) counts: each cell draws as many of its groups as it has, with replacement."""
    order = np.argsort(group_cell, kind="stable")  # groups of a cell are contiguous in `order`
    per_cell = np.bincount(group_cell, minlength=n_cells)
    start = np.concatenate([[0], np.cumsum(per_cell)[:-1]])
    slot_cell = group_cell[order]
    picks = start[slot_cell] + np.floor(rng.random((m, len(order))) * per_cell[slot_cell])
    chosen = order[picks.astype(np.int64)]
    g = len(order)
    flat = (chosen + (np.arange(m) * g)[:, None]).ravel()
    return np.bincount(flat, minlength=m * g).reshape(m, g)


def saturated_replicates(model: FactorialModel, taus: np.ndarray, replicates: int,
                         rng: np.random.Generator,
                         cluster: np.ndarray | None = None) -> np.ndarray:
    """(replicates, taus, p) coefficients of a saturated model by weighted cell quantiles."""
    n_cells = model.cell_matrix.shape[0]
    order = np.lexsort((model.y, model.cell))
    ys, cs = model.y[order], model.cell[order]
    group, group_cell = _groups(model.cell, cluster)
    row_group = group[order]
    cell_end = np.cumsum(np.bincount(cs, minlength=n_cells))
    cell_start = cell_end - np.bincount(cs, minlength=n_cells)
    inverse_cells = np.linalg.inv(model.cell_matrix)
    n = len(ys)
    _check_size(replicates, len(taus), model.p)
    out = np.empty((replicates, len(taus), model.p))
    block = max(1, _BLOCK_CELLS // max(n, 1))
    with progress.task("qreg bootstrap", replicates) as advance:
        for first in range(0, replicates, block):  # blocks of replicates, each vectorized
            m = min(block, replicates - first)
            out[first:first + m] = _saturated_block(
                rng, m, ys, row_group, group_cell, n_cells, cell_start, cell_end, taus,
                inverse_cells)
            advance(m)
    return out


def _saturated_block(rng: np.random.Generator, m: int, ys: np.ndarray, row_group: np.ndarray,
                     group_cell: np.ndarray, n_cells: int, cell_start: np.ndarray,
                     cell_end: np.ndarray, taus: np.ndarray,
                     inverse_cells: np.ndarray) -> np.ndarray:
    """(m, taus, p) coefficients of m replicates: cell quantiles from cumulative weights."""
    from benchlab.stats.qreg_design import type1_positions

    n = len(ys)
    counts = _draw_counts(rng, group_cell, n_cells, m)
    # Cumulative weights in int32 where they fit (a replicate's total is at most n times the
    # largest group): half the memory traffic of the (m, n) passes, the same integers.
    largest = int(np.bincount(row_group).max()) if n else 0
    dtype = np.int32 if n * max(largest, 1) < 2**31 else np.int64
    cum = np.cumsum(counts.astype(dtype)[:, row_group], axis=1, dtype=dtype)  # (m, n)
    before = np.where(cell_start > 0, cum[:, np.maximum(cell_start - 1, 0)], 0)
    totals = cum[:, cell_end - 1] - before  # (m, cells)
    ranks = type1_positions(totals.ravel(), taus).reshape(m, n_cells, len(taus)) + 1
    targets = before[:, :, None] + ranks
    where = np.stack([np.searchsorted(cum[i], targets[i].ravel(), side="left")
                      for i in range(m)]).ravel() % n
    q = ys[where].reshape(m, n_cells, len(taus))
    return np.einsum("pc,mct->mtp", inverse_cells, q)


def refit_replicates(model: FactorialModel, taus: np.ndarray, replicates: int,
                     rng: np.random.Generator, cluster: np.ndarray | None = None,
                     start: np.ndarray | None = None) -> np.ndarray:
    """(replicates, taus, p) coefficients of a non-saturated model, refitted per replicate.

    `start` (taus, p), the fit to the data, seeds the solver's preprocessing on large data.
    """
    from benchlab.stats.qreg_fn import fit

    n_cells = model.cell_matrix.shape[0]
    group, group_cell = _groups(model.cell, cluster)
    x = model.matrix()
    _check_size(replicates, len(taus), model.p)
    out = np.empty((replicates, len(taus), model.p))
    with progress.task("qreg bootstrap (refitting)", replicates) as advance:
        for b in range(replicates):  # each replicate is a full LP solve; the loop is not the cost
            weights = _draw_counts(rng, group_cell, n_cells, 1)[0][group].astype(np.float64)
            keep = weights > 0
            xw, yw = x[keep] * weights[keep, None], model.y[keep] * weights[keep]
            for t, tau in enumerate(taus):
                out[b, t] = fit(xw, yw, float(tau), None if start is None else start[t]).coef
            advance(1)
    return out

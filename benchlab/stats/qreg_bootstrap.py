"""Bootstrap replicates of quantile-regression coefficients, resampling within cells.

`cluster` resamples whole runs (clusters) within each cell of the design,
`boot` resamples observations (xy pairs) within each cell; cell sizes stay as
designed, as in a stratified bootstrap (STATS.md §9). For saturated factorial
models a replicate is a set of integer weights on the observations, and each
cell's weighted type-1 quantile is the first of the cell's sorted values whose
cumulative weight reaches its rank. That row is found in two levels: the rows
are cut into blocks, a replicate's block sums come from the (group, rows) pairs
of each block, a search finds the target's block, and only that block's
weights are summed. A replicate costs about (block, group) pairs + cells × τ ×
block width steps instead of several passes over all n rows (benchmarks/
qreg_bootstrap.py), with the same integers, so the same rows, as one
cumulative sum over all rows; vectorized over blocks of replicates. Other
models are refitted by the LP solver with the weights (ρ_τ is positively
homogeneous, so weight w scales the row by w).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchlab import progress
from benchlab.stats.qreg_design import FactorialModel

_BLOCK_CELLS = 1_000_000  # elements of the largest array held at once in a block of replicates


def _check_size(replicates: int, taus: int, p: int) -> None:
    """Refuse, before allocating, replicate coefficients too large to hold (8 bytes each)."""
    from benchlab import limits

    limits.check_memory(replicates * taus * p * 8,
                        f"{replicates:,} replicates × {taus} quantiles × {p} coefficients",
                        "lower {param} or give fewer quantiles (taus) ", "replicates")


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
    """(replicates, taus, p) coefficients of a saturated model by weighted cell quantiles.

    Every cell of the model has rows (`check_design` refuses an empty cell).
    """
    n_cells = model.cell_matrix.shape[0]
    order = _sorted_rows(model.y, model.cell, n_cells)
    ys = model.y[order]
    group, group_cell = _groups(model.cell, cluster)
    _check_size(replicates, len(taus), model.p)
    layout = _layout(group[order], model.cell[order], group_cell, n_cells, len(taus))
    inverse_cells = np.linalg.inv(model.cell_matrix)
    out = np.empty((replicates, len(taus), model.p))
    block = max(1, _BLOCK_CELLS // layout.per_replicate)
    with progress.task("qreg bootstrap", replicates) as advance:
        for first in range(0, replicates, block):  # blocks of replicates, each vectorized
            m = min(block, replicates - first)
            counts = _draw_counts(rng, group_cell, n_cells, m)
            where = _quantile_rows(counts, layout, taus)
            q = ys[where].reshape(m, n_cells, len(taus))
            out[first:first + m] = np.einsum("pc,mct->mtp", inverse_cells, q)
            advance(m)
    return out


def _sorted_rows(y: np.ndarray, cell: np.ndarray, n_cells: int) -> np.ndarray:
    """The rows ordered by cell, then y: np.lexsort((y, cell)) exactly (ties keep their
    order), by two stable sorts, the second a radix sort of small integers (faster)."""
    by_y = np.argsort(y, kind="stable")
    cells = cell[by_y]
    if n_cells <= np.iinfo(np.int16).max:
        cells = cells.astype(np.int16)
    return by_y[np.argsort(cells, kind="stable")]


@dataclass(frozen=True)
class _Layout:
    """Each cell's sorted rows cut into blocks of `width` slots, for the two-level search.

    A cell's last block is padded: `rows` is the group of each slot, the padding's being
    the group `n_groups`, which always weighs 0, and `slot_row` the sorted row of each
    slot (0 for the padding). Block b holds the (group, multiplicity) pairs `pair_group`,
    `pair_rows` from `pair_start[b]` on; `cell_last_block` is each cell's last block.
    """

    width: int
    rows: np.ndarray
    slot_row: np.ndarray
    pair_group: np.ndarray
    pair_rows: np.ndarray
    pair_start: np.ndarray
    cell_last_block: np.ndarray
    per_replicate: int     # elements one replicate holds at once (the largest array's row)


def _width(cell_rows: np.ndarray, n_groups: int, n_taus: int) -> int:
    """The block width (a power of two, 8–4096) minimizing the work of one replicate.

    A replicate costs one step per (block, group) pair for the block sums (at most the
    rows, about blocks × min(width, groups per cell)), one per block for their cumulative
    sum, and cells × taus × width steps inside the blocks found.
    """
    n, n_cells = int(cell_rows.sum()), len(cell_rows)
    per_cell = max(1.0, n_groups / max(n_cells, 1))
    widths = 2 ** np.arange(3, 13)
    blocks = np.ceil(cell_rows[None, :] / widths[:, None]).sum(axis=1)
    cost = (np.minimum(n, blocks * np.minimum(widths, per_cell)) + blocks
            + n_cells * n_taus * widths)
    return int(widths[np.argmin(cost)])


def _layout(row_group: np.ndarray, row_cell: np.ndarray, group_cell: np.ndarray,
            n_cells: int, n_taus: int) -> _Layout:
    """The blocks of the sorted rows and the groups' rows in each (built once per call)."""
    n, n_groups = len(row_group), len(group_cell)
    cell_rows = np.bincount(row_cell, minlength=n_cells)
    width = _width(cell_rows, n_groups, n_taus)
    cell_blocks = -(-cell_rows // width)
    first_block = np.cumsum(cell_blocks) - cell_blocks
    n_blocks = max(1, int(cell_blocks.sum()))
    cell_start = np.cumsum(cell_rows) - cell_rows
    slot = first_block[row_cell] * width + np.arange(n) - cell_start[row_cell]
    index = np.int32 if max(n_blocks * width, n_groups + 1) < 2**31 else np.int64
    rows = np.full(n_blocks * width, n_groups, dtype=index)
    rows[slot] = row_group
    slot_row = np.zeros(n_blocks * width, dtype=index)
    slot_row[slot] = np.arange(n)
    del slot
    keys = np.repeat(np.arange(n_blocks, dtype=np.int64) * (n_groups + 1), width) + rows
    if n_blocks * (n_groups + 1) <= len(keys):  # dense enough to count by bincount
        tally = np.bincount(keys, minlength=n_blocks * (n_groups + 1))
        pairs = np.flatnonzero(tally)
        multiplicity = tally[pairs]
        del tally
    else:
        pairs, multiplicity = np.unique(keys, return_counts=True)
    del keys
    per_replicate = max(n_groups + 1, len(pairs), n_cells * n_taus * width)
    return _Layout(width, rows, slot_row, pairs % (n_groups + 1),
                   multiplicity.astype(np.int64),
                   np.searchsorted(pairs // (n_groups + 1), np.arange(n_blocks)),
                   first_block + cell_blocks - 1, per_replicate)


def _quantile_rows(counts: np.ndarray, layout: _Layout, taus: np.ndarray) -> np.ndarray:
    """(m × cells × taus) sorted-row index of each replicate's weighted type-1 cell quantile.

    Row i carries the weight w_i = counts[group of i]; the quantile of cell c at τ is the
    first row i whose cumulative weight W_i = w_0 + ... + w_i reaches W(before c) + r, r
    the type-1 rank ceil(N_c τ) of the cell's total weight N_c (R's quantile type 1,
    STATS.md §9). W is found in two levels, with the same integers as one cumulative sum
    over all rows: the block whose cumulative weight first reaches the target (block sums
    from the (group, rows) pairs of each block), then the row inside that block.
    """
    from benchlab.stats.qreg_design import type1_positions

    m = counts.shape[0]
    weights = np.zeros((m, counts.shape[1] + 1), dtype=np.int64)  # last column: the padding
    weights[:, :-1] = counts
    block_sums = np.add.reduceat(weights[:, layout.pair_group] * layout.pair_rows,
                                 layout.pair_start, axis=1)
    block_cum = np.cumsum(block_sums, axis=1)  # W at the end of each block, (m, blocks)
    # a cell ends with its last block (blocks never straddle cells)
    cell_cum = np.where(layout.cell_last_block >= 0,
                        block_cum[:, np.maximum(layout.cell_last_block, 0)], 0)
    before = np.concatenate([np.zeros((m, 1), dtype=np.int64), cell_cum[:, :-1]], axis=1)
    ranks = type1_positions((cell_cum - before).ravel(), taus) + 1
    targets = (before.reshape(-1, 1) + ranks).reshape(m, -1)  # (m, cells × taus)
    return _first_reaching(weights, block_cum, targets, layout)


def _first_reaching(weights: np.ndarray, block_cum: np.ndarray, targets: np.ndarray,
                    layout: _Layout) -> np.ndarray:
    """Per replicate and target t, the sorted row where the cumulative weight first reaches
    t (row 0 when none does, as np.searchsorted(...) % n would give), flattened."""
    m, n_blocks = block_cum.shape
    # One searchsorted for all replicates: replicate r's block sums shifted by r × span
    # stay sorted and apart (span exceeds every replicate's total weight).
    span = int(block_cum[:, -1].max()) + 1
    shift = np.arange(m, dtype=np.int64)[:, None] * span
    found = np.searchsorted((block_cum + shift).ravel(), (targets + shift).ravel(), side="left")
    block = found.reshape(m, -1) - np.arange(m)[:, None] * n_blocks
    beyond = block >= n_blocks
    block = np.minimum(block, n_blocks - 1)
    replicate = np.broadcast_to(np.arange(m)[:, None], block.shape).ravel()
    block = block.ravel()
    rest = (targets - np.where(block > 0, block_cum.ravel()[replicate * n_blocks + block - 1],
                               0).reshape(m, -1)).ravel()  # weight still to reach in the block
    offset = np.empty(len(block), dtype=np.int64)
    chunk = max(1, _BLOCK_CELLS // layout.width)  # bounds the (targets, width) arrays
    for first in range(0, len(block), chunk):  # one pass unless cells × taus is huge
        part = slice(first, first + chunk)
        slots = block[part, None] * layout.width + np.arange(layout.width)  # (targets, width)
        inside = np.cumsum(weights[replicate[part, None], layout.rows[slots]], axis=1)
        offset[part] = np.argmax(inside >= rest[part, None], axis=1)
    where = layout.slot_row[block * layout.width + offset]
    return np.where(beyond.ravel(), 0, where)


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

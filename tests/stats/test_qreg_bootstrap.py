"""The saturated-model bootstrap's two-level search against the one-pass implementation it
replaced (kept below as the reference): bitwise the same replicates from the same seed."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.stats import qreg_bootstrap
from benchlab.stats.coding import yates_terms
from benchlab.stats.qreg_design import build_model, type1_positions

# --- the reference: the implementation before the two-level search, verbatim in substance:
# per replicate the run weights gathered onto every row, one (m, n) cumulative sum, and a
# binary search per replicate.


def reference_groups(cell: np.ndarray, cluster: np.ndarray | None) -> tuple[np.ndarray,
                                                                           np.ndarray]:
    if cluster is None:
        return np.arange(len(cell)), cell.copy()
    pairs = np.stack([cell, cluster], axis=1)
    uniq, group = np.unique(pairs, axis=0, return_inverse=True)
    return group.ravel(), uniq[:, 0]


def reference_draw_counts(rng, group_cell, n_cells, m):
    order = np.argsort(group_cell, kind="stable")
    per_cell = np.bincount(group_cell, minlength=n_cells)
    start = np.concatenate([[0], np.cumsum(per_cell)[:-1]])
    slot_cell = group_cell[order]
    picks = start[slot_cell] + np.floor(rng.random((m, len(order))) * per_cell[slot_cell])
    chosen = order[picks.astype(np.int64)]
    g = len(order)
    flat = (chosen + (np.arange(m) * g)[:, None]).ravel()
    return np.bincount(flat, minlength=m * g).reshape(m, g)


def reference_block(rng, m, ys, row_group, group_cell, n_cells, cell_start, cell_end, taus,
                    inverse_cells):
    n = len(ys)
    counts = reference_draw_counts(rng, group_cell, n_cells, m)
    cum = np.cumsum(counts.astype(np.int64)[:, row_group], axis=1)  # (m, n)
    before = np.where(cell_start > 0, cum[:, np.maximum(cell_start - 1, 0)], 0)
    totals = cum[:, cell_end - 1] - before
    ranks = type1_positions(totals.ravel(), taus).reshape(m, n_cells, len(taus)) + 1
    targets = before[:, :, None] + ranks
    where = np.stack([np.searchsorted(cum[i], targets[i].ravel(), side="left")
                      for i in range(m)]).ravel() % n
    q = ys[where].reshape(m, n_cells, len(taus))
    return np.einsum("pc,mct->mtp", inverse_cells, q)


def reference_replicates(model, taus, replicates, rng, cluster=None, block_cells=2_000_000):
    n_cells = model.cell_matrix.shape[0]
    order = np.lexsort((model.y, model.cell))
    ys, cs = model.y[order], model.cell[order]
    group, group_cell = reference_groups(model.cell, cluster)
    row_group = group[order]
    cell_end = np.cumsum(np.bincount(cs, minlength=n_cells))
    cell_start = cell_end - np.bincount(cs, minlength=n_cells)
    inverse_cells = np.linalg.inv(model.cell_matrix)
    out = np.empty((replicates, len(taus), model.p))
    block = max(1, block_cells // max(len(ys), 1))
    for first in range(0, replicates, block):
        m = min(block, replicates - first)
        out[first:first + m] = reference_block(rng, m, ys, row_group, group_cell, n_cells,
                                               cell_start, cell_end, taus, inverse_cells)
    return out


# --- designs


def design(seed: int, n: int, levels: list[int], runs: int | None, ties: bool,
           one_run_cell: bool = False):
    """A saturated model of n rows (every cell filled) and run labels of unequal sizes."""
    rng = np.random.default_rng(seed)
    cells = int(np.prod(levels))
    cell = np.concatenate([np.arange(cells), rng.integers(0, cells, n - cells)])
    codes = np.column_stack(np.unravel_index(cell, levels[::-1])[::-1])
    y = (np.round(rng.lognormal(size=n), 1) if ties else rng.lognormal(size=n))
    y = y + codes @ np.arange(1.0, len(levels) + 1)
    model = build_model(y, codes, levels, yates_terms(len(levels)),
                        [f"f{i}" for i in range(len(levels))],
                        [[str(j) for j in range(k)] for k in levels])
    if runs is None:
        return model, None
    # unequal run sizes: run labels drawn with skewed probabilities, per cell
    p = rng.dirichlet(np.full(runs, 0.5))
    run = rng.choice(runs, size=n, p=p)
    if one_run_cell:
        run[model.cell == 0] = 0
    return model, run


CASES = [  # seed, n, levels, runs, ties
    (1, 37, [2, 2], None, False),
    (2, 9, [2, 2], 2, True),
    (3, 400, [2, 2, 2], 6, True),
    (4, 1_000, [3, 2], 10, False),
    (5, 2_500, [2, 2, 2, 2], 40, True),
    (6, 3_000, [2, 2], None, True),
    (7, 5_000, [2, 3], 1, False),
]


@pytest.mark.parametrize("seed,n,levels,runs,ties", CASES)
def test_replicates_equal_the_one_pass_reference_exactly(seed, n, levels, runs, ties):
    model, run = design(seed, n, levels, runs, ties)
    taus = np.array([0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1 / 3])
    new = qreg_bootstrap.saturated_replicates(model, taus, 53, np.random.default_rng(seed),
                                              run)
    old = reference_replicates(model, taus, 53, np.random.default_rng(seed), run)
    assert np.array_equal(new, old)


def test_a_cell_with_one_run_and_cells_of_unequal_sizes():
    model, run = design(8, 2_000, [2, 2, 2], 12, True, one_run_cell=True)
    assert len(np.unique(run[model.cell == 0])) == 1
    assert np.ptp(np.bincount(model.cell)) > 20
    taus = np.linspace(0.05, 0.95, 19)
    new = qreg_bootstrap.saturated_replicates(model, taus, 40, np.random.default_rng(8), run)
    old = reference_replicates(model, taus, 40, np.random.default_rng(8), run)
    assert np.array_equal(new, old)
    assert np.all(np.ptp(new, axis=0) > 0)  # the replicates differ: the test can tell them apart


def test_the_replicate_block_size_does_not_change_the_draws(monkeypatch):
    model, run = design(9, 1_500, [2, 2], 8, False)
    taus = np.array([0.2, 0.5, 0.8])
    whole = qreg_bootstrap.saturated_replicates(model, taus, 30, np.random.default_rng(3), run)
    monkeypatch.setattr(qreg_bootstrap, "_BLOCK_CELLS", 1)  # one replicate per block
    single = qreg_bootstrap.saturated_replicates(model, taus, 30, np.random.default_rng(3), run)
    old = reference_replicates(model, taus, 30, np.random.default_rng(3), run, block_cells=7)
    assert np.array_equal(whole, single) and np.array_equal(whole, old)


@pytest.mark.parametrize("runs", [None, 100])
def test_a_large_design_equals_the_reference(runs):
    model, run = design(10, 100_000, [2, 2, 2, 2], runs, True)
    taus = np.array([0.1, 0.5, 0.9, 0.999])
    new = qreg_bootstrap.saturated_replicates(model, taus, 12, np.random.default_rng(4), run)
    old = reference_replicates(model, taus, 12, np.random.default_rng(4), run)
    assert np.array_equal(new, old)


@pytest.mark.parametrize("width", [8, 64, 4096])
def test_every_block_width_gives_the_same_rows(monkeypatch, width):
    model, run = design(11, 3_333, [2, 2, 2], 9, True)
    taus = np.array([0.05, 0.5, 0.95])
    monkeypatch.setattr(qreg_bootstrap, "_width", lambda *a: width)
    new = qreg_bootstrap.saturated_replicates(model, taus, 20, np.random.default_rng(5), run)
    old = reference_replicates(model, taus, 20, np.random.default_rng(5), run)
    assert np.array_equal(new, old)


def test_rows_are_sorted_as_lexsort_sorts_them_ties_included():
    rng = np.random.default_rng(12)
    y = rng.integers(0, 5, 3_000).astype(float)  # many ties
    cell = rng.integers(0, 6, 3_000)
    order = qreg_bootstrap._sorted_rows(y, cell, 6)
    assert np.array_equal(order, np.lexsort((y, cell)))


def test_many_cells_and_quantiles():
    model, run = design(13, 6_000, [3, 3, 2, 2], 7, True)
    taus = np.linspace(0.01, 0.99, 99)
    new = qreg_bootstrap.saturated_replicates(model, taus, 15, np.random.default_rng(6), run)
    old = reference_replicates(model, taus, 15, np.random.default_rng(6), run)
    assert np.array_equal(new, old)

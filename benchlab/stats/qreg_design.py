"""Model matrices of factorial quantile regressions, and the two ways to fit them.

Factors are coded as deviations from the first level: a two-level factor is
-1/+1 (STATS.md §8–9); a factor with L levels has L-1 columns, level j > 0
being +1 in column j and the first level -1 in all of them (the same coding,
generalized). Interaction columns are products. A model with every
interaction of its factors is saturated: one parameter per cell, so β(τ) is
the inverse of the cell matrix applied to the per-cell τ-quantiles (exact,
O(n) by selection). Any other model is a linear program (`qreg_fn`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchlab.stats.coding import Term, yates_cells


def _contrast(levels: int) -> np.ndarray:
    """(L, L-1) deviation coding: first level -1 everywhere, level j is +1 in column j-1."""
    c = np.zeros((levels, levels - 1))
    c[0, :] = -1.0
    c[1:, :] = np.eye(levels - 1)
    return c


def term_columns(codes: np.ndarray, level_counts: Sequence[int], terms: Sequence[Term],
                 factor_names: Sequence[str], level_names: Sequence[Sequence[str]],
                 ) -> tuple[np.ndarray, list[str]]:
    """The model matrix (rows of `codes`) and its column names, term by term in Yates order.

    A two-level factor's column is named after the factor; a factor with more
    levels has one column per non-first level, named "factor[level]".
    """
    codes = np.asarray(codes, dtype=np.int64)
    contrasts = [_contrast(int(c)) for c in level_counts]
    blocks, names = [], []
    for term in terms:
        cols = np.ones((codes.shape[0], 1))
        labels = [""]
        for f in term:
            coded = contrasts[f][codes[:, f]]  # (n, L-1)
            if coded.shape[1] == 1:
                new = [factor_names[f]]
            else:
                new = [f"{factor_names[f]}[{level}]" for level in level_names[f][1:]]
            cols = (cols[:, :, None] * coded[:, None, :]).reshape(codes.shape[0], -1)
            labels = [f"{a}:{b}" if a else b for a in labels for b in new]
        blocks.append(cols)
        names.extend(labels if term else ["(Intercept)"])
    return np.hstack(blocks), names


@dataclass(frozen=True)
class FactorialModel:
    """The data and model matrix of one quantile regression.

    Saturated models keep only the cell matrix (cells × p) and each row's
    cell, so nothing n × p is ever built; other models hold the n × p matrix.
    """

    y: np.ndarray
    names: list[str]
    saturated: bool
    cell: np.ndarray               # the standard-order cell of each row
    cell_matrix: np.ndarray        # (cells, p) model rows of the cells
    x: np.ndarray | None = None    # (n, p), only for non-saturated models

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def p(self) -> int:
        return len(self.names)

    def gram(self, weights: np.ndarray | None = None) -> np.ndarray:
        """X' diag(w) X (w = 1 when None), without building X for saturated models."""
        if self.x is None:
            per_cell = (np.bincount(self.cell, minlength=self.cell_matrix.shape[0]) if
                        weights is None else
                        np.bincount(self.cell, weights=weights,
                                    minlength=self.cell_matrix.shape[0]))
            return self.cell_matrix.T @ (self.cell_matrix * per_cell[:, None])
        if weights is None:
            return self.x.T @ self.x
        return self.x.T @ (self.x * weights[:, None])

    def predict(self, coef: np.ndarray) -> np.ndarray:
        """Xβ for every row."""
        if self.x is None:
            return (self.cell_matrix @ coef)[self.cell]
        return self.x @ coef

    def matrix(self) -> np.ndarray:
        """The explicit n × p model matrix (built on demand for saturated models)."""
        return self.cell_matrix[self.cell] if self.x is None else self.x


def build_model(y: np.ndarray, codes: np.ndarray, level_counts: Sequence[int],
                terms: Sequence[Term], factor_names: Sequence[str],
                level_names: Sequence[Sequence[str]], extra: np.ndarray | None = None,
                extra_names: Sequence[str] = ()) -> FactorialModel:
    """The quantile-regression model of `y` on the factor `terms` (and optional covariates)."""
    from benchlab.stats.coding import cell_index, yates_terms

    k = len(level_counts)
    cells = yates_cells(level_counts)
    cell_matrix, names = term_columns(cells, level_counts, terms, factor_names, level_names)
    cell = cell_index(codes, level_counts)
    full = list(terms) == yates_terms(k)
    if full and extra is None:
        return FactorialModel(np.asarray(y, dtype=np.float64), names, True, cell, cell_matrix)
    x = cell_matrix[cell]
    if extra is not None:
        x = np.hstack([x, np.asarray(extra, dtype=np.float64).reshape(len(y), -1)])
        names = names + list(extra_names)
    return FactorialModel(np.asarray(y, dtype=np.float64), names, False, cell, cell_matrix, x)


def type1_positions(counts: np.ndarray, taus: np.ndarray) -> np.ndarray:
    """0-based rank of the type-1 τ-quantile, ceil(nτ) - 1, with R's fuzz for nτ near integers."""
    counts = np.asarray(counts, dtype=np.float64)
    nt = np.multiply.outer(counts, np.asarray(taus, dtype=np.float64))
    j = np.floor(nt + 4 * np.finfo(float).eps)
    rank = np.where(nt > j + 4 * np.finfo(float).eps, j + 1, j)  # R's quantile(type = 1)
    return np.clip(rank, 1, counts[:, None]).astype(np.int64) - 1


def cell_quantiles(y: np.ndarray, cell: np.ndarray, n_cells: int,
                   taus: np.ndarray) -> np.ndarray:
    """Type-1 τ-quantiles of every cell, shape (cells, taus), by selection (O(n))."""
    order = np.argsort(cell, kind="stable")
    counts = np.bincount(cell, minlength=n_cells)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    ranks = type1_positions(counts, taus)
    out = np.empty((n_cells, len(taus)))
    grouped = y[order]
    for c in range(n_cells):  # one selection per cell (a handful of cells), not per row
        part = np.partition(grouped[starts[c]:starts[c] + counts[c]], np.unique(ranks[c]))
        out[c] = part[ranks[c]]
    return out

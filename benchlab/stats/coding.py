"""Factor coding for factorial designs: standard (Yates) order, the ±1 sign table, model matrices.

Conventions (STATS.md §8): a two-level factor is coded -1 for its first level
and +1 for its second; cells are listed in standard order, first factor
changing fastest; the columns of the sign table are I, then every interaction
term in Yates order (A, B, AB, C, AC, BC, ABC, ...). Loading a table of
factors from a file is `benchlab.data.factor_table.load_factor_table`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Term = tuple[int, ...]  # indices of the factors in an interaction; () is the intercept


def yates_cells(level_counts: Sequence[int]) -> np.ndarray:
    """Level indices of every cell of a full factorial, shape (prod(counts), k), first fastest."""
    counts = [int(c) for c in level_counts]
    if not counts:
        return np.zeros((1, 0), dtype=np.int64)
    grids = np.meshgrid(*[np.arange(c) for c in reversed(counts)], indexing="ij")
    return np.stack([g.ravel() for g in reversed(grids)], axis=1).astype(np.int64)


def yates_terms(k: int, max_order: int | None = None) -> list[Term]:
    """Interaction terms in Yates order (intercept first), up to `max_order` factors each."""
    limit = k if max_order is None else max(0, min(int(max_order), k))
    terms: list[Term] = []
    for mask in range(1 << k):
        term = tuple(j for j in range(k) if mask >> j & 1)
        if len(term) <= limit:
            terms.append(term)
    return terms


def sign_table(k: int, max_order: int | None = None) -> tuple[np.ndarray, list[Term]]:
    """The 2^k × p sign table: rows are cells in standard order, columns the Yates terms.

    Column I is all +1; a term's column is the product of its factors' ±1 codes.
    """
    terms = yates_terms(k, max_order)
    return model_matrix(yates_cells([2] * k), terms), terms


def term_label(term: Term, names: Sequence[str]) -> str:
    """"(Intercept)" for (), else the factor names joined by ":" (R's convention)."""
    return "(Intercept)" if not term else ":".join(names[f] for f in term)


def term_letters(term: Term) -> str:
    """Jain's letters: "I" for (), "A", "AB", "ABC" ... by factor index."""
    return "I" if not term else "".join(chr(ord("A") + f) for f in term)


def model_matrix(codes: np.ndarray, terms: Sequence[Term]) -> np.ndarray:
    """The ±1 model matrix of two-level factors: codes (n, k) of 0/1 → (n, len(terms)) floats."""
    signs = 2.0 * np.asarray(codes, dtype=np.float64) - 1.0
    x = np.ones((signs.shape[0], len(terms)))
    for j, term in enumerate(terms):
        for f in term:
            x[:, j] *= signs[:, f]
    return x


def cell_index(codes: np.ndarray, level_counts: Sequence[int]) -> np.ndarray:
    """The standard-order cell number of each row (first factor fastest), shape (n,)."""
    codes = np.asarray(codes, dtype=np.int64)
    index = np.zeros(codes.shape[0], dtype=np.int64)
    stride = 1
    for f, count in enumerate(level_counts):
        index += codes[:, f] * stride
        stride *= int(count)
    return index


def cell_name(cell: int, factors: Sequence[str], levels: Sequence[Sequence[str]]) -> str:
    """'sched=BFS, machine=p4' for a standard-order cell number (first factor fastest)."""
    parts = []
    for name, names in zip(factors, levels, strict=True):
        parts.append(f"{name}={names[cell % len(names)]}")
        cell //= len(names)
    return ", ".join(parts)


def check_design(codes: np.ndarray, factors: Sequence[str], levels: Sequence[Sequence[str]],
                 *, full_model: bool, where: str | None = None) -> None:
    """Refuse a level that never occurs and, for the model with every interaction, an
    empty cell: neither can be estimated (anova and qreg, from the API as from the CLI)."""
    from benchlab.errors import InputError, ParameterError

    codes = np.asarray(codes, dtype=np.int64).reshape(len(codes), -1)
    for j, name in enumerate(factors):
        seen = np.bincount(codes[:, j], minlength=len(levels[j]))
        if (seen == 0).any():
            level = levels[j][int(np.argmax(seen == 0))]
            raise InputError(f"factor {name!r}: level {level!r} does not occur in the data",
                             where)
    if full_model:
        counts = [len(lv) for lv in levels]
        filled = np.bincount(cell_index(codes, counts), minlength=int(np.prod(counts)))
        empty = np.flatnonzero(filled == 0)
        if empty.size:
            raise ParameterError(f"the cell {cell_name(int(empty[0]), factors, levels)} has "
                                 "no observations: the full-interaction model needs every "
                                 "cell (or lower {param})", "interactions", where)

"""Factor coding: standard order, the sign table (Jain's 2^3 example, STATS.md §8)."""

from __future__ import annotations

import numpy as np

from benchlab.stats.coding import (
    cell_index,
    model_matrix,
    sign_table,
    term_label,
    term_letters,
    yates_cells,
    yates_terms,
)


def test_yates_cells_first_factor_fastest():
    assert yates_cells([2, 3]).tolist() == [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2], [1, 2]]


def test_sign_table_gives_jains_effects():
    table, terms = sign_table(3)
    y = np.array([14, 22, 10, 34, 46, 58, 50, 86.0])
    q = table.T @ y / 8
    assert [term_letters(t) for t in terms] == ["I", "A", "B", "AB", "C", "AC", "BC", "ABC"]
    np.testing.assert_allclose(q, [40, 10, 5, 5, 20, 2, 3, 1])
    np.testing.assert_allclose(table.T @ table, 8 * np.eye(8))  # orthogonal columns


def test_interaction_order_limits_terms():
    assert yates_terms(3, 1) == [(), (0,), (1,), (2,)]
    assert len(yates_terms(4, 2)) == 1 + 4 + 6
    assert term_label((0, 2), ["a", "b", "c"]) == "a:c"
    assert term_label((), ["a"]) == "(Intercept)"


def test_model_matrix_rows_match_their_cells():
    cells = yates_cells([2, 2, 2])
    table, terms = sign_table(3)
    rows = np.array([5, 0, 7, 5])
    np.testing.assert_array_equal(model_matrix(cells[rows], terms), table[rows])
    np.testing.assert_array_equal(cell_index(cells[rows], [2, 2, 2]), rows)

"""The binned kernel density (stats/density.py) against scipy.stats.gaussian_kde, the direct
sum, with the same bandwidth; Silverman's rule against its formula."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from benchlab.stats.density import kernel_density, silverman_bandwidth


@pytest.mark.parametrize("n, draw", [
    (40, lambda rng, n: rng.normal(10, 1, n)),
    (3000, lambda rng, n: rng.lognormal(0, 0.6, n)),  # skewed, heavy right tail
    (500, lambda rng, n: np.concatenate([rng.normal(0, 1, n // 2), rng.normal(6, 0.5, n // 2)])),
])
def test_binned_density_equals_scipys_direct_sum(n, draw):
    x = draw(np.random.default_rng(5), n)
    h = silverman_bandwidth(x)
    grid = np.linspace(x.min() - 4 * h, x.max() + 4 * h, 512)
    reference = stats.gaussian_kde(x, bw_method=h / np.std(x, ddof=1))(grid)
    ours = kernel_density(x, grid)
    assert np.max(np.abs(ours - reference)) < 2e-3 * reference.max()
    assert np.sum(ours) * (grid[1] - grid[0]) == pytest.approx(1.0, abs=2e-3)


def test_silverman_bandwidth_is_the_rule_of_thumb():
    x = np.random.default_rng(1).normal(0, 2, 200)
    q1, q3 = np.percentile(x, [25, 75])
    expected = 0.9 * min(np.std(x, ddof=1), (q3 - q1) / 1.34) * 200 ** -0.2
    assert silverman_bandwidth(x) == pytest.approx(expected, rel=1e-12)
    ties = np.array([1.0] * 10 + [2.0, 5.0])  # IQR 0: the standard deviation alone
    assert silverman_bandwidth(ties) == pytest.approx(0.9 * np.std(ties, ddof=1) * 12 ** -0.2)


@pytest.mark.parametrize("x", [np.array([3.0]), np.full(9, 2.5), np.array([])])
def test_no_spread_gives_no_density(x):
    assert silverman_bandwidth(x) == 0.0
    assert not kernel_density(x, np.linspace(0, 5, 11)).any()


def test_a_bad_grid_is_refused():
    with pytest.raises(ValueError, match="grid"):
        kernel_density(np.arange(5.0), np.array([1.0]))
    with pytest.raises(ValueError, match="increasing"):
        kernel_density(np.arange(5.0), np.array([2.0, 1.0]))

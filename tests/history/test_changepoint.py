"""E-Divisive means: the vectorized statistic against a plain loop, and known change points
with both significance tests (Welch's t, as Apache Otava; permutations, as the paper)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchlab.stats.changepoint import _best_split, _distances, e_divisive, segments, welch_p


def slow_q(z: np.ndarray, t: int) -> float:
    """Q(X, Y) of Matteson & James (2014) eqs. (4)-(5), alpha = 1, by explicit loops, with
    X = z[:t] and Y = z[t:] (Y to the segment's end, as Otava and MongoDB)."""
    x, y = z[:t], z[t:]
    n, m = len(x), len(y)
    cross = sum(abs(a - b) for a in x for b in y)
    wx = sum(abs(a - b) for a, b in itertools.combinations(x, 2))
    wy = sum(abs(a - b) for a, b in itertools.combinations(y, 2))
    e = 2.0 * cross / (n * m) - wx / (n * (n - 1) / 2) - wy / (m * (m - 1) / 2)
    return n * m / (n + m) * e


def slow_best(z: np.ndarray, min_size: int) -> tuple[float, int]:
    best = (-np.inf, -1)
    for t in range(min_size, len(z) - min_size + 1):
        q = slow_q(z, t)
        if q > best[0]:
            best = (q, t)
    return best


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("min_size", [2, 3, 5])
def test_the_statistic_matches_the_plain_loop(seed, min_size):
    rng = np.random.default_rng(seed)
    z = np.r_[rng.normal(0, 1, 9), rng.normal(rng.uniform(0, 3), 1, 8)]
    q, t = _best_split(_distances(z), min_size)
    q_slow, t_slow = slow_best(z, min_size)
    assert q == pytest.approx(q_slow, rel=1e-10) and t == t_slow


def test_a_batch_of_series_gives_each_series_its_own_split():
    rng = np.random.default_rng(3)
    batch = rng.normal(0, 1, (4, 14))
    q, t = _best_split(_distances(batch), 3)
    for i in range(4):
        q_slow, t_slow = slow_best(batch[i], 3)
        assert q[i] == pytest.approx(q_slow, rel=1e-10) and t[i] == t_slow


@pytest.mark.parametrize("test", ["ttest", "permutation"])
def test_known_change_points_are_found(test):
    rng = np.random.default_rng(11)
    z = np.r_[rng.normal(100, 1, 40), rng.normal(105, 1, 30), rng.normal(101, 1, 30)]
    found = e_divisive(z, seed=1, test=test)
    assert found.indices == (40, 70)
    assert all(p <= (0.001 if test == "ttest" else 0.05) for p in found.pvalues)
    assert segments(len(z), found.indices) == [(0, 40), (40, 70), (70, 100)]


def test_noise_alone_has_few_change_points():
    """Under no change, the permutation test rejects about `significance` of the time."""
    rng = np.random.default_rng(5)
    hits = sum(bool(e_divisive(rng.normal(0, 1, 40), seed=s, permutations=99,
                               test="permutation").indices)
               for s in range(40))
    assert hits <= 6  # 40 series at 5%: 2 expected; 6 or more has probability < 0.02


def test_noise_alone_rarely_passes_the_t_test():
    """The best split of pure noise is selected, so its nominal t-test p is optimistic; at
    Otava's 0.001 a 200-value series of noise still gives a candidate rarely."""
    rng = np.random.default_rng(6)
    hits = sum(bool(e_divisive(rng.normal(0, 1, 200)).indices) for _ in range(60))
    assert hits <= 6


def test_welch_p_matches_scipy():
    from scipy.stats import ttest_ind

    rng = np.random.default_rng(4)
    x, y = rng.normal(0, 1, 7), rng.normal(0.8, 2, 12)
    assert welch_p(x, y) == pytest.approx(ttest_ind(x, y, equal_var=False).pvalue, rel=1e-10)
    assert welch_p(np.ones(4), np.ones(5)) == 1.0
    assert welch_p(np.ones(4), np.full(5, 2.0)) == 0.0


def test_a_long_series_is_quick_and_exact():
    """1,000 values: the O(n^2)-once search finds both steps (the statistic is the plain
    loop's, checked above on short series)."""
    rng = np.random.default_rng(8)
    z = np.r_[rng.normal(1.0, 0.01, 400), rng.normal(1.05, 0.01, 300),
              rng.normal(1.02, 0.01, 300)]
    found = e_divisive(z)
    assert len(found.indices) == 2
    assert abs(found.indices[0] - 400) <= 2 and abs(found.indices[1] - 700) <= 2


def test_the_split_does_not_depend_on_the_scale():
    rng = np.random.default_rng(2)
    z = np.r_[rng.normal(1, 0.01, 20), rng.normal(1.05, 0.01, 20)]
    big, small = e_divisive(z), e_divisive(z * 1e-9)
    assert big.indices == small.indices and 20 in big.indices
    assert np.allclose(np.array(small.statistics) * 1e9, big.statistics)


def test_too_short_a_series_has_no_change_point():
    assert e_divisive([1.0, 2.0, 30.0, 31.0, 30.0], min_size=3).indices == ()
    with pytest.raises(ValueError, match="min_size"):
        e_divisive([1.0, 2.0], min_size=1)
    with pytest.raises(ValueError, match="test"):
        e_divisive([1.0, 2.0], test="bootstrap")

"""Means and medians of the hierarchical bootstrap from one set of draws (issue 12, item 7).

`hierarchical_bootstrap_ratios` must give, for each statistic, exactly what
`hierarchical_bootstrap_ratio` gives for it alone with the same seed (the draws do
not depend on the statistic), and those draws must be the ones a plain loop takes
from the same stream, with the statistics computed by np.median / nested means.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from benchlab.stats import hierarchical_bootstrap as hb


def nested(shape, seed, scale=1.0, drop=0.0):
    """Skewed nested data (lognormal measurements, normal build offsets)."""
    rng = np.random.default_rng(seed)
    nb, nr, ni = shape
    x = scale * (5 + rng.normal(0, 0.2, (nb, 1, 1)) + rng.lognormal(0, 0.4, shape))
    b, r, _ = np.meshgrid(*map(np.arange, shape), indexing="ij")
    x, b, r = x.ravel(), b.ravel(), r.ravel()
    if drop:
        keep = rng.random(x.size) >= drop
        keep[::ni] = True  # every run keeps a measurement
        x, b, r = x[keep], b[keep], r[keep]
    return x, [b, r]


@pytest.mark.parametrize("drop", [0.0, 0.25])
@pytest.mark.parametrize("spec", [None, "RRN", "RNN", "NRR", "RNR", "flat"])
def test_joint_equals_each_statistic_alone(spec, drop):
    xa, la = nested((5, 4, 7), 1, drop=drop)
    xb, lb = nested((5, 4, 7), 2, scale=1.04, drop=drop)
    ta, tb = hb.build_tree(xa, la), hb.build_tree(xb, lb)
    joint = hb.hierarchical_bootstrap_ratios(ta, tb, ("mean", "median"), spec=spec,
                                             replicates=1500, seed=7)
    for statistic in ("mean", "median"):
        alone = hb.hierarchical_bootstrap_ratio(ta, tb, statistic, spec=spec,
                                                replicates=1500, seed=7)
        assert dataclasses.astuple(joint[statistic]) == dataclasses.astuple(alone)


def _loop_replicates(x, shape, replicates, rng):
    """RRR replicates by plain loops over the same draws the balanced code takes.

    Per chunk of rows, the code draws the build slots (rows, nb) as int32 and the
    run positions (rows, nb, nr) as int16; then, per sub-block of the chunk's rows,
    the iteration positions (sub, nb, nr, ni) as int16. Here each replicate's
    measurements are then picked one by one.
    """
    nb, nr, ni = shape
    cube = x.reshape(shape)
    rows = max(1, hb._CHUNK_ELEMENTS // (nb * nr * ni))
    sub = max(1, hb._SUB_ELEMENTS // (nb * nr * ni))
    means, medians = [], []
    for begin in range(0, replicates, rows):
        k = min(rows, replicates - begin)
        builds = rng.integers(0, nb, size=(k, nb), dtype=np.int32)
        runs = rng.integers(0, nr, size=(k, nb, nr), dtype=np.int16)
        iters = np.concatenate([rng.integers(0, ni, size=(min(sub, k - j), nb, nr, ni),
                                             dtype=np.int16) for j in range(0, k, sub)])
        for j in range(k):
            picked = [[[cube[builds[j, p], runs[j, p, q], iters[j, p, q, s]]
                        for s in range(ni)] for q in range(nr)] for p in range(nb)]
            values = np.array(picked)
            means.append(values.mean(axis=2).mean(axis=1).mean())
            medians.append(float(np.median(values)))
    return np.array(means), np.array(medians)


@pytest.mark.parametrize(("shape", "replicates"), [((4, 3, 5), 700), ((3, 2, 6), 700),
                                                   ((3, 3, 333), 69)])
def test_joint_replicates_match_a_plain_loop_on_the_same_stream(shape, replicates):
    """(3, 3, 333): several chunks and sub-blocks, some with an odd number of int16 draws."""
    x, levels = nested(shape, 3)
    tree = hb.build_tree(x, levels)  # lexsort keeps build-major, run-major order here
    assert np.array_equal(tree.values, x)
    got = hb.joint_replicates(tree, "RRR", replicates, np.random.default_rng(11),
                              ("mean", "median"))
    means, medians = _loop_replicates(x, shape, replicates, np.random.default_rng(11))
    assert np.allclose(got["mean"][0], means, rtol=1e-13, atol=0)
    assert np.array_equal(got["median"][0], medians)
    assert got["median"][1] is None and got["mean"][1] is not None


def test_non_positive_baseline_statistic_gives_none_and_the_other_still_runs():
    """A baseline whose median is 0 but mean positive: no ratio of medians, means kept."""
    base = np.array([0.0] * 12 + [5.0] * 8)
    levels = [np.repeat(np.arange(4), 5), np.tile(np.arange(5), 4)]
    cand = base + 1.0
    tb, tc = hb.build_tree(base, levels), hb.build_tree(cand, levels)
    found = hb.hierarchical_bootstrap_ratios(tb, tc, replicates=300, seed=1)
    assert found["median"] is None and found["mean"] is not None
    with pytest.raises(ValueError, match="median must be positive"):
        hb.hierarchical_bootstrap_ratio(tb, tc, "median", replicates=300, seed=1)


def test_unknown_statistic_is_refused():
    x, levels = nested((3, 2, 4), 0)
    with pytest.raises(ValueError, match="statistic must be one of"):
        hb.joint_replicates(hb.build_tree(x, levels), "RRR", 10, np.random.default_rng(0),
                            ("trimmed",))


@pytest.mark.parametrize("n", [1, 2, 9, 1000, 2**16, 2**16 + 3])
def test_row_medians_equal_numpy_on_both_paths(n):
    """uint16 ranks radix-sorted up to 2^16 values, int32 ranks partitioned above: np.median."""
    rng = np.random.default_rng(n)
    x = np.round(rng.lognormal(size=n), 2)  # ties among the values
    idx = rng.integers(0, n, size=(3, n))
    median = hb._Median(x)
    assert median.radix == (n <= 2**16)
    np.testing.assert_array_equal(median(idx), np.median(x[idx], axis=1))
    np.testing.assert_array_equal(median(idx[:2, : max(1, n - 1)]),
                                  np.median(x[idx[:2, : max(1, n - 1)]], axis=1))

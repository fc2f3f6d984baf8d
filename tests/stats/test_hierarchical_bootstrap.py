"""Hierarchical bootstrap: structure, special cases with exact answers, and a reference loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.stats import hierarchical_bootstrap as hb
from benchlab.stats.bootstrap import interval_from_replicates, mean_replicates
from benchlab.stats.hierarchy import unit_means


def nested(n_build, n_run, n_iter, mean=100.0, seed=0):
    rng = np.random.default_rng(seed)
    b = np.repeat(np.arange(n_build), n_run * n_iter)
    r = np.tile(np.repeat(np.arange(n_run), n_iter), n_build)
    x = mean * (1 + 0.04 * rng.normal(size=n_build)[b]
                + 0.07 * rng.normal(size=n_build * n_run)[b * n_run + r]
                + 0.05 * rng.normal(size=b.size))
    return x, [b.astype(str), r.astype(str)]


def test_tree_and_unit_means():
    x, levels = nested(4, 3, 5)
    tree = hb.build_tree(x, levels)
    assert tree.balanced and tree.top_units == 4 and tree.slots == 60
    assert np.allclose(tree.unit_means(0), unit_means(x, levels)[0])
    assert np.allclose(tree.unit_means(1), unit_means(x, levels)[1])


def test_keeping_every_level_reproduces_the_estimate():
    x, levels = nested(4, 3, 5)
    tree = hb.build_tree(x, levels)
    reps = hb.hierarchical_replicates(tree, "NNN", 7, np.random.default_rng(1))
    assert np.allclose(reps, x.mean())


def test_top_level_only_equals_the_bootstrap_of_top_means():
    """RNN resamples whole builds: the same draws as a flat bootstrap of the build means."""
    x, levels = nested(6, 3, 4)
    tree = hb.build_tree(x, levels)
    got = hb.hierarchical_replicates(tree, "RNN", 500, np.random.default_rng(9))
    want = mean_replicates(unit_means(x, levels)[0], 500, np.random.default_rng(9))
    assert np.allclose(got, want, rtol=1e-13)


def _reference_replicate(x, levels, rng):
    """One replicate by plain loops: builds, then runs of each chosen build, then iterations."""
    b, r = levels
    builds = np.unique(b)
    means = []
    for chosen in rng.choice(builds, size=builds.size):
        runs = np.unique(r[b == chosen])
        run_means = []
        for run in rng.choice(runs, size=runs.size):
            values = x[(b == chosen) & (r == run)]
            run_means.append(rng.choice(values, size=values.size).mean())
        means.append(np.mean(run_means))
    return np.mean(means)


def test_matches_a_plain_reference_loop_in_distribution():
    x, levels = nested(5, 4, 6, seed=3)
    tree = hb.build_tree(x, levels)
    fast = hb.hierarchical_replicates(tree, "RRR", 20_000, np.random.default_rng(4))
    rng = np.random.default_rng(5)
    slow = np.array([_reference_replicate(x, levels, rng) for _ in range(2000)])
    assert fast.mean() == pytest.approx(slow.mean(), abs=4 * slow.std() / np.sqrt(2000))
    assert fast.std() == pytest.approx(slow.std(), rel=0.06)


def test_unbalanced_tree_resamples_each_units_own_children():
    x = np.array([1.0, 2.0, 3.0, 10.0, 20.0, 5.0])
    builds = np.array(["a", "a", "a", "b", "b", "c"])
    tree = hb.build_tree(x, [builds])
    assert not tree.balanced
    same = hb.hierarchical_replicates(tree, "NN", 3, np.random.default_rng(0))
    assert np.allclose(same, np.mean([2.0, 15.0, 5.0]))  # means of means, units weigh equally
    reps = hb.hierarchical_replicates(tree, "NR", 4000, np.random.default_rng(0))
    # only the children are resampled: build c always contributes 5, a ∈ [1, 3], b ∈ [10, 20]
    assert reps.min() >= (1 + 10 + 5) / 3 - 1e-12 and reps.max() <= (3 + 20 + 5) / 3 + 1e-12
    assert reps.mean() == pytest.approx(np.mean([2.0, 15.0, 5.0]), abs=0.05)


def test_flat_is_narrower_than_hierarchical_and_seeded():
    xa, la = nested(8, 4, 10, 100.0, seed=1)
    xb, lb = nested(8, 4, 10, 95.0, seed=2)
    ta, tb = hb.build_tree(xa, la), hb.build_tree(xb, lb)
    full = hb.hierarchical_bootstrap_ratio(ta, tb, replicates=2000, seed=3)
    flat = hb.hierarchical_bootstrap_ratio(ta, tb, spec="flat", replicates=2000, seed=3)
    assert (flat.high - flat.low) < 0.5 * (full.high - full.low)
    assert full == hb.hierarchical_bootstrap_ratio(ta, tb, replicates=2000, seed=3)
    assert full.estimate == pytest.approx(xb.mean() / xa.mean())
    median = hb.hierarchical_bootstrap_ratio(ta, tb, "median", replicates=500, seed=3)
    assert median.estimate == pytest.approx(np.median(xb) / np.median(xa))


def test_spec_is_checked():
    x, levels = nested(3, 2, 2)
    with pytest.raises(ValueError, match="one R or N per level"):
        hb.hierarchical_replicates(hb.build_tree(x, levels), "RR", 10, np.random.default_rng(0))


def test_interval_from_replicates_uses_the_index_rule():
    assert interval_from_replicates(np.arange(1000.0)[::-1], 0.9) == (50.0, 949.0)


def _studentized_reference(trees, seed, b, confidence=0.95):
    """Bootstrap-t of the ratio of means resampling top-level units only, by hand.

    With spec RN every replicate is a draw of top-level units (each kept whole),
    made by the same integer draws as the package, so the interval is exact.
    """
    import math

    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2)]
    means, se2, obs, obs_se2 = [], [], [], []
    for tree, rng in zip(trees, streams, strict=True):
        top = tree.unit_means(0)
        n = top.size
        drawn = top[rng.integers(0, n, size=(b, n), dtype=np.int32)]
        means.append(drawn.mean(axis=1))
        se2.append(drawn.var(axis=1, ddof=1) / n)
        obs.append(top.mean())
        obs_se2.append(top.var(ddof=1) / n)
    estimate = obs[1] / obs[0]
    se = math.sqrt(obs_se2[0] / obs[0] ** 2 + obs_se2[1] / obs[1] ** 2)
    t = np.sort((np.log(means[1] / means[0]) - math.log(estimate))
                / np.sqrt(se2[0] / means[0] ** 2 + se2[1] / means[1] ** 2))
    lo = math.floor(b * (1 - confidence) / 2)
    hi = math.ceil(round(b * (1 + confidence) / 2, 9)) - 1
    return estimate * math.exp(-t[hi] * se), estimate * math.exp(-t[lo] * se)


@pytest.mark.parametrize("balanced", [True, False])
def test_studentized_interval_equals_a_reference_bootstrap_t(balanced):
    rng = np.random.default_rng(11)
    sizes = [4] * 6 if balanced else [3, 5, 4, 6, 2, 4]
    trees = []
    for mean in (100.0, 93.0):
        build = np.repeat(np.arange(6), sizes)
        x = mean * (1 + 0.05 * rng.normal(size=6)[build] + 0.03 * rng.normal(size=build.size))
        trees.append(hb.build_tree(x, [build]))
    assert trees[0].balanced == balanced
    got = hb.hierarchical_bootstrap_ratio(trees[0], trees[1], "mean", spec="RN",
                                          replicates=2000, seed=5)
    low, high = _studentized_reference(trees, 5, 2000)
    assert got.hierarchical and got.bca_low is None
    np.testing.assert_allclose([got.studentized_low, got.studentized_high], [low, high],
                               rtol=1e-12)
    assert got.studentized_low < got.estimate < got.studentized_high


def test_studentized_interval_only_where_defined():
    x, levels = nested(5, 3, 4)
    y, _ = nested(5, 3, 4, mean=90.0, seed=1)
    tb, tc = hb.build_tree(x, levels), hb.build_tree(y, levels)
    rrr = hb.hierarchical_bootstrap_ratio(tb, tc, "mean", replicates=500, seed=1)
    assert rrr.studentized_low < rrr.estimate < rrr.studentized_high
    # wider than the percentile interval with 5 builds: the t pivot's tails
    assert rrr.studentized_high - rrr.studentized_low > rrr.high - rrr.low
    assert "prefer the studentized interval" in rrr.note
    for stat, spec in (("median", None), ("mean", "NRR"), ("mean", "flat")):
        other = hb.hierarchical_bootstrap_ratio(tb, tc, stat, spec=spec, replicates=200, seed=1)
        assert other.studentized_low is None and other.studentized_high is None
    assert not hb.hierarchical_bootstrap_ratio(tb, tc, spec="flat", replicates=200,
                                               seed=1).hierarchical


@settings(max_examples=25, deadline=None)
@given(scale=st.floats(1e-3, 1e3), shift=st.floats(0.5, 2.0), seed=st.integers(0, 2**31))
def test_studentized_interval_is_scale_equivariant(scale, shift, seed):
    """Units do not matter; a candidate c times slower moves the interval by exactly c."""
    x, levels = nested(4, 3, 5, seed=seed % 1000)
    y, _ = nested(4, 3, 5, mean=95.0, seed=seed % 1000 + 1)

    def interval(a, b):
        r = hb.hierarchical_bootstrap_ratio(hb.build_tree(a, levels), hb.build_tree(b, levels),
                                            replicates=300, seed=seed)
        return np.array([r.studentized_low, r.studentized_high])

    base = interval(x, y)
    np.testing.assert_allclose(interval(scale * x, scale * y), base, rtol=1e-9)
    np.testing.assert_allclose(interval(x, shift * y), shift * base, rtol=1e-9)


def _int32_reference(tree, spec, replicates, rng):
    """The implementation before the int16 draws (commit 570ea02), kept as a reference.

    Balanced trees only: per chunk of replicates every level's positions are drawn as
    int32, ids = parent·width + position, the mean from the unit means of the last
    resampled level, the median by np.median of the gathered measurements.
    """
    widths = [tree.top_units] + [int(c[0]) for c in tree.counts]
    rows = max(1, hb._CHUNK_ELEMENTS // tree.slots)
    means, medians = [], []
    for begin in range(0, replicates, rows):
        b = min(rows, replicates - begin)
        ids = (rng.integers(0, widths[0], size=(b, widths[0]), dtype=np.int32)
               if spec[0] == "R" else np.tile(np.arange(widths[0]), (b, 1)))
        for d in range(1, len(widths)):
            w = widths[d]
            pos = (rng.integers(0, w, size=(*ids.shape, w), dtype=np.int32)
                   if spec[d] == "R" else np.arange(w))
            ids = ids[..., None] * w + pos
        x = tree.values[ids.reshape(b, -1)]
        means.append(x.mean(axis=1))  # balanced: the mean of means is the plain mean
        medians.append(np.median(x, axis=1))
    return {"mean": np.concatenate(means), "median": np.concatenate(medians)}


@pytest.mark.parametrize("spec", ["RRR", "NRR", "RRN"])
def test_replicate_distributions_match_the_int32_reference(spec):
    """Int16 draws change the stream, not the method: the replicate ratios of means and of
    medians have the reference's mean and SD within Monte Carlo error."""
    rng = np.random.default_rng(21)
    trees = []
    for mean in (100.0, 96.0):
        x, levels = nested(6, 4, 15, mean=mean, seed=int(rng.integers(1000)))
        trees.append(hb.build_tree(np.exp((x - mean) / 20) * mean, levels))  # skewed
    b = 20_000
    streams = [np.random.default_rng(s) for s in (1, 2, 3, 4)]
    new = [hb.joint_replicates(t, spec, b, g) for t, g in zip(trees, streams[:2], strict=True)]
    old = [_int32_reference(t, spec, b, g) for t, g in zip(trees, streams[2:], strict=True)]
    for statistic in ("mean", "median"):
        got = new[1][statistic][0] / new[0][statistic][0]
        want = old[1][statistic] / old[0][statistic]
        assert not np.array_equal(got, want)
        sd = want.std(ddof=1)
        assert abs(got.mean() - want.mean()) < 4 * sd * np.sqrt(2 / b)
        assert abs(got.std(ddof=1) - sd) < 4 * sd * np.sqrt(2 / (2 * (b - 1)))


def test_interval_coverage_equals_the_int32_reference_on_the_same_data():
    """200 experiments (8 builds x 3 runs x 6, true ratio 0.97 of means and of medians):
    RRR percentile intervals of means and medians cover as often as the reference's."""
    rng = np.random.default_rng(5)
    b, hits, ref_hits = 400, {"mean": 0, "median": 0}, {"mean": 0, "median": 0}
    sims = 200
    for k in range(sims):
        base, levels = nested(8, 3, 6, seed=int(rng.integers(2**31)))
        cand, _ = nested(8, 3, 6, mean=97.0, seed=int(rng.integers(2**31)))
        tb, tc = hb.build_tree(base, levels), hb.build_tree(cand, levels)
        found = hb.hierarchical_bootstrap_ratios(tb, tc, replicates=b, seed=k)
        ref_b = _int32_reference(tb, "RRR", b, np.random.default_rng([k, 0]))
        ref_c = _int32_reference(tc, "RRR", b, np.random.default_rng([k, 1]))
        for s in ("mean", "median"):
            hits[s] += found[s].low <= 0.97 <= found[s].high
            low, high = interval_from_replicates(ref_c[s] / ref_b[s], 0.95)
            ref_hits[s] += low <= 0.97 <= high
    for s in ("mean", "median"):
        assert 0.88 <= hits[s] / sims <= 0.99
        assert abs(hits[s] - ref_hits[s]) / sims <= 0.03  # same data: only B's MC error differs


@pytest.mark.parametrize("n", [5, 300, 2**16 - 1, 2**16, 70_000])
def test_masked_row_medians_equal_nanmedian(n):
    """The unbalanced tree's medians: ranks with a sentinel for masked-out entries, at the
    uint16 (radix) boundary and beyond, with ties, against np.nanmedian."""
    rng = np.random.default_rng(n)
    x = np.round(rng.normal(size=n), 2)  # ties
    idx = rng.integers(0, n, size=(40, 33))
    mask = rng.random((40, 33)) < 0.6
    mask[:, 0] = True
    mask[1] = True
    want = np.nanmedian(np.where(mask, x[idx], np.nan), axis=1)
    got = hb._Median(x).masked(np.where(mask, idx, 0), mask)
    np.testing.assert_array_equal(got, want)


def test_unbalanced_median_replicates_from_the_rank_path_equal_nanmedian_of_the_draws():
    """joint_replicates on an unbalanced tree gives the medians of the same draws."""
    rng = np.random.default_rng(8)
    values = rng.lognormal(size=23)
    build = np.array([0] * 5 + [1] * 8 + [2] * 10).astype(str)
    tree = hb.build_tree(values, [build])
    got = hb.joint_replicates(tree, "RR", 50, np.random.default_rng(1), ("median",))
    again = hb.joint_replicates(tree, "RR", 50, np.random.default_rng(1), ("median", "mean"))
    np.testing.assert_array_equal(got["median"][0], again["median"][0])
    assert np.all(np.isfinite(got["median"][0]))
    assert values.min() <= got["median"][0].min() <= got["median"][0].max() <= values.max()

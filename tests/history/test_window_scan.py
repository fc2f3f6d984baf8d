"""The window scan of history check (stats/window_scan.py): its sums against a plain loop,
its pivot and CI against the t distribution they claim (scipy, simulation), its family-wise
false alarms on pure noise, and Otava's generated series (fixtures/otava_series.csv, from
fixtures/make_otava_series.py): an episode, a transient, a change at the head, nothing in
noise and banding."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from benchlab.history.check import check
from benchlab.history.store import Commit, Series
from benchlab.stats.fieller import fieller_interval
from benchlab.stats.window_scan import detectable, head_change, scan, windows

FIXTURE = Path(__file__).parent / "fixtures" / "otava_series.csv"


def test_the_window_sums_match_a_plain_loop():
    rng = np.random.default_rng(5)
    z = 100 + rng.normal(0, 2, 60)
    excluded = np.zeros(60, dtype=bool)
    excluded[[7, 30, 31]] = True
    c = windows(z, excluded, 4, 50, range(1, 6), threshold=0.02)
    seen = 0
    for i, L, m, mc, v, nc in zip(c.start, c.length, c.mean, c.context_mean, c.context_var,
                                  c.context_n, strict=True):
        inside = np.zeros(60, dtype=bool)
        inside[i:i + L] = True
        assert 4 <= i and i + L <= 50 and not excluded[i:i + L].any()
        ctx = z[4:50][~(inside | excluded)[4:50]]
        assert m == pytest.approx(z[i:i + L].mean(), rel=1e-12)
        assert mc == pytest.approx(ctx.mean(), rel=1e-12)
        assert v == pytest.approx(ctx.var(ddof=1), rel=1e-9)
        assert nc == ctx.size
        seen += 1
    # every window of 1..5 values in [4, 50) that holds none of the 3 excluded values
    assert seen == sum(1 for L in range(1, 6) for i in range(4, 51 - L)
                       if not excluded[i:i + L].any())


def test_the_ratio_ci_covers_at_its_level_under_the_model():
    """One window against its context, with the one context variance: the pivot is t with
    n_c - 1 df (scipy's quantile) and Fieller's CI from it covers the true ratio (1) at its
    level, for iid normal values."""
    rng = np.random.default_rng(11)
    level, reps, inside, covered = 0.9, 2000, 0, 0
    z = 100 + rng.normal(0, 3, (reps, 40))
    for row in z:
        c = windows(row, np.zeros(40, dtype=bool), 0, 40, (4,), 0.0)
        k = 10  # one fixed window: [10, 14)
        m, mc, v, nc = c.mean[k], c.context_mean[k], c.context_var[k], c.context_n[k]
        t = (m - mc) / np.sqrt(v * (1 / 4 + 1 / nc))
        inside += abs(t) <= stats.t.ppf(0.5 + level / 2, nc - 1)
        r = fieller_interval(m, mc, v / 4, v / nc, 0.0, nc - 1, level)
        covered += r.low <= 1.0 <= r.high
    tol = 3 * np.sqrt(level * (1 - level) / reps)
    assert inside / reps == pytest.approx(level, abs=tol)
    assert covered / reps == pytest.approx(level, abs=tol)


def test_pure_noise_rarely_gives_any_window_and_never_beyond_the_bound():
    """Bonferroni over every window: the share of noise series with any report stays
    below alpha (here 20%, threshold 0, so that the count is not all zeros)."""
    rng = np.random.default_rng(3)
    series, alpha, any_found = 150, 0.2, 0
    for _ in range(series):
        z = 100 + rng.normal(0, 2, 120)
        found, _ = scan(z, [(0, 120)], threshold=0.0, confidence=1 - alpha)
        any_found += bool(found)
    assert any_found / series <= alpha


def test_a_change_at_the_head_needs_the_head_at_its_level():
    rng = np.random.default_rng(8)
    z = 100 + rng.normal(0, 1, 120)
    z[-3:] += 5
    w = head_change(z, 0, threshold=0.02, confidence=0.95)
    assert w is not None and w.start == 117 and w.length == 3 and w.ratio.low > 1.02
    spike = 100 + rng.normal(0, 1, 120)
    spike[-3] += 30  # a spike three commits back is no change at the head
    assert head_change(spike, 0, threshold=0.02, confidence=0.95) is None


def test_detectable_is_where_the_power_is_reached():
    """A change of the detectable size, simulated, is reported in about 80% of series."""
    rng = np.random.default_rng(21)
    base, var, n_c, k = 100.0, 4.0, 100, 3
    size = detectable(var, base, n_c, k, threshold=0.02, level=1 - 0.05 / 5)
    hits, reps = 0, 400
    for _ in range(reps):
        z = np.r_[rng.normal(base, 2, n_c), rng.normal(base * (1 + size), 2, k)]
        c = windows(z, np.zeros(z.size, dtype=bool), 0, z.size, (k,), 0.02)
        j = int(np.flatnonzero(c.start == n_c)[0])
        r = fieller_interval(c.mean[j], c.context_mean[j], c.context_var[j] / k,
                             c.context_var[j] / c.context_n[j], 0.0, c.context_n[j] - 1,
                             1 - 0.05 / 5)
        hits += r.low > 1.02
    assert hits / reps == pytest.approx(0.8, abs=0.08)


@pytest.fixture(scope="module")
def otava() -> tuple[list[Series], list[Commit]]:
    rows = list(csv.DictReader(FIXTURE.open()))
    commits = sorted({r["commit"] for r in rows})
    at = {c: i for i, c in enumerate(commits)}
    out = []
    for name in dict.fromkeys(r["benchmark"] for r in rows):
        mine = [r for r in rows if r["benchmark"] == name]
        out.append(Series(name, "time", "m", "ms", False, (),
                          np.array([at[r["commit"]] for r in mine]),
                          np.array([float(r["time"]) for r in mine]), ()))
    return out, [Commit(c, None, None) for c in commits]


def test_otava_series_give_an_episode_a_transient_and_a_recent_change(otava):
    series, history = otava
    res = check(series, history)
    by = {c.benchmark: c for c in res.changes}
    assert set(by) == {"fixed", "late"} and len(res.changes) == 2
    fixed = by["fixed"]
    assert (fixed.kind, fixed.commit, fixed.end_commit, fixed.commits_after) == \
        ("episode", "c080", "c090", 10)
    assert fixed.verdict.regression and fixed.ratio.low > 1.02
    assert fixed.ratio.confidence > 0.9999  # Bonferroni over the windows of the series
    late = by["late"]
    assert late.commit == "c197" and late.recent and late.verdict.regression
    assert [(t.benchmark, t.commit) for t in res.transients] == [("spike", "c120")]
    assert res.transients[0].ratio.estimate == pytest.approx(1.3, abs=0.03)
    heads = {h.benchmark: h for h in res.heads}
    assert {"noise", "banding", "fixed", "spike"} <= set(heads)
    assert all(np.all(np.diff(h.detectable) < 0) for h in heads.values())


def test_a_longer_minimum_segment_leaves_a_two_commit_episode_out(otava):
    series, history = otava
    s = series[0]
    values = s.values.copy()
    values[150:152] *= 1.15  # a two-commit regression, far beyond the noise
    two = Series(s.benchmark, s.metric, s.machine, s.unit, False, (), s.commit_index, values,
                 ())
    found = check([two], history).changes
    assert [(c.kind, c.commit, c.commits_after) for c in found] == \
        [("episode", "c080", 10), ("episode", "c150", 2)]
    assert [c.commit for c in check([two], history, min_segment=3).changes] == ["c080"]


def test_a_spike_at_the_newest_commit_is_a_change_at_the_head_until_the_next_commit():
    """With one commit since, a change and a spike look alike: a possible change at the
    head (recent, gating); once the next commit is back at the level, a transient."""
    rng = np.random.default_rng(4)
    z = 100 + rng.normal(0, 1, 80)
    z[78] = 130.0
    history = [Commit(f"c{i:03d}", None, None) for i in range(80)]

    def series(n: int) -> Series:
        return Series("b", "time", "m", "ms", False, (), np.arange(n), z[:n], ())

    now = check([series(79)], history[:79])
    [c] = now.changes
    assert (c.kind, c.commit, c.commits_after, c.recent) == ("head", "c078", 1, True)
    assert c.verdict.regression and not now.transients
    later = check([series(80)], history)
    assert not later.changes
    assert [t.commit for t in later.transients] == ["c078"]

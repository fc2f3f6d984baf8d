"""A suite's bootstraps keep to BENCHLAB_MAX_MEMORY_MB (stats/suite_memory.py): the memory
is counted before any draw, grows with B and not with benchmarks × B, and what is kept
instead of all replicates gives the same numbers."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.errors import UsageError
from benchlab.stats import suite as suite_module
from benchlab.stats.bootstrap import SortedReplicates
from benchlab.stats.suite import _add_log_ratio, compare_suite
from benchlab.stats.suite_median import interval_at
from benchlab.stats.suite_memory import suite_bytes, tail_size

MB = 2**20


def _data(benchmarks: int, n: int = 8, systems: int = 2, seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    names = ["old", "new", "newer"][:systems]
    return {f"b{j}": [(name, rng.lognormal(0.01 * k, 0.05, n), [])
                      for k, name in enumerate(names)] for j in range(benchmarks)}


def _bytes(**kw) -> int:
    args = dict(benchmarks=300, systems=2, replicates=2_000_000, bootstrap=None,
                confidence=0.95, statistic="mean", levels=False)
    return suite_bytes(**{**args, **kw})


def test_the_geometric_means_memory_does_not_grow_with_the_benchmarks():
    assert _bytes(benchmarks=3) == _bytes(benchmarks=300) == _bytes(benchmarks=30_000)
    # The case (300 benchmarks, B = 2,000,000, one candidate): 9.3 GB measured
    # before; now one running sum, one benchmark's draws and the final sort.
    assert _bytes() < 4_096 * MB
    assert _bytes() == 8 * (1 + 2 + 2 + 2) * 2_000_000
    assert _bytes(replicates=4_000_000) == 2 * _bytes()


def test_the_kept_tails_of_each_benchmarks_intervals_are_counted():
    assert tail_size(100_000, 0.95) == 2_501  # floor(0.05 · 100,000 / 2) + 1
    # With bootstrap: the intervals of the ratio of means and of medians, two tails each.
    for statistic, levels in (("median", False), ("mean", False), ("mean", True)):
        one = _bytes(statistic=statistic, levels=levels, bootstrap=100_000, benchmarks=1)
        many = _bytes(statistic=statistic, levels=levels, bootstrap=100_000, benchmarks=101)
        assert many - one == 8 * 100 * 2 * 2 * 2_501
    # The median's headline alone (B = 10,000 without bootstrap): one interval.
    one = _bytes(statistic="median", benchmarks=1)
    assert _bytes(statistic="median", benchmarks=11) - one == 8 * 10 * 2 * 251
    # Neither: the suite holds no more for more benchmarks.
    assert _bytes(benchmarks=1, levels=True) == _bytes(benchmarks=500, levels=True)


def test_a_suite_over_the_limit_is_refused_before_any_draw(monkeypatch):
    monkeypatch.setenv("BENCHLAB_MAX_MEMORY_MB", "10")

    def drawn(*args, **kwargs):
        raise AssertionError("a benchmark was compared before the memory was counted")

    monkeypatch.setattr(suite_module, "compare_samples", drawn)
    with pytest.raises(UsageError) as caught:
        compare_suite(_data(5), [], baseline="old", replicates=300_000, seed=1)
    message = str(caught.value)
    assert "replicates=300,000" in message and "limit of 10 MB" in message
    assert "BENCHLAB_MAX_MEMORY_MB" in message and "--" not in message  # no CLI flags
    assert "\n" not in message


def test_under_the_limit_the_same_suite_runs(monkeypatch):
    monkeypatch.setenv("BENCHLAB_MAX_MEMORY_MB", "10")
    b = 100_000
    assert _bytes(replicates=b, benchmarks=5) <= 10 * MB
    result = compare_suite(_data(5), [], baseline="old", replicates=b, seed=1)
    assert result.geometric_means[0].replicates == b


def test_cli_suite_over_the_limit_is_one_line_exit_2(run_cli, tmp_path, monkeypatch):
    rows = ["benchmark,system,value"] + [
        f"b{j},{s},{1 + 0.01 * ((j * 7 + i * 3) % 11)}" for j in range(50) for s in ("a", "b")
        for i in range(6)]
    path = tmp_path / "suite.csv"
    path.write_text("\n".join(rows) + "\n")
    monkeypatch.setenv("BENCHLAB_MAX_MEMORY_MB", "5")
    code, out, err = run_cli("compare", str(path), "--by", "system", "--benchmark",
                             "benchmark", "--bootstrap", "1000000")
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert "50 benchmarks" in err and "BENCHLAB_MAX_MEMORY_MB" in err


@pytest.mark.parametrize("b", [2, 3, 9, 1000, 4097])
@pytest.mark.parametrize("m", [1, 2, 7, 16, 41])
def test_the_running_sum_is_the_mean_of_the_stacked_rows(b, m):
    rng = np.random.default_rng(b * 100 + m)
    rows = [(rng.lognormal(0, 0.1, b), rng.lognormal(0, 0.1, b)) for _ in range(m)]
    sums: dict[str, np.ndarray] = {}
    for cand, base in rows:
        _add_log_ratio(sums, "new", cand, base)
    stacked = np.mean(np.vstack([np.log(c / s) for c, s in rows]), axis=0)
    # Bit for bit on numpy 2.4 (axis-0 means add row after row); a tolerance for others.
    np.testing.assert_allclose(sums["new"] / m, stacked, rtol=1e-14, atol=0)


def _reference_geomean(data: dict, replicates: int, seed: int) -> tuple[float, float]:
    """The geometric mean's interval as compare_suite computed it before: every benchmark's
    log-ratios kept, stacked and averaged."""
    from benchlab.stats.bootstrap import interval_from_replicates

    streams = np.random.SeedSequence(seed).spawn(len(data))
    logs = []
    for systems, stream in zip(data.values(), streams, strict=True):
        reps = suite_module._mean_geomean(systems, None, replicates, stream, False)
        logs.append(np.log(reps[1] / reps[0]))
    return interval_from_replicates(np.exp(np.mean(np.vstack(logs), axis=0)), 0.95)


def test_the_geometric_mean_interval_is_the_stacked_ones():
    data = _data(23, n=12)
    result = compare_suite(data, [], baseline="old", replicates=3_001, seed=8)
    g = result.geometric_means[0]
    low, high = _reference_geomean(data, 3_001, 8)
    assert (g.low, g.high) == pytest.approx((low, high), rel=1e-13)


def test_kept_tails_give_the_whole_replicates_intervals_from_the_confidence_up():
    ordered = np.sort(np.random.default_rng(5).lognormal(0, 0.05, 10_000))
    keep = tail_size(ordered.size, 0.95)
    tails = SortedReplicates(ordered, keep)
    assert tails.size == ordered.size and not tails.whole
    for level in (0.95, 0.97, 0.99, 0.999, 0.9999):
        assert interval_at(tails, level) == interval_at(ordered, level)
    assert tails[0] == ordered[0] and tails[-1] == ordered[-1]
    assert tails[keep - 1] == ordered[keep - 1]
    with pytest.raises(ValueError, match="was not kept"):
        interval_at(tails, 0.9)  # needs order statistics inside the tails
    assert SortedReplicates(ordered).whole and SortedReplicates(ordered, 6_000).whole


def test_a_median_suite_keeps_only_tails_and_decides_as_before():
    data = _data(6, n=15, systems=3, seed=4)
    result = compare_suite(data, [], baseline="old", seed=2, bootstrap=1_999,
                           statistic="median")
    kept = [d for d in result.decisions if d.low is not None]
    assert len(kept) == len(result.decisions) == 12
    # Each decision's interval is the (B + 1)-rule interval of the full redrawn replicates.
    from benchlab.stats.scaling import power_of_two_scale
    from benchlab.stats.suite_median import flat_median_ratios

    for d in result.decisions:
        systems = {name: x for name, x, _ in data[d.benchmark]}
        scale = power_of_two_scale(*systems.values())
        full = flat_median_ratios(systems["old"] * scale, systems[d.candidate] * scale,
                                  replicates=1_999, seed=2, means_first=True)
        assert (d.low, d.high) == interval_at(full, d.level)

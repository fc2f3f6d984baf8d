"""stats/warmup: PELT against ruptures (stored fixture), Barrett et al.'s classes on
executions of known shape, the steady-fraction rule, outliers and quantized values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchlab.stats.warmup import (
    MIN_ITERATIONS,
    classify_benchmark,
    classify_execution,
    outlier_mask,
    pelt,
)

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "warmup" / "ruptures_reference.json"
N = 600


def test_pelt_finds_rupturess_change_points():
    doc = json.loads(REFERENCE.read_text())
    assert len(doc["cases"]) == 48
    for case in doc["cases"]:
        y = np.array(doc["series"][case["name"]])
        found = pelt(y, case["penalty"], min_size=case["min_size"], jump=case["jump"],
                     floor=1e-6)
        assert list(found) == case["change_points"], case["name"]


def _execution(seed: int, n: int = N, noise: float = 0.01) -> np.ndarray:
    return 2.0 * (1.0 + noise * np.random.default_rng(seed).standard_normal(n))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_flat_execution(seed):
    e = classify_execution(_execution(seed))
    assert (e.kind, e.steady_start, e.change_points) == ("flat", 0, ())
    assert e.steady_mean == pytest.approx(2.0, rel=0.01)


@pytest.mark.parametrize("start", [30, 150, 400])
def test_warm_up_starts_where_it_ends(start):
    y = _execution(start)
    y[:start] *= 1.3
    e = classify_execution(y)
    assert e.kind == "warm-up"
    assert abs(e.steady_start - start) <= 0.01 * N
    assert e.segment_means[0] == pytest.approx(2.6, rel=0.02)


def test_slowdown_and_the_direction_of_better():
    y = _execution(7)
    y[:200] *= 0.85
    assert classify_execution(y).kind == "slowdown"
    # the same numbers as a throughput: lower first is a warm-up
    e = classify_execution(y, higher_is_better=True)
    assert (e.kind, abs(e.steady_start - 200) <= 6) == ("warm-up", True)


def test_steady_state_must_cover_the_last_fraction():
    y = _execution(8)
    y[540:] *= 1.2  # the last segment: 60 of 600 iterations, 1/10
    e = classify_execution(y)
    assert (e.kind, e.steady_start) == ("no steady state", None)
    assert e.change_points == (540,)
    covered = classify_execution(y, steady_fraction=1 / 12)  # 50 iterations suffice
    assert (covered.kind, covered.steady_start) == ("slowdown", 540)


def test_drift_has_no_steady_state():
    y = _execution(9) * (1.0 + 0.3 * np.arange(N) / N)
    assert classify_execution(y).kind == "no steady state"


def test_small_changes_within_the_threshold_are_flat():
    y = _execution(10, noise=0.002)
    y[:300] *= 1.01  # clear (10 standard errors) but within 2%
    assert classify_execution(y).kind == "flat"
    assert classify_execution(y, threshold=0.002).kind == "warm-up"


def test_spikes_are_set_aside_but_a_step_is_not():
    y = _execution(11)
    spikes = [5, 100, 333, 597, 599]
    y[spikes] *= 4.0
    keep = outlier_mask(y)
    assert list(np.flatnonzero(~keep)) == spikes
    e = classify_execution(y)
    assert (e.kind, e.outliers) == ("flat", tuple(spikes))
    step = _execution(12)
    step[300:] *= 1.5
    assert outlier_mask(step).all()


def test_quantized_values_are_not_split_into_runs():
    rng = np.random.default_rng(13)
    y = np.round(100 + rng.standard_normal(N) * 0.4)  # a coarse timer: a few distinct values
    y[:50] = 100.0  # a run of equal values
    assert classify_execution(y).kind == "flat"


def test_too_few_iterations():
    with pytest.raises(ValueError, match=f"at least {MIN_ITERATIONS}"):
        classify_execution(np.ones(MIN_ITERATIONS - 1))


def _with_kind(seed: int, warm: int, level: float = 2.0):
    y = _execution(seed) * level / 2.0
    y[:warm] *= 1.3
    return classify_execution(y, benchmark="b")


def test_benchmark_classes():
    same = [_with_kind(s, 100) for s in (20, 21, 22)]
    assert classify_benchmark("b", same).kind == "consistent"
    mixed = [_with_kind(23, 100), _with_kind(24, 0)]
    assert [e.kind for e in mixed] == ["warm-up", "flat"]
    assert classify_benchmark("b", mixed).kind == "inconsistent"
    apart = [_with_kind(25, 100), _with_kind(26, 100, level=2.2)]
    b = classify_benchmark("b", apart)
    assert b.kind == "inconsistent" and b.steady_spread == pytest.approx(0.1, abs=0.01)
    late = _execution(27)
    late[580:] *= 1.3
    none = [*same, classify_execution(late, benchmark="b")]
    assert classify_benchmark("b", none).kind == "no steady state"

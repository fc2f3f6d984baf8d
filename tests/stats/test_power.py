"""Power by simulation (stats/power.py): the vectorized Fieller and verdicts against the scalar
ones, the closed-form t-test power, and an independent simulation of full data analysed by
compare_hierarchical."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from benchlab.errors import ParameterError
from benchlab.stats.compare import compare_hierarchical
from benchlab.stats.fieller import fieller_interval, welch_ratio_df
from benchlab.stats.fieller_batch import fieller_batch, welch_ratio_df_batch
from benchlab.stats.power import (
    CHANGE,
    EQUIVALENT,
    INCONCLUSIVE,
    analyse,
    classify_batch,
    power_analysis,
    simulate,
    top_mean_variance,
)
from benchlab.stats.verdict import classify

CODES = {"change": CHANGE, "equivalent": EQUIVALENT, "inconclusive": INCONCLUSIVE}


def test_fieller_batch_matches_the_scalar_interval_element_by_element():
    rng = np.random.default_rng(3)
    m = 400
    b = rng.uniform(0.5, 2.0, m)
    a = b * rng.uniform(0.7, 1.4, m)
    v_b = rng.uniform(0, 0.3, m) ** 2
    v_a = rng.uniform(0, 0.3, m) ** 2
    v_b[:20] = 0.0            # no uncertainty in the denominator
    v_a[:10] = 0.0            # ... nor in the numerator: an exact ratio
    v_b[20:40] = (b[20:40] * rng.uniform(0.6, 2.0, 20)) ** 2  # g >= 1: unbounded
    n_a, n_b = 7, 5
    got = fieller_batch(a, b, v_a, v_b, n_a, n_b, 0.95)
    unbounded = 0
    for i in range(m):
        df = welch_ratio_df(a[i] / b[i], v_a[i], v_b[i], n_a, n_b)
        assert got.df[i] == pytest.approx(df, rel=1e-12)
        ref = fieller_interval(a[i], b[i], v_a[i], v_b[i], 0.0, df, 0.95)
        assert got.estimate[i] == pytest.approx(ref.estimate, rel=1e-15)
        assert bool(got.bounded[i]) == ref.bounded
        if ref.bounded:
            assert got.low[i] == pytest.approx(ref.low, rel=1e-12, abs=1e-15)
            assert got.high[i] == pytest.approx(ref.high, rel=1e-12, abs=1e-15)
        else:
            unbounded += 1
            assert math.isnan(got.low[i]) and math.isnan(got.high[i])
    assert unbounded >= 15  # the unbounded branch was exercised


def test_welch_ratio_df_batch_with_zero_variances():
    df = welch_ratio_df_batch(np.array([1.0, 1.1]), np.array([0.0, 0.2]), np.array([0.0, 0.0]),
                              4, 6)
    assert df[0] == 8.0
    assert df[1] == pytest.approx(welch_ratio_df(1.1, 0.2, 0.0, 4, 6))


def test_fieller_batch_refuses_a_non_positive_baseline():
    with pytest.raises(ValueError):
        fieller_batch(np.array([1.0]), np.array([0.0]), np.array([1.0]), np.array([1.0]), 3, 3)


@pytest.mark.parametrize("threshold", [0.0, 0.02, 0.1])
def test_classify_batch_matches_classify(threshold):
    rng = np.random.default_rng(5)
    centre = rng.uniform(0.8, 1.2, 2000)
    half = rng.uniform(0, 0.15, 2000)
    low, high = centre - half, centre + half
    # Boundaries exactly: on the threshold, a zero-width interval at 1, unbounded sets.
    low[:4], high[:4] = 1.0 - threshold, 1.0 + threshold
    low[4:8], high[4:8] = 1.0, 1.0
    low[8:12], high[8:12] = 1.0 + threshold, 1.2
    bounded = np.ones(2000, dtype=bool)
    bounded[12:30] = False
    got = classify_batch(np.where(bounded, low, np.nan), np.where(bounded, high, np.nan),
                         bounded, threshold)
    want = [CODES[classify(lo if ok else None, hi if ok else None, threshold)]
            for lo, hi, ok in zip(low, high, bounded, strict=True)]
    assert got.tolist() == want
    assert len(set(want)) == 3  # every verdict occurs


def _t_test_power(effect: float, sd: float, n: int, confidence: float) -> float:
    """Two-sided power of the two-sample t test with equal n and variance (noncentral t)."""
    df = 2 * n - 2
    ncp = effect / (sd * math.sqrt(2.0 / n))
    crit = stats.t.ppf(0.5 + confidence / 2, df)
    return float(stats.nct.sf(crit, df, ncp) + stats.nct.cdf(-crit, df, ncp))


@pytest.mark.parametrize("effect, n", [(0.02, 40), (0.03, 30), (-0.025, 60)])
def test_single_level_power_agrees_with_the_t_test_closed_form(effect, n):
    """One level, equal n: Fieller on the means excludes 1 about when the t test rejects."""
    sd = 0.05
    found, _ = simulate([sd * sd], [n], [effect], simulations=6000, seed=11)
    exact = _t_test_power(effect, sd, n, 0.95)
    se = math.sqrt(exact * (1 - exact) / 6000)
    assert 0.3 < exact < 0.95
    assert found[0].power == pytest.approx(exact, abs=max(4 * se, 0.02))
    assert found[0].false_alarm < 0.002  # a change in the wrong direction is rare


def test_false_alarm_rate_and_coverage_at_effect_zero():
    found, _ = simulate([0.03 ** 2, 0.05 ** 2, 0.02 ** 2], [20, 5, 10], [0.0],
                        simulations=8000, seed=2)
    e = found[0]
    assert e.power is None
    assert e.false_alarm == e.change
    assert e.false_alarm == pytest.approx(0.05, abs=0.01)
    assert e.coverage == pytest.approx(0.95, abs=0.01)
    assert e.change + e.equivalent + e.inconclusive == pytest.approx(1.0)


def test_equivalence_is_found_when_the_design_is_precise_and_the_effect_small():
    found, _ = simulate([0.01 ** 2, 0.01 ** 2], [30, 10], [0.0, 0.05], threshold=0.03,
                        simulations=2000, seed=4)
    assert found[0].equivalent > 0.95
    assert found[1].power > 0.95 and found[1].equivalent == 0.0


def test_power_rises_with_the_effect_and_negative_t2_counts_as_zero():
    effects = [0.0, 0.01, 0.02, 0.04]
    found, _ = simulate([0.04 ** 2, -1e-3, 0.02 ** 2], [8, 4, 10], effects, simulations=3000,
                        seed=9)
    powers = [f.change for f in found]
    assert powers == sorted(powers)  # common random numbers: monotone in the effect
    same, _ = simulate([0.04 ** 2, 0.0, 0.02 ** 2], [8, 4, 10], effects, simulations=3000,
                       seed=9)
    assert found == same


def test_top_mean_variance_is_the_variance_of_full_data_top_means():
    """σ² = Σ T_i² / (r_{n−1}⋯r_i): the variance of top-level means of fully simulated data."""
    t2, reps = [0.04 ** 2, 0.06 ** 2, 0.05 ** 2], [4000, 5, 8]
    rng = np.random.default_rng(1)
    n_top, n_run, n_meas = reps
    top = rng.normal(0, math.sqrt(t2[0]), (n_top, 1, 1))
    run = rng.normal(0, math.sqrt(t2[1]), (n_top, n_run, 1))
    meas = rng.normal(0, math.sqrt(t2[2]), (n_top, n_run, n_meas))
    means = (1.0 + top + run + meas).mean(axis=(1, 2))
    want = top_mean_variance(t2, reps)
    assert want == pytest.approx(t2[0] + t2[1] / 5 + t2[2] / 40)
    # The sample variance of 4000 normal means is within 4 of its standard errors.
    assert np.var(means, ddof=1) == pytest.approx(want, rel=4 * math.sqrt(2 / 3999))


def _full_experiment(rng, sds, reps, mean):
    """Every measurement of one system: build effect + run effect + measurement noise,
    with the label columns, written level by level as a pilot would record it."""
    n_build, n_run, n_meas = reps
    values, builds, runs = [], [], []
    for b in range(n_build):
        build_effect = rng.normal(0, sds[0])
        for r in range(n_run):
            run_effect = rng.normal(0, sds[1])
            values.append(mean + build_effect + run_effect + rng.normal(0, sds[2], n_meas))
            builds += [b] * n_meas
            runs += [r] * n_meas
    return np.concatenate(values), [np.array(builds), np.array(runs)]


def test_agrees_with_an_independent_simulation_analysed_by_compare_hierarchical():
    """300 experiments of full data, each analysed by compare_hierarchical: (1) feeding their
    top-level means to `analyse` gives the very same verdicts and coverage, experiment by
    experiment; (2) the vectorized simulation's probabilities agree with the loop's within
    Monte Carlo error (3 combined standard errors; validation/power_agreement.py runs 3000
    experiments for the ±2-point bar)."""
    sds, reps, effect, threshold = (0.03, 0.04, 0.05), (6, 3, 4), 0.06, 0.01
    rng = np.random.default_rng(20240612)
    outcomes, covered, tops_a, tops_b = [], [], [], []
    for _ in range(300):
        x_a, lv_a = _full_experiment(rng, sds, reps, 1.0)
        x_b, lv_b = _full_experiment(rng, sds, reps, 1.0 + effect)
        result = compare_hierarchical([("old", x_a, lv_a), ("new", x_b, lv_b)],
                                      ["build", "run"], threshold=threshold,
                                      diagnostics=False)
        c = result.comparisons[0]
        outcomes.append((c.verdict.outcome, c.verdict.direction))
        covered.append(c.ratio.low is None or c.ratio.low <= 1 + effect <= c.ratio.high)
        tops_a.append(result.hierarchies[0].top_means)
        tops_b.append(result.hierarchies[1].top_means)
    mine = analyse(np.array(tops_a), np.array(tops_b), effect, threshold, 0.95)
    directions = {None: 0, "increase": 1, "decrease": -1}
    assert mine["verdict"].tolist() == [CODES[o] for o, _ in outcomes]
    assert mine["direction"].tolist() == [directions[d] for _, d in outcomes]
    assert mine["covered"].tolist() == covered

    loop_power = np.mean([o == ("change", "increase") for o in outcomes])
    loop_coverage = np.mean(covered)
    t2 = [s * s for s in sds]
    found, _ = simulate(t2, list(reps), [effect], threshold=threshold, simulations=20000,
                        seed=8)
    p = found[0].power
    se = math.sqrt(p * (1 - p) / 300 + p * (1 - p) / 20000)
    assert 0.2 < p < 0.8  # a power where the comparison means something
    assert loop_power == pytest.approx(p, abs=3 * se)
    se_cov = math.sqrt(0.95 * 0.05 / 300)
    assert loop_coverage == pytest.approx(found[0].coverage, abs=3 * se_cov + 0.005)


def test_non_positive_baseline_means_fall_back_to_the_difference_as_compare_does():
    base = np.array([[-1.0, 0.5, 0.2], [0.01, 0.02, 0.03]])
    cand = np.array([[5.0, 6.0, 5.5], [0.02, 0.03, 0.04]])
    got = analyse(base, cand, 0.0, 0.0, 0.95)
    assert got["verdict"][0] == CHANGE and got["direction"][0] == 1
    assert not got["covered"][0]
    at_threshold = analyse(base, cand, 0.0, 0.05, 0.95)
    assert at_threshold["verdict"][0] == INCONCLUSIVE


def test_seeded_and_reproducible():
    args = ([0.05 ** 2, 0.02 ** 2], [10, 20], [0.0, 0.03])
    first = power_analysis(*args, levels=["build", "measurement"], seed=7, simulations=500)
    again = power_analysis(*args, levels=["build", "measurement"], seed=7, simulations=500)
    other = power_analysis(*args, levels=["build", "measurement"], seed=8, simulations=500)
    assert first == again
    assert first.effects != other.effects
    assert first.seed == 7
    drawn = power_analysis(*args, levels=["build", "measurement"], simulations=100)
    assert isinstance(drawn.seed, int)  # an unseeded run reports the seed it drew


def test_curve_passes_through_the_design_and_rises_with_the_units():
    p = power_analysis([0.03 ** 2, 0.02 ** 2], [10, 5], [0.0, 0.04],
                       levels=["build", "measurement"], costs=[60.0, 1.0], seed=3,
                       simulations=2000)
    curve = p.curve
    k = curve.top_units.index(10)
    assert curve.power[1][k] == p.effects[1].power
    assert curve.power[0][k] == p.effects[0].false_alarm
    assert curve.total_cost[k] == p.total_cost == 10 * (60 + 5)
    assert curve.power[1][-1] > curve.power[1][0]
    # Common random numbers: more units rarely lose a detection (no drop beyond noise).
    assert min(np.diff(curve.power[1])) > -0.03


@pytest.mark.parametrize("kwargs, message", [
    ({"repetitions": [5, 0, 10]}, "repetitions must be whole numbers of at least 1"),
    ({"repetitions": [1, 4, 10]}, "at least 2 top-level units"),
    ({"repetitions": [5, 4]}, "one count per level"),
    ({"effects": [-1.0]}, "effects must be above -100%"),
    ({"effects": [-1.5]}, "effects must be above -100%"),
    ({"effects": []}, "at least one effect"),
    ({"simulations": 5}, "simulations must be a whole number of at least 10"),
])
def test_bad_designs_name_their_parameter(kwargs, message):
    args = {"relative_t2": [0.01, 0.01, 0.01], "repetitions": [5, 4, 10], "effects": [0.03],
            "simulations": 100}
    args.update(kwargs)
    with pytest.raises(ParameterError, match=message):
        simulate(args.pop("relative_t2"), args.pop("repetitions"), args.pop("effects"),
                 **args)


def test_no_variance_at_all_gives_exact_verdicts():
    found, _ = simulate([0.0, 0.0], [3, 4], [0.0, 0.02], simulations=50, seed=1)
    assert found[0].equivalent == 1.0 and found[0].coverage == 1.0
    assert found[1].power == 1.0 and found[1].coverage == 1.0

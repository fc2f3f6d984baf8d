"""The verdict table of STATS.md §4, its sentences and the advice of inconclusive results."""

from __future__ import annotations

import numpy as np
import pytest

from benchlab.stats.compare import compare_samples
from benchlab.stats.fieller import fieller_interval
from benchlab.stats.verdict import Advice, advice, classify, verdict_sentence
from benchlab.units import make_unit


@pytest.mark.parametrize("low,high,threshold,outcome", [
    (0.90, 0.95, 0.0, "change"),
    (1.01, 1.05, 0.0, "change"),
    (0.99, 1.01, 0.0, "inconclusive"),  # δ = 0: "no difference proven"
    (0.99, 1.01, 0.02, "equivalent"),
    (0.97, 0.99, 0.02, "inconclusive"),  # crosses 1 − δ
    (0.90, 0.97, 0.02, "change"),
    (1.00, 1.03, 0.02, "inconclusive"),
    (None, None, 0.0, "inconclusive"),
])
def test_classify(low, high, threshold, outcome):
    assert classify(low, high, threshold) == outcome


def test_sentences():
    s, t = make_unit("s"), make_unit("ops/s")
    assert verdict_sentence("change", "old", "new", 0.945, 0.92, 0.97, 0.0, 0.95, s, None) == (
        "new is faster than old: -5.5% (95% CI -8.0% .. -3.0%)")
    assert verdict_sentence("change", "old", "new", 1.10, 1.05, 1.15, 0.02, 0.9, t, None) == (
        "new is better than old: +10% (90% CI +5% .. +15%), more than the 2% threshold")
    # beyond ±50% a factor with its word, the same string every format prints
    assert verdict_sentence("change", "old", "new", 0.0291, 0.0270, 0.0312, 0.0, 0.95, s,
                            None) == "new is 34.4× faster than old (95% CI 32.1× .. 37.0×)"
    assert verdict_sentence("change", "old", "new", 26.137, 25.1, 27.2, 0.0, 0.95,
                            make_unit(None), None) == (
        "new is 26.1× higher than old (95% CI 25.1× .. 27.2×)")  # not "+2513.7%"
    text = verdict_sentence("inconclusive", "old", "new", 0.99, 0.97, 1.01, 0.02, 0.95, s,
                            Advice(0.031, (40, 40)))
    assert text == ("inconclusive at the 2% threshold: new vs old changes -1.0% (95% CI "
                    "-3.0% .. +1.0%); this experiment detects a change of ±3.1% with 80% "
                    "power; a new experiment needs about 40 measurements per sample to "
                    "resolve ±2%")
    near = verdict_sentence("inconclusive", "old", "new", 0.997, 0.994, 1.0005, 0.0, 0.95, s,
                            None)
    assert "95% CI -0.6% .. +0.05%" in near  # not "+0.0%": the CI does include no change
    eq = verdict_sentence("equivalent", "old", "new", 1.001, 0.99, 1.012, 0.02, 0.95, s, None)
    assert eq.startswith("new and old are equivalent within ±2%: change +0.1% (95% CI")


def _verdicts(n: int, ratio: float, sd: float, threshold: float, sims: int,
              rng) -> np.ndarray:
    """The outcomes of `sims` simulated two-sample experiments of n per sample, analysed
    as compare does (Fieller, Welch df), vectorized over the experiments."""
    from benchlab.stats.fieller import welch_ratio_df

    base = rng.normal(100.0, sd, (sims, n))
    cand = rng.normal(100.0 * ratio, sd, (sims, n))
    out = []
    for b, c in zip(base, cand, strict=True):
        vb, vc = b.var(ddof=1) / n, c.var(ddof=1) / n
        rho = c.mean() / b.mean()
        r = fieller_interval(c.mean(), b.mean(), vc, vb, 0.0,
                             welch_ratio_df(rho, vc, vb, n, n))
        out.append(classify(r.low, r.high, threshold))
    return np.array(out)


def test_detectable_change_is_detected_with_80_percent_power():
    """Simulate experiments of the same size with the true change set to the stated
    minimum detectable effect: about 80% of them see a change (two-sided)."""
    rng = np.random.default_rng(11)
    n, sd = 12, 4.0
    a = advice(100.0, sd ** 2, n, sd ** 2, n, 0.95, 0.0)
    outcomes = _verdicts(n, 1.0 + a.detectable, sd, 0.0, 1500, rng)
    assert np.mean(outcomes == "change") == pytest.approx(0.80, abs=0.035)


def test_new_experiment_resolves_the_threshold_with_80_percent_power():
    """A new experiment of the stated size, no true change: equivalence about 80% of the
    time (at least the stated power, within Monte Carlo error)."""
    rng = np.random.default_rng(12)
    sd, threshold = 5.0, 0.02
    a = advice(100.0, sd ** 2, 8, sd ** 2, 8, 0.95, threshold)
    n = a.new_experiment[0]
    outcomes = _verdicts(n, 1.0, sd, threshold, 1500, rng)
    assert np.mean(outcomes == "equivalent") == pytest.approx(0.80, abs=0.04)


def test_advice_does_not_depend_on_the_observed_effect():
    rng = np.random.default_rng(3)
    base = rng.normal(100, 5, 10)
    noise = rng.normal(0, 5, 10)
    found = []
    for shift in (0.0, 1.0, 2.5):  # same spreads, different observed changes
        c = compare_samples([("b", base), ("c", 100 + shift + noise)], threshold=0.05)
        found.append(c.comparisons[0].verdict.advice)
    assert all(f is not None for f in found)
    assert {round(f.detectable, 12) for f in found} == {round(found[0].detectable, 12)}
    assert {f.new_experiment for f in found} == {found[0].new_experiment}


def test_no_advice_without_a_positive_baseline_and_no_size_without_a_threshold():
    assert advice(0.0, 1.0, 10, 1.0, 10, 0.95, 0.02).detectable is None
    a = advice(10.0, 1.0, 10, 1.0, 10, 0.95, 0.0)
    assert a.detectable > 0 and a.new_experiment is None


def test_inconclusive_output_says_once_not_to_add_data():
    rng = np.random.default_rng(5)
    res = compare_samples([("a", rng.normal(100, 5, 8)), ("b", rng.normal(100, 5, 8)),
                           ("c", rng.normal(100, 5, 8))], threshold=0.01)
    notes = [d for d in res.diagnostics if d.kind == "advice"]
    assert len(notes) == 1 and "inflates false alarms" in notes[0].message

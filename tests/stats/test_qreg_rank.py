"""Rank-test inversion CIs against R's quantreg and against a direct evaluation of the statistic.

Fixtures: tests/fixtures/r/quantreg/ (made by make_reference.R there).
"""

from __future__ import annotations

import csv
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.stats import qreg_rank
from benchlab.stats.distributions import critical_t
from benchlab.stats.qreg_rank import rank_inversion_ci

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "r" / "quantreg"
RANK_SETS = ("tiny_n30", "covariate_n500", "latency_2k3_r25")
R_BIG = 1e308  # quantreg reports an unbounded side as ±.Machine$double.xmax


@cache
def _reference() -> dict:
    return json.loads((FIXTURES / "reference.json").read_text())["datasets"]


@cache
def _data(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The model matrix (columns as the fixture lists them) and y of a fixture data set."""
    entry = _reference()[name]
    with open(FIXTURES / entry["file"], newline="") as fh:
        rows = list(csv.DictReader(fh))

    def column(name: str) -> np.ndarray:
        values = [r[name] for r in rows]
        if values[0] in ("lo", "hi"):
            return np.array([1.0 if v == "hi" else -1.0 for v in values])
        return np.array([float(v) for v in values])

    cols = []
    for term in entry["columns"]:
        col = np.ones(len(rows))
        if term != "(Intercept)":
            for factor in term.split(":"):
                col = col * column(factor)
        cols.append(col)
    return np.column_stack(cols), column("y")


def _r_value(v: float | None) -> float:
    if v is None:
        return np.nan
    return np.inf if v > R_BIG else -np.inf if v < -R_BIG else v


def _cases(with_r_error: bool = False):
    for name in RANK_SETS:
        for k, fit in enumerate(_reference()[name]["fits"]):
            for iid in (True, False):
                key = "rank_iid" if iid else "rank_nid"
                if ("error" in fit["se"][key]) == with_r_error:
                    yield pytest.param(name, k, iid, id=f"{name}-tau{fit['tau']}-{key}")


def _nonunique(entry: dict) -> bool:
    return any("nonunique" in w for w in entry["warnings"])


def _close(got: float, want: float, tol: float = 1e-6) -> bool:
    if np.isinf(want) or np.isinf(got):
        return got == want
    return abs(got - want) <= tol * max(1.0, abs(want))


@pytest.mark.parametrize(("name", "k", "iid"), list(_cases()))
def test_bounds_match_r_where_its_path_is_unique(name, k, iid):
    """Where R's rank call does not warn "Solution may be nonunique", bounds agree to 1e-6."""
    fit = _reference()[name]["fits"][k]
    want = fit["se"]["rank_iid" if iid else "rank_nid"]
    if _nonunique(want):
        pytest.skip("R's path is not unique here: see test_steps_match_r")
    X, y = _data(name)
    low, high = rank_inversion_ci(X, y, fit["tau"], 0.95, iid=iid)
    for j in range(X.shape[1]):
        assert _close(low[j], _r_value(want["lower"][j])), (j, low[j], want["lower"][j])
        assert _close(high[j], _r_value(want["upper"][j])), (j, high[j], want["upper"][j])


def test_unique_cases_are_most_of_the_general_models():
    """Guard: the exact comparison above is not vacuous for the non-saturated data sets."""
    exact = [(n, k, iid) for n, k, iid in (c.values for c in _cases())
             if n != "latency_2k3_r25" and not _nonunique(
                 _reference()[n]["fits"][k]["se"]["rank_iid" if iid else "rank_nid"])]
    assert len(exact) >= 15


@pytest.mark.parametrize(("name", "k", "iid"), list(_cases()))
def test_steps_match_r(name, k, iid):
    """The first rejected trial value and the statistics are R's, also where its path is not unique.

    There the last accepted trial value depends on tie-breaking (ours and quantreg's pivoting
    differ), but both bounds lie between the first rejected value and the interpolation from
    where the statistic took its last accepted value; elsewhere the bounds are R's.
    """
    fit = _reference()[name]["fits"][k]
    key = "rank_iid" if iid else "rank_nid"
    raw, final = fit["se"][key + "_steps"], fit["se"][key]
    X, y = _data(name)
    n, p = X.shape
    beta, zero = qreg_rank._fit(X, y, fit["tau"])
    qn = qreg_rank._qn_iid(X) if iid else qreg_rank._qn_nid(X, y, fit["tau"])
    cutoff = critical_t(0.95, n - p)
    assert cutoff == pytest.approx(raw["cutoff"], rel=1e-12)
    for j in range(p):
        for d, side, bound in ((+1, "high", "upper"), (-1, "low", "lower")):
            walk = qreg_rank._walk(X, y, fit["tau"], j, d, beta, zero, qn[j], cutoff)
            r_bound = _r_value(final[bound][j])
            mine = walk.bound(d, cutoff)
            if walk.rejected is None:
                assert np.isinf(r_bound) and mine == r_bound
                continue
            assert _close(walk.rejected[0], _r_value(raw["rejected_" + side][j]), 1e-9)
            assert _close(walk.rejected[1], raw["t_rejected_" + side][j], 1e-8)
            assert _close(walk.accepted[1], raw["t_accepted_" + side][j], 1e-8)
            if not walk.ambiguous:
                assert _close(walk.accepted[0], _r_value(raw["accepted_" + side][j]), 1e-9)
                assert _close(mine, r_bound)
                continue
            start = qreg_rank._Walk((walk.accepted_from, walk.accepted[1]), walk.rejected,
                                    walk.accepted_from, True).bound(d, cutoff)
            slack = 1e-9 * max(1.0, abs(r_bound))
            for b in (mine, r_bound):
                assert d * (b - start) >= -slack and d * (walk.rejected[0] - b) >= -slack


@pytest.mark.parametrize(("name", "k", "iid"), list(_cases(with_r_error=True)))
def test_refuses_where_r_fails(name, k, iid):
    """iid = FALSE at tau = 0.99, n = 200: tau + h > 1, so R's rq.fit.br fails; we say why."""
    fit = _reference()[name]["fits"][k]
    X, y = _data(name)
    with pytest.raises(ValueError, match="leaves"):
        rank_inversion_ci(X, y, fit["tau"], 0.95, iid=iid)


# ------------------------------------------------------------------ direct check of T_n(b)


def _statistic(X: np.ndarray, y: np.ndarray, tau: float, j: int, b: float, qn: float) -> float:
    """T_n(b) from the dual of the restricted problem, solved directly by HiGHS (no path)."""
    from scipy.optimize import linprog

    n = len(y)
    Z = np.delete(X, j, axis=1)
    xj = X[:, j]
    # max (y - b x_j)'λ  s.t.  Z'λ = 0,  τ - 1 <= λ <= τ
    res = linprog(-(y - b * xj), A_eq=Z.T if Z.shape[1] else None,
                  b_eq=np.zeros(Z.shape[1]) if Z.shape[1] else None,
                  bounds=[(tau - 1.0, tau)] * n, method="highs-ds",
                  options={"dual_feasibility_tolerance": 1e-10,
                           "primal_feasibility_tolerance": 1e-10})
    assert res.status == 0
    return float(xj @ res.x / np.sqrt(qn * tau * (1.0 - tau)))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(12, 40), p=st.integers(1, 3),
       tau=st.floats(0.2, 0.8), iid=st.booleans(), ties=st.booleans())
def test_steps_agree_with_the_statistic_evaluated_directly(seed, n, p, tau, iid, ties):
    """On each side, T_n is T_{k-1} (accepted) just before b_k and T_k (rejected) just after.

    With `ties`, y is rounded to one decimal (repeated values, as timer resolution gives).
    """
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n)] + [rng.uniform(0, 5, n) for _ in range(p - 1)])
    y = X @ rng.normal(size=p) + rng.standard_exponential(n)
    if ties:
        y = np.round(y, 1)
    beta, zero = qreg_rank._fit(X, y, tau)
    try:
        qn = qreg_rank._qn_iid(X) if iid else qreg_rank._qn_nid(X, y, tau)
    except ValueError:  # tau ± h outside [0, 1] for tiny n
        return
    cutoff = critical_t(0.95, n - p)
    for j in range(p):
        for d in (+1, -1):
            walk = qreg_rank._walk(X, y, tau, j, d, beta, zero, qn[j], cutoff)
            if walk.rejected is None:
                far = walk.accepted[0] + d * 100.0 * (1.0 + abs(walk.accepted[0]))
                assert abs(_statistic(X, y, tau, j, far, qn[j])) < cutoff
                continue
            b_k, t_k = walk.rejected
            delta = 1e-6 * max(1.0, abs(b_k))
            assert _statistic(X, y, tau, j, b_k + d * delta, qn[j]) == pytest.approx(t_k, abs=1e-7)
            assert abs(t_k) >= cutoff
            if walk.accepted[0] == b_k:  # the first step from the estimate already rejects
                continue
            before = _statistic(X, y, tau, j, b_k - d * delta, qn[j])
            assert before == pytest.approx(walk.accepted[1], abs=1e-7)
            assert abs(before) < cutoff


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(15, 50), tau=st.floats(0.15, 0.85),
       shift=st.lists(st.floats(-10, 10), min_size=3, max_size=3), scale=st.floats(0.1, 10))
def test_regression_equivariance(seed, n, tau, shift, scale):
    """CI(s·y + Xδ) = s·CI(y) + δ for s > 0 (Koenker 2005 §2.2.3 carries over to the rank test)."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([np.ones(n), rng.uniform(0, 5, n), rng.normal(size=n)])
    y = X @ np.array([1.0, 2.0, -1.0]) + rng.standard_exponential(n)
    low, high = rank_inversion_ci(X, y, tau)
    delta = np.array(shift)
    low2, high2 = rank_inversion_ci(X, scale * y + X @ delta, tau)
    bounds = np.concatenate([low, high])
    size = np.abs(bounds[np.isfinite(bounds)]).max(initial=0.0)
    tol = 1e-7 * (1.0 + np.abs(delta).max() + scale * size)
    np.testing.assert_array_equal(np.isinf(low2), np.isinf(low))
    np.testing.assert_array_equal(np.isinf(high2), np.isinf(high))
    np.testing.assert_allclose(low2, scale * low + delta, atol=tol)
    np.testing.assert_allclose(high2, scale * high + delta, atol=tol)


def test_interval_contains_the_estimate_and_narrows_with_confidence():
    X, y = _data("tiny_n30")
    beta, _ = qreg_rank._fit(X, y, 0.5)
    low95, high95 = rank_inversion_ci(X, y, 0.5, 0.95)
    low80, high80 = rank_inversion_ci(X, y, 0.5, 0.80)
    assert np.all(low95 <= low80) and np.all(low80 <= beta)
    assert np.all(beta <= high80) and np.all(high80 <= high95)


def test_intercept_only_is_the_sign_test_interval():
    """p = 1 (quantreg gives no rank CI): T_n(b) = (#{y > b} - n(1 - τ)) / sqrt(n τ (1 - τ))."""
    rng = np.random.default_rng(7)
    y = rng.standard_exponential(25)
    tau, n = 0.5, 25
    low, high = rank_inversion_ci(np.ones((n, 1)), y, tau)
    ys = np.sort(y)
    above = n - np.arange(1, n + 1)  # #{y > b} for b in [y_(i), y_(i+1))
    t = (above - n * (1 - tau)) / np.sqrt(n * tau * (1 - tau))
    c = critical_t(0.95, n - 1)
    # upper side: steps start at the median y_(13) and the order statistics above it
    k = int(np.flatnonzero((np.abs(t) >= c) & (np.arange(n) > n // 2))[0])
    want_high = ys[k - 1] + (ys[k] - ys[k - 1]) * (c - abs(t[k - 1])) / abs(t[k] - t[k - 1])
    assert high[0] == pytest.approx(want_high, rel=1e-12)
    assert low[0] < np.median(y) < high[0]


@pytest.mark.parametrize(("X", "y", "tau", "conf", "match"), [
    (np.ones((5, 1)), np.arange(4.0), 0.5, 0.95, "X must be"),
    (np.ones((2, 2)), np.arange(2.0), 0.5, 0.95, "more observations"),
    (np.ones((6, 1)), np.arange(6.0), 1.0, 0.95, "tau"),
    (np.ones((6, 1)), np.arange(6.0), 0.5, 1.5, "confidence"),
    (np.column_stack([np.ones(6), np.ones(6)]), np.arange(6.0), 0.5, 0.95, "singular"),
    (np.ones((6, 1)), np.array([1, 2, np.nan, 4, 5, 6.0]), 0.5, 0.95, "finite"),
])
def test_bad_input(X, y, tau, conf, match):
    with pytest.raises(ValueError, match=match):
        rank_inversion_ci(X, y, tau, conf)

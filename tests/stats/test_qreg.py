"""Quantile regression against R quantreg 5.94 (tests/fixtures/r/quantreg/make_reference.R)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchlab.data.factor_table import load_factor_table
from benchlab.stats import qreg_bootstrap
from benchlab.stats.coding import yates_terms
from benchlab.stats.qreg import fit_coefficients, quantile_regression
from benchlab.stats.qreg_design import build_model, cell_quantiles, type1_positions
from benchlab.stats.qreg_fn import check_loss, fit
from benchlab.stats.qreg_inference import bandwidth

from ..conftest import FIXTURES

QREG = FIXTURES / "r" / "quantreg"
REFERENCE = json.loads((QREG / "reference.json").read_text())["datasets"]
# dataset → (factors, interaction order, covariate columns)
MODELS = {
    "latency_2k3_r25": (["a", "b", "c"], None, []),
    "latency_2k3_r400": (["a", "b", "c"], None, []),
    "main_2k4_n800": (["a", "b", "c", "d"], 1, []),
    "covariate_n500": (["a", "b"], 1, ["x"]),
}


def _regress(name: str, se: str | None, **kwargs):
    factors, order, covariates = MODELS[name]
    table = load_factor_table(str(QREG / f"{name}.csv"), "y", factors,
                              level_order={f: ["lo", "hi"] for f in factors})
    extra = (np.column_stack([table.columns[c].astype(float) for c in covariates])
             if covariates else None)
    return quantile_regression(table.response, table.codes, table.level_counts, table.factors,
                               table.levels, taus=REFERENCE[name]["taus"], interactions=order,
                               se=se, covariates=extra, covariate_names=covariates, **kwargs)


def _fits(name: str):
    return list(enumerate(REFERENCE[name]["fits"]))


@pytest.mark.parametrize("name", MODELS)
def test_coefficients_and_objective_match_r(name):
    result = _regress(name, "iid")
    assert result.names == REFERENCE[name]["columns"]
    for t, fit_ref in _fits(name):
        objective = fit_ref["br"]["objective"]
        assert result.objective[t] == pytest.approx(objective, rel=1e-9)
        if fit_ref["unique"]:
            np.testing.assert_allclose(result.coef[t], fit_ref["br"]["coefficients"],
                                       rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", ["latency_2k3_r25", "latency_2k3_r400"])
def test_cell_quantiles_are_r_type_1(name):
    table = load_factor_table(str(QREG / f"{name}.csv"), "y", ["a", "b", "c"],
                              level_order={f: ["lo", "hi"] for f in "abc"})
    taus = np.array(REFERENCE[name]["taus"])
    q = cell_quantiles(table.response, table.cell_index(), 8, taus)
    for c, cell in enumerate(REFERENCE[name]["cell_quantiles"]):
        assert table.cell_label(c) == f"a={cell['a']}, b={cell['b']}, c={cell['c']}"
        np.testing.assert_array_equal(q[c], cell["type1"])


def test_type1_rank_handles_products_that_round_up():
    # 10 × 0.7 is 7.000000000000001 in floating point; R's type 1 still takes the 7th value.
    assert type1_positions(np.array([10]), np.array([0.7, 0.1, 0.05, 0.99]))[0].tolist() == \
        [6, 0, 0, 9]


@pytest.mark.parametrize("name", MODELS)
def test_nid_standard_errors_match_r(name):
    result = _regress(name, "nid")
    compared = 0
    for t, fit_ref in _fits(name):
        ref = fit_ref["se"]["nid"]
        if "std_error" not in ref:  # R stopped (a singular density matrix): we leave it undefined
            assert np.all(np.isnan(result.se[t]))
            continue
        np.testing.assert_allclose(result.se[t], ref["std_error"], rtol=1e-9)
        if fit_ref["unique"]:  # the p-value uses the estimate, which is R's only when unique
            np.testing.assert_allclose(result.pvalue[t], ref["p_value"], rtol=1e-6, atol=1e-12)
        compared += 1
    assert compared >= len(REFERENCE[name]["fits"]) - 1


@pytest.mark.parametrize("name", MODELS)
def test_ker_standard_errors_match_r_where_the_fit_is_unique(name):
    # ker uses the residuals, which depend on which optimal vertex a non-unique fit takes.
    result = _regress(name, "ker")
    unique = [(t, f) for t, f in _fits(name) if f["unique"]]
    for t, fit_ref in unique:
        np.testing.assert_allclose(result.se[t], fit_ref["se"]["ker"]["std_error"], rtol=1e-9)


def _lad_loss(x, y, slope):
    """The least-absolute-deviation loss of the best line with this slope."""
    rest = y - slope * x
    return float(np.abs(rest - np.median(rest)).sum())


@pytest.mark.parametrize("name", MODELS)
def test_iid_standard_errors_match_r_or_an_equally_optimal_sparsity(name):
    result = _regress(name, "iid")
    for t, fit_ref in _fits(name):
        if not fit_ref["unique"]:
            continue
        ours, theirs = result.se[t], np.array(fit_ref["se"]["iid"]["std_error"])
        if np.allclose(ours, theirs, rtol=1e-9):
            continue
        # The sparsity is the slope of a median regression on h + 1 ordered residuals, which
        # can have several optimal slopes: R's simplex and our solver may pick different
        # ones. Then R's slope must be optimal too (same LAD loss as ours).
        tau, n, p = fit_ref["tau"], result.n, len(result.names)
        resid = _regress_residuals(name, t)
        h = max(p + 1, int(np.ceil(n * bandwidth(tau, n))))
        pz = int(np.sum(np.abs(resid) < np.finfo(float).eps ** 0.5))
        ranks = np.arange(pz + 1, h + pz + 2)
        ordered = np.sort(resid[np.argsort(np.abs(resid), kind="stable")][ranks - 1])
        xt = ranks / (n - p)
        ratio = theirs / ours
        assert np.allclose(ratio, ratio[0], rtol=1e-9)
        ours_slope = fit(np.column_stack([np.ones_like(xt), xt]), ordered, 0.5).coef[1]
        assert _lad_loss(xt, ordered, ours_slope * ratio[0]) == pytest.approx(
            _lad_loss(xt, ordered, ours_slope), rel=1e-12)


def _regress_residuals(name: str, t: int) -> np.ndarray:
    result = _regress(name, "iid")
    factors, order, _ = MODELS[name]
    table = load_factor_table(str(QREG / f"{name}.csv"), "y", factors,
                              level_order={f: ["lo", "hi"] for f in factors})
    model = build_model(table.response, table.codes, table.level_counts,
                        yates_terms(len(factors), order), factors, table.levels)
    return model.y - model.predict(result.coef[t])


def test_lp_solver_matches_linprog_and_certifies_vertices():
    from scipy.optimize import linprog

    rng = np.random.default_rng(3)
    n, p = 300, 4
    x = np.column_stack([np.ones(n), rng.normal(size=(n, p - 1))])
    y = x @ np.arange(1.0, p + 1) + rng.standard_exponential(n)
    for tau in (0.01, 0.25, 0.5, 0.9, 0.99):
        ours = fit(x, y, tau)
        cost = np.concatenate([np.zeros(2 * p), tau * np.ones(n), (1 - tau) * np.ones(n)])
        lp = linprog(cost, A_eq=np.hstack([x, -x, np.eye(n), -np.eye(n)]), b_eq=y,
                     bounds=(0, None), method="highs")
        assert ours.vertex
        assert ours.objective == pytest.approx(lp.fun, rel=1e-10)
        np.testing.assert_allclose(ours.coef, lp.x[:p] - lp.x[p:2 * p], atol=1e-8)
        assert ours.objective == pytest.approx(check_loss(y - x @ ours.coef, tau))


@pytest.mark.parametrize("tau", [0.02, 0.5, 0.9, 0.99])
def test_preprocessing_finds_the_full_solution(tau):
    rng = np.random.default_rng(11)
    n, p = 25_000, 6
    x = np.column_stack([np.ones(n), rng.normal(size=(n, p - 1))])
    y = x @ np.arange(p, dtype=float) + rng.standard_t(3, n) * (1 + 0.5 * np.abs(x[:, 1]))
    full = fit(x, y, tau, preprocess=False)
    reduced = fit(x, y, tau, preprocess=True)
    started = fit(x, y, tau, start=full.coef + 0.05, preprocess=True)
    assert full.vertex and reduced.vertex and started.vertex
    for other in (reduced, started):
        np.testing.assert_allclose(other.coef, full.coef, rtol=1e-10, atol=1e-10)
        assert other.objective == pytest.approx(full.objective, rel=1e-12)


def test_a_bad_start_still_gives_the_optimum():
    rng = np.random.default_rng(12)
    n = 20_000
    x = np.column_stack([np.ones(n), rng.normal(size=n)])
    y = 3 + 2 * x[:, 1] + rng.standard_exponential(n)
    full = fit(x, y, 0.7, preprocess=False)
    wild = fit(x, y, 0.7, start=np.array([100.0, -50.0]), preprocess=True)
    assert wild.objective == pytest.approx(full.objective, rel=1e-12)


def test_degenerate_vertices_with_ties_are_certified():
    from scipy.optimize import linprog

    rng = np.random.default_rng(13)
    n = 400
    x = np.column_stack([np.ones(n), rng.choice([-1.0, 1.0], size=(n, 2))])
    y = np.round(10 + 3 * x[:, 1] + rng.exponential(4, n))  # integers: many ties
    certified = 0
    for tau in (0.1, 0.25, 0.5, 0.75, 0.9):
        ours = fit(x, y, tau)
        cost = np.concatenate([np.zeros(6), tau * np.ones(n), (1 - tau) * np.ones(n)])
        lp = linprog(cost, A_eq=np.hstack([x, -x, np.eye(n), -np.eye(n)]), b_eq=y,
                     bounds=(0, None), method="highs")
        assert ours.objective == pytest.approx(lp.fun, rel=1e-10)
        certified += ours.vertex
    assert certified == 5


def test_saturated_path_equals_the_lp_on_the_same_model():
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 2, size=(403, 3))
    y = rng.lognormal(size=403) + codes @ np.array([1.0, 0.5, 2.0])
    levels = [("lo", "hi")] * 3
    model = build_model(y, codes, [2, 2, 2], yates_terms(3), ["a", "b", "c"], levels)
    taus = np.array([0.13, 0.5, 0.87])
    exact = fit_coefficients(model, taus)
    for t, tau in enumerate(taus):
        lp = fit(model.matrix(), y, tau)
        assert check_loss(y - model.predict(exact[t]), tau) == pytest.approx(lp.objective,
                                                                            rel=1e-12)


def test_three_level_factor_uses_deviation_coding():
    rng = np.random.default_rng(9)
    codes = np.column_stack([np.repeat([0, 1, 2], 200), np.tile([0, 1], 300)])
    y = np.array([10.0, 12.0, 15.0])[codes[:, 0]] + rng.standard_normal(600)
    result = quantile_regression(y, codes, [3, 2], ["m", "s"], [("x", "y", "z"), ("lo", "hi")],
                                 taus=[0.5], se="nid")
    assert result.names == ["(Intercept)", "m[y]", "m[z]", "s", "m[y]:s", "m[z]:s"]
    q = cell_quantiles(y, codes[:, 0] + 3 * codes[:, 1], 6, np.array([0.5]))[:, 0]
    means = q.reshape(2, 3).mean(axis=0)  # per level of m, averaged over s
    assert result.coef[0, 0] == pytest.approx(means.mean())
    assert result.coef[0, 1] == pytest.approx(means[1] - means.mean())


def test_weighted_cell_quantiles_equal_the_repeated_data(monkeypatch):
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 2, size=(120, 2))
    y = rng.normal(size=120)
    model = build_model(y, codes, [2, 2], yates_terms(2), ["a", "b"], [("0", "1")] * 2)
    counts = rng.integers(0, 4, size=(3, 120))
    counts[:, np.arange(4)] += 1  # keep every cell non-empty in every replicate
    for c in range(4):
        counts[:, np.flatnonzero(model.cell == c)[0]] += 1
    monkeypatch.setattr(qreg_bootstrap, "_draw_counts", lambda *a: counts)
    taus = np.array([0.1, 0.5, 0.77])
    reps = qreg_bootstrap.saturated_replicates(model, taus, 3, rng)
    for b in range(3):
        rows = np.repeat(np.arange(120), counts[b])
        q = cell_quantiles(y[rows], model.cell[rows], 4, taus)
        np.testing.assert_allclose(reps[b], np.linalg.solve(model.cell_matrix, q).T)


def test_cluster_bootstrap_resamples_whole_runs_within_cells():
    rng = np.random.default_rng(2)
    cells = np.repeat(np.arange(4), 250)
    run = np.repeat(np.arange(40), 25)  # 10 runs of 25 per cell
    codes = np.column_stack([cells & 1, cells >> 1])
    y = rng.normal(size=40)[run] * 3 + rng.normal(size=1000) * 0.1  # runs dominate
    args = (y, codes, [2, 2], ["a", "b"], [("0", "1")] * 2)
    clustered = quantile_regression(*args, taus=[0.5], se="cluster", cluster=run,
                                    cluster_name="run", replicates=300, seed=1)
    flat = quantile_regression(*args, taus=[0.5], se="boot", replicates=300, seed=1)
    assert clustered.se_method == "cluster" and clustered.cluster == "run"
    assert np.all(clustered.se[0] > 3 * flat.se[0])  # independence would hide the run effect
    again = quantile_regression(*args, taus=[0.5], se="cluster", cluster=run,
                                cluster_name="run", replicates=300, seed=1)
    np.testing.assert_array_equal(again.se, clustered.se)


def test_cluster_bootstrap_corrects_for_few_runs_and_uses_their_degrees_of_freedom():
    from scipy import stats

    rng = np.random.default_rng(5)
    cells = np.repeat(np.arange(4), 150)
    run = np.repeat(np.arange(24), 25)  # 6 runs of 25 per cell
    codes = np.column_stack([cells & 1, cells >> 1])
    y = rng.normal(size=24)[run] + rng.normal(size=600)
    args = (y, codes, [2, 2], ["a", "b"], [("0", "1")] * 2)
    result = quantile_regression(*args, taus=[0.3, 0.5], se="cluster", cluster=run,
                                 cluster_name="run", replicates=250, seed=9)
    model = build_model(y, codes, [2, 2], yates_terms(2, None), ["a", "b"],
                        [("0", "1")] * 2, None, ())
    groups = np.unique(run.astype(str), return_inverse=True)[1]  # as the package codes labels
    raw = qreg_bootstrap.saturated_replicates(model, np.array([0.3, 0.5]), 250,
                                              np.random.default_rng(9), groups).std(axis=0, ddof=1)
    np.testing.assert_allclose(result.se, raw * np.sqrt(6 / 5), rtol=1e-12)
    assert result.df == 24 - 4
    half = stats.t.ppf(0.975, 20) * result.se
    np.testing.assert_allclose(result.high - result.coef, half, rtol=1e-12)
    np.testing.assert_allclose(result.pvalue,
                               2 * stats.t.sf(np.abs(result.coef / result.se), 20), rtol=1e-9)


def test_cluster_bootstrap_with_a_single_run_in_a_cell_leaves_intervals_undefined():
    rng = np.random.default_rng(6)
    cells = np.repeat(np.arange(4), 100)
    run = np.concatenate([np.repeat(np.arange(12), 25), np.full(100, 12)])  # last cell: 1 run
    codes = np.column_stack([cells & 1, cells >> 1])
    result = quantile_regression(rng.normal(size=400), codes, [2, 2], ["a", "b"],
                                 [("0", "1")] * 2, taus=[0.5], se="cluster", cluster=run,
                                 cluster_name="run", replicates=50, seed=1)
    assert np.all(np.isnan(result.se)) and np.all(np.isnan(result.low))
    assert any("single run" in w for w in result.warnings)
    assert not any("singular" in w for w in result.warnings)


def test_default_inference_follows_quantreg_and_runs():
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 2, size=(2000, 2))
    y = rng.normal(size=2000)
    args = (y, codes, [2, 2], ["a", "b"], [("0", "1")] * 2)
    assert quantile_regression(*args, taus=[0.5]).se_method == "nid"
    run = np.arange(2000) // 50
    chosen = quantile_regression(*args, taus=[0.5], cluster=run, cluster_name="run",
                                 replicates=20, seed=1)
    assert chosen.se_method == "cluster" and "not independent" in chosen.se_reason
    singletons = quantile_regression(*args, taus=[0.5], cluster=np.arange(2000),
                                     cluster_name="run")
    assert singletons.se_method == "nid"


def test_thin_tails_warn():
    rng = np.random.default_rng(4)
    codes = rng.integers(0, 2, size=(400, 2))
    result = quantile_regression(rng.normal(size=400), codes, [2, 2], ["a", "b"],
                                 [("0", "1")] * 2, taus=[0.5, 0.99], se="nid")
    assert any("tau = 0.99" in w for w in result.warnings)

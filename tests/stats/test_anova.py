"""benchlab.stats.anova against Jain's 2^3 example and R (fixtures/r/factorial/anova.json)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchlab.errors import InputError, ParameterError, UsageError
from benchlab.stats.anova import anova
from benchlab.stats.coding import yates_cells

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "r" / "factorial" / "anova.json"
R = json.loads(FIXTURE.read_text())


def _codes(columns: list[list[str]]) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    levels = [tuple(sorted(set(c))) for c in columns]
    codes = np.stack([[lv.index(x) for x in c] for c, lv in zip(columns, levels, strict=True)],
                     axis=1)
    return codes, levels


def test_jain_2_cubed_example():
    """STATS.md §8: Jain's 2^3 example (no replicates)."""
    y = np.array([14, 22, 10, 34, 46, 58, 50, 86], dtype=float)
    res = anova(y, yates_cells([2, 2, 2]), ["A", "B", "C"], [("-", "+")] * 3)
    assert res.method.startswith("sign table")
    assert [e.estimate for e in res.effects] == [40, 10, 5, 20, 5, 2, 3, 1]
    assert [e.term for e in res.effects] == ["(Intercept)", "A", "B", "C", "A:B", "A:C", "B:C",
                                             "A:B:C"]
    assert res.total_ss == 4512
    shares = {row.term: round(100 * row.variation) for row in res.table}
    assert shares == {"A": 18, "B": 4, "C": 71, "A:B": 4, "A:C": 1, "B:C": 2, "A:B:C": 0}
    assert res.residual.df == 0 and res.s_e is None
    assert all(e.low is None and e.pvalue is None for e in res.effects)
    assert "no error degrees of freedom" in res.diagnostics.advice[0]


def _check_fit(res, ref, names):
    got = {e.term: e for e in res.effects}
    for i, name in enumerate(ref["coef_names"]):
        e = got[names.get(name, name)]
        assert e.estimate == pytest.approx(ref["coef"][i], rel=1e-9, abs=1e-12)
        assert e.se == pytest.approx(ref["se"][i], rel=1e-9)
        assert e.low == pytest.approx(ref["low"][i], rel=1e-9, abs=1e-12)
        assert e.high == pytest.approx(ref["high"][i], rel=1e-9, abs=1e-12)
        assert e.pvalue == pytest.approx(ref["p"][i], rel=1e-7, abs=1e-300)
    assert res.r_squared == pytest.approx(ref["r_squared"], rel=1e-10)
    assert res.s_e == pytest.approx(ref["sigma"], rel=1e-10)
    assert res.residual.df == ref["df_residual"]
    assert res.total_ss == pytest.approx(ref["total_ss"], rel=1e-12)


def _check_table(res, table, names):
    rows = {row.term: row for row in res.table}
    for term, want in table.items():
        row = rows[names.get(term, term)]
        assert row.df == want["df"]
        assert row.ss == pytest.approx(want["ss"], rel=1e-8)
        assert row.f == pytest.approx(want["f"], rel=1e-8)
        assert row.pvalue == pytest.approx(want["p"], rel=1e-7)


def _check_sequential(res, ref, names):
    rows = {row.term: row for row in res.table}
    for i, term in enumerate(ref["anova_terms"][:-1]):
        row = rows[names.get(term, term)]
        assert row.ss == pytest.approx(ref["anova_ss"][i], rel=1e-8)
        assert row.f == pytest.approx(ref["anova_f"][i], rel=1e-8)
        assert row.pvalue == pytest.approx(ref["anova_p"][i], rel=1e-7)
    assert res.residual.ss == pytest.approx(ref["anova_ss"][-1], rel=1e-8)


def _check_diagnostics(res, ref):
    d, want = res.diagnostics, ref["diagnostics"]
    assert d.normality.statistic == pytest.approx(want["shapiro_w"], rel=1e-6)
    assert d.normality.pvalue == pytest.approx(want["shapiro_p"], rel=1e-5)
    assert d.cooks_max == pytest.approx(want["cooks_max"], rel=1e-8)
    assert d.cooks_row + 1 == want["cooks_row"]
    method = d.constant_variance.method.lower()
    assert method.startswith(want["variance_method"].split("-")[0])
    assert d.constant_variance.statistic == pytest.approx(want["variance_stat"], rel=1e-8)
    assert d.constant_variance.pvalue == pytest.approx(want["variance_p"], rel=1e-7)


TWO_NAMES = {"xA": "A", "xB": "B", "xC": "C", "xA:xB": "A:B", "xA:xC": "A:C", "xB:xC": "B:C",
             "xA:xB:xC": "A:B:C"}


def test_two_cubed_replicated_matches_r():
    case = R["two_cubed"]
    codes, levels = _codes([case["data"][f] for f in "ABC"])
    assert levels == [("hi", "lo")] * 3
    y = np.array(case["data"]["y"])
    res = anova(y, codes, ["A", "B", "C"], levels)
    assert res.method.startswith("sign table") and res.replicates == 3
    _check_fit(res, case["full"], TWO_NAMES)
    _check_sequential(res, case["full"], TWO_NAMES)
    _check_diagnostics(res, case["full"])
    assert sum(r.variation for r in res.table) + res.residual.variation == pytest.approx(1.0)
    two = anova(y, codes, ["A", "B", "C"], levels, interactions=2)
    _check_fit(two, case["order2"], TWO_NAMES)
    _check_sequential(two, case["order2"], TWO_NAMES)


def test_two_cubed_log_scale_matches_r():
    case = R["two_cubed"]
    codes, levels = _codes([case["data"][f] for f in "ABC"])
    res = anova(np.array(case["log_y"]), codes, ["A", "B", "C"], levels, log=True)
    _check_fit(res, case["log"], TWO_NAMES)
    a = next(e for e in res.effects if e.term == "A")
    assert a.ratio == pytest.approx(np.exp(2 * a.estimate))
    assert a.ratio_low == pytest.approx(np.exp(2 * a.low))
    assert res.transform == "log"


@pytest.mark.parametrize("case", ["general", "unbalanced"])
def test_ols_path_matches_r(case):
    ref = R[case]
    codes, levels = _codes([ref["data"]["M"], ref["data"]["L"]])
    y = np.array(ref["data"]["y"])
    names = {"M1": "M[a1]", "M2": "M[a2]", "xL": "L", "M1:xL": "M[a1]:L", "M2:xL": "M[a2]:L",
             "M": "M", "M:xL": "M:L"}
    res = anova(y, codes, ["M", "L"], levels, ss_type=1)
    assert res.method.startswith("OLS")
    _check_fit(res, ref["full"], names)
    _check_sequential(res, ref["full"], names)
    _check_diagnostics(res, ref["full"])
    _check_table(anova(y, codes, ["M", "L"], levels, ss_type=2), ref["full"]["type2"], names)
    _check_table(anova(y, codes, ["M", "L"], levels, ss_type=3), ref["full"]["type3"], names)
    if case == "unbalanced":
        assert "unbalanced" in res.warnings[0]
        assert res.replicates is None


def test_two_level_unbalanced_uses_ols_with_the_same_q():
    case = R["two_cubed"]
    codes, levels = _codes([case["data"][f] for f in "ABC"])
    y = np.array(case["data"]["y"])
    keep = np.ones(y.size, dtype=bool)
    keep[0] = False  # one cell now has 2 runs
    res = anova(y[keep], codes[keep], ["A", "B", "C"], levels)
    assert res.method.startswith("OLS")
    cells = yates_cells([2, 2, 2])
    means = np.array([y[keep][(codes[keep] == c).all(axis=1)].mean() for c in cells])
    from benchlab.stats.coding import sign_table, term_label

    s, terms = sign_table(3)
    # a saturated model fits the cell means, so q is still the sign-table transform of them
    q = dict(zip([term_label(t, ["A", "B", "C"]) for t in terms], s.T @ means / 8,
                 strict=True))
    assert {e.term: e.estimate for e in res.effects} == pytest.approx(q)


def test_refusals():
    codes = yates_cells([2, 2])
    y = np.array([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(InputError, match="cell A=b, B=d has no observations"):
        anova(y[:3], codes[:3], ["A", "B"], [("a", "b"), ("c", "d")])
    # The API names its parameters (log, interactions), not the command's options.
    with pytest.raises(ParameterError, match="^log needs positive values"):
        anova(np.array([1.0, -2, 3, 4]), codes, ["A", "B"], [("a", "b"), ("c", "d")], log=True)
    with pytest.raises(UsageError, match="^interactions must be between 1 and 2"):
        anova(y, codes, ["A", "B"], [("a", "b"), ("c", "d")], interactions=3)
    with pytest.raises(InputError, match="level 'z' does not occur"):
        anova(y, codes, ["A", "B"], [("a", "b"), ("c", "d", "z")])
    main = anova(y[:3], codes[:3], ["A", "B"], [("a", "b"), ("c", "d")], interactions=1)
    assert main.residual.df == 0 and "empty cell" in main.warnings[0]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(2, 4), st.integers(0, 2**31))
def test_sign_table_equals_ols(k, r, seed):
    """Balanced 2^k: Jain's formulas and least squares give the same effects and SS."""
    rng = np.random.default_rng(seed)
    codes = np.tile(yates_cells([2] * k), (r, 1))
    y = rng.normal(size=codes.shape[0]) + codes @ rng.normal(size=k)
    names, levels = [f"f{i}" for i in range(k)], [("lo", "up")] * k
    jain = anova(y, codes, names, levels)
    order = rng.permutation(y.size)  # the run order does not matter
    ols = anova(y[order], codes[order], names, levels, ss_type=1)
    ols_like = anova(np.append(y, y[0]), np.vstack([codes, codes[:1]]), names, levels)
    assert ols_like.method.startswith("OLS")
    assert [e.estimate for e in jain.effects] == pytest.approx(
        [e.estimate for e in ols.effects], abs=1e-9)
    assert [row.ss for row in jain.table] == pytest.approx([row.ss for row in ols.table],
                                                           abs=1e-9)
    assert jain.residual.ss + sum(row.ss for row in jain.table) == pytest.approx(jain.total_ss)


def test_python_api_on_columns():
    import benchlab

    case = R["general"]
    table = {"M": case["data"]["M"], "L": case["data"]["L"], "y": case["data"]["y"]}
    res = benchlab.anova(table, "y", ["M", "L"], ss_type=1)
    doc = res.to_dict()
    assert [row["term"] for row in doc["anova"]] == ["M", "L", "M:L"]
    assert doc["anova"][0]["ss"] == pytest.approx(case["full"]["anova_ss"][0], rel=1e-9)
    json.dumps(doc, allow_nan=False)
    flipped = benchlab.anova(table, "y", ["M", "L"], level_order={"L": ["b2", "b1"]})
    assert {e.term: e.estimate for e in flipped.effects}["L"] == pytest.approx(
        -{e.term: e.estimate for e in res.effects}["L"])
    with pytest.raises(ValueError, match="response"):
        benchlab.anova(table, "y", ["M", "y"])


def test_sign_table_ci_coverage():
    """Simulated 2^2 × 3 experiments with known effects: the 95% CIs cover about 95%."""
    rng = np.random.default_rng(11)
    codes = np.tile(yates_cells([2, 2]), (3, 1))
    x = 2.0 * codes - 1
    truth = {"(Intercept)": 5.0, "A": 1.0, "B": -0.5, "A:B": 0.25}
    mean = 5.0 + 1.0 * x[:, 0] - 0.5 * x[:, 1] + 0.25 * x[:, 0] * x[:, 1]
    hits, sims = 0, 400
    for _ in range(sims):
        res = anova(mean + rng.normal(0, 2.0, mean.size), codes, ["A", "B"],
                    [("lo", "hi")] * 2)
        hits += sum(e.low <= truth[e.term] <= e.high for e in res.effects)
    coverage = hits / (4 * sims)
    assert 0.93 <= coverage <= 0.97  # 1600 intervals (not independent): sd about 0.006-0.011
